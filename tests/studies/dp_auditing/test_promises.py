"""Chapter 6's "book's own promises": GS-WGAN's nominal ε against direct calls of the
accountant and the lower bound, the replay table against hand-computed sensitivities, and the
verdict rows that follow from both."""

import math

import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.privacy.rdp import (
    gswgan_epsilon,
    gswgan_epsilon_lower_bound,
    gswgan_max_iterations,
)
from synthtrust.studies.dp_auditing import audits as da
from synthtrust.studies.dp_auditing import promises as dp

#: Chapter 1's GS-WGAN at n = 20 000: K = 500 critics, B = 32, σ = 1.07, δ = 1e-5.
CHAPTER1 = {"n_discriminators": 500, "batch_size": 32, "noise_multiplier": 1.07, "delta": 1e-5}
NOMINAL = {"composition": "per_sample", "conversion": "classic"}


def test_the_nominal_table_is_the_reference_accounting_against_the_worst_case():
    table = dp.gswgan_nominal_table(20000, [10, 1], n_jobs=1, progress=False)
    assert table.nominal_epsilon.tolist() == [1.0, 10.0]  # sorted
    # chapter 1's numbers (issue 47): 15 and 4 987 iterations, true epsilon >= 29.67 and 224.9
    assert table.iterations.tolist() == [15, 4987]
    assert table.epsilon_lower_bound.round(2).tolist()[0] == 29.67
    assert round(table.epsilon_lower_bound.iloc[1], 1) == 224.9
    for row in table.itertuples():
        its = gswgan_max_iterations(row.nominal_epsilon, max_iter=20000, **CHAPTER1, **NOMINAL)
        assert row.iterations == its
        assert row.epsilon_spent == gswgan_epsilon(its, **CHAPTER1, **NOMINAL)
        assert row.epsilon_spent <= row.nominal_epsilon
        assert row.epsilon_lower_bound == gswgan_epsilon_lower_bound(its, **CHAPTER1)
        assert row.epsilon_upper == gswgan_epsilon(its, **CHAPTER1)
        assert row.epsilon_lower_bound <= row.epsilon_upper
    assert (table.verdict == "violation").all()


def test_a_nominal_epsilon_that_is_the_standard_analysis_is_kept():
    """With the standard accounting as the 'nominal' one, the upper bound is the ε spent, at
    most the label: the verdict is "kept", not a violation."""
    standard = {"composition": "per_iteration", "conversion": "pld"}
    gan = {**standard, "noise_multiplier": 20.0, "max_iter": 10}
    table = dp.gswgan_nominal_table(20000, [1], gan, n_jobs=1, progress=False)
    (row,) = table.itertuples()
    assert row.iterations == 10 and row.epsilon_upper == row.epsilon_spent <= 1
    assert row.verdict == "kept"


@pytest.mark.parametrize(
    ("lower", "upper", "claim", "verdict"),
    [(2.0, 3.0, 1.0, "violation"), (0.5, 1.0, 1.0, "kept"), (0.5, 2.0, 1.0, "undetermined")],
)
def test_the_analytic_verdict_follows_from_the_interval(lower, upper, claim, verdict):
    assert dp._analytic_verdict(lower, upper, claim) == verdict


def test_the_replay_passes_the_book_and_reports_the_planted_twin():
    table = dp.replay_table(
        1.0, ["perturbed_histogram", "dp_confusion_matrix"], seed=3, n_jobs=1, progress=False
    ).set_index("name")
    assert list(table.index) == ["perturbed_histogram", "dp_confusion_matrix", da.REPLAY_CONTROL]
    # replace-one on the worst case: the cells of x0 and of the canary move by 1 each, L1 = 2,
    # the declared sensitivity: ratio 1
    hist = table.loc["perturbed_histogram"]
    assert (hist.calls, hist.changed, hist.max_ratio, hist.verdict) == (1, 1, 1.0, "pass")
    # add/remove: the canary adds one true positive, L1 = 1, declared 1
    cm = table.loc["dp_confusion_matrix"]
    assert (cm.relation, cm.max_ratio, cm.verdict) == ("add-remove", 1.0, "pass")
    # the planted twin declares 1 where the L1 change is 2
    twin = table.loc[da.REPLAY_CONTROL]
    assert twin.sequences_match and twin.violation
    assert (twin.max_ratio, twin.verdict) == (2.0, "violation")
    assert twin.worst_caller.endswith("SensitivityIgnored._noise")


