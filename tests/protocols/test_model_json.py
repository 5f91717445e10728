"""Tests of ``synthtrust.protocols.model_json``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
from _protocol_data import TARGET, mixed_frame

from synthtrust import protocols as P


# --------------------------------------------------------------------------------------------
# models as JSON data and the curator
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", P.CLASSIFIERS)
def test_exported_model_predicts_like_sklearn_pima(pima_split, name):
    train, test = pima_split
    model = P.fit_classifier(name, train, TARGET, 5)
    spec = P.export_model(model)
    text = json.dumps(spec, allow_nan=False)  # strictly JSON: nothing but data
    X = test.drop(columns=TARGET)
    expected = model.predict(X)
    np.testing.assert_array_equal(P.predict_exported(text, X).astype(np.int64), expected)
    np.testing.assert_array_equal(P.predict_exported(spec, X).astype(np.int64), expected)


@pytest.mark.parametrize("name", P.CLASSIFIERS)
def test_exported_model_predicts_like_sklearn_mixed_types(name):
    df = mixed_frame(400, seed=1)
    train, test = df.iloc[:300], df.iloc[300:].reset_index(drop=True)
    # a category unseen in training and a missing value in the test set
    test.loc[0, "colour"] = "purple"
    test.loc[1, "x1"] = np.nan
    model = P.fit_classifier(name, train, "y", 2, categorical=["code"])
    spec = json.loads(json.dumps(P.export_model(model), allow_nan=False))
    X = test.drop(columns="y")
    np.testing.assert_array_equal(P.predict_exported(spec, X), model.predict(X).astype(object))


# --------------------------------------------------------------------------------------------
# encoded arrays
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", sorted(P.model_json.ARRAY_DTYPES))
def test_encoded_arrays_round_trip_value_for_value(dtype):
    values = np.random.default_rng(0).normal(size=(7, 3)) * 1e3
    if dtype.startswith("<i"):
        values = np.rint(values)
    spec = json.loads(json.dumps(P.model_json.encode_array(values, dtype)))  # JSON data only
    got = P.model_json.decode_array(spec)
    assert got.dtype == np.dtype(dtype) and got.shape == (7, 3)
    np.testing.assert_array_equal(got, values.astype(np.dtype(dtype)))


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("dtype", "|O", "dtype must be one of"),
        ("dtype", ">f8", "dtype must be one of"),
        ("shape", [2, -1], "shape must be a list of integers"),
        ("shape", [2, True], "shape must be a list of integers"),
        ("shape", "2", "shape must be a list of integers"),
        ("base64", "not base64!", "base64 must be base64 text"),
        ("base64", 12, "base64 must be base64 text"),
        ("shape", [3, 3], r"48 bytes for shape \[3, 3\] of <f8 \(72 expected\)"),
    ],
)
def test_bad_encoded_arrays_are_refused_naming_the_field(field, value, match):
    spec = P.model_json.encode_array(np.ones((2, 3)), "<f8") | {field: value}
    with pytest.raises(ValueError, match=f"model field trees\\[0\\]: {match}"):
        P.model_json.decode_array(spec, "trees[0]")
    with pytest.raises(ValueError, match="dtype must be one of"):
        P.model_json.encode_array([1.0], "float64")


def test_a_forest_travels_as_encoded_arrays_and_lists_are_still_read(pima_split):
    """The exported forest's node arrays are encoded (in memory under half the lists of Python
    numbers they replaced, measured by tracemalloc); the same description with lists of numbers
    under format 1 predicts the same, and a tree whose arrays disagree in length is refused."""
    train, test = pima_split
    model = P.fit_classifier("random_forest", train, TARGET, 5)
    tracemalloc.start()
    spec = P.export_model(model)
    encoded = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert spec["format"] == P.MODEL_FORMAT == "synthtrust.protocols.model/2"
    tree = spec["estimator"]["trees"][0]
    assert set(tree["left"]) == {"dtype", "shape", "base64"}
    lists = json.loads(json.dumps(spec))
    lists["format"] = "synthtrust.protocols.model/1"
    tracemalloc.start()
    for t in lists["estimator"]["trees"]:
        for key, value in t.items():
            t[key] = P.model_json.decode_array(value).tolist()
    as_lists = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert encoded < 0.5 * as_lists
    X = test.drop(columns=TARGET)
    np.testing.assert_array_equal(P.predict_exported(lists, X), P.predict_exported(spec, X))
    np.testing.assert_array_equal(P.predict_exported(spec, X).astype(np.int64), model.predict(X))
    lists["estimator"]["trees"][0]["threshold"].pop()
    with pytest.raises(ValueError, match=r"trees\[0\] has arrays of inconsistent lengths"):
        P.predict_exported(lists, X)
