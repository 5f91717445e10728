"""Tests of ``synthtrust.studies.feature_importance.data.engineering``.

The oracles and the shared set-up are described in ``_fi_data.py``.
"""

import numpy as np
import pandas as pd
import pytest
from _fi_data import REAL, column_shuffle
from _fi_data import engineered as engineered_table

from synthtrust.studies.feature_importance import data as fid


@pytest.fixture(scope="module")
def engineered():
    """The real tables and their engineered (X, y), computed once."""
    return {name: engineered_table(name) for name in REAL}


# ------------------------------------------------------------------- engineered real data
def test_engineered_sizes_match_app_a(engineered):
    expected = {"adult": (32_561, 141), "household": (2_581, 39), "polish": (4_171, 67)}
    for name, (_, X, y) in engineered.items():
        assert X.shape == expected[name], name
        assert list(X.columns) == fid.feature_names(name)
        assert len(set(X.columns)) == X.shape[1]
        assert not X.isna().any().any()
        assert all(dt in (np.float64, np.int64) for dt in X.dtypes)
        assert y.dtype == np.int64 and len(y) == len(X)
        assert X.index.equals(pd.RangeIndex(len(X))) and y.index.equals(pd.RangeIndex(len(y)))
    assert engineered["adult"][2].mean() == pytest.approx(0.24081, abs=5e-6)
    assert set(engineered["household"][2]) == {1, 2, 3, 4}
    polish = engineered["polish"][0].dropna()
    assert engineered["polish"][2].sum() == (polish["wkabint"] == "YES").sum() == 231


# -------------------------------------------------------- fixed columns for synthetic data
@pytest.mark.parametrize("name", REAL)
def test_column_set_is_the_same_for_resampled_data(name, engineered):
    t, X, _ = engineered[name]
    Xs, ys = fid.engineer_features(name, column_shuffle(t, seed=7))
    assert list(Xs.columns) == list(X.columns)
    assert list(Xs.dtypes) == list(X.dtypes)
    assert len(Xs) > 0 and not Xs.isna().any().any() and len(ys) == len(Xs)


def test_decoded_synthetic_tables_give_the_same_columns():
    for name in fid.DATASETS:
        spec = fid.DATASETS[name]
        domain = fid.study_domain(name)
        table = fid.load_table(name).drop(columns=list(spec.identifiers))
        fake = domain.decode(column_shuffle(domain.encode(table), seed=1), random_state=2)
        Xs, ys = fid.engineer_features(name, fake)
        assert list(Xs.columns) == fid.feature_names(name), name
        assert len(Xs) > 0 and set(ys) <= set(spec.classes)


def test_nominal_features_are_the_label_encoded_and_mode_columns(engineered):
    counts = {"adult": 25, "household": 12, "polish": 7}
    for name, (_, X, _) in engineered.items():
        nominal = fid.nominal_features(name)
        assert len(nominal) == counts[name] and set(nominal) <= set(X.columns)
        assert all(X[c].dtype == np.int64 for c in nominal)
        assert {c for c in X.columns if "MODE(" in c} <= set(nominal)
    assert "workclass" in fid.nominal_features("adult")
    assert "age" not in fid.nominal_features("adult")
    assert fid.nominal_features("polish") == [
        "smoke",
        "sex",
        "edu",
        "sport",
        "marital",
        "region",
        "ls",
    ]
    assert fid.nominal_features("artificial_1") == ["X0", "X1", "X2", "X3", "X4"]
    assert fid.nominal_features("artificial_4") == []


def test_bad_frames_are_rejected(engineered):
    t = engineered["polish"][0]
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['income', 'ls'\]"):
        fid.engineer_features("polish", t.drop(columns=["income", "ls"]))
    with pytest.raises(TypeError, match="DataFrame"):
        fid.engineer_features("polish", t.to_numpy())
    bad = t.copy()
    bad.loc[0, "region"] = "Bavaria"
    with pytest.raises(ValueError, match="'region'.*Bavaria"):
        fid.engineer_features("polish", bad)
    bad = t.copy()
    bad["wkabint"] = bad["wkabint"].replace("YES", "MAYBE")
    with pytest.raises(ValueError, match="'wkabint'.*MAYBE"):
        fid.engineer_features("polish", bad)
    bad = t.copy().astype({"age": object})
    bad.loc[3, "age"] = "old"
    with pytest.raises(TypeError, match="'age'.*old"):
        fid.engineer_features("polish", bad)
    h = engineered["household"][0]
    with pytest.raises(ValueError, match="Target"):
        fid.engineer_features("household", h.drop(columns="Target"))
    bad = h.copy()
    bad.loc[0, "Target"] = 7
    with pytest.raises(ValueError, match="'Target'.*7"):
        fid.engineer_features("household", bad)
    with pytest.raises(ValueError, match="'X9'"):
        fid.engineer_features("artificial_5", fid.make_artificial(5).drop(columns="X9"))
