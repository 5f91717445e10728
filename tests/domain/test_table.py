"""Tests of ``synthtrust.domain.table``.

The oracles and the shared set-up are described in ``_domain_data.py``.
"""

from __future__ import annotations

import json
import pickle
import re

import numpy as np
import pandas as pd
import pytest
from _domain_data import small_domain

from synthtrust import datasets
from synthtrust.domain import (
    Categorical,
    Domain,
    Numeric,
    Ordinal,
    dataset_domain,
)


def small_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "color": ["red", "blue", None, "red"],
            "flag": [True, False, True, True],
            "grade": [1, 3, 2, 1],
            "count": [0, 5, 10, 3],
            "weight": [0.0, 9.99, 10.0, 20.0],
            "height": [150.0, 160.5, np.nan, 199.0],
            "kids": [0, 1, 2, 7],
        }
    )


SMALL_CODES = {
    "color": [0, 2, 3, 0],  # position in the list; NaN -> last code 3
    "flag": [1, 0, 1, 1],
    "grade": [0, 2, 1, 0],
    "count": [0, 5, 10, 3],  # value - lo
    "weight": [0, 0, 1, 1],  # [0, 10) [10, 20]: 0 -> 0, 9.99 -> 0, 10 -> 1, 20 -> 1 (last closed)
    "height": [2, 2, 4, 3],  # 150 in [150, 175), 160.5 too, NaN -> 4, 199 in [175, 200]
    "kids": [0, 1, 1, 2],  # [0, 1) [1, 3) [3, 10]
}
CATEGORICAL_LIKE = ["color", "flag", "grade", "count"]
NUMERIC = ["weight", "height", "kids"]


def test_hand_computed_codes():
    dom = small_domain()
    codes = dom.encode(small_frame())
    assert list(codes.columns) == dom.columns
    assert (codes.dtypes == np.int64).all()
    for col, expected in SMALL_CODES.items():
        assert codes[col].tolist() == expected, col


def test_sizes_cells_and_repr():
    dom = small_domain()
    expected = {"color": 4, "flag": 2, "grade": 3, "count": 11, "weight": 2, "height": 5, "kids": 3}
    assert dom.sizes == expected
    assert list(dom.sizes) == dom.columns
    assert dom.cells == 4 * 2 * 3 * 11 * 2 * 5 * 3
    assert isinstance(dom.cells, int)
    big = Domain.from_sizes({f"c{i}": 100 for i in range(30)})
    assert big.cells == 10**60  # Python int, no int64 overflow
    dom.sizes["color"] = 99  # a copy: the domain is unchanged
    assert dom.sizes["color"] == 4
    assert repr(dom).startswith("Domain(columns=7, cells=7920, sizes={'color': 4, 'flag': 2,")
    assert "cells=1e+60" in repr(big)


def test_round_trip_small_frame():
    dom = small_domain()
    df = small_frame()
    codes = dom.encode(df)
    dec = dom.decode(codes, random_state=0)
    # categorical and ordinal columns come back exactly, with their dtypes
    pd.testing.assert_frame_equal(dec[CATEGORICAL_LIKE], df[CATEGORICAL_LIKE])
    assert dec["color"].dtype == df["color"].dtype  # pandas 3 str with NaN
    assert dec["flag"].dtype == bool and dec["grade"].dtype == np.int64
    # numeric columns fall in the same bin
    pd.testing.assert_frame_equal(dom.encode(dec), codes)
    assert dec["kids"].dtype == np.int64 and dec["weight"].dtype == np.float64
    assert np.isnan(dec["height"].iloc[2])
    # columns in any order, index kept
    shuffled = df[df.columns[::-1]].set_axis([10, 11, 12, 13])
    codes2 = dom.encode(shuffled)
    assert list(codes2.columns) == dom.columns
    assert codes2.index.tolist() == [10, 11, 12, 13]
    assert dom.decode(codes2, random_state=0).index.tolist() == [10, 11, 12, 13]


def test_decode_accepts_array_and_float_codes():
    dom = small_domain()
    codes = dom.encode(small_frame())
    a = dom.decode(codes.to_numpy(), random_state=3)
    b = dom.decode(codes.astype(float), random_state=3)
    pd.testing.assert_frame_equal(a, b)


