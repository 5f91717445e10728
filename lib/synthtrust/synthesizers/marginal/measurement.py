"""Noisy marginal measurements: the Gaussian measurement of a marginal (zCDP, L2 sensitivity 1;
Bun & Steinke 2016 [``bun2016``]) and the minimum-variance estimate of the number of records from
the measurements (as mbi's ``minimum_variance_unbiased_total`` [``mbi2026``]).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ...privacy.ledger import PrivacyLedger
from ...privacy.mechanisms import gaussian
from .counts import Clique, true_marginal


@dataclasses.dataclass(frozen=True, eq=False)
class Measurement:
    """A noisy linear measurement ``y = W·x_clique + N(0, stddev²)`` of a marginal.

    Attributes
    ----------
    clique : tuple of int (sorted column positions)
    values : ndarray float64 (cells,)
        The published vector ``y`` (C order over the clique).
    stddev : float
        Standard deviation of the Gaussian noise on every coordinate of ``y`` (counts).
    weights : ndarray (cells,) or None
        Diagonal query weights ``W`` (None: identity). MST's compressed 1-way marginals publish
        a merged cell as (Σ merged noisy counts)/√m, i.e. weight 1/√m.
    """

    clique: Clique
    values: np.ndarray
    stddev: float
    weights: np.ndarray | None = None

    def total(self) -> tuple[float, float]:
        """Unbiased estimate of the number of records from this measurement and its variance:
        Σ_j y_j / w_j, variance σ²·Σ_j 1/w_j²."""
        if self.weights is None:
            return float(np.sum(self.values)), self.stddev**2 * self.values.size
        return (
            float(np.sum(self.values / self.weights)),
            self.stddev**2 * float(np.sum(1.0 / self.weights**2)),
        )


def measure(
    X: np.ndarray,
    sizes: Sequence[int],
    clique: Clique,
    sigma: float,
    rng: np.random.Generator,
    ledger: PrivacyLedger,
    note: str = "",
) -> Measurement:
    """Gaussian measurement of the marginal over ``clique``: counts + N(0, σ²) per cell.

    L2 sensitivity 1 (add/remove one record) ⇒ ρ = 1/(2σ²), recorded in ``ledger`` through
    :func:`synthtrust.privacy.gaussian`. Noise drawn from ``rng``.
    """
    x = true_marginal(X, sizes, clique)
    y = gaussian(x, sigma=sigma, sensitivity=1.0, random_state=rng, ledger=ledger, note=note)
    return Measurement(tuple(clique), np.atleast_1d(np.asarray(y, dtype=float)), float(sigma))


def total_estimate(measurements: Sequence[Measurement]) -> float:
    """Minimum-variance (inverse-variance weighted) estimate of the number of records from the
    totals of the measurements, floored at 1 (as mbi's ``minimum_variance_unbiased_total``; here
    weighted measurements count too). 1.0 without measurements."""
    if not measurements:
        return 1.0
    est = np.array([m.total() for m in measurements])
    w = 1.0 / est[:, 1]
    return max(1.0, float(np.sum(w * est[:, 0]) / np.sum(w)))
