"""MWEM+PGM: MWEM's select–measure–update loop with Private-PGM as the update (McKenna, Sheldon &
Miklau, "Graphical-model based estimation and inference for differential privacy", ICML 2019,
§3.3 / experiments; MWEM: Hardt, Ligett & McSherry, NIPS 2012), Gaussian noise, zCDP, on mbi 2.0.

Mechanism (ρ = cdp_rho(ε, δ), add/remove neighbours; as the reference ``mechanisms/mwem+pgm.py``
of Private-PGM [``privatepgm2025``]), with T rounds and
α = 0.9, ρ_r = ρ/T:

* round i = 1..T: candidates = workload cliques c whose model size
  ``model_size_mb(chosen + [c]) ≤ max_model_size · i/T``; score(c) = ‖x_c − x̂_c‖₁ − cells(c)
  (x̂ from the current model; the initial model is uniform with total 1, as the reference);
  select with the exponential mechanism, ε = √(8(1 − α)ρ_r), sensitivity 1; measure the selected
  marginal with Gaussian noise σ = √(1/(2αρ_r)); refit Private-PGM warm-started (``max_iter``
  steps);
* generate records from the final model (default number: its estimated total).

Total: T·(ε²/8 + 1/(2σ²)) = T·ρ_r = ρ.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int, optional
from ..privacy.mechanisms import exponential_mechanism
from .marginal import (
    AuditViewMixin,
    JunctionTree,
    PGMFitter,
    PGMSamplingMixin,
    check_model_size,
    check_workload,
    check_workload_param,
    measure,
    model_size_mb,
    mwem_pgm_budget,
    true_marginal,
)
from .tabular import TabularSynthesizer

__all__ = ["MWEMPGM"]

ALPHA = 0.9


#: Parameters of the select–measure–estimate loop that MWEM+PGM and AIM share (AIM extends
#: MWEM+PGM; McKenna et al. 2022 [``mckenna2022``], Alg. 1).
SELECT_MEASURE_CONSTRAINTS = {
    "workload": check_workload_param,
    "rounds": optional(check_positive_int),
    "max_model_size": check_model_size,
    "max_iter": check_positive_int,
}


class MWEMPGM(AuditViewMixin, PGMSamplingMixin, TabularSynthesizer):
    """MWEM+PGM synthesizer (McKenna, Sheldon & Miklau, ICML 2019), zCDP, add/remove neighbours.

    Parameters
    ----------
    epsilon, delta : float
        (ε, δ)-DP target; the mechanism spends ρ = cdp_rho(ε, δ).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
    workload : list of cliques (tuples of column names) or None
        Candidate marginals (default: every pair of columns). ``(clique, weight)`` items are
        accepted; weights are not used by MWEM+PGM. Duplicates are removed.
    rounds : int or None
        Number of rounds T (default d, the number of columns).
    max_model_size : float
        Cap on the junction-tree size in MB (default 25), reached in the last round.
    max_iter : int
        Mirror-descent steps per refit (default 1000).
    random_state : int, Generator or None

    Fitted attributes
    -----------------
    ``cliques_`` (selected cliques by column names, in order),
    ``measurements_``, ``model_``, ``ledger_`` (T exponential-mechanism and T Gaussian entries).

    Raises
    ------
    TypeError, ValueError
        Bad parameters; at fit, a workload column not in the data, or ``max_model_size`` too small
        for any workload clique in the first round.
    """

    #: add/remove neighbours (zCDP, the reference implementation's relation)
    neighbouring = "add_remove"

    #: the (ε, δ) claim is ρ-zCDP with ρ = cdp_rho(ε, δ) (read by :func:`synthtrust.dp_audit.declared_rho`)
    privacy_definition = "zcdp"

    _description = (
        "MWEM+PGM: T rounds of exponential-mechanism selection of the worst-approximated "
        "workload marginal, Gaussian measurement and Private-PGM refit (McKenna et al. 2019)"
    )

    _parameter_constraints = {
        **TabularSynthesizer._parameter_constraints,
        **SELECT_MEASURE_CONSTRAINTS,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-9,
        *,
        domain=None,
        workload=None,
        rounds: int | None = None,
        max_model_size: float = 25,
        max_iter: int = 1000,
        random_state=None,
    ):
        self.workload = workload
        self.rounds = rounds
        self.max_model_size = max_model_size
        self.max_iter = max_iter
        super().__init__(epsilon, delta, domain=domain, random_state=random_state)

    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        cols = self.columns_
        X = np.column_stack([codes[c] for c in cols])
        sizes = [self.domain_[c] for c in cols]
        workload = sorted({cl for cl, _ in check_workload(self.workload, cols)})
        T = len(cols) if self.rounds is None else int(self.rounds)
        cap = float(self.max_model_size)
        smallest = min(model_size_mb(sizes, [c]) for c in workload)
        if smallest > cap / T:
            raise ValueError(
                f"max_model_size={self.max_model_size!r} MB is too small: round 1 allows "
                f"{cap / T:.3g} MB (max_model_size/rounds) but the smallest workload "
                f"marginal needs {smallest:.3g} MB"
            )
        sigma, eps = mwem_pgm_budget(self.rho_, T, ALPHA)
        truth = {c: true_marginal(X, sizes, c) for c in workload}
        fitter = PGMFitter(sizes)
        model = fitter.fit([], max_iter=int(self.max_iter))
        measurements, chosen = [], []
        for i in range(1, T + 1):
            limit = cap * i / T
            cands = [c for c in workload if model_size_mb(sizes, chosen + [c]) <= limit]
            jt = JunctionTree(model)
            scores = np.array(
                [np.abs(truth[c] - jt.marginal(c).ravel()).sum() - truth[c].size for c in cands]
            )
            c = cands[
                exponential_mechanism(
                    scores,
                    eps,
                    1.0,
                    rng,
                    ledger=self.ledger_,
                    note=f"MWEM+PGM selection, round {i}/{T}",
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
                    note=f"MWEM+PGM marginal ({names}), round {i}/{T}",
                )
            )
            chosen.append(c)
            model = fitter.fit(measurements, max_iter=int(self.max_iter), warm_start=model)
        self.cliques_ = [tuple(cols[a] for a in c) for c in chosen]
        self.measurements_ = measurements
        self.model_ = model
        self._jtree = JunctionTree(model)
