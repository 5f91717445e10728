"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.hypothesis against SciPy (oracle), brute force and binomial bands.
"""

import warnings

import numpy as np
from scipy import stats

TOL = dict(rtol=1e-10, atol=1e-10, equal_nan=True)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), **TOL)


def _scipy_or_nan(fn, *args):
    """SciPy result as (statistic, pvalue); nan where SciPy raises for a degenerate input."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = fn(*args)
        except ValueError:
            return np.nan, np.nan
    return res.statistic, res.pvalue


def _band(n, p=0.05, level=0.999):
    lo = stats.binom.ppf((1 - level) / 2, n, p) / n
    hi = stats.binom.ppf(1 - (1 - level) / 2, n, p) / n
    return lo, hi
