"""Tests of synthtrust.domain: hand-computed codes, round trips, every error path, determinism,
serialisation, the non-private ``infer`` and the hand-written dataset domains."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
import warnings
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import datasets
from synthtrust.domain import (
    DATASET_DOMAINS,
    Categorical,
    Domain,
    Numeric,
    Ordinal,
    dataset_domain,
)


# --------------------------------------------------------------------------------------------
# A small hand-made table and its hand-computed codes
# --------------------------------------------------------------------------------------------
def small_domain() -> Domain:
    return Domain(
        {
            "color": Categorical(["red", "green", "blue"], missing="NA"),
            "flag": Categorical([False, True]),
            "grade": Categorical([1, 2, 3]),
            "count": Ordinal(0, 10),
            "weight": Numeric([0, 10, 20]),
            "height": Numeric((100, 200, 4), missing="NA"),  # edges 100, 125, 150, 175, 200
            "kids": Numeric([0, 1, 3, 10], integer=True),
        }
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


def test_equal_width_edges_and_labels():
    assert Numeric((0, 100, 4)).edges == (0.0, 25.0, 50.0, 75.0, 100.0)
    assert Numeric([0, 10, 20], missing="NA").labels() == ["[0, 10)", "[10, 20]", "NA"]
    assert Categorical(["a", "b"], missing="?").labels() == ["a", "b", "?"]
    assert Ordinal(3, 5).labels() == ["3", "4", "5"]
    assert small_domain().labels("weight") == ["[0, 10)", "[10, 20]"]


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
    cat = Categorical(["a", "b"], missing="?")
    assert cat.encode(pd.Series(["a", "?", None, "b"])).tolist() == [0, 2, 2, 1]
    assert cat.decode([0, 2, 1]).tolist()[::2] == ["a", "b"]
    assert np.isnan(cat.decode([0, 2, 1]).iloc[1])
    num = Numeric([0, 10, 20], missing="?")
    assert num.encode(pd.Series([1.5, "?", None, 20], dtype=object)).tolist() == [0, 2, 2, 1]
    nullable = pd.Series([1, None, 15], dtype="Int64")
    assert Numeric([0, 10, 20], missing="NA").encode(nullable).tolist() == [0, 2, 1]
    assert Ordinal(0, 3, missing=-9).encode([0, -9, 3, np.nan]).tolist() == [0, 4, 3, 4]
    only_missing = Categorical([], missing="NA")
    assert only_missing.size == 1
    assert only_missing.encode(pd.Series([np.nan, None])).tolist() == [0, 0]
    # True and 1 are different categories
    assert Categorical([False, True]).encode(pd.Series([True, False])).tolist() == [1, 0]


def test_ordinal_and_integer_decode_dtypes():
    ordi = Ordinal(1, 5, missing="NA")
    assert ordi.decode([0, 4]).dtype == np.int64  # nothing missing: int64
    out = ordi.decode([0, 5])  # a missing code: float64 with NaN (read_csv's convention)
    assert out.dtype == np.float64 and out.iloc[0] == 1.0 and np.isnan(out.iloc[1])
    num = Numeric([0, 5, 10], integer=True, missing="NA")
    assert num.decode([0, 1], random_state=0).dtype == np.int64
    assert num.decode([0, 2], random_state=0).dtype == np.float64


def test_clip():
    num = Numeric([0, 10, 20], clip=True)
    assert num.encode([-5.0, 25.0, np.inf, -np.inf, 10.0]).tolist() == [0, 1, 1, 0, 1]


# --------------------------------------------------------------------------------------------
# Decoding draws: uniform within the bin, deterministic given random_state
# --------------------------------------------------------------------------------------------
def test_continuous_decode_is_uniform_within_the_bin():
    num = Numeric([0, 10, 20])
    for code, (lo, hi) in enumerate([(0, 10), (10, 20)]):
        x = num.decode(np.full(4000, code), random_state=code).to_numpy()
        assert ((x >= lo) & (x <= hi)).all()
        if code == 0:
            assert (x < hi).all()  # left-closed bins: the upper edge belongs to the next bin
        assert stats.kstest(x, stats.uniform(loc=lo, scale=hi - lo).cdf).pvalue > 1e-3


def test_integer_decode_covers_exactly_the_bins_integers():
    edges = [0.5, 3, 7.5]
    num = Numeric(edges, integer=True)
    # brute-force oracle: integers of [0.5, 3) and of the closed last bin [3, 7.5]
    oracle = [
        [v for v in range(-20, 20) if 0.5 <= v < 3],
        [v for v in range(-20, 20) if 3 <= v <= 7.5],
    ]
    assert oracle == [[1, 2], [3, 4, 5, 6, 7]]
    for code, allowed in enumerate(oracle):
        x = num.decode(np.full(5000, code), random_state=10 + code)
        assert x.dtype == np.int64
        values, counts = np.unique(x, return_counts=True)
        assert values.tolist() == allowed
        assert stats.chisquare(counts).pvalue > 1e-3  # uniform over the bin's integers
        assert (num.encode(x) == code).all()


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
        (lambda: Categorical(["a", "a"]), ValueError, "duplicate categories 'a'"),
        (lambda: Categorical(["a", None]), ValueError, r"categories\[1\] is missing"),
        (lambda: Categorical([]), ValueError, "at least one category"),
        (lambda: Categorical(["a"], missing="a"), ValueError, "'a' is also a category"),
        (lambda: Categorical("abc"), TypeError, "must be a list"),
        (lambda: Categorical([object()]), TypeError, r"categories\[0\] must be a str"),
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


@pytest.mark.parametrize("name", DATASET_DOMAINS)
def test_dataset_domains_json_round_trip(name):
    dom = dataset_domain(name)
    assert Domain.from_dict(json.loads(json.dumps(dom.to_dict()))) == dom


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


# --------------------------------------------------------------------------------------------
# Hand-written public domains of the datasets
# --------------------------------------------------------------------------------------------
EXPECTED_SIZES = {
    "pima_diabetes": {
        "Pregnancies": 21,
        "Glucose": 10,
        "BloodPressure": 9,
        "SkinThickness": 7,
        "Insulin": 9,
        "BMI": 8,
        "DiabetesPedigreeFunction": 6,
        "Age": 8,
        "Outcome": 2,
    },
    "ilpd": {
        "Age": 7,
        "Gender": 2,
        "Total_Bilirubin": 9,
        "Direct_Bilirubin": 8,
        "Alkaline_Phosphotase": 9,
        "Alamine_Aminotransferase": 9,
        "Aspartate_Aminotransferase": 9,
        "Total_Protiens": 8,
        "Albumin": 7,
        "Albumin_and_Globulin_Ratio": 9,
        "Dataset": 2,
    },
    "hypothyroid_allhypo": {
        "age": 9,
        "sex": 3,
        **{
            f: 2
            for f in [
                "on_thyroxine",
                "query_on_thyroxine",
                "on_antithyroid_medication",
                "sick",
                "pregnant",
                "thyroid_surgery",
                "I131_treatment",
                "query_hypothyroid",
                "query_hyperthyroid",
                "lithium",
                "goitre",
                "tumor",
                "hypopituitary",
                "psych",
            ]
        },
        "TSH_measured": 2,
        "TSH": 11,
        "T3_measured": 2,
        "T3": 10,
        "TT4_measured": 2,
        "TT4": 10,
        "T4U_measured": 2,
        "T4U": 9,
        "FTI_measured": 2,
        "FTI": 10,
        "TBG_measured": 2,
        "TBG": 4,
        "referral_source": 6,
        "Target": 4,
    },
}
LABELS = {
    "pima_diabetes": ("Outcome", [0, 1]),
    "ilpd": ("Dataset", [1, 2]),
    "hypothyroid_allhypo": (
        "Target",
        ["compensated_hypothyroid", "negative", "primary_hypothyroid", "secondary_hypothyroid"],
    ),
    "adult_pgm_discretized": ("income>50K", [0, 1]),
    "cardio": ("cardio", [0, 1]),
}


def test_dataset_domain_names():
    assert set(DATASET_DOMAINS) <= set(datasets.NAMES)
    with pytest.raises(ValueError, match="no public domain for dataset 'sd2011'; available"):
        dataset_domain("sd2011")


def test_adult_pgm_sizes_equal_the_json_file():
    sizes = json.loads((datasets.DATA_DIR / "adult_pgm_discretized_domain.json").read_text())
    dom = dataset_domain("adult_pgm_discretized")
    assert dom.sizes == sizes
    df = datasets.load("adult_pgm_discretized")
    codes = dom.encode(df)
    pd.testing.assert_frame_equal(codes, df)  # identity on integer-coded data
    pd.testing.assert_frame_equal(dom.decode(codes), df)


# sha256 of each domain as the hand-written Python builders of the former domain.py built it,
# before the domains moved to JSON data files: the files must give exactly equal Domain objects
# (spec reprs included, so 1, 1.0 and True are told apart).
BUILDER_FINGERPRINTS = {
    "pima_diabetes": "6d7531c52128f141092f3434acda3e625f8c45edc4d4f02867982b221d8b3329",
    "ilpd": "8ac1203a9003f53cda6169eb87c97b087b03ac1d76c9e0ddd8786ddd01e57f6e",
    "hypothyroid_allhypo": "bb41ec6812815ba71746c1a41976a720f0c5d671a3d4def44de0ce793298d317",
    "adult_pgm_discretized": "49ee06134874152927df5bfed619a0ba815fb838a805e2f2a84aa7575c2a21a0",
    "cardio": "1149f723e39bb26ed396f0c89900e79ce6bdd88460016acbe31d11ef68b159af",
    "census2011": "2a7542cf7601a4a3d06d25654a3ce56836e566b0fd8ad95a51f852aba837ae60",
}


def _fingerprint(dom: Domain) -> str:
    text = json.dumps([dom.to_dict(), {col: repr(spec) for col, spec in dom.specs.items()}])
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", [*DATASET_DOMAINS, "census2011"])
def test_dataset_domain_equals_the_former_python_builders(name):
    assert _fingerprint(dataset_domain(name)) == BUILDER_FINGERPRINTS[name]


def test_dataset_domain_files():
    """One JSON file per hand-written domain (adult's sizes come from data/), named after it;
    a column entry is a Domain.to_dict entry plus an optional "note" on its source."""
    folder = resources.files("synthtrust.domain").joinpath("data")
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith(".json"))
    names = sorted({*DATASET_DOMAINS, "census2011"} - {"adult_pgm_discretized"})
    assert files == [f"{name}.json" for name in names]
    for name in names:
        content = json.loads(folder.joinpath(f"{name}.json").read_text("utf-8"))
        assert set(content) == {"dataset", "description", "columns"}
        assert content["dataset"] == name
        spec_columns = [{k: v for k, v in c.items() if k != "note"} for c in content["columns"]]
        assert Domain.from_dict({"columns": spec_columns}) == dataset_domain(name)


@pytest.mark.parametrize("name", DATASET_DOMAINS)
def test_dataset_round_trip(name):
    df = datasets.load(name)
    if name == "cardio":
        df = df.drop(columns="id").sample(5000, random_state=0)  # the record id is no attribute
    dom = dataset_domain(name)
    assert dom.columns == list(df.columns)
    if name in EXPECTED_SIZES:
        assert dom.sizes == EXPECTED_SIZES[name]
        numeric = [c for c in dom.columns if isinstance(dom[c], Numeric)]
        assert max(dom.sizes[c] for c in numeric) <= 11  # <= 10 bins + a missing code
    codes = dom.encode(df)
    for col, k in dom.sizes.items():
        assert codes[col].between(0, k - 1).all(), col
    dec = dom.decode(codes, random_state=0)
    exact = [c for c in dom.columns if not isinstance(dom[c], Numeric)]
    pd.testing.assert_frame_equal(dec[exact], df[exact])  # values and dtypes
    pd.testing.assert_frame_equal(dom.encode(dec), codes)
    label, values = LABELS[name]
    assert isinstance(dom[label], Categorical)
    assert sorted(dec[label].unique().tolist()) == values
    # numeric values that were not clipped decode into the bin they came from
    for col in dom.columns:
        spec = dom[col]
        if isinstance(spec, Numeric):
            x = df[col].to_numpy(dtype=float)
            inside = (x >= spec.bounds[0]) & (x <= spec.bounds[1])
            assert (np.isnan(dec[col].to_numpy(dtype=float)) == np.isnan(x)).all(), col
            assert (spec.encode(dec[col][inside]) == codes[col][inside]).all(), col


def test_dataset_hand_computed_first_rows():
    pima = dataset_domain("pima_diabetes").encode(datasets.load("pima_diabetes").head(1))
    # 6, 148, 72, 35, 0, 33.6, 0.627, 50, 1 (Pregnancies ... Outcome)
    assert pima.iloc[0].tolist() == [6, 6, 5, 4, 0, 4, 2, 5, 1]
    hypo = dataset_domain("hypothyroid_allhypo")
    codes = hypo.encode(datasets.load("hypothyroid_allhypo").head(1)).iloc[0]
    # age 41, TSH 1.3, T3 2.5, TT4 125, T4U 1.14, FTI 109, TBG NaN, SVHC, negative
    assert codes[["age", "TSH", "T3", "TT4", "T4U", "FTI", "TBG"]].tolist() == [3, 2, 5, 5, 5, 4, 3]
    assert codes[["sex", "TSH_measured", "referral_source", "Target"]].tolist() == [0, 1, 2, 0]


def test_hypothyroid_age_455_is_clipped_to_the_top_bin():
    df = datasets.load("hypothyroid_allhypo")
    dom = dataset_domain("hypothyroid_allhypo")
    assert (df["age"] > 100).sum() == 1
    codes = dom.encode(df)
    assert codes.loc[df["age"] > 100, "age"].tolist() == [7]  # [80, 100]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dataset_domain("pima_diabetes")  # public domains never warn
