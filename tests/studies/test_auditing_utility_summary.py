"""Tests of ``synthtrust.studies.auditing_utility_summary``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import math

import pytest
from _auditing_utility_data import _fake_results

from synthtrust.studies import auditing_utility as U


def test_tables_have_the_papers_columns_and_numbers():
    # the "paper | this run" layout, on Table 1 (Tables 2 and 3: their own test files)
    res = _fake_results()
    t1 = U.table1(res)
    assert list(t1.columns) == [
        ("3-way marginal RMSE", "paper"),
        ("3-way marginal RMSE", "this run"),
        ("Gender gap RMSE", "paper"),
        ("Gender gap RMSE", "this run"),
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
    assert ctgan not in U.table1(res, paper_rows=False).index
    s = U.summarize_utility(res)
    assert list(s["generator"]) == [g for g in U.UTILITY_GENERATORS if g in set(res["generator"])]
    assert (s["runs"] == 2).all()