def test_missing_token_values_and_nullable_dtypes():
    num = Numeric([0, 10, 20], missing="?")
    assert num.encode(pd.Series([1.5, "?", None, 20], dtype=object)).tolist() == [0, 2, 2, 1]
    nullable = pd.Series([1, None, 15], dtype="Int64")
    assert Numeric([0, 10, 20], missing="NA").encode(nullable).tolist() == [0, 2, 1]
    assert Ordinal(0, 3, missing=-9).encode([0, -9, 3, np.nan]).tolist() == [0, 4, 3, 4]


def test_decode_random_state_determinism():
    dom = small_domain()
    codes = dom.encode(small_frame())
    codes = pd.concat([codes] * 50, ignore_index=True)
    a = dom.decode(codes, random_state=42)
    b = dom.decode(codes, random_state=42)
    pd.testing.assert_frame_equal(a, b)
    c = dom.decode(codes, random_state=np.random.default_rng(42))
    pd.testing.assert_frame_equal(a, c)
    d = dom.decode(codes, random_state=43)
    assert not np.allclose(a["weight"], d["weight"])
    assert (a["kids"] != d["kids"]).any()
    pd.testing.assert_frame_equal(a[CATEGORICAL_LIKE], d[CATEGORICAL_LIKE])
    with pytest.raises(TypeError, match="random_state"):
        dom.decode(codes, random_state="seed")


# --------------------------------------------------------------------------------------------
# Error paths: messages name the column and the value
# --------------------------------------------------------------------------------------------
def test_missing_and_extra_columns():
    dom = small_domain()
    df = small_frame()
    with pytest.raises(ValueError, match=r"missing from df: \['color'\]"):
        dom.encode(df.drop(columns="color"))
    with pytest.raises(ValueError, match=r"not in the domain: \['extra'\]"):
        dom.encode(df.assign(extra=1))
    with pytest.raises(ValueError, match=r"missing from codes: \['kids'\]"):
        dom.decode(dom.encode(df).drop(columns="kids"))
    with pytest.raises(TypeError, match="DataFrame"):
        dom.encode(df.to_numpy())
    with pytest.raises(ValueError, match=r"shape \(n, 7\)"):
        dom.decode(np.zeros((3, 2), dtype=int))


def test_unseen_category():
    dom = small_domain()
    df = small_frame()
    df.loc[1, "color"] = "purple"
    msg = "column 'color': unseen category 'purple'.*" + re.escape(
        "allowed categories: ['red', 'green', 'blue']"
    )
    with pytest.raises(ValueError, match=msg):
        dom.encode(df)
    with pytest.raises(ValueError, match="column 'grade': unseen category 4"):
        dom.encode(small_frame().assign(grade=[1, 2, 3, 4]))
    with pytest.raises(ValueError, match="column 'flag': unseen category 1"):
        dom.encode(small_frame().assign(flag=[1, 0, 1, 0]))  # ints are not bools


def test_missing_value_without_token():
    df = small_frame().assign(flag=pd.Series([True, None, False, True], dtype=object))
    with pytest.raises(ValueError, match="column 'flag': 1 missing value"):
        small_domain().encode(df)
    with pytest.raises(ValueError, match="column 'weight': 1 missing value"):
        small_domain().encode(small_frame().assign(weight=[0.0, np.nan, 1.0, 2.0]))
    with pytest.raises(ValueError, match="column 'count': 1 missing value"):
        small_domain().encode(small_frame().assign(count=[0.0, np.nan, 1.0, 2.0]))


def test_numeric_out_of_bounds():
    df = small_frame().assign(weight=[0.0, 25.5, 10.0, 20.0])
    with pytest.raises(ValueError, match=r"column 'weight': value\(s\) 25.5 outside .*\[0, 20\]"):
        small_domain().encode(df)
    with pytest.raises(ValueError, match=r"column 'weight': value\(s\) -inf outside"):
        small_domain().encode(small_frame().assign(weight=[0.0, -np.inf, 10.0, 20.0]))


