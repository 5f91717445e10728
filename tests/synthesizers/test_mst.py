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


# --------------------------------------------------------------------------------------------
# the likelihood ratio of the tree (white-box auditing)
# --------------------------------------------------------------------------------------------
def _orders(d):
    """Every selection order of every spanning tree of range(d), by brute force."""
    pairs = list(itertools.combinations(range(d), 2))
    out = []
    for seq in itertools.permutations(pairs, d - 1):
        comp = list(range(d))
        ok = True
        for a, b in seq:
            ca, cb = comp[a], comp[b]
            if ca == cb:
                ok = False
                break
            comp = [ca if c == cb else c for c in comp]
        if ok:
            out.append(seq)
    return out


def test_the_tree_log_probability_is_the_product_of_the_softmax_draws():
    from synthtrust.synthesizers.mst import spanning_tree_log_probability

    scores = {(0, 1): 3.0, (0, 2): 1.0, (1, 2): -2.0}
    eps = 0.7
    w = {e: np.exp(eps * s / 2) for e, s in scores.items()}
    # by hand: (0, 1) first among all three, then (1, 2) against (0, 2)
    hand = w[(0, 1)] / sum(w.values()) * w[(1, 2)] / (w[(1, 2)] + w[(0, 2)])
    got = spanning_tree_log_probability(scores, [(0, 1), (1, 2)], eps)
    assert got == pytest.approx(np.log(hand), rel=1e-13)
    # over every selection order of d = 4 the probabilities sum to 1
    rng = np.random.default_rng(1)
    scores4 = {e: float(rng.normal(0, 3)) for e in itertools.combinations(range(4), 2)}
    orders = _orders(4)
    assert len(orders) == 16 * 6  # Cayley: 16 trees, each edge order of a tree is drawable
    total = sum(np.exp(spanning_tree_log_probability(scores4, o, 1.3)) for o in orders)
    assert total == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(ValueError, match="cannot be drawn at step 2"):
        spanning_tree_log_probability(scores, [(0, 1), (0, 1)], eps)


def test_the_tree_log_probability_matches_the_draw_frequencies():
    from scipy.stats import chisquare

    from synthtrust.synthesizers.mst import spanning_tree_log_probability

    scores = {(0, 1): 2.0, (0, 2): 0.5, (1, 2): 1.0}
    eps, n = 1.5, 20_000
    rng = np.random.default_rng(7)
    draws = [tuple(select_spanning_tree(scores, 3, eps, rng)) for _ in range(n)]
    orders = _orders(3)
    observed = np.array([draws.count(o) for o in orders])
    expected = n * np.exp([spanning_tree_log_probability(scores, o, eps) for o in orders])
    assert observed.sum() == n and expected.sum() == pytest.approx(n)
    assert chisquare(observed, expected).pvalue > 1e-3


def test_the_selection_ratio_of_a_fit_is_the_ratio_of_its_tree_between_the_tables():
    from synthtrust.dp_audit import worst_case
    from synthtrust.synthesizers.mst import spanning_tree_log_probability, tree_scores

    w = worst_case("add_remove")
    m = MST(1.0, 1e-2, domain=w.domain, max_iter=50, random_state=4).fit(w.with_canary)
    got = m.selection_log_ratio(w.without, w.with_canary)
    cols, comp = m.columns_, m.compression_
    edges = [(cols.index(a), cols.index(b)) for a, b in m.tree_]
    eps = mg.mst_budget(m.rho_, 3)["epsilon_edge"]
    logp = []
    for frame in (w.without, w.with_canary):  # by hand from the released compressed 1-ways
        Xc = np.column_stack([comp.mapping[j][frame[c].to_numpy()] for j, c in enumerate(cols)])
        scores = tree_scores(Xc, comp.sizes, m.measurements_[:3])
        logp.append(spanning_tree_log_probability(scores, edges, eps))
    assert got == pytest.approx(logp[1] - logp[0], abs=1e-12)
    assert m.selection_log_ratio(w.with_canary, w.without) == pytest.approx(-got, abs=1e-12)
    assert m.selection_log_ratio(w.without, w.without) == 0.0
    with pytest.raises(
        ValueError, match=r"with_record: column 'c1' must hold integer codes 0..1, got 2"
    ):
        m.selection_log_ratio(w.without, w.with_canary.assign(c1=2))
    with pytest.raises(ValueError, match=r"without lacks the column\(s\) \['c0'\]"):
        m.selection_log_ratio(w.without.drop(columns="c0"), w.with_canary)
