"""Tests of ``synthtrust.synthesizers.marginal.junction``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
from _marginal_data import _tvd
from _marginal_models import _random_model

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal import factors


def _brute_joint(model: mg.FittedModel) -> np.ndarray:
    sizes = model.sizes
    logp = np.zeros(sizes)
    for cl, pot in model.log_potentials.items():
        logp = logp + factors.align_factor(pot, cl, list(range(len(sizes))))
    p = np.exp(logp - logp.max())
    return p / p.sum() * model.total


def test_junction_tree_marginals_match_brute_force():
    sizes = (3, 2, 4, 2, 3)
    # a cycle 0-1-2-3-0 (needs triangulation), a pendant 4 on 2, and column-free parts
    model = _random_model(sizes, [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)], seed=2)
    jt = mg.JunctionTree(model)
    joint = _brute_joint(model)
    for q in [(0,), (4,), (1, 3), (3, 1), (0, 4), (4, 0, 1), (1, 3, 4), (0, 1, 2, 3, 4)]:
        rest = tuple(a for a in range(5) if a not in q)
        want = np.transpose(joint.sum(axis=rest), np.argsort(np.argsort(q)))
        np.testing.assert_allclose(jt.marginal(q), want, rtol=1e-9, atol=1e-9)
    # independent parts (forest) and an empty model
    model2 = _random_model(sizes, [(0, 1), (3, 4)], seed=3)
    jt2 = mg.JunctionTree(model2)
    joint2 = _brute_joint(model2)
    np.testing.assert_allclose(jt2.marginal((1, 4)), joint2.sum(axis=(0, 2, 3)), rtol=1e-9)
    empty = mg.JunctionTree(mg.FittedModel(sizes, (), {}, 1.0))
    np.testing.assert_allclose(empty.marginal((0, 2)), np.full((3, 4), 1 / 12))


def test_calibration_turns_the_log_potentials_into_the_node_beliefs_in_place():
    """The Hugin calibration overwrites the caller's node tables (one copy of the tree in
    memory, issue 24's 1 GB a task) and they hold the brute-force node marginals."""
    sizes = (3, 2, 4, 2, 3)
    model = _random_model(sizes, [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)], seed=5)
    plan = mg.junction.TreePlan(sizes, model.cliques)
    log_psi = [np.zeros(shape) for shape in plan.shapes]
    for cl, pot in model.log_potentials.items():
        host = plan.host(cl)
        log_psi[host] += factors.align_factor(pot, cl, plan.nodes[host])
    tables = list(log_psi)
    beliefs = plan.calibrate(log_psi, model.total)
    joint = _brute_joint(model)
    assert len(beliefs) == len(plan.nodes) > 1
    for node, table, belief in zip(plan.nodes, tables, beliefs, strict=True):
        assert belief is table
        rest = tuple(a for a in range(len(sizes)) if a not in node)
        np.testing.assert_allclose(belief, joint.sum(axis=rest), rtol=1e-9, atol=1e-12)


def test_junction_tree_sample_matches_model():
    sizes = (3, 2, 4, 2, 3)
    model = _random_model(sizes, [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)], seed=4, total=1.0)
    jt = mg.JunctionTree(model)
    n = 40_000
    X = jt.sample(n, np.random.default_rng(0))
    assert X.shape == (n, 5) and X.dtype == np.int64
    # the first generated column is rounded: its counts are within one of n·p
    first = jt.order[0]
    np.testing.assert_array_less(
        np.abs(np.bincount(X[:, first], minlength=sizes[first]) - n * jt.marginal((first,))),
        1.0 + 1e-9,
    )
    for q in itertools.combinations(range(5), 2):
        emp = mg.true_marginal(X, sizes, q)
        assert _tvd(emp, jt.marginal(q)) < 0.012, q
    # the same generator state gives the same records
    np.testing.assert_array_equal(
        jt.sample(100, np.random.default_rng(7)), jt.sample(100, np.random.default_rng(7))
    )
