"""Tests of ``synthtrust.studies.auditing.table4``.

The oracles and the shared set-up are described in ``_auditing_data.py``.
"""

import math

import numpy as np
import pandas as pd
import pytest
from _auditing_data import _cell
from scipy import stats

from synthtrust import verdicts
from synthtrust.run.experiment import run_grid
from synthtrust.studies.auditing import audits as au


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
    # the verdicts read the run's own audits: 2 of each, honest never and dishonest always
    # rejected here, so the Clopper-Pearson intervals are those of 0/2 and 2/2
    v = pd.DataFrame(au.verdict_rows(res, random_state=0)).set_index("finding")
    assert v.loc["table4_ipf_honest_app1", "upper"] == pytest.approx(1 - 0.025**0.5)
    assert v.loc["table4_ipf_dishonest_app1", "lower"] == pytest.approx(0.025**0.5)
    assert (v.loc[["table4_ipf_honest_app1", "table4_ipf_dishonest_app1"], "n"] == 2).all()
    assert v.loc["table4_cart_app1", "n"] == 0


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
    assert au.format_pvalue(0.0, -412.3) == "10^-412"


def _audits(app, generator, rejected, log10_p):
    return pd.DataFrame(
        {
            "app": app,
            "generator": generator,
            "rep": np.arange(len(rejected)),
            "rejected": rejected,
            "log10_p": log10_p,
            "alpha": 0.01,
        }
    )


def test_verdict_rows_against_hand_computation():
    rng = np.random.default_rng(5)
    pgm_p, ipf_p = -rng.uniform(60, 80, 10), -rng.uniform(30, 40, 10)
    res = pd.concat(
        [
            _audits(1, "ipf_honest", [False] * 10, -rng.uniform(0, 1, 10)),
            _audits(1, "ipf_dishonest", [True] * 3 + [False] * 7, ipf_p),
            _audits(1, "pgm_dishonest", [True] * 10, pgm_p),
        ]
    ).sample(frac=1.0, random_state=1)  # shuffled: the pairs must be found by rep
    rows = au.verdict_rows(res, random_state=7)
    table = verdicts.verdict_table(rows).set_index("finding")
    expected = [f"table4_{g}_app{a}" for a in (1, 2, 3) for g in au.PAPER_GENERATORS] + [
        f"table4_pgm_strongest_app{a}_vs_{o}" for a in (1, 2) for o in ("ipf_dishonest", "cart")
    ]
    assert list(table.index) == expected
    # 3 rejections of 10 audits: the Clopper-Pearson interval of SciPy, straddling 0.5
    ci = stats.binomtest(3, 10).proportion_ci(0.95, method="exact")
    row = table.loc["table4_ipf_dishonest_app1"]
    assert (row.estimate, row.n) == (0.3, 10)
    assert (row.lower, row.upper) == pytest.approx((ci.low, ci.high))
    assert row.verdict == "undetermined" and row.replicates_to_decide > 10
    assert "α = 0.01" in row.paper and row.claim_low == au.REJECTION_BAND
    # 0 of 10: upper end 1 - 0.025^(1/10) = 0.31 < 0.5, the honest generator passes
    honest = table.loc["table4_ipf_honest_app1"]
    assert honest.upper == pytest.approx(1 - 0.025 ** (1 / 10)) and honest.verdict == "holds"
    assert table.loc["table4_pgm_dishonest_app1", "verdict"] == "holds"
    # the paired finding is paired_interval on the same replicates, in rep order
    paired = verdicts.paired_interval(pgm_p, ipf_p, random_state=7)
    strongest = table.loc["table4_pgm_strongest_app1_vs_ipf_dishonest"]
    assert strongest.n == 10 and strongest.estimate == pytest.approx(np.mean(pgm_p - ipf_p))
    assert (strongest.lower, strongest.upper) == pytest.approx((paired.lower, paired.upper))
    assert strongest.verdict == "holds"
    # cells not audited: undetermined with n = 0 and a note
    for name in ("table4_cart_app1", "table4_ipf_honest_app2", "table4_pgm_strongest_app1_vs_cart"):
        assert table.loc[name, "n"] == 0 and table.loc[name, "verdict"] == "undetermined"
        assert "not audited" in table.loc[name, "note"]
    with pytest.raises(ValueError, match="rep"):
        au.verdict_rows(res.drop(columns="rep"))
