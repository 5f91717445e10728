"""The verdict rows of chapter 3 (``evaluation_protocols.verdict_rows``) against hand
computations on a small hand-made table of repetitions."""

import re

import numpy as np
import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.studies.evaluation_protocols import benchmark as ep

SEED = 7
#: The oracle averages per repetition in another order than pandas does; BCa's bias correction
#: counts the resamples below the estimate, and on 12 repetitions some resamples tie with it up
#: to rounding, so the interval ends may move by a few 1e-4 (the estimates agree to 1e-12).
BCA_TOL = 1e-3
DP = ["privbayes", "mst", "mwem_pgm", "aim"]
NAMES = [
    "b_below_a_rmse_all",
    *[
        f"b_below_a_rmse_{spec.label.lower()}_{metric}"
        for spec in ep.DATASETS.values()
        for metric in ("f1", "accuracy")
    ],
    "b_below_a_rmse_f1_eps_ge_15",
    "mwem_pgm_a_optimistic",
    "a_rmse_falls_with_eps",
    "b_rmse_falls_with_eps",
    "better_generators_truth_f1",
    "better_generators_truth_accuracy",
    "aim_best_truth_f1",
]


def _rms(v, axis=-1):
    return np.sqrt(np.mean(v, axis=axis))


@pytest.fixture(scope="module")
def raw():
    """Diabetes and Cardio, four DP generators and the bootstrap, ε ∈ {0.1, 10}, 12 repetitions;
    A's errors wider than B's and wider at small ε, MWEM-PGM optimistic in A, AIM best, the
    bootstrap with errors that would swamp every row if it were not left out."""
    rng = np.random.default_rng(0)
    rows = []
    for dataset in ("pima_diabetes", "cardio"):
        for gen in [*DP, "bootstrap"]:
            for eps in (0.1, 10.0):
                for rep in range(12):
                    for prot in ("A", "B"):
                        for metric in ("f1", "accuracy"):
                            truth = rng.uniform(0.4, 0.7) + 0.2 * (gen == "aim")
                            sd = (0.2 if prot == "A" else 0.05) * (3 if eps < 1 else 1)
                            bias = 0.3 * (gen == "mwem_pgm" and prot == "A") + 5 * (
                                gen == "bootstrap"
                            )
                            rows.append(
                                {
                                    "dataset": dataset,
                                    "generator": gen,
                                    "epsilon": eps,
                                    "protocol": prot,
                                    "classifier": "linear_svm",
                                    "metric": metric,
                                    "estimate": truth + bias + rng.normal(0, sd),
                                    "truth": truth,
                                    "rep": rep,
                                }
                            )
    out = pd.DataFrame(rows)
    out.loc[0, "estimate"] = np.nan  # an accuracy undefined at a tiny ε: left out
    return out


@pytest.fixture(scope="module")
def table(raw):
    return verdicts.verdict_table(ep.verdict_rows(raw, DP, random_state=SEED)).set_index("finding")


def _mean_by_rep(frame, values):
    """Per repetition, the mean of ``values`` over the frame's rows (a plain loop, NaN out)."""
    out = []
    for rep in sorted(frame.rep.unique()):
        v = values[(frame.rep == rep).to_numpy()]
        out.append(np.mean(v[~np.isnan(v)]))
    return np.array(out)


def _squared(frame):
    return ((frame.estimate - frame.truth) ** 2).to_numpy()


def _row(table, name):
    return table.loc[name]


def test_rows_are_the_papers_findings_in_order(table):
    assert list(table.index) == NAMES
    assert (table.section == ep.SECTION).all()
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)


