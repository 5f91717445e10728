"""Tests of ``synthtrust.importance.treeshap``, the exact path-dependent TreeSHAP behind
``feature_importance(method="shap")``: every φ equals the Shapley values of Lundberg et al.'s
conditional expectation, enumerated over all subsets by brute force on a deep tree, and
``shap.TreeExplainer``'s values to 1e-9 on fully grown forests (binary, three-class,
regression, extra trees), a multi-output regression tree, a single-leaf tree and rows with
missing values; blocks of rows give the rows of the whole bitwise, and so does computing
repeated rows once; :func:`fast_path_applies`
leaves other models and perturbations to shap. That ``feature_importance`` averages these
values is tested in tests/test_importance.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeRegressor

from synthtrust.importance.treeshap import (
    BLOCK,
    _every_row,
    distinct_rows,
    fast_path_applies,
    tree_shap_values,
)

#: |Δφ| allowed between synthtrust.importance.treeshap and shap (both exact; about 1e-15 is seen)
SHAP_TOL = 1e-9


def _shapley_by_enumeration(tree, x):
    """Path-dependent SHAP of one row by brute force: the conditional expectation of Lundberg et
    al. (2020, Alg. 1, EXPVALUE) for every subset S, weighted |S|!(M − |S| − 1)!/M!."""
    t = tree.tree_
    x = x.astype(np.float32)
    n_features = x.shape[0]

    def expvalue(node, subset):
        if t.children_left[node] < 0:
            return t.value[node, 0, 0]
        left, right = t.children_left[node], t.children_right[node]
        f = t.feature[node]
        if f in subset:
            return expvalue(left if x[f] <= t.threshold[node] else right, subset)
        w = t.weighted_n_node_samples
        return (w[left] * expvalue(left, subset) + w[right] * expvalue(right, subset)) / w[node]

    phi = np.zeros(n_features)
    for i in range(n_features):
        others = [j for j in range(n_features) if j != i]
        for size in range(n_features):
            weight = math.factorial(size) * math.factorial(n_features - size - 1)
            weight /= math.factorial(n_features)
            for subset in itertools.combinations(others, size):
                gain = expvalue(0, set(subset) | {i}) - expvalue(0, set(subset))
                phi[i] += weight * gain
    return phi


def test_treeshap_equals_brute_force_shapley_on_a_deep_tree():
    import shap

    rng = np.random.default_rng(11)
    X = rng.normal(size=(500, 4))
    y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + 0.3 * rng.normal(size=500)
    tree = DecisionTreeRegressor(max_depth=8, random_state=0).fit(X, y)
    t = tree.tree_
    assert t.max_depth == 8 > X.shape[1]  # paths split on some feature more than once
    explainer = shap.TreeExplainer(tree)
    rows = X[:12]
    phi = tree_shap_values(explainer.model, rows)[..., 0]
    oracle = np.array([_shapley_by_enumeration(tree, x) for x in rows])
    assert np.max(np.abs(phi - oracle)) <= SHAP_TOL
    # efficiency: φ sums to f(x) − E f
    np.testing.assert_allclose(phi.sum(axis=1), tree.predict(rows) - explainer.expected_value)


def _fully_grown(kind):
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestRegressor

    rng = np.random.default_rng(12)
    n = 400
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{i}" for i in range(5)])
    X["onehot"] = (rng.random(n) < 0.3).astype(float)  # a binary column, as Adult's dummies
    signal = X["x0"] + 0.7 * X["x1"] * X["x2"] + X["onehot"] + 0.5 * rng.normal(size=n)
    if kind == "regressor":
        return RandomForestRegressor(n_estimators=8, random_state=0).fit(X, signal), X
    if kind == "extra-trees":
        return ExtraTreesClassifier(n_estimators=8, random_state=0).fit(X, signal > 0), X
    classes = 2 if kind == "binary" else 3
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1]))
    return RandomForestClassifier(n_estimators=12, random_state=0).fit(X, y), X


@pytest.mark.parametrize("kind", ["binary", "three-class", "regressor", "extra-trees"])
def test_treeshap_equals_shap_on_fully_grown_forests(kind):
    import shap

    model, X = _fully_grown(kind)
    assert all(e.get_depth() >= 10 for e in model.estimators_)  # max_depth None: deep trees
    explainer = shap.TreeExplainer(model)
    assert fast_path_applies(explainer, model)
    rows = X.iloc[:150]
    ref = np.asarray(explainer.shap_values(rows))
    ref = ref if ref.ndim == 3 else ref[..., None]  # (rows, features, outputs)
    phi = tree_shap_values(explainer.model, rows)
    assert phi.shape == ref.shape and phi.shape[:2] == (150, 6)
    assert np.max(np.abs(phi - ref)) <= SHAP_TOL


def test_treeshap_equals_shap_on_a_multi_output_regression_tree():
    """Two outputs whose sum varies over the leaves: each output is computed, none derived."""
    import shap

    rng = np.random.default_rng(14)
    X = rng.normal(size=(300, 3))
    Y = np.c_[X[:, 0] + X[:, 1] ** 2, 3 * np.sin(X[:, 2]) - X[:, 0]]
    tree = DecisionTreeRegressor(max_depth=7, random_state=0).fit(X, Y)
    explainer = shap.TreeExplainer(tree)
    assert fast_path_applies(explainer, tree)
    ref = np.asarray(explainer.shap_values(X[:40]))
    phi = tree_shap_values(explainer.model, X[:40])
    assert phi.shape == ref.shape == (40, 3, 2)
    assert np.max(np.abs(phi - ref)) <= SHAP_TOL
    np.testing.assert_allclose(phi.sum(axis=1), tree.predict(X[:40]) - explainer.expected_value)


def test_a_single_leaf_tree_gives_zero_for_every_feature():
    import shap

    X = np.random.default_rng(15).normal(size=(50, 3))
    stump = DecisionTreeRegressor().fit(X, np.full(50, 2.5))  # a constant target: one leaf
    assert stump.tree_.node_count == 1
    explainer = shap.TreeExplainer(stump)
    assert fast_path_applies(explainer, stump)
    phi = tree_shap_values(explainer.model, X[:5])
    assert phi.shape == (5, 3, 1)
    assert np.array_equal(phi, np.zeros((5, 3, 1)))


def test_treeshap_missing_values_take_shaps_branch():
    import shap

    rng = np.random.default_rng(13)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + X[:, 1] + rng.normal(size=300) > 0).astype(int)
    X[rng.random(X.shape) < 0.15] = np.nan
    model = RandomForestClassifier(n_estimators=6, random_state=0).fit(X, y)
    explainer = shap.TreeExplainer(model)
    ref = explainer.shap_values(X[:80])
    assert np.max(np.abs(tree_shap_values(explainer.model, X[:80]) - ref)) <= SHAP_TOL


def test_treeshap_blocks_of_rows_give_the_rows_of_the_whole():
    import shap

    model, X = _fully_grown("binary")
    ens = shap.TreeExplainer(model).model
    whole = tree_shap_values(ens, X.iloc[: BLOCK + 30])
    parts = [
        tree_shap_values(ens, X.iloc[a:b])
        for a, b in [(0, 7), (7, BLOCK + 1), (BLOCK + 1, BLOCK + 30)]
    ]
    assert np.array_equal(whole, np.concatenate(parts))  # bitwise: rows are independent


def test_repeated_rows_get_the_values_of_the_row_by_row_computation_bitwise():
    import shap

    model, X = _fully_grown("three-class")
    ens = shap.TreeExplainer(model).model
    rows = X.to_numpy()[:50].copy()
    rows[3, 0] = np.nan  # NaN rows repeat too
    rng = np.random.default_rng(5)
    repeated = rows[rng.integers(0, 50, size=3 * BLOCK)]  # ~50 distinct of 192, shuffled
    first, inverse = distinct_rows(repeated.astype(np.float32))
    assert len(first) < len(repeated) and np.array_equal(
        repeated[first][inverse], repeated, equal_nan=True
    )
    dedup = tree_shap_values(ens, repeated)
    one_by_one = np.concatenate([_every_row(ens, r[None].astype(np.float32)) for r in repeated])
    assert np.array_equal(dedup, one_by_one)  # bitwise
    assert np.array_equal(dedup, _every_row(ens, repeated.astype(np.float32)))


def test_distinct_rows_by_their_bits():
    rows = np.array([[1.0, 0.0], [1.0, -0.0], [np.nan, 2.0], [1.0, 0.0], [np.nan, 2.0]])
    first, inverse = distinct_rows(rows)
    assert first.tolist() == [0, 1, 2]  # -0.0 differs from 0.0; equal NaNs are one row
    assert inverse.tolist() == [0, 1, 2, 0, 2]
    assert [a.tolist() for a in distinct_rows(np.empty((0, 3)))] == [[], []]
    assert [a.tolist() for a in distinct_rows(np.empty((4, 0)))] == [[0], [0, 0, 0, 0]]


def test_treeshap_leaves_other_models_to_shap():
    import shap
    from sklearn.ensemble import GradientBoostingClassifier

    model, X = _fully_grown("binary")
    data = shap.TreeExplainer(model, X.iloc[:50], feature_perturbation="interventional")
    assert not fast_path_applies(data, model)
    boosted = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, model.predict(X))
    assert not fast_path_applies(shap.TreeExplainer(boosted), boosted)
