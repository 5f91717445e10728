"""Tests of ``synthtrust.importance.scores``: MDI, permutation and SHAP importance against
scikit-learn and shap, the ranking and the comparison of two importance vectors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.tree import DecisionTreeRegressor

from synthtrust.importance import (
    compare_importances,
    feature_importance,
    importance_ranking,
)

S, T = list("abcdefg"), list("zcavwxy")  # Webber et al. (2010), Fig. 5


@pytest.fixture(scope="module")
def forest():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(400, 4)), columns=["strong", "weak", "noise1", "noise2"])
    y = (X["strong"] + 0.3 * X["weak"] + 0.2 * rng.normal(size=400) > 0).astype(int)
    model = RandomForestClassifier(n_estimators=40, random_state=0).fit(X, y)
    return model, X, y


def test_feature_importance_mdi_and_permutation(forest):
    model, X, y = forest
    mdi = feature_importance(model, X, method="mdi")
    assert np.array_equal(mdi.to_numpy(), model.feature_importances_)
    assert importance_ranking(mdi)[:2] == ["strong", "weak"]
    perm = feature_importance(model, X, y, method="permutation", n_repeats=5, random_state=7)
    seed = int(np.random.default_rng(7).integers(2**31 - 1))
    ref = permutation_importance(model, X, y, n_repeats=5, random_state=seed).importances_mean
    assert np.array_equal(perm.to_numpy(), ref)  # the forest path: bitwise sklearn
    assert importance_ranking(perm)[0] == "strong"


def test_feature_importance_shap_of_a_stump_by_hand():
    # a depth-1 tree on x0: SHAP of x0 is f(x) − E f, of x1 zero, so mean |SHAP| is known exactly
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"x0": rng.normal(size=300), "x1": rng.normal(size=300)})
    y = (X["x0"] > 0.2).astype(float) * 3.0 + 1.0
    stump = DecisionTreeRegressor(max_depth=1).fit(X, y)
    pred = stump.predict(X)
    shap_imp = feature_importance(stump, X, method="shap")
    assert shap_imp["x0"] == pytest.approx(np.mean(np.abs(pred - pred.mean())), rel=1e-9)
    assert shap_imp["x1"] == pytest.approx(0.0, abs=1e-12)


@pytest.fixture(scope="module")
def three_class_forest():
    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.normal(size=(240, 4)), columns=["a", "b", "c", "d"])
    y = np.digitize(X["a"] + 0.6 * X["b"] * X["c"] + 0.3 * rng.normal(size=240), [-0.5, 0.5])
    model = RandomForestClassifier(n_estimators=15, max_depth=5, random_state=0).fit(X, y)
    return model, X.iloc[:60]


def test_feature_importance_shap_multiclass_against_shap_directly(three_class_forest):
    import shap

    model, X = three_class_forest
    assert len(model.classes_) == 3
    phi = np.asarray(shap.TreeExplainer(model).shap_values(X))  # (rows, features, classes)
    assert phi.shape == (60, 4, 3)
    by_hand_mean = np.abs(phi).mean(axis=2).mean(axis=0)  # Giles et al.: |φ| averaged over classes
    by_hand_last = np.abs(phi[:, :, 2]).mean(axis=0)
    mean = feature_importance(model, X, method="shap", multiclass="mean")
    last = feature_importance(model, X, method="shap", multiclass="last")
    np.testing.assert_allclose(mean.to_numpy(), by_hand_mean, rtol=1e-12)
    np.testing.assert_allclose(last.to_numpy(), by_hand_last, rtol=1e-12)
    pd.testing.assert_series_equal(feature_importance(model, X, method="shap"), mean)  # the default
    assert not np.allclose(mean.to_numpy(), last.to_numpy())  # the option matters with 3 classes
    assert list(mean.index) == ["a", "b", "c", "d"] and mean.name == "shap"


def test_feature_importance_shap_binary_classes_agree(forest):
    model, X, _ = forest
    mean = feature_importance(model, X.iloc[:40], method="shap", multiclass="mean")
    last = feature_importance(model, X.iloc[:40], method="shap", multiclass="last")
    np.testing.assert_allclose(mean.to_numpy(), last.to_numpy(), rtol=1e-9)  # |φ_0| = |φ_1|


def test_feature_importance_bad_input(forest):
    model, X, y = forest
    with pytest.raises(ValueError, match="method must be one of"):
        feature_importance(model, X, method="gini")
    with pytest.raises(ValueError, match="needs y"):
        feature_importance(model, X, method="permutation")
    with pytest.raises(TypeError, match="DataFrame"):
        feature_importance(model, X.to_numpy())
    with pytest.raises(ValueError, match="feature_importances_"):
        feature_importance(object(), X, method="mdi")
    with pytest.raises(
        ValueError, match=r"multiclass must be one of \('mean', 'last'\), got 'sum'"
    ):
        feature_importance(model, X, method="shap", multiclass="sum")
    with pytest.raises(ValueError, match="n_repeats must be >= 1"):
        feature_importance(model, X, y, method="permutation", n_repeats=0)


def test_feature_importance_shap_is_shaps_on_the_fast_path_and_off_it(forest):
    """A fully grown forest goes through synthtrust.importance.treeshap, a boosted model through shap
    itself: both give shap's mean |φ| (tests/test_treeshap.py checks the φ themselves)."""
    import shap
    from sklearn.ensemble import GradientBoostingClassifier

    model, X, y = forest
    assert model.max_depth is None  # fully grown trees
    rows = X.iloc[:40]
    phi = np.asarray(shap.TreeExplainer(model).shap_values(rows))  # (rows, features, classes)
    for multiclass in ("mean", "last"):
        ours = feature_importance(model, rows, method="shap", multiclass=multiclass).to_numpy()
        theirs = np.abs(phi[..., -1]) if multiclass == "last" else np.abs(phi).mean(axis=2)
        assert np.max(np.abs(ours - theirs.mean(axis=0))) <= 1e-9
    boosted = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    phi = shap.TreeExplainer(boosted).shap_values(rows)
    got = feature_importance(boosted, rows, method="shap")
    np.testing.assert_allclose(got.to_numpy(), np.abs(phi).mean(axis=0), rtol=1e-12)


def test_importance_ranking_ties_keep_order():
    assert importance_ranking(pd.Series({"a": 1.0, "b": 2.0, "c": 1.0})) == ["b", "a", "c"]
    with pytest.raises(ValueError, match="NaN"):
        importance_ranking({"a": np.nan})


def test_compare_importances_by_hand():
    a = pd.Series({"x": 3.0, "y": 4.0})
    b = pd.Series({"y": 1.0, "x": 0.0})
    out = compare_importances(a, b)
    assert out["cosine"] == pytest.approx(0.8)
    assert out["l2"] == pytest.approx(np.hypot(0.6, 0.8 - 1.0))
    pa = np.array([0.6, 0.8]) + 1e-20
    pb = np.array([0.0, 1.0]) + 1e-20
    pa, pb = pa / pa.sum(), pb / pb.sum()
    assert out["kl"] == pytest.approx(np.sum(pa * np.log(pa / pb)))
    same = compare_importances(a, a)
    assert same["cosine"] == pytest.approx(1.0) and same["l2"] == 0.0 and same["kl"] == 0.0
    with pytest.raises(ValueError, match="same features"):
        compare_importances(a, pd.Series({"x": 1.0, "z": 1.0}))
    with pytest.raises(ValueError, match="not all zero"):
        compare_importances(a, pd.Series({"x": 0.0, "y": 0.0}))
