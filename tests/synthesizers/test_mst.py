"""Tests of ``synthtrust.synthesizers.mst``.

The oracles and the shared set-up are described in ``_marginal_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _marginal_data import COLS, DOMAIN, REL, SIZES, _codes, _tvd

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.mst import MST, select_spanning_tree


@pytest.fixture(scope="module")
def mst(data):
    return MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=3).fit(data)


# --------------------------------------------------------------------------------------------
# MST
# --------------------------------------------------------------------------------------------
def test_mst_ledger_and_tree(mst, data):
    rho = cdp_rho(1.0, 1e-9)
    assert mst.ledger_.total_rho == pytest.approx(rho, rel=REL)
    b = mg.mst_budget(rho, 4)
    frame = mst.ledger_.to_frame()
    assert list(frame["mechanism"]) == ["gaussian"] * 4 + ["exponential"] * 3 + ["gaussian"] * 3
    np.testing.assert_allclose(frame["scale"].iloc[:4], b["sigma_1way"])
    np.testing.assert_allclose(frame["epsilon"].iloc[4:7], b["epsilon_edge"])
    np.testing.assert_allclose(frame["scale"].iloc[7:], b["sigma_2way"])
    # a spanning tree: d - 1 edges, connected, no repeated edge
    assert len(mst.tree_) == 3 and len(set(map(frozenset, mst.tree_))) == 3
    reach, frontier = {"a"}, ["a"]
    while frontier:
        v = frontier.pop()
        for e in mst.tree_:
            for u, w in (e, e[::-1]):
                if u == v and w not in reach:
                    reach.add(w)
                    frontier.append(w)
    assert reach == set(COLS)
    # the model total estimates n and the default sample size follows it
    s = mst.sample()
    assert abs(len(s) - len(data)) < 60
    assert list(s.columns) == COLS
    assert all(s[c].between(0, DOMAIN[c] - 1).all() for c in COLS)


def test_select_spanning_tree_is_a_tree_and_prefers_high_scores():
    rng = np.random.default_rng(0)
    d = 6
    scores = {e: 0.0 for e in itertools.combinations(range(d), 2)}
    for e in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]:
        scores[e] = 1e4
    edges = select_spanning_tree(scores, d, 1.0, rng)
    assert sorted(edges) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    edges = select_spanning_tree(scores, d, 1e-9, rng)  # ~uniform: still a spanning tree
    parent = list(range(d))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in edges:
        assert find(a) != find(b)
        parent[find(a)] = find(b)
    assert len(edges) == d - 1


def test_mst_same_seed_same_data_and_different_seed_differs(data):
    # fresh fits: sample() continues the generator of its fit, so compare like with like
    one = MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=3).fit(data)
    two = MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=3).fit(data)
    pd.testing.assert_frame_equal(one.sample(200), two.sample(200))
    pd.testing.assert_frame_equal(one.sample(), two.sample())
    other = MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=4).fit(data)
    assert not other.sample(200).equals(two.sample(200))


def test_mst_with_jax_backend_matches_numpy_backend(data, monkeypatch):
    monkeypatch.setattr(mg.estimate, "choose_backend", lambda cells, nodes, max_iter: "jax")
    a = MST(3.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=9).fit(data)
    b = MST(3.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=9).fit(data)
    pd.testing.assert_frame_equal(a.sample(100), b.sample(100))
    monkeypatch.setattr(mg.estimate, "choose_backend", lambda cells, nodes, max_iter: "numpy")
    c = MST(3.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=9).fit(data)
    assert a.tree_ == c.tree_ and a.ledger_.total_rho == c.ledger_.total_rho
    # same iterates up to rounding until rounding flips an Armijo test; then both converge
    ja, jc = a._jtree, c._jtree
    for q in [(0, 1), (1, 2), (0, 3)]:
        np.testing.assert_allclose(ja.marginal(q), jc.marginal(q), rtol=1e-3, atol=0.05)


def test_mst_huge_epsilon_reproduces_marginals(data):
    m = MST(1e6, 1e-9, domain=DOMAIN, max_iter=1000, random_state=0).fit(data)
    s = m.sample()
    X, Y = _codes(data), _codes(s)
    assert len(s) == len(data)
    for i in range(4):
        assert _tvd(mg.true_marginal(X, SIZES, (i,)), mg.true_marginal(Y, SIZES, (i,))) < 0.02
    pos = {c: i for i, c in enumerate(COLS)}
    for a, b in m.tree_:
        q = tuple(sorted((pos[a], pos[b])))
        assert _tvd(mg.true_marginal(X, SIZES, q), mg.true_marginal(Y, SIZES, q)) < 0.02
    # the chain a-b-c is recovered (strongest dependencies)
    assert {frozenset(("a", "b")), frozenset(("b", "c"))} <= set(map(frozenset, m.tree_))


def test_mst_tiny_epsilon_compresses_everything(data):
    m = MST(0.01, 1e-9, domain=DOMAIN, max_iter=100, random_state=0).fit(data)
    assert m.ledger_.total_rho == pytest.approx(cdp_rho(0.01, 1e-9), rel=REL)
    s = m.sample(50)
    assert len(s) == 50 and not s.isna().any().any()
    assert np.isfinite(m.model_.total)
