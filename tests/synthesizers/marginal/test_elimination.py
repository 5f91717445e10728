"""Tests of ``synthtrust.synthesizers.marginal.elimination``: mbi's greedy order and junction tree
rebuilt in pure Python (oracle: mbi itself), the search for an order with fewer cells, and the
inference and the mirror descent on the tree it gives (oracles: brute-force joint, the same fit on
mbi's greedy tree).

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from _marginal_models import _assert_same_fit, _noisy_measurements, _random_model
from test_junction import _brute_joint

from synthtrust._jax import import_mbi
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal import elimination as el
from synthtrust.synthesizers.marginal import junction

#: a structure where mbi's greedy tree has 1 770 cells and orders with 1 050 exist (found by a
#: seeded random search over small structures)
SMALL_SIZES = (2, 5, 6, 5, 6, 5, 6)
SMALL_CLIQUES = [
    (1, 4), (4, 6), (0, 1), (0, 3), (0, 2), (2, 6),
    (1, 2), (4, 5), (1, 6), (2, 3), (1, 3), (0, 4),
]  # fmt: skip
#: PrivMRF's measured cliques of its last estimation on hypothyroid (allhypo), ε = 10, seed 0
THYROID_SIZES = (9, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 11, 10, 10, 9, 10, 6, 2)
THYROID_CLIQUES = [
    (2, 6, 8, 9, 21), (2, 7, 9, 13, 17), (4, 8, 9, 11, 17), (0, 2, 3, 6), (1, 2, 18, 22),
    (1, 3, 6, 19), (2, 3, 14, 16), (2, 9, 15, 16), (8, 9, 11, 16), (0, 1, 21), (0, 5, 21),
    (1, 19, 21), (2, 16, 21), (9, 17, 21), (10, 17, 21), (13, 16, 21), (15, 16, 21), (16, 20),
    (17, 19), (18, 20), (12,), (16, 18), (1, 2, 13, 21), (9, 18, 19), (14, 19, 20),
    (2, 7, 16, 22), (17, 18), (16, 17), (2, 17, 20), (0, 6, 16), (0, 9, 17), (2, 17, 18),
    (0, 2, 17), (0, 3, 19), (2, 6, 10, 14), (14, 16, 19), (6, 16, 19), (9, 17, 18), (1, 20, 21),
    (1, 9, 10, 16), (1, 6, 9, 17),
]  # fmt: skip


def _mbi_tree(sizes, cliques, order=None) -> list[frozenset]:
    mbi = import_mbi()
    domain = mbi.Domain(tuple(range(len(sizes))), tuple(sizes))
    jtree, _ = mbi.junction_tree.make_junction_tree(domain, [tuple(c) for c in cliques], order)
    return [frozenset(c) for c in jtree.nodes]


def _random_structures(n: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        d = int(rng.integers(3, 10))
        sizes = [int(k) for k in rng.integers(1, 12, d)]
        pairs = list(itertools.combinations(range(d), 2))
        k = int(rng.integers(1, min(len(pairs), 14) + 1))
        cl = [pairs[i] for i in rng.choice(len(pairs), k, replace=False)]
        if rng.random() < 0.4:
            cl.append(tuple(sorted(rng.choice(d, 3, replace=False).tolist())))
        yield sizes, cl, rng


def test_greedy_order_and_its_cliques_are_mbis():
    mbi = import_mbi()
    for sizes, cl, rng in _random_structures(60, seed=0):
        domain = mbi.Domain(tuple(range(len(sizes))), tuple(sizes))
        want, _ = mbi.junction_tree.greedy_order(domain, cl)
        assert el.greedy_order(sizes, cl) == list(want), (sizes, cl)
        # any order: the maximal cliques of the triangulation are the nodes of mbi's tree
        order = rng.permutation(len(sizes)).tolist()
        got = el.elimination_cliques(el.adjacency(len(sizes), cl), order)
        assert sorted(map(sorted, got)) == sorted(map(sorted, _mbi_tree(sizes, cl, order)))


def test_is_tree():
    assert el.is_tree(el.adjacency(4, [(0, 1), (1, 2), (1, 3)]))
    assert not el.is_tree(el.adjacency(4, [(0, 1), (2, 3)]))  # a forest
    assert not el.is_tree(el.adjacency(3, [(0, 1), (1, 2), (0, 2)]))  # a cycle
    assert not el.is_tree(el.adjacency(1, [(0,)]))  # no edge


def test_small_tree_order_beats_greedy_on_privmrf_thyroid_model():
    greedy = el.tree_cells(THYROID_SIZES, _mbi_tree(THYROID_SIZES, THYROID_CLIQUES))
    assert greedy == 33_453_118  # mbi's default tree of this model
    order = el.small_tree_order(THYROID_SIZES, THYROID_CLIQUES)
    assert sorted(order) == list(range(len(THYROID_SIZES)))
    nodes = _mbi_tree(THYROID_SIZES, THYROID_CLIQUES, order)
    cells = el.tree_cells(THYROID_SIZES, nodes)
    assert cells == el.tree_cells(
        THYROID_SIZES, el.elimination_cliques(el.adjacency(23, THYROID_CLIQUES), order)
    )
    assert cells < greedy / 3  # 7.95 M with the default seed and tries
    # every measured clique still sits in a node; the search is a function of its seed
    assert all(any(set(c) <= n for n in nodes) for c in THYROID_CLIQUES)
    assert el.small_tree_order(THYROID_SIZES, THYROID_CLIQUES) == order


def test_small_tree_order_keeps_mbis_tree_when_it_cannot_gain():
    # a tree graph (mbi: DFS post-order, no fill-in), a small model, and a triangle (one node)
    assert el.small_tree_order([50, 50, 50], [(0, 1), (1, 2)], min_cells=0) is None
    assert el.small_tree_order(SMALL_SIZES, SMALL_CLIQUES) is None  # 1 770 cells ≤ min_cells
    assert el.small_tree_order([9, 9, 9], [(0, 1), (1, 2), (0, 2)], min_cells=0) is None
    order = el.small_tree_order(SMALL_SIZES, SMALL_CLIQUES, min_cells=0)
    assert el.tree_cells(SMALL_SIZES, _mbi_tree(SMALL_SIZES, SMALL_CLIQUES)) == 1770
    assert el.tree_cells(SMALL_SIZES, _mbi_tree(SMALL_SIZES, SMALL_CLIQUES, order)) == 1050


@pytest.fixture
def search_always(monkeypatch):
    """TreePlan searches for a smaller tree whatever the greedy tree's size."""
    monkeypatch.setattr(
        junction, "small_tree_order", functools.partial(el.small_tree_order, min_cells=0)
    )


