"""Tests of synthtrust.studies.hypothesis_validity.multivariate (the multivariate simulation of Montoya
Perez et al. 2024, §4.1 and §5.3, Figures 9–10) against independent oracles.

Oracles: the cardio CSV's columns recomputed here; the copula's conditional draws reproduced
with identically seeded generators; per-record bin assignment written out from the bin
definitions; SciPy's tests on the expanded synthetic records; binomial bands for the Type I
error of the tests on the simulated originals. Seeds are fixed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import datasets, verdicts
from synthtrust.run.experiment import run_grid
from synthtrust.studies.hypothesis_validity import multivariate as hm
from synthtrust.studies.hypothesis_validity import simulation as hv

PAPER_EPS = [0.01, 0.1, 1, 5, 10]
PAPER_SIZES = [50, 100, 500, 1000, 20000]
AGE_CENTRES = np.array([32.5, 37.5, 42.5, 47.5, 52.5, 57.5, 62.5, 67.5])
BMI_CENTRES = np.arange(17.5, 41.0, 1.0)


def gens(seed: int, reps: int) -> list[np.random.Generator]:
    return [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, r))) for r in range(reps)
    ]


def cell(data, method, n, epsilon=None, **extra) -> dict:
    return {
        "data": data,
        "method": method,
        "n": n,
        "m": n,
        "epsilon": epsilon,
        "alpha": 0.05,
        "copula_seed": hm.COPULA_SEED,
        **extra,
    }


# ----------------------------------------------------------------------------- table, copula
def test_cardio_table_columns_and_cleaning():
    raw = datasets.load("cardio")
    bmi = raw["weight"] / (raw["height"] / 100) ** 2
    keep = (bmi >= 10) & (bmi <= 60)
    t = hm.cardio_table()
    assert list(t.columns) == ["cardio", "age", "bmi", "cholesterol", "active"]
    assert len(t) == int(keep.sum()) == 69_928
    assert np.allclose(t["age"], raw.loc[keep, "age"].to_numpy() / 365.25)
    assert np.allclose(t["bmi"], bmi[keep].to_numpy())
    assert set(t["cholesterol"]) == {1, 2, 3} and set(t["active"]) == {0, 1}
    assert set(t["cardio"]) == {0, 1}
    t.loc[0, "age"] = -1.0  # a copy: the cached table is untouched
    assert hm.cardio_table().loc[0, "age"] > 0


def test_cardio_copula_families_and_parameters():
    t = hm.cardio_table()
    g = hm.cardio_copula()
    assert g is hm.cardio_copula()  # cached
    assert g.families_ == hm.COLUMNS
    d = g.describe()
    assert d.loc["age", "loc"] == pytest.approx(t["age"].mean())
    assert d.loc["age", "scale"] == pytest.approx(t["age"].std(ddof=0))
    lo, hi = t["bmi"].min(), t["bmi"].max()
    pad = (hi - lo) / len(t)
    assert d.loc["bmi", "loc"] == pytest.approx(lo - pad)
    assert d.loc["bmi", "scale"] == pytest.approx(hi - lo + 2 * pad)
    for c in ("cardio", "cholesterol", "active"):
        freq = t[c].value_counts(normalize=True).sort_index()
        assert d.loc[c, "levels"] == list(freq.index)
        assert np.allclose(d.loc[c, "probabilities"], freq.to_numpy())
    r = g.correlation_
    # disease goes with older age, higher BMI and cholesterol (the data's known associations)
    assert r.loc["cardio", "age"] > 0.1 and r.loc["cardio", "bmi"] > 0.1
    assert r.loc["cardio", "cholesterol"] > 0.1
    assert np.all(np.linalg.eigvalsh(r.to_numpy()) > 0)


# ------------------------------------------------------------------------------- scenarios
@pytest.mark.parametrize("n", [50, 101, 1000])
def test_nonsignal_scenario_one_class_random_halves(n):
    rngs = gens(1, 3)
    samples = hm.original_samples("nonsignal", n, rngs)
    ref_rngs = gens(1, 3)
    g = hm.cardio_copula()
    for s, r in zip(samples, ref_rngs, strict=True):
        assert list(s.columns) == ["group", "age", "bmi", "cholesterol", "active"]
        assert len(s) == n
        assert (s["group"] == 1).sum() == n // 2 and (s["group"] == 0).sum() == n - n // 2
        # the records are the copula's draws with cardio = 0 (the one class), in draw order
        ref = g.sample(n, conditions={"cardio": 0}, random_state=r)
        assert (ref["cardio"] == 0).all()
        pd.testing.assert_frame_equal(s.drop(columns="group"), ref.drop(columns="cardio"))
        # then the permutation: group 1 is a uniformly random half
        expected = np.zeros(n, dtype=np.int64)
        expected[r.permutation(n)[: n // 2]] = 1
        assert np.array_equal(s["group"].to_numpy(), expected)


def test_signal_scenario_equal_classes():
    n = 1000
    (s,) = hm.original_samples("signal", n, gens(2, 1))
    (r,) = gens(2, 1)
    g = hm.cardio_copula()
    first = g.sample(n // 2, conditions={"cardio": 0}, random_state=r)
    second = g.sample(n - n // 2, conditions={"cardio": 1}, random_state=r)
    assert np.array_equal(s["group"], np.repeat([0, 1], [n // 2, n - n // 2]))
    pd.testing.assert_frame_equal(
        s.drop(columns="group"),
        pd.concat([first, second], ignore_index=True).drop(columns="cardio"),
    )


def test_signal_groups_differ_and_nonsignal_groups_do_not():
    sig = pd.concat(hm.original_samples("signal", 20000, gens(3, 1)))
    non = pd.concat(hm.original_samples("nonsignal", 20000, gens(3, 1)))
    ds = sig.groupby("group")[["age", "bmi", "cholesterol"]].mean().diff().iloc[1]
    dn = non.groupby("group")[["age", "bmi", "cholesterol"]].mean().diff().iloc[1]
    assert ds["age"] > 1.0 and ds["bmi"] > 0.5 and ds["cholesterol"] > 0.05
    assert abs(dn["age"]) < 0.3 and abs(dn["bmi"]) < 0.2 and abs(dn["cholesterol"]) < 0.03


def test_unknown_data_and_bad_n_are_rejected():
    with pytest.raises(ValueError, match="unknown data 'cardio'"):
        hm.original_samples("cardio", 10, gens(0, 1))
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        hm.original_samples("signal", 1, gens(0, 1))


# ------------------------------------------------------------------------- discretisation
def age_band(v: float) -> int:
    if v < 35:
        return 0
    for k, lo in enumerate(range(35, 65, 5), start=1):
        if lo <= v < lo + 5:
            return k
    return 7


def bmi_bin(v: float) -> int:
    if v < 18:
        return 0
    for k in range(1, 23):
        if 17 + k <= v < 18 + k:
            return k
    return 23


def test_bins_are_5_year_bands_and_chapter_1_bmi_bins():
    assert np.array_equal(hm.AGE_BINS.values, AGE_CENTRES)
    assert np.array_equal(hm.BMI_BINS.values, BMI_CENTRES)
    assert np.array_equal(hm.BMI_BINS.cuts, hv.CARDIO_BINS.cuts)
    assert hm.SHAPE == (2, 8, 24, 3, 2)


def test_joint_counts_equal_brute_force():
    samples = hm.original_samples("signal", 300, gens(4, 2))
    samples[0].loc[0, ["age", "bmi"]] = [35.0, 18.0]  # on cut points: the upper bin
    samples[0].loc[1, ["age", "bmi"]] = [70.0, 9.0]
    counts = hm.joint_counts(samples)
    assert counts.shape == (2, 2304)
    for f, c in zip(samples, counts, strict=True):
        expected = np.zeros(hm.SHAPE, dtype=np.int64)
        for row in f.itertuples():
            expected[
                row.group, age_band(row.age), bmi_bin(row.bmi), row.cholesterol - 1, row.active
            ] += 1
        assert np.array_equal(c.reshape(hm.SHAPE), expected)


# ------------------------------------------------------------------------------- the tests
def expand(counts: np.ndarray) -> pd.DataFrame:
    """Synthetic records of one (2304,) count vector, with bin centres as values."""
    idx = np.repeat(np.arange(counts.size), counts)
    g, a, b, ch, ac = np.unravel_index(idx, hm.SHAPE)
    return pd.DataFrame(
        {
            "group": g,
            "age": AGE_CENTRES[a],
            "bmi": BMI_CENTRES[b],
            "cholesterol": ch + 1,
            "active": ac,
        }
    )


def scipy_tests(f: pd.DataFrame) -> dict:
    """SciPy on the records; (pvalue, feasible) by the paper's rules (NaN p: infeasible)."""
    x, y = f[f["group"] == 0], f[f["group"] == 1]
    if len(x) == 0 or len(y) == 0:
        return {t: (np.nan, False) for t in hm.TESTS}
    out = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # SciPy on constant samples
        p = stats.mannwhitneyu(x["cholesterol"], y["cholesterol"]).pvalue
        out["mannwhitneyu"] = (p, bool(np.isfinite(p)))
        p = stats.ttest_ind(x["age"], y["age"]).pvalue if len(x) > 1 and len(y) > 1 else np.nan
        out["ttest_ind"] = (p, bool(np.isfinite(p)))
        try:
            p = stats.median_test(x["bmi"], y["bmi"]).pvalue
        except ValueError:  # all values at or below the grand median
            p = np.nan
        out["median_test"] = (p, bool(np.isfinite(p)))
    table = pd.crosstab(f["group"], f["active"])
    if table.shape != (2, 2):
        out["chi2"] = (np.nan, False)
    else:
        res = stats.chi2_contingency(table.to_numpy())
        out["chi2"] = (res.pvalue, bool((res.expected_freq >= 5).all()))
    return out


