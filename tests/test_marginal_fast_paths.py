"""The fast paths of the marginal-based synthesizers against their slow oracles.

* :meth:`JunctionTree.marginals` (all candidates in one pass) = :meth:`JunctionTree.marginal`
  one clique at a time, and AIM scored either way selects the same cliques;
* the numpy mirror-descent oracle (one exponential a node, columns laid out by size) = the
  log-space calibration of the junction tree, and the fallback to it;
* AIM's refit effort rule (:func:`refit_iters`, ``refit_mb``) and its model-size cache.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import aim as aim_module
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.aim import AIM, refit_iters
from synthtrust.synthesizers.marginal.junction import _TreePlan
from synthtrust.synthesizers.marginal.mirror_descent import _NumpyMirrorDescent

DOMAIN = {"a": 3, "b": 4, "c": 2, "e": 3, "f": 5}

#: (sizes, cliques): a cycle that needs fill-in plus a pendant; a forest (three components and a
#: lone column); a longer cycle with a chord and mixed sizes
STRUCTURES = [
    ((3, 2, 4, 2, 3), [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)]),
    ((3, 2, 4, 2, 3, 5, 2), [(0, 1), (3, 4), (5, 6), (1, 5)]),
    (
        (3, 4, 2, 5, 3, 2, 4, 3),
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (0, 7), (2, 6)],
    ),
]


def _random_model(sizes, cliques, seed, scale=1.0, total=500.0) -> mg.FittedModel:
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(0, scale, [sizes[a] for a in cl]) for cl in cliques}
    return mg.FittedModel(tuple(sizes), tuple(cliques), pots, total)


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


# --------------------------------------------------------------------------------------------
# JunctionTree.marginals
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sizes,cliques", STRUCTURES)
def test_batched_marginals_equal_one_by_one(sizes, cliques):
    d = len(sizes)
    queries = list(itertools.combinations(range(d), 2)) + [(i,) for i in range(d)]
    queries += [(1, 0), (d - 1, 0), (0, 1), (0, 2, d - 1)]  # reversed, repeated, 3-way
    for seed in range(3):
        jt = mg.JunctionTree(_random_model(sizes, cliques, seed, scale=2.0))
        got = jt.marginals(queries)
        assert set(got) == set(queries)
        for q in queries:
            np.testing.assert_allclose(got[q], jt.marginal(q), rtol=1e-10, atol=1e-10)
    assert mg.JunctionTree(mg.FittedModel(sizes, (), {}, 1.0)).marginals([(0, 1)])[
        (0, 1)
    ].shape == (
        sizes[0],
        sizes[1],
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
# the numpy mirror-descent oracle
# --------------------------------------------------------------------------------------------
def _oracle_pair(sizes, cliques, by_size):
    plan = _TreePlan(sizes, cliques, by_size=by_size)
    ms = [mg.Measurement(c, np.ones(math.prod(sizes[a] for a in c)), 1.0) for c in cliques]
    return plan, _NumpyMirrorDescent(plan, cliques, ms)


def _log_space(plan, md, theta, total):
    log_psi = [b.copy() for b in md._node_log_potentials(theta)]
    return md._potential_marginals(plan.calibrate(log_psi, total))


@pytest.mark.parametrize("sizes,cliques", STRUCTURES)
@pytest.mark.parametrize("by_size", [False, True])
def test_linear_oracle_equals_log_space_calibration(sizes, cliques, by_size):
    plan, md = _oracle_pair(sizes, cliques, by_size)
    rng = np.random.default_rng(1)
    for scale in (0.5, 5.0, 60.0):
        theta = [rng.normal(0, scale, [sizes[a] for a in c]) for c in cliques]
        fast = md._linear_marginals(theta, 1234.0)
        assert fast is not None
        for got, want, c in zip(fast, _log_space(plan, md, theta, 1234.0), cliques, strict=True):
            assert got.shape == tuple(sizes[a] for a in c)
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * 1234.0)
    # the junction tree of the same potentials
    model = mg.FittedModel(
        tuple(sizes), tuple(cliques), dict(zip(cliques, theta, strict=True)), 1234.0
    )
    jt = mg.JunctionTree(model)
    for got, c in zip(md.marginals(theta, 1234.0), cliques, strict=True):
        np.testing.assert_allclose(got, jt.marginal(c), rtol=1e-8, atol=1e-8)


def test_oracle_falls_back_to_log_space(monkeypatch):
    sizes, cliques = STRUCTURES[0]
    plan, md = _oracle_pair(sizes, cliques, True)
    theta = [np.full([sizes[a] for a in c], np.nan) for c in cliques]
    assert md._linear_marginals(theta, 10.0) is None  # no finite maximum
    theta = [np.random.default_rng(2).normal(0, 1, [sizes[a] for a in c]) for c in cliques]
    want = md.marginals(theta, 10.0)
    monkeypatch.setattr(_NumpyMirrorDescent, "_linear_marginals", lambda self, th, tot: None)
    for got, ref in zip(md.marginals(theta, 10.0), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_plan_by_size_is_the_same_tree_with_columns_ordered_by_levels():
    sizes, cliques = STRUCTURES[2]
    plain, by_size = _TreePlan(sizes, cliques), _TreePlan(sizes, cliques, by_size=True)
    assert {frozenset(n) for n in plain.nodes} == {frozenset(n) for n in by_size.nodes}
    for node in by_size.nodes:
        assert list(node) == sorted(node, key=lambda a: (sizes[a], a))
    edges = {
        frozenset((frozenset(p.nodes[i]), frozenset(p.nodes[j])))
        for p in (plain, by_size)
        for i, j in p.up
    }
    assert len(edges) == len(plain.up) == len(by_size.up)


def test_fits_of_both_layouts_agree(monkeypatch):
    rng = np.random.default_rng(4)
    sizes = (3, 5, 2, 4)
    ms = [
        mg.Measurement((0, 1), rng.normal(20, 5, 15), 2.0),
        mg.Measurement((1, 2, 3), rng.normal(8, 3, 40), 3.0),
        mg.Measurement((0, 3), rng.normal(25, 5, 12), 2.0, np.linspace(0.5, 1.0, 12)),
    ]
    fitter = mg.PGMFitter(sizes, backend="numpy")
    fast = mg.JunctionTree(fitter.fit(ms, iters=150))
    monkeypatch.setattr(_NumpyMirrorDescent, "_linear_marginals", lambda self, th, tot: None)
    monkeypatch.setattr(
        mg.estimate, "_TreePlan", lambda s, c, by_size=False: _TreePlan(s, c, by_size=False)
    )
    slow = mg.JunctionTree(fitter.fit(ms, iters=150))
    for q in [(0, 1), (1, 2, 3), (0, 3), (2,)]:
        np.testing.assert_allclose(fast.marginal(q), slow.marginal(q), rtol=1e-6, atol=1e-8)


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
