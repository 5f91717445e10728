"""The findings of Giles et al. (2022) as verdict rows (feature_importance.findings), checked
against hand computations on a small hand-made run: shares of runs against SciPy's
Clopper–Pearson interval, paired comparisons against verdicts.paired_interval on the same
runs, failed runs left out, cells the run does not have undetermined with n = 0."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import verdicts
from synthtrust.studies import feature_importance as fi

SEED = 11
REPS = 12
REAL_IMP = '{"X0": 0.5, "X1": 0.4, "X2": 0.1}'
SWAPPED = '{"X0": 0.1, "X1": 0.2, "X2": 0.7}'  # top two {X2, X1}: not the real one


def _fake_run():
    """Twelve runs (at least verdicts.MIN_BOOTSTRAP_REPLICATES in every cell): paper-compatible
    PrivBayes whose RBO rises with ε on Polish and Household, PATE-CTGAN at ε = 1, independent
    resampling, two subsample fractions on Polish, Artificial 1 whose top two is the real one in
    3 of 12 runs at ε = 0.01; the ε = 10 Polish cell fails in run 4. No Adult, no ε-DP
    PrivBayes."""
    noise = np.random.default_rng(0).normal(0, 0.03, size=(REPS, 32))
    rows = []

    def add(dataset, generator, level, rep, rbo, **kw):
        k = len(rows) % 32
        rows.append(
            {
                "dataset": dataset,
                "generator": generator,
                "level": level,
                "rep": rep,
                "method": "shap",
                "failed": False,
                "rbo": rbo + noise[rep, k],
                "corr_rbo": rbo + noise[rep, k] + 0.05 * (rep % 2),
                "cosine": 0.9 + noise[rep, k] / 3,
                "auc_synthetic": 0.7 + noise[rep, k],
                "auc_real": 0.8,
                "importance": "{}",
                **kw,
            }
        )

    for rep in range(REPS):
        for d, base in (("polish", 0.4), ("household", 0.1)):
            for e, bump in ((0.01, 0.0), (0.1, 0.1), (1.0, 0.2), (10.0, 0.4)):
                add(
                    d,
                    "privbayes_ds",
                    e,
                    rep,
                    base + bump,
                    failed=(d, e, rep) == ("polish", 10.0, 4),
                )
            add(d, "pate_ctgan", 1.0, rep, 0.05)
            add(d, "independent", np.nan, rep, base + 0.1)
        add("polish", "subsample", 0.01, rep, 0.2 + 0.04 * rep)
        add("polish", "subsample", 0.1, rep, 0.6 + 0.002 * rep)
        add(
            "artificial_1",
            "privbayes_ds",
            0.01,
            rep,
            0.5,
            importance=REAL_IMP if rep < 3 else SWAPPED,
        )
        add("artificial_1", "privbayes_ds", 1.0, rep, 0.9, importance=REAL_IMP)
    raw = pd.DataFrame(rows)
    raw.loc[raw.failed, ["rbo", "corr_rbo", "cosine", "auc_synthetic"]] = np.nan
    real = pd.DataFrame(
        [
            {
                "dataset": d,
                "rep": rep,
                "method": "shap",
                "importance": REAL_IMP,
                "rbo": 0.45 + 0.01 * rep,
            }
            for d in ("polish", "household", "artificial_1")
            for rep in range(REPS)
        ]
    )
    return raw, real


@pytest.fixture(scope="module")
def run():
    raw, real = _fake_run()
    rows = fi.verdict_rows(raw, real, "shap", seed=SEED, section="fi-verdicts")
    return raw, real, verdicts.verdict_table(rows).set_index("finding")


def _cell(raw, dataset, generator, level, col="rbo"):
    c = raw[(raw.dataset == dataset) & (raw.generator == generator) & ~raw.failed]
    c = c[c.level.isna()] if level is None else c[c.level == level]
    return c.set_index("rep")[col]


def _same(row, interval):
    assert row.n == interval.n
    assert (row.estimate, row.lower, row.upper) == pytest.approx(
        (interval.estimate, interval.lower, interval.upper), abs=1e-12
    )


def test_a_share_of_runs_is_clopper_pearson(run):
    _, _, t = run
    row = t.loc["a1_top2"]
    ci = stats.binomtest(3, 12).proportion_ci(0.95, "exact")
    assert row.n == REPS and row.estimate == pytest.approx(3 / 12)
    assert (row.lower, row.upper) == pytest.approx((ci.low, ci.high))
    assert (row.claim_low, row.claim_high) == (0.5, math.inf)
    assert row.verdict == verdicts.decide(ci.low, ci.high, 0.5, math.inf) == "undetermined"
    assert row.method == "clopper-pearson" and row.section == "fi-verdicts"


def test_comparisons_on_the_same_runs_are_paired_and_failed_runs_left_out(run):
    raw, real, t = run
    hi, lo = _cell(raw, "polish", "privbayes_ds", 10.0), _cell(raw, "polish", "privbayes_ds", 0.01)
    assert len(hi) == REPS - 1  # run 4 failed at ε = 10
    trend = verdicts.paired_interval(hi, lo.drop(index=4), random_state=SEED)
    _same(t.loc["trend_polish"], trend)
    assert t.loc["trend_polish"].verdict == "holds" and t.loc["trend_polish"].n == REPS - 1
    ind = _cell(raw, "polish", "independent", None)
    _same(t.loc["independent_polish"], verdicts.paired_interval(ind, lo, random_state=SEED))
    # ε ≤ 0.4: the largest such ε (0.1) against the higher of the two baselines, run by run
    perm = real[real.dataset == "polish"].set_index("rep").rbo
    base = np.maximum(perm, ind)
    low = verdicts.paired_interval(
        _cell(raw, "polish", "privbayes_ds", 0.1), base, random_state=SEED
    )
    _same(t.loc["low_eps_polish"], low)
    assert t.loc["low_eps_polish"].claim_high == 0.05
    pate = verdicts.paired_interval(
        _cell(raw, "polish", "privbayes_ds", 1.0),
        _cell(raw, "polish", "pate_ctgan", 1.0),
        random_state=SEED,
    )
    _same(t.loc["pb_vs_pate_polish"], pate)


def test_dataset_means_over_eps_and_the_subsample_sd(run):
    raw, _, t = run

    def over_eps(d):
        cells = [_cell(raw, d, "privbayes_ds", e) for e in (0.01, 0.1, 1.0, 10.0)]
        return pd.concat(cells, axis=1).mean(axis=1)  # a failed cell: the mean of the others

    hh = verdicts.paired_interval(over_eps("household"), over_eps("polish"), random_state=SEED)
    _same(t.loc["household_below_polish"], hh)
    assert t.loc["household_below_polish"].verdict == "holds"
    big, small = _cell(raw, "polish", "subsample", 0.1), _cell(raw, "polish", "subsample", 0.01)
    sd = verdicts.paired_interval(
        big, small, lambda x, axis=-1: np.std(x, axis=axis, ddof=1), random_state=SEED
    )
    _same(t.loc["subsample_sd_falls_polish"], sd)
    assert t.loc["subsample_sd_falls_polish"].estimate == pytest.approx(big.std() - small.std())


def test_auc_gap_and_the_corr_rbo_theorem(run):
    raw, _, t = run
    pb = raw[raw.generator == "privbayes_ds"]
    top = pb[(pb.level == pb.groupby("dataset")["level"].transform("max")) & ~pb.failed]
    per_run = top.groupby("rep")[["auc_real", "auc_synthetic"]].mean()
    gap = verdicts.paired_interval(per_run.auc_real, per_run.auc_synthetic, random_state=SEED)
    _same(t.loc["auc_gap"], gap)
    assert (t.loc["auc_gap"].claim_low, t.loc["auc_gap"].claim_high) == (0.0, 0.1)
    ok = raw[(raw.generator == "privbayes_ds") & ~raw.failed]
    row = t.loc["corr_ge_rbo"]
    assert row.estimate == row.lower == row.upper == pytest.approx(0.0, abs=1e-12)
    assert row.n == len(ok) and row.method == "exact" and row.verdict == "holds"


def test_cells_the_run_does_not_have_are_undetermined_with_n_zero(run):
    _, _, t = run
    absent = ["trend_adult", "adult_above_baselines", "a4_below_a3", "a5_rbo", "trend_polish_dp"]
    for name in absent:
        row = t.loc[name]
        assert row.n == 0 and row.verdict == "undetermined" and np.isnan(row.estimate)
        assert row.note.startswith("not in this run") and "`paper` preset" in row.note
    # the ε-DP PrivBayes did not run: every one of its rows is absent
    assert (t[t.index.str.endswith("_dp")].n == 0).all()
    assert t.index.is_unique and len(t) == 54


def test_every_verdict_follows_from_its_interval_and_reruns_agree(run):
    raw, real, t = run
    for row in t.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
    again = verdicts.verdict_table(fi.verdict_rows(raw, real, "shap", seed=SEED))
    pd.testing.assert_frame_equal(
        again.set_index("finding").drop(columns="section"), t.drop(columns="section")
    )


def test_raw_without_the_similarity_columns_is_rejected():
    raw, real = _fake_run()
    with pytest.raises(ValueError, match="raw must have the column 'rbo'"):
        fi.verdict_rows(raw.drop(columns="rbo"), real, "shap", seed=1)


@pytest.mark.parametrize("failed_runs", [2, 3])
def test_the_smallest_eps_is_the_smallest_measured_one(failed_runs):
    """Household's ε = 0.01 fails in ``failed_runs`` of 12 runs: with 10 trained (the fewest an
    interval takes) it stays the smallest ε and its failed runs are left out; with 9 it is left
    out, the findings at "the smallest ε" are read at ε = 0.1 and the note says why."""
    raw, real = _fake_run()
    hit = (
        (raw.dataset == "household")
        & (raw.generator == "privbayes_ds")
        & (raw.level == 0.01)
        & (raw.rep < failed_runs)
    )
    raw.loc[hit, "failed"] = True
    raw.loc[hit, ["rbo", "corr_rbo", "cosine", "auc_synthetic"]] = np.nan
    t = verdicts.verdict_table(fi.verdict_rows(raw, real, "shap", seed=SEED)).set_index("finding")
    smallest = 0.01 if REPS - failed_runs >= verdicts.MIN_BOOTSTRAP_REPLICATES else 0.1
    low = _cell(raw, "household", "privbayes_ds", smallest)
    assert len(low) == (REPS - failed_runs if smallest == 0.01 else REPS)
    high = _cell(raw, "household", "privbayes_ds", 10.0).loc[low.index]  # the same runs
    _same(t.loc["trend_household"], verdicts.paired_interval(high, low, random_state=SEED))
    ind = verdicts.paired_interval(
        _cell(raw, "household", "independent", None).loc[low.index], low, random_state=SEED
    )
    _same(t.loc["independent_household"], ind)
    left_out = f"ε = 0.01 left out: {REPS - failed_runs} of {REPS} runs trained a forest"
    for name in ("trend_household", "independent_household", "low_eps_household"):
        assert (left_out in t.loc[name].note) == (smallest == 0.1)
    assert "left out" not in t.loc["trend_polish"].note  # Polish's ε = 10: 11 of 12 trained
