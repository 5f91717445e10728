"""Tests of ``synthtrust.studies.feature_importance.models`` (the model of giles2022 App. A and
the similarity of two importance vectors). The oracles: the paper's measures (extrapolated RBO,
corrRBO, cosine, L2) computed by hand on three features; the AUC conventions against
``sklearn.metrics.roc_auc_score`` on fixed probabilities; a forest on a target that is a
function of one column, whose MDI is exactly (1, 0), whose permutation importance of a constant
column is exactly 0 and whose test split is ``train_test_split``'s; the rows each importance
method is given (recorded by a stand-in for ``feature_importance``, which TreeSHAP would take
seconds to compile for); the JSON of an importance vector round-tripping every float.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from synthtrust.studies.feature_importance import models
from synthtrust.studies.feature_importance.models import (
    MEASURES,
    compare_rankings,
    fit_importances,
    forest_auc,
    make_forest,
    scores_from_json,
    scores_to_json,
    split_table,
)


def _one_column_target(n: int = 200, seed: int = 0):
    """``y = [a ≥ 2]``, ``b`` constant: every tree splits on ``a`` only."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 4, n), "b": np.zeros(n)})
    return X, pd.Series((X["a"] >= 2).astype(np.int64))


# ------------------------------------------------------------------------ similarity measures
def test_compare_rankings_by_hand():
    real = pd.Series({"a": 0.5, "b": 0.3, "c": 0.2})
    syn = pd.Series({"a": 0.2, "b": 0.5, "c": 0.3})  # ranking b, c, a
    assoc = pd.DataFrame(np.eye(3), index=list("abc"), columns=list("abc"))
    assoc.loc["a", "b"] = assoc.loc["b", "a"] = 0.64
    out = compare_rankings(real, syn, assoc, p=0.8)
    assert sorted(out) == sorted(MEASURES)
    # RBO_ext, k = 3: X = (0, 1, 3); (X_k/k) p^k + (1-p)/p Σ X_d/d p^d
    p = 0.8
    rbo = p**3 + (1 - p) / p * (0 + 0.5 * p**2 + 1.0 * p**3)
    assert out["rbo"] == pytest.approx(rbo, abs=1e-12)
    # soft overlaps: depth 1 {a} vs {b}: sqrt(.64) = .8; depth 2 {a,b} vs {b,c}: a-c 0 + b-b 1
    # or a-b .8 + b-c 0 -> 1; depth 3: 3
    corr = p**3 + (1 - p) / p * (0.8 * p + 0.5 * p**2 + 1.0 * p**3)
    assert out["corr_rbo"] == pytest.approx(corr, abs=1e-12)
    ua, ub = real / np.linalg.norm(real), syn / np.linalg.norm(syn)
    assert out["cosine"] == pytest.approx(float(ua @ ub), abs=1e-12)
    assert out["l2"] == pytest.approx(float(np.linalg.norm(ua - ub)), abs=1e-12)
    assert out["corr_rbo"] >= out["rbo"]
    # a constant feature gives NaN associations: they count as 0 (here: plain RBO)
    nan = assoc.astype(float).where(np.eye(3, dtype=bool))
    assert compare_rankings(real, syn, nan, p=0.8)["corr_rbo"] == pytest.approx(rbo)


# ------------------------------------------------------------------------------------- AUC
class _Fixed:
    """A 'model' that predicts fixed probabilities (for the AUC conventions)."""

    def __init__(self, classes, proba):
        self.classes_ = np.asarray(classes)
        self._proba = np.asarray(proba, dtype=float)

    def predict_proba(self, X):
        return self._proba


def test_auc_binary_multiclass_and_unseen_classes():
    y = pd.Series([0, 0, 1, 1])
    m = _Fixed([0, 1], [[0.9, 0.1], [0.6, 0.4], [0.65, 0.35], [0.2, 0.8]])
    assert forest_auc(m, None, y, [0, 1]) == pytest.approx(0.75)
    # a synthetic model that saw only class 0 predicts P(1) = 0: AUC 0.5
    m0 = _Fixed([0], [[1.0]] * 4)
    assert forest_auc(m0, None, y, [0, 1]) == pytest.approx(0.5)
    # three classes: one-vs-one (Hand & Till) on the model's probabilities
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(3), size=30)
    y3 = pd.Series(np.tile([1, 2, 3], 10))
    m3 = _Fixed([1, 2, 3], proba)
    expected = roc_auc_score(y3, proba, multi_class="ovo", labels=[1, 2, 3])
    assert forest_auc(m3, None, y3, [1, 2, 3]) == pytest.approx(expected)
    assert np.isnan(forest_auc(m, None, pd.Series([1, 1, 1, 1]), [0, 1]))


