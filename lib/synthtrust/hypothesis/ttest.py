"""Student's two-sample t-test (pooled variance) vectorized over replicates.

Equal to ``scipy.stats.ttest_ind`` (SciPy 1.17 ``scipy/stats/_stats_py.py``), on raw samples
and on per-bin counts; Montoya Perez et al. 2024 [``montoyaperez2024``], §4.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ._inputs import two_counts, two_samples
from .results import TTestResult, as_scalar


def _ttest_from_moments(m1, v1, n1, m2, v2, n2):
    """SciPy's ``_equal_var_ttest_denom`` + ``_ttest_ind_from_stats`` (two-sided)."""
    v1 = np.where(n1 == 1, 0.0, v1)
    v2 = np.where(n2 == 1, 0.0, v2)
    df = n1 + n2 - 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        svar = ((n1 - 1) * v1 + (n2 - 1) * v2) / df
        denom = np.sqrt(svar * (1.0 / n1 + 1.0 / n2))
        t = np.divide(m1 - m2, denom)
    p = 2 * special.stdtr(df, -np.abs(t))
    return t, p, np.asarray(df, dtype=float)


def ttest_ind(x, y) -> TTestResult:
    """Two-sided Student's t-test (``equal_var=True``), equal to ``scipy.stats.ttest_ind``.

    Parameters
    ----------
    x : array_like, shape (..., n_x); y : array_like, shape (..., n_y) (leading shapes broadcast).

    Returns
    -------
    TTestResult
        ``statistic`` t = (x̄ − ȳ)/√(s_p²(1/n_x + 1/n_y)), ``pvalue`` = 2·T_df(−|t|),
        ``df`` = n_x + n_y − 2.  Same floating-point operations as SciPy (mean, mean of squared
        deviations × n/(n − 1)), so degenerate replicates give SciPy's values: both groups
        constant and equal → nan; constant and different → ±inf, p = 0; n_x = n_y = 1 → nan.

    Raises
    ------
    ValueError / TypeError as :func:`mannwhitneyu`.

    Source: SciPy 1.17 ``scipy/stats/_stats_py.py`` (``ttest_ind``, ``_var``,
    ``_equal_var_ttest_denom``); Montoya Perez et al. (2024) [``montoyaperez2024``], §4.
    """
    x, y, lead = two_samples(x, y)
    n1, n2 = x.shape[-1], y.shape[-1]

    def moments(a, n):
        m = np.mean(a, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.mean((a - m[..., None]) ** 2, axis=-1) * (np.float64(n) / np.float64(n - 1))
        return m, v

    m1, v1 = moments(x, n1)
    m2, v2 = moments(y, n2)
    t, p, df = _ttest_from_moments(m1, v1, n1, m2, v2, n2)
    return TTestResult(as_scalar(t), as_scalar(p), as_scalar(np.broadcast_to(df, lead)))


def ttest_ind_counts(cx, cy, values) -> TTestResult:
    """Student's t-test from per-bin counts, equal to SciPy on ``np.repeat(values, counts)``.

    Parameters
    ----------
    cx, cy : array_like of nonnegative ints, shape (..., n_bins).
    values : array_like, shape (n_bins,) — the value of each bin (e.g. bin centres), finite.

    Returns
    -------
    TTestResult
        Means Σ c v / n, variances Σ c (v − mean)² / (n − 1).  A group whose observations all
        lie in one bin gets that bin's value as mean and variance 0 exactly (see the
        :mod:`synthtrust.hypothesis` docstring for SciPy's rounding noise on such groups).
        Empty group → nan.
    """
    cx, cy, values = two_counts(cx, cy, values)

    def moments(c):
        n = c.sum(axis=-1)
        cf = c.astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            m = (cf @ values) / n
            single = np.count_nonzero(c, axis=-1) == 1
            m = np.where(single, values[np.argmax(c > 0, axis=-1)], m)
            ss = np.sum(cf * (values - m[..., None]) ** 2, axis=-1)
            v = np.where(single, 0.0, ss / (n - 1))
        return m, v, n.astype(float)

    m1, v1, n1 = moments(cx)
    m2, v2, n2 = moments(cy)
    empty = (n1 == 0) | (n2 == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t, p, df = _ttest_from_moments(m1, v1, n1, m2, v2, n2)
    t = np.where(empty, np.nan, t)
    p = np.where(empty, np.nan, p)
    df = np.where(empty, np.nan, df)
    return TTestResult(as_scalar(t), as_scalar(p), as_scalar(df))
