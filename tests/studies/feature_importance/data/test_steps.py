"""Tests of ``synthtrust.studies.feature_importance.data._steps`` (the steps every
feature-engineering recipe of giles2022 App. A shares). The oracles: hand-made columns whose
numbers, label codes and target values are written out; a brute-force loop over the groups for
MODE (``collections.Counter``, ties to the smallest code, as Featuretools' ``Series.mode()[0]``);
``scipy.stats.skew(bias=False)`` for SKEW, with the conventions of the pandas Featuretools 0.x
ran on (NaN below 3 values, 0 for a constant group); QUIPP's final cleaning of ``X`` on a
hand-made frame of the 3-feature Artificial 5.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.studies.feature_importance.data._steps import (
    finish,
    group_mode,
    group_skew,
    nominal_codes,
    numeric_column,
    target_values,
)


def test_numeric_column_takes_numbers_written_as_text():
    frame = pd.DataFrame({"x": ["1", "2.5", None, 4]}, dtype=object)
    got = numeric_column(frame, "x")
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.to_numpy(), [1.0, 2.5, np.nan, 4.0])
    with pytest.raises(TypeError, match="column 'x' must be numeric, got value\\(s\\) \\['old'"):
        numeric_column(pd.DataFrame({"x": ["1", "old", "y", None]}), "x")
    with pytest.raises(TypeError, match="column 'b' must be numeric, got booleans"):
        numeric_column(pd.DataFrame({"b": [True, False]}), "b")


def test_nominal_codes_are_positions_in_the_public_list():
    cats = ["NO", "YES"]
    codes = nominal_codes(pd.Series(["YES", "NO", "YES"]), cats, "smoke")
    assert codes.dtype == np.int64 and codes.tolist() == [1, 0, 1]
    # integer categories: the value is looked up as a number (text or float alike)
    assert nominal_codes(pd.Series(["2", 3, 0.0], dtype=object), [0, 1, 2, 3], "p").tolist() == [
        2,
        3,
        0,
    ]
    assert nominal_codes(pd.Series([9, 5, 7]), [5, 7, 9], "q").tolist() == [2, 0, 1]
    with pytest.raises(ValueError, match=r"column 'smoke': value\(s\) \['MAYBE'\] not in"):
        nominal_codes(pd.Series(["YES", "MAYBE", "MAYBE"]), cats, "smoke")
    with pytest.raises(ValueError, match=r"column 'p': value\(s\) \['x', 4\]"):
        nominal_codes(pd.Series(["x", 1, 4], dtype=object), [0, 1, 2, 3], "p")


def test_group_mode_against_a_loop_with_ties_to_the_smallest_code():
    keys = np.array([0, 0, 0, 1, 1, 2])
    codes = np.array([3, 1, 1, 2, 0, 5])
    assert group_mode(keys, codes).to_dict() == {0: 1, 1: 0, 2: 5}
    rng = np.random.default_rng(0)
    keys, codes = rng.integers(0, 30, 400), rng.integers(0, 4, 400)
    expected = {}
    for k in np.unique(keys):
        counts = Counter(codes[keys == k].tolist())
        top = max(counts.values())
        expected[int(k)] = min(c for c, n in counts.items() if n == top)
    got = group_mode(keys, codes)
    assert list(got.index) == sorted(expected) and got.to_dict() == expected


def test_group_skew_is_the_bias_corrected_skewness_of_featuretools_pandas():
    rng = np.random.default_rng(1)
    values = np.r_[rng.exponential(size=6), [1.0, 4.0], [2.0, 2.0, 2.0, 2.0], [0.0, 1.0, 5.0]]
    keys = np.repeat(["a", "b", "c", "d"], [6, 2, 4, 3])
    frame = pd.DataFrame({"v": values, "w": -values})
    got = group_skew(frame.groupby(keys))
    for col, sign in (("v", 1), ("w", -1)):
        assert got.loc["a", col] == pytest.approx(
            sign * stats.skew(values[:6], bias=False), rel=1e-12
        )
        assert np.isnan(got.loc["b", col])  # fewer than 3 values
        assert got.loc["c", col] == 0.0  # constant: 0, not NaN
        assert got.loc["d", col] == pytest.approx(
            sign * stats.skew([0.0, 1.0, 5.0], bias=False), rel=1e-12
        )


def test_target_values_of_polish_and_of_a_numeric_target():
    got = target_values(pd.DataFrame({"wkabint": ["YES", "NO", None]}), "polish")
    np.testing.assert_array_equal(got.to_numpy(), [1.0, 0.0, np.nan])
    with pytest.raises(
        ValueError, match=r"'wkabint': value\(s\) \['MAYBE'\] not in \['NO', 'YES'\]"
    ):
        target_values(pd.DataFrame({"wkabint": ["YES", "MAYBE"]}), "polish")
    got = target_values(pd.DataFrame({"Target": ["2", 4, None]}, dtype=object), "household")
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.to_numpy(), [2.0, 4.0, np.nan])
    # (an int64 column's bad value prints as "np.int64(7)" under numpy 2)
    with pytest.raises(
        ValueError, match=r"'Target': value\(s\) \[(np\.int64\()?7\)?\] not in the classes \[1, 2"
    ):
        target_values(pd.DataFrame({"Target": [1, 7]}), "household")


def test_finish_is_quipps_final_cleaning():
    X = pd.DataFrame(
        {
            "X0": [0.0, np.inf, 2.0, 3.0, 4.0],
            "X9": [1.0, 1.0, 1.0, np.nan, 5.0],
            "X10": [7, 8, 9, 10, 11],
            "label_copy": [1, 0, 1, 0, 1],  # derived from the label: its name contains it
            "unused": [9, 9, 9, 9, 9],
        },
        index=[10, 11, 12, 13, 14],
    )
    y = pd.Series([1.0, 0.0, np.nan, 0.0, 1.0], index=X.index)
    Xf, yf = finish("artificial_5", X, y, ["X10", "X0", "label_copy", "X9"])
    # rows: ±inf (11), a missing label (12) and a missing feature (13) dropped
    assert list(Xf.columns) == ["X10", "X0", "X9"]
    assert Xf.to_dict("list") == {"X10": [7, 11], "X0": [0.0, 4.0], "X9": [1.0, 5.0]}
    assert Xf.index.equals(pd.RangeIndex(2)) and yf.index.equals(pd.RangeIndex(2))
    assert yf.dtype == np.int64 and yf.tolist() == [1, 1]
