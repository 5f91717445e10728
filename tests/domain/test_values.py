"""Tests of ``synthtrust.domain._values``, the checks and conversions of one column's values
that the column specifications share: JSON scalars (NumPy scalars to Python, non-finite numbers
and non-scalars refused), missing tokens, booleans and integers, the few offending values an
error message shows, 1-D input, the mask of a missing token (a bool never matches an int),
numeric values with NaN where missing, codes ``0..size-1``, decoded numbers and their dtype,
and number formatting, each against hand-written values. The specifications that use them are
tested in test_categorical.py, test_numeric.py, test_ordinal.py and test_table.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthtrust.domain._values import (
    MAX_SHOWN,
    as_series,
    bool_safe_keys,
    check_bool,
    check_codes,
    check_integer,
    check_token,
    column_label,
    float_values,
    format_number,
    json_scalar,
    missing_rows,
    numbers_out,
    show_values,
    token_mask,
)


def _same(a, b) -> bool:
    """Equal and of the same type (``1 == True == 1.0`` in Python)."""
    return type(a) is type(b) and a == b


# ------------------------------------------------------------------------------ scalars
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("NA", "NA"),
        (np.str_("NA"), "NA"),
        (True, True),
        (np.bool_(False), False),
        (3, 3),
        (np.int64(3), 3),
        (np.uint8(7), 7),
        (2.5, 2.5),
        (np.float32(0.5), 0.5),
        (-0.0, -0.0),
    ],
)
def test_json_scalar_gives_python_scalars(value, expected):
    assert _same(json_scalar(value, "x"), expected)


@pytest.mark.parametrize(
    ("value", "exc", "message"),
    [
        (float("nan"), ValueError, "categories[0] must be finite, got nan"),
        (np.float64(-np.inf), ValueError, "categories[0] must be finite, got -inf"),
        (None, TypeError, "categories[0] must be a str, int, float or bool (JSON-serialisable), "),
        ([1], TypeError, "got list [1]"),
        (b"a", TypeError, "got bytes b'a'"),
        (1 + 2j, TypeError, "got complex (1+2j)"),
    ],
)
def test_json_scalar_refuses(value, exc, message):
    with pytest.raises(exc) as info:
        json_scalar(value, "categories[0]")
    assert message in str(info.value)


def test_check_token_check_bool_and_check_integer():
    assert check_token(None, "Numeric") is None
    assert _same(check_token(np.int64(-9), "Numeric"), -9)
    with pytest.raises(ValueError, match="^Numeric: missing token must be finite, got nan$"):
        check_token(np.nan, "Numeric")
    assert _same(check_bool(np.bool_(True), "clip"), True)
    with pytest.raises(TypeError, match="^clip must be True or False, got int 1$"):
        check_bool(1, "clip")
    assert _same(check_integer(np.int32(4), "lo"), 4)
    with pytest.raises(TypeError, match="^lo must be an integer, got bool True$"):
        check_integer(True, "lo")
    with pytest.raises(TypeError, match="^lo must be an integer, got float 4.0$"):
        check_integer(4.0, "lo")


def test_show_values_and_column_label():
    assert show_values(["a", "b"]) == "'a', 'b'"
    assert show_values([np.float64(2.5), np.int64(3)]) == "2.5, 3"  # Python reprs
    many = list(range(MAX_SHOWN + 3))
    assert show_values(iter(many)) == "0, 1, 2, 3, 4 (and 3 more)"
    assert show_values([]) == ""
    assert column_label(None) == "value" and column_label("age") == "column 'age'"


# ---------------------------------------------------------------------------------- columns
def test_as_series_takes_one_dimensional_input_only():
    s = pd.Series([1, 2], index=[5, 6])
    assert as_series(s, "a") is s  # kept as given, index and all
    pd.testing.assert_series_equal(as_series(np.array([1.5, 2.5]), "a"), pd.Series([1.5, 2.5]))
    pd.testing.assert_series_equal(as_series(("x", "y"), None), pd.Series(["x", "y"]))
    for bad in (pd.DataFrame({"a": [1]}), {"a": 1}, np.zeros((2, 2)), 3):
        with pytest.raises(TypeError, match="^column 'a': expected a 1-D array-like of values$"):
            as_series(bad, "a")


def test_token_mask_never_confuses_a_string_or_bool_token_with_numbers():
    assert token_mask(pd.Series([1, -9, 3]), -9).tolist() == [False, True, False]
    assert token_mask(pd.Series([1.0, -9.0, np.nan]), -9).tolist() == [False, True, False]
    assert token_mask(pd.Series([1, 0, 1]), True).tolist() == [False, False, False]
    assert token_mask(pd.Series([1, 0]), "1").tolist() == [False, False]
    assert token_mask(pd.Series(["a", "NA", None]), "NA").tolist() == [False, True, False]
    assert token_mask(pd.Series([True, False]), False).tolist() == [False, True]
    assert token_mask(pd.Series(["a", "b"]), None).tolist() == [False, False]
    nullable = pd.Series([1, None, -9], dtype="Int64")
    assert token_mask(nullable, -9).tolist() == [False, False, True]


def test_token_mask_never_confuses_bool_and_int_in_an_object_column():
    mixed = pd.Series([True, 1, "1"], dtype=object)
    assert token_mask(mixed, 1).tolist() == [False, True, False]


def test_float_values_of_numeric_and_object_columns():
    x = float_values(pd.Series([1, 2, -9]), -9, "a", "Numeric")
    np.testing.assert_array_equal(x, [1.0, 2.0, np.nan])
    obj = pd.Series([1.5, "?", None, 20], dtype=object)
    np.testing.assert_array_equal(float_values(obj, "?", "a", "Numeric"), [1.5, np.nan, np.nan, 20])
    np.testing.assert_array_equal(
        float_values(pd.Series([1, None], dtype="Int64"), None, "a", "Ordinal"), [1.0, np.nan]
    )
    only_tokens = pd.Series(["?", None], dtype=object)
    np.testing.assert_array_equal(float_values(only_tokens, "?", "a", "Numeric"), [np.nan] * 2)


def test_float_values_of_a_text_column_of_missing_tokens_only():
    only_tokens = pd.Series(["?", None])
    assert only_tokens.dtype == "str"
    np.testing.assert_array_equal(float_values(only_tokens, "?", "a", "Numeric"), [np.nan] * 2)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            pd.Series([True, False]),
            "column 'a': Numeric expects numbers, got a boolean column; use",
        ),
        (
            pd.Series(["1", "x", 2], dtype=object),
            "column 'a': Numeric expects numbers, got non-numeric value(s) '1', 'x' (dtype object)",
        ),
        (
            pd.Series([2.0, True], dtype=object),
            "column 'a': Numeric expects numbers, got non-numeric value(s) True (dtype object)",
        ),
    ],
)
def test_float_values_refuses_what_is_no_number(values, message):
    with pytest.raises(TypeError) as info:
        float_values(values, None, "a", "Numeric")
    assert str(info.value).startswith(message)


def test_missing_rows_need_a_token():
    x = np.array([1.0, np.nan, np.nan])
    assert missing_rows(x, "NA", "a", "Numeric").tolist() == [False, True, True]
    assert missing_rows(x[:1], None, "a", "Numeric").tolist() == [False]  # none missing
    with pytest.raises(ValueError, match=r"^column 'a': 2 missing value\(s\) \(NaN/None\) but "):
        missing_rows(x, None, "a", "Numeric")


# ------------------------------------------------------------------------------------ codes
def test_check_codes_gives_int64_codes():
    codes = check_codes([0, 2.0, 1], 3, "a")
    assert codes.dtype == np.int64 and codes.tolist() == [0, 2, 1]
    assert check_codes(pd.Series([1, 1], dtype="Int64"), 2, "a").tolist() == [1, 1]


@pytest.mark.parametrize(
    ("codes", "exc", "message"),
    [
        ([0, 3], ValueError, r"column 'a': code\(s\) 3.0 are not integers in 0..2 \(the column"),
        ([-1, 0.5, -1], ValueError, r"code\(s\) -1.0, 0.5 are not integers in 0..2"),
        ([0, np.nan], ValueError, r"code\(s\) nan are not"),
        ([0, np.inf], ValueError, r"code\(s\) inf are not"),
        ([True, False], TypeError, "column 'a': codes must be integers, got dtype bool"),
        (["0", "1"], TypeError, "codes must be integers, got dtype"),
    ],
)
def test_check_codes_refuses(codes, exc, message):
    with pytest.raises(exc, match=message):
        check_codes(codes, 3, "a")


def test_numbers_out_is_int64_only_when_integer_and_nothing_is_missing():
    values = np.array([1.0, 2.0, 3.0])
    none, second = np.zeros(3, bool), np.array([False, True, False])
    out = numbers_out(values, none, integer=True)
    assert out.dtype == np.int64 and out.tolist() == [1, 2, 3]
    out = numbers_out(values, second, integer=True)
    assert out.dtype == np.float64 and np.array_equal(out, [1.0, np.nan, 3.0], equal_nan=True)
    assert numbers_out(values, none, integer=False).dtype == np.float64
    assert values.tolist() == [1.0, 2.0, 3.0]  # the input is not changed


@pytest.mark.parametrize(
    ("x", "text"),
    [(0.1, "0.1"), (10.0, "10"), (-2.5, "-2.5"), (1e-7, "1e-07"), (1234567.0, "1.23457e+06")],
)
def test_format_number_is_the_shortest_general_format(x, text):
    assert format_number(x) == text


def test_bool_safe_keys_keep_booleans_apart_from_numbers():
    keys = bool_safe_keys(pd.Series([True, 1, 0.0, False, None, "a"], dtype=object))
    assert keys.tolist()[:4] == [("bool", True), 1, 0.0, ("bool", False)]
    assert pd.factorize(keys)[0].tolist() == [0, 1, 2, 3, -1, 4]  # pandas alone: [0, 0, 1, 1, …]
    assert bool_safe_keys(pd.Series([True, False])).tolist() == [("bool", True), ("bool", False)]
    ints = pd.Series([1, 0])
    assert bool_safe_keys(ints) is ints  # no boolean can hide in a numeric column
