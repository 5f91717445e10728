"""DP perturbed histogram and DP smoothed histogram (Montoya Perez et al. 2024, §3.2, §4.2 and Supplement A.1).

Both work on the joint histogram of integer-coded columns (a flattened count vector; for the
chapter's two-column tables, ``group`` × ``value`` bins). Synthetic values are bin indices; the
caller maps a bin back to its centre point, as the paper does.

Functional, vectorized forms (count matrices ``(reps, cells)`` in and out) are
:func:`perturbed_histogram` and :func:`smoothed_histogram`; the estimators
:class:`PerturbedHistogram` and :class:`SmoothedHistogram` wrap the same code for one table and
produce identical counts for the same generator.
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_choice,
    check_epsilon,
    check_is_fitted,
    check_positive_int,
    one_of,
    optional,
)
from ..privacy.ledger import PrivacyLedger
from ..privacy.mechanisms import discrete_laplace, exponential_mechanism_counts
from .base import BaseSynthesizer, as_count_matrix, largest_remainder, replicate_generators

__all__ = [
    "PerturbedHistogram",
    "SmoothedHistogram",
    "perturbed_histogram",
    "smoothed_histogram",
    "smoothed_histogram_probabilities",
]

_ROUNDINGS = ("largest_remainder", "multinomial")
_SENSITIVITY = 2.0  # L1 sensitivity of a histogram under replace-one neighbours (paper: scale 2/ε)


def _n_synthetic(n_synthetic, totals) -> np.ndarray:
    if n_synthetic is None:
        return np.asarray(totals, dtype=np.int64)
    return np.full(len(totals), check_positive_int(n_synthetic, "n_synthetic"), dtype=np.int64)


def _noisy_histogram(counts_row, epsilon, rng, ledger=None, note="") -> np.ndarray:
    noisy = discrete_laplace(
        counts_row,
        sensitivity=_SENSITIVITY,
        epsilon=epsilon,
        random_state=rng,
        ledger=ledger,
        note=note,
    )
    return np.maximum(noisy, 0)


def _round_row(noisy_row, n, rounding, rng) -> np.ndarray:
    if rounding == "multinomial":
        s = noisy_row.sum()
        p = noisy_row / s if s > 0 else np.full(noisy_row.size, 1.0 / noisy_row.size)
        return rng.multinomial(n, p).astype(np.int64)
    return largest_remainder(noisy_row, n, rng.random(noisy_row.size))


# --------------------------------------------------------------------------------------------
# Perturbed histogram
# --------------------------------------------------------------------------------------------
def perturbed_histogram(
    counts,
    epsilon: float,
    *,
    n_synthetic: int | None = None,
    rounding: str = "largest_remainder",
    random_state=None,
    ledger: PrivacyLedger | None = None,
) -> np.ndarray:
    """DP perturbed histogram, vectorized over replicates.

    For each replicate: add discrete Laplace noise with scale 2/ε to every cell of the joint
    histogram (replace-one L1 sensitivity 2), set negative counts to 0, and normalise to the
    original dataset size n (public): the noisy counts are scaled to sum to ``n_synthetic``
    (default n) and rounded to integers by the largest-remainder method with random tie-breaking,
    so exactly that many synthetic records are produced. An all-zero noisy histogram is replaced
    by the uniform one. This is our reading of "the noisy counts were normalized by the original
    dataset size" (Montoya Perez et al. 2024, §4.2); ``rounding="multinomial"`` instead draws
    the records i.i.d. from the normalised noisy histogram.

    Parameters
    ----------
    counts : array (reps, cells) or (cells,)
        True joint counts per replicate (non-negative integers; each replicate non-empty).
    epsilon : float
        ε > 0 per replicate.
    n_synthetic : int, optional
        Records per synthetic dataset; default each replicate's n.
    rounding : {"largest_remainder", "multinomial"}
    random_state : int, Generator, None, or sequence of one per replicate
        Replicate i draws (1) the noise, (2) the tie-breaking uniforms / multinomial, in this order.
    ledger : PrivacyLedger, optional
        Receives the spend of ONE replicate (every replicate is a different dataset).

    Returns
    -------
    ndarray int64, shape of ``counts``
        Synthetic counts; row i sums to ``n_synthetic`` (or n_i).

    Raises
    ------
    ValueError, TypeError
        Bad counts (see :func:`~synthtrust.synthesizers.base.as_count_matrix`), ε ≤ 0, bad
        ``n_synthetic`` / ``rounding`` / ``random_state``.
    """
    epsilon = check_epsilon(epsilon)
    rounding = check_choice(rounding, "rounding", _ROUNDINGS)
    mat, was_1d = as_count_matrix(counts)
    m = _n_synthetic(n_synthetic, mat.sum(axis=1))
    rngs = replicate_generators(random_state, mat.shape[0])
    out = np.empty_like(mat)
    for i, rng in enumerate(rngs):
        noisy = _noisy_histogram(
            mat[i],
            epsilon,
            rng,
            ledger if i == 0 else None,
            note="joint histogram, every cell (per replicate)",
        )
        out[i] = _round_row(noisy, m[i], rounding, rng)
    return out[0] if was_1d else out


class PerturbedHistogram(BaseSynthesizer):
    """DP perturbed histogram (Montoya Perez et al. 2024; discrete Laplace, scale 2/ε).

    Parameters
    ----------
    epsilon : float
        ε > 0 (pure DP, replace-one neighbours).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        The public domain (see :mod:`synthtrust.synthesizers.tabular`); None infers it from the
        data with a warning (not DP).
    rounding : {"largest_remainder", "multinomial"}
        How the noisy histogram becomes records (see :func:`perturbed_histogram`).
    random_state : int, Generator or None

    Fitted attributes
    -----------------
    ``noisy_counts_`` (the DP release: clipped noisy joint histogram, shape
    ``shape_``), ``ledger_`` (one entry, ε), plus those of :class:`BaseSynthesizer`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"group": [0, 0, 1, 1], "value": [3, 4, 4, 5]})
    >>> synth = PerturbedHistogram(epsilon=1.0, domain={"group": 2, "value": 10}, random_state=0)
    >>> synth.fit(df).sample().shape
    (4, 2)
    """

    _description = (
        "DP perturbed histogram: discrete Laplace(2/ε) on every joint cell, clip, rescale to n"
    )
    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "rounding": one_of(*_ROUNDINGS),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        domain=None,
        rounding: str = "largest_remainder",
        random_state=None,
    ):
        self.rounding = rounding
        super().__init__(epsilon, domain=domain, random_state=random_state)

    def _fit_counts(self, counts, n):
        self._noisy = _noisy_histogram(
            counts,
            float(self.epsilon),
            self._rng,
            self.ledger_,
            note=f"joint histogram of {self.columns_}, {counts.size} cells",
        )

    @property
    def noisy_counts_(self) -> np.ndarray:
        check_is_fitted(self)
        return self._noisy.reshape(self.shape_).copy()

    def _sample_counts(self, n):
        return _round_row(self._noisy, n, self.rounding, self._rng)

    def _noise_scale(self) -> float:
        return _SENSITIVITY / float(self.epsilon)

    def audit_view(self) -> dict:
        """The released measurement, for white-box DP auditing (:mod:`synthtrust.dp_audit`):
        ``{tuple(columns_): (noisy_counts_, "discrete_laplace", 2/ε)}``. Reads only."""
        return {tuple(self.columns_): (self.noisy_counts_, "discrete_laplace", self._noise_scale())}


# --------------------------------------------------------------------------------------------
# Smoothed histogram (Algorithm 1)
# --------------------------------------------------------------------------------------------
def smoothed_histogram_probabilities(counts, epsilon: float, n_synthetic: int) -> np.ndarray:
    """Selection probabilities of Algorithm 1: p_i ∝ c_i + α with α = 2m/ε.

    ``counts`` (reps, cells) or (cells,); returns floats of the same shape, rows summing to 1.
    (Equal to the exponential mechanism with score α·ln(c_i + α), sensitivity 1, budget ε/m.)
    """
    epsilon = check_epsilon(epsilon)
    m = check_positive_int(n_synthetic, "n_synthetic")
    mat, was_1d = as_count_matrix(counts)
    w = mat + 2.0 * m / epsilon
    p = w / w.sum(axis=1, keepdims=True)
    return p[0] if was_1d else p


def smoothed_histogram(
    counts,
    epsilon: float,
    n_synthetic: int,
    *,
    random_state=None,
    ledger: PrivacyLedger | None = None,
) -> np.ndarray:
    """DP smoothed histogram (Algorithm 1 of Montoya Perez et al. 2024), vectorized.

    Draws m = ``n_synthetic`` records i.i.d. with P(cell i) ∝ c_i + 2m/ε, i.e. m draws of the
    exponential mechanism with score α·ln(c_i + α), α = 2m/ε, sensitivity 1, each (ε/m)-DP; by
    sequential composition the m records are ε-DP (Supplement A.1). Returns the counts of the
    m records per cell (one multinomial draw per replicate).

    Parameters
    ----------
    counts : array (reps, cells) or (cells,)
    epsilon : float
        ε > 0 for all m records together.
    n_synthetic : int
        m ≥ 1. Part of the mechanism: utility falls as m grows.
    random_state : int, Generator, None or one per replicate
    ledger : PrivacyLedger, optional
        Receives ONE replicate's spend: one entry, ε, m draws at ε/m each.

    Returns
    -------
    ndarray int64, shape of ``counts``; rows sum to m.
    """
    p = smoothed_histogram_probabilities(counts, epsilon, n_synthetic)
    one_d = p.ndim == 1
    p = np.atleast_2d(p)
    m = int(n_synthetic)
    rngs = replicate_generators(random_state, p.shape[0])
    out = np.empty(p.shape, dtype=np.int64)
    for i, rng in enumerate(rngs):
        out[i] = _smoothed_release(
            p[i], m, float(epsilon), rng, ledger if i == 0 else None, "per replicate"
        )
    return out[0] if one_d else out


def _smoothed_release(p, m: int, epsilon: float, rng, ledger, what: str) -> np.ndarray:
    """Algorithm 1's release: m i.i.d. exponential-mechanism draws through the privacy gate."""
    return exponential_mechanism_counts(
        p,
        m,
        epsilon=epsilon,
        sensitivity=1.0,
        random_state=rng,
        ledger=ledger,
        note=(
            f"Algorithm 1: {m} i.i.d. draws, each exponential mechanism at epsilon/m={epsilon / m:g} "
            f"with score alpha*ln(c+alpha), alpha=2m/epsilon={2 * m / epsilon:g} ({what})"
        ),
    )


