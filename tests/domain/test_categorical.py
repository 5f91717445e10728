"""Tests of ``synthtrust.domain.categorical``, a column over a public list of categories: codes
are positions in the list, the missing token (and NaN/None) takes the last code, decoding is
exact with the dtype pandas gives the categories; labels, ``to_dict`` and the normalisation of
the categories to JSON scalars; every error (unseen category, listing at most 20 of the allowed
ones; a missing value without a token; bad specifications), each against hand-written codes and
messages. Categorical columns inside a table are tested in test_table.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthtrust.domain.categorical import Categorical


# ------------------------------------------------------------------------------ the spec
def test_size_labels_and_to_dict():
    cat = Categorical(["red", "green", "blue"], missing="NA")
    assert cat.size == 4 and Categorical([1, 2]).size == 2
    assert cat.labels() == ["red", "green", "blue", "NA"]
    assert Categorical(["a", "b"], missing="?").labels() == ["a", "b", "?"]
    assert Categorical([False, True], missing=-1).labels() == ["False", "True", "-1"]
    assert cat.to_dict() == {
        "type": "categorical",
        "categories": ["red", "green", "blue"],
        "missing": "NA",
    }
    assert Categorical([1.5]).to_dict() == {
        "type": "categorical",
        "categories": [1.5],
        "missing": None,
    }


def test_categories_are_normalised_to_a_tuple_of_json_scalars():
    cat = Categorical(np.array([3, 1, 2]), missing=np.int64(-1))
    assert cat.categories == (3, 1, 2) and all(type(c) is int for c in cat.categories)
    assert type(cat.missing) is int and cat.missing == -1
    assert Categorical(pd.Index(["a", "b"])) == Categorical(["a", "b"]) == Categorical(("a", "b"))
    assert hash(Categorical(pd.Series([0.5, 1.5]))) == hash(Categorical([0.5, 1.5]))
    assert Categorical(["a", "b"]) != Categorical(["b", "a"])  # the order is the coding
    with pytest.raises(AttributeError):
        cat.missing = None  # frozen


# -------------------------------------------------------------------------------- encoding
def test_codes_are_positions_and_missing_values_take_the_last_code():
    cat = Categorical(["red", "green", "blue"], missing="NA")
    values = ["blue", "NA", None, "red", np.nan, "green", "blue"]
    assert cat.encode(values).tolist() == [2, 3, 3, 0, 3, 1, 2]
    codes = cat.encode(pd.Series(["green", None], dtype="category"))
    assert codes.dtype == np.int64 and codes.tolist() == [1, 3]
    assert Categorical([10, 20, 30]).encode(np.array([30, 10, 10])).tolist() == [2, 0, 0]
    assert Categorical([0.5, 1.5]).encode(pd.Series([1.5, 0.5])).tolist() == [1, 0]


def test_missing_token_values_and_nullable_dtypes():
    cat = Categorical(["a", "b"], missing="?")
    assert cat.encode(pd.Series(["a", "?", None, "b"])).tolist() == [0, 2, 2, 1]
    assert cat.decode([0, 2, 1]).tolist()[::2] == ["a", "b"]
    assert np.isnan(cat.decode([0, 2, 1]).iloc[1])
    only_missing = Categorical([], missing="NA")
    assert only_missing.size == 1
    assert only_missing.encode(pd.Series([np.nan, None])).tolist() == [0, 0]
    # True and 1 are different categories
    assert Categorical([False, True]).encode(pd.Series([True, False])).tolist() == [1, 0]


def test_true_is_not_the_category_one_in_an_object_column():
    with pytest.raises(ValueError, match=r"unseen category True \(1 row\(s\)\)"):
        Categorical([1, 2]).encode(pd.Series([1, True], dtype=object))


def test_an_unseen_category_is_named_with_the_allowed_ones():
    cat = Categorical(["a", "b"])
    with pytest.raises(ValueError) as info:
        cat.encode(pd.Series(["a", "z", "y", "z"]), column="letter")
    assert str(info.value) == (
        "column 'letter': unseen category 'z', 'y' (3 row(s)); allowed categories: ['a', 'b']"
    )
    many = Categorical([f"c{i}" for i in range(25)], missing="NA")
    with pytest.raises(ValueError) as info:
        many.encode(["c0", "zz"])
    allowed = ", ".join(repr(f"c{i}") for i in range(20))
    assert str(info.value) == (
        "value: unseen category 'zz' (1 row(s)); allowed categories: "
        f"[{allowed}, ... (25 in all)]; missing token 'NA'"
    )
    with pytest.raises(ValueError, match="value: unseen category 1"):
        Categorical([False, True]).encode([1, 0])  # ints are not bools


def test_a_missing_value_without_a_token_is_an_error():
    with pytest.raises(ValueError) as info:
        Categorical(["a", "b"]).encode(pd.Series(["a", None, np.nan]), column="c")
    assert str(info.value).startswith(
        "column 'c': 2 missing value(s) (NaN/None) but the Categorical has no missing token; "
        "pass missing=<token>"
    )


# -------------------------------------------------------------------------------- decoding
@pytest.mark.parametrize(
    ("categories", "dtype", "missing_dtype"),
    [
        (["a", "b"], "str", "str"),
        ([10, 20], "int64", "float64"),
        ([0.5, 1.5], "float64", "float64"),
        ([False, True], "bool", "object"),
    ],
)
def test_decoding_is_exact_with_the_categories_dtype(categories, dtype, missing_dtype):
    cat = Categorical(categories, missing="NA")
    out = cat.decode([1, 0, 1], column="x")
    assert out.tolist() == [categories[1], categories[0], categories[1]]
    assert out.dtype == dtype and out.name == "x"
    with_missing = cat.decode(np.array([2.0, 0.0]))  # whole float codes are accepted
    assert with_missing.dtype == missing_dtype and with_missing.name is None
    assert pd.isna(with_missing.iloc[0]) and with_missing.iloc[1] == categories[0]
    # round trip, and random_state has no effect: decoding is exact
    values = pd.Series([categories[0], None, categories[1]], dtype=object)
    codes = cat.encode(values)
    assert codes.tolist() == [0, 2, 1]
    pd.testing.assert_series_equal(cat.decode(codes, random_state=1), cat.decode(codes))


def test_decoding_refuses_codes_outside_the_list():
    cat = Categorical(["a", "b"])
    with pytest.raises(ValueError, match=r"column 'x': code\(s\) 2.0 are not integers in 0..1"):
        cat.decode([0, 2], column="x")
    with pytest.raises(ValueError, match=r"code\(s\) -1.0 are not integers"):
        cat.decode([-1])  # -1 is no code (it would take the last category)


# ---------------------------------------------------------------------------- bad specs
@pytest.mark.parametrize(
    ("make", "exc", "match"),
    [
        (lambda: Categorical(["a", "a"]), ValueError, "duplicate categories 'a'"),
        (lambda: Categorical(["a", None]), ValueError, r"categories\[1\] is missing"),
        (lambda: Categorical([]), ValueError, "at least one category"),
        (lambda: Categorical(["a"], missing="a"), ValueError, "'a' is also a category"),
        (lambda: Categorical("abc"), TypeError, "must be a list"),
        (lambda: Categorical([object()]), TypeError, r"categories\[0\] must be a str"),
        (lambda: Categorical([1.0, np.nan]), ValueError, r"categories\[1\] is missing \(nan\)"),
        (lambda: Categorical([pd.NA]), ValueError, r"categories\[0\] is missing \(<NA>\)"),
        (lambda: Categorical([1, np.inf]), ValueError, r"categories\[1\] must be finite"),
        (lambda: Categorical(3), TypeError, "categories must be a list of values, got int 3"),
        (lambda: Categorical(["a"], missing=[0]), TypeError, "Categorical: missing token must"),
    ],
)
def test_bad_specs(make, exc, match):
    with pytest.raises(exc, match=match):
        make()
