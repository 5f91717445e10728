"""Data preparation and feature engineering of chapter ``feature_importance`` (Giles et al. 2022,
``giles2022``): the paper's sizes (§4.2, App. A), engineered values against independent pandas
computations, fixed output columns for synthetic-like tables, the artificial sets' mutual
information (§5.1), public domains that round-trip the prepared tables, and bad input."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import mutual_info_score
from sklearn.preprocessing import LabelEncoder

from synthtrust import datasets
from synthtrust.domain import Categorical, Numeric, Ordinal
from synthtrust.studies import feature_importance_data as fid

REAL = ["adult", "household", "polish"]
ARTIFICIAL = [f"artificial_{k}" for k in range(1, 6)]


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


# ------------------------------------------------------------------------ prepared tables
def test_dataset_specs_match_the_paper():
    assert list(fid.DATASETS) == REAL + ARTIFICIAL
    sizes = {n: (s.rows, s.features, s.model_rows) for n, s in fid.DATASETS.items()}
    assert sizes["adult"] == (32_561, 141, 32_561)
    assert sizes["household"] == (9_554, 39, 2_581)
    assert sizes["polish"] == (4_895, 67, 4_171)
    assert [sizes[n][1] for n in ARTIFICIAL] == [5, 5, 15, 15, 3]
    assert [fid.DATASETS[n].label for n in REAL] == ["Adult", "Household", "Polish"]
    assert fid.DATASETS["artificial_3"].label == "Artificial 3"
    assert [fid.DATASETS[n].target for n in REAL] == ["label", "Target", "wkabint"]
    assert fid.DATASETS["household"].id_column == "idhogar"
    assert {s.kind for n, s in fid.DATASETS.items() if n in ARTIFICIAL} == {"artificial"}
    assert fid.ARTIFICIAL == {
        1: "artificial_1",
        2: "artificial_2",
        3: "artificial_5",
        4: "artificial_6",
        5: "artificial_7",
    }


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


# ----------------------------------------------------------------------- artificial data
def _mi(k: int) -> dict:
    d = fid.make_artificial(k)
    return {c: mutual_info_score(d["label"], d[c]) for c in d.columns if c != "label"}


def test_artificial_shapes_and_engineering():
    widths = {1: 5, 2: 5, 3: 15, 4: 15, 5: 3}
    for k, w in widths.items():
        d = fid.make_artificial(k)
        assert d.shape == (10_000, w + 1) and d.columns[-1] == "label"
        assert abs(d["label"].mean() - 0.5) < 0.01
        if k != 4:
            assert all(d[c].dtype == np.int64 and d[c].between(0, 4).all() for c in d)
        X, y = fid.engineer_features(f"artificial_{k}", d)
        assert X.equals(d.drop(columns="label")) and y.equals(d["label"])
    assert list(fid.make_artificial(5).columns) == ["X0", "X9", "X10", "label"]
    assert (fid.make_artificial(4).dtypes.iloc[:-1] == np.float64).all()


def test_artificial_1_has_two_high_mi_features():
    mi = _mi(1)  # §5.1: two features with high importance
    assert mi["X0"] == pytest.approx(0.17, abs=0.01)
    assert mi["X1"] == pytest.approx(0.14, abs=0.01)
    assert max(mi[c] for c in ("X2", "X3", "X4")) <= 0.02


def test_artificial_2_columns_are_copies_of_one_feature():
    d = fid.make_artificial(2)
    for c in ("X1", "X2", "X3", "X4"):
        same = (d[c] == d["X0"]).all()
        mirrored = (d[c] == 4 - d["X0"]).all()
        assert same or mirrored, c
    mi = _mi(2)
    assert max(mi.values()) - min(mi.values()) < 1e-12


def test_artificial_5_mi_is_strictly_ordered():
    mi = _mi(5)
    assert mi["X0"] == pytest.approx(0.169, abs=0.001)
    assert mi["X9"] == pytest.approx(0.099, abs=0.001)
    assert mi["X10"] == pytest.approx(0.0002, abs=0.0002)
    assert mi["X0"] > mi["X9"] > mi["X10"]


# ------------------------------------------------------------------------ public domains
@pytest.mark.parametrize("name", list(fid.DATASETS))
def test_domain_encodes_and_round_trips_the_prepared_table(name):
    spec = fid.DATASETS[name]
    table = fid.load_table(name).drop(columns=list(spec.identifiers))
    domain = fid.study_domain(name)
    assert domain.columns == list(table.columns)
    codes = domain.encode(table)
    again = domain.encode(domain.decode(codes, random_state=0))
    pd.testing.assert_frame_equal(codes, again)
    assert isinstance(domain[spec.target], Categorical)
    assert max(domain.sizes.values()) <= 42  # adult's native: 41 UCI countries + "?"


def test_domains_list_public_categories_not_only_observed_ones():
    adult = fid.study_domain("adult")
    assert len(adult["native"].categories) == 42 and "?" in adult["native"].categories
    assert len(adult["workclass"].categories) == 9 and len(adult["occupation"].categories) == 15
    assert list(adult["education"].categories) == sorted(adult["education"].categories)
    assert adult["hours"].bounds == (1, 99) and adult["capital-gain"].bounds == (0, 99_999)
    assert adult["age"].n_bins == 10 and isinstance(adult["education-num"], Ordinal)
    # polish categories: synthpop's SD2011 factor levels (data/sd2011_factor_levels.json)
    levels = json.loads((datasets.DATA_DIR / "sd2011_factor_levels.json").read_text())
    polish = fid.study_domain("polish")
    for col in ("smoke", "sex", "edu", "sport", "marital", "region", "ls"):
        assert sorted(polish[col].categories) == sorted(levels[col]), col
    assert list(polish["wkabint"].categories) == ["NO", "YES"]
    household = fid.study_domain("household")
    assert household["parentesco"].categories == tuple(range(12))
    assert household["age"].n_bins == 8 and household["escolari"].n_bins == 8
    art4 = fid.study_domain("artificial_4")
    assert isinstance(art4["X0"], Numeric) and art4["X0"].bounds == (-12, 12) and art4["X0"].clip
    assert fid.study_domain("artificial_5").columns == ["X0", "X9", "X10", "label"]


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


def test_bad_frames_are_rejected(engineered):
    t = engineered["polish"][0]
    with pytest.raises(ValueError, match=r"missing column\(s\) \['income', 'ls'\]"):
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
