"""Tests of ``synthtrust.studies.holdout_fidelity_privacy.figures`` on a hand-built comparison frame."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from synthtrust.studies.holdout_fidelity_privacy.figures import generator_comparison_tables

NAN = math.nan


def _comparison() -> pd.DataFrame:
    rows = [  # dataset, row, tvd_1..3, paper tvd_1..3, share, lower, upper, paper share
        ("adult", "TVAE", NAN, NAN, NAN, 0.277, 0.426, 0.493, NAN, NAN, NAN, 0.499),
        ("adult", "synthpop / our sequential CART", 0.00509, 0.00927, 0.01344,
         0.006, 0.013, 0.019, 0.623, 0.6191, 0.6279, 0.58),
        ("adult", "MST (DP, beyond the paper)", 0.00637, 0.0369, 0.0658,
         NAN, NAN, NAN, 0.502, NAN, NAN, NAN),
        ("bank-marketing", "TVAE", NAN, NAN, NAN, 0.336, 0.466, 0.547, NAN, NAN, NAN, 0.513),
    ]  # fmt: skip
    cols = ["dataset", "row", "tvd_1", "tvd_2", "tvd_3", "paper_tvd_1", "paper_tvd_2",
            "paper_tvd_3", "dcr_share", "share_lower", "share_upper", "paper_dcr_share"]  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def test_one_table_per_dataset_in_per_cent_with_the_share_interval_under_the_share():
    tables = generator_comparison_tables(_comparison())
    assert list(tables) == ["adult", "bank-marketing"]
    adult = tables["adult"]
    assert list(adult.columns) == [
        ("F¹ (%)", "this run"), ("F¹ (%)", "paper"),
        ("F² (%)", "this run"), ("F² (%)", "paper"),
        ("F³ (%)", "this run"), ("F³ (%)", "paper"),
        ("share (%)", "this run (95 % CI)"), ("share (%)", "paper"),
    ]  # fmt: skip
    assert list(adult.index) == ["TVAE", "synthpop / our sequential CART",
                                 "MST (DP, beyond the paper)"]  # fmt: skip
    assert adult.loc["synthpop / our sequential CART"].tolist() == [
        "0.5", "0.6", "0.9", "1.3", "1.3", "1.9",
        '62.3<br><small style="white-space: nowrap">61.9–62.8</small>', "58.0",
    ]  # fmt: skip
    # not run here: dashes beside the paper's numbers; not in the paper: the other way round
    assert adult.loc["TVAE"].tolist() == ["—", "27.7", "—", "42.6", "—", "49.3", "—", "49.9"]
    assert adult.loc["MST (DP, beyond the paper)"].tolist() == [
        "0.6", "—", "3.7", "—", "6.6", "—", "50.2", "—",
    ]  # fmt: skip
    assert tables["bank-marketing"].loc["TVAE", ("F³ (%)", "paper")] == "54.7"


def test_a_frame_without_the_comparison_columns_is_refused_by_name():
    with pytest.raises(ValueError, match="share_lower"):
        generator_comparison_tables(_comparison().drop(columns="share_lower"))