def random_counts(rng, reps: int) -> np.ndarray:
    out = []
    for _ in range(reps):
        n = int(rng.choice([6, 30, 200]))
        p = rng.dirichlet(np.full(2304, 0.05))
        out.append(rng.multinomial(n, p))
    return np.array(out)


def test_tests_from_counts_equal_scipy_on_the_expanded_records():
    rng = np.random.default_rng(5)
    counts = random_counts(rng, 25)
    # edge cases: one class only; constant age in both groups; a constant binary
    one_class = np.zeros(hm.SHAPE, dtype=np.int64)
    one_class[0, 3, 5, 0, 1] = 20
    const_age = np.zeros(hm.SHAPE, dtype=np.int64)
    const_age[0, 4, :10, 0, 0] = 3
    const_age[1, 4, 5:15, 1, 1] = 3
    const_bin = np.zeros(hm.SHAPE, dtype=np.int64)
    const_bin[:, 2:6, 8:12, :, 1] = 2
    counts = np.vstack(
        [counts, one_class.reshape(1, -1), const_age.reshape(1, -1), const_bin.reshape(1, -1)]
    )
    got = hm._tests_from_counts(counts)
    for i, c in enumerate(counts):
        want = scipy_tests(expand(c))
        for test, (p, feasible) in want.items():
            assert bool(got[test][1][i]) == feasible, (i, test)
            if feasible:
                assert got[test][0][i] == pytest.approx(p, rel=1e-9, abs=1e-12), (i, test)
    n_feasible = {t: int(f.sum()) for t, (_, f) in got.items()}
    assert 0 < n_feasible["chi2"] < n_feasible["mannwhitneyu"] <= len(counts) - 1
    assert not any(got[t][1][-3] for t in hm.TESTS)  # one class only: nothing runs
    assert not got["ttest_ind"][1][-2] and got["mannwhitneyu"][1][-2]
    assert not got["chi2"][1][-1]


