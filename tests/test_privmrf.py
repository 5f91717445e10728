"""Tests of synthtrust.synthesizers.privmrf (PrivMRF, Cai et al. PVLDB 2021).

Oracles: zCDP ledger = cdp_rho(ε, δ) and the authors' budget fractions; brute-force contingency
tables for the R-score; hand-triangulated graphs; brute-force maximal parent sets; scipy's
maximum spanning tree for the size-constrained local search; exact 2-way marginals at huge ε.
Tiny domains keep mbi's JIT compilation (seconds per clique structure) affordable.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy.sparse.csgraph import minimum_spanning_tree

from synthtrust.privacy.accounting import cdp_rho
from synthtrust.synthesizers.privmrf import (
    PrivMRF,
    _cliques_bits,
    _graph_score,
    _local_search,
    _maximal_parents,
    _model_marginals,
    _to_bits,
    _triangulate_bits,
    r_score_statistics,
    triangulate,
)

FAST = dict(max_iter=50)


def _table(rng, n, sizes, dependent=True) -> pd.DataFrame:
    """Random integer table; column j>0 copies column 0 (mod its size) with prob. 0.8."""
    cols = {}
    base = rng.integers(sizes[0], size=n)
    cols["c0"] = base
    for j, k in enumerate(sizes[1:], start=1):
        noise = rng.integers(k, size=n)
        copy = rng.random(n) < (0.8 if dependent else 0.0)
        cols[f"c{j}"] = np.where(copy, base % k, noise)
    return pd.DataFrame(cols).astype("int64")


def _pair_tvd(real: pd.DataFrame, synth: pd.DataFrame, dom: dict, a, b) -> float:
    r = pd.crosstab(real[a], real[b]).reindex(
        index=range(dom[a]), columns=range(dom[b]), fill_value=0
    )
    s = pd.crosstab(synth[a], synth[b]).reindex(
        index=range(dom[a]), columns=range(dom[b]), fill_value=0
    )
    r, s = r.to_numpy(float), s.to_numpy(float)
    return 0.5 * np.abs(r / r.sum() - s / s.sum()).sum()


# --------------------------------------------------------------------------------------------
# privacy accounting
# --------------------------------------------------------------------------------------------
def test_ledger_total_equals_cdp_rho_property():
    rng = np.random.default_rng(20240611)
    seen_d = set()
    for _ in range(8):
        eps = float(math.exp(rng.uniform(math.log(0.01), math.log(50.0))))
        delta = float(10 ** rng.uniform(-9, -3))
        d = int(rng.integers(1, 4))
        sizes = [int(k) for k in rng.integers(2, 4, size=d)]
        seen_d.add(d)
        X = _table(rng, int(rng.integers(30, 150)), sizes)
        dom = {c: k for c, k in zip(X.columns, sizes, strict=True)}
        m = PrivMRF(eps, delta, domain=dom, random_state=int(rng.integers(1000)), **FAST).fit(X)
        target = cdp_rho(eps, delta)
        assert m.rho_ == target
        assert abs(m.ledger_.total_rho - target) <= 1e-9 * target, (eps, delta, sizes)
        assert all(e.mechanism == "gaussian" and e.rho > 0 for e in m.ledger_)
        assert len(m.sample(20)) == 20
    assert seen_d == {1, 2, 3}  # the loop covers the d = 1 path (no pairs, no refinement)


@pytest.fixture(scope="module")
def fit4():
    """One d = 4 fit shared by two tests (mbi compiles each clique structure once)."""
    rng = np.random.default_rng(4)
    X = _table(rng, 500, [4, 3, 3, 2])
    dom = {"c0": 4, "c1": 3, "c2": 3, "c3": 2}
    m = PrivMRF(
        20.0, domain=dom, max_clique_size=12, max_parameter_size=40, random_state=2, **FAST
    ).fit(X)
    return m, dom


def test_budget_split_follows_authors_fractions(fit4):
    m, _ = fit4
    rho = m.rho_
    entries = m.ledger_.entries
    # count: 10 % of β₁ = 0.1; R-scores: the rest of β₁ (one vector query of 6 pairs)
    assert entries[0].rho == pytest.approx(0.01 * rho, rel=1e-12)
    assert entries[1].rho == pytest.approx(0.09 * rho, rel=1e-12)
    assert entries[1].sensitivity == pytest.approx(2 * math.sqrt(6))
    # d = 4: 2 refinement steps of int(0.8·4) = 3 marginals ([2, 1]), both with noisy L1 queries
    l1 = [e for e in entries if e.note.startswith("L1 error")]
    assert len(l1) == 2
    assert sum(e.rho for e in l1) == pytest.approx(0.10 * rho, rel=1e-12)
    marg = [e for e in entries if e.note.startswith("marginal")]
    assert len(marg) == len(m.initial_marginals_) + 3
    assert sum(e.rho for e in marg) == pytest.approx(0.80 * rho, rel=1e-12)
    assert {round(e.scale, 12) for e in marg} == {round(m.sigma_, 12)}
    assert m.sigma_ == pytest.approx(math.sqrt(len(marg) / (2 * 0.8 * rho)))
    assert [len(s) for s in m.selected_marginals_] == [2, 1]
    assert len(m.ledger_) == 2 + len(l1) + len(marg)


# --------------------------------------------------------------------------------------------
# dependency score
# --------------------------------------------------------------------------------------------
def test_r_score_statistic_matches_brute_force_and_hand_value():
    rng = np.random.default_rng(5)
    sizes = [3, 4, 2]
    codes = np.column_stack([rng.integers(k, size=200) for k in sizes])
    got = r_score_statistics(codes, sizes)
    n = codes.shape[0]
    for a, b in itertools.combinations(range(3), 2):
        tot = 0.0
        for i in range(sizes[a]):
            for j in range(sizes[b]):
                c_ij = np.sum((codes[:, a] == i) & (codes[:, b] == j))
                c_i, c_j = np.sum(codes[:, a] == i), np.sum(codes[:, b] == j)
                tot += abs(c_ij - c_i * c_j / n)
        assert got[a, b] == pytest.approx(0.5 * tot, rel=1e-12)
        assert got[b, a] == got[a, b]
    assert np.all(np.diag(got) == 0)
    # hand value: {(0,0), (1,1)} -> joint diag(1, 1), product 0.5 everywhere -> ½·4·0.5 = 1
    assert r_score_statistics(np.array([[0, 0], [1, 1]]), [2, 2])[0, 1] == pytest.approx(1.0)


def test_r_score_statistic_sensitivity_at_most_two():
    rng = np.random.default_rng(9)
    worst = 0.0
    for _ in range(300):
        sizes = [int(k) for k in rng.integers(2, 5, size=2)]
        n = int(rng.integers(1, 12))
        codes = np.column_stack([rng.integers(k, size=n) for k in sizes])
        extra = np.array([[rng.integers(sizes[0]), rng.integers(sizes[1])]])
        before = r_score_statistics(codes, sizes)[0, 1]
        after = r_score_statistics(np.vstack([codes, extra]), sizes)[0, 1]
        worst = max(worst, abs(after - before))
    assert worst <= 2.0
    assert worst > 0.5  # the statistic does move by O(1) records


# --------------------------------------------------------------------------------------------
# graph construction
# --------------------------------------------------------------------------------------------
def test_triangulate_four_cycle_adds_one_chord_by_degree_order():
    g = nx.cycle_graph(4)  # 0-1-2-3-0, all degree 2: node 0 is eliminated first
    tri = triangulate(g)
    assert nx.is_chordal(tri)
    assert set(map(frozenset, tri.edges)) == set(map(frozenset, g.edges)) | {frozenset((1, 3))}
    chordal = nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3)])
    assert set(map(frozenset, triangulate(chordal).edges)) == set(map(frozenset, chordal.edges))


def _reference_triangulate(graph: nx.Graph) -> nx.Graph:
    """networkx statement of the authors' ``tools.triangulate`` (static degree order)."""
    if nx.is_chordal(graph):
        return graph.copy()
    work, out = nx.Graph(graph), nx.Graph(graph)
    for node, _ in sorted(graph.degree(), key=lambda item: item[1]):
        fill = list(itertools.combinations(list(work.neighbors(node)), 2))
        work.add_edges_from(fill)
        out.add_edges_from(fill)
        work.remove_node(node)
    return out


