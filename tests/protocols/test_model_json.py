"""Tests of ``synthtrust.protocols.model_json``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import json

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
