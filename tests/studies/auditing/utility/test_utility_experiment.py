"""Tests of ``synthtrust.studies.auditing.utility.experiment``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthtrust.studies.auditing.utility import experiment as U
from synthtrust.studies.auditing.utility.summary import UTILITY_METRICS

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
        for m in UTILITY_METRICS:
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
