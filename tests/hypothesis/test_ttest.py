"""Tests of ``synthtrust.hypothesis.ttest``.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import warnings

import numpy as np
from _hypothesis_data import _close
from scipy import stats

from synthtrust import hypothesis as H


def test_degenerate_replicates_follow_scipy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # all values equal: SciPy gives U = n1 n2 / 2, p = 1
        r = H.mannwhitneyu([2.0, 2.0, 2.0], [2.0, 2.0])
        _close([r.statistic, r.pvalue], [3.0, 1.0])
        # t-test: equal constants -> nan; different constants -> -inf, p = 0; n = 1 + 1 -> nan
        r = H.ttest_ind([1.0, 1.0, 1.0], [1.0, 1.0])
        assert np.isnan(r.statistic) and np.isnan(r.pvalue)
        r = H.ttest_ind([1.0, 1.0, 1.0], [2.0, 2.0])
        assert r.statistic == -np.inf and r.pvalue == 0.0
        _close(list(H.ttest_ind([1.0], [2.0])), list(stats.ttest_ind([1.0], [2.0]))[:2])
        _close(list(H.ttest_ind([1.0], [2.0, 3.0])), list(stats.ttest_ind([1.0], [2.0, 3.0]))[:2])
