"""Tests of ``synthtrust.studies.auditing_table4``.

The oracles and the shared set-up are described in ``_auditing_data.py``.
"""

import math

import pandas as pd
import pytest
from _auditing_data import _cell

from synthtrust.experiment import run_grid
from synthtrust.studies import auditing as au


def test_paper_table4_as_published():
    assert au.PAPER_TABLE4["ipf_honest"] == (0.54, 0.67, 0.67)
    assert au.PAPER_TABLE4["pgm_dishonest"] == (5.4e-66, 3.0e-69, 2.3e-33)
    assert au.PAPER_TABLE4["cart"] == (5.1e-35, 3.9e-38, 3.7e-34)
    assert set(au.PAPER_TABLE4) == set(au.PAPER_GENERATORS)
    # the labels follow the code: the paper's "MST" rows are noise-free Private-PGM
    assert au.GENERATORS["pgm_honest"][0].startswith("Private-PGM (paper: MST)")


def test_run_grid_summary_and_table4():
    cells = [_cell("ipf_honest"), _cell("ipf_dishonest")]
    res = run_grid(au.audit_cell, cells, 2, seed=3, n_jobs=1, progress=False)
    assert len(res) == 4 and list(res["rep"]) == [0, 1, 0, 1]
    s = au.summarize(res)
    assert list(s["generator"]) == ["ipf_honest", "ipf_dishonest"]
    honest = res[res["generator"] == "ipf_honest"]
    assert s.loc[0, "p"] == pytest.approx(honest["p"].median())
    assert s.loc[0, "paper_p"] == 0.54 and s.loc[1, "paper_log10_p"] == pytest.approx(
        math.log10(8.9e-34)
    )
    assert s.loc[0, "agrees"] and s.loc[1, "agrees"] and s.loc[1, "rejected"] == 1.0
    t4 = au.table4(res)
    assert t4.loc["IPF (honest)", ("App. 1", "paper")] == "0.54"
    assert t4.loc["IPF (dishonest)", ("App. 1", "paper")] == "8.9e-34"
    long = au.y_values(res)
    assert len(long) == 4 * 2 * 4 and set(long["side"]) == {"D−", "D+"}
    # centring on the midpoint of the two means: each audit's centred values average to 0
    assert long.groupby(["generator", "rep"])["y_centred"].mean().abs().max() < 1e-12
    f = au.findings(res).set_index("key")
    assert f.loc["honest_pass", "holds"] and f.loc["dishonest_fail", "holds"]
    assert f.loc["cart_fail", "holds"] is None


def test_summaries_against_hand_computation():
    res = pd.DataFrame(
        {
            "app": [1, 1, 1, 2],
            "generator": ["cart", "cart", "cart", "mst"],
            "t": [3.0, 5.0, 100.0, 0.1],
            "p": [0.02, 1e-3, 1e-320, 0.9],
            "log10_p": [math.log10(0.02), -3.0, -320.0, math.log10(0.9)],
            "rejected": [False, True, True, False],
            "leak": ["a", "b", "b", "c"],
            "leak_share": [0.5, 1.0, 0.9, 1.0],
            "seconds": [1.0, 2.0, 3.0, 4.0],
        }
    )
    s = au.summarize(res).set_index("generator")
    assert s.loc["cart", "t"] == 5.0 and s.loc["cart", "p"] == 1e-3
    assert s.loc["cart", "rejected"] == pytest.approx(2 / 3) and s.loc["cart", "leak"] == "b"
    assert s.loc["cart", "leak_share"] == pytest.approx(0.8) and s.loc["cart", "seconds"] == 2.0
    assert s.loc["cart", "paper_p"] == 5.1e-35 and not s.loc["cart", "agrees"]
    assert s.loc["mst", "agrees"] is None and math.isnan(s.loc["mst", "paper_p"])
    t4 = au.table4(res)
    assert t4.loc["Sequential CART (paper: SynthPop)", ("App. 1", "this run")] == "0.001"
    assert t4.loc["MST (ε-DP)", ("App. 2", "paper")] == "—"
    assert au._fmt_p(0.0, -412.3) == "10^-412"