def test_real_method_runs_the_tests_on_the_raw_records():
    n = 200
    params = cell("signal", "real", n)
    out = hm.multivariate_cell(params, gens(6, 3))
    samples = hm.original_samples("signal", n, gens(6, 3))
    for i, f in enumerate(samples):
        x, y = f[f["group"] == 0], f[f["group"] == 1]
        rows = out[out["rep"] == i].set_index("test")
        assert rows.loc["ttest_ind", "pvalue"] == pytest.approx(
            stats.ttest_ind(x["age"], y["age"]).pvalue, rel=1e-9
        )
        assert rows.loc["median_test", "pvalue"] == pytest.approx(
            stats.median_test(x["bmi"], y["bmi"]).pvalue, rel=1e-9
        )
        assert rows.loc["mannwhitneyu", "pvalue"] == pytest.approx(
            stats.mannwhitneyu(x["cholesterol"], y["cholesterol"]).pvalue, rel=1e-9
        )
        res = stats.chi2_contingency(pd.crosstab(f["group"], f["active"]).to_numpy())
        assert rows.loc["chi2", "pvalue"] == pytest.approx(res.pvalue, rel=1e-9)
        assert rows.loc["chi2", "feasible"] == bool((res.expected_freq >= 5).all())


# ---------------------------------------------------------------------------- cells, grid
def test_cell_output_format_and_reproducibility():
    params = cell("nonsignal", "mwem", 100, 1.0)
    a = hm.multivariate_cell(params, gens(7, 4))
    b = hm.multivariate_cell(params, gens(7, 4))
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["rep", "test", "variable", "pvalue", "reject", "feasible"]
    assert len(a) == 16 and set(a["test"]) == set(hm.TESTS)
    assert dict(zip(a["test"], a["variable"], strict=True)) == hm.TESTS
    assert not (a["reject"] & ~a["feasible"]).any()
    assert (a["reject"] == (a["feasible"] & (a["pvalue"] <= 0.05))).all()
    c = hm.multivariate_cell(params, gens(8, 4))
    assert not np.allclose(a["pvalue"].fillna(-1), c["pvalue"].fillna(-1))