def test_b_below_a_is_the_paired_bootstrap_of_the_rmse(raw, table):
    dp = raw[raw.generator.isin(DP)]
    a, b = dp[dp.protocol == "A"], dp[dp.protocol == "B"]
    ms_a, ms_b = _mean_by_rep(a, _squared(a)), _mean_by_rep(b, _squared(b))
    expected = verdicts.paired_interval(ms_b, ms_a, _rms, random_state=SEED)
    row = _row(table, "b_below_a_rmse_all")
    assert (row.estimate, row.lower, row.upper) == pytest.approx(
        (expected.estimate, expected.lower, expected.upper), abs=BCA_TOL
    )
    assert row.n == 12 and row.method == "paired-bootstrap-bca"
    # the estimate is the pooled RMSE of the paper's errors (balanced cells, one NaN left out)
    pooled = np.sqrt(np.nanmean(_squared(b))) - np.sqrt(np.nanmean(_squared(a)))
    assert row.estimate == pytest.approx(pooled, abs=1e-3)
    assert row.verdict == "holds" and (row.claim_low, row.claim_high) == (-np.inf, 0.0)

    cardio_f1 = (dp.dataset == "cardio") & (dp.metric == "f1")
    a, b = dp[cardio_f1 & (dp.protocol == "A")], dp[cardio_f1 & (dp.protocol == "B")]
    expected = verdicts.paired_interval(
        _mean_by_rep(b, _squared(b)), _mean_by_rep(a, _squared(a)), _rms, random_state=SEED
    )
    row = _row(table, "b_below_a_rmse_cardio_f1")
    assert (row.estimate, row.lower, row.upper) == pytest.approx(
        (expected.estimate, expected.lower, expected.upper), abs=BCA_TOL
    )


def test_cells_the_run_did_not_compute_are_undetermined_with_n_0(table):
    for name, why in (
        ("b_below_a_rmse_liver_f1", "Liver is not in this preset"),
        ("b_below_a_rmse_thyroid_accuracy", "Thyroid is not in this preset"),
        ("b_below_a_rmse_f1_eps_ge_15", "largest ε is 10"),
    ):
        row = _row(table, name)
        assert row.n == 0 and row.verdict == "undetermined" and np.isnan(row.estimate)
        assert why in row.note
    assert all(_row(table, n).note == "" for n in NAMES if _row(table, n).n > 0)


def test_high_epsilon_row_uses_only_f1_at_epsilon_15_or_more(raw):
    high = raw[(raw.epsilon == 10.0)].assign(epsilon=20.0)
    rows = ep.verdict_rows(pd.concat([raw, high]), DP, random_state=SEED)
    row = next(r for r in rows if r["finding"] == "b_below_a_rmse_f1_eps_ge_15")
    dp = high[high.generator.isin(DP) & (high.metric == "f1")]
    a, b = dp[dp.protocol == "A"], dp[dp.protocol == "B"]
    assert row["n"] == 12
    assert row["estimate"] == pytest.approx(
        np.sqrt(np.mean(_squared(b))) - np.sqrt(np.mean(_squared(a)))
    )


def test_mwem_pgm_optimism_is_the_bootstrap_of_the_mean_error(raw, table):
    a = raw[(raw.generator == "mwem_pgm") & (raw.protocol == "A")]
    expected = verdicts.bootstrap_interval(
        _mean_by_rep(a, (a.estimate - a.truth).to_numpy()), random_state=SEED
    )
    row = _row(table, "mwem_pgm_a_optimistic")
    assert (row.estimate, row.lower, row.upper) == pytest.approx(
        (expected.estimate, expected.lower, expected.upper), abs=BCA_TOL
    )
    assert row.verdict == "holds"  # a bias of 0.3 against an error SD of 0.2-0.6 per cell


def test_error_falls_with_epsilon_compares_small_and_large_epsilon(raw, table):
    for prot in ("A", "B"):
        dp = raw[raw.generator.isin(DP) & (raw.protocol == prot)]
        small, large = dp[dp.epsilon <= 1], dp[dp.epsilon >= 3]
        expected = verdicts.paired_interval(
            _mean_by_rep(small, _squared(small)),
            _mean_by_rep(large, _squared(large)),
            _rms,
            random_state=SEED,
        )
        row = _row(table, f"{prot.lower()}_rmse_falls_with_eps")
        assert (row.estimate, row.lower, row.upper) == pytest.approx(
            (expected.estimate, expected.lower, expected.upper), abs=BCA_TOL
        )
        assert row.verdict == "holds"


