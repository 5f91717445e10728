"""Tests of ``synthtrust.studies.auditing.utility.table2`` (Table 2 of houssiau2022, Application 2: the
logistic regression of social grade). The oracles: hand-made census-code tables in which the
target is a function of Ethnic Group, so that the logistic regression on one-hot features
predicts it exactly and its accuracies are shares of test rows counted by hand; Table 2's
layout and numbers on the made-up results frame of ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _auditing_utility_data import _fake_results

from synthtrust.studies.auditing.utility.generators import UTILITY_GENERATORS
from synthtrust.studies.auditing.utility.table2 import (
    APP2_FEATURES,
    APP2_TARGET,
    PAPER_TABLE2,
    app2_metrics,
    table2,
)


def _app2_table(n: int, seed: int, *, shifted: bool = False) -> pd.DataFrame:
    """Census codes of Application 2; grade = Ethnic Group mod 5 (``shifted``: Ethnic Groups 0
    and 1 get the next grade instead, a model that is wrong on those two groups)."""
    rng = np.random.default_rng(seed)
    eth = rng.integers(0, 6, n)
    grade = eth % 5
    if shifted:
        grade = np.where(eth < 2, (eth + 1) % 5, grade)
    return pd.DataFrame(
        {
            "Ethnic Group": eth,
            "Country of Birth": rng.integers(0, 3, n),
            "Family Composition": rng.integers(0, 6, n),
            APP2_TARGET: grade,
        }
    )


def test_application_2_is_the_papers_regression():
    # §4.1: social grade on ethnic group, country of birth and family composition
    assert APP2_FEATURES == ("Ethnic Group", "Country of Birth", "Family Composition")
    assert APP2_TARGET == "Approximated Social Grade"


def test_app2_metrics_counts_the_test_rows_a_learned_rule_gets_right():
    train, test = _app2_table(600, 1), _app2_table(200, 2)
    # a Family Composition level absent from every training table: the one-hot encoder knows
    # the census domain's 7 levels, so the row is scored, not rejected
    test.loc[0, "Family Composition"] = 6
    assert app2_metrics(None, train, test) == {"acc_real": 1.0, "acc_synthetic": 1.0}
    # trained on synthetic data with another rule for groups 0 and 1: right on its own 1/4
    # holdout, right on the real test rows of groups 2..5 only
    synthetic = _app2_table(800, 3, shifted=True)
    got = app2_metrics(synthetic, train, test)
    share = float((test["Ethnic Group"] >= 2).mean())
    assert 0.5 < share < 0.9
    assert got == {"acc_real": pytest.approx(share, abs=1e-12), "acc_synthetic": 1.0}


def test_app2_metrics_needs_the_applications_columns():
    train, test = _app2_table(60, 1), _app2_table(20, 2)
    with pytest.raises(ValueError, match="Family Composition"):
        app2_metrics(train.drop(columns="Family Composition"), train, test)


def test_table2_has_the_papers_columns_and_numbers():
    res = _fake_results()
    t2 = table2(res)
    sides = ("paper", "this run", "lower", "upper")
    assert list(t2.columns) == [
        *[("Accuracy on real data", side) for side in sides],
        *[("Accuracy estimated on synthetic data", side) for side in sides],
        ("runs", ""),
    ]
    for gen, (real, synth) in PAPER_TABLE2.items():
        row = t2.loc[UTILITY_GENERATORS[gen]]
        assert row[("Accuracy on real data", "paper")] == real
        assert row[("Accuracy estimated on synthetic data", "paper")] == synth
    # this run: the means of the two runs of each generator (here equal to the made-up values)
    ipf = UTILITY_GENERATORS["ipf"]
    assert t2.loc[ipf, ("Accuracy on real data", "this run")] == pytest.approx(0.324)
    assert t2.loc[ipf, ("Accuracy estimated on synthetic data", "this run")] == pytest.approx(0.33)
    # CTGAN, not in these results: the paper's numbers beside an empty cell
    ctgan = UTILITY_GENERATORS["ctgan"]
    assert t2.loc[ctgan, ("Accuracy on real data", "paper")] == 0.288
    assert math.isnan(t2.loc[ctgan, ("Accuracy on real data", "this run")])
    assert ctgan not in table2(res, paper_rows=False).index