def test_auc_of_a_test_split_with_two_of_three_classes():
    # classes (1, 2, 3), class 3 absent from the test rows: the binary AUC of the two present
    # classes on P(2 | 1 or 2); a row with no mass on either counts as 1/2
    proba = [[0.2, 0.6, 0.2], [0.5, 0.1, 0.4], [0.1, 0.3, 0.6], [0.0, 0.0, 1.0]]
    y = pd.Series([2, 1, 2, 1])
    got = forest_auc(_Fixed([1, 2, 3], proba), None, y, [1, 2, 3])
    assert got == pytest.approx(roc_auc_score(y, [0.75, 1 / 6, 0.75, 0.5]))


# ---------------------------------------------------------------------------- the forest
def test_split_and_forest_are_the_papers():
    X, y = _one_column_target(50)
    X_tr, X_te, y_tr, y_te = split_table(X, y, 0.3, 4)
    ref = train_test_split(X, y, test_size=0.3, random_state=4)
    assert list(X_te.index) == list(ref[1].index) and len(X_te) == 15
    assert list(y_tr.index) == list(X_tr.index)
    forest = make_forest(150, 7)
    assert (forest.n_estimators, forest.random_state, forest.n_jobs) == (150, 7, 1)


def test_fit_importances_of_a_one_column_target():
    X, y = _one_column_target()
    out = fit_importances(X, y, methods=("mdi", "permutation"), rf_n_estimators=5, random_state=3)
    X_test = train_test_split(X, y, test_size=0.3, random_state=3)[1]
    assert list(out["X_test"].index) == list(X_test.index) and len(X_test) == 60
    assert list(out["y_test"].index) == list(X_test.index)
    assert out["model"].n_estimators == 5 and out["model"].random_state == 3
    mdi, pfi = out["importances"]["mdi"], out["importances"]["permutation"]
    # every split is on a: MDI (1, 0); permuting the constant b changes no prediction
    assert list(mdi.index) == list(pfi.index) == ["a", "b"]
    assert mdi.tolist() == [1.0, 0.0]
    assert pfi["b"] == 0.0
    # permuting a: a row keeps its class with probability ~1/2, so accuracy drops from 1 to ~1/2
    assert 0.3 < pfi["a"] < 0.7
    with pytest.raises(ValueError, match="1 class in the training split"):
        fit_importances(X, pd.Series(np.zeros(len(X), dtype=np.int64)), methods=("mdi",))


def test_each_method_gets_its_rows(monkeypatch):
    calls = {}

    def fake(model, rows, y, method, **kwargs):
        calls[method] = (rows, y, kwargs)
        return pd.Series(0.0, index=rows.columns)

    monkeypatch.setattr(models, "feature_importance", fake)
    X, y = _one_column_target(100)
    out = fit_importances(
        X,
        y,
        methods=("shap", "permutation"),
        rf_n_estimators=3,
        pfi_repeats=4,
        shap_rows=7,
        shap_block_rows=2,
        random_state=1,
    )
    X_test = out["X_test"]
    rows, y_shap, kw = calls["shap"]
    # SHAP: the first shap_rows rows of the shuffled test split, no labels, the block size
    pd.testing.assert_frame_equal(rows, X_test.iloc[:7])
    assert y_shap is None and kw["block_rows"] == 2 and kw["multiclass"] == "mean"
    rows, y_pfi, kw = calls["permutation"]
    # permutation: every test row with its own label, pfi_repeats repeats, the one seed
    pd.testing.assert_frame_equal(rows, X_test)
    pd.testing.assert_series_equal(y_pfi, out["y_test"].loc[X_test.index])
    assert kw["n_repeats"] == 4 and kw["random_state"] == 1 and kw["block_rows"] is None
    assert list(out["importances"]) == ["shap", "permutation"]


# ------------------------------------------------------------------------------------ JSON
def test_importance_json_keeps_every_float():
    s = pd.Series({"x": 0.1 + 0.2, "y": 1 / 3, "z": 5e-324})
    back = scores_from_json(scores_to_json(s))
    assert list(back.index) == ["x", "y", "z"] and (back.to_numpy() == s.to_numpy()).all()
    assert scores_from_json("{}").empty
