"""Tests of ``synthtrust.hypothesis._inputs``, the input validation of the two-sample tests:
raw samples whose leading (replicate) axes broadcast, and nonnegative integer counts per bin
(whole floats accepted, int64 returned) with optional bin values, strictly increasing where the
median test needs them; the arrays returned and every error, directly and through the tests
that call them. Finite, nonempty numeric samples are checked by ``synthtrust._validation``
(tests/test_validation.py and the remaining rows of test_mannwhitney.py's bad-input table).

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import numpy as np
import pytest

from synthtrust.hypothesis._inputs import check_counts, two_counts, two_samples
from synthtrust.hypothesis.mannwhitney import mannwhitneyu_counts
from synthtrust.hypothesis.median import median_test, median_test_counts
from synthtrust.hypothesis.ttest import ttest_ind_counts


# ------------------------------------------------------------------------------ raw samples
def test_two_samples_broadcast_the_leading_axes_only():
    x = np.arange(15.0).reshape(3, 1, 5)
    y = np.arange(28.0).reshape(4, 7)
    bx, by, lead = two_samples(x, y)
    assert lead == (3, 4)
    assert bx.shape == (3, 4, 5) and by.shape == (3, 4, 7)
    for i in range(3):
        for j in range(4):
            np.testing.assert_array_equal(bx[i, j], x[i, 0])
            np.testing.assert_array_equal(by[i, j], y[j])
    bx, by, lead = two_samples([1, 2], [3])  # 1-D: no replicates; lists become float arrays
    assert lead == () and bx.dtype == by.dtype == np.float64
    assert bx.tolist() == [1.0, 2.0] and by.tolist() == [3.0]


def test_two_samples_name_the_samples_whose_replicates_do_not_broadcast():
    with pytest.raises(ValueError) as info:
        two_samples(np.ones((2, 3)), np.ones((3, 3)), "real", "synthetic")
    assert str(info.value) == (
        "leading (replicate) shapes of real (2,) and synthetic (3,) do not broadcast"
    )


# ---------------------------------------------------------------------------------- counts
def test_check_counts_gives_int64():
    for counts in ([3, 0, 2], np.array([3.0, 0.0, 2.0]), np.array([3, 0, 2], dtype=np.uint8)):
        out = check_counts(counts, "cx")
        assert out.dtype == np.int64 and out.tolist() == [3, 0, 2]
    assert check_counts(np.zeros((2, 3, 4)), "cx").shape == (2, 3, 4)


@pytest.mark.parametrize(
    ("counts", "exc", "message"),
    [
        ("ab", TypeError, "cx must be an array of nonnegative integer counts, got a string"),
        ([True, False], TypeError, "cx must be an array of nonnegative integer counts, got dtype"),
        (["1", "2"], TypeError, "got dtype <U1"),
        ([1 + 1j], TypeError, "got dtype complex128"),
        (5, ValueError, r"cx must have shape \(..., n_bins\) with n_bins >= 1, got \(\)"),
        (np.zeros((2, 0)), ValueError, r"with n_bins >= 1, got \(2, 0\)"),
        ([1.0, np.inf], ValueError, "cx contains NaN or infinite values; counts must be finite"),
        ([1.0, 0.5], ValueError, "cx must contain integer counts, got non-integer values"),
        ([[1, -1], [-3, 0]], ValueError, "cx must be nonnegative, got minimum -3"),
    ],
)
def test_check_counts_refuses(counts, exc, message):
    with pytest.raises(exc, match=message):
        check_counts(counts, "cx")


def test_two_counts_broadcast_and_check_the_bin_values():
    cx = np.arange(12).reshape(3, 1, 4)
    cy = np.ones((2, 4), dtype=int)
    bx, by, values = two_counts(cx, cy)
    assert values is None and bx.shape == by.shape == (3, 2, 4)
    np.testing.assert_array_equal(bx[:, 1], cx[:, 0])
    _, _, values = two_counts([1, 2], [0, 1], [2, 1])  # any order unless asked
    assert values.dtype == np.float64 and values.tolist() == [2.0, 1.0]
    _, _, values = two_counts([1, 2], [0, 1], [-1, 3], increasing=True)
    assert values.tolist() == [-1.0, 3.0]
    with pytest.raises(ValueError, match=r"^values \(bin values\) must be strictly increasing$"):
        two_counts([1, 2], [0, 1], [3.0, 3.0], increasing=True)
    with pytest.raises(ValueError, match=r"^values must have shape \(n_bins,\) = \(2,\), got"):
        two_counts([1, 2], [0, 1], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="^cx and cy must have the same number of bins"):
        two_counts([1, 2, 3], [0, 1])
    with pytest.raises(ValueError) as info:
        two_counts(np.ones((2, 4)), np.ones((3, 4)))
    assert str(info.value) == "leading shapes of cx (2, 4) and cy (3, 4) do not broadcast"


# ---------------------------------------------------------------- through the tests (moved)
@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: median_test(np.ones((2, 3)), np.ones((3, 3))), ValueError, "broadcast"),
        (lambda: mannwhitneyu_counts([[1, -1]], [[1, 1]]), ValueError, "nonnegative"),
        (lambda: mannwhitneyu_counts([[1, 0.5]], [[1, 1]]), ValueError, "integer"),
        (lambda: mannwhitneyu_counts([[1, np.nan]], [[1, 1]]), ValueError, "NaN"),
        (lambda: mannwhitneyu_counts([[1, 2, 3]], [[1, 1]]), ValueError, "number of bins"),
        (lambda: mannwhitneyu_counts("ab", [1, 1]), TypeError, "cx"),
        (lambda: ttest_ind_counts([1, 2], [1, 1], [1.0, 2.0, 3.0]), ValueError, "values"),
        (lambda: median_test_counts([1, 2], [1, 1], [2.0, 1.0]), ValueError, "increasing"),
    ],
)
def test_bad_input_raises(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
