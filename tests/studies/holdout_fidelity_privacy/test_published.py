"""Tests of ``synthtrust.studies.holdout_fidelity_privacy.published``: the hand transcription of Figures 7 and 8 of
Platzer & Reutterer (2021) [``platzer2021``]. The oracles: spot checks against the printed
numbers, the layout of the rows (holdout, the seven generators, Flip 10 % .. 90 % per dataset),
and two properties the true numbers must have, so that a mistyped value shows: a k-way marginal
is a coarsening of every (k+1)-way marginal that contains it, so the mean TVDs satisfy
F¹ ≤ F² ≤ F³ (up to the printed rounding); and the Flip baselines move away from the training
data as the share of flipped values grows (share and DCR to the training data monotone).
"""

from __future__ import annotations

import numpy as np
import pytest

from synthtrust.studies.holdout_fidelity_privacy.published import (
    DATASETS,
    PAPER,
    PAPER_GENERATORS,
    paper_rows,
)

FLIPS = [f"Flip {p}%" for p in range(10, 100, 10)]


def test_paper_table_transcription():
    """Spot checks of Figures 7 and 8 against the printed numbers."""
    adult = paper_rows("adult").set_index("source")
    assert adult.loc["Holdout", "tvd_3"] == pytest.approx(0.021)
    assert adult.loc["Flip 10%", "dcr_share"] == pytest.approx(0.943)
    assert adult.loc["Flip 90%", "dcr_holdout_mean"] == pytest.approx(3.84)
    credit = paper_rows("credit-default").set_index("source")
    assert credit.loc["Flip 50%", "tvd_2"] == pytest.approx(0.148)
    assert adult.loc["synthpop", "dcr_share"] == pytest.approx(0.580)
    assert credit.loc["CTGAN", "tvd_1"] == pytest.approx(0.228)
    shoppers = paper_rows("online-shoppers").set_index("source")
    assert shoppers.loc["TVAE", "tvd_3"] == pytest.approx(0.557)
    assert shoppers.loc["Gretel", "dcr_share"] == pytest.approx(0.524)
    assert list(paper_rows("bank-marketing").source[1:8]) == list(PAPER_GENERATORS)
    assert len(PAPER) == 4 * 17
    with pytest.raises(ValueError, match="unknown dataset 'iris'"):
        paper_rows("iris")


def test_rows_and_columns_of_each_dataset():
    assert DATASETS == ("adult", "bank-marketing", "credit-default", "online-shoppers")
    assert list(PAPER.columns) == [
        "dataset",
        "source",
        "tvd_1",
        "tvd_2",
        "tvd_3",
        "dcr_share",
        "dcr_train_mean",
        "dcr_holdout_mean",
    ]
    assert list(PAPER.dataset.unique()) == list(DATASETS)
    for ds in DATASETS:
        rows = paper_rows(ds)
        assert list(rows.source) == ["Holdout", *PAPER_GENERATORS, *FLIPS]
        assert list(rows.index) == list(range(17))  # a fresh index per dataset
        assert (rows.dataset == ds).all()
    # percentages stored as fractions: Figure 7's bank-marketing synthpop F³ is printed 1.4 %
    bank = paper_rows("bank-marketing").set_index("source")
    assert bank.loc["synthpop", "tvd_3"] == pytest.approx(0.014)
    # mean DCRs stay in number of differing attributes (Figure 8: 12.37 for credit CTGAN)
    assert paper_rows("credit-default").set_index("source").loc["CTGAN", "dcr_train_mean"] == 12.37


def test_only_the_truncated_column_of_online_shoppers_is_missing():
    # the plain-text copy of the paper cuts off online-shoppers' mean DCR to the holdout
    missing = PAPER.isna()
    shoppers = PAPER.dataset == "online-shoppers"
    assert missing.loc[shoppers, "dcr_holdout_mean"].all()
    assert not missing.loc[~shoppers].any().any()
    assert not missing.drop(columns="dcr_holdout_mean").any().any()


def test_mean_tvds_grow_with_the_order_of_the_marginals():
    # TVD of a pair ≥ that of each of its columns, so the mean over pairs ≥ the mean over
    # columns (each column is in as many pairs); likewise for triples. Printed to 0.1 %.
    tol = 1e-12
    assert (PAPER.tvd_1 <= PAPER.tvd_2 + tol).all()
    assert (PAPER.tvd_2 <= PAPER.tvd_3 + tol).all()
    assert PAPER[["tvd_1", "tvd_2", "tvd_3", "dcr_share"]].stack().between(0, 1).all()


@pytest.mark.parametrize("dataset", DATASETS)
def test_flip_baselines_move_away_from_the_training_data(dataset):
    rows = paper_rows(dataset).set_index("source")
    flips = rows.loc[FLIPS]
    assert flips.dcr_share.is_monotonic_decreasing
    assert flips.tvd_2.is_monotonic_increasing and flips.tvd_3.is_monotonic_increasing
    assert flips.dcr_train_mean.is_monotonic_increasing
    # flipping 10 % keeps most records closer to the training data than to the holdout; at
    # 90 % the share is back at the holdout's 50 %
    assert flips.dcr_share.iloc[0] > 0.9
    assert flips.dcr_share.iloc[-1] == pytest.approx(0.5, abs=0.011)
    assert rows.loc["Holdout", "dcr_share"] == pytest.approx(0.5, abs=0.006)
    holdout = flips.dcr_holdout_mean.dropna()
    assert (flips.dcr_train_mean.loc[holdout.index] <= holdout).all()
    assert np.isfinite(flips.dcr_train_mean).all()
