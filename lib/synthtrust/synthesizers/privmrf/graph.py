"""PrivMRF's attribute graph: triangulation and maximal cliques of graphs held as adjacency
bitmasks, the size-penalised score of a graph and the greedy local search (edge addition) that
builds the graph from the noisy R-scores.

Source: Cai et al. (PVLDB 2021) [``cai2021``], §4; ``attribute_graph.py`` (``local_search``,
``pairwise_score_TVD``) and ``tools.triangulate`` of the authors' code.
"""

from __future__ import annotations

import networkx as nx

MIN_SCORE = -1e8


def clique_cells(sizes, attrs) -> int:
    """Number of cells Π_{a ∈ attrs} sizes[a] of the marginal over ``attrs`` (1 if empty)."""
    out = 1
    for a in attrs:
        out *= int(sizes[a])
    return out


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _mcs_peo(adj: list[int]) -> list[int] | None:
    """A perfect elimination ordering of the graph (adjacency bitmasks), or None if the graph is
    not chordal (maximum cardinality search + zero fill-in test; Tarjan & Yannakakis 1984)."""
    d = len(adj)
    weight = [0] * d
    visited, order = 0, []
    for _ in range(d):
        v = max((u for u in range(d) if not visited >> u & 1), key=lambda u: (weight[u], -u))
        before = adj[v] & visited
        if before:
            parent = max(_bits(before), key=order.index)
            if (before & ~(1 << parent)) & ~adj[parent]:
                return None
        order.append(v)
        visited |= 1 << v
        for u in _bits(adj[v] & ~visited):
            weight[u] += 1
    return order[::-1]


def triangulate_bits(adj: list[int]) -> tuple[list[int], list[int]]:
    """(chordal adjacency, a perfect elimination ordering of it).

    A chordal graph is returned unchanged; otherwise vertices are eliminated in increasing order
    of their degree in the input graph (ties: vertex index), connecting the remaining
    neighbours of each eliminated vertex (``tools.triangulate`` of the authors' code)."""
    peo = _mcs_peo(adj)
    if peo is not None:
        return list(adj), peo
    d = len(adj)
    order = sorted(range(d), key=lambda v: adj[v].bit_count())
    work, out = list(adj), list(adj)
    for v in order:
        nb = work[v]
        for u in _bits(nb):
            work[u] = (work[u] | nb) & ~(1 << u) & ~(1 << v)
            out[u] |= nb & ~(1 << u)
        work[v] = 0
    return out, order


def cliques_bits(adj: list[int], peo: list[int]) -> list[int]:
    """Maximal cliques (bitmasks) of a chordal graph from a perfect elimination ordering."""
    later, cands = 0, []
    for v in reversed(peo):
        cands.append((1 << v) | (adj[v] & later))
        later |= 1 << v
    return [c for c in cands if not any(c != o and c & o == c for o in cands)]


def to_bits(graph: nx.Graph, d: int) -> list[int]:
    """A graph on nodes 0..d−1 as adjacency bitmasks: bit ``b`` of ``adj[a]`` set iff a–b is an
    edge (list of ``d`` ints)."""
    adj = [0] * d
    for a, b in graph.edges:
        adj[a] |= 1 << b
        adj[b] |= 1 << a
    return adj


def _to_graph(adj: list[int]) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(len(adj)))
    g.add_edges_from((a, b) for a in range(len(adj)) for b in _bits(adj[a]) if a < b)
    return g


def triangulate(graph: nx.Graph) -> nx.Graph:
    """Chordal supergraph of ``graph`` (nodes 0..d−1): eliminate vertices in increasing order of
    their degree.

    The order is fixed from the degrees of the input graph (ties: node index); eliminating a
    vertex connects all its not-yet-eliminated neighbours. A graph that is already chordal is
    returned unchanged (a copy). Source: ``tools.triangulate`` of the authors' code.
    """
    d = graph.number_of_nodes()
    if sorted(graph.nodes) != list(range(d)):
        raise ValueError(f"graph nodes must be 0..{d - 1}, got {sorted(graph.nodes)}")
    return _to_graph(triangulate_bits(to_bits(graph, d))[0])


def maximal_cliques(chordal: nx.Graph) -> list[tuple[int, ...]]:
    """The maximal cliques of a (triangulated) graph, each a sorted tuple of nodes, sorted.

    networkx's ``find_cliques``; an isolated node is a clique of its own. PrivMRF models the
    data as a Markov random field over these cliques (``cai2021``, §4).
    """
    return sorted(tuple(sorted(c)) for c in nx.find_cliques(chordal))


def graph_score(
    adj: list[int], r_hat, sizes, max_clique_size, max_parameter_size, size_penalty
) -> float:
    """Score of the authors' ``pairwise_score_TVD`` for a graph given as adjacency bitmasks:
    Σ R̂ over the edges of its triangulation − penalty × cells; MIN_SCORE if too large."""
    tri, peo = triangulate_bits(adj)
    total = 0
    for c in cliques_bits(tri, peo):
        cells = clique_cells(sizes, _bits(c))
        if cells > max_clique_size:
            return MIN_SCORE
        total += cells
    if total > max_parameter_size:
        return MIN_SCORE
    score = sum(r_hat[a, b] for a in range(len(tri)) for b in _bits(tri[a] >> (a + 1) << (a + 1)))
    return score - size_penalty * total


def search_graph(r_hat, sizes, rng, max_clique_size, max_parameter_size, size_penalty) -> nx.Graph:
    """Greedy edge addition (Cai et al. 2021 §4; ``AttributeGraph.local_search``); returns the
    triangulated graph."""
    d = len(sizes)
    adj = [0] * d
    stalls = 0
    for _ in range(d * (d - 1)):
        missing = [(a, b) for a in range(d) for b in range(a + 1, d) if not adj[a] >> b & 1]
        best, best_adj = MIN_SCORE, None
        for k in rng.permutation(len(missing)):
            a, b = missing[k]
            cand = list(adj)
            cand[a] |= 1 << b
            cand[b] |= 1 << a
            score = graph_score(
                cand, r_hat, sizes, max_clique_size, max_parameter_size, size_penalty
            )
            if score > best:
                best, best_adj = score, cand
        if best_adj is None:
            stalls += 1
            if stalls >= 3:
                break
            continue
        stalls = 0
        adj = best_adj
    return _to_graph(triangulate_bits(adj)[0])
