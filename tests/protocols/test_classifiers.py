"""Tests of ``synthtrust.protocols.classifiers``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _protocol_data import TARGET, mixed_frame

from synthtrust import protocols as P


# --------------------------------------------------------------------------------------------
# classifiers
# --------------------------------------------------------------------------------------------
def test_make_classifier_matches_the_paper():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.svm import LinearSVC

    rf = P.make_classifier("random_forest", 3).named_steps["classifier"]
    svm = P.make_classifier("linear_svm", 3).named_steps["classifier"]
    knn = P.make_classifier("knn").named_steps["classifier"]
    assert (
        isinstance(rf, RandomForestClassifier) and rf.n_estimators == 100 and rf.random_state == 3
    )
    assert isinstance(svm, LinearSVC) and svm.C == 1.0
    assert isinstance(knn, KNeighborsClassifier) and knn.n_neighbors == 5
    with pytest.raises(ValueError, match="'svm'.*random_forest, linear_svm, knn"):
        P.make_classifier("svm")


def test_fit_classifier_is_deterministic_given_random_state(pima_split):
    train, test = pima_split
    X = test.drop(columns=TARGET)
    a = P.fit_classifier("random_forest", train, TARGET, 11).predict_proba(X)
    b = P.fit_classifier("random_forest", train, TARGET, 11).predict_proba(X)
    c = P.fit_classifier("random_forest", train, TARGET, 12).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_preprocessing_one_hot_and_standardise():
    df = mixed_frame()
    model = P.fit_classifier("linear_svm", df, "y", 0, categorical=["code"])
    pre = model.named_steps["preprocess"]
    cols = {name: list(c) for name, _, c in pre.transformers_ if name != "remainder"}
    assert cols["numeric"] == ["x1"]
    assert cols["categorical"] == ["colour", "flag", "code"]
    Z = pre.transform(df.drop(columns="y"))
    # x1: median-imputed then z-scored on the training data
    x = df["x1"].fillna(df["x1"].median()).to_numpy()
    np.testing.assert_allclose(Z[:, 0], (x - x.mean()) / x.std(), rtol=1e-12)
    # colour: blue, green, red, missing; flag: False, True; code: 0..3  -> 1 + 4 + 2 + 4 columns
    assert Z.shape == (len(df), 11)
    np.testing.assert_array_equal(Z[:, 1:].sum(axis=1), 3)
