"""The verdict rows of chapter 2 (holdout fidelity and privacy) against hand computations on
small hand-made score tables."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import verdicts
from synthtrust.studies.holdout_fidelity_privacy import scores as hf

#: synthtrust.binomial's closed-form Clopper-Pearson limits agree with SciPy's root-finding
#: ones (``binomtest(...).proportion_ci(method="exact")``) to within this (measured: ≤ 5e-13).
CP_ATOL = 1e-11


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
    assert (hold.estimate, hold.lower, hold.upper, hold.n) == pytest.approx(
        (0.53, ci.low, ci.high, 200), abs=CP_ATOL
    )
    assert (hold.claim_low, hold.claim_high) == hf.SHARE_BAND
    assert hold.verdict == "undetermined"  # [0.458, 0.601] straddles 52.5 %
    assert hold.replicates_to_decide > 200
    flip10 = table.loc["adult_flip10_share"]
    assert (flip10.claim_low, flip10.claim_high) == (0.525, math.inf)
    assert "94.3 %" in flip10.paper and flip10.verdict == "holds"
    ci = stats.binomtest(970, 1000).proportion_ci(0.95, "exact")
    assert (flip10.lower, flip10.upper) == pytest.approx((ci.low, ci.high), abs=CP_ATOL)
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
    assert (hold.estimate, hold.lower, hold.upper, hold.n) == pytest.approx(
        (0.4, ci.low, ci.high, 200), abs=CP_ATOL
    )


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
    assert (mostly.lower, mostly.upper) == pytest.approx((ci.low, ci.high), abs=CP_ATOL)
    assert mostly.verdict == "holds"


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
    assert (dp_rows.iloc[1].lower, dp_rows.iloc[1].upper) == pytest.approx(
        (ci.low, ci.high), abs=CP_ATOL
    )
    assert dp_rows.iloc[1].verdict == "fails"  # [0.529, 0.591] lies above 52.5 %


def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="unknown dataset 'iris'"):
        hf.verdict_rows(pd.DataFrame([_row("holdout", 0.5, 100, dataset="iris")]))


def test_score_table_on_a_hand_made_table():
    """Two columns, two training and two holdout records; the four synthetic records' distances
    by hand: (a, x) 0 to T / 1 to H (closer), (c, z) 2 / 0 (further), (a, y) 1 / 1 (a tie,
    weight 2 / 4), (b, y) 0 / 2 (closer): share (2 + 0.5) / 4. F¹: each column's TVD is
    ½(0 + 0.25 + 0.25) (c and z are no training category); F²: ½(4 × 0.25)."""
    train = pd.DataFrame({"a": ["a", "b"], "b": ["x", "y"]})
    holdout = pd.DataFrame({"a": ["c", "a"], "b": ["z", "z"]})
    synthetic = pd.DataFrame({"a": ["a", "c", "a", "b"], "b": ["x", "z", "y", "y"]})
    row = hf.score_table(train, holdout, synthetic, np.random.default_rng(0)).iloc[0]
    assert row.dcr_share == pytest.approx(0.625)
    assert (row.n_closer, row.n_further, row.n_equal, row.n_synthetic) == (2, 1, 1, 4)
    assert (row.dcr_train_mean, row.dcr_holdout_mean) == pytest.approx((0.75, 1.0))
    assert (row.tvd_1, row.tvd_2) == pytest.approx((0.25, 0.5))


def _scores(*rows):
    """Score rows (dataset, source, label, metrics) for the paper-row joins."""
    cols = ["dataset", "source", "label", "tvd_1", "tvd_2", "tvd_3", "dcr_share", "n_synthetic"]
    frame = pd.DataFrame(list(rows), columns=cols)
    return frame.assign(dcr_train_mean=2.0, dcr_holdout_mean=2.0)


def test_the_2024_mostlyai_file_stands_beside_the_paper_s_mostly_row():
    results = _scores(
        ("adult", "holdout", "Holdout", 0.01, 0.016, 0.021, 0.5, 100),
        ("adult", "published", "mostlyai", 0.02, 0.03, 0.04, 0.51, 100),
        ("adult", "published", "synthcity-arf", 0.02, 0.03, 0.04, 0.51, 100),
    )
    side = hf.beside_paper(results)
    mostly = side[side.label == "mostlyai"].set_index("metric")
    assert set(mostly.paper_row) == {"MOSTLY"}
    assert mostly.loc["dcr_share", "paper"] == pytest.approx(0.506)  # Figure 8, adult
    assert mostly.loc["tvd_3", ["this_run", "paper"]].tolist() == pytest.approx([0.04, 0.024])
    assert "2024" in mostly.row.iloc[0] and "MOSTLY 2021" in mostly.row.iloc[0]
    assert set(side.label) == {"Holdout", "mostlyai"}  # synthcity-arf: no paper row
    assert len(side) == 2 * 6


def test_generator_comparison_puts_each_paper_row_beside_its_counterpart():
    results = _scores(
        ("adult", "generator", "cart", 0.006, 0.009, 0.013, 0.63, 1000),
        ("adult", "generator", "mst", 0.01, 0.03, 0.06, 0.502, 1000),
        ("adult", "published", "mostlyai", 0.02, 0.03, 0.04, 0.51, 2000),
        ("adult", "flip", "Flip 10%", 0.005, 0.017, 0.03, 0.94, 1000),
    )
    table = hf.generator_comparison(results).set_index("row")
    assert list(table.paper_row[:7]) == list(hf.PAPER_GENERATORS)
    assert list(table.index[7:]) == [hf.ROW_NAMES["mst"]]  # not in the paper; no Flip row
    cart = table.loc[hf.ROW_NAMES["cart"]]
    assert (cart.paper_row, cart.label) == ("synthpop", "cart")
    assert (cart.paper_dcr_share, cart.paper_tvd_1) == pytest.approx((0.58, 0.006))
    ci = stats.binomtest(630, 1000).proportion_ci(0.95, "exact")
    assert (cart.dcr_share, cart.share_lower, cart.share_upper) == pytest.approx(
        (0.63, ci.low, ci.high), abs=CP_ATOL
    )
    mostly = table.loc[hf.ROW_NAMES["mostlyai"]]
    assert (mostly.paper_row, mostly.tvd_3, mostly.paper_tvd_3) == ("MOSTLY", 0.04, 0.024)
    gretel = table.loc["Gretel"]  # the paper's row alone
    assert pd.isna(gretel.label) and np.isnan(gretel.dcr_share)
    assert gretel.paper_tvd_1 == pytest.approx(0.042)
    assert np.isnan(table.loc[hf.ROW_NAMES["mst"], "paper_dcr_share"])
    with pytest.raises(ValueError, match="unknown dataset 'iris'"):
        hf.generator_comparison(_scores(("iris", "generator", "cart", 0, 0, 0, 0.5, 10)))


def _generator_rows(cart, others, dataset="adult"):
    """Generator score rows: CART's (share, records), then the others' (label, share, records)."""
    rows = [{"dataset": dataset, "label": "cart", "dcr_share": cart[0], "n_synthetic": cart[1]}]
    rows += [
        {"dataset": dataset, "label": label, "dcr_share": share, "n_synthetic": n}
        for label, share, n in others
    ]
    return pd.DataFrame(rows)


def _cart_row(generators):
    scores = pd.DataFrame([_row("holdout", 0.5, 100)])
    return _by_name(hf.verdict_rows(scores, generators=generators)).loc[
        "adult_cart_share_above_others"
    ]


def test_cart_row_is_the_share_difference_with_bonferroni_clopper_pearson():
    """CART 600 of 1000 against 500 + 510 of 2000 pooled: each share's interval at 97.5 %, the
    difference's ends their differences."""
    row = _cart_row(_generator_rows((0.6, 1000), [("ctgan", 0.5, 1000), ("mst", 0.51, 1000)]))
    cart = stats.binomtest(600, 1000).proportion_ci(0.975, "exact")
    others = stats.binomtest(1010, 2000).proportion_ci(0.975, "exact")
    assert row.estimate == pytest.approx(0.6 - 0.505)
    assert (row.lower, row.upper) == pytest.approx((cart.low - others.high, cart.high - others.low))
    assert (row.claim_low, row.claim_high) == (0.0, math.inf)
    assert row.verdict == "holds" and row.n == 1000
    assert "58.0 %" in row.paper and "49.9 %–50.6 %" in row.paper  # Figure 8, adult
    assert "ctgan, mst" in row.note


def test_cart_row_decisions_follow_the_interval():
    # 52 % of 400 against 50 % of 400: the interval straddles 0
    close = _cart_row(_generator_rows((0.52, 400), [("copula", 0.5, 400)]))
    assert close.lower < 0 < close.upper and close.verdict == "undetermined"
    assert close.replicates_to_decide > 400
    # 40 % against 50 %, 5000 records each: the interval lies below 0
    below = _cart_row(_generator_rows((0.4, 5000), [("copula", 0.5, 5000)]))
    assert below.upper < 0 and below.verdict == "fails"
    alone = _cart_row(_generator_rows((0.6, 1000), []))
    assert alone.n == 0 and alone.verdict == "undetermined" and "not run" in alone.note
