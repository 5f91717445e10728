"""Generators fitted to *declared* marginals, the two decomposable generators audited by
Houssiau et al. (2022) [``houssiau2022``], §4.4: :class:`IPF` (maximum entropy by iterative
proportional fitting) and :class:`PGMMarginals` (Private-PGM fitted to the exact marginals, with
no noise: the paper's "MST (Honest/Dishonest)" rows).

Both are **not differentially private**: they read exact marginal tables of the data
(``ledger_ is None``). Their output depends on the data only through the declared marginals (they
are *decomposable* for the card whose statistics are those marginals), which is what the audit
tests. :meth:`~DeclaredMarginals.honest` and :meth:`~DeclaredMarginals.dishonest` build the
paper's honest generator (the card's marginals only) and its dishonest twin (the card's
marginals plus an "unsafe" clique Φ⁺ ⊆ Φ⊥, e.g. the full 3-way marginal).

Interface (sklearn style, like the other synthesizers)::

    gen = IPF([("a", "b"), ("b", "c")], domain={"a": 2, "b": 3, "c": 2}, random_state=0)
    gen.fit(codes).sample(10_000)         # DataFrame of int64 codes, like codes
    IPF.dishonest([("a", "b"), ("b", "c")], ("a", "b", "c"), domain=...)  # leaks the 3-way table

Marginals are cliques of column names (a tuple/list of names; a bare name is a 1-way
marginal); duplicates are dropped and each clique is ordered like the data's columns.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._validation import (
    check_is_fitted,
    check_positive_int,
    check_random_state,
    check_random_state_param,
    real_in,
)
from ._code_tables import CodeTableGenerator
from .base import (
    card_params,
    check_cliques_param,
    check_domain_param,
    not_dp_card,
)
from .marginal import JunctionTree, Measurement, PGMFitter, true_marginal

__all__ = ["IPF", "MAX_IPF_CELLS", "DeclaredMarginals", "PGMMarginals"]

#: Largest joint table :class:`IPF` builds (cells; 8 bytes each, so 400 MB). The paper's
#: Application 3 needs 1 560 000 cells.
MAX_IPF_CELLS = 50_000_000

_NOT_DP = (
    "not DP: fitted to the exact marginal tables of the training data; no privacy guarantee "
    "and no privacy budget"
)


class DeclaredMarginals(CodeTableGenerator):
    """Base of the generators fitted to declared marginals (not DP).

    Subclasses implement ``_fit_marginals(targets)`` (``targets``: list of ``(clique of positions,
    exact counts of shape sizes[clique])``) and ``_sample_matrix(n, rng)`` → int64 array (n, d).

    Parameters (shared)
    -------------------
    marginals : list of cliques of column names
        The declared marginals Φ (the generator card's statistics).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        The domain. A Domain encodes raw tables in :meth:`fit` and decodes :meth:`sample`;
        None takes ``max + 1`` levels per column from the data (levels above the largest
        observed code are then outside the model).
    random_state : None, int, SeedSequence or numpy Generator
        Seeds the generator created at :meth:`fit`; successive ``sample`` calls continue it.

    Fitted attributes
    -----------------
    ``columns_``, ``domain_`` ({column: levels}), ``n_records_``,
    ``cliques_`` (the declared cliques, as tuples of names ordered like the columns),
    ``marginals_`` (dict clique → exact counts of the training data, shape of the clique's
    levels).
    """

    _description = ""
    _parameter_constraints = {
        "marginals": check_cliques_param,
        "domain": check_domain_param,
        "random_state": check_random_state_param,
    }

    def __init__(self, marginals, *, domain=None, random_state=None):
        self.marginals = marginals
        self.domain = domain
        self.random_state = random_state

    # -- the paper's honest and dishonest generators --------------------------------------------
    @classmethod
    def honest(cls, marginals, unsafe=None, **params):
        """The honest generator of a card: fitted to the declared ``marginals`` only.

        ``unsafe`` is accepted (and ignored) so that ``honest`` and :meth:`dishonest` take the
        same arguments. Returns an unfitted generator; ``params`` go to the constructor.
        """
        if unsafe is not None:
            check_cliques_param([unsafe], "unsafe")
        return cls(list(check_cliques_param(marginals)), **params)

    @classmethod
    def dishonest(cls, marginals, unsafe, **params):
        """The dishonest twin of :meth:`honest`: fitted to the declared ``marginals`` plus the
        ``unsafe`` clique (a tuple of column names, e.g. the full 3-way marginal), so its output
        reproduces a statistic outside the card (Houssiau et al. 2022, §4.4: Φ ∪ Φ⁺).
        Returns an unfitted generator."""
        (unsafe,) = check_cliques_param([unsafe], "unsafe")
        return cls([*check_cliques_param(marginals), unsafe], **params)

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit to the declared marginals of ``X``; returns ``self``.

        Parameters
        ----------
        X : pandas.DataFrame, shape (n_records, n_columns)
            Integer codes ``0..levels-1`` (raw values when ``domain`` is a Domain).
        y : ignored

        Raises
        ------
        TypeError, ValueError
            Bad parameters; a marginal naming a column that is not in the data; the input errors
            of :func:`~synthtrust.synthesizers.base.frame_to_codes` (NaN, codes outside the
            domain, ...) or of ``Domain.encode``.
        """
        self._validate_params()
        columns, domain, codes = self._codes(X)
        pos = {c: i for i, c in enumerate(columns)}
        cliques = []
        for cl in check_cliques_param(self.marginals):
            unknown = [c for c in cl if c not in pos]
            if unknown:
                raise ValueError(
                    f"marginal {cl!r} names column(s) {unknown} that are not in the data "
                    f"(columns {columns})"
                )
            axes = tuple(sorted(pos[c] for c in cl))
            if axes not in cliques:
                cliques.append(axes)
        self.columns_ = list(columns)
        self.domain_ = dict(domain)
        self.n_records_ = int(len(codes[0]))
        sizes_t = tuple(domain.values())
        self._sizes = sizes_t
        matrix = np.column_stack(codes)
        targets = [
            (cl, true_marginal(matrix, sizes_t, cl).reshape([sizes_t[a] for a in cl]))
            for cl in cliques
        ]
        self.cliques_ = [tuple(columns[a] for a in cl) for cl in cliques]
        self.marginals_ = {tuple(columns[a] for a in cl): t for cl, t in targets}
        self._rng = check_random_state(self.random_state)
        self._fit_marginals(targets)
        self._fitted = True
        return self

    def _fit_marginals(self, targets) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def fitted_marginal(self, clique) -> np.ndarray:
        """The model's marginal counts over ``clique`` (column names, any order): array of shape
        ``tuple(domain_[c] for c in clique)`` summing to ``n_records_``."""
        check_is_fitted(self)
        (clique,) = check_cliques_param([clique], "clique")
        pos = {c: i for i, c in enumerate(self.columns_)}
        unknown = [c for c in clique if c not in pos]
        if unknown:
            raise ValueError(
                f"clique {clique!r} names column(s) {unknown} that are not fitted "
                f"(columns {self.columns_})"
            )
        return self._model_marginal(tuple(pos[c] for c in clique))

    def _model_marginal(self, axes: tuple) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # -- documentation ----------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, description, parameters, the declared marginals and
        the privacy status (not DP)."""
        params = card_params(self)
        return not_dp_card(
            self,
            _NOT_DP,
            params,
            lambda: {
                "domain": self.domain_,
                "n_records": self.n_records_,
                "marginals": [tuple(c) for c in self.cliques_],
            },
            marginals=[tuple(c) for c in check_cliques_param(self.marginals)],
        )


class IPF(DeclaredMarginals):
    """Iterative proportional fitting: the maximum-entropy joint table with the data's declared
    marginals (Deming & Stephan 1940; Houssiau et al. 2022 [``houssiau2022``], §4.4 "IPF").

    Fit: the full joint table over the domain starts from all ones (the uniform, maximum-entropy
    table) and is scaled, clique after clique, so that its marginal over the clique equals the
    data's counts: ``T ← T · m_S / T_S`` (a cell whose current marginal is 0 stays 0). A sweep
    visits every declared clique; sweeps repeat until the L1 gap Σ_S ‖T_S − m_S‖₁ (counts, summed
    over the declared cliques) is ≤ ``tol`` or ``max_iter`` sweeps are done. Each update is
    one ``einsum`` reduction to the clique and one broadcast multiply (numpy), never a loop over
    cells (the paper's Application 3, 1.56 M cells and 21 pairs: ≈ 0.1 s a sweep). With
    consistent targets (marginals of one dataset) IPF converges to the maximum-entropy table
    under the marginal constraints, i.e. the log-linear model with the declared cliques (Csiszár
    1975); for a decomposable set it is reached in one sweep (a–b, b–c: T = n_ab·n_bc / n_b).

    Sample: ``n`` records drawn i.i.d. from T / N (inverse CDF of the flattened table), as the
    reference's ``unrolled_sampler``.

    Why not the ``ipfn`` package: its last release (1.4.4) dates from 2021 and it loops in Python
    over the cells of every marginal; with the same sweeps and the same tables (to 1e-12 counts)
    it is 17–21× slower than this class on the paper's Applications 1–2 and 3× slower on the
    1.56 M-cell table of Application 3 (``benchmarks/bench_ipf.py``). The
    reference's ``sinkhorn_tensor`` (``raw_ipf.py``) stops when the table changes by ≤ 0.5 (L1)
    between sweeps and adds 1e-5 to denominators; here the criterion is the marginal gap itself
    and zeros are exact.

    Parameters
    ----------
    marginals : list of cliques of column names
        The declared marginals.
    tol : float > 0
        Stop when the summed L1 gap of the declared marginals is ≤ ``tol`` counts (0.5 in the
        paper's audit; 1e-3 in its utility runs).
    max_iter : int ≥ 1
        Largest number of sweeps (10 000 in the paper). Not converging warns
        (``sklearn.exceptions.ConvergenceWarning``); with consistent targets it is not expected.
    domain, random_state
        See :class:`DeclaredMarginals`.

    Fitted attributes
    -----------------
    ``table_`` (ndarray float64 of shape ``tuple(domain_.values())``: the fitted joint counts,
    summing to ``n_records_``), ``n_iter_`` (sweeps run), ``converged_`` (bool), ``gap_`` (final
    L1 gap, counts), and those of :class:`DeclaredMarginals`. ``ledger_ is None`` (not DP).

    Raises
    ------
    TypeError, ValueError
        Bad parameters (``tol`` not a finite real > 0, ``max_iter`` not an integer ≥ 1, empty or
        malformed ``marginals``); at :meth:`fit`, a marginal naming an unknown column, or a joint
        table of more than :data:`MAX_IPF_CELLS` cells (the message gives both numbers).
    """

    _description = (
        "IPF: maximum-entropy joint table matching the declared marginals of the data "
        "(iterative proportional fitting from the uniform table)"
    )
    _parameter_constraints = {
        **DeclaredMarginals._parameter_constraints,
        "tol": real_in(0.0, low_open=True),
        "max_iter": check_positive_int,
    }

    def __init__(
        self, marginals, *, tol: float = 0.5, max_iter: int = 10_000, domain=None, random_state=None
    ):
        self.tol = tol
        self.max_iter = max_iter
        super().__init__(marginals, domain=domain, random_state=random_state)

    def _fit_marginals(self, targets) -> None:
        sizes = self._sizes
        cells = math.prod(sizes)
        if cells > MAX_IPF_CELLS:
            raise ValueError(
                f"the joint table over the domain has {cells:,} cells, more than the "
                f"limit of {MAX_IPF_CELLS:,} cells (MAX_IPF_CELLS) for IPF; "
                f"declare fewer or smaller columns (domain {self.domain_})"
            )
        d = len(sizes)
        letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
        if d > len(letters):  # not reachable below the cell limit unless columns have 1 level
            raise ValueError(f"IPF handles at most {len(letters)} columns, got {d}")
        full = letters[:d]
        plan = []
        for cl, target in targets:
            # marginal by einsum (one pass; 2-4x faster than ndarray.sum over several axes)
            spec = f"{full}->{''.join(letters[a] for a in cl)}"
            shape = tuple(sizes[a] if a in cl else 1 for a in range(d))
            plan.append((spec, shape, target.reshape(shape)))
        table = np.ones(sizes, dtype=float)
        tol, max_iter = float(self.tol), int(self.max_iter)
        gap, it = math.inf, 0
        while it < max_iter:
            it += 1
            for spec, shape, target in plan:
                current = np.einsum(spec, table).reshape(shape)
                factor = np.divide(target, current, out=np.zeros_like(current), where=current > 0)
                table *= factor
            gap = float(
                sum(
                    np.abs(np.einsum(spec, table).reshape(shape) - target).sum()
                    for spec, shape, target in plan
                )
            )
            if gap <= tol:
                break
        self.table_ = table
        self.n_iter_ = it
        self.gap_ = gap
        self.converged_ = bool(gap <= tol)
        if not self.converged_:
            from sklearn.exceptions import ConvergenceWarning

            warnings.warn(
                f"IPF did not converge in max_iter={max_iter} sweeps: L1 gap {gap:.4g} "
                f"counts > tol={tol}",
                ConvergenceWarning,
                stacklevel=3,
            )
        flat = table.ravel()
        cdf = np.cumsum(flat)
        self._cdf = cdf / cdf[-1]

    def _sample_matrix(self, n: int, rng: np.random.Generator) -> np.ndarray:
        cells = np.searchsorted(self._cdf, rng.random(n), side="right")
        cells = np.minimum(cells, self._cdf.size - 1)
        return np.column_stack(np.unravel_index(cells, self._sizes)).astype(np.int64)

    def _model_marginal(self, axes: tuple) -> np.ndarray:
        other = tuple(a for a in range(len(self._sizes)) if a not in axes)
        m = self.table_.sum(axis=other)
        kept = sorted(axes)
        return np.transpose(m, [kept.index(a) for a in axes])


class PGMMarginals(DeclaredMarginals):
    """Private-PGM fitted to the exact declared marginals, with no noise (not DP): the
    generator of the paper's "MST (Honest/Dishonest)" rows (Houssiau et al. 2022
    [``houssiau2022``], §4.4 says "Private-PGM"; its code runs mbi's ``FactoredInference`` on
    the declared marginals with σ = 0.001 and no selection step).

    Fit: every declared marginal is one measurement of the exact counts (σ = 1; without noise
    the scale of σ only rescales the loss, and mirror descent's step adapts to it) and
    :class:`~synthtrust.synthesizers.marginal.PGMFitter` estimates the graphical model over the
    declared cliques (McKenna, Sheldon & Miklau 2019 [``mckenna2019``], Alg. 1: mirror descent
    on the L2 loss with Armijo steps; the total is the number of records). With consistent
    marginals the optimum reproduces them exactly and is the maximum-entropy model, the same
    distribution as :class:`IPF` (up to the ``max_iter`` steps of the optimiser).

    Sample: mbi's randomised-rounding generation (``synthetic_data``, method ``"round"``, as the
    reference), by :class:`~synthtrust.synthesizers.marginal.JunctionTree`: the records are not
    i.i.d. — the model marginals are matched almost exactly.

    Parameters
    ----------
    marginals : list of cliques of column names
    max_iter : int ≥ 1
        Mirror-descent steps (mbi's default 1000; the paper used 200 in its Application 3).
    domain, random_state
        See :class:`DeclaredMarginals`.

    Fitted attributes
    -----------------
    ``model_`` (:class:`~synthtrust.synthesizers.marginal.FittedModel`), and those of
    :class:`DeclaredMarginals`. ``ledger_ is None`` (not DP).
    """

    _description = (
        "Private-PGM fitted to the exact declared marginals (no noise, no selection); "
        "the paper's 'MST (Honest/Dishonest)'"
    )

    _parameter_constraints = {
        **DeclaredMarginals._parameter_constraints,
        "max_iter": check_positive_int,
    }

    def __init__(self, marginals, *, max_iter: int = 1000, domain=None, random_state=None):
        self.max_iter = max_iter
        super().__init__(marginals, domain=domain, random_state=random_state)

    def _fit_marginals(self, targets) -> None:
        meas = [Measurement(cl, t.reshape(-1).astype(float), 1.0) for cl, t in targets]
        self.model_ = PGMFitter(self._sizes).fit(meas, max_iter=int(self.max_iter))
        self._jtree = JunctionTree(self.model_)

    def _sample_matrix(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self._jtree.sample(n, rng)

    def _model_marginal(self, axes: tuple) -> np.ndarray:
        return np.asarray(self._jtree.marginal(axes), dtype=float)
