"""Mann–Whitney U test vectorized over replicates, equal to ``scipy.stats.mannwhitneyu``.

Exact null distribution (integer Gaussian-binomial coefficients, Mann & Whitney 1947
[``mann1947``]) when ``min(n_x, n_y) <= 8`` and there are no ties, else the tie-corrected normal
approximation with continuity correction, chosen per replicate (SciPy 1.17
``scipy/stats/_mannwhitneyu.py``); on raw samples and on per-bin counts. As used by Montoya
Perez et al. 2024 [``montoyaperez2024``], §3.4.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from synthtrust._validation import check_positive_int

from ._inputs import two_counts, two_samples
from .results import MannWhitneyUResult, as_scalar

# SciPy's `_mwu_choose_method`: asymptotic if both samples are larger than this.
_EXACT_MAX_MIN_SIZE = 8


@functools.lru_cache(maxsize=512)
def _mwu_exact_cdf_cached(n1: int, n2: int) -> np.ndarray:
    k = min(n1, n2)
    big_n = n1 + n2
    half = (k * (big_n - k)) // 2
    # Coefficients (exact Python ints) of the Gaussian binomial [N choose k]_q, truncated at
    # degree `half`: prod_{i=1..k} (1 - q^(N-k+i)) / (1 - q^i).  Truncation is consistent
    # because multiplying/dividing by (1 - q^a) is lower-triangular.
    c = np.zeros(half + 1, dtype=object)
    c[:] = 0
    c[0] = 1
    for i in range(1, k + 1):
        a = big_n - k + i
        if a <= half:
            c[a:] = c[a:] - c[: half + 1 - a]
        for r in range(i):  # division by (1 - q^i): g[u] = c[u] + g[u - i]
            c[r::i] = np.cumsum(c[r::i])
    total = math.comb(big_n, k)
    cum = np.cumsum(c)
    out = np.array([int(v) / total for v in cum], dtype=float)
    out.setflags(write=False)
    return out


def mwu_exact_cdf(n1: int, n2: int) -> np.ndarray:
    """Exact null CDF of the Mann–Whitney U statistic (continuous data), P(U <= u).

    Returns a float array of length ``floor(n1*n2/2) + 1`` (the lower half; the distribution is
    symmetric about n1*n2/2).  Computed from exact integer Gaussian-binomial coefficients
    (Mann & Whitney 1947); cached.  Cost O(min(n1, n2)² · n1 n2) Python-int operations, so meant
    for small ``min(n1, n2)`` (SciPy's exact path uses it for min <= 8).
    """
    n1 = check_positive_int(n1, "n1")
    n2 = check_positive_int(n2, "n2")
    return _mwu_exact_cdf_cached(min(n1, n2), max(n1, n2))


def _mwu_from_stats(u1, n1, n2, tie_term, has_ties):
    """SciPy's two-sided ``mannwhitneyu`` (method='auto', use_continuity=True) from sufficient
    statistics.  All inputs broadcast; n1, n2 >= 1 (callers mask empty groups)."""
    u1 = np.asarray(u1, dtype=float)
    n1 = np.asarray(n1, dtype=float)
    n2 = np.asarray(n2, dtype=float)
    tie_term = np.asarray(tie_term, dtype=float)
    u1, n1, n2, tie_term, has_ties = np.broadcast_arrays(u1, n1, n2, tie_term, has_ties)
    u2 = n1 * n2 - u1
    u = np.maximum(u1, u2)
    # asymptotic (same operation order as scipy.stats._mannwhitneyu._get_mwu_z)
    mu = n1 * n2 / 2
    n = n1 + n2
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
        z = (u - mu - 0.5) / s
    p = special.ndtr(-z) * 2
    # exact path, per replicate
    exact = (~has_ties) & ((n1 <= _EXACT_MAX_MIN_SIZE) | (n2 <= _EXACT_MAX_MIN_SIZE))
    if np.any(exact):
        p = np.array(p, dtype=float, copy=True)
        e1 = n1[exact].astype(np.int64)
        e2 = n2[exact].astype(np.int64)
        kc = np.minimum(u1[exact], u2[exact]).astype(np.int64)
        lo = np.minimum(e1, e2)
        hi = np.maximum(e1, e2)
        pairs, inverse = np.unique(np.stack([lo, hi], axis=1), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        pe = np.empty(kc.shape, dtype=float)
        for j, (a, b) in enumerate(pairs):  # loop over distinct (n1, n2) pairs only
            sel = inverse == j
            pe[sel] = 2.0 * _mwu_exact_cdf_cached(int(a), int(b))[kc[sel]]
        p[exact] = pe
    p = np.clip(p, 0.0, 1.0)
    return u1, p, exact


def mid_ranks(xy):
    """Average ranks along the last axis of a 2-D array, plus Σ(t³ − t) and a tie flag."""
    reps, big_n = xy.shape
    order = np.argsort(xy, axis=-1, kind="stable")
    s = np.take_along_axis(xy, order, axis=-1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    idx = np.broadcast_to(np.arange(big_n), s.shape)
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=-1)
    last = np.ones(s.shape, dtype=bool)
    last[:, :-1] = new[:, 1:]
    end = np.minimum.accumulate(np.where(last, idx, big_n - 1)[:, ::-1], axis=-1)[:, ::-1]
    ranks = (start + end) / 2.0 + 1.0
    t = (end - start + 1).astype(float)
    tie_term = np.sum(t * t - 1.0, axis=-1)  # Σ over positions of (t² − 1) = Σ groups (t³ − t)
    has_ties = ~np.all(new, axis=-1)
    return order, ranks, tie_term, has_ties


def mannwhitneyu(x, y) -> MannWhitneyUResult:
    """Two-sided Mann–Whitney U test, equal to ``scipy.stats.mannwhitneyu(x, y)`` per replicate.

    Parameters
    ----------
    x : array_like, shape (..., n_x) — first sample(s); the last axis holds observations.
    y : array_like, shape (..., n_y) — second sample(s); leading shapes broadcast with ``x``.

    Returns
    -------
    MannWhitneyUResult
        ``statistic`` = U₁ = R₁ − n_x(n_x+1)/2 with mid-ranks for ties; ``pvalue`` two-sided;
        ``exact`` where SciPy's ``method='auto'`` takes the exact distribution
        (min(n_x, n_y) <= 8 and no ties *in that replicate*).  Otherwise the normal
        approximation with tie correction and continuity correction 0.5.  Shapes ``(...)``,
        scalars for 1-D input.

    Raises
    ------
    ValueError
        Empty sample, NaN/inf values, non-broadcasting leading shapes.
    TypeError
        Non-numeric input.

    Source: SciPy 1.17 ``scipy/stats/_mannwhitneyu.py``; Mann & Whitney (1947) [``mann1947``];
    Montoya Perez et al. (2024) [``montoyaperez2024``], §3.4.
    """
    x, y, lead = two_samples(x, y)
    n1, n2 = x.shape[-1], y.shape[-1]
    xy = np.concatenate([x, y], axis=-1).reshape(-1, n1 + n2)
    order, ranks, tie_term, has_ties = mid_ranks(xy)
    r1 = np.sum(np.where(order < n1, ranks, 0.0), axis=-1)
    u1 = r1 - n1 * (n1 + 1) / 2
    u1, p, exact = _mwu_from_stats(u1, n1, n2, tie_term, has_ties)
    return MannWhitneyUResult(
        as_scalar(u1.reshape(lead)), as_scalar(p.reshape(lead)), as_scalar(exact.reshape(lead))
    )


def mannwhitneyu_counts(cx, cy) -> MannWhitneyUResult:
    """Mann–Whitney U from per-bin counts, equal to SciPy on the expanded samples.

    Parameters
    ----------
    cx, cy : array_like of nonnegative ints, shape (..., n_bins)
        Counts of group x and group y in each bin; bins are ordered by increasing value (the
        values themselves are not needed — only the order).  Leading shapes broadcast.

    Returns
    -------
    MannWhitneyUResult
        Equal (1e-10) to ``scipy.stats.mannwhitneyu(np.repeat(v, cx[i]), np.repeat(v, cy[i]))``
        for every replicate ``i`` and any strictly increasing ``v``.  Mid-rank of bin b:
        (#obs in bins < b) + (t_b + 1)/2 with t_b = cx_b + cy_b; tie term Σ_b (t_b³ − t_b).
        O(n_bins) per replicate.  Replicates with an empty group: ``nan``.

    Raises
    ------
    ValueError / TypeError for negative, non-integer, NaN or non-numeric counts, or mismatched
    numbers of bins.
    """
    cx, cy, _ = two_counts(cx, cy)
    lead = cx.shape[:-1]
    t = cx + cy
    # 2·R₁ = Σ_b cx_b · (2·#below_b + t_b + 1), exact in int64
    r1 = np.sum(cx * (2 * np.cumsum(t, axis=-1) - t + 1), axis=-1) / 2.0
    n1 = cx.sum(axis=-1)
    n2 = cy.sum(axis=-1)
    tf = t.astype(float)
    tie_term = np.sum(tf * tf * tf - tf, axis=-1)  # float, as SciPy (no int64 overflow)
    has_ties = np.any(t > 1, axis=-1)
    empty = (n1 == 0) | (n2 == 0)
    n1s = np.where(empty, 1, n1)
    n2s = np.where(empty, 1, n2)
    u1 = r1 - n1s * (n1s + 1) / 2.0
    u1, p, exact = _mwu_from_stats(
        np.where(empty, 0.0, u1), n1s, n2s, np.where(empty, 0.0, tie_term), has_ties | empty
    )
    u1 = np.where(empty, np.nan, u1)
    p = np.where(empty, np.nan, p)
    return MannWhitneyUResult(
        as_scalar(u1.reshape(lead)), as_scalar(p.reshape(lead)), as_scalar(exact & ~empty)
    )
