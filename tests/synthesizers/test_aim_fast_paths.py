"""Tests of the fast paths of ``synthtrust.synthesizers.aim`` (a second file on the module: see
``tests/repo/test_layout.py`` for the naming rule).

The oracles and the shared set-up are described in ``tests/synthesizers/marginal/_marginal_fast_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import aim as aim_module
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.aim import AIM, refit_iters

DOMAIN = {"a": 3, "b": 4, "c": 2, "e": 3, "f": 5}


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    n = 500
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 4, n))
    f = np.where(rng.random(n) < 0.6, b, rng.integers(0, 5, n))
    return pd.DataFrame(
        {"a": a, "b": b, "c": rng.integers(0, 2, n), "e": rng.integers(0, 3, n), "f": f}
    )


def test_aim_scores_from_batched_marginals_select_the_same_cliques(data, monkeypatch):
    kw = dict(domain=DOMAIN, max_iter=100, random_state=11)
    fast = AIM(3.0, 1e-6, **kw).fit(data)
    monkeypatch.setattr(
        mg.JunctionTree, "marginals", lambda self, cls: {tuple(c): self.marginal(c) for c in cls}
    )
    slow = AIM(3.0, 1e-6, **kw).fit(data)
    assert fast.cliques_ == slow.cliques_ and fast.rounds_ == slow.rounds_
    pd.testing.assert_frame_equal(fast.ledger_.to_frame(), slow.ledger_.to_frame())


# --------------------------------------------------------------------------------------------
# AIM: refit effort and model-size cache
# --------------------------------------------------------------------------------------------
def test_refit_iters_rule():
    assert refit_iters(1000, 0.5, 2.0) == 1000
    assert refit_iters(1000, 2.0, 2.0) == 1000
    assert refit_iters(1000, 20.0, 2.0) == 100
    assert refit_iters(1000, 30.0, 2.0) == 67  # ⌈66.7⌉
    assert refit_iters(1000, 80.0, 2.0) == 50  # ⌈25⌉, floor 50
    assert refit_iters(30, 80.0, 2.0) == 30  # never above max_iter
    assert refit_iters(1000, 500.0, None) == 1000


def test_aim_refit_mb(data):
    kw = dict(domain=DOMAIN, max_iter=120, random_state=3)
    full = AIM(2.0, 1e-6, refit_mb=None, **kw).fit(data)
    default = AIM(2.0, 1e-6, **kw).fit(data)  # the models stay far below 2 MB
    assert full.refit_iters_ == default.refit_iters_ == [120] * full.rounds_
    assert full.cliques_ == default.cliques_
    pd.testing.assert_frame_equal(full.sample(200), default.sample(200))
    capped = AIM(2.0, 1e-6, refit_mb=1e-9, **kw).fit(data)
    assert capped.refit_iters_ == [50] * capped.rounds_
    assert capped.ledger_.total_rho == pytest.approx(cdp_rho(2.0, 1e-6), rel=1e-9)
    with pytest.raises(ValueError, match="refit_mb"):
        AIM(refit_mb=0).fit(data)
    with pytest.raises(TypeError, match="refit_mb"):
        AIM(refit_mb="small").fit(data)


def test_aim_computes_each_model_size_once_per_measured_set(data, monkeypatch):
    seen = []
    real = aim_module.model_size_mb

    def counting(sizes, cliques):
        seen.append(frozenset(cliques))
        return real(sizes, cliques)

    monkeypatch.setattr(aim_module, "model_size_mb", counting)
    # a tiny cap: many candidates are weighed by size in every round
    m = AIM(5.0, 1e-6, domain=DOMAIN, max_model_size=0.002, max_iter=60, random_state=2).fit(data)
    assert m.rounds_ > 3
    # each (measured cliques + candidate) set once, except the model size of each refit
    refits = [frozenset(c) for c in seen]
    assert len(refits) - len(set(refits)) <= m.rounds_
