"""Tests of synthtrust.studies.hypothesis_validity.gan (chapter 1's DP GAN rows) against independent
oracles: explicit bin assignment, SciPy's tests on the expanded synthetic data, GSWGAN fitted
directly with the same seed, ``scipy.stats.beta`` for the generator-level Clopper–Pearson band,
and run_grid's seeding rules. The GAN runs are tiny (n = 800, K = 20 critics, 2 pretraining
iterations, hidden width 8): seconds, not the paper's minutes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import verdicts
from synthtrust.binomial import clopper_pearson
from synthtrust.privacy.rdp import gswgan_epsilon
from synthtrust.run.experiment import replicate_rngs, run_grid
from synthtrust.studies.hypothesis_validity import gan as hg
from synthtrust.studies.hypothesis_validity import simulation as hv
from synthtrust.synthesizers import GSWGAN

TINY = {"pretrain_iterations": 2, "hidden": 8}
EPS = [8.0, 20.0]
SIZES = [1, 50, 200]


def tiny_grid(data=("nonsignal",), n_sets=2, sizes=SIZES):
    return hg.build_gan_grid(
        data=list(data), n=800, epsilons=EPS, sizes=sizes, n_sets=n_sets, alpha=0.05, gan=TINY
    )


@pytest.fixture(scope="module")
def tiny_results():
    grid = tiny_grid(data=("nonsignal", "cardio"))
    return grid, run_grid(hg.gan_cell, grid, n_reps=2, seed=3, n_jobs=1, progress=False)


# -------------------------------------------------------------------------------- data helpers
def test_binned_table_and_counts_match_explicit_bins():
    x = np.array([0.5, 1.0, 2.0, 49.99, 50.0, 100.0, 250.0])
    y = np.array([-3.0, 75.5])
    table = hg.binned_table(x, y, hv.GAUSSIAN_BINS)
    # bin k (0-based) holds [k + 1, k + 2); the first bin everything < 2, the last ≥ 100
    assert table["value"].tolist() == [0, 0, 1, 48, 49, 99, 99, 0, 74]
    assert table["group"].tolist() == [0] * 7 + [1] * 2
    counts = hg.table_counts(table, hv.GAUSSIAN_BINS.n_bins)
    expected = np.zeros((2, 100), int)
    for g, v in zip(table["group"], table["value"], strict=True):
        expected[g, v] += 1
    np.testing.assert_array_equal(counts, expected)
    assert counts[1, 0] == 1 and counts[1, 74] == 1 and counts[0, 99] == 2


# ---------------------------------------------------------------------------------- the cell
def test_cell_shape_checkpoints_and_feasibility(tiny_results):
    grid, res = tiny_results
    assert len(grid) == 2 and grid[0]["method"] == hg.METHOD == "dp_gan"
    per_generator = len(EPS) * len(SIZES) * 2 * len(hv.TESTS)
    assert len(res) == 2 * 2 * per_generator
    for col in [
        "rep",
        "epsilon",
        "iterations",
        "epsilon_spent",
        "m",
        "set",
        "test",
        "pvalue",
        "reject",
        "feasible",
    ]:
        assert col in res.columns
    # the checkpoint ε's are the requested ones; what was spent is at most that, grows with ε
    assert sorted(res["epsilon"].unique()) == EPS
    assert (res["epsilon_spent"] <= res["epsilon"]).all() and (res["epsilon_spent"] > 0).all()
    its = res.groupby(["data", "rep", "epsilon"])["iterations"].agg(["min", "max"])
    assert (its["min"] == its["max"]).all()  # one training per generator
    for (_, _), g in its.groupby(level=[0, 1]):
        assert g["min"].is_monotonic_increasing
    assert set(res["m"]) == set(SIZES) and set(res["set"]) == {0, 1}
    assert set(res["test"]) == set(hv.TESTS)
    # a synthetic set of one record has one group: no test can run; rejections need feasibility
    assert not res.loc[res["m"] == 1, "feasible"].any()
    assert not (res["reject"] & ~res["feasible"]).any()
    feas = res.loc[res["feasible"], "pvalue"]
    assert len(feas) > 0 and feas.between(0, 1).all()
    assert (res.loc[res["feasible"], "reject"] == (feas <= 0.05)).all()


def test_cell_equals_a_direct_fit_and_scipy_on_the_synthetic_data():
    # replicate 0 of the nonsignal cell, rebuilt by hand from the documented draw order:
    # original sample, GSWGAN fit (same generator), then per ε, m, set one sample() call
    cell = tiny_grid(sizes=[50], n_sets=2)[0]
    (rng,) = replicate_rngs(cell, [0], seed=5)
    out = hg.gan_cell(cell, [rng])
    (rng,) = replicate_rngs(cell, [0], seed=5)
    ((x, y),) = hv.original_samples("nonsignal", 800, [rng])
    model = GSWGAN(
        epsilon=20.0,
        checkpoints=EPS,
        domain={"group": 2, "value": 100},
        random_state=rng,
        **hg.GAN_DEFAULTS,
        **TINY,
    ).fit(hg.binned_table(x, y, hv.GAUSSIAN_BINS))
    compared = 0
    for eps in EPS:
        snap = model.at_epsilon(eps)
        for s in range(2):
            syn = snap.sample(50)
            vals = hv.GAUSSIAN_BINS.values[syn["value"].to_numpy()]
            gx, gy = vals[syn["group"].to_numpy() == 0], vals[syn["group"].to_numpy() == 1]
            row = out[(out["epsilon"] == eps) & (out["set"] == s)].set_index("test")
            assert row.loc["mannwhitneyu", "iterations"] == model.checkpoints_[eps][0]
            if len(gx) > 1 and len(gy) > 1:
                p = stats.mannwhitneyu(gx, gy).pvalue
                assert row.loc["mannwhitneyu", "pvalue"] == pytest.approx(p, rel=1e-9, abs=1e-12)
                compared += 1
                p = stats.ttest_ind(gx, gy).pvalue
                if np.isfinite(p):
                    assert row.loc["ttest_ind", "pvalue"] == pytest.approx(p, rel=1e-9, abs=1e-12)
    assert compared >= 2


def test_reproducible_for_a_fixed_seed(tiny_results):
    grid, res = tiny_results
    again = run_grid(hg.gan_cell, grid[:1], n_reps=2, seed=3, n_jobs=1, progress=False)
    first = res[res["data"] == "nonsignal"].reset_index(drop=True)
    pd.testing.assert_frame_equal(again, first[again.columns])
    other = run_grid(hg.gan_cell, grid[:1], n_reps=1, seed=4, n_jobs=1, progress=False)
    assert not np.allclose(
        other["pvalue"].fillna(-1).to_numpy(),
        first.loc[first["rep"] == 0, "pvalue"].fillna(-1).to_numpy(),
    )


def test_the_gan_rows_run_on_dask_with_the_same_results(tiny_results):
    # the paper preset's 3 000 trainings are meant for a cluster: one task per generator
    grid, res = tiny_results
    on_dask = run_grid(
        hg.gan_cell,
        grid[:1],
        n_reps=2,
        seed=3,
        n_jobs=2,
        dask="local",
        chunk_size=1,
        progress=False,
        warm_up=hg.warm_up,
    )
    first = res[res["data"] == "nonsignal"].reset_index(drop=True)
    pd.testing.assert_frame_equal(on_dask, first[on_dask.columns])


# ----------------------------------------------------------------------------- error rates
def test_error_rates_of_a_tiny_run(tiny_results):
    _, res = tiny_results
    rates = hg.gan_error_rates(res, min_feasible=0.0)
    assert set(rates["error"]) == {"Type I", "Type II"}
    assert (rates.loc[rates["data"] == "nonsignal", "error"] == "Type I").all()
    assert (rates.loc[rates["data"] == "cardio", "error"] == "Type II").all()
    ok = rates["rate"].notna()
    assert ok.any()
    r = rates[ok]
    assert (
        r["rate"].between(0, 1).all()
        and (r["lo"] <= r["rate"]).all()
        and (r["rate"] <= r["hi"]).all()
    )
    assert (r["n_generators"] <= 2).all() and (r["n_feasible"] <= r["n_reps"]).all()
    assert (rates.loc[rates["m"] == 1, "n_feasible"] == 0).all()
    assert rates.loc[rates["m"] == 1, "rate"].isna().all()  # no feasible set: no rate


def test_band_counts_generators_not_sets():
    # 4 generators × 5 sets; 7 of the 20 sets reject: rate 0.35; the band is Clopper–Pearson
    # with 4 trials and 1.4 successes (beta quantiles), wider than the per-set band
    reject = np.zeros(20, bool)
    reject[[0, 1, 2, 3, 5, 10, 15]] = True
    res = pd.DataFrame(
        {
            "data": "nonsignal",
            "method": "dp_gan",
            "n": 20000,
            "m": 50,
            "epsilon": 1.0,
            "test": "mannwhitneyu",
            "rep": np.repeat(np.arange(4), 5),
            "reject": reject,
            "feasible": True,
        }
    )
    row = hg.gan_error_rates(res).iloc[0]
    assert (
        row["rate"] == pytest.approx(0.35) and row["n_generators"] == 4 and row["n_feasible"] == 20
    )
    assert row["lo"] == pytest.approx(stats.beta.ppf(0.025, 1.4, 4 - 1.4 + 1))
    assert row["hi"] == pytest.approx(stats.beta.ppf(0.975, 1.4 + 1, 4 - 1.4))
    per_set = stats.binomtest(7, 20).proportion_ci(method="exact")
    assert row["lo"] < per_set.low and row["hi"] > per_set.high
    # all or none rejected: the band reaches 0 or 1
    none = hg.gan_error_rates(res.assign(reject=False)).iloc[0]
    assert none["rate"] == 0 and none["lo"] == 0 and none["hi"] == pytest.approx(1 - 0.025**0.25)


# ----------------------------------------------------------------------------------- grid
def test_build_gan_grid():
    cells = hg.build_gan_grid(data=["nonsignal", "signal", "cardio"])
    assert [c["data"] for c in cells] == ["nonsignal", "signal", "cardio"]
    assert cells[0]["epsilons"] == list(hg.EPSILONS) == [1.0, 2.0, 3.0, 4.0, 5.0, 10.0]
    assert cells[0]["sizes"] == [50, 100, 500, 1000] and cells[0]["n_sets"] == 5
    assert cells[0]["n"] == 20000 and "gan" not in cells[0]
    assert hg.build_gan_grid(data=["cardio"], epsilons=[5, 1])[0]["epsilons"] == [1.0, 5.0]


def test_gan_cells_take_the_chapter_data_options():
    # the paper's options add no key (same seeds and cache keys as before they existed)
    paper = hg.build_gan_grid(data=["signal", "cardio"], bins=[18, 40, 1, 25])
    assert "bins" not in paper[1] and paper[0]["bins"] == (18.0, 40.0, 1.0, 25.0)
    cells = hg.build_gan_grid(
        data=["cardio"],
        n=800,
        epsilons=EPS,
        sizes=[200],
        n_sets=1,
        gan=TINY,
        bins=[100, 180, 20, 140],
        variable="ap_hi",
        group="gender",
    )
    assert cells[0]["bins"] == (100.0, 180.0, 20.0, 140.0)
    assert (cells[0]["variable"], cells[0]["group"]) == ("ap_hi", "gender")
    (rng,) = replicate_rngs(cells[0], [0], seed=1)
    out = hg.gan_cell(cells[0], [rng])
    # the same generator, fitted by hand on 6 bins of systolic pressure by gender
    (rng,) = replicate_rngs(cells[0], [0], seed=1)
    bins = hv.BinnedVariable.regular(100, 180, 20, 140)
    assert bins.n_bins == 6
    ((x, y),) = hv.original_samples("cardio", 800, [rng], variable="ap_hi", group="gender")
    model = GSWGAN(
        epsilon=20.0,
        checkpoints=EPS,
        domain={"group": 2, "value": 6},
        random_state=rng,
        **hg.GAN_DEFAULTS,
        **TINY,
    ).fit(hg.binned_table(x, y, bins))
    syn = model.at_epsilon(8.0).sample(200)
    vals = bins.values[syn["value"].to_numpy()]
    gx, gy = vals[syn["group"].to_numpy() == 0], vals[syn["group"].to_numpy() == 1]
    got = out[(out["epsilon"] == 8.0) & (out["test"] == "mannwhitneyu")]["pvalue"].item()
    assert got == pytest.approx(stats.mannwhitneyu(gx, gy).pvalue, rel=1e-9)
    with pytest.raises(ValueError, match="bins must be"):
        hg.build_gan_grid(data=["cardio"], bins=[1, 2, 3])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(data=["null"]), r"unknown data \['null'\]"),
        (dict(data=["signal"], epsilons=[]), "epsilons must be a non-empty list"),
        (dict(data=["signal"], epsilons=[0.0, 1.0]), "epsilons must be a non-empty list"),
        (dict(data=["signal"], epsilons=[1.0, 1.0]), "epsilons must be distinct"),
        (dict(data=["signal"], sizes=[0]), "sizes must be a non-empty list"),
        (dict(data=["signal"], n_sets=0), "n_sets must be >= 1, got 0"),
    ],
)
def test_build_gan_grid_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hg.build_gan_grid(**kwargs)


def test_accounting_table_of_the_paper_setting():
    # K = 500 critics, B = 32, σ = 1.07, δ = 1e-5: the iterations behind ε = 1 … 10 (as in
    # tests/privacy/test_rdp.py: 15, 249, 4987), the nominal ε just below each label, and the
    # standard per-iteration analysis of the same iterations bracketed by the worst case's lower
    # bound (tests/privacy/test_pld.py: 29.67 ≤ true ε ≤ 29.69 after 15 iterations)
    tab = hg.accounting_table()
    assert tab["epsilon"].tolist() == list(hg.EPSILONS)
    assert tab["iterations"].tolist()[:2] == [15, 249] and tab["iterations"].iloc[-1] == 4987
    reference = GSWGAN(**hg.GAN_DEFAULTS)
    assert [reference.max_iterations(20000, e) for e in hg.EPSILONS] == tab["iterations"].tolist()
    with pytest.raises(ValueError, match="n must be at least subset_size = 40, got 39"):
        reference.max_iterations(39, 1.0)
    assert (tab["epsilon_spent"] <= tab["epsilon"]).all()
    assert (tab["epsilon_spent"] > tab["epsilon"] - 0.01).all()
    assert tab["epsilon_guarantee"].is_monotonic_increasing
    assert (tab["epsilon_lower_bound"] > 5 * tab["epsilon"]).all()
    assert (tab["epsilon_lower_bound"] <= tab["epsilon_guarantee"]).all()
    assert (tab["epsilon_guarantee"] <= 1.03 * tab["epsilon_lower_bound"]).all()
    kw = dict(n_discriminators=500, batch_size=32, noise_multiplier=1.07, delta=1e-5)
    assert tab["epsilon_guarantee"].iloc[-1] == pytest.approx(gswgan_epsilon(4987, **kw))
    assert tab["epsilon_lower_bound"].iloc[0] == pytest.approx(29.67, abs=0.02)


# ----------------------------------------------------------------------------------- verdicts
def _gan_results(n_generators, rejects_lo, rejects_hi, data="nonsignal", m=1000, n_sets=5):
    """Hand-made GAN replicates: generator g rejects rejects_*[g] of its sets at ε = 1 / 10."""
    frames = []
    for eps, rejects in ((1.0, rejects_lo), (10.0, rejects_hi)):
        for g in range(n_generators):
            frames.append(
                pd.DataFrame(
                    {"data": data, "method": "dp_gan", "n": 20000, "m": m, "epsilon": eps,
                     "rep": g, "set": np.arange(n_sets), "test": "mannwhitneyu",
                     "reject": np.arange(n_sets) < rejects[g], "feasible": True}
                )
            )  # fmt: skip
    return pd.concat(frames, ignore_index=True)


def test_generator_rates_are_each_generators_share():
    res = _gan_results(3, [0, 1, 5], [2, 2, 2])
    share = hg.generator_rates(res, data="nonsignal", m=1000, epsilon=1.0)
    assert share.tolist() == [0.0, 0.2, 1.0] and share.index.tolist() == [0, 1, 2]


def test_gan_verdicts_pair_generators_when_there_are_enough():
    rng = np.random.default_rng(0)
    lo, hi = rng.integers(0, 3, 25), rng.integers(1, 6, 25)
    res = _gan_results(25, lo, hi)
    rates = hg.gan_error_rates(res)
    rows = {r["finding"]: r for r in hg.verdict_rows(res, rates, rates.iloc[:0], random_state=7)}
    grows = rows["gan_type1_grows_with_eps"]
    want = verdicts.paired_interval(hi / 5, lo / 5, random_state=7)
    assert (grows["estimate"], grows["lower"], grows["upper"]) == pytest.approx(
        (want.estimate, want.lower, want.upper)
    )
    assert grows["n"] == 25 and grows["method"] == "paired-bootstrap-bca"
    high = rows["gan_type1_high_eps10"]
    cell = rates[np.isclose(rates.epsilon, 10.0)].iloc[0]
    assert (high["lower"], high["upper"], high["n"]) == pytest.approx((cell.lo, cell.hi, 25))
    # no cardio smoothed histogram: the comparison is not computed
    assert rows["gan_type2_below_smoothed_cardio"]["n"] == 0


def test_gan_verdicts_with_few_generators_are_unpaired_and_conservative():
    res = _gan_results(3, [0, 1, 0], [5, 4, 5])
    rates = hg.gan_error_rates(res)
    grows = next(r for r in hg.verdict_rows(res, rates, rates.iloc[:0]) if "grows" in r["finding"])
    lo_k, hi_k = 1 / 15 * 3, 14 / 15 * 3  # pooled rate × generators
    want = clopper_pearson(hi_k, 3, 0.975)[0] - clopper_pearson(lo_k, 3, 0.975)[1]
    assert grows["lower"] == pytest.approx(float(want))
    assert grows["method"] == "clopper-pearson-bonferroni" and grows["n"] == 3


def test_control_table_runs_the_controls_for_the_same_iterations():
    # the uniform row by hand from the same original table; the σ = 0 and WGAN-GP controls run
    # exactly the iterations of GS-WGAN's largest checkpoint; the checkpoint row is the TVD of
    # that snapshot of a direct GS-WGAN fit (same seed); the fits do not depend on n_jobs
    kw = dict(gan=TINY, epsilons=[4.0, 20.0], rows=500, random_state=2)
    table = hg.control_table(800, n_jobs=1, **kw)
    assert list(table["run"]) == ["GS-WGAN", "GS-WGAN", *hg.CONTROLS[1:], "uniform table"]
    runs = table.set_index(["run", "epsilon"])
    ((x, y),) = hv.original_samples("nonsignal", 800, [np.random.default_rng(2)])
    real = hg.table_counts(hg.binned_table(x, y, hv.GAUSSIAN_BINS), 100)
    uniform = 0.5 * np.abs(real / 800 - 1 / 200).sum()
    assert table["tvd"].iloc[-1] == pytest.approx(uniform, rel=1e-12)
    its = int(runs.loc[("GS-WGAN", 20.0), "iterations"])
    assert its == GSWGAN(**hg.GAN_DEFAULTS)._iterations_for(20.0, 20) > 0
    assert [int(v) for v in table["iterations"].iloc[2:4]] == [its, its]
    assert int(table["iterations"].iloc[4]) == 1
    direct = GSWGAN(
        epsilon=20.0,
        checkpoints=[4.0, 20.0],
        domain={"group": 2, "value": 100},
        random_state=2,
        **hg.GAN_DEFAULTS,
        **TINY,
    ).fit(hg.binned_table(x, y, hv.GAUSSIAN_BINS))
    synth = hg.table_counts(direct.at_epsilon(4.0).sample(500), 100)
    expected = 0.5 * np.abs(real / 800 - synth / 500).sum()
    assert runs.loc[("GS-WGAN", 4.0), "tvd"] == pytest.approx(expected, rel=1e-12)
    parallel = hg.control_table(800, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(table.drop(columns="seconds"), parallel.drop(columns="seconds"))