def test_bitmask_graph_routines_match_networkx():
    rng = np.random.default_rng(21)
    n_chordal = 0
    for _ in range(300):
        d = int(rng.integers(1, 10))
        g = nx.gnp_random_graph(d, float(rng.uniform(0.1, 0.8)), seed=int(rng.integers(10**6)))
        adj = _to_bits(g, d)
        tri, peo = _triangulate_bits(adj)
        ref = _reference_triangulate(g)
        tri_g = nx.Graph()
        tri_g.add_nodes_from(range(d))
        tri_g.add_edges_from((a, b) for a in range(d) for b in range(d) if tri[a] >> b & 1)
        assert set(map(frozenset, tri_g.edges)) == set(map(frozenset, ref.edges))
        assert set(map(frozenset, triangulate(g).edges)) == set(map(frozenset, ref.edges))
        cliques = {frozenset(b for b in range(d) if c >> b & 1) for c in _cliques_bits(tri, peo)}
        assert cliques == {frozenset(c) for c in nx.find_cliques(ref)}
        n_chordal += nx.is_chordal(g)
    assert 0 < n_chordal < 300  # both branches (chordal input / triangulation) were exercised


def test_maximal_parents_matches_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(40):
        k = int(rng.integers(0, 6))
        sizes = {a: int(rng.integers(2, 6)) for a in range(k)}
        limit = float(rng.uniform(0.5, 300))
        feasible = [
            set(s)
            for r in range(k + 1)
            for s in itertools.combinations(range(k), r)
            if math.prod(sizes[a] for a in s) <= limit
        ]
        maximal = {tuple(sorted(s)) for s in feasible if not any(s < t for t in feasible)}
        if limit < 1:
            maximal = set()
        assert _maximal_parents(list(range(k)), limit, sizes) == maximal


