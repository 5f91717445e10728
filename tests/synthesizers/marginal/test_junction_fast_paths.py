"""Tests of the fast paths of ``synthtrust.synthesizers.marginal.junction`` (a second file on the module: see
``tests/repo/test_layout.py`` for the naming rule).

The oracles and the shared set-up are described in ``_marginal_fast_data.py``.
"""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from _marginal_fast_data import STRUCTURES, _oracle_pair

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal.junction import TreePlan
from synthtrust.synthesizers.marginal.mirror_descent import NumpyMirrorDescent


def _random_model(sizes, cliques, seed, scale=1.0, total=500.0) -> mg.FittedModel:
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(0, scale, [sizes[a] for a in cl]) for cl in cliques}
    return mg.FittedModel(tuple(sizes), tuple(cliques), pots, total)


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


def _log_space(md, theta, total):
    """The marginals from the plan's log-space calibration (the linear pass switched off)."""
    with mock.patch.object(NumpyMirrorDescent, "_linear_pass", lambda self, total, b: False):
        return md.marginals(theta, total)


@pytest.mark.parametrize("sizes,cliques", STRUCTURES)
@pytest.mark.parametrize("by_size", [False, True])
def test_linear_oracle_equals_log_space_calibration(sizes, cliques, by_size):
    _, md = _oracle_pair(sizes, cliques, by_size)
    rng = np.random.default_rng(1)
    for scale in (0.5, 5.0, 60.0):
        theta = [rng.normal(0, scale, [sizes[a] for a in c]) for c in cliques]
        fast = md._linear_marginals(theta, 1234.0)
        assert fast is not None
        for got, want, c in zip(fast, _log_space(md, theta, 1234.0), cliques, strict=True):
            assert got.shape == tuple(sizes[a] for a in c)
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * 1234.0)
    # the junction tree of the same potentials
    model = mg.FittedModel(
        tuple(sizes), tuple(cliques), dict(zip(cliques, theta, strict=True)), 1234.0
    )
    jt = mg.JunctionTree(model)
    for got, c in zip(md.marginals(theta, 1234.0), cliques, strict=True):
        np.testing.assert_allclose(got, jt.marginal(c), rtol=1e-8, atol=1e-8)


def test_plan_by_size_is_the_same_tree_with_columns_ordered_by_levels():
    sizes, cliques = STRUCTURES[2]
    plain, by_size = TreePlan(sizes, cliques), TreePlan(sizes, cliques, by_size=True)
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
    fast = mg.JunctionTree(fitter.fit(ms, max_iter=150))
    monkeypatch.setattr(NumpyMirrorDescent, "_linear_pass", lambda self, total, b: False)
    monkeypatch.setattr(
        mg.estimate, "TreePlan", lambda s, c, by_size=False: TreePlan(s, c, by_size=False)
    )
    slow = mg.JunctionTree(fitter.fit(ms, max_iter=150))
    for q in [(0, 1), (1, 2, 3), (0, 3), (2,)]:
        np.testing.assert_allclose(fast.marginal(q), slow.marginal(q), rtol=1e-6, atol=1e-8)
