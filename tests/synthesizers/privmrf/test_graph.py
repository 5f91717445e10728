"""Tests of ``synthtrust.synthesizers.privmrf.graph``.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree

from synthtrust.synthesizers.privmrf.graph import (
    cliques_bits,
    graph_score,
    search_graph,
    to_bits,
    triangulate,
    triangulate_bits,
)


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
        adj = to_bits(g, d)
        tri, peo = triangulate_bits(adj)
        ref = _reference_triangulate(g)
        tri_g = nx.Graph()
        tri_g.add_nodes_from(range(d))
        tri_g.add_edges_from((a, b) for a in range(d) for b in range(d) if tri[a] >> b & 1)
        assert set(map(frozenset, tri_g.edges)) == set(map(frozenset, ref.edges))
        assert set(map(frozenset, triangulate(g).edges)) == set(map(frozenset, ref.edges))
        cliques = {frozenset(b for b in range(d) if c >> b & 1) for c in cliques_bits(tri, peo)}
        assert cliques == {frozenset(c) for c in nx.find_cliques(ref)}
        n_chordal += nx.is_chordal(g)
    assert 0 < n_chordal < 300  # both branches (chordal input / triangulation) were exercised


def test_local_search_with_pair_limit_is_maximum_spanning_tree():
    rng = np.random.default_rng(11)
    d = 6
    r = rng.permutation(np.arange(1, d * (d - 1) // 2 + 1)) / 100.0  # distinct scores
    r_hat = np.zeros((d, d))
    for (a, b), v in zip(itertools.combinations(range(d), 2), r, strict=True):
        r_hat[a, b] = r_hat[b, a] = v
    sizes = [3] * d
    g = search_graph(r_hat, sizes, np.random.default_rng(0), 9, 1e6, 1e-8)  # cliques <= 2 attrs
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
    g = search_graph(r_hat, sizes, np.random.default_rng(1), max_clique, max_total, 1e-8)
    cells = [math.prod(sizes[a] for a in c) for c in nx.find_cliques(g)]
    assert nx.is_chordal(g)
    assert max(cells) <= max_clique and sum(cells) <= max_total
    assert g.number_of_edges() > 0
    for a, b in itertools.combinations(range(d), 2):  # no edge can be added: a maximal graph
        if not g.has_edge(a, b):
            cand = g.copy()
            cand.add_edge(a, b)
            assert graph_score(to_bits(cand, d), r_hat, sizes, max_clique, max_total, 1e-8) == -1e8
