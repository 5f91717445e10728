"""Tests of synthtrust.studies.auditing_utility (Tables 1–3 of houssiau2022)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from synthtrust.domain import dataset_domain
from synthtrust.studies import auditing_utility as U


# --------------------------------------------------------------------------------------------
# Jaro similarity
# --------------------------------------------------------------------------------------------
def _oracle_jaro(s: str, t: str) -> float:
    """Brute force, written independently: every pair (i, j) is scanned; characters match when
    equal, unused and within the window, the first free one from the left wins; t counts the
    matched characters of s and t, read in order, that differ, halved (no rounding)."""
    if not s and not t:
        return 1.0
    window = max(0, max(len(s), len(t)) // 2 - 1)
    taken = set()
    pairs = []
    for i in range(len(s)):
        for j in range(len(t)):
            if abs(i - j) <= window and j not in taken and s[i] == t[j]:
                taken.add(j)
                pairs.append((i, j))
                break
    m = len(pairs)
    if m == 0:
        return 0.0
    s_seq = [s[i] for i, _ in pairs]
    t_seq = [t[j] for j in sorted(taken)]
    half = sum(a != b for a, b in zip(s_seq, t_seq, strict=True)) / 2
    return (m / len(s) + m / len(t) + (m - half) / m) / 3


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("MARTHA", "MARHTA", 17 / 18),  # m = 6, 2 out of order: (1 + 1 + 5/6) / 3
        ("DIXON", "DICKSONX", 23 / 30),  # m = 4, no transposition: (4/5 + 4/8 + 1) / 3
        ("CRATE", "TRACE", 11 / 15),  # window 1: R, A, E match: (3/5 + 3/5 + 1) / 3
        ("abcdef", "abcefd", 11 / 12),  # 3 out of order, t = 1.5 (strcmp95 rounds to 1)
        ("abc", "abc", 1.0),
        ("abc", "xyz", 0.0),
        ("", "", 1.0),
        ("a", "a", 1.0),  # window clamped at 0
        ("ab", "ba", 0.0),  # window 0: no match across positions
    ],
)
def test_jaro_hand_values(a, b, expected):
    assert U.jaro_similarity(a, b) == pytest.approx(expected, abs=1e-12)


def test_jaro_matches_brute_force_oracle():
    for p in itertools.permutations("012345"):
        q = "".join(p)
        assert U.jaro_similarity("305142", q) == pytest.approx(_oracle_jaro("305142", q), abs=1e-12)
    rng = np.random.default_rng(7)
    for _ in range(400):
        a = "".join(rng.choice(list("abc"), size=rng.integers(0, 9)))
        b = "".join(rng.choice(list("abc"), size=rng.integers(0, 9)))
        assert U.jaro_similarity(a, b) == pytest.approx(_oracle_jaro(a, b), abs=1e-12), (a, b)
        assert U.jaro_similarity(a, b) == pytest.approx(U.jaro_similarity(b, a), abs=1e-12)


def test_jaro_rejects_non_strings():
    with pytest.raises(TypeError, match="two str"):
        U.jaro_similarity([1, 2], "12")


def test_expected_jaro_random_permutation_exact():
    e6 = U.expected_jaro_random_permutation(6)
    assert isinstance(e6, Fraction) and e6 == Fraction(9019, 12960)
    assert float(e6) == pytest.approx(0.6959, abs=5e-5)
    # n = 2: "ab" vs itself 1, vs "ba" 0 (window 0) -> 1/2; n = 1: 1
    assert U.expected_jaro_random_permutation(2) == Fraction(1, 2)
    assert U.expected_jaro_random_permutation(1) == 1
    # the oracle agrees on the mean over the 720 orders
    mean = np.mean([_oracle_jaro("abcdef", "".join(p)) for p in itertools.permutations("abcdef")])
    assert mean == pytest.approx(9019 / 12960, abs=1e-12)
    assert 0.10 < U.jaro_random_permutation_sd(6) < 0.14
    with pytest.raises(ValueError, match="1..8"):
        U.expected_jaro_random_permutation(9)


def test_feature_order_is_ascending_argsort():
    # the reference's real importances (Use Case 3 notebook) give the order "435201"
    imp = [0.0377534, 0.14630452, 0.02841597, -0.00124616, -0.00530584, 0.00362089]
    assert U.feature_order(imp) == "435201"
    assert U.feature_order([0.0, 0.0, -1.0]) == "201"  # ties keep input order
    with pytest.raises(ValueError):
        U.feature_order([np.nan, 1.0])


# --------------------------------------------------------------------------------------------
# Application 1 on a hand-made frame
# --------------------------------------------------------------------------------------------
def _app1_codes(rows):
    dom = dataset_domain("census2011").select(U.APP1_COLUMNS)
    return dom.encode(pd.DataFrame(rows, columns=list(U.APP1_COLUMNS)))


# (Economic Activity, Occupation, Sex) in ONS codes; EA 1/2 = active, 3 = unemployed
_REAL = [(1, 1, 1), (1, 1, 2), (2, 1, 1), (3, 2, 2)]
_SYNTH = [(1, 1, 1), (1, 1, 1), (2, 2, 2), (-9, -9, 1)]


def test_three_way_table_by_hand():
    t = U.three_way_table(_app1_codes(_REAL))
    assert t.shape == (10, 10, 2) and t.sum() == pytest.approx(1.0)
    # codes: -9 -> 0, so ONS EA 1 -> 1, Occupation 1 -> 1, Sex 1 (male) -> 0
    assert t[1, 1, 0] == 0.25 and t[1, 1, 1] == 0.25 and t[2, 1, 0] == 0.25 and t[3, 2, 1] == 0.25


def test_gender_gap_by_hand():
    gap_real = U.gender_gap(_app1_codes(_REAL))
    expected = np.zeros(10)
    expected[1] = 2 / 3 - 1 / 3  # occupation 1: 2 men, 1 woman among EA 1-2; EA 3 excluded
    np.testing.assert_allclose(gap_real, expected)
    gap_syn = U.gender_gap(_app1_codes(_SYNTH))
    expected = np.zeros(10)
    expected[1], expected[2] = 1.0, -1.0  # the EA -9 record is not active
    np.testing.assert_allclose(gap_syn, expected)


def test_app1_metrics_by_hand():
    m = U.app1_metrics(_app1_codes(_SYNTH), _app1_codes(_REAL))
    # six cells differ by ±0.25 out of 200: sqrt(6 · 0.0625 / 200)
    assert m["rmse_3way"] == pytest.approx(math.sqrt(6 * 0.0625 / 200), rel=1e-12)
    assert m["rmse_3way"] == pytest.approx(0.0433013, abs=1e-7)
    # occupation 1: 1 − 1/3, occupation 2: −1 − 0: sqrt((4/9 + 1) / 10)
    assert m["rmse_gender_gap"] == pytest.approx(math.sqrt(13 / 90), rel=1e-12)
    assert U.app1_metrics(_app1_codes(_REAL), _app1_codes(_REAL)) == {
        "rmse_3way": 0.0,
        "rmse_gender_gap": 0.0,
    }
    with pytest.raises(ValueError, match="lacks"):
        U.three_way_table(_app1_codes(_REAL).drop(columns="Sex"))


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def test_census_split_sizes_and_reference_split():
    s = U.census_split()
    assert (len(s.full), len(s.train), len(s.test)) == (10_000, 9_000, 1_000)
    dom = dataset_domain("census2011")
    assert list(s.full.columns) == dom.columns and "Person ID" not in s.full.columns
    for c, k in dom.sizes.items():
        assert s.full[c].between(0, k - 1).all()
    # the reference's split_data: train_test_split(test_size=0.1, random_state=1)
    idx_train, idx_test = train_test_split(np.arange(10_000), test_size=0.1, random_state=1)
    pd.testing.assert_frame_equal(s.train, s.full.iloc[idx_train].reset_index(drop=True))
    pd.testing.assert_frame_equal(s.test, s.full.iloc[idx_test].reset_index(drop=True))
    small = U.census_split(n_rows=2000)
    assert (len(small.train), len(small.test)) == (1800, 200)
    with pytest.raises(ValueError, match="dataset"):
        U.census_split("adult")


# --------------------------------------------------------------------------------------------
# the experiment on a small sample
# --------------------------------------------------------------------------------------------
_CELL = {"dataset": "census2011_random10k", "n_rows": 2000, "ipf_tol": 0.5}


@pytest.fixture(scope="module")
def small_run():
    out = {}
    for gen in ("real", "cart", "ipf"):
        out[gen] = U.utility_cell({**_CELL, "generator": gen}, [np.random.default_rng(11)])
        out[gen].insert(0, "generator", gen)
    return out


def test_utility_cell_finite_and_real_row(small_run):
    real = small_run["real"].iloc[0]
    assert real["app2_acc_real"] == real["app2_acc_synthetic"]
    assert real["app3_acc_real"] == real["app3_acc_synthetic"]
    assert real["app3_jaro"] == 1.0 and real["app3_order"] == real["app3_real_order"]
    assert sorted(real["app3_order"]) == list("012345")
    for gen in ("cart", "ipf"):
        row = small_run[gen].iloc[0]
        for m in U._METRICS:
            if m != "app3_jaro_real_test":
                assert np.isfinite(row[m]), (gen, m)
        assert 0 < row["app2_acc_real"] < 1 and 0 < row["app3_acc_real"] < 1
        assert row["n_synthetic"] == 2000 and row["app3_real_order"] == real["app3_order"]
        assert math.isnan(row["app3_jaro_real_test"])  # not requested
    # the real train split is much closer to the full sample than any generator's output
    assert real["app1_rmse_3way"] < small_run["ipf"].iloc[0]["app1_rmse_3way"]
    assert real["app1_rmse_3way"] < small_run["cart"].iloc[0]["app1_rmse_3way"]


def test_utility_cell_reproducible(small_run):
    again = U.utility_cell({**_CELL, "generator": "cart"}, [np.random.default_rng(11)])
    first = small_run["cart"].drop(columns=["generator", "seconds", "fit_seconds"])
    pd.testing.assert_frame_equal(first, again.drop(columns=["seconds", "fit_seconds"]))
    other = U.utility_cell({**_CELL, "generator": "cart"}, [np.random.default_rng(12)])
    assert other["seed"].iloc[0] != again["seed"].iloc[0]
    assert other["app1_rmse_3way"].iloc[0] != again["app1_rmse_3way"].iloc[0]


def test_make_utility_generator_and_grid():
    ipf = U.make_utility_generator("ipf", 2, 0)
    assert ipf.tol == 1e-3 and sorted(map(tuple, ipf.marginals)) == sorted(
        tuple(m) for m in U.application(2).marginals
    )
    assert U.make_utility_generator("pgm", 3, 0).max_iter == 200
    assert type(U.make_utility_generator("mst")).__name__ == "MST"
    with pytest.raises(ValueError, match="app="):
        U.make_utility_generator("ipf")
    with pytest.raises(ValueError, match="unknown generator"):
        U.make_utility_generator("real")
    cells = U.build_utility_grid(generators=["ipf", "cart"], n_rows=2000)
    assert [c["generator"] for c in cells] == ["real", "ipf", "cart"]
    assert cells[0]["epsilon"] == 1000.0 and cells[0]["pgm_iters"] == [1000, 1000, 200]
    with pytest.raises(ValueError, match="ctgan"):
        U.build_utility_grid(generators=["ctgan"])


# --------------------------------------------------------------------------------------------
# tables and findings on a made-up results frame
# --------------------------------------------------------------------------------------------
def _fake_results():
    base = {
        "app3_order": "435201",
        "app3_order_real_test": "",
        "app3_jaro_real_test": np.nan,
        "app3_real_order": "435201",
        "n_synthetic": 10_000,
        "seed": 1,
        "fit_seconds": 1.0,
        "seconds": 2.0,
    }
    vals = {  # generator: (rmse3, rmse_gap, a2r, a2s, a3r, a3s, jaro)
        "real": (3e-4, 0.02, 0.325, 0.325, 0.448, 0.448, 1.0),
        "ipf": (7e-4, 0.05, 0.324, 0.33, 0.447, 0.45, 0.99),
        "pgm": (7.5e-4, 0.05, 0.326, 0.33, 0.446, 0.40, 1.0),
        "mst": (1.1e-3, 0.3, 0.30, 0.31, 0.32, 0.33, 0.83),
        "privbayes": (1.5e-3, 0.1, 0.32, 0.34, 0.44, 0.48, 0.65),
        "patectgan": (1.2e-2, 0.5, 0.21, 0.40, 0.21, 0.46, 0.50),
        "cart": (6e-4, 0.04, 0.326, 0.34, 0.42, 0.51, 0.89),
    }
    rows = []
    for g, v in vals.items():
        for rep, shift in enumerate((-1e-5, 1e-5)):  # two runs whose mean is v
            rows.append(
                {
                    "generator": g,
                    "rep": rep,
                    **base,
                    "app1_rmse_3way": v[0] + shift,
                    "app1_rmse_gender_gap": v[1],
                    "app2_acc_real": v[2],
                    "app2_acc_synthetic": v[3],
                    "app3_acc_real": v[4],
                    "app3_acc_synthetic": v[5],
                    "app3_jaro": v[6],
                }
            )
    return pd.DataFrame(rows)


def test_tables_have_the_papers_columns_and_numbers():
    res = _fake_results()
    t1, t2, t3 = U.table1(res), U.table2(res), U.table3(res)
    assert list(t1.columns) == [
        ("3-way marginal RMSE", "paper"),
        ("3-way marginal RMSE", "this run"),
        ("Gender gap RMSE", "paper"),
        ("Gender gap RMSE", "this run"),
    ]
    assert [c[0] for c in t2.columns[::2]] == [
        "Accuracy on real data",
        "Accuracy estimated on synthetic data",
    ]
    assert [c[0] for c in t3.columns[::2]] == [
        "Accuracy on real data",
        "Accuracy estimated on synthetic data",
        "Similarity in feature ordering",
    ]
    ipf = U.UTILITY_GENERATORS["ipf"]
    assert t1.loc[ipf, ("3-way marginal RMSE", "paper")] == 5.39e-4
    assert t1.loc[ipf, ("3-way marginal RMSE", "this run")] == pytest.approx(7e-4)
    assert (
        t3.loc[U.UTILITY_GENERATORS["patectgan"], ("Similarity in feature ordering", "paper")]
        == 0.49
    )
    # CTGAN: the paper's numbers beside an empty cell; the real row has no paper value in Table 1
    assert t2.loc["CTGAN (not run)", ("Accuracy on real data", "paper")] == 0.288
    assert math.isnan(t2.loc["CTGAN (not run)", ("Accuracy on real data", "this run")])
    assert math.isnan(t1.loc["Real data", ("3-way marginal RMSE", "paper")])
    assert "CTGAN (not run)" not in U.table1(res, paper_rows=False).index
    s = U.summarize_utility(res)
    assert list(s["generator"]) == [g for g in U.UTILITY_GENERATORS]
    assert (s["runs"] == 2).all()


def test_utility_findings_verdicts():
    res = _fake_results()
    f = U.utility_findings(res, n_test=1000).set_index("key")
    assert list(f.index) == [k for k, _ in U.PAPER_UTILITY_FINDINGS]
    assert f.loc["tailored_3way", "holds"] is True  # 7.5e-4 < 1.1e-3 (CART excepted)
    assert f.loc["phi_sufficient", "holds"] is True
    assert f.loc["gan_overconfident", "holds"] is True
    assert f.loc["two_way_rf", "holds"] is True  # within ±0.031 (2 SE), Jaro 0.99 and 1.0
    assert f.loc["random_order", "holds"] is True  # 0.50 and 0.65 below 0.696 + 2·0.118/√2
    # a run without the GAN and with a too-good PrivBayes
    res2 = res[res["generator"] != "patectgan"].copy()
    res2.loc[res2["generator"] == "privbayes", "app3_jaro"] = 0.95
    res2.loc[res2["generator"] == "ipf", "app3_jaro"] = 0.97  # order not kept
    res2.loc[res2["generator"] == "pgm", "app2_acc_real"] = 0.28  # 0.045 below the real 0.325
    res2.loc[res2["generator"] == "pgm", "app1_rmse_3way"] = 2e-3  # worse than MST
    f2 = U.utility_findings(res2, n_test=1000).set_index("key")
    assert f2.loc["gan_overconfident", "holds"] is None
    assert f2.loc["random_order", "holds"] is False
    assert f2.loc["two_way_rf", "holds"] is False
    assert f2.loc["phi_sufficient", "holds"] is False
    assert f2.loc["tailored_3way", "holds"] is False
    res3 = res[res["generator"].isin(["real", "cart"])]
    assert U.utility_findings(res3, n_test=1000)["holds"].isna().all()


def test_a_single_class_training_split_gives_a_constant_model_without_importance():
    # a synthetic training split can hold one class only: the model predicts it everywhere,
    # and no feature matters (permutation importance would be 0 up to nothing)
    X = pd.DataFrame({"a": [0, 1, 2, 1], "b": [1, 1, 0, 0]})
    y = pd.Series([3, 3, 3, 3])
    model = U._fit(lambda: pytest.fail("no model is trained on one class"), X, y)
    assert model.predict(pd.DataFrame({"a": [5, 0], "b": [0, 9]})).tolist() == [3, 3]
    assert U._importance(model, X, y, n_repeats=3).tolist() == [0.0, 0.0]
