"""AIM: an Adaptive and Iterative Mechanism (McKenna, Mullins, Sheldon & Miklau, "AIM: An Adaptive
and Iterative Mechanism for Differentially Private Synthetic Data", VLDB 2022, Alg. 2), zCDP,
on mbi 2.0.

Mechanism (ρ = cdp_rho(ε, δ), add/remove neighbours; as the reference ``mechanisms/aim.py`` of
Private-PGM [``privatepgm2025``]):

1. Workload W = weighted cliques (default every pair of columns, weight 1); cliques with more than
   ``max_cells`` cells are dropped. Candidates = the downward closure of W, with weight
   w(c) = Σ_{(W_j, v_j)} v_j·|c ∩ W_j|.
2. T = ``rounds`` (default 16·d); per round ρ/T, 90 % for the measurement, σ = √(T/(2·0.9·ρ)),
   10 % for the selection, ε = √(8·0.1·ρ/T).
3. Measure every 1-way marginal with N(0, σ²); fit Private-PGM (``max_iter`` steps).
4. Repeat: if the remaining budget is below 2·(1/(2σ²) + ε²/8), use all of it in this last round
   (σ = √(1/(2·0.9·ρ_rem)), ε = √(8·0.1·ρ_rem)). Candidates = those already inside a measured
   clique, or whose model size ``model_size_mb(measured + [c])`` ≤ ``max_model_size``·ρ_used/ρ
   (ρ_used including this round). Score w(c)·(‖x_c − x̂_c‖₁ − √(2/π)·σ·cells(c)) (the second term
   is the expected L1 norm of the noise), exponential mechanism with sensitivity max w. Measure the
   chosen marginal with N(0, σ²); refit warm-started (:func:`refit_iters` steps, see below).
   Annealing: if the model's estimate of the chosen marginal moved by ≤ √(2/π)·σ·cells in L1,
   halve σ and double ε.
5. Final warm-started refit (``max_iter``); records from the model.

The last round spends exactly the remainder, so the ledger sums to ρ. ``rounds`` must be ≥ d (the
1-way initialisation costs d/T of the measurement budget). Differences from the reference script:
the 1-way initialisation measures every column (the reference measures the 1-way cliques of the
candidate set, i.e. only the workload's columns); the EM sensitivity is the largest weight among
the candidates of the round (valid, and equal to the reference's with uniform weights); and the
estimation effort of the refits of large models.

Estimation effort. The reference runs ``max_iter`` mirror-descent steps on every warm-started
refit. A step costs time proportional to the junction-tree size, which the cap lets grow towards
``max_model_size`` as the budget is spent, and at large ε the reference anneals rarely, so it runs
many rounds with big models: on adult at ε = 10 (``refit_mb=None``) the model reaches 32 MB after
42 rounds and 7.5 min, with half the budget left and 1.2 min a round, growing (hours with JAX
fits). Here a refit of a model larger than ``refit_mb`` MB (default 2) runs
⌈max_iter·refit_mb/size⌉ steps (at least 50): about the work of ``max_iter`` steps on a
``refit_mb``-MB model. The first fit, the final fit and every refit of a model up to ``refit_mb``
run ``max_iter``, so a run whose model stays small (adult at ε = 1: 0.33 MB) is step for step the
run with ``refit_mb=None`` (the reference's effort everywhere). Selection, budget, annealing and
ledger are untouched and a fit is post-processing of the published measurements, so the privacy
guarantee is the same; what changes is the trajectory at large ε: the scores and the annealing
test see less converged estimates of big models, so a marginal still poorly fitted may be chosen
again and anneal σ sooner, which ends the run in fewer rounds. Adult, ε = 10, seed 0:
``refit_mb`` = 1 / 2 / 4 MB ⇒ 34 / 38 / 47 rounds, 2-way TVD of the records 0.0215 / 0.0197 /
0.0187 (ε = 1: 0.0425), fit 115 / 142 / 252 CPU-s.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_positive_int, optional
from ..privacy.mechanisms import exponential_mechanism
from .marginal import (
    AuditViewMixin,
    JunctionTree,
    PGMFitter,
    PGMSamplingMixin,
    aim_budget,
    check_model_size,
    check_workload,
    downward_closure,
    measure,
    model_size_mb,
    true_marginal,
)
from .mwem_pgm import SELECT_MEASURE_CONSTRAINTS
from .tabular import TabularSynthesizer

__all__ = ["AIM"]

MEASURE_SHARE = 0.9
MIN_REFIT_ITERS = 50
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def refit_iters(max_iter: int, model_mb: float, refit_mb: float | None) -> int:
    """Mirror-descent steps of a warm-started refit of a model of ``model_mb`` MB: ``max_iter``
    up to ``refit_mb`` MB (or when ``refit_mb`` is None), else ⌈max_iter·refit_mb/model_mb⌉ but
    at least min(max_iter, MIN_REFIT_ITERS): about the work of ``max_iter`` steps on a
    ``refit_mb``-MB model."""
    if refit_mb is None or model_mb <= refit_mb:
        return int(max_iter)
    return max(min(int(max_iter), MIN_REFIT_ITERS), math.ceil(max_iter * refit_mb / model_mb))


class AIM(AuditViewMixin, PGMSamplingMixin, TabularSynthesizer):
    """AIM synthesizer (McKenna et al., VLDB 2022), zCDP, add/remove neighbours.

    Parameters
    ----------
    epsilon, delta : float
        (ε, δ)-DP target; the mechanism spends ρ = cdp_rho(ε, δ).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
    workload : list or None
        Cliques (tuples of column names) or ``(clique, weight)`` pairs; default every pair of
        columns with weight 1.
    rounds : int or None
        T (default 16·d); must be ≥ d.
    max_model_size : float
        Junction-tree size cap in MB (default 80), reached when the whole budget is spent.
    max_iter : int
        Mirror-descent steps of the first and the final fit, and of every refit of a model up to
        ``refit_mb`` (default 1000).
    refit_mb : float or None
        Effort cap of the refits of the rounds (default 2 MB): a model of s > ``refit_mb`` MB is
        refitted with ⌈max_iter·refit_mb/s⌉ steps (at least 50). None: ``max_iter`` steps for
        every refit, as the reference (hours at large ε). See the module docstring.
    max_cells : int
        Workload cliques with more cells are dropped (default 10 000).
    random_state : int, Generator or None

    Fitted attributes
    -----------------
    ``cliques_`` (the cliques measured after the 1-way initialisation, by
    column names, in order), ``measurements_``, ``model_``, ``rounds_`` (rounds run after the
    initialisation), ``ledger_`` (d + rounds Gaussian and ``rounds_`` exponential-mechanism entries),
    ``refit_iters_`` (mirror-descent steps of each round's refit).

    Runtime: the fits dominate (numpy mirror descent, cost ∝ steps × junction-tree cells); the
    candidates' model marginals come from one pass over the junction tree a round
    (:meth:`JunctionTree.marginals`). Measured on the 2-core machine, adult (48 842 × 14) at the
    defaults: ε = 1 ⇒ 31 rounds, final model 0.33 MB, ≈ 25 CPU-s; ε = 10 ⇒ 38 rounds, final model
    61 MB, ≈ 130 CPU-s (≈ 70 of them the final 1000-step fit).

    Raises
    ------
    TypeError, ValueError
        Bad parameters; at fit, a workload column not in the data, no workload clique within
        ``max_cells``, or ``rounds`` < d.
    """

    #: add/remove neighbours (zCDP, the reference implementation's relation)
    neighbouring = "add_remove"

    #: the (ε, δ) claim is ρ-zCDP with ρ = cdp_rho(ε, δ) (read by :func:`synthtrust.dp_audit.declared_rho`)
    privacy_definition = "zcdp"

    _description = (
        "AIM: adaptive workload-aware selection (exponential mechanism) and Gaussian "
        "measurement of marginals with annealing, Private-PGM (McKenna et al. 2022)"
    )
    _parameter_constraints = {
        **TabularSynthesizer._parameter_constraints,
        **SELECT_MEASURE_CONSTRAINTS,
        "refit_mb": optional(check_model_size),
        "max_cells": check_positive_int,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-9,
        *,
        domain=None,
        workload=None,
        rounds: int | None = None,
        max_model_size: float = 80,
        max_iter: int = 1000,
        refit_mb: float | None = 2.0,
        max_cells: int = 10_000,
        random_state=None,
    ):
        self.workload = workload
        self.rounds = rounds
        self.max_model_size = max_model_size
        self.max_iter = max_iter
        self.refit_mb = refit_mb
        self.max_cells = max_cells
        super().__init__(epsilon, delta, domain=domain, random_state=random_state)

    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        cols = self.columns_
        d = len(cols)
        X = np.column_stack([codes[c] for c in cols])
        sizes = [self.domain_[c] for c in cols]
        cells = {}

        def ncells(c):
            if c not in cells:
                cells[c] = int(np.prod([sizes[a] for a in c], dtype=np.int64))
            return cells[c]

        workload = [
            (c, w) for c, w in check_workload(self.workload, cols) if ncells(c) <= self.max_cells
        ]
        if not workload:
            raise ValueError(f"no workload clique has at most max_cells={self.max_cells} cells")
        T = 16 * d if self.rounds is None else int(self.rounds)
        if T < d:
            raise ValueError(
                f"rounds must be >= the number of columns d={d} (the 1-way "
                f"initialisation uses d/rounds of the budget), got {self.rounds!r}"
            )
        candidates = downward_closure([c for c, _ in workload])
        weight = {c: sum(w * len(set(c) & set(W)) for W, w in workload) for c in candidates}
        truth = {c: true_marginal(X, sizes, c) for c in candidates}
        rho = self.rho_
        cap = float(self.max_model_size)
        max_iter = int(self.max_iter)
        sigma, eps = aim_budget(rho, T, MEASURE_SHARE)

        fitter = PGMFitter(sizes)
        measurements = [
            measure(
                X,
                sizes,
                (i,),
                sigma,
                rng,
                self.ledger_,
                note=f"AIM initial 1-way marginal {cols[i]!r}",
            )
            for i in range(d)
        ]
        measured = {(i,) for i in range(d)}
        model = fitter.fit(measurements, max_iter=max_iter)
        jt = JunctionTree(model)
        chosen, refits = [], []
        size_of: dict = {}  # c -> model_size_mb(measured + [c]) for the current ``measured``
        t = 0
        last = False
        while not last:
            t += 1
            remaining = rho - self.ledger_.total_rho
            if remaining <= 1e-12 * rho:  # not expected: every earlier round left at least half
                break
            if remaining < 2 * (0.5 / sigma**2 + eps**2 / 8):
                sigma = math.sqrt(1.0 / (2 * MEASURE_SHARE * remaining))
                eps = math.sqrt(8 * (1 - MEASURE_SHARE) * remaining)
                last = True
            used = self.ledger_.total_rho + 0.5 / sigma**2 + eps**2 / 8
            limit = cap * used / rho
            free = set(downward_closure(list(measured)))
            for c in candidates:
                if c not in free and c not in size_of:
                    size_of[c] = model_size_mb(sizes, list(measured) + [c])
            cands = [c for c in candidates if c in free or size_of[c] <= limit]
            est = {c: m.ravel() for c, m in jt.marginals(cands).items()}
            scores = np.array(
                [
                    weight[c]
                    * (np.abs(truth[c] - est[c]).sum() - _SQRT_2_OVER_PI * sigma * ncells(c))
                    for c in cands
                ]
            )
            sens = max(abs(weight[c]) for c in cands)
            c = cands[
                exponential_mechanism(
                    scores, eps, sens, rng, ledger=self.ledger_, note=f"AIM selection, round {t}"
                )
            ]
            names = ", ".join(repr(cols[a]) for a in c)
            measurements.append(
                measure(
                    X,
                    sizes,
                    c,
                    sigma,
                    rng,
                    self.ledger_,
                    note=f"AIM marginal ({names}), round {t}, sigma={sigma:.4g}",
                )
            )
            if c not in measured:
                measured.add(c)
                size_of = {}
            chosen.append(c)
            steps = refit_iters(max_iter, model_size_mb(sizes, list(measured)), self.refit_mb)
            refits.append(steps)
            model = fitter.fit(measurements, max_iter=steps, warm_start=model)
            jt = JunctionTree(model)
            moved = np.abs(jt.marginal(c).ravel() - est[c]).sum()
            if moved <= _SQRT_2_OVER_PI * sigma * ncells(c):
                sigma /= 2
                eps *= 2
        model = fitter.fit(measurements, max_iter=max_iter, warm_start=model)
        self.cliques_ = [tuple(cols[a] for a in c) for c in chosen]
        self.measurements_ = measurements
        self.rounds_ = len(chosen)
        self.refit_iters_ = refits
        self.model_ = model
        self._jtree = JunctionTree(model)
