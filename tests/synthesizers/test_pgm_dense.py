"""Tests of Private-PGM's dense path (``synthtrust.synthesizers.pgm._fit_dense``): mirror descent
on the joint table, vectorized over replicates, for structures whose junction tree is one node.

Oracles: mbi's own ``MirrorDescent().estimate`` per replicate (``pgm._fit_one``) on the same
noisy marginals, and mbi's ``synthetic_data`` on that model. Tolerances (total variation
distance of the fitted joints, divided by N):

* 100 steps, any ε: ≤ 1e-12 (measured ≤ 4e-15) — the same iterates up to rounding;
* 500 steps, ε = 0.1: ≤ 1e-12 (measured ≤ 5e-15);
* 500 steps, ε = 10: ≤ 2e-3 (measured ≤ 1.4e-4 on the cells here, ≤ 7.9e-4 over 200
  replicates at n = 1000). Here the step size grows (×1.01 per accepted step) to the edge of
  stability, where a step amplifies rounding differences about 6-fold until the Armijo test
  rejects one; the two runs then take a few different accept/reject decisions. mbi's own
  vmapped estimator differs from its ``estimate`` by as much (on the same 200 replicates:
  median 3.1e-4, max 9.7e-4, against median 3.2e-4, max 7.9e-4 for the dense fit), a
  thousandth of the fitted model's distance from the data (0.39). After 5000 steps both
  approach the same optimum: ≤ 2e-5 (measured ≤ 6e-6).
"""

from __future__ import annotations

import importlib
import math
import warnings

import numpy as np
import pytest
from _synthesizer_data import SHAPE, _count_matrix, _gens

from synthtrust.run.experiment import run_grid
from synthtrust.studies.hypothesis_validity import multivariate as hm
from synthtrust.synthesizers import private_pgm
from synthtrust.synthesizers.base import check_marginals

pgm = importlib.import_module("synthtrust.synthesizers.pgm")

MV = hm.SHAPE  # 2 × 8 × 24 × 3 × 2 = 2304 cells


def _mv_counts(n: int, reps: int, seed: int = 1) -> np.ndarray:
    """(reps, 2304) counts of the multivariate study's signal scenario."""
    return hm.joint_counts(hm.original_samples("signal", n, _gens(reps, offset=100 * seed)))


def _noisy(counts, shape, eps, seed):
    cliques = check_marginals(None, len(shape))
    noisy, b = pgm._measure(counts, shape, cliques, eps, _gens(len(counts), offset=seed))
    return cliques, noisy, math.sqrt(2.0) * b, counts.sum(axis=1).astype(float)


def _dense(shape, cliques, noisy, sd, tot, max_iter):
    domain = pgm._domain(shape)
    loss0 = pgm._loss_template(domain, noisy, cliques, sd)
    return pgm._fit_dense(domain, noisy, cliques, sd, tot, max_iter, loss0)


def _mbi_model(shape, cliques, noisy, sd, tot, i, max_iter):
    domain = pgm._domain(shape)
    return pgm._fit_one(domain, [y[i] for y in noisy], cliques, sd, float(tot[i]), max_iter)


def _mbi_joint(model) -> np.ndarray:
    return np.asarray(model.project(model.domain.attributes).datavector(flatten=False))


def _tvd_rel(a, b, total) -> float:
    return 0.5 * float(np.abs(a - b).sum()) / float(total)


# ---------------------------------------------------------------------------- the fit
@pytest.mark.parametrize("n", [50, 20000])
@pytest.mark.parametrize("eps", [0.1, 10.0])
def test_dense_fit_equals_mbi_estimate_on_the_multivariate_table(n, eps):
    counts = _mv_counts(n, 2)
    cliques, noisy, sd, tot = _noisy(counts, MV, eps, seed=7)
    for max_iter, tol in ((100, 1e-12), (500, 1e-12 if eps < 1 else 2e-3)):
        joints = _dense(MV, cliques, noisy, sd, tot, max_iter)
        assert joints.shape == (2, *MV)
        np.testing.assert_allclose(joints.reshape(2, -1).sum(axis=1), tot, rtol=1e-12)
        for i in range(2):
            ref = _mbi_joint(_mbi_model(MV, cliques, noisy, sd, tot, i, max_iter))
            assert _tvd_rel(joints[i], ref, tot[i]) <= tol, (max_iter, i)


