"""Tests of ``synthtrust.studies.auditing.utility.experiment.run_utility_study``: against the
chapter's former inline code on a small census sample (the same cells, seeds and summary)."""

import numpy as np
import pandas as pd
import pytest

from synthtrust.run.experiment import run_grid
from synthtrust.studies.auditing.utility import experiment as U

TIMES = ["fit_seconds", "seconds"]


def test_run_utility_study_is_the_chapters_grid():
    grid = {"generators": ["ipf"], "dataset": "census2011_random10k", "n_rows": 1000}
    grid["ipf_tol"] = 0.5
    raw, summary = U.run_utility_study(**grid, runs=2, seed=5, n_jobs=1)
    cells = U.build_utility_grid(**grid)
    old = run_grid(
        U.utility_cell, cells, 2, 5, n_jobs=1, chunk_size=1, warm_up=U.warm_up, progress=False
    )
    pd.testing.assert_frame_equal(raw.drop(columns=TIMES), old.drop(columns=TIMES))
    pd.testing.assert_frame_equal(
        summary.drop(columns=TIMES, errors="ignore"),
        U.summarize_utility(old).drop(columns=TIMES, errors="ignore"),
    )
    assert list(raw.generator) == ["real", "real", "ipf", "ipf"]
    # two runs of IPF draw different samples; the real rows are the train split itself
    ipf = raw[raw.generator == "ipf"]
    assert ipf.seed.nunique() == 2 and ipf.app1_rmse_3way.nunique() == 2
    real = raw[raw.generator == "real"]
    assert real.app2_acc_real.nunique() == 1
    assert np.isfinite(ipf.app1_rmse_3way).all()
    with pytest.raises(ValueError, match="generator"):
        U.run_utility_study(generators=["nope"], runs=1, seed=0, n_jobs=1)
