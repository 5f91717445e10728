"""Auditing synthetic-data generators against a generator card (Houssiau et al. 2022).

The core maths of the audit of ``houssiau2022`` (§2–3):

* :class:`GeneratorCard` — the columns, their domain sizes and the declared marginals Φ;
* :func:`complement_basis` — an orthonormal basis of the probed part of Φ⊥, computed from bin
  Gram matrices (:class:`Bins`, :func:`gram`, :func:`candidate_bins`), with statistics of a
  dataset from its marginal tables and the energy of a direction per undeclared interaction;
* :func:`extremal_pair` — the extremal datasets D⁻, D⁺ of Eq. 4;
* :func:`audit` — the two-step test of Eqs. 5–7 on a black-box generator, an
  :class:`AuditResult` (t, df, p, log₁₀ p, where the leak is, a verdict);
* :class:`LeakMixture` and :func:`rejection_rate` — generators leaking a chosen share of their
  records, and rejection rates, to measure the audit's power.
"""

from .basis import (
    Bins,
    CellCounts,
    ComplementBasis,
    all_cells,
    candidate_bins,
    complement_basis,
    complement_basis_dense,
    gram,
    span_dimension,
)
from .card import GeneratorCard
from .extremal import ExtremalPair, extremal_pair, sample_cells
from .power import LeakMixture, rejection_rate
from .two_step import AuditResult, audit

__all__ = [
    "AuditResult",
    "Bins",
    "CellCounts",
    "ComplementBasis",
    "ExtremalPair",
    "GeneratorCard",
    "LeakMixture",
    "all_cells",
    "audit",
    "candidate_bins",
    "complement_basis",
    "complement_basis_dense",
    "extremal_pair",
    "gram",
    "rejection_rate",
    "sample_cells",
    "span_dimension",
]