def test_synthetic_size_is_the_original_size():
    params = cell("signal", "perturbed_histogram", 500, 10.0)
    rngs = gens(9, 2)
    samples = hm.original_samples("signal", 500, rngs)
    from synthtrust.synthesizers import perturbed_histogram

    syn = perturbed_histogram(hm.joint_counts(samples), 10.0, n_synthetic=500, random_state=rngs)
    assert (syn.sum(1) == 500).all()
    out = hm.multivariate_cell(params, gens(9, 2))
    want = hm._tests_from_counts(syn)
    for test, (p, _) in want.items():
        assert np.allclose(out.loc[out["test"] == test, "pvalue"], p, equal_nan=True)


def test_unknown_method_is_rejected():
    with pytest.raises(ValueError, match="unknown method 'gan'"):
        hm.multivariate_cell(cell("signal", "gan", 50, 1.0), gens(0, 1))


def test_build_grid_is_figures_9_and_10():
    cells = hm.build_multivariate_grid(
        methods=["real", "private_pgm", "mwem"],
        sizes=PAPER_SIZES,
        epsilon=PAPER_EPS,
        pgm_max_iter=1000,
    )
    assert len(cells) == 2 * (5 + 2 * 5 * 5)
    real = [c for c in cells if c["method"] == "real"]
    assert len(real) == 10 and all(c["epsilon"] is None for c in real)
    assert all(c["m"] == c["n"] and c["alpha"] == 0.05 for c in cells)
    assert all(("iters" in c) == (c["method"] == "private_pgm") for c in cells)
    assert {c["data"] for c in cells} == {"nonsignal", "signal"}
    assert {(c["n"], c["epsilon"]) for c in cells if c["method"] == "mwem"} == {
        (n, float(e)) for n in PAPER_SIZES for e in PAPER_EPS
    }
    with pytest.raises(ValueError, match="unknown method"):
        hm.build_multivariate_grid(methods=["smoothed_histogram"], sizes=[50], epsilon=[1])
    with pytest.raises(ValueError, match="unknown data"):
        hm.build_multivariate_grid(methods=["real"], sizes=[50], epsilon=[1], data=["cardio"])