def test_numeric_wrong_types():
    with pytest.raises(TypeError, match="column 'weight'.*non-numeric value.*'a'"):
        small_domain().encode(small_frame().assign(weight=["a", "b", "1", "2"]))
    with pytest.raises(TypeError, match="column 'weight'.*non-numeric value.*'x'"):
        small_domain().encode(
            small_frame().assign(weight=pd.Series([1.0, "x", 2, 3], dtype=object))
        )
    with pytest.raises(TypeError, match="column 'weight'.*boolean"):
        small_domain().encode(small_frame().assign(weight=[True, False, True, True]))
    with pytest.raises(TypeError, match="column 'count'.*non-numeric value.*'5'"):
        small_domain().encode(small_frame().assign(count=["5", "1", "2", "3"]))


def test_ordinal_bad_values():
    with pytest.raises(ValueError, match=r"column 'count': value\(s\) 2.5 .*0..10"):
        small_domain().encode(small_frame().assign(count=[0, 2.5, 1, 1]))
    with pytest.raises(ValueError, match=r"column 'count': value\(s\) 11.0 .*0..10"):
        small_domain().encode(small_frame().assign(count=[0, 11, 1, 1]))


def test_bad_codes():
    dom = small_domain()
    codes = dom.encode(small_frame())
    with pytest.raises(ValueError, match=r"column 'flag': code\(s\) 2.0 are not integers in 0..1"):
        dom.decode(codes.assign(flag=[0, 2, 1, 1]))
    with pytest.raises(ValueError, match=r"column 'kids': code\(s\) 0.5"):
        dom.decode(codes.assign(kids=[0.5, 0, 0, 0]))
    with pytest.raises(ValueError, match=r"column 'count': code\(s\) -1.0"):
        dom.decode(codes.assign(count=[-1, 0, 0, 0]))
    with pytest.raises(TypeError, match="column 'grade': codes must be integers"):
        dom.decode(codes.assign(grade=["0", "1", "0", "0"]))


