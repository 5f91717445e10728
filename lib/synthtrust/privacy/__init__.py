"""Differential-privacy building blocks: mechanisms, accounting, and the PrivacyLedger.

* :mod:`~synthtrust.privacy.mechanisms` — :func:`laplace`, :func:`discrete_laplace`,
  :func:`gaussian`, :func:`exponential_mechanism` (vectorized, each optionally writing to a ledger).
* :mod:`~synthtrust.privacy.accounting` — :func:`cdp_rho`, :func:`cdp_epsilon`, :func:`cdp_delta`
  (ρ-zCDP ↔ (ε, δ)-DP as in Private-PGM's ``cdp2adp``), :func:`pure_to_zcdp`.
* :mod:`~synthtrust.privacy.ledger` — :class:`PrivacyLedger`.
"""

from .accounting import cdp_delta, cdp_epsilon, cdp_rho, pure_to_zcdp
from .ledger import LedgerEntry, PrivacyLedger
from .mechanisms import (
    discrete_laplace,
    discrete_laplace_pmf,
    exponential_mechanism,
    exponential_mechanism_probabilities,
    gaussian,
    laplace,
)

__all__ = [
    "LedgerEntry",
    "PrivacyLedger",
    "cdp_delta",
    "cdp_epsilon",
    "cdp_rho",
    "discrete_laplace",
    "discrete_laplace_pmf",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "gaussian",
    "laplace",
    "pure_to_zcdp",
]
