"""Tests of ``synthtrust.studies.feature_importance.data.adult`` (the Adult dataset in the study
of giles2022 and App. A's Featuretools recipe, 141 features). The oracles: pandas ``groupby``
aggregates, ``scipy.stats.skew(bias=False)`` and sklearn's ``LabelEncoder`` (QUIPP's encoding)
on the real table; a six-row hand-made table whose aggregates are written out, with what only
synthetic data shows (two educations under one education-num: Featuretools'
``normalize_entity`` keeps the first row's; MODE ties to the smallest code, not the first seen);
the column names Featuretools writes (12 base columns and 43 per parent entity).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _fi_data import engineered
from scipy import stats
from sklearn.preprocessing import LabelEncoder

from synthtrust.studies.feature_importance.data.adult import (
    adult_domain,
    adult_feature_names,
    engineer_adult,
)


def test_adult_aggregations_match_groupby():
    t, X, _ = engineered("adult")
    g = t.groupby("workclass")
    np.testing.assert_allclose(X["Workclass.MEAN(adults.hours)"], g["hours"].transform("mean"))
    np.testing.assert_allclose(X["Workclass.MAX(adults.age)"], g["age"].transform("max"))
    e = t.groupby("education-num")
    np.testing.assert_allclose(
        X["education.STD(adults.capital-gain)"], e["capital-gain"].transform("std")
    )
    np.testing.assert_array_equal(X["education.COUNT(adults)"], e["age"].transform("size"))
    np.testing.assert_allclose(X["education.SUM(adults.fnlwgt)"], e["fnlwgt"].transform("sum"))
    # skewness: scipy's bias-corrected skew per occupation
    skew = t.groupby("occupation")["age"].agg(lambda s: stats.skew(s, bias=False))
    np.testing.assert_allclose(X["Occupation.SKEW(adults.age)"], t["occupation"].map(skew))
    # a constant group (Never-worked has no capital gain) has skewness 0, not NaN
    never = (t["workclass"] == "Never-worked").to_numpy()
    assert never.sum() == 7 and (X.loc[never, "Workclass.SKEW(adults.capital-gain)"] == 0).all()
    # label codes = sklearn's LabelEncoder on the real column (QUIPP's encoding)
    for col in ("workclass", "native", "occupation", "sex"):
        np.testing.assert_array_equal(X[col], LabelEncoder().fit_transform(t[col]))
    # MODE: most common value per group, label-encoded
    mode = t.groupby("occupation")["marital-status"].agg(lambda s: s.value_counts().idxmax())
    codes = LabelEncoder().fit(t["marital-status"])
    np.testing.assert_array_equal(
        X["Occupation.MODE(adults.marital-status)"], codes.transform(t["occupation"].map(mode))
    )
    n_unique = t.groupby("workclass")["education-num"].nunique()
    np.testing.assert_array_equal(
        X["Workclass.NUM_UNIQUE(adults.education-num)"], t["workclass"].map(n_unique)
    )
    np.testing.assert_array_equal(
        X["education.education"], LabelEncoder().fit_transform(t["education"])
    )
    assert "education-num" not in X.columns and not any("label" in c for c in X.columns)


def _code(column: str, value: str) -> int:
    """The label code of a value: its position in the sorted public category list."""
    return sorted(adult_domain()[column].categories).index(value)


def _six_adults() -> pd.DataFrame:
    """Two education-num groups of three rows (one Private salesperson each)."""
    return pd.DataFrame(
        {
            "age": [20, 30, 40, 25, 25, 25],
            "workclass": ["Private"] * 6,
            "fnlwgt": [1000, 2000, 3000, 4000, 5000, 6000],
            "education": ["HS-grad", "Bachelors", "HS-grad"] + ["Bachelors"] * 3,
            "education-num": [9, 9, 9, 13, 13, 13],
            "marital-status": ["Never-married", "Divorced", "Married-civ-spouse"]
            + ["Divorced"] * 3,
            "occupation": ["Sales"] * 6,
            "relationship": ["Husband", "Wife", "Wife", "Husband", "Own-child", "Husband"],
            "sex": ["Male", "Female", "Female", "Male", "Female", "Male"],
            "capital-gain": [0, 0, 0, 0, 0, 500],
            "capital-loss": [0] * 6,
            "hours": [40] * 6,
            "native": ["United-States"] * 6,
            "label": [0, 1, 0, 1, 1, 0],
        }
    )


def test_six_adults_by_hand():
    X, y = engineer_adult(_six_adults())
    assert X.shape == (6, 141) and list(X.columns) == adult_feature_names()
    assert y.tolist() == [0, 1, 0, 1, 1, 0] and y.dtype == np.int64
    # the education entity keeps its first row's education: row 1's Bachelors is overwritten
    hs, ba = _code("education", "HS-grad"), _code("education", "Bachelors")
    assert X["education.education"].tolist() == [hs, hs, hs, ba, ba, ba]
    assert X["education.COUNT(adults)"].tolist() == [3] * 6
    assert X["Workclass.COUNT(adults)"].tolist() == [6] * 6
    # ages 20, 30, 40 (mean 30, sd 10, symmetric) and 25, 25, 25 (constant: sd 0, skew 0)
    assert X["education.MEAN(adults.age)"].tolist() == [30.0] * 3 + [25.0] * 3
    assert X["education.STD(adults.age)"].tolist() == [10.0] * 3 + [0.0] * 3
    np.testing.assert_allclose(X["education.SKEW(adults.age)"], 0.0, atol=1e-12)
    assert X["education.SUM(adults.fnlwgt)"].tolist() == [6000.0] * 3 + [15000.0] * 3
    assert X["Occupation.MAX(adults.capital-gain)"].tolist() == [500.0] * 6
    six = stats.skew([20, 30, 40, 25, 25, 25], bias=False)
    np.testing.assert_allclose(X["Workclass.SKEW(adults.age)"], six, rtol=1e-12)
    # MODE: a three-way tie goes to the smallest code (Divorced), not to the first row's value
    assert (
        X["education.MODE(adults.marital-status)"].tolist()
        == [_code("marital-status", "Divorced")] * 6
    )
    female, male = _code("sex", "Female"), _code("sex", "Male")
    assert X["education.MODE(adults.sex)"].tolist() == [female] * 3 + [male] * 3
    # the other keys of a parent: 9 and 13 three times each, the tie to 9
    assert X["Workclass.MODE(adults.education-num)"].tolist() == [9] * 6
    assert X["Workclass.NUM_UNIQUE(adults.education-num)"].tolist() == [2] * 6
    assert X["Occupation.NUM_UNIQUE(adults.relationship)"].tolist() == [3] * 6
    assert X["education.MODE(adults.workclass)"].tolist() == [_code("workclass", "Private")] * 6


def test_a_row_with_a_missing_value_or_a_bad_education_number():
    table = _six_adults()
    table.loc[0, "hours"] = np.nan  # dropped first: group 9 keeps 2 rows, its SKEW is NaN
    X, y = engineer_adult(table)
    assert len(X) == 3 and y.tolist() == [1, 1, 0]  # so the whole group leaves (QUIPP)
    bad = _six_adults()
    bad.loc[2, "education-num"] = 17  # (printed "np.float64(17.0)" under numpy 2)
    with pytest.raises(
        ValueError,
        match=r"'education-num': value\(s\) \[(np\.float64\()?17\.0\)?\] not integers 1..16",
    ):
        engineer_adult(bad)


def test_feature_names_are_featuretools():
    names = adult_feature_names()
    assert len(names) == len(set(names)) == 12 + 3 * 43 == 141
    assert names[:4] == ["age", "workclass", "fnlwgt", "education.education"]
    assert "education-num" not in names
    for parent in ("education", "Workclass", "Occupation"):
        own = [n for n in names[12:] if n.startswith(parent + ".")]
        assert len(own) == 43 and own[0] == f"{parent}.COUNT(adults)"
        # 5 numeric columns × 6 aggregates, 6 nominal columns × (NUM_UNIQUE, MODE)
        assert sum("(adults." in n and ("MODE" in n or "NUM_UNIQUE" in n) for n in own) == 12
    assert "education.MODE(adults.workclass)" in names
    assert "Workclass.MODE(adults.workclass)" not in names  # a parent's own key
    assert "Occupation.NUM_UNIQUE(adults.education-num)" in names
