"""synthtrust.importance.forest_score against scikit-learn: the forest's own predict_proba and score, and
sklearn's permutation importance with its default scorer, bitwise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.inspection import permutation_importance

from synthtrust.importance import feature_importance, forest_score
from synthtrust.importance.forest_score import ForestAccuracy


def _table(n_classes: int, seed: int = 0, n: int = 300):
    """Integer, one-hot and float columns; few trees so that vote ties (0.5 / 0.5) occur."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "flag": rng.integers(0, 2, n),
            "level_a": rng.integers(0, 2, n),
            "score": rng.normal(size=n).round(1),
            "noise": rng.normal(size=n),
        },
        index=rng.permutation(n) + 1000,  # not a RangeIndex: sklearn keeps the index on permuting
    )
    latent = 0.05 * X["age"] + X["flag"] - X["score"] + rng.normal(size=n)
    y = pd.Series(np.digitize(latent, np.quantile(latent, np.linspace(0, 1, n_classes + 1)[1:-1])))
    return X, y.set_axis(X.index)


@pytest.mark.parametrize(
    ("cls", "n_classes"),
    [(RandomForestClassifier, 2), (RandomForestClassifier, 3), (ExtraTreesClassifier, 4)],
)
def test_probabilities_and_accuracy_equal_the_forests_own_on_tables_changed_anywhere(
    cls, n_classes
):
    X, y = _table(n_classes)
    model = cls(n_estimators=6, random_state=1).fit(X.iloc[:200], y.iloc[:200])
    test, y_test = X.iloc[200:], y.iloc[200:]
    scorer = ForestAccuracy(model, test)
    rng = np.random.default_rng(5)
    ties = 0
    for trial in range(12):
        changed = test.copy()
        for col in rng.choice(test.columns, size=1 + trial % 3, replace=False):
            rows = rng.random(len(test)) < 0.4
            changed.loc[rows, col] = rng.permutation(test[col].to_numpy())[rows]
        if trial == 0:
            changed = test.copy()  # nothing changed: the reference's own probabilities
        proba = model.predict_proba(changed)
        ties += int(np.sum(np.sort(proba, axis=1)[:, -1] == np.sort(proba, axis=1)[:, -2]))
        assert np.array_equal(scorer.predict_proba(changed), proba)
        assert scorer(model, changed, y_test) == model.score(changed, y_test)
    assert ties > 0  # argmax ties were met, and broken as the forest breaks them


@pytest.mark.parametrize("n_classes", [2, 3])
def test_permutation_importance_equals_sklearns_default_scorer_bitwise(n_classes):
    X, y = _table(n_classes, seed=3, n=400)
    model = RandomForestClassifier(n_estimators=25, random_state=0).fit(X.iloc[:250], y.iloc[:250])
    test, y_test = X.iloc[250:], y.iloc[250:]
    ours = permutation_importance(
        model, test, y_test, scoring=ForestAccuracy(model, test), n_repeats=4, random_state=9
    )
    ref = permutation_importance(model, test, y_test, n_repeats=4, random_state=9)
    assert np.array_equal(ours.importances, ref.importances)
    assert np.any(ref.importances != 0)
    got = feature_importance(model, test, y_test, method="permutation", n_repeats=4, random_state=2)
    seed = int(np.random.default_rng(2).integers(2**31 - 1))
    expected = permutation_importance(model, test, y_test, n_repeats=4, random_state=seed)
    assert np.array_equal(got.to_numpy(), expected.importances_mean)


def test_feature_importance_scores_a_forest_with_the_forest_scorer_only(monkeypatch):
    X, y = _table(2, seed=4)
    calls = []
    original = ForestAccuracy.__call__
    monkeypatch.setattr(
        ForestAccuracy, "__call__", lambda self, *a: calls.append(1) or original(self, *a)
    )
    forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    feature_importance(forest, X, y, method="permutation", n_repeats=2, random_state=0)
    assert len(calls) == 1 + 2 * X.shape[1]  # the baseline, then every column twice
    boosted = GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert not forest_score.applies(boosted)
    feature_importance(boosted, X, y, method="permutation", n_repeats=2, random_state=0)
    assert len(calls) == 1 + 2 * X.shape[1]


def test_bad_models_and_tables_are_refused_by_name():
    X, y = _table(2, seed=6)
    forest = RandomForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(TypeError, match="GradientBoostingClassifier"):
        ForestAccuracy(GradientBoostingClassifier(n_estimators=2).fit(X, y), X)
    with pytest.raises(TypeError, match="RandomForestClassifier"):
        ForestAccuracy(RandomForestClassifier(), X)  # not fitted
    scorer = ForestAccuracy(forest, X)
    with pytest.raises(ValueError, match="index and columns"):
        scorer.predict_proba(X[["age", "flag", "level_a", "noise", "score"]])
    other = RandomForestClassifier(n_estimators=2, random_state=1).fit(X, y)
    with pytest.raises(ValueError, match="the model it was built for"):
        scorer(other, X, y)