def test_generator_rows_compare_the_true_performance_of_protocol_b(raw, table):
    b = raw[(raw.protocol == "B") & (raw.metric == "f1")]
    better = b[b.generator.isin(["aim", "mwem_pgm"])]
    other = b[b.generator.isin(["privbayes", "mst"])]
    expected = verdicts.paired_interval(
        _mean_by_rep(better, better.truth.to_numpy()),
        _mean_by_rep(other, other.truth.to_numpy()),
        random_state=SEED,
    )
    row = _row(table, "better_generators_truth_f1")
    assert (row.estimate, row.lower, row.upper) == pytest.approx(
        (expected.estimate, expected.lower, expected.upper), abs=BCA_TOL
    )
    means = b[b.generator.isin(DP)].groupby("generator").truth.mean()
    row = _row(table, "aim_best_truth_f1")
    assert row.estimate == pytest.approx(means["aim"] - means.drop("aim").max())
    assert row.n == 12 and row.verdict == "holds"  # AIM 0.2 above the rest


def test_aim_best_fails_when_aim_is_the_worst(raw):
    worst = raw.copy()
    worst.loc[worst.generator == "aim", "truth"] -= 0.5
    rows = ep.verdict_rows(worst, DP, random_state=SEED)
    row = next(r for r in rows if r["finding"] == "aim_best_truth_f1")
    assert row["upper"] < 0 and row["verdict"] == "fails"


def test_generators_outside_the_run_give_rows_without_interval(raw):
    rows = ep.verdict_rows(raw, ["privbayes", "mst"], random_state=SEED)
    by_name = {r["finding"]: r for r in rows}
    for name in ("mwem_pgm_a_optimistic", "better_generators_truth_f1", "aim_best_truth_f1"):
        assert by_name[name]["n"] == 0 and by_name[name]["verdict"] == "undetermined"
        assert by_name[name]["note"].startswith("not run: ")


def test_missing_column_is_named(raw):
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['rep'\]"):
        ep.verdict_rows(raw.drop(columns="rep"), DP)


# ---------------------------------------------------------------------------------------------
# Repetitions per cell (the paper: PrivMRF only 10 times on Cardio and Thyroid)
# ---------------------------------------------------------------------------------------------
def _grid():
    return ep.build_grid(
        datasets_=["pima_diabetes", "hypothyroid_allhypo", "cardio"],
        generators=["mst", "privmrf", "bootstrap"],
        epsilon=[1, 10],
        delta=1e-5,
        classifiers=["linear_svm"],
        max_rows=None,
    )


def test_repetitions_give_privmrf_the_papers_ten_on_cardio_and_thyroid():
    cells = _grid()
    paper = {"privmrf": {"cardio": 10, "hypothyroid_allhypo": 10}}
    count = ep.repetitions(100, paper)
    few = [(c["dataset"], c["generator"], c["epsilon"]) for c in cells if count(c) == 10]
    assert few == [
        ("hypothyroid_allhypo", "privmrf", 1.0),
        ("hypothyroid_allhypo", "privmrf", 10.0),
        ("cardio", "privmrf", 1.0),
        ("cardio", "privmrf", 10.0),
    ]
    assert sum(map(count, cells)) == 100 * (len(cells) - 4) + 10 * 4


def test_repetitions_without_exceptions_are_n_reps_everywhere():
    cells = _grid()
    assert {ep.repetitions(10, {})(c) for c in cells} == {10}
    assert {ep.repetitions(7, {"privmrf": {"cardio": 7}})(c) for c in cells} == {7}


@pytest.mark.parametrize(
    "generator_reps, message",
    [
        ({"privmfr": {"cardio": 10}}, "generator_reps: unknown generator 'privmfr'"),
        ({"privmrf": {"thyroid": 10}}, "generator_reps['privmrf']: unknown dataset 'thyroid'"),
        ({"privmrf": {"cardio": 0}}, "generator_reps['privmrf']['cardio'] must be an integer"),
        ({"privmrf": {"cardio": 2.5}}, "must be an integer >= 1, got 2.5"),
    ],
)
def test_repetitions_name_a_bad_entry(generator_reps, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        ep.repetitions(10, generator_reps)


def test_repetitions_name_a_bad_n_reps():
    with pytest.raises(ValueError, match="n_reps must be >= 1, got 0"):
        ep.repetitions(0, {})
