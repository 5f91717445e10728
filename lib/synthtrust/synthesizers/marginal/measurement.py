"""Noisy marginal measurements: the Gaussian measurement of a marginal (zCDP, L2 sensitivity 1;
Bun & Steinke 2016 [``bun2016``]) and the minimum-variance estimate of the number of records from
the measurements (as mbi's ``minimum_variance_unbiased_total`` [``mbi2026``]).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..._validation import check_is_fitted
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


def audit_entries(
    measurements: Sequence[Measurement],
    columns: Sequence[str],
    sizes: Sequence[int],
    levels: Sequence[np.ndarray] | None = None,
) -> list[tuple]:
    """The measurements as entries of a white-box ``audit_view()``
    (:func:`synthtrust.dp_audit.scores.whitebox_score`): ``(clique, values, "gaussian", σ,
    levels)`` per measurement, in order (a clique measured twice gives two entries).

    Parameters
    ----------
    measurements : list of Measurement
        Unweighted measurements on a domain of ``sizes`` levels per column.
    columns : the column names, by position
    sizes : levels of each measured column (the compressed ones for a compressed domain)
    levels : None or one int array per column (original code → measured code)
        MST's :attr:`.Compression.mapping`; None: the measurements are on the original codes.

    Returns
    -------
    list of tuples; ``values`` is a copy of shape ``(sizes[i] for i in clique)``.

    Raises
    ------
    ValueError
        A weighted measurement (its cells have different noise scales).
    """
    out = []
    for m in measurements:
        if m.weights is not None:
            raise ValueError(f"measurement of clique {m.clique} is weighted; give the raw one")
        shape = tuple(int(sizes[i]) for i in m.clique)
        maps = None if levels is None else tuple(np.asarray(levels[i]) for i in m.clique)
        clique = tuple(columns[i] for i in m.clique)
        out.append((clique, m.values.reshape(shape).copy(), "gaussian", float(m.stddev), maps))
    return out


class AuditViewMixin:
    """``audit_view()`` of a synthesizer whose ``measurements_`` are Gaussian measurements on
    the original levels of ``columns_`` (AIM, MWEM+PGM): :func:`audit_entries` of them."""

    def audit_view(self) -> list[tuple]:
        """The released noisy measurements, for white-box DP auditing
        (:mod:`synthtrust.dp_audit`): one ``(clique, values, "gaussian", σ, None)`` per
        measurement, in the order they were taken (:func:`audit_entries`). Reads only.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        """
        check_is_fitted(self)
        sizes = [self.domain_[c] for c in self.columns_]
        return audit_entries(self.measurements_, self.columns_, sizes)


def total_estimate(measurements: Sequence[Measurement]) -> float:
    """Minimum-variance (inverse-variance weighted) estimate of the number of records from the
    totals of the measurements, floored at 1 (as mbi's ``minimum_variance_unbiased_total``; here
    weighted measurements count too). 1.0 without measurements."""
    if not measurements:
        return 1.0
    est = np.array([m.total() for m in measurements])
    w = 1.0 / est[:, 1]
    return max(1.0, float(np.sum(w * est[:, 0]) / np.sum(w)))
