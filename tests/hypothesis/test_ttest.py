"""Tests of ``synthtrust.hypothesis.ttest``.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import warnings

import numpy as np
import pytest
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
    # median test: SciPy raises "All values are below the grand median" -> nan here
    with pytest.raises(ValueError, match="below the grand median"):
        stats.median_test([0.0, 1.0, 1.0], [1.0, 1.0])
    r = H.median_test([0.0, 1.0, 1.0], [1.0, 1.0])
    assert np.isnan(r.statistic) and np.isnan(r.pvalue) and r.median == 1.0
    # the 2 x 2 table has SciPy's layout (rows above / at-or-below, columns x / y)
    x, y = [1.0, 2.0, 2.0, 5.0, 7.0], [0.0, 2.0, 3.0, 9.0]
    np.testing.assert_array_equal(H.median_test(x, y).table, stats.median_test(x, y).table)
    np.testing.assert_array_equal(
        H.median_test_counts(
            [0, 1, 2, 0, 1, 1, 0], [1, 0, 1, 1, 0, 0, 1], [0, 1, 2, 3, 5, 7, 9]
        ).table,
        stats.median_test(x, y).table,
    )
