"""The verdict rows of chapter 2 (holdout fidelity and privacy) against hand computations on
small hand-made score tables."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import verdicts
from synthtrust.studies import holdout_fidelity_privacy as hf


def _row(source, share, n, *, p=None, tvd_3=0.05, rep=0, label=None, dataset="adult"):
    return {
        "dataset": dataset,
        "source": source,
        "p": p,
        "label": label or source,
        "rep": rep,
        "tvd_3": tvd_3,
        "dcr_share": share,
        "n_synthetic": n,
    }


def _by_name(rows):
    table = verdicts.verdict_table(rows)
    return table.set_index("finding")


def test_shares_get_clopper_pearson_over_records_and_the_paper_s_claim():
    scores = pd.DataFrame(
        [
            _row("holdout", 0.53, 200),  # 106 of 200
            _row("flip", 0.97, 1000, p=0.1, tvd_3=0.03),  # paper 94.3 %: above the band
            _row("flip", 0.60, 500, p=0.9, tvd_3=0.14),  # paper 49.8 %: in the band
            _row("flip", 0.70, 100, p=0.25, tvd_3=0.08),  # a rate the paper did not run
        ]
    )
    table = _by_name(hf.verdict_rows(scores, random_state=0))
    hold = table.loc["adult_holdout_share"]
    ci = stats.binomtest(106, 200).proportion_ci(0.95, "exact")
    assert (hold.estimate, hold.lower, hold.upper, hold.n) == (0.53, ci.low, ci.high, 200)
    assert (hold.claim_low, hold.claim_high) == hf.SHARE_BAND
    assert hold.verdict == "undetermined"  # [0.458, 0.601] straddles 52.5 %
    assert hold.replicates_to_decide > 200
    flip10 = table.loc["adult_flip10_share"]
    assert (flip10.claim_low, flip10.claim_high) == (0.525, math.inf)
    assert "94.3 %" in flip10.paper and flip10.verdict == "holds"
    ci = stats.binomtest(970, 1000).proportion_ci(0.95, "exact")
    assert (flip10.lower, flip10.upper) == (ci.low, ci.high)
    flip90 = table.loc["adult_flip90_share"]
    assert (flip90.claim_low, flip90.claim_high) == hf.SHARE_BAND
    assert flip90.verdict == "fails"  # 300 of 500: the interval lies above 52.5 %
    assert "adult_flip25_share" not in table.index
    assert (table.section == hf.SECTION).all()


def test_share_pools_the_records_of_all_replicates():
    scores = pd.DataFrame(
        [_row("holdout", 0.3, 100, rep=0), _row("holdout", 0.5, 100, rep=1)]
    )  # 30 + 50 of 200
    hold = _by_name(hf.verdict_rows(scores)).loc["adult_holdout_share"]
    ci = stats.binomtest(80, 200).proportion_ci(0.95, "exact")
    assert (hold.estimate, hold.lower, hold.upper, hold.n) == (0.4, ci.low, ci.high, 200)


def test_tvd_rise_is_paired_by_replicate():
    rng = np.random.default_rng(5)
    low, high = rng.uniform(0.02, 0.03, 12), rng.uniform(0.12, 0.15, 12)
    rows = [_row("flip", 0.9, 100, p=0.1, tvd_3=t, rep=r) for r, t in enumerate(low)]
    # the high rate's replicates listed in another order: pairing must follow `rep`
    rows += [_row("flip", 0.5, 100, p=0.9, tvd_3=high[r], rep=r) for r in rng.permutation(12)]
    rise = _by_name(hf.verdict_rows(pd.DataFrame(rows), random_state=7)).loc[
        "adult_flip_tvd3_rises"
    ]
    expected = verdicts.paired_interval(high, low, random_state=7)
    assert (rise.estimate, rise.lower, rise.upper, rise.n) == pytest.approx(
        (expected.estimate, expected.lower, expected.upper, 12)
    )
    assert (rise.claim_low, rise.claim_high) == (0.0, math.inf)
    assert rise.verdict == "holds"
    assert "13.9 %" in rise.paper and "3.0 %" in rise.paper  # Figure 7, adult


def test_one_replicate_or_one_rate_leaves_the_rise_undetermined():
    one_rep = pd.DataFrame(
        [_row("flip", 0.9, 100, p=0.1, tvd_3=0.03), _row("flip", 0.5, 100, p=0.9, tvd_3=0.14)]
    )
    rise = _by_name(hf.verdict_rows(one_rep)).loc["adult_flip_tvd3_rises"]
    assert rise.estimate == pytest.approx(0.11) and rise.n == 1
    assert (rise.lower, rise.upper) == (-math.inf, math.inf)
    assert rise.verdict == "undetermined" and "no interval" in rise.note
    one_rate = _by_name(hf.verdict_rows(one_rep.iloc[:1])).loc["adult_flip_tvd3_rises"]
    assert one_rate.n == 0 and one_rate.verdict == "undetermined" and "not run" in one_rate.note


def test_missing_published_file_is_an_undetermined_row_and_a_present_one_is_scored():
    scores = pd.DataFrame([_row("holdout", 0.5, 100)])
    table = _by_name(hf.verdict_rows(scores))
    mostly = table.loc["adult_mostlyai_share"]
    assert mostly.n == 0 and mostly.verdict == "undetermined" and np.isnan(mostly.estimate)
    assert "50.6 %" in mostly.paper and "not run" in mostly.note
    scores = pd.concat([scores, pd.DataFrame([_row("published", 0.51, 10_000, label="mostlyai")])])
    mostly = _by_name(hf.verdict_rows(scores)).loc["adult_mostlyai_share"]
    ci = stats.binomtest(5100, 10_000).proportion_ci(0.95, "exact")
    assert (mostly.lower, mostly.upper, mostly.verdict) == (ci.low, ci.high, "holds")


def test_dp_rows_skip_the_holdout_reference():
    scores = pd.DataFrame([_row("holdout", 0.5, 100)])
    dp = pd.DataFrame(
        {
            "method": ["holdout", "mwem", "mwem"],
            "epsilon": [np.nan, 0.1, 10.0],
            "dcr_share": [0.5, 0.52, 0.56],
            "n_synthetic": [1000, 1000, 1000],
        }
    )
    table = _by_name(hf.verdict_rows(scores, dp))
    dp_rows = table[table.index.str.startswith("dp_")]
    assert list(dp_rows.index) == ["dp_mwem_eps0.1_share", "dp_mwem_eps10_share"]
    ci = stats.binomtest(560, 1000).proportion_ci(0.95, "exact")
    assert (dp_rows.iloc[1].lower, dp_rows.iloc[1].upper) == (ci.low, ci.high)
    assert dp_rows.iloc[1].verdict == "fails"  # [0.529, 0.591] lies above 52.5 %


def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="unknown dataset 'iris'"):
        hf.verdict_rows(pd.DataFrame([_row("holdout", 0.5, 100, dataset="iris")]))