@pytest.mark.slow
def test_dense_fit_converges_to_mbi_optimum():
    """ε = 10, n = 20 000: the 500-step difference (rounding amplified at the stability edge of
    the step size) shrinks as both runs approach the same optimum."""
    counts = _mv_counts(20000, 1)
    cliques, noisy, sd, tot = _noisy(counts, MV, 10.0, seed=7)
    joint = _dense(MV, cliques, noisy, sd, tot, 5000)[0]
    ref = _mbi_joint(_mbi_model(MV, cliques, noisy, sd, tot, 0, 5000))
    assert _tvd_rel(joint, ref, tot[0]) <= 2e-5


@pytest.mark.parametrize("max_iter, tol", [(100, 1e-12), (1000, 1e-4)])
def test_dense_fit_equals_mbi_estimate_on_two_columns(max_iter, tol):
    counts = _count_matrix(3, 1000, seed=6)
    cliques, noisy, sd, tot = _noisy(counts, SHAPE, 1.0, seed=3)
    joints = _dense(SHAPE, cliques, noisy, sd, tot, max_iter)
    for i in range(3):
        ref = _mbi_joint(_mbi_model(SHAPE, cliques, noisy, sd, tot, i, max_iter))
        assert _tvd_rel(joints[i], ref, tot[i]) <= tol


def test_dense_fit_rounds_iters_up_to_mbi_blocks_of_50():
    counts = _mv_counts(500, 1)
    cliques, noisy, sd, tot = _noisy(counts, MV, 1.0, seed=2)
    a = _dense(MV, cliques, noisy, sd, tot, 51)
    np.testing.assert_array_equal(a, _dense(MV, cliques, noisy, sd, tot, 100))
    assert not np.array_equal(a, _dense(MV, cliques, noisy, sd, tot, 50))


def test_reduction_plan_marginals_and_their_adjoint():
    shape = (2, 3, 5, 4)
    cliques = tuple(check_marginals(None, 4)) + ((0, 1, 2, 3),)
    full = (0, 1, 2, 3)
    plan = pgm._dense_plan(shape, full, cliques)
    rng = np.random.default_rng(0)
    table = rng.random((*shape, 3))
    margs = {}
    pgm._dense_marginals(table, full, plan, margs)
    terms = {c: rng.normal(size=tuple(shape[a] for a in c) + (3,)) for c in cliques}
    gathered = np.broadcast_to(pgm._dense_gather(terms, full, plan), table.shape)
    for c in cliques:
        drop = tuple(a for a in full if a not in c)
        np.testing.assert_allclose(margs[c], table.sum(axis=drop), rtol=1e-13)
    # <marginals(T), terms> = <T, gather(terms)> per replicate
    lhs = sum((margs[c] * terms[c]).reshape(-1, 3).sum(axis=0) for c in cliques)
    np.testing.assert_allclose(lhs, (table * gathered).reshape(-1, 3).sum(axis=0), rtol=1e-12)


# ---------------------------------------------------------------------------- chunking
def test_dense_results_do_not_depend_on_chunking(monkeypatch):
    counts = _mv_counts(200, 5)
    cliques, noisy, sd, tot = _noisy(counts, MV, 1.0, seed=4)
    whole = _dense(MV, cliques, noisy, sd, tot, 100)
    for lo, hi in ((0, 1), (1, 3), (3, 5)):
        part = _dense(MV, cliques, [y[lo:hi] for y in noisy], sd, tot[lo:hi], 100)
        np.testing.assert_array_equal(part, whole[lo:hi])
    monkeypatch.setattr(pgm, "_DENSE_ENTRIES", 2 * math.prod(MV))  # internal chunks of 2 and 3
    assert [s.stop - s.start for s in pgm._dense_chunks(5, math.prod(MV))] == [2, 3]
    np.testing.assert_array_equal(_dense(MV, cliques, noisy, sd, tot, 100), whole)
    monkeypatch.undo()
    # the whole mechanism: noise, fit and sampler of replicate i depend only on its generator
    out = private_pgm(counts, 1.0, MV, max_iter=100, random_state=_gens(5))
    parts = [
        private_pgm(counts[lo:hi], 1.0, MV, max_iter=100, random_state=_gens(5)[lo:hi])
        for lo, hi in ((0, 1), (1, 3), (3, 5))
    ]
    np.testing.assert_array_equal(np.vstack(parts), out)
    assert (out.sum(axis=1) == counts.sum(axis=1)).all()


