"""The two-step audit of a generator against its card (Houssiau et al. 2022, §3.3, Eqs. 5–7).

Null hypothesis: the generator is *decomposable* with respect to the card — its output
distribution depends on the training data only through the declared marginals Φ. Under the null,
two training sets with the same declared marginals and the same N give generators with the same
output distribution, so any statistic g ∈ Φ⊥ has the same expected value on their samples.

1. **Select** (Eqs. 5–6). Probe with β = Σ_i b_i (the reference code's choice; the paper says "a
   random direction") over the orthonormal basis b_1..b_k of the probed part of Φ⊥
   (:func:`~synthtrust.audit.complement_basis`). Build its extremal pair D⁻, D⁺ (Eq. 4,
   :func:`~synthtrust.audit.extremal_pair`), train the generator K₁ times on each, sample N
   records each time and average the differences δ_i = mean_k [b_i(S⁺_k) − b_i(S⁻_k)]. The most
   revealing direction is β* = δ/‖δ‖₂.
2. **Test** (Eq. 7). Build the extremal pair of β* and train K₂ *fresh* generators on each side;
   y±_k = β*(S±_k). Student's two-sample t-test (equal variances, df = 2K₂ − 2) of y⁺ against
   y⁻. Step 2 uses new trainings, so selecting β* on step 1 does not bias the test.

A rejection at level α is evidence that the generator uses statistics outside its card; *not*
rejecting proves nothing (the paper's Remark 1): the leak may lie outside the probed candidates,
or be too weak for K₂ trainings.

Every training goes through :func:`synthtrust.run.experiment.run_grid` (seeded by replicate, run in
parallel with joblib or on Dask, cached), so the result does not depend on ``n_jobs``.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from synthtrust.run.experiment import run_grid

from .._result import ResultMixin
from .._validation import (
    check_positive_int,
    check_random_state,
    check_sample,
    check_unit_interval,
)
from .basis import CellCounts, ComplementBasis, complement_basis
from .card import GeneratorCard
from .extremal import ExtremalPair, extremal_pair

__all__ = ["AuditResult", "audit", "construct", "instantiate"]


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------
def construct(cls: type, params: dict, random_state):
    """``cls(**params)``, with ``random_state`` added when the constructor takes it and
    ``params`` does not set it."""
    params = dict(params)
    if "random_state" in inspect.signature(cls).parameters:
        params.setdefault("random_state", random_state)
    return cls(**params)


def instantiate(generator, random_state):
    """A fresh, unfitted generator for one training.

    ``generator`` is a class (called with ``random_state=`` if its constructor takes it, else
    without arguments), a callable ``factory(random_state) -> generator``, or an unfitted
    estimator with ``get_params`` (cloned with ``sklearn.base.clone``; its ``random_state``
    parameter, if any, is set to ``random_state``). The result must have ``fit(frame)`` and
    ``sample(n)``.

    Raises
    ------
    TypeError
        ``generator`` is neither, or the instance lacks ``fit``/``sample``.
    """
    if isinstance(generator, type):
        gen = construct(generator, {}, random_state)
    elif hasattr(generator, "get_params"):
        from sklearn.base import clone

        gen = clone(generator)
        if "random_state" in gen.get_params(deep=False):
            gen.set_params(random_state=random_state)
    elif callable(generator) and not hasattr(generator, "fit"):
        gen = generator(random_state)
    else:
        raise TypeError(
            "generator must be an unfitted estimator with get_params (e.g. a "
            "synthtrust synthesizer) or a factory callable(random_state) -> generator, "
            f"got {type(generator).__name__}"
        )
    missing = [m for m in ("fit", "sample") if not callable(getattr(gen, m, None))]
    if missing:
        raise TypeError(
            f"the generator ({type(gen).__name__}) lacks {' and '.join(missing)}; an "
            "audited generator needs fit(frame) and sample(n)"
        )
    return gen


def _train(
    params: dict,
    rngs,
    *,
    generator,
    data: CellCounts,
    basis: ComplementBasis,
    weights: np.ndarray | None,
) -> pd.DataFrame:
    """Train ``generator`` on ``data`` once per rng, sample N records, and return the basis
    statistics of each sample (columns b0..b{k-1}) or, with ``weights``, the statistic
    Σ w_i b_i (column ``y``)."""
    frame = data.to_frame()
    rows = []
    for i, rng in enumerate(rngs):
        gen = instantiate(generator, int(rng.integers(2**31 - 1)))
        try:
            sample = gen.fit(frame).sample(len(frame))
        except Exception as exc:  # name the training: the user's generator, any error
            raise RuntimeError(
                f"training {params['side']}#{i} of step {params['step']} failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        b = basis.statistic(check_sample(sample, basis.card.columns, len(frame)))
        rows.append(b if weights is None else np.array([float(weights @ b)]))
    cols = [f"b{j}" for j in range(basis.dim)] if weights is None else ["y"]
    return pd.DataFrame(np.vstack(rows), columns=cols)


def _run_side(
    step: int,
    side: str,
    reps: int,
    seed: int,
    pair: ExtremalPair,
    *,
    generator,
    basis,
    weights,
    n_jobs,
    dask,
    cache_dir,
) -> pd.DataFrame:
    data = pair.plus if side == "plus" else pair.minus
    func = functools.partial(_train, generator=generator, data=data, basis=basis, weights=weights)
    out = run_grid(
        func,
        [{"step": step, "side": side}],
        reps,
        seed,
        chunk_size=1,
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        progress=False,
    )
    return out.sort_values("rep").reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# the result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditResult(ResultMixin):
    """Outcome of :func:`audit` (SciPy style: ``statistic``, ``pvalue``).

    Attributes
    ----------
    statistic : float
        Student's t of y⁺ against y⁻ (Eq. 7).
    pvalue : float
        Two-sided p-value; may underflow to 0 for a dishonest generator (see ``log10_pvalue``).
    df : int
        2·K₂ − 2.
    log10_pvalue : float
        log₁₀ of the two-sided p-value, computed without underflow (``t.logsf``).
    alpha : float
    rejected : bool
        ``pvalue < alpha``: evidence that the generator uses statistics outside its card.
    direction : ndarray (k,)
        β*, the unit direction selected on step 1 (weights of the basis functions).
    leak : Series
        Share of ‖β*‖² per undeclared interaction (``ComplementBasis.energy_by_clique``):
        where the leak is.
    y_minus, y_plus : ndarray (K₂,)
        β*(S) of the step-2 samples trained on D⁻ and on D⁺.
    g_minus, g_star, g_plus : float
        β* on D⁻, D* and D⁺ (the training sets).
    card : GeneratorCard
    phi_rank, dim : int
        dim Φ (with the constant) and the number of probed directions k.
    n_rows : tuple (N⁻, N⁺)
    k_select, k_audit : int
    seed : int
    """

    statistic: float
    pvalue: float
    df: int
    log10_pvalue: float
    alpha: float
    rejected: bool
    direction: np.ndarray
    leak: pd.Series
    y_minus: np.ndarray
    y_plus: np.ndarray
    g_minus: float
    g_star: float
    g_plus: float
    card: GeneratorCard
    phi_rank: int
    dim: int
    n_rows: tuple
    k_select: int
    k_audit: int
    seed: int
    generator: str = field(default="")

    @property
    def verdict(self) -> str:
        """One line: rejected or not, at α, with Remark 1's caveat."""
        if self.rejected:
            return (
                f"REJECTED at α = {self.alpha:g}: the generator's output depends on statistics "
                "outside its card"
            )
        return (
            f"NOT REJECTED at α = {self.alpha:g}: no evidence of statistics outside the card "
            "(not a proof)"
        )

    def summary(self) -> str:
        """A short plain-text report (the CLI prints it)."""
        c = self.card
        top = self.leak.head(3)
        where = ", ".join(f"({', '.join(k)}) {v:.0%}" for k, v in top.items()) or "n/a"
        p = f"{self.pvalue:.3g}" if self.pvalue > 0 else f"10^{self.log10_pvalue:.1f}"
        lines = [
            f"card       {len(c.column_names)} columns, |X| = {c.cells:,}; "
            f"{len(c.marginals)} declared marginals (dim Φ = {self.phi_rank}); "
            f"probing {self.dim} direction{'' if self.dim == 1 else 's'} of Φ⊥",
            f"generator  {self.generator or 'given'}; "
            f"{2 * (self.k_select + self.k_audit)} trainings (K = {self.k_select} + "
            f"{self.k_audit} per side)",
            f"extremal   D−/D+ {self.n_rows[0]:,} / {self.n_rows[1]:,} rows; "
            f"g*(D−) = {self.g_minus:+.4g}, g*(D+) = {self.g_plus:+.4g}",
            f"step 2     synthetic g*: {self.y_minus.mean():+.4g} ± {self.y_minus.std(ddof=1):.2g}"
            f" vs {self.y_plus.mean():+.4g} ± {self.y_plus.std(ddof=1):.2g}",
            f"test       Student t = {self.statistic:.4g}, df = {self.df}, p = {p}",
            f"leak       share of ‖β*‖² by interaction: {where}",
            f"verdict    {self.verdict}",
        ]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """Everything as JSON-serialisable Python values."""
        return {
            "statistic": self.statistic,
            "pvalue": self.pvalue,
            "df": self.df,
            "log10_pvalue": self.log10_pvalue,
            "alpha": self.alpha,
            "rejected": self.rejected,
            "verdict": self.verdict,
            "generator": self.generator,
            "card": self.card.to_dict(),
            "phi_rank": self.phi_rank,
            "dim": self.dim,
            "n_rows": list(self.n_rows),
            "k_select": self.k_select,
            "k_audit": self.k_audit,
            "seed": self.seed,
            "g_minus": self.g_minus,
            "g_star": self.g_star,
            "g_plus": self.g_plus,
            "y_minus": self.y_minus.tolist(),
            "y_plus": self.y_plus.tolist(),
            "direction": self.direction.tolist(),
            "leak": [{"interaction": list(k), "share": float(v)} for k, v in self.leak.items()],
        }