@pytest.mark.parametrize(
    ("make", "exc", "match"),
    [
        (lambda: Numeric([0, 0, 1]), ValueError, "strictly increasing"),
        (lambda: Numeric([0]), ValueError, "at least two bin edges"),
        (lambda: Numeric([0, np.inf]), ValueError, "finite"),
        (lambda: Numeric((0, 1, 2.0)), TypeError, "n_bins must be an integer"),
        (lambda: Numeric((0, 1, 0)), ValueError, "n_bins must be >= 1"),
        (lambda: Numeric((1, 1, 3)), ValueError, "lo must be < hi"),
        (lambda: Numeric((0, 1, 2, 3)), TypeError, r"tuple bins must be \(lo, hi, n_bins\)"),
        (lambda: Numeric("0-10"), TypeError, "bins must be a list"),
        (lambda: Numeric([0.2, 0.8], integer=True), ValueError, r"bin 0 \[0.2, 0.8\] contains no"),
        (lambda: Numeric([0, 10], missing=5), ValueError, "missing token 5 lies inside"),
        (lambda: Numeric([0, 10], integer=1), TypeError, "integer must be True or False"),
        (lambda: Ordinal(5, 1), ValueError, "lo must be <= hi"),
        (lambda: Ordinal(0.5, 2), TypeError, "lo must be an integer"),
        (lambda: Ordinal(0, 9, missing=3), ValueError, "inside 0..9"),
        (lambda: Domain({}), ValueError, "at least one column"),
        (lambda: Domain({"a": "categorical"}), TypeError, "column 'a': spec must be"),
        (lambda: Domain({1: Ordinal(0, 1)}), TypeError, "column names must be str"),
        (lambda: Domain.from_sizes({"a": 0}), ValueError, "size of column 'a' must be >= 1"),
        (lambda: Domain.from_sizes({"a": 2.0}), TypeError, "size of column 'a'"),
        (lambda: Domain.from_dict({"a": {"type": "bins"}}), ValueError, "unknown spec type 'bins'"),
        (
            lambda: Domain.from_dict({"a": {"type": "ordinal", "lo": 0, "hi": 1, "hgih": 2}}),
            ValueError,
            r"column 'a': a ordinal spec needs keys",
        ),
    ],
)
def test_bad_specs(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_pickle_and_hash():
    dom = dataset_domain("hypothyroid_allhypo")
    assert pickle.loads(pickle.dumps(dom)) == dom  # joblib/loky workers receive domains
    assert len({Numeric([0, 1]), Numeric([0.0, 1.0]), Numeric([0, 2])}) == 2


def test_select():
    dom = small_domain()
    sub = dom.select(["kids", "color"])
    assert sub.columns == ["kids", "color"]
    assert sub["kids"] == dom["kids"]
    with pytest.raises(ValueError, match=r"\['nope'\] are not in the domain"):
        dom.select(["nope"])
    with pytest.raises(KeyError, match="'nope' is not in the domain"):
        dom["nope"]


# --------------------------------------------------------------------------------------------
# Serialisation
# --------------------------------------------------------------------------------------------
def test_to_dict_from_dict_json_round_trip():
    dom = small_domain()
    d = json.loads(json.dumps(dom.to_dict()))
    back = Domain.from_dict(d)
    assert back == dom
    assert back.columns == dom.columns
    pd.testing.assert_frame_equal(back.encode(small_frame()), dom.encode(small_frame()))
    assert d["columns"][4] == {
        "name": "weight",
        "type": "numeric",
        "bins": [0.0, 10.0, 20.0],
        "missing": None,
        "integer": False,
        "clip": False,
    }
    # the hand-written form {column: spec dict}, optional keys left out
    short = Domain.from_dict(
        {
            "w": {"type": "numeric", "bins": [0, 10, 20]},
            "c": {"type": "categorical", "categories": [1, 2]},
        }
    )
    assert short == Domain({"w": Numeric([0, 10, 20]), "c": Categorical([1, 2])})


# --------------------------------------------------------------------------------------------
# Domain.from_sizes and Domain.infer
# --------------------------------------------------------------------------------------------
def test_from_sizes_is_identity():
    dom = Domain.from_sizes({"a": 3, "b": 2})
    df = pd.DataFrame({"a": [0, 2, 1], "b": [1, 1, 0]})
    pd.testing.assert_frame_equal(dom.encode(df), df)
    pd.testing.assert_frame_equal(dom.decode(df), df)
    with pytest.raises(ValueError, match=r"column 'a': value\(s\) 3.0"):
        dom.encode(df.assign(a=[0, 3, 1]))


def test_infer_warns_and_builds_specs():
    df = pd.DataFrame(
        {
            "s": ["b", "a", None, "a"] * 5,
            "flag": [True, False] * 10,
            "few": [1, 2, 3, 1] * 5,
            "x": np.linspace(0.0, 1.0, 20),
            "n": np.arange(20) * 3,
        }
    )
    with pytest.warns(UserWarning, match="not differentially private"):
        dom = Domain.infer(df, n_bins=4, max_categories=5)
    assert dom["s"] == Categorical(["a", "b"], missing="NA")
    assert dom["flag"] == Categorical([False, True])
    assert dom["few"] == Categorical([1, 2, 3])
    assert dom["x"] == Numeric((0.0, 1.0, 4))
    assert dom["n"] == Numeric((0, 57, 4), integer=True)
    codes = dom.encode(df)
    assert codes["x"].tolist() == np.minimum(np.floor(df["x"] * 4), 3).astype(int).tolist()
    dec = dom.decode(codes, random_state=0)
    pd.testing.assert_frame_equal(dec[["s", "flag", "few"]], df[["s", "flag", "few"]])
    pd.testing.assert_frame_equal(dom.encode(dec), codes)
    with pytest.raises(TypeError, match="column 't'.*dtype datetime"):
        with pytest.warns(UserWarning):
            Domain.infer(pd.DataFrame({"t": pd.date_range("2020-01-01", periods=3)}))


def test_infer_round_trips_adult():
    df = datasets.load("adult")
    with pytest.warns(UserWarning, match="not differentially private"):
        dom = Domain.infer(df)
    codes = dom.encode(df)
    dec = dom.decode(codes, random_state=1)
    categorical = [c for c in dom.columns if isinstance(dom[c], Categorical)]
    assert {"workclass", "occupation", "native-country", "income"} <= set(categorical)
    pd.testing.assert_frame_equal(dec[categorical], df[categorical])
    pd.testing.assert_frame_equal(dom.encode(dec), codes)