def test_local_search_with_pair_limit_is_maximum_spanning_tree():
    rng = np.random.default_rng(11)
    d = 6
    r = rng.permutation(np.arange(1, d * (d - 1) // 2 + 1)) / 100.0  # distinct scores
    r_hat = np.zeros((d, d))
    for (a, b), v in zip(itertools.combinations(range(d), 2), r, strict=True):
        r_hat[a, b] = r_hat[b, a] = v
    sizes = [3] * d
    g = _local_search(r_hat, sizes, np.random.default_rng(0), 9, 1e6, 1e-8)  # cliques <= 2 attrs
    assert max(len(c) for c in nx.find_cliques(g)) == 2 and nx.is_forest(g)
    mst = minimum_spanning_tree(-np.triu(r_hat)).tocoo()
    expected = {frozenset((int(a), int(b))) for a, b in zip(mst.row, mst.col, strict=True)}
    assert set(map(frozenset, g.edges)) == expected


def test_local_search_graph_respects_size_limits_and_is_maximal():
    rng = np.random.default_rng(12)
    d = 7
    r_hat = np.abs(rng.normal(0.1, 0.05, size=(d, d)))
    r_hat = (r_hat + r_hat.T) / 2
    np.fill_diagonal(r_hat, 0)
    sizes = [2, 3, 4, 2, 3, 5, 2]
    max_clique, max_total = 30, 120
    g = _local_search(r_hat, sizes, np.random.default_rng(1), max_clique, max_total, 1e-8)
    cells = [math.prod(sizes[a] for a in c) for c in nx.find_cliques(g)]
    assert nx.is_chordal(g)
    assert max(cells) <= max_clique and sum(cells) <= max_total
    assert g.number_of_edges() > 0
    for a, b in itertools.combinations(range(d), 2):  # no edge can be added: a maximal graph
        if not g.has_edge(a, b):
            cand = g.copy()
            cand.add_edge(a, b)
            assert (
                _graph_score(_to_bits(cand, d), r_hat, sizes, max_clique, max_total, 1e-8) == -1e8
            )


def test_fitted_graph_and_initial_marginals_respect_limits(fit4):
    m, dom = fit4
    cells = [math.prod(dom[c] for c in clique) for clique in m.graph_cliques_]
    assert max(cells) <= 12 and sum(cells) <= 40
    assert len(m.graph_edges_) > 0
    # θ-usefulness of the initial marginals: cells <= n̂ / (σ̃ θ), σ̃ = √(1.8 d / (2 · 0.8 ρ))
    limit = max(m.n_hat_, 1) / math.sqrt(1.8 * 4 / (2 * 0.8 * m.rho_)) / 6
    multi = [c for c in m.initial_marginals_ if len(c) > 1]
    assert multi, "at ε = 20 some family must be useful"
    assert all(math.prod(dom[c] for c in fam) <= limit for fam in multi)
    # every measured clique lies inside a maximal clique of the attribute graph
    for fam in m.measured_cliques_:
        assert any(set(fam) <= set(cl) for cl in m.graph_cliques_)


def test_numpy_inference_matches_mbi_project(fit4):
    m, _ = fit4
    names = m._names
    queries = [(names[a],) for a in range(4)] + [
        (names[b], names[a]) for a, b in itertools.combinations(range(4), 2)
    ]
    queries.append((names[3], names[0], names[2]))
    got = _model_marginals(m.model_, names, queries)
    for q, g in zip(queries, got, strict=True):
        ref = np.ravel(np.asarray(m.model_.project(q).datavector(), dtype=float))
        np.testing.assert_allclose(g, ref, rtol=1e-9, atol=1e-9 * m.total_)
        assert g.sum() == pytest.approx(m.total_)


def test_tiny_epsilon_measures_only_one_way_marginals():
    rng = np.random.default_rng(6)
    X = _table(rng, 300, [3, 3, 2])
    dom = {"c0": 3, "c1": 3, "c2": 2}
    m = PrivMRF(0.01, domain=dom, random_state=0, **FAST).fit(X)
    assert all(len(c) == 1 for c in m.measured_cliques_)  # θ-usefulness forbids every pair
    S = m.sample(100)
    assert S.notna().all().all() and len(S) == 100


# --------------------------------------------------------------------------------------------
# utility at huge ε
# --------------------------------------------------------------------------------------------
def test_huge_epsilon_reproduces_two_way_marginals():
    rng = np.random.default_rng(7)
    X = _table(rng, 2000, [3, 3, 2])
    dom = {"c0": 3, "c1": 3, "c2": 2}
    # the dependency is strong: c1 = c0 for ~85 % of the rows
    assert (X.c0 == X.c1).mean() > 0.8
    m = PrivMRF(1e6, domain=dom, random_state=0, max_iter=500).fit(X)
    S = m.sample(len(X))
    tvds = [_pair_tvd(X, S, dom, a, b) for a, b in itertools.combinations(X.columns, 2)]
    assert max(tvds) < 0.03, tvds
    assert abs(m.total_ - len(X)) < 1.0


# --------------------------------------------------------------------------------------------
# determinism
# --------------------------------------------------------------------------------------------
def test_same_random_state_gives_identical_output():
    rng = np.random.default_rng(8)
    X = _table(rng, 300, [3, 2, 2])
    dom = {"c0": 3, "c1": 2, "c2": 2}

    def run(rs):
        m = PrivMRF(3.0, domain=dom, random_state=rs, **FAST).fit(X)
        return m, m.sample(200)

    m1, s1 = run(13)
    state = np.random.get_state()
    m2, s2 = run(13)
    assert np.array_equal(np.random.get_state()[1], state[1])  # mbi's global seeding is undone
    pd.testing.assert_frame_equal(s1, s2)
    assert m1.ledger_.to_frame().equals(m2.ledger_.to_frame())
    assert m1.r_scores_.equals(m2.r_scores_)
    _, s3 = run(np.random.default_rng(13))
    pd.testing.assert_frame_equal(s1, s3)  # an int seed and a fresh Generator from it agree
    m4, s4 = run(14)
    assert not (s4.equals(s1) and m4.r_scores_.equals(m1.r_scores_))


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "exc", "words"),
    [
        (dict(epsilon=0.0), ValueError, ["epsilon", "0.0"]),
        (dict(epsilon=-1.0), ValueError, ["epsilon", "-1.0"]),
        (dict(epsilon=float("nan")), ValueError, ["epsilon", "nan"]),
        (dict(delta=0.0), ValueError, ["delta", "0.0"]),
        (dict(delta=1.0), ValueError, ["delta", "1.0"]),
        (dict(beta_graph=0.0), ValueError, ["beta_graph", "0.0"]),
        (dict(beta_select=1.5), ValueError, ["beta_select", "1.5"]),
        (dict(beta_graph=0.6, beta_select=0.5), ValueError, ["beta_graph + beta_select", "0.6"]),
        (dict(count_share=1.0), ValueError, ["count_share", "1.0"]),
        (dict(theta=0), ValueError, ["theta", "0"]),
        (dict(t=-0.1), ValueError, ["t must", "-0.1"]),
        (dict(max_clique_size=0.5), ValueError, ["max_clique_size", "0.5"]),
        (dict(max_parameter_size="big"), TypeError, ["max_parameter_size", "big"]),
        (dict(size_penalty=-1e-8), ValueError, ["size_penalty", "-1e-08"]),
        (dict(max_measure_attr_num=1.5), TypeError, ["max_measure_attr_num", "1.5"]),
        (dict(max_refine_steps=0), ValueError, ["max_refine_steps", "0"]),
        (dict(norm_query_number=0), ValueError, ["norm_query_number", "0"]),
        (dict(max_iter=0), ValueError, ["max_iter", "0"]),
        (dict(convergence_ratio=-1), ValueError, ["convergence_ratio", "-1"]),
        (dict(synthetic_method="gibbs"), ValueError, ["synthetic_method", "gibbs"]),
        (dict(random_state="seed"), TypeError, ["random_state", "seed"]),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs, exc, words):
    model = PrivMRF(**kwargs)  # __init__ only stores the parameters
    with pytest.raises(exc) as info:
        model.fit(pd.DataFrame({"a": [0, 1]}))
    for w in words:
        assert w in str(info.value)


def test_bad_data_and_set_params_are_rejected():
    X = pd.DataFrame({"a": [0, 1, 2], "b": [0, 1, 1]})
    with pytest.raises(ValueError, match="'a' has code 2"):
        PrivMRF(domain={"a": 2, "b": 2}).fit(X)
    m = PrivMRF(domain={"a": 3, "b": 2})
    with pytest.raises(ValueError, match="theta"):
        m.set_params(theta=-2)
    with pytest.raises(Exception, match="not fitted"):
        PrivMRF(domain={"a": 3, "b": 2}).sample(3)
