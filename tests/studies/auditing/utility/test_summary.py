"""Tests of ``synthtrust.studies.auditing.utility.summary``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _auditing_utility_data import _fake_results
from scipy import stats

from synthtrust.studies.auditing.utility import experiment as U
from synthtrust.studies.auditing.utility.summary import paper_vs_run, paper_vs_run_view
from synthtrust.verdicts import bootstrap_interval

METRICS = [("3-way marginal RMSE", "app1_rmse_3way"), ("Gender gap RMSE", "app1_rmse_gender_gap")]


def test_tables_have_the_papers_columns_and_numbers():
    # the "paper | this run" layout, on Table 1 (Tables 2 and 3: their own test files)
    res = _fake_results()
    t1 = U.table1(res)
    sides = ("paper", "this run", "lower", "upper")
    assert list(t1.columns) == [
        *[("3-way marginal RMSE", side) for side in sides],
        *[("Gender gap RMSE", side) for side in sides],
        ("runs", ""),
    ]
    ipf = U.UTILITY_GENERATORS["ipf"]
    assert t1.loc[ipf, ("3-way marginal RMSE", "paper")] == 5.39e-4
    assert t1.loc[ipf, ("3-way marginal RMSE", "this run")] == pytest.approx(7e-4)
    # CTGAN, not in these results: the paper's number beside an empty cell; the real row has no
    # paper value in Table 1
    ctgan = U.UTILITY_GENERATORS["ctgan"]
    assert t1.loc[ctgan, ("3-way marginal RMSE", "paper")] == 3.62e-3
    assert math.isnan(t1.loc[ctgan, ("3-way marginal RMSE", "this run")])
    assert math.isnan(t1.loc["Real data", ("3-way marginal RMSE", "paper")])
    # two runs are too few for a bootstrap interval; a generator not run has none and 0 runs
    assert t1.loc[ipf, ("runs", "")] == 2
    assert t1.loc[ipf, ("3-way marginal RMSE", "lower")] == -math.inf
    assert t1.loc[ipf, ("3-way marginal RMSE", "upper")] == math.inf
    assert math.isnan(t1.loc[ctgan, ("3-way marginal RMSE", "lower")])
    assert t1.loc[ctgan, ("runs", "")] == 0
    assert ctgan not in U.table1(res, paper_rows=False).index
    s = U.summarize_utility(res)
    assert list(s["generator"]) == [g for g in U.UTILITY_GENERATORS if g in set(res["generator"])]
    assert (s["runs"] == 2).all()


def _runs(generator: str, values) -> pd.DataFrame:
    one = _fake_results().iloc[[0]]
    rows = pd.concat([one] * len(values), ignore_index=True)
    return rows.assign(generator=generator, rep=range(len(values)), app1_rmse_3way=values)


def test_this_runs_interval_is_the_bootstrap_interval_of_the_runs_and_near_the_t_interval():
    values = np.random.default_rng(5).normal(1e-3, 2e-4, 12)
    table = paper_vs_run(_runs("ipf", values), U.PAPER_TABLE1, METRICS, False, random_state=3)
    ipf = U.UTILITY_GENERATORS["ipf"]
    expected = bootstrap_interval(values, random_state=3)
    got = table.loc[ipf, ("3-way marginal RMSE", ["lower", "upper"])].to_numpy()
    assert got == pytest.approx([expected.lower, expected.upper], rel=1e-12)
    assert table.loc[ipf, ("3-way marginal RMSE", "this run")] == pytest.approx(values.mean())
    assert table.loc[ipf, ("runs", "")] == 12
    # the same interval as Student's t on these near-normal runs, up to a fifth of its width
    t_low, t_high = stats.t.interval(0.95, 11, values.mean(), stats.sem(values))
    assert got == pytest.approx([t_low, t_high], abs=0.2 * (t_high - t_low))
    assert got[0] < values.mean() < got[1]


def test_the_view_writes_each_mean_with_its_interval_and_the_runs():
    cols = pd.MultiIndex.from_tuples(
        [("RMSE", side) for side in ("paper", "this run", "lower", "upper")] + [("runs", "")]
    )
    table = pd.DataFrame(
        [
            [5.39e-4, 9.6e-4, 8.1e-4, 1.12e-3, 10],
            [np.nan, 3.07e-4, -np.inf, np.inf, 2],
            [3.62e-3, np.nan, np.nan, np.nan, 0],
        ],
        index=["IPF", "Real data", "CTGAN"],
        columns=cols,
    )
    view = paper_vs_run_view(table, "{:.3g}")
    assert list(view.columns) == [
        ("RMSE", "paper"),
        ("RMSE", "this run"),
        ("RMSE", "95 % interval"),
        ("runs", ""),
    ]
    assert view.loc["IPF"].tolist() == ["0.000539", "0.00096", "0.00081–0.00112", "10"]
    assert view.loc["Real data"].tolist() == ["—", "0.000307", "—", "2"]  # no interval: 2 runs
    assert view.loc["CTGAN"].tolist() == ["0.00362", "—", "—", "0"]
    page = paper_vs_run_view(table, "{:.3g}", html=True)
    assert list(page.columns) == [
        ("RMSE", "paper"),
        ("RMSE", "this run (95 % CI)"),
        ("runs", ""),  # kept: IPF ran 10 times, the real row twice
    ]
    assert page.loc["IPF"].tolist() == [
        "0.000539",
        '0.00096<br><small style="white-space: nowrap">0.00081–0.00112</small>',
        "10",
    ]
    assert page.loc["Real data"].tolist() == ["—", "0.000307", "2"]
    same = table.copy()
    same.loc["Real data", ("runs", "")] = 10
    assert ("runs", "") not in paper_vs_run_view(same, "{:.3g}", html=True).columns
    assert ("runs", "") in paper_vs_run_view(same, "{:.3g}").columns
    with pytest.raises(ValueError, match="laid out as paper_vs_run's"):
        paper_vs_run_view(table.drop(columns=[("runs", "")]), "{:.3g}")
