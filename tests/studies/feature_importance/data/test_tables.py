"""Tests of ``synthtrust.studies.feature_importance.data.tables``.

The oracles and the shared set-up are described in ``_fi_data.py``.
"""

import numpy as np
import pandas as pd
import pytest

from synthtrust import datasets
from synthtrust.studies.feature_importance import data as fid


def test_adult_table_is_adult_data_with_question_marks_kept():
    t = fid.load_table("adult")
    assert t.shape == (32_561, 14)  # §4.2.1: 32 561 rows, 13 attributes + label
    assert list(t.columns) == [
        "age",
        "workclass",
        "fnlwgt",
        "education",
        "education-num",
        "marital-status",
        "occupation",
        "relationship",
        "sex",
        "capital-gain",
        "capital-loss",
        "hours",
        "native",
        "label",
    ]
    assert not t.isna().any().any()
    raw = datasets.load("adult").iloc[:32_561]
    # "?" is a category: as many as load() reads as NaN in the first 32 561 rows
    assert (t["workclass"] == "?").sum() == raw["workclass"].isna().sum() == 1_836
    assert (t["occupation"] == "?").sum() == raw["occupation"].isna().sum() == 1_843
    assert (t["native"] == "?").sum() == raw["native-country"].isna().sum() == 583
    assert t["label"].dtype == np.int64
    assert t["label"].sum() == (raw["income"] == ">50K").sum()
    assert t["label"].mean() == pytest.approx(0.24081, abs=5e-6)
    assert (t["hours"].to_numpy() == raw["hours-per-week"].to_numpy()).all()


def test_household_table_is_quipp_small_variant():
    t = fid.load_table("household")
    assert t.shape == (9_554, 29)  # §4.2.2: 29 columns; 3 members without instlevel dropped
    assert {"Id", "idhogar", "Target", "pared", "instlevel", "parentesco"} <= set(t.columns)
    assert t.columns[-1] == "Target"
    raw = datasets.load("costa_rica_poverty")
    assert len(raw) - len(t) == 3
    # one-hot -> position: parentesco 0 is parentesco1 (household head)
    kept = raw[raw[[f"instlevel{i}" for i in range(1, 10)]].sum(axis=1) == 1]
    assert (t["parentesco"].to_numpy() == 0).sum() == (kept["parentesco1"] == 1).sum()
    assert (t["pared"].to_numpy() == 4).sum() == (kept["paredmad"] == 1).sum()
    # every member of a household with a head has the head's Target
    heads = t[t["parentesco"] == 0].set_index("idhogar")["Target"]
    with_head = t[t["idhogar"].isin(heads.index)]
    assert (with_head["Target"].to_numpy() == with_head["idhogar"].map(heads).to_numpy()).all()
    assert set(t["Target"]) == {1, 2, 3, 4}
    # yes/no -> 1/0
    assert (t["edjefe"][raw.loc[kept.index, "edjefe"].eq("no").to_numpy()] == 0).all()
    assert t["dependency"].dtype == np.float64


def test_polish_table_is_sd2011_complete_cases():
    t = fid.load_table("polish")
    assert t.shape == (4_895, 13)  # §4.2.3: 4 895 individuals, 13 variables
    assert t["wkabint"].value_counts().to_dict() == {"NO": 4_580, "YES": 315}
    required = ["smoke", "sex", "age", "edu", "sport", "marital", "wkabint", "ls"]
    assert not t[required].isna().any().any()
    assert t["age"].min() >= 16
    assert (t["income"] == -8).any() and t["income"].isna().any()  # kept as QUIPP kept them


def test_tables_are_cached_copies():
    a = fid.load_table("polish")
    a.loc[0, "age"] = -1
    assert fid.load_table("polish").loc[0, "age"] != -1
    b = fid.make_artificial(1)
    b.loc[0, "X0"] = 99
    assert fid.make_artificial(1).loc[0, "X0"] != 99


# ------------------------------------------------------------------------------ bad input
def test_unknown_names_and_bad_k_are_rejected():
    for fn in (fid.load_table, fid.study_domain, fid.nominal_features, fid.feature_names):
        with pytest.raises(ValueError, match="adult, household, polish"):
            fn("framingham")
    with pytest.raises(ValueError, match="unknown dataset"):
        fid.engineer_features("framingham", pd.DataFrame({"a": [1]}))
    for k in (0, 6):
        with pytest.raises(ValueError, match="1..5"):
            fid.make_artificial(k)
    for k in (1.0, True, "1"):
        with pytest.raises(TypeError, match="k must be an integer"):
            fid.make_artificial(k)
