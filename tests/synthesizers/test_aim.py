"""Tests of ``synthtrust.synthesizers.aim``.

The oracles and the shared set-up are described in ``_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _marginal_data import COLS, DOMAIN, REL, SIZES, _codes, _tvd

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.aim import AIM
from synthtrust.synthesizers.mwem_pgm import MWEMPGM


@pytest.fixture(scope="module")
def aim(data):
    return AIM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=5).fit(data)


def test_aim_ledger_rounds_and_annealing(aim):
    rho = cdp_rho(2.0, 1e-6)
    assert aim.ledger_.total_rho == pytest.approx(rho, rel=REL)
    frame = aim.ledger_.to_frame()
    sigma0, eps0 = mg.aim_budget(rho, 16 * 4)
    np.testing.assert_allclose(frame["scale"].iloc[:4], sigma0)
    sel = frame[frame["mechanism"] == "exponential"]
    assert len(sel) == aim.rounds_ == len(aim.cliques_)
    meas = frame.iloc[4:][frame.iloc[4:]["mechanism"] == "gaussian"]
    assert len(meas) == aim.rounds_
    # σ only shrinks (annealing halves it; the last round uses the remainder)
    assert np.all(np.diff(meas["scale"].to_numpy()) <= 1e-12)
    ratios = meas["scale"].to_numpy()[:-1] / sigma0
    np.testing.assert_allclose(np.log2(ratios), np.round(np.log2(ratios)), atol=1e-9)


def test_aim_and_mwem_reproducible(data):
    one = AIM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=5).fit(data)
    two = AIM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=5).fit(data)
    assert one.cliques_ == two.cliques_
    pd.testing.assert_frame_equal(one.sample(300), two.sample(300))
    one = MWEMPGM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=4).fit(data)
    two = MWEMPGM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=4).fit(data)
    pd.testing.assert_frame_equal(one.sample(300), two.sample(300))


@pytest.mark.parametrize("cls,kw", [(MWEMPGM, {"max_iter": 300}), (AIM, {"max_iter": 300})])
def test_huge_epsilon_reproduces_workload_marginals(cls, kw, data):
    m = cls(1e6, 1e-9, domain=DOMAIN, random_state=1, **kw).fit(data)
    X, Y = _codes(data), _codes(m.sample())
    pos = {c: i for i, c in enumerate(COLS)}
    measured = {tuple(sorted(pos[c] for c in cl)) for cl in m.cliques_}
    assert measured
    for q in measured | {(i,) for i in range(4) if any(i in c for c in measured)}:
        assert _tvd(mg.true_marginal(X, SIZES, q), mg.true_marginal(Y, SIZES, q)) < 0.02, q


def test_aim_custom_workload_and_errors(data):
    m = AIM(
        5.0,
        1e-6,
        domain=DOMAIN,
        workload=[("a", "b"), (("b", "c"), 2.0)],
        rounds=8,
        max_iter=100,
        random_state=0,
    ).fit(data)
    assert m.ledger_.total_rho == pytest.approx(cdp_rho(5.0, 1e-6), rel=REL)
    assert all(set(c) <= {"a", "b", "c"} for c in m.cliques_)
    with pytest.raises(ValueError, match="'zz'"):
        AIM(domain=DOMAIN, workload=[("a", "zz")]).fit(data)
    with pytest.raises(ValueError, match="rounds"):
        AIM(domain=DOMAIN, rounds=3).fit(data)
    with pytest.raises(ValueError, match="max_cells"):
        AIM(domain=DOMAIN, max_cells=2).fit(data)