def test_both_gswgan_accountings_make_the_same_calls_and_pass():
    """The replay cannot see the accounting: ten sanitiser calls each (max_iter), every one
    with the canary's shard (K = 1), so the gradients differ between D and D′."""
    table = dp.replay_table(
        1.0, ["gswgan", "gswgan_nominal"], control=False, n_jobs=1, progress=False
    ).set_index("name")
    assert table.calls.tolist() == [10, 10] and table.changed.tolist() == [10, 10]
    assert table.mechanisms.tolist() == ["sanitize_gradients"] * 2
    assert (table.verdict == "pass").all() and (table.max_ratio <= 1).all()
    assert table.max_ratio.iloc[0] == table.max_ratio.iloc[1] > 0


@pytest.mark.parametrize(
    ("violation", "calls", "changed", "verdict"),
    [
        (True, 1, 1, "violation"),
        (False, 3, 2, "pass"),
        (False, 3, 0, "nothing changed"),
        (False, 0, 0, "nothing recorded"),
    ],
)
def test_the_replay_verdict(violation, calls, changed, verdict):
    row = pd.Series({"violation": violation, "calls": calls, "changed": changed})
    assert dp._replay_verdict(row) == verdict


def test_a_release_that_records_nothing_is_not_a_pass():
    """GS-WGAN at ε = 0.01 runs no private iteration on eleven records: no call, nothing
    checked."""
    table = dp.replay_table(0.01, ["gswgan"], control=False, n_jobs=1, progress=False)
    assert (table.calls.iloc[0], table.verdict.iloc[0]) == (0, "nothing recorded")


def test_the_replayed_relations_are_the_declared_ones():
    for label, relation, cls, _ in dp.REPLAYED.values():
        if cls is not None:
            assert cls.neighbouring == relation, label
    assert set(da.GENERATORS) <= set(dp.REPLAYED)
    with pytest.raises(KeyError, match="unknown release 'nope'"):
        dp.replay_table(1.0, ["nope"], n_jobs=1, progress=False)


def _verdict_inputs():
    calib = pd.DataFrame({"verdict": ["no violation detected"] * 10, "fits": [200] * 10})
    empty = pd.DataFrame(columns=["generator", "noise"])
    return calib, empty, empty


def test_verdict_rows_of_the_promises():
    nominal = pd.DataFrame(
        {
            "nominal_epsilon": [1.0, 4.0],
            "iterations": [15, 951],
            "epsilon_spent": [0.99, 3.99],
            "epsilon_lower_bound": [29.67, 3.0],
            "epsilon_upper": [29.69, 5.0],
        }
    )
    replay = pd.DataFrame(
        {
            "name": ["mst", "gswgan", da.REPLAY_CONTROL],
            "violation": [False, False, True],
            "calls": [7, 0, 1],
            "changed": [7, 0, 1],
            "max_ratio": [1.0, 0.0, 2.0],
        }
    )
    rows = da.verdict_rows(*_verdict_inputs(), nominal=nominal, replay=replay)
    rows = {r["finding"]: r for r in rows}
    eps1 = rows["gswgan_nominal_violation_eps1"]
    assert (eps1["lower"], eps1["upper"], eps1["claim_low"], eps1["n"]) == (29.67, 29.69, 1.0, 1)
    assert eps1["verdict"] == "holds"
    # the interval [3, 5] contains the claim 4: the bounds cannot decide it
    assert rows["gswgan_nominal_violation_eps4"]["verdict"] == "undetermined"
    book = rows["replay_book_no_violation"]
    assert (book["estimate"], book["n"], book["verdict"]) == (0.0, 2, "holds")
    assert "1 with a call whose value changed" in book["note"]
    assert rows["replay_planted_violation"]["verdict"] == "holds"
    assert all(r["section"] == "dp-promises" for k, r in rows.items() if "calibration" not in k)
    verdicts.verdict_table(rows.values())  # a checked table


def test_a_violation_in_the_book_fails_its_row_and_a_missed_twin_fails_the_control():
    replay = pd.DataFrame(
        {
            "name": ["mst", da.REPLAY_CONTROL],
            "violation": [True, False],
            "calls": [7, 1],
            "changed": [7, 1],
            "max_ratio": [1.5, 1.0],
        }
    )
    rows = {r["finding"]: r for r in da.verdict_rows(*_verdict_inputs(), replay=replay)}
    assert rows["replay_book_no_violation"]["verdict"] == "fails"
    assert rows["replay_planted_violation"]["verdict"] == "fails"
    assert not any(k.startswith("gswgan") for k in rows)
    assert math.isnan(rows["replay_book_no_violation"]["replicates_to_decide"])