def test_private_pgm_routes_one_node_structures_with_several_cliques_to_the_dense_fit(
    monkeypatch,
):
    def fail(*args, **kwargs):
        raise AssertionError("wrong path")

    counts = _mv_counts(100, 2)
    with monkeypatch.context() as m:
        m.setattr(pgm, "_fit_batched", fail)
        out = private_pgm(counts, 1.0, MV, max_iter=50, random_state=_gens(2))
    assert out.shape == (2, 2304)
    with monkeypatch.context() as m:  # a single whole-table clique stays on mbi vmapped
        m.setattr(pgm, "_fit_dense", fail)
        private_pgm(_count_matrix(2, 100), 1.0, SHAPE, max_iter=50, random_state=_gens(2))
    with monkeypatch.context() as m:  # a chain is not one node: mbi vmapped
        m.setattr(pgm, "_fit_dense", fail)
        shape = (2, 3, 2)
        chain = np.random.default_rng(0).multinomial(100, np.full(12, 1 / 12), size=2)
        private_pgm(chain, 1.0, shape, marginals=[(0, 1), (1, 2)], max_iter=50, random_state=0)


# ---------------------------------------------------------------------------- the sampler
def test_dense_sampler_has_the_model_joint_as_mean_and_mbi_distribution():
    """Synthetic counts from the dense model (round: :func:`pgm.round_joint_counts` in mbi's
    sampling order; sample: multinomial) sum to n, average to n·p over repeated draws, and agree
    with mbi's ``synthetic_data`` on mbi's model of the same noisy marginals."""
    counts = _mv_counts(1000, 1)
    cliques, noisy, sd, tot = _noisy(counts, MV, 1.0, seed=5)
    domain = pgm._domain(MV)
    joint = _dense(MV, cliques, noisy, sd, tot, 500)[0]
    model = _mbi_model(MV, cliques, noisy, sd, tot, 0, 500)
    assert _tvd_rel(joint, _mbi_joint(model), tot[0]) < 1e-3
    order = pgm._dense_order(domain, tuple(model.cliques))
    assert order is not None and sorted(order) == list(range(5))
    rows, k = 300, 300
    p = joint / joint.sum()
    gens = _gens(k, offset=1000)
    ours = pgm._sample_dense(np.broadcast_to(joint, (k, *MV)), order, [rows] * k, gens, "round")
    iid = pgm._sample_dense(np.broadcast_to(joint, (k, *MV)), order, [rows] * k, gens, "sample")
    theirs = np.stack([pgm._synthetic_counts(model, rows, s, "round", MV) for s in range(k)])
    first = order[0]
    other = tuple(1 + a for a in range(5) if a != first)
    quota = rows * p.sum(axis=tuple(a for a in range(5) if a != first))
    for draws in (ours, theirs, iid):
        assert draws.shape == (k, 2304) and (draws.sum(axis=1) == rows).all()
        se = draws.std(axis=0).max() / math.sqrt(k)
        assert np.abs(draws.mean(axis=0) - rows * p.ravel()).max() < 5 * se
    for draws in (ours, theirs):  # randomized rounding: the first column's totals are floor/ceil
        totals = draws.reshape(k, *MV).sum(axis=other)
        assert ((totals == np.floor(quota)) | (totals == np.floor(quota) + 1)).all()
    # per-cell spread: rounding, not i.i.d. (multinomial variance is rows·p·(1−p))
    var_ours, var_theirs = ours.var(axis=0).sum(), theirs.var(axis=0).sum()
    assert abs(var_ours / var_theirs - 1) < 0.1
    assert iid.var(axis=0).sum() > 1.0 * var_ours


def test_dense_fit_of_chapter_1s_smallest_epsilon_cell_stays_finite():
    """Chapter 1's multivariate cell n = 50, ε = 0.01 (signal), as its run makes it (seed 2024,
    chunks of 50): the noise is hundreds of times n and α grows over the accepted steps, so α·g
    moves the log-joint by hundreds. A shift of exp(Φ') that was only an upper bound of max Φ'
    underflowed every cell of some replicates (z = 0 or subnormal: RuntimeWarnings on the page and
    a NaN candidate rejected where mbi accepts); the shift is now max Φ' itself."""
    cell = hm.build_multivariate_grid(
        methods=["private_pgm"], sizes=[50], epsilon=[0.01], pgm_max_iter=500, data=["signal"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = run_grid(
            hm.multivariate_cell, cell, 200, 2024, n_jobs=1, chunk_size=50, progress=False
        )
    assert len(out) == 200 * len(hm.TESTS)
    assert out.feasible.any()
