"""Tests of ``synthtrust.studies.feature_importance_data.engineering``.

The oracles and the shared set-up are described in ``_fi_data.py``.
"""

import numpy as np
import pandas as pd
import pytest
from _fi_data import REAL
from scipy import stats
from sklearn.preprocessing import LabelEncoder

from synthtrust.studies import feature_importance_data as fid


@pytest.fixture(scope="module")
def engineered():
    """The real tables and their engineered (X, y), computed once."""
    out = {}
    for name in REAL:
        table = fid.load_table(name)
        out[name] = (table, *fid.engineer_features(name, table))
    return out


def _column_shuffle(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Independent column-wise permutation (IndependentMarginals / synthpop 'sample')."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: table[c].to_numpy()[rng.permutation(len(table))] for c in table})


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


def test_adult_aggregations_match_groupby(engineered):
    t, X, _ = engineered["adult"]
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


def test_household_aggregations_match_groupby(engineered):
    t, X, y = engineered["household"]
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


def test_polish_arithmetic_and_percentiles(engineered):
    t, X, y = engineered["polish"]
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


# -------------------------------------------------------- fixed columns for synthetic data
@pytest.mark.parametrize("name", REAL)
def test_column_set_is_the_same_for_resampled_data(name, engineered):
    t, X, _ = engineered[name]
    Xs, ys = fid.engineer_features(name, _column_shuffle(t, seed=7))
    assert list(Xs.columns) == list(X.columns)
    assert list(Xs.dtypes) == list(X.dtypes)
    assert len(Xs) > 0 and not Xs.isna().any().any() and len(ys) == len(Xs)


def test_household_without_idhogar_is_one_household_per_row(engineered):
    t, X, _ = engineered["household"]
    synth = _column_shuffle(t.drop(columns=["Id", "idhogar"]), seed=3)
    Xs, ys = fid.engineer_features("household", synth)
    assert list(Xs.columns) == list(X.columns)
    complete = synth.dropna()
    heads = complete[complete["parentesco"] == 0]
    assert len(Xs) == len(heads)  # only the heads' one-member households keep a head
    assert (Xs["COUNT(members)"] == 1).all()
    std = [c for c in Xs.columns if c.startswith("STD(")]
    assert len(std) == 2 and (Xs[std] == 0).all().all()  # QUIPP dropped them; here constant
    np.testing.assert_array_equal(ys, heads["Target"])
    np.testing.assert_allclose(Xs["MAX(members.age)"], heads["age"])


def test_decoded_synthetic_tables_give_the_same_columns():
    for name in fid.DATASETS:
        spec = fid.DATASETS[name]
        domain = fid.study_domain(name)
        table = fid.load_table(name).drop(columns=list(spec.identifiers))
        fake = domain.decode(_column_shuffle(domain.encode(table), seed=1), random_state=2)
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