def test_tiny_run_error_rates_are_proportions_and_reproducible():
    cells = hm.build_multivariate_grid(
        methods=["real", "mwem", "perturbed_histogram"], sizes=[50, 500], epsilon=[0.1, 10]
    )
    raw = run_grid(hm.multivariate_cell, cells, 6, seed=3, n_jobs=1, progress=False, chunk_size=3)
    again = run_grid(hm.multivariate_cell, cells, 6, seed=3, n_jobs=1, progress=False, chunk_size=6)
    pd.testing.assert_frame_equal(raw, again)
    rates = hv.error_rates(raw)
    assert len(rates) == len(cells) * 4
    ok = rates["rate"].dropna()
    assert len(ok) > 0 and ok.between(0, 1).all()
    assert (rates.loc[rates["data"] == "nonsignal", "error"] == "Type I").all()
    assert (rates.loc[rates["data"] == "signal", "error"] == "Type II").all()
    assert (rates["n_feasible"] <= rates["n_reps"]).all()


@pytest.mark.slow
def test_private_pgm_runs_on_the_five_column_table():
    params = cell("nonsignal", "private_pgm", 100, 1.0, iters=100)
    out = hm.multivariate_cell(params, gens(10, 2))
    assert len(out) == 8 and out["feasible"].any()
    again = hm.multivariate_cell(params, gens(10, 2))
    pd.testing.assert_frame_equal(out, again)


@pytest.fixture(scope="module")
def nominal_rates():
    raw = run_grid(
        hm.multivariate_cell,
        [cell("nonsignal", "real", 1000)],
        300,
        seed=11,
        n_jobs=1,
        progress=False,
    )
    return hv.error_rates(raw).set_index("test")


@pytest.mark.parametrize("test", list(hm.TESTS))
def test_type_i_error_on_the_simulated_original_is_nominal(test, nominal_rates):
    """Non-signal originals: the tests on the raw data hold their level (binomial band)."""
    rates = nominal_rates
    k = round(rates.loc[test, "rate"] * rates.loc[test, "n_feasible"])
    assert rates.loc[test, "n_feasible"] == 300
    assert stats.binomtest(int(k), 300, 0.05).pvalue > 0.001


# ----------------------------------------------------------------------------------- verdicts
def _cell(data, method, n, epsilon, errors, n_feasible, n_reps, test="mannwhitneyu"):
    """A hand-made replicate table of one cell: ``errors`` of ``n_feasible`` feasible ones."""
    feasible = np.arange(n_reps) < n_feasible
    error = np.arange(n_reps) < errors
    reject = error if data == "nonsignal" else ~error
    return pd.DataFrame(
        {"data": data, "method": method, "n": n, "m": n, "epsilon": epsilon,
         "rep": np.arange(n_reps), "test": test, "reject": reject & feasible,
         "feasible": feasible}
    )  # fmt: skip


def test_a_rate_needs_min_feasible_datasets():
    raw = pd.concat(
        [
            _cell("nonsignal", "private_pgm", 50, 0.1, 5, hm.MIN_FEASIBLE - 1, 200),
            _cell("nonsignal", "private_pgm", 50, 1.0, 5, hm.MIN_FEASIBLE, 200),
        ],
        ignore_index=True,
    )
    rates = hm.error_rates(raw)
    assert hm.MIN_FEASIBLE == 50
    assert np.isnan(rates.rate.iloc[0]) and rates.n_feasible.iloc[0] == 49
    assert rates.rate.iloc[1] == pytest.approx(5 / 50)
    ci = stats.binomtest(5, 50).proportion_ci(method="exact")
    assert (rates.lo.iloc[1], rates.hi.iloc[1]) == pytest.approx((ci.low, ci.high))