def test_marginals_on_the_smaller_tree_match_brute_force(search_always):
    model = _random_model(SMALL_SIZES, SMALL_CLIQUES, seed=5)
    jt = mg.JunctionTree(model)
    assert sum(math.prod(SMALL_SIZES[a] for a in n) for n in jt.nodes) == 1050
    joint = _brute_joint(model)
    for q in [(0,), (6, 2), (1, 3, 5), (0, 2, 4, 6)]:
        rest = tuple(a for a in range(len(SMALL_SIZES)) if a not in q)
        want = np.transpose(joint.sum(axis=rest), np.argsort(np.argsort(q)))
        np.testing.assert_allclose(jt.marginal(q), want, rtol=1e-9, atol=1e-9)


def test_mirror_descent_on_the_smaller_tree_is_the_same_fit(monkeypatch):
    """The same iterates up to rounding (100 steps: log-potentials within 1e-12); later an Armijo
    test within rounding of a tie may go the other way (here between steps 100 and 300), and both
    runs approach the same optimum: model marginals within 1e-6 of the total."""
    ms = _noisy_measurements(SMALL_SIZES, SMALL_CLIQUES)
    fitter = mg.PGMFitter(SMALL_SIZES, backend="numpy")
    greedy = [fitter.fit(ms, max_iter=k) for k in (100, 300)]
    assert el.tree_cells(SMALL_SIZES, mg.JunctionTree(greedy[1]).nodes) == 1770
    monkeypatch.setattr(
        junction, "small_tree_order", functools.partial(el.small_tree_order, min_cells=0)
    )
    searched = [fitter.fit(ms, max_iter=k) for k in (100, 300)]
    assert el.tree_cells(SMALL_SIZES, mg.JunctionTree(searched[1]).nodes) == 1050
    _assert_same_fit(searched, greedy, SMALL_CLIQUES)
