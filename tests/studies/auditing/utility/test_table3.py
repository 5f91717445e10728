"""Tests of ``synthtrust.studies.auditing.utility.table3`` (Table 3 of houssiau2022, Application 3: the
random forest of health status and the order of its features). The oracles: hand-made
census-code tables in which Health is a function of Age and every other feature is constant, so
that the forest predicts it exactly, its accuracies are shares of test rows counted by hand,
the constant features have a permutation importance of exactly 0 and the feature order is known
("023451": Age, character "1", last); the Jaro similarity of two orders by hand; Table 3's
layout and numbers on the made-up results frame of ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _auditing_utility_data import _fake_results
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from synthtrust.studies.auditing.utility.generators import UTILITY_GENERATORS
from synthtrust.studies.auditing.utility.table3 import (
    APP3_FEATURES,
    APP3_TARGET,
    PAPER_TABLE3,
    app3_metrics,
    permutation_ranking,
    table3,
)

#: Small forests and few permutations: the oracles do not depend on them.
FAST = {"n_estimators": 10, "n_repeats": 2}


def _app3_table(n: int, seed: int, *, shifted: bool = False) -> pd.DataFrame:
    """Census codes of Application 3: Health = Age mod 6 (``shifted``: Ages 0 and 1 get the
    next level instead); the five other features constant."""
    age = np.random.default_rng(seed).integers(0, 8, n)
    health = age % 6
    if shifted:
        health = np.where(age < 2, (age + 1) % 6, health)
    table = pd.DataFrame({c: np.zeros(n, dtype=np.int64) for c in APP3_FEATURES})
    table["Age"] = age
    table[APP3_TARGET] = health
    return table


def test_application_3_orders_the_numeric_features_first():
    # the importance strings' characters: "0" = Hours worked per week, "1" = Age, then the
    # one-hot features in the reference's order
    assert APP3_FEATURES == (
        "Hours worked per week",
        "Age",
        "Marital Status",
        "Occupation",
        "Industry",
        "Region",
    )
    assert APP3_TARGET == "Health"


def test_the_real_model_is_its_own_reference():
    train, test = _app3_table(400, 1), _app3_table(200, 2)
    got = app3_metrics(None, train, test, **FAST)
    assert got == {
        "acc_real": 1.0,
        "acc_synthetic": 1.0,
        "order": "023451",  # five importances of exactly 0 in input order, then Age
        "jaro": 1.0,
        "order_real_test": "023451",
        "jaro_real_test": 1.0,
    }


def test_a_synthetic_model_against_the_real_order():
    train, test = _app3_table(400, 1), _app3_table(200, 2)
    synthetic = _app3_table(400, 3, shifted=True)
    share = float((test["Age"] >= 2).mean())  # the real test rows the shifted rule gets right
    assert 0.5 < share < 0.9
    # Jaro("102345", "023451") by hand: window 2; "1" has no match within it, the other five
    # match in order (no transposition): (5/6 + 5/6 + 5/5) / 3 = 8/9
    got = app3_metrics(synthetic, train, test, "102345", **FAST)
    assert got["acc_real"] == pytest.approx(share, abs=1e-12) and got["acc_synthetic"] == 1.0
    assert got["order"] == got["order_real_test"] == "023451"
    assert got["jaro"] == got["jaro_real_test"] == pytest.approx(8 / 9, abs=1e-12)
    # without the real order no similarity; without the real-test importances no second order
    alone = app3_metrics(synthetic, train, test, None, real_test_importance=False, **FAST)
    assert alone["order"] == "023451" and alone["order_real_test"] == ""
    assert math.isnan(alone["jaro"]) and math.isnan(alone["jaro_real_test"])


def test_permutation_ranking_is_the_mean_accuracy_drop():
    # a tree that reads column a only: permuting b changes no prediction (importance exactly 0);
    # permuting a, every prediction follows the permuted value
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": np.repeat([0, 1], 50), "b": rng.integers(0, 3, 100)})
    y = X["a"].copy()
    tree = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X[["a"]].assign(b=0), y)
    imp = permutation_ranking(tree, X, y, n_repeats=5)
    assert imp.shape == (2,) and imp[1] == 0.0
    # a permutation of 50 zeros and 50 ones keeps a row's value with probability ~1/2
    assert 0.35 < imp[0] < 0.65


def test_a_constant_model_has_no_feature_importance():
    # a synthetic training split can hold one class only: the model predicts it everywhere,
    # and no feature matters (permutation importance would be 0 up to nothing)
    X = pd.DataFrame({"a": [0, 1, 2, 1], "b": [1, 1, 0, 0]})
    y = pd.Series([3, 3, 3, 3])
    model = DummyClassifier(strategy="constant", constant=3).fit(X, y)
    assert permutation_ranking(model, X, y, n_repeats=3).tolist() == [0.0, 0.0]


def test_table3_has_the_papers_columns_and_numbers():
    res = _fake_results()
    t3 = table3(res)
    assert [c[0] for c in t3.columns[:-1:4]] == [
        "Accuracy on real data",
        "Accuracy estimated on synthetic data",
        "Similarity in feature ordering",
    ]
    assert [c[1] for c in t3.columns] == ["paper", "this run", "lower", "upper"] * 3 + [""]
    for gen, values in PAPER_TABLE3.items():
        assert t3.loc[UTILITY_GENERATORS[gen]].iloc[:-1:4].tolist() == list(values)
    pategan = UTILITY_GENERATORS["pategan"]
    assert t3.loc[pategan, ("Similarity in feature ordering", "paper")] == 0.49
    # this run: the means of the two runs (the made-up pategan row: 0.21, 0.46, 0.50)
    assert t3.loc[pategan].iloc[1:-1:4].tolist() == pytest.approx([0.21, 0.46, 0.50])
    ctgan = UTILITY_GENERATORS["ctgan"]
    assert math.isnan(t3.loc[ctgan, ("Similarity in feature ordering", "this run")])
    assert ctgan not in table3(res, paper_rows=False).index