def test_verdict_rows_of_a_hand_made_multivariate_run():
    tests = list(hm.TESTS)
    raw = pd.concat(
        [_cell("nonsignal", "private_pgm", 20000, 10.0, 2, 100, 100, t) for t in tests]
        + [_cell("nonsignal", "private_pgm", 50, 0.01, 5, 60, 100, "chi2"),
           _cell("nonsignal", "private_pgm", 50, 0.1, 40, 100, 100, "chi2"),
           _cell("nonsignal", "mwem", 50, 1.0, 30, 40, 100)],
        ignore_index=True,
    )  # fmt: skip
    table = verdicts.verdict_table(hm.verdict_rows(hm.error_rates(raw), section="s"))
    got = table.set_index("finding")
    valid = got.loc["mv_private_pgm_type1_close_to_alpha_largest"]
    ci = stats.binomtest(2, 100).proportion_ci(method="exact")
    assert (valid.lower, valid.upper) == pytest.approx((ci.low, ci.high))
    assert valid.verdict == "holds" and "every one of 4 cells" in valid.note
    drop = got.loc["mv_private_pgm_type1_drops_at_eps_0_01"]
    lo1, hi1 = stats.binomtest(5, 60).proportion_ci(0.975, "exact")
    lo2, hi2 = stats.binomtest(40, 100).proportion_ci(0.975, "exact")
    assert (drop.lower, drop.upper) == pytest.approx((lo1 - hi2, hi1 - lo2))
    assert drop.verdict == "holds"
    # MWEM's only cell below ε = 5 has 40 feasible datasets (< 50): no rate, undetermined
    mwem = got.loc["mv_mwem_type1_high_elsewhere"]
    assert mwem.n == 0 and mwem.verdict == "undetermined" and "too few" in mwem.note
    assert got.loc["mv_mwem_type1_close_to_alpha_largest"].n == 0  # not in the grid
    # Table S1: 40 of the PGM chi2 datasets at ε = 0.01 and 60 of MWEM's are unusable
    occur = got.loc["mv_unusable_nonsignal_occur_at_eps_below_5"]
    ci = stats.binomtest(60, 100).proportion_ci(method="exact")
    assert occur.verdict == "holds" and (occur.lower, occur.upper) == pytest.approx(
        (ci.low, ci.high)
    )
    none = got.loc["mv_unusable_nonsignal_none_at_n20000_or_eps_ge_5"]
    ci = stats.binomtest(0, 100).proportion_ci(method="exact")
    assert none.upper == pytest.approx(ci.high) and none.verdict == "undetermined"
    assert got.loc["mv_unusable_signal_occur_at_eps_below_5"].n == 0
    ends = zip(table.lower, table.upper, table.claim_low, table.claim_high, strict=True)
    assert (table.verdict == [verdicts.decide(*v) for v in ends]).all()


def test_share_of_cells_below_the_original_counts_decided_cells():
    raw = pd.concat(
        [_cell("signal", "real", 50, None, 60, 100, 100)]
        + [_cell("signal", "private_pgm", 50, e, k, 100, 100) for e, k in [(0.1, 5), (1.0, 95)]]
        + [_cell("signal", "mwem", 50, 1.0, 58, 100, 100)],
        ignore_index=True,
    )
    row = next(r for r in hm.verdict_rows(hm.error_rates(raw)) if r["finding"].endswith("often"))
    # three cells at Bonferroni level 1 - 0.05/3: one below (5 vs 60), one above (95 vs 60),
    # one undecided (58 vs 60): the share lies in [1/3, 2/3], estimate 2/3 (two points below)
    assert (row["lower"], row["estimate"], row["upper"]) == pytest.approx((1 / 3, 2 / 3, 2 / 3))
    assert row["verdict"] == "undetermined" and row["n"] == 100
