"""Tests of ``synthtrust.hypothesis.chi2``.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import numpy as np
import pandas as pd
from _hypothesis_data import _close, _scipy_or_nan
from scipy import stats

from synthtrust import hypothesis as H

# ------------------------------------------------------------------------------------------
# χ²
# ------------------------------------------------------------------------------------------


def test_chi2_contingency_matches_scipy_including_degenerate_tables():
    rng = np.random.default_rng(11)
    for shape in [(400, 2, 2), (300, 3, 4), (50, 1, 3), (50, 3, 1)]:
        t = rng.integers(0, 7, size=shape) * (rng.random(shape) < 0.85)
        r = H.chi2_contingency(t)
        assert r.dof == (shape[1] - 1) * (shape[2] - 1)
        assert r.expected_freq.shape == shape
        for i in range(shape[0]):
            _close([r.statistic[i], r.pvalue[i]], _scipy_or_nan(stats.chi2_contingency, t[i]))
    r = H.chi2_contingency([[12, 3], [17, 16]])
    s = stats.chi2_contingency([[12, 3], [17, 16]])
    _close([r.statistic, r.pvalue], [s.statistic, s.pvalue])
    _close(r.expected_freq, s.expected_freq)
    assert np.isnan(H.chi2_contingency([[1, 0], [2, 0]]).pvalue)


def test_chi2_counts_and_two_groups_match_scipy_on_crosstab():
    rng = np.random.default_rng(12)
    k = 4
    cx = rng.integers(0, 5, size=(500, k)) * (rng.random((500, k)) < 0.6)
    cy = rng.integers(0, 5, size=(500, k)) * (rng.random((500, k)) < 0.6)
    r = H.chi2_counts(cx, cy)
    labels = np.arange(k)
    for i in range(500):
        x = np.repeat(labels, cx[i])
        y = np.repeat(labels, cy[i])
        if x.size == 0 or y.size == 0:
            assert np.isnan(r.statistic[i]) and np.isnan(r.pvalue[i])
            continue
        group = np.r_[np.zeros(x.size), np.ones(y.size)]
        tab = pd.crosstab(group, np.r_[x, y]).to_numpy()
        s = stats.chi2_contingency(tab)
        _close([r.statistic[i], r.pvalue[i]], [s.statistic, s.pvalue])
        assert r.dof[i] == s.dof
    # raw binary / string labels
    x = rng.integers(0, 2, size=(20, 30))
    y = rng.integers(0, 2, size=(20, 25))
    r = H.chi2_two_groups(x, y)
    for i in range(20):
        tab = np.array([np.bincount(x[i], minlength=2), np.bincount(y[i], minlength=2)])
        tab = tab[:, tab.sum(axis=0) > 0]
        s = stats.chi2_contingency(tab)
        _close([r.statistic[i], r.pvalue[i]], [s.statistic, s.pvalue])
    r = H.chi2_two_groups(np.array(["a", "b", "a", "a"]), np.array(["b", "b", "c"]))
    s = stats.chi2_contingency([[3, 1, 0], [0, 2, 1]])
    _close([r.statistic, r.pvalue], [s.statistic, s.pvalue])
