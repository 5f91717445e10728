"""Mood's median test vectorized over replicates, equal to ``scipy.stats.median_test``.

SciPy defaults (``ties='below'``, Yates-corrected χ² of the 2 × 2 above/at-or-below table), on
raw samples and on per-bin counts; Montoya Perez et al. 2024 [``montoyaperez2024``], §4.
"""

from __future__ import annotations

import numpy as np

from ._inputs import two_counts, two_samples
from .chi2 import chi2_from_table
from .results import MedianTestResult, as_scalar


def _median_from_table(ax, ay, n1, n2):
    """SciPy's median_test (ties='below', correction=True, lambda_=1) from the 'above' counts."""
    ax = np.asarray(ax)
    ay = np.asarray(ay)
    table = np.stack(
        [np.stack([ax, ay], axis=-1), np.stack([n1 - ax, n2 - ay], axis=-1)], axis=-2
    ).astype(np.int64)
    stat, p, _ = chi2_from_table(table, 1)
    bad = (ax + ay) == 0  # SciPy: "All values are below the grand median" -> ValueError
    stat = np.where(bad, np.nan, stat)
    p = np.where(bad, np.nan, p)
    return stat, p, table


def median_test(x, y) -> MedianTestResult:
    """Mood's median test, equal to ``scipy.stats.median_test(x, y)`` (SciPy defaults).

    Parameters
    ----------
    x : array_like, shape (..., n_x); y : array_like, shape (..., n_y).

    Returns
    -------
    MedianTestResult
        Grand median = ``np.median`` of the pooled sample; 2 × 2 table of counts above /
        at-or-below the median (``ties='below'``); χ² with Yates' correction (``correction=True``,
        ``lambda_=1``).  Replicates where no value exceeds the grand median (SciPy raises
        ValueError) get statistic and p-value ``nan``; ``median`` and ``table`` are still filled.
    """
    x, y, lead = two_samples(x, y)
    n1, n2 = x.shape[-1], y.shape[-1]
    med = np.median(np.concatenate([x, y], axis=-1), axis=-1)
    ax = np.count_nonzero(x > med[..., None], axis=-1)
    ay = np.count_nonzero(y > med[..., None], axis=-1)
    stat, p, table = _median_from_table(ax, ay, n1, n2)
    return MedianTestResult(as_scalar(stat), as_scalar(p), as_scalar(med), table)


def median_test_counts(cx, cy, values) -> MedianTestResult:
    """Mood's median test from per-bin counts, equal to SciPy on the expanded samples.

    Parameters
    ----------
    cx, cy : array_like of nonnegative ints, shape (..., n_bins).
    values : array_like, shape (n_bins,), strictly increasing bin values.

    Returns
    -------
    MedianTestResult
        Grand median from cumulative counts (middle order statistic, or the mean of the two
        middle ones as ``np.median``), then as :func:`median_test`.  Empty group → nan
        (median still reported if the pooled sample is non-empty).
    """
    cx, cy, values = two_counts(cx, cy, values, increasing=True)
    n1 = cx.sum(axis=-1)
    n2 = cy.sum(axis=-1)
    big_n = n1 + n2
    cum = np.cumsum(cx + cy, axis=-1)
    lo_i = np.maximum((big_n - 1) // 2, 0)
    hi_i = big_n // 2
    b_lo = np.argmax(cum > lo_i[..., None], axis=-1)
    b_hi = np.argmax(cum > hi_i[..., None], axis=-1)
    v_lo = values[b_lo]
    v_hi = values[b_hi]
    med = np.where(big_n % 2 == 1, v_lo, (v_lo + v_hi) / 2)
    med = np.where(big_n == 0, np.nan, med)
    above = values > med[..., None]
    ax = np.sum(np.where(above, cx, 0), axis=-1)
    ay = np.sum(np.where(above, cy, 0), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat, p, table = _median_from_table(ax, ay, n1, n2)
    empty = (n1 == 0) | (n2 == 0)
    stat = np.where(empty, np.nan, stat)
    p = np.where(empty, np.nan, p)
    return MedianTestResult(as_scalar(stat), as_scalar(p), as_scalar(med), table)
