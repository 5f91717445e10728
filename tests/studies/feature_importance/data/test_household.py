"""Tests of ``synthtrust.studies.feature_importance.data.household`` (the Costa Rican household
data in the study of giles2022 and App. A's Featuretools recipe, 39 features, one row per
household). The oracles: pandas ``groupby`` per household on the real table (households with a
head and more than one member: the paper's 2 581); a column-wise shuffle without ``idhogar``
(synthetic data: one household per row, only the heads kept, the STD columns 0 instead of
dropped); a hand-made table of four households whose aggregates are written out (a household
without a head, a one-member household and a member with a missing value leave; the household
takes its first member's household-level values); the column names Featuretools writes.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _fi_data import column_shuffle, engineered

from synthtrust.studies.feature_importance.data.household import (
    HOUSEHOLD_NOMINAL_LEVEL,
    engineer_household,
    household_feature_names,
)


def test_household_aggregations_match_groupby():
    t, X, y = engineered("household")
    members = t.dropna()
    g = members.groupby("idhogar", sort=False)
    with_head = set(t.loc[t["parentesco"] == 0, "idhogar"])
    size = g.size()
    keep = [h for h in size.index if size[h] >= 2 and h in with_head]
    assert len(keep) == 2_581  # §4.2.2 / App. A: households with a head and > 1 member
    np.testing.assert_array_equal(X["COUNT(members)"], size[keep])
    np.testing.assert_allclose(X["STD(members.age)"], g["age"].std()[keep])
    np.testing.assert_allclose(X["MAX(members.escolari)"], g["escolari"].max()[keep])
    np.testing.assert_allclose(X["SUM(members.age)"], g["age"].sum()[keep])
    mode = g["instlevel"].agg(lambda s: s.value_counts().sort_index().idxmax())
    np.testing.assert_array_equal(X["MODE(members.instlevel)"], mode[keep])
    np.testing.assert_array_equal(X["NUM_UNIQUE(members.female)"], g["female"].nunique()[keep])
    np.testing.assert_allclose(X["meaneduc"], g["meaneduc"].first()[keep])
    heads = t[t["parentesco"] == 0].drop_duplicates("idhogar").set_index("idhogar")["Target"]
    np.testing.assert_array_equal(y, heads[keep])


def test_household_without_idhogar_is_one_household_per_row():
    t, X, _ = engineered("household")
    synth = column_shuffle(t.drop(columns=["Id", "idhogar"]), seed=3)
    Xs, ys = engineer_household(synth)
    assert list(Xs.columns) == list(X.columns)
    complete = synth.dropna()
    heads = complete[complete["parentesco"] == 0]
    assert len(Xs) == len(heads)  # only the heads' one-member households keep a head
    assert (Xs["COUNT(members)"] == 1).all()
    std = [c for c in Xs.columns if c.startswith("STD(")]
    assert len(std) == 2 and (Xs[std] == 0).all().all()  # QUIPP dropped them; here constant
    np.testing.assert_array_equal(ys, heads["Target"])
    np.testing.assert_allclose(Xs["MAX(members.age)"], heads["age"])


_LEVEL = {  # household-level values shared by every member unless a row says otherwise
    "pared": 0,
    "piso": 1,
    "cielorazo": 1,
    "epared": 2,
    "etecho": 2,
    "eviv": 2,
    "rooms": 4,
    "r4m1": 0,
    "r4m3": 1,
    "r4t1": 1,
    "r4t3": 3,
    "hogar_nin": 1,
    "bedrooms": 2,
    "qmobilephone": 2,
    "dependency": 0.5,
    "edjefe": 11,
    "meaneduc": 9.5,
    "overcrowding": 1.5,
}


def _member(idhogar, parentesco, age, escolari, female, instlevel, target, **level):
    return {
        **_LEVEL,
        **level,
        "idhogar": idhogar,
        "parentesco": parentesco,
        "age": age,
        "escolari": escolari,
        "female": female,
        "instlevel": instlevel,
        "v18q": 0,
        "dis": 0,
        "estadocivil": 3,
        "Target": target,
    }


def _four_households() -> pd.DataFrame:
    return pd.DataFrame(
        [
            # h1: a son listed first (his household-level values are the household's), the
            # head (another number of rooms: ignored) and the spouse
            _member("h1", 2, 10, 3, 1, 1, 2, rooms=4),
            _member("h1", 0, 40, 11, 0, 4, 2, rooms=6),
            _member("h1", 1, 38, 9, 1, 4, 2),
            # h2: no head (a son and a grandchild): left out
            _member("h2", 2, 12, 5, 0, 2, 3),
            _member("h2", 5, 3, 0, 1, 0, 3),
            # h3: one member, its STD is missing: left out
            _member("h3", 0, 70, 2, 1, 1, 1),
            # h4: the head, a member with a missing age (dropped first) and a daughter
            _member("h4", 0, 50, 6, 0, 2, 4),
            _member("h4", 2, np.nan, 8, 0, 3, 4),
            _member("h4", 2, 20, 12, 1, 5, 4),
        ]
    )


def test_four_households_by_hand():
    X, y = engineer_household(_four_households())
    assert X.shape == (2, 39) and list(X.columns) == household_feature_names()
    assert y.tolist() == [2, 4] and y.dtype == np.int64
    assert X["COUNT(members)"].tolist() == [3, 2]
    assert X["rooms"].tolist() == [4.0, 4.0] and X["meaneduc"].tolist() == [9.5, 9.5]
    assert X["MIN(members.escolari)"].tolist() == [3.0, 6.0]
    assert X["MAX(members.escolari)"].tolist() == [11.0, 12.0]
    assert X["SUM(members.age)"].tolist() == [88.0, 70.0]
    np.testing.assert_allclose(X["STD(members.age)"], [np.std([10, 40, 38], ddof=1), 15 * 2**0.5])
    assert X["STD(members.escolari)"][1] == pytest.approx(math.sqrt(18), rel=1e-15)  # 6, 12
    # MODE: instlevel (1, 4, 4) -> 4; parentesco (2, 0, 1) all once -> the smallest, 0
    assert X["MODE(members.instlevel)"].tolist() == [4, 2]  # h4: (2, 5) tie -> 2
    assert X["MODE(members.parentesco)"].tolist() == [0, 0]
    assert X["MODE(members.female)"].tolist() == [1, 0]
    assert X["NUM_UNIQUE(members.female)"].tolist() == [2, 2]
    assert X["NUM_UNIQUE(members.v18q)"].tolist() == [1, 1]
    assert X["NUM_UNIQUE(members.instlevel)"].tolist() == [2, 2]


def test_feature_names_are_featuretools():
    names = household_feature_names()
    assert len(names) == len(set(names)) == 39
    assert names[18] == "COUNT(members)" and set(HOUSEHOLD_NOMINAL_LEVEL) <= set(names[:18])
    assert names[19:23] == [
        "MIN(members.escolari)",
        "MAX(members.escolari)",
        "STD(members.escolari)",
        "SUM(members.escolari)",
    ]
    assert names[-2:] == ["MODE(members.instlevel)", "NUM_UNIQUE(members.instlevel)"]
    assert sum(n.startswith("MODE(") for n in names) == 6
