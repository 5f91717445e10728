"""Tests of ``synthtrust.hypothesis.median``, Mood's median test with SciPy's defaults
(``ties='below'``, Yates-corrected χ² of the 2 × 2 above / at-or-below table): the statistic,
p-value, grand median and table computed by hand, SciPy's table layout, the replicates where
SciPy raises ("All values are below the grand median") given NaN, and the counts path (grand
median of the expanded samples, even totals included; an empty group gives NaN with the median
still reported). SciPy on many random raw and binned samples is the oracle of
test_mannwhitney.py, which checks every test of the package together.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import numpy as np
import pytest
from _hypothesis_data import _close
from scipy import stats

from synthtrust.hypothesis.median import median_test, median_test_counts


def test_separated_samples_by_hand():
    # grand median 4.5: x has 0 values above it, y 4; the table [[0, 4], [4, 0]] has E = 2
    # everywhere, Yates moves each |O − E| = 2 to 1.5: χ² = 4 · 1.5² / 2 = 4.5
    r = median_test([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0])
    assert r.median == 4.5
    np.testing.assert_array_equal(r.table, [[0, 4], [4, 0]])
    assert r.table.dtype == np.int64
    _close([r.statistic, r.pvalue], [4.5, stats.chi2.sf(4.5, 1)])
    _close([r.statistic, r.pvalue], list(stats.median_test([1, 2, 3, 4], [5, 6, 7, 8]))[:2])
    stat, p = r  # unpacks like SciPy's result
    assert (stat, p) == (r.statistic, r.pvalue)


def test_ties_with_the_grand_median_count_below():
    # pooled 1, 2, 2, 2, 3, 5: median 2; above it x has 1 (the 3), y 1 (the 5)
    r = median_test([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    assert r.median == 2.0
    np.testing.assert_array_equal(r.table, [[1, 1], [2, 2]])
    np.testing.assert_array_equal(r.table, stats.median_test([1, 2, 3], [2, 2, 5]).table)
    _close([r.statistic, r.pvalue], [0.0, 1.0])  # Yates: |O − E| = 0 stays 0


def test_degenerate_replicates_follow_scipy():
    # median test: SciPy raises "All values are below the grand median" -> nan here
    with pytest.raises(ValueError, match="below the grand median"):
        stats.median_test([0.0, 1.0, 1.0], [1.0, 1.0])
    r = median_test([0.0, 1.0, 1.0], [1.0, 1.0])
    assert np.isnan(r.statistic) and np.isnan(r.pvalue) and r.median == 1.0
    # the 2 x 2 table has SciPy's layout (rows above / at-or-below, columns x / y)
    x, y = [1.0, 2.0, 2.0, 5.0, 7.0], [0.0, 2.0, 3.0, 9.0]
    np.testing.assert_array_equal(median_test(x, y).table, stats.median_test(x, y).table)
    np.testing.assert_array_equal(
        median_test_counts(
            [0, 1, 2, 0, 1, 1, 0], [1, 0, 1, 1, 0, 0, 1], [0, 1, 2, 3, 5, 7, 9]
        ).table,
        stats.median_test(x, y).table,
    )


def test_only_the_degenerate_replicate_is_nan():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 1.0, 1.0]])
    y = np.array([[5.0, 6.0, 7.0, 8.0], [1.0, 1.0, 1.0, 1.0]])
    r = median_test(x, y)
    assert r.statistic.shape == r.pvalue.shape == r.median.shape == (2,)
    assert r.table.shape == (2, 2, 2)
    _close([r.statistic[0], r.pvalue[0]], [4.5, stats.chi2.sf(4.5, 1)])
    assert np.isnan(r.statistic[1]) and np.isnan(r.pvalue[1]) and r.median[1] == 1.0
    np.testing.assert_array_equal(r.table[1], [[0, 0], [4, 4]])


def test_counts_with_an_even_total_take_the_mean_of_the_middle_values():
    # pooled 1, 2, 3, 4: median 2.5; table [[0, 2], [2, 0]], E = 1, Yates 1 -> 0.5: χ² = 1
    r = median_test_counts([1, 1, 0, 0], [0, 0, 1, 1], [1.0, 2.0, 3.0, 4.0])
    assert r.median == 2.5
    np.testing.assert_array_equal(r.table, [[0, 2], [2, 0]])
    _close([r.statistic, r.pvalue], [1.0, stats.chi2.sf(1.0, 1)])
    raw = median_test([1.0, 2.0], [3.0, 4.0])
    _close([r.statistic, r.pvalue, r.median], [raw.statistic, raw.pvalue, raw.median])
    # the two middle values in different bins with others between them: 10 and 20 of 1..30
    r = median_test_counts([2, 0, 1], [0, 1, 0], [10.0, 20.0, 30.0])
    assert r.median == 15.0  # pooled 10, 10, 20, 30


def test_counts_with_an_empty_group_give_nan_but_the_median():
    r = median_test_counts([[0, 0, 0], [0, 0, 0]], [[1, 2, 0], [0, 0, 0]], [1.0, 2.0, 3.0])
    assert np.isnan(r.statistic).all() and np.isnan(r.pvalue).all()
    assert r.median[0] == 2.0  # pooled 1, 2, 2
    assert np.isnan(r.median[1])  # nothing pooled: no median