class SmoothedHistogram(BaseSynthesizer):
    """DP smoothed histogram (Algorithm 1 of Montoya Perez et al. 2024).

    The synthetic records themselves are the DP release: :meth:`fit` draws the m =
    ``n_synthetic`` records (ε for all m); :meth:`sample` returns them (or a random subset of
    ``n <= m`` of them, which is post-processing). Asking for more than m records raises, because
    every extra draw would cost ε/m more.

    Parameters
    ----------
    epsilon : float
        ε > 0 for the m records.
    n_synthetic : int, optional
        m; None uses the number of training records (valid but poor utility: the paper uses m ≪ n).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        As :class:`PerturbedHistogram`.
    random_state : int, Generator or None

    Fitted attributes
    -----------------
    ``synthetic_counts_`` (histogram of the m released records, shape
    ``shape_``), ``ledger_`` (one entry, ε).
    """

    _description = "DP smoothed histogram: m i.i.d. draws with P(i) ∝ c_i + 2m/ε (Algorithm 1)"
    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "n_synthetic": optional(check_positive_int),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        n_synthetic: int | None = None,
        domain=None,
        random_state=None,
    ):
        self.n_synthetic = n_synthetic
        super().__init__(epsilon, domain=domain, random_state=random_state)

    def _fit_counts(self, counts, n):
        m = n if self.n_synthetic is None else int(self.n_synthetic)
        self.m_ = m
        p = smoothed_histogram_probabilities(counts, float(self.epsilon), m)
        self._released = _smoothed_release(
            p,
            m,
            float(self.epsilon),
            self._rng,
            self.ledger_,
            f"joint histogram of {self.columns_}",
        )

    @property
    def synthetic_counts_(self) -> np.ndarray:
        check_is_fitted(self)
        return self._released.reshape(self.shape_).copy()

    def _default_n(self) -> int:
        return self.m_

    def _sample_counts(self, n):
        if n > self.m_:
            raise ValueError(
                f"n={n} exceeds the n_synthetic={self.m_} records released by fit(); each extra record "
                f"would cost epsilon/m more. Refit with n_synthetic={n} instead"
            )
        if n == self.m_:
            return self._released.copy()
        return self._rng.multivariate_hypergeometric(self._released, n).astype(np.int64)
