"""The auditing study (Houssiau et al. 2022): the three applications' cards against the paper's
dimensions, the generators of Table 4, a small Application 1 audit (honest IPF passes,
dishonest IPF and sequential CART are rejected, the leak is on the 3-way interaction), the
summaries against hand computations, and bad input."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from synthtrust import synthesizers as syn
from synthtrust.experiment import run_grid
from synthtrust.studies import auditing as au

APP1 = ("Economic Activity", "Occupation", "Sex")


# --------------------------------------------------------------------------------------------
# cards and bases: the paper's dimensions (§3.3, §4.1)
# --------------------------------------------------------------------------------------------
def test_application_columns_and_census_sizes():
    assert au.card(1).columns == {"Economic Activity": 10, "Occupation": 10, "Sex": 2}
    assert au.card(2).columns == {
        "Ethnic Group": 6,
        "Country of Birth": 3,
        "Family Composition": 7,
        "Approximated Social Grade": 5,
    }
    assert au.card(3).sizes == (5, 10, 13, 10, 5, 8, 6)
    assert au.APPLICATIONS[1].cheat == APP1
    assert au.APPLICATIONS[3].cheat == ("Marital Status", "Occupation", "Hours worked per week")
    assert [a.copies for a in au.APPLICATIONS.values()] == [1000, 1000, 10]
    assert [a.support for a in au.APPLICATIONS.values()] == [None, None, 10_000]


def test_application_1_card_and_basis():
    # 3 pairs: 100 + 20 + 20 = 140 bins; rank 1 + (9 + 9 + 1) + (81 + 9 + 9) = 119; k = 200 − 119
    c, b = au.card(1), au.basis(1)
    assert c.cells == 200 and len(c.declared_bins()) == 140 and c.phi_dimension == 119
    assert b.phi_rank == 119 and b.dim == 81 and b.dim == c.complement_dimension


def test_application_2_card_and_basis():
    # cliques (E, C, F), (E, G), (C, G), (F, G): 126 + 30 + 15 + 35 = 206 bins;
    # rank 1 + (5 + 2 + 6 + 4) + (10 + 30 + 20 + 12 + 8 + 24) + 5·2·6 = 182; k = 630 − 182
    c, b = au.card(2), au.basis(2)
    assert c.marginals[0] == ("Ethnic Group", "Country of Birth", "Family Composition")
    assert c.cells == 630 and len(c.declared_bins()) == 206 and c.phi_dimension == 182
    assert b.phi_rank == 182 and b.dim == 448


def test_application_3_card_and_basis():
    # 21 pairs of sizes 5, 10, 13, 10, 5, 8, 6: Σ n_i n_j = (57² − 519)/2 = 1365 bins;
    # rank 1 + 50 + (50² − 412)/2 = 1095; M = 1 560 000
    c = au.card(3)
    assert len(c.marginals) == 21 and c.cells == 1_560_000
    assert len(c.declared_bins()) == 1365 and c.phi_dimension == 1095
    b = au.basis(3, seed=0)
    assert b.phi_rank == 1095 and len(b.bins) == 1000 and 990 <= b.dim <= 1000
    assert au.basis(3, seed=0) is b  # cached
    small = au.basis(3, seed=1, n_candidates=50)
    assert len(small.bins) == 50 and small.dim <= 50


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------
def test_make_generator_builds_the_paper_generators():
    honest = au.make_generator("ipf_honest", 1, 0)
    bad = au.make_generator("ipf_dishonest", 1, 0)
    assert isinstance(honest, syn.IPF) and honest.tol == 0.5 and honest.max_iter == 10_000
    assert [tuple(m) for m in honest.marginals] == [APP1[:2], (APP1[0], APP1[2]), APP1[1:]]
    assert tuple(bad.marginals[-1]) == APP1 and len(bad.marginals) == 4
    pgm = au.make_generator("pgm_dishonest", 3, 0)
    assert isinstance(pgm, syn.PGMMarginals) and pgm.max_iter == 200
    assert tuple(pgm.marginals[-1]) == au.APPLICATIONS[3].cheat
    assert au.make_generator("pgm_honest", 2, 0, pgm_iters=7).max_iter == 7
    cart = au.make_generator("cart", 1, 3)
    assert isinstance(cart, syn.SequentialCART) and cart.min_samples_leaf == 5
    assert cart.domain == au.card(1).columns
    mst = au.make_generator("mst", 1, 0, epsilon=10.0, delta=1e-6)
    assert isinstance(mst, syn.MST) and mst.epsilon == 10.0 and mst.delta == 1e-6
    assert isinstance(au.make_generator("privbayes", 1, 0), syn.PrivBayes)
    assert set(au.GENERATORS) == set(au.PAPER_GENERATORS) | set(au.DP_GENERATORS)


def test_paper_table4_as_published():
    assert au.PAPER_TABLE4["ipf_honest"] == (0.54, 0.67, 0.67)
    assert au.PAPER_TABLE4["pgm_dishonest"] == (5.4e-66, 3.0e-69, 2.3e-33)
    assert au.PAPER_TABLE4["cart"] == (5.1e-35, 3.9e-38, 3.7e-34)
    assert set(au.PAPER_TABLE4) == set(au.PAPER_GENERATORS)
    # the labels follow the code: the paper's "MST" rows are noise-free Private-PGM
    assert au.GENERATORS["pgm_honest"][0].startswith("Private-PGM (paper: MST)")


# --------------------------------------------------------------------------------------------
# a small Application 1 audit
# --------------------------------------------------------------------------------------------
def _cell(gen, **kw):
    cell = au.build_grid(
        applications=[1], generators=[gen], copies=[100, 100, 10], k_select=3, k_audit=4
    )[0]
    cell.update(kw)
    return cell


def test_small_application_1_audit():
    rng = [np.random.default_rng(5)]
    ok = au.audit_cell(_cell("ipf_honest"), rng).iloc[0]
    bad = au.audit_cell(_cell("ipf_dishonest"), rng).iloc[0]
    cart = au.audit_cell(_cell("cart"), rng).iloc[0]
    assert ok.df == 6 and ok.dim == 81 and ok.phi_rank == 119
    assert ok.n_rows == pytest.approx(200 * 100, rel=0.05)  # D⁺ keeps N up to rounding
    assert not ok.rejected and ok.p > 0.01
    assert bad.rejected and bad.log10_p < -6 and abs(bad.t) > 20
    assert cart.rejected and cart.p < 1e-3
    # the dishonest IPF's leak: all of β*'s energy on the undeclared 3-way interaction
    assert bad.leak == "Economic Activity × Occupation × Sex"
    assert bad.leak_share == pytest.approx(1.0)
    assert bad.g_minus < bad.g_star < bad.g_plus
    ym, yp = json.loads(bad.y_minus), json.loads(bad.y_plus)
    assert len(ym) == len(yp) == 4
    assert bad.y_plus_mean == pytest.approx(np.mean(yp))
    assert bad.y_minus_sd == pytest.approx(np.std(ym, ddof=1))
    # the t statistic is Student's on the y± values (Eq. 7)
    from scipy import stats

    assert bad.t == pytest.approx(stats.ttest_ind(yp, ym).statistic, rel=1e-10)


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


def test_build_grid():
    grid = au.build_grid(
        applications=[1, 2, 3],
        generators=[["ipf_honest", "cart"], ["ipf_honest"], ["cart"]],
        copies=[1000, 300, 10],
        beyond_generators=["mst", "aim"],
        beyond_applications=[1],
    )
    assert [(c["app"], c["generator"]) for c in grid] == [
        (1, "ipf_honest"),
        (1, "cart"),
        (2, "ipf_honest"),
        (3, "cart"),
        (1, "mst"),
        (1, "aim"),
    ]
    assert [c["copies"] for c in grid[:4]] == [1000, 1000, 300, 10]
    assert grid[3]["support"] == 10_000 and grid[3]["n_candidates"] == 1000
    assert grid[3]["pgm_iters"] == 200
    assert grid[0]["support"] is None and grid[0]["n_candidates"] is None
    flat = au.build_grid(applications=[2], generators=["ipf_honest", "cart"])
    assert [c["generator"] for c in flat] == ["ipf_honest", "cart"]


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("app", [0, 4, "1", True, 1.0, None])
def test_unknown_application(app):
    with pytest.raises(ValueError, match=r"app must be one of \[1, 2, 3\]"):
        au.card(app) if app is not None else au.application(app)


def test_bad_input():
    with pytest.raises(ValueError, match="unknown generator 'synthpop'; expected one of ipf_"):
        au.make_generator("synthpop", 1, 0)
    with pytest.raises(ValueError, match="app must be one of"):
        au.make_generator("ipf_honest", 5, 0)
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        au.build_grid(applications=[1], generators=["gan"])
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        au.audit_cell({**_cell("cart"), "generator": "gan"}, [np.random.default_rng(0)])
    with pytest.raises(ValueError, match="app must be one of"):
        au.build_grid(applications=[7], generators=["cart"])
    with pytest.raises(ValueError, match=r"copies must be a list of 3 values"):
        au.build_grid(applications=[1], generators=["cart"], copies=[1000])
    with pytest.raises(ValueError, match="n_candidates must be an int >= 1"):
        au.basis(3, n_candidates=0)
    with pytest.raises(ValueError, match="results must have the columns"):
        au.summarize(pd.DataFrame({"app": [1]}))
    with pytest.raises(ValueError, match="results must have the columns"):
        au.y_values(pd.DataFrame({"app": [1]}))
