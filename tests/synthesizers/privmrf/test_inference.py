"""Tests of ``synthtrust.synthesizers.privmrf.inference``.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _privmrf_data import FAST, _joint_marginals, _table

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.privmrf import PrivMRF
from synthtrust.synthesizers.privmrf.inference import tree_marginals

#: (levels, potential cliques): a chain, a tree with a 3-column node, two components and an
#: isolated column, a cycle (mbi triangulates it into 3-column nodes)
STRUCTURES = [
    ((3, 2, 4, 2, 3, 2), ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5))),
    ((2, 3, 2, 4, 2, 3), ((0, 1, 2), (2, 3), (2, 4), (4, 5))),
    ((3, 2, 2, 3, 2, 2), ((0, 1), (1, 2), (3, 4))),
    ((2, 3, 2, 3, 2, 2), ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0))),
]


def _random_model(sizes, cliques, seed) -> mg.FittedModel:
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(0, 1.5, [sizes[a] for a in cl]) for cl in cliques}
    return mg.FittedModel(tuple(sizes), tuple(cliques), pots, 1234.5)


def _queries(d, rng) -> list:
    """Every clique of 1–4 columns, each in a random column order, plus one repeat."""
    out = []
    for k in range(1, 5):
        for c in itertools.combinations(range(d), k):
            out.append(tuple(rng.permutation(c).tolist()))
    return out + [out[-1]]


@pytest.mark.parametrize("sizes,cliques", STRUCTURES)
def test_tree_marginals_equal_brute_force_joint(sizes, cliques):
    rng = np.random.default_rng(7)
    for seed in range(2):
        model = _random_model(sizes, cliques, seed)
        queries = _queries(len(sizes), rng)
        got = tree_marginals(model, queries)
        want = _joint_marginals(model, queries)
        for q, g, w in zip(queries, got, want, strict=True):
            assert g.shape == (np.prod([sizes[a] for a in q]),), q
            np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12 * model.total, err_msg=str(q))


def test_clique_marginals_equal_one_by_one():
    sizes, cliques = STRUCTURES[1]
    jt = mg.JunctionTree(_random_model(sizes, cliques, 3))
    queries = _queries(len(sizes), np.random.default_rng(1))
    got = jt.clique_marginals(queries)
    assert set(got) == set(queries)
    for q in queries:
        np.testing.assert_allclose(got[q], jt.marginal(q), rtol=1e-10, atol=1e-10)


def test_tree_marginals_match_mbi_project(fit4):
    m, _ = fit4
    pos = {a: i for i, a in enumerate(m._names)}
    pots = {
        tuple(pos[a] for a in cl): np.asarray(m.model_.potentials[cl].values, dtype=float)
        for cl in m.model_.potentials.cliques
    }
    model = mg.FittedModel(tuple(m._sizes), tuple(pots), pots, float(m.model_.total))
    queries = [(a,) for a in range(4)] + [(b, a) for a, b in itertools.combinations(range(4), 2)]
    queries.append((3, 0, 2))
    for q, g in zip(queries, tree_marginals(model, queries), strict=True):
        ref = m.model_.project(tuple(m._names[a] for a in q)).datavector()
        np.testing.assert_allclose(g, np.ravel(ref), rtol=1e-9, atol=1e-9 * m.total_)
        assert g.sum() == pytest.approx(m.total_)


class _BruteForcePrivMRF(PrivMRF):
    """PrivMRF whose candidate marginals come from the brute-force joint table."""

    def _candidate_marginals(self, fitted, queried):
        self.queried_ = getattr(self, "queried_", []) + [list(queried)]
        return _joint_marginals(fitted, queried)


def test_fit_selects_the_same_cliques_as_brute_force():
    rng = np.random.default_rng(11)
    sizes = [3, 2, 3, 2, 2, 3]
    X = _table(rng, 400, sizes)
    dom = {c: k for c, k in zip(X.columns, sizes, strict=True)}
    kw = dict(domain=dom, random_state=5, norm_query_number=6, **FAST)
    new = PrivMRF(30.0, **kw).fit(X)
    old = _BruteForcePrivMRF(30.0, **kw).fit(X)
    assert len(old.queried_) == len(new.selected_marginals_) == 3  # every step queried
    assert any(len(q) > 2 for step in old.queried_ for q in step)  # cliques in no node too
    assert new.selected_marginals_ == old.selected_marginals_
    assert new.measured_cliques_ == old.measured_cliques_
    assert [(e.rho, e.note) for e in new.ledger_] == [(e.rho, e.note) for e in old.ledger_]
    assert new.iterations_ == old.iterations_
    pd_new, pd_old = new.sample(300), old.sample(300)
    assert pd_new.equals(pd_old)
