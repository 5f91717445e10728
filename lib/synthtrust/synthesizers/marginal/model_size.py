"""Size in MB of the junction tree of a model over given cliques (AIM's and MWEM+PGM's model-size
cap), computed in pure Python with mbi's junction-tree construction, and the validation of a
model-size cap.

Source: mbi's ``junction_tree.make_junction_tree`` / ``hypothetical_model_size`` [``mbi2026``];
McKenna et al. (VLDB 2022) [``mckenna2022``] (the model-size cap of AIM).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence

from .counts import Clique


def check_model_size(value, name: str = "max_model_size") -> float:
    """Validate a model-size cap in MB: a finite real number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number (MB), got {type(value).__name__} {value!r}")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be finite and > 0 (MB), got {value!r}")
    return value


def _junction_cliques(sizes: Sequence[int], cliques: Sequence[Clique]) -> list[frozenset]:
    """Maximal cliques of mbi's junction tree (``junction_tree.make_junction_tree``), in pure Python.

    Same construction: the graph joins the columns of each clique; a tree graph is eliminated in
    DFS post-order (no fill-in, the cliques are its edges), any other graph in mbi's greedy order
    (repeatedly the first column, in column order, whose cliques span the fewest cells); fill-in
    edges triangulate it; the maximal cliques of the triangulated graph are the maximal sets
    {v} ∪ (neighbours of v eliminated after v).
    """
    d = len(sizes)
    adj = [set() for _ in range(d)]
    for cl in cliques:
        for a, b in itertools.combinations(cl, 2):
            if a != b:
                adj[a].add(b)
                adj[b].add(a)
    n_edges = sum(len(x) for x in adj) // 2
    if n_edges > 0 and n_edges == d - 1 and _connected(adj):
        return [frozenset((a, b)) for a in range(d) for b in adj[a] if a < b]
    # greedy elimination order (mbi junction_tree.greedy_order, deterministic)
    clique_set = {frozenset(c) for c in cliques}
    unmarked = list(range(d))
    order = []
    for _ in range(d):
        best, best_cost = None, None
        for a in unmarked:
            var = set()
            for cl in clique_set:
                if a in cl:
                    var |= cl
            cost = math.prod(sizes[v] for v in var)
            if best is None or cost < best_cost:
                best, best_cost = a, cost
        order.append(best)
        unmarked.remove(best)
        nb = [cl for cl in clique_set if best in cl]
        var = frozenset().union(*nb) - {best}
        clique_set.difference_update(nb)
        clique_set.add(var)
    # triangulate by elimination; candidate cliques {v} ∪ later neighbours
    g = [set(x) for x in adj]
    cand = []
    for v in order:
        nb = g[v]
        cand.append(frozenset(nb | {v}))
        for a in nb:
            g[a] |= nb - {a}
            g[a].discard(v)
        g[v] = set()
    cand.sort(key=len, reverse=True)
    out: list[frozenset] = []
    for c in cand:
        if not any(c <= o for o in out):
            out.append(c)
    return out


def _connected(adj) -> bool:
    seen, stack = {0}, [0]
    while stack:
        for b in adj[stack.pop()]:
            if b not in seen:
                seen.add(b)
                stack.append(b)
    return len(seen) == len(adj)


def model_size_mb(sizes: Sequence[int], cliques: Sequence[Clique]) -> float:
    """Memory of the junction tree of a model over ``cliques`` in MB (8 bytes a cell, 2²⁰ bytes an
    MB): mbi's ``junction_tree.hypothetical_model_size``, computed by :func:`_junction_cliques`
    (the same junction tree, ~10× faster than building it with networkx)."""
    sizes = [int(s) for s in sizes]
    cells = sum(math.prod(sizes[a] for a in c) for c in _junction_cliques(sizes, cliques))
    return cells * 8 / 2**20
