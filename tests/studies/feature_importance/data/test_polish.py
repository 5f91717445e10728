"""Tests of ``synthtrust.studies.feature_importance.data.polish`` (the Polish SD2011 data in the
study of giles2022 and App. A's Featuretools recipe, 67 features). The oracles: numpy arithmetic
and ``scipy.stats.rankdata`` on the complete rows of the real table; a five-row hand-made table
where a division by a zero income is infinite (the row leaves after the percentiles were taken
over every complete row, as Featuretools computed them before QUIPP's cleaning) and a row with a
missing weight leaves before; the column names Featuretools writes as QUIPP rewrote them.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from _fi_data import engineered
from scipy import stats

from synthtrust.studies.feature_importance.data.polish import (
    POLISH_NOMINAL,
    engineer_polish,
    polish_domain,
    polish_feature_names,
)

NUMERIC = ["age", "weight", "height", "bmi", "income"]


def test_polish_arithmetic_and_percentiles():
    t, X, y = engineered("polish")
    complete = t.dropna().reset_index(drop=True)
    assert len(complete) == 4_171
    np.testing.assert_allclose(X["age MULT bmi"], complete["age"] * complete["bmi"])
    np.testing.assert_allclose(X["income DIV age"], complete["income"] / complete["age"])
    np.testing.assert_allclose(X["age DIV income"], complete["age"] / complete["income"])
    np.testing.assert_allclose(X["weight SUB height"], complete["weight"] - complete["height"])
    np.testing.assert_allclose(
        X["PERCENTILE(bmi)"], stats.rankdata(complete["bmi"]) / len(complete)
    )
    np.testing.assert_array_equal(y, (complete["wkabint"] == "YES").astype(int))
    names = list(X.columns)
    assert sum(" DIV " in c for c in names) == 20
    assert sum(" MULT " in c for c in names) == sum(" ADD " in c for c in names) == 10
    assert sum(c.startswith("PERCENTILE(") for c in names) == 5


def _five_people() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "smoke": ["YES", "NO", "NO", "YES", "NO"],
            "sex": ["MALE", "FEMALE", "MALE", "FEMALE", "MALE"],
            "age": [20, 30, 30, 40, 50],
            "edu": ["SECONDARY"] * 5,
            "weight": [60.0, 80.0, 70.0, np.nan, 90.0],
            "height": [170, 180, 175, 160, 185],
            "bmi": [20.0, 25.0, 22.5, 24.0, 26.0],
            "sport": ["YES", "NO", "NO", "NO", "YES"],
            "marital": ["SINGLE", "MARRIED", "MARRIED", "WIDOWED", "DIVORCED"],
            "region": ["Slaskie", "Lodzkie", "Opolskie", "Slaskie", "Lubuskie"],
            "wkabint": ["YES", "NO", "NO", "YES", "NO"],
            "income": [1000, 0, 2000, 1500, 3000],
            "ls": ["PLEASED", "MIXED", "PLEASED", "UNHAPPY", "DELIGHTED"],
        }
    )


def test_five_people_by_hand():
    X, y = engineer_polish(_five_people())
    # row 3 (missing weight) leaves first; row 1 (income 0: age DIV income = inf) after
    assert X.shape == (3, 67) and list(X.columns) == polish_feature_names()
    assert y.tolist() == [1, 0, 0] and y.dtype == np.int64
    assert X["age"].tolist() == [20.0, 30.0, 50.0]
    assert X["age MULT bmi"].tolist() == [400.0, 675.0, 1300.0]
    assert X["weight SUB height"].tolist() == [-110.0, -105.0, -95.0]
    assert X["age ADD income"].tolist() == [1020.0, 2030.0, 3050.0]
    np.testing.assert_allclose(X["income DIV weight"], [1000 / 60, 2000 / 70, 3000 / 90])
    # percentiles over the four complete rows (ages 20, 30, 30, 50: ranks 1, 2.5, 2.5, 4), the
    # row with the infinite ratio among them
    assert X["PERCENTILE(age)"].tolist() == [0.25, 0.625, 1.0]
    assert X["PERCENTILE(income)"].tolist() == [0.5, 0.75, 1.0]  # incomes 1000, 0, 2000, 3000
    # label codes: positions in synthpop's sorted factor levels
    regions = sorted(polish_domain()["region"].categories)
    assert X["region"].tolist() == [regions.index(r) for r in ("Slaskie", "Opolskie", "Lubuskie")]
    assert X["smoke"].tolist() == [1, 0, 0] and X["sex"].tolist() == [1, 1, 1]  # MALE > FEMALE


def test_feature_names_are_featuretools_as_quipp_rewrote_them():
    names = polish_feature_names()
    assert len(names) == len(set(names)) == 67
    assert names[:12] == [
        "smoke",
        "sex",
        "age",
        "edu",
        "weight",
        "height",
        "bmi",
        "sport",
        "marital",
        "region",
        "income",
        "ls",
    ]
    pairs = list(itertools.combinations(NUMERIC, 2))
    assert names[12:22] == [f"{a} ADD {b}" for a, b in pairs]
    assert [f"{a} DIV {b}" for a, b in itertools.permutations(NUMERIC, 2)] == names[42:62]
    assert names[62:] == [f"PERCENTILE({a})" for a in NUMERIC]
    assert set(POLISH_NOMINAL) <= set(names[:12]) and "wkabint" not in names
