"""Differential-privacy building blocks: mechanisms, accounting, and the PrivacyLedger.

* :mod:`~synthtrust.privacy.mechanisms` — :func:`laplace`, :func:`discrete_laplace`,
  :func:`gaussian`, :func:`exponential_mechanism` (vectorized, each optionally writing to a ledger).
* :mod:`~synthtrust.privacy.accounting` — :func:`cdp_rho`, :func:`cdp_epsilon`, :func:`cdp_delta`
  (ρ-zCDP ↔ (ε, δ)-DP as in Private-PGM's ``cdp2adp``), :func:`pure_to_zcdp`.
* :mod:`~synthtrust.privacy.rdp` — Rényi-DP accounting of the subsampled Gaussian (dp-accounting):
  :func:`sampled_gaussian_rdp`, :func:`rdp_to_epsilon`, :func:`gswgan_epsilon`,
  :func:`gswgan_max_iterations`.
* :mod:`~synthtrust.privacy.pate` — the PATE moments accountant and noisy teacher vote:
  :func:`pate_moments`, :func:`pate_epsilon`, :func:`pate_noise_for_budget`,
  :func:`noisy_vote_labels`.
* :mod:`~synthtrust.privacy.gradients` — :func:`sanitize_gradients` (per-sample clipping plus
  Gaussian noise, GS-WGAN's sanitiser; needs the ``[gan]`` extra).
* :mod:`~synthtrust.privacy.ledger` — :class:`PrivacyLedger`.
* :mod:`~synthtrust.privacy.replay` — the grey-box replay audit: :func:`record_mechanisms`
  records every mechanism call (:class:`MechanismCall`), :func:`compare_replays` compares the
  calls of two runs on neighbouring datasets (:class:`ReplayResult`).
"""

from .accounting import cdp_delta, cdp_epsilon, cdp_rho, pure_to_zcdp
from .ledger import LedgerEntry, PrivacyLedger
from .mechanisms import (
    discrete_laplace,
    discrete_laplace_pmf,
    exponential_mechanism,
    exponential_mechanism_counts,
    exponential_mechanism_probabilities,
    gaussian,
    laplace,
)
from .pate import noisy_vote_labels, pate_epsilon, pate_moments, pate_noise_for_budget
from .rdp import gswgan_epsilon, gswgan_max_iterations, rdp_to_epsilon, sampled_gaussian_rdp
from .replay import MechanismCall, ReplayResult, compare_replays, record_mechanisms

__all__ = [
    "LedgerEntry",
    "MechanismCall",
    "PrivacyLedger",
    "ReplayResult",
    "cdp_delta",
    "cdp_epsilon",
    "cdp_rho",
    "compare_replays",
    "discrete_laplace",
    "discrete_laplace_pmf",
    "exponential_mechanism",
    "exponential_mechanism_counts",
    "exponential_mechanism_probabilities",
    "gaussian",
    "gswgan_epsilon",
    "gswgan_max_iterations",
    "laplace",
    "noisy_vote_labels",
    "pate_epsilon",
    "pate_moments",
    "pate_noise_for_budget",
    "pure_to_zcdp",
    "rdp_to_epsilon",
    "record_mechanisms",
    "sampled_gaussian_rdp",
]
