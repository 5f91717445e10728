"""Tests of ``synthtrust.studies.auditing.audits``.

The oracles and the shared set-up are described in ``_auditing_data.py``.
"""

import json

import numpy as np
import pandas as pd
import pytest
from _auditing_data import _cell

from synthtrust.studies.auditing import audits as au


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
    assert grid[3]["pgm_max_iter"] == 200
    assert grid[0]["support"] is None and grid[0]["n_candidates"] is None
    flat = au.build_grid(applications=[2], generators=["ipf_honest", "cart"])
    assert [c["generator"] for c in flat] == ["ipf_honest", "cart"]


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
    with pytest.raises(ValueError, match=r"^pgm_max_iter\[2\] must be >= 1, got 0$"):
        au.build_grid(applications=[1], generators=["cart"], pgm_max_iter=[10, 10, 0])
    with pytest.raises(ValueError, match=r"^generators must be a list of 3 values"):
        au.build_grid(applications=[1], generators=[["cart"], ["cart"]])
    with pytest.raises(ValueError, match="n_candidates must be an int >= 1"):
        au.basis(3, n_candidates=0)
    with pytest.raises(ValueError, match="results must have the columns"):
        au.summarize(pd.DataFrame({"app": [1]}))
    with pytest.raises(ValueError, match="results must have the columns"):
        au.y_values(pd.DataFrame({"app": [1]}))