# --------------------------------------------------------------------------------------------
# the audit
# --------------------------------------------------------------------------------------------
def _log10_p(t: float, df: int) -> float:
    """log₁₀ of the two-sided p-value 2·sf(|t|; df), also where it underflows.

    p = I_x(df/2, 1/2) with x = df/(df + t²) (the regularized incomplete beta); when SciPy's
    ``t.logsf`` underflows (|t| beyond ~10¹⁵ at df = 18) its logarithm is taken from
    I_x(a, b) = x^a (1 − x)^b / (a·B(a, b)) · ₂F₁(a + b, 1; a + 1; x) (DLMF 8.17.8)."""
    from scipy import special

    log_p = math.log(2.0) + float(stats.t.logsf(abs(t), df))
    if not math.isfinite(log_p):
        a, b, x = df / 2.0, 0.5, df / (df + t * t)
        log_p = (
            a * math.log(x)
            + b * math.log1p(-x)
            - math.log(a)
            - special.betaln(a, b)
            + math.log(special.hyp2f1(a + b, 1.0, a + 1.0, x))
        )
    return float(log_p / math.log(10.0))


def audit(
    generator,
    card: GeneratorCard,
    *,
    candidates="next",
    support=None,
    copies=1000,
    k_select: int = 10,
    k_audit: int = 10,
    alpha: float = 0.01,
    method: str = "residual",
    basis: ComplementBasis | None = None,
    random_state=None,
    n_jobs=None,
    dask=None,
    cache_dir=None,
    name: str = "",
) -> AuditResult:
    """Audit a black-box generator against its card (``houssiau2022`` §3.3, Eqs. 4–7).

    Parameters
    ----------
    generator : unfitted estimator with ``get_params``, or ``factory(random_state)``
        Anything with ``fit(frame)`` and ``sample(n)`` (see :func:`instantiate`). It is trained
        on integer-coded tables whose columns are the card's (codes ``0..size-1``) and must
        sample such tables.
    card : GeneratorCard
    candidates, support, copies, method
        Passed to :func:`~synthtrust.audit.complement_basis` (the probed part of Φ⊥: "next",
        an int k for all k-way bins, or explicit bins) and :func:`~synthtrust.audit.extremal_pair`
        (support cells of D* and copies of each; the paper uses all cells with 1000 copies for
        small domains, 10 000 random cells with 10 copies for Application 3).
    basis : ComplementBasis, optional
        A precomputed basis for ``card`` (skips ``candidates``).
    k_select, k_audit : int ≥ 2
        K₁ and K₂: trainings per side in steps 1 and 2 (the paper: 10 and 10).
    alpha : float in (0, 1)
        Level of the test.
    random_state : int or None
        Root seed of the supports and of every training.
    n_jobs, dask, cache_dir
        Where the trainings run (:func:`synthtrust.run.experiment.run_grid`).
    name : str
        Label of the generator in the report.

    Returns
    -------
    AuditResult

    Raises
    ------
    TypeError, ValueError
        A bad parameter; a generator without ``fit``/``sample``, or whose samples lack the
        card's columns; ``RuntimeError`` naming the training that raised.
    """
    if not isinstance(card, GeneratorCard):
        raise TypeError(f"card must be a GeneratorCard, got {type(card).__name__}")
    k_select = check_positive_int(k_select, "k_select")
    k_audit = check_positive_int(k_audit, "k_audit")
    for value, pname in ((k_select, "k_select"), (k_audit, "k_audit")):
        if value < 2:
            raise ValueError(f"{pname} must be >= 2 (a mean and a variance per side), got {value}")
    alpha = check_unit_interval(alpha, "alpha")
    probe = instantiate(generator, 0)  # fail early on a generator that cannot be built
    rng = check_random_state(random_state)
    seed = int(rng.integers(2**31 - 1))
    basis = complement_basis(card, candidates) if basis is None else basis
    if basis.dim == 0:
        raise ValueError(
            "the candidates add no direction outside the card's span (dim 0): "
            "nothing to audit; probe higher-order candidates"
        )
    common = {
        "generator": generator,
        "basis": basis,
        "n_jobs": n_jobs,
        "dask": dask,
        "cache_dir": cache_dir,
    }
    pair1 = extremal_pair(
        card,
        basis,
        np.ones(basis.dim),
        support=support,
        copies=copies,
        method=method,
        random_state=seed,
    )
    b = {
        side: _run_side(1, side, k_select, seed, pair1, weights=None, **common)
        for side in ("minus", "plus")
    }
    cols = [f"b{j}" for j in range(basis.dim)]
    delta = (b["plus"][cols].to_numpy() - b["minus"][cols].to_numpy()).mean(axis=0)
    norm = float(np.linalg.norm(delta))
    direction = delta / norm if norm > 0 else np.ones(basis.dim) / math.sqrt(basis.dim)
    pair2 = extremal_pair(
        card, basis, direction, support=support, copies=copies, method=method, random_state=seed + 1
    )
    y = {
        side: _run_side(2, side, k_audit, seed, pair2, weights=direction, **common).y.to_numpy()
        for side in ("minus", "plus")
    }
    test = stats.ttest_ind(y["plus"], y["minus"], equal_var=True)
    t, df = float(test.statistic), 2 * k_audit - 2
    if not np.isfinite(t):  # identical constant samples on both sides: no difference at all
        t = 0.0
    p = float(2 * stats.t.sf(abs(t), df))
    return AuditResult(
        statistic=t,
        pvalue=p,
        df=df,
        log10_pvalue=_log10_p(t, df),
        alpha=alpha,
        rejected=bool(p < alpha),
        direction=direction,
        leak=basis.energy_by_clique(direction).sort_values(ascending=False),
        y_minus=y["minus"],
        y_plus=y["plus"],
        g_minus=pair2.g_minus,
        g_star=pair2.g_star,
        g_plus=pair2.g_plus,
        card=card,
        phi_rank=basis.phi_rank,
        dim=basis.dim,
        n_rows=(pair2.minus.n, pair2.plus.n),
        k_select=k_select,
        k_audit=k_audit,
        seed=seed,
        generator=name or type(probe).__name__,
    )
