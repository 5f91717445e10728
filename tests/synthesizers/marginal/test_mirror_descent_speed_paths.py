"""Tests of the flat-buffer numpy mirror descent of
``synthtrust.synthesizers.marginal.mirror_descent`` (a third file on the module: see
``tests/repo/test_layout.py`` for the naming rule).

Oracles: mbi's mirror descent as our jitted JAX program runs it (:func:`fit_program`: mbi's
loss and message passing, McKenna, Sheldon & Miklau 2019, Alg. 1 [``mckenna2019``]; mbi 2.0
[``mbi2026``]); the brute-force joint distribution of a small domain (marginals, loss and
gradient by definition); ``np.add.reduce`` / ``np.sum`` for the vectorized sums, bit for bit.
Structures: a chain, a tree with a 3-way clique, disconnected components, weighted (compressed)
measurements, a junction-tree node that hosts six potential cliques, and repeated
1-way measurements routed into larger cliques.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal.estimate import _clique_vector, merge_measurements
from synthtrust.synthesizers.marginal.junction import TreePlan
from synthtrust.synthesizers.marginal.mirror_descent import (
    NumpyMirrorDescent,
    _SegmentSums,
    fit_program,
)

#: (name, sizes, measured cliques, weighted clique or None)
CASES = [
    ("chain", (3, 2, 4, 3), [(0,), (0, 1), (1, 2), (2, 3), (3,)], None),
    ("tree with a 3-way clique", (3, 2, 4, 2, 5), [(0, 1, 2), (2, 3), (1, 4), (2,), (0, 1)], None),
    ("disconnected components", (3, 2, 4, 2, 3, 2), [(0, 1), (2, 3), (4,), (5,), (1,)], None),
    ("weighted measurements", (4, 3, 2, 5), [(0, 1), (1, 2), (2, 3), (3,), (0,)], (3,)),
    # every pair of columns 0-3: one node hosts six potential cliques, their marginals summed
    # from shared partial sums
    (
        "cliques sharing a node",
        (3, 2, 4, 2, 3),
        [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4)],
        None,
    ),
]


def _measurements(sizes, cliques, weighted, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for j, c in enumerate(cliques):
        cells = math.prod(sizes[a] for a in c)
        w = None
        if c == weighted:
            w = np.linspace(1.0, 0.4, cells)
        y = rng.normal(400.0 / cells, 3.0, cells) * (1.0 if w is None else w)
        out.append(mg.Measurement(c, y, 1.5 + 0.5 * j, w))
    return out


def _problem(sizes, cliques, weighted, backend="numpy"):
    """(fitter, merged measurements, mbi loss, potential cliques, zero θ, total)."""
    ms = _measurements(sizes, cliques, weighted)
    fitter = mg.PGMFitter(sizes, backend=backend)
    merged, loss, pcl, theta = fitter._problem(ms, None)
    return fitter, merged, loss, pcl, theta, float(mg.total_estimate(ms))


def _brute_force(sizes, cliques, theta, total):
    """Marginals of the potential cliques from the full joint exp(Σ θ_c), scaled to ``total``."""
    d = len(sizes)
    logp = np.zeros(sizes)
    for c, t in zip(cliques, theta, strict=True):
        shape = [sizes[a] if a in c else 1 for a in range(d)]
        order = sorted(range(len(c)), key=lambda i: c[i])
        logp = logp + np.transpose(t, order).reshape(shape)
    p = np.exp(logp - logp.max())
    p *= total / p.sum()
    out = []
    for c in cliques:
        m = p.sum(axis=tuple(a for a in range(d) if a not in c))
        out.append(np.transpose(m, np.argsort(np.argsort(c))))
    return out


@pytest.mark.parametrize("name,sizes,cliques,weighted", CASES)
def test_oracle_loss_and_gradient_equal_brute_force(name, sizes, cliques, weighted):
    """Marginals of random potentials against the full joint (rtol 1e-11), the loss and its
    gradient against their definition on those marginals (rtol 1e-11)."""
    _, merged, _, pcl, _, total = _problem(sizes, cliques, weighted)
    md = NumpyMirrorDescent(TreePlan(sizes, pcl, by_size=True), pcl, merged)
    rng = np.random.default_rng(7)
    theta = [rng.normal(0, 1.5, [sizes[a] for a in c]) for c in pcl]
    want = _brute_force(sizes, pcl, theta, total)
    got = md.marginals(theta, total)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-11 * total)
    loss, grad = md.loss_grad(got)
    ref_loss, ref_grad = 0.0, [np.zeros(g.shape) for g in got]
    for m in merged:
        k = min(
            (i for i, c in enumerate(pcl) if set(m.clique) <= set(c)),
            key=lambda i: got[i].size,
        )
        c = pcl[k]
        v = got[k].sum(axis=tuple(t for t, a in enumerate(c) if a not in m.clique)).ravel()
        w = np.ones(v.size) if m.weights is None else m.weights
        r = (w * v - m.values) / m.stddev**2
        ref_loss += 0.5 * m.stddev**2 * float(r @ r)
        ref_grad[k] = ref_grad[k] + (r * w).reshape([sizes[a] if a in m.clique else 1 for a in c])
    assert loss == pytest.approx(ref_loss, rel=1e-11)
    assert ref_loss > 0.0
    for g, w in zip(grad, ref_grad, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("name,sizes,cliques,weighted", CASES)
def test_potentials_follow_mbi_mirror_descent_in_jax(name, sizes, cliques, weighted):
    """80 steps from zero potentials: the numpy iteration's potentials, marginals and loss
    equal those of mbi's mirror descent as the jitted JAX program runs it (same Armijo
    decisions; rtol 1e-9, rounding only)."""
    fitter, merged, loss, pcl, theta, total = _problem(sizes, cliques, weighted)
    md = NumpyMirrorDescent(TreePlan(sizes, pcl, by_size=True), pcl, merged)
    state = md.steps(md.start(theta, total, float(loss.lipschitz)), total, 80)
    pots, jloss = fit_program()(_clique_vector(fitter.domain, pcl, theta), loss, total, 80)
    for c, t in zip(pcl, state.theta, strict=True):
        ref = np.asarray(pots[c].values)
        assert np.abs(ref).max() > 1e-3  # the potentials moved
        np.testing.assert_allclose(t, ref, rtol=1e-9, atol=1e-9 * np.abs(ref).max())
    assert state.loss == pytest.approx(float(jloss), rel=1e-9)
    ref_mu = _brute_force(sizes, pcl, [np.asarray(pots[c].values) for c in pcl], total)
    for m, r in zip(state.mu, ref_mu, strict=True):
        np.testing.assert_allclose(m, r, rtol=1e-8, atol=1e-9 * total)


@pytest.mark.parametrize("name,sizes,cliques,weighted", CASES)
def test_chunks_equal_one_run_bit_for_bit(name, sizes, cliques, weighted):
    """``steps`` in chunks (state copied in and out of the buffers) = one ``run``, bit for bit,
    and the returned state is not changed by later steps (the buffers are copied out)."""
    _, merged, loss, pcl, theta, total = _problem(sizes, cliques, weighted)
    md = NumpyMirrorDescent(TreePlan(sizes, pcl, by_size=True), pcl, merged)
    lip = float(loss.lipschitz)
    whole = md.run([t.copy() for t in theta], total, 150, lip)
    state = md.start([t.copy() for t in theta], total, lip)
    kept = None
    for k in (1, 49, 60, 40):
        state = md.steps(state, total, k)
        if kept is None:
            kept = (state, [t.copy() for t in state.theta], [m.copy() for m in state.mu])
    for a, b in zip(state.theta, whole, strict=True):
        assert np.array_equal(a, b)
    first, theta1, mu1 = kept
    assert all(np.array_equal(a, b) for a, b in zip(first.theta, theta1, strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(first.mu, mu1, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first.theta, state.theta, strict=True))
    assert state.loss == md.loss_grad(state.mu)[0]


@pytest.mark.parametrize("name,sizes,cliques,weighted", CASES)
def test_flat_sums_equal_per_clique_numpy_sums_bit_for_bit(name, sizes, cliques, weighted):
    """The vectorized loss, gradient and Armijo inner product give the bits of the per-clique
    numpy expressions of the previous implementation on the same arrays: Σ_M ½σ⁻²·(r @ r),
    ``g + gv`` in measurement order, ``sum(float(np.sum(g_k * (μ_k − μ'_k))))``."""
    _, merged, _, pcl, _, total = _problem(sizes, cliques, weighted)
    md = NumpyMirrorDescent(TreePlan(sizes, pcl, by_size=True), pcl, merged)
    rng = np.random.default_rng(3)
    th1 = [rng.normal(0, 1.0, [sizes[a] for a in c]) for c in pcl]
    th2 = [t + rng.normal(0, 0.01, t.shape) for t in th1]
    mu1, mu2 = md.marginals(th1, total), md.marginals(th2, total)
    loss, grad = md.loss_grad(mu1)
    val, ref = 0.0, [None] * len(pcl)
    for k, axes, shape, w, y, prec in md.meas:
        v = (mu1[k].sum(axis=axes) if axes else mu1[k]).ravel()
        r = (v if w is None else w * v) - y
        val += 0.5 * prec * float(r @ r)
        gv = (prec * r if w is None else prec * r * w).reshape(shape)
        ref[k] = gv if ref[k] is None else ref[k] + gv
    assert loss == val
    assert all(np.array_equal(a, b) for a, b in zip(grad, ref, strict=True))
    # the Armijo inner product on the buffers of two marginal evaluations
    md._load_mu(mu1, 0)
    md._load_grad(grad, 0)
    md._load_mu(mu2, 1)
    want = sum(float(np.sum(g * (a - b))) for g, a, b in zip(grad, mu1, mu2, strict=True))
    assert md._armijo_dot(0, 1) == want
    assert want != 0.0


@pytest.mark.parametrize("seed", range(4))
def test_segment_sums_equal_numpy_pairwise_sums(seed):
    """:class:`_SegmentSums` (vectorized pairwise summation) = ``np.add.reduce`` of each
    segment, bit for bit, for lengths across numpy's 8-accumulator and 128-block thresholds;
    values spread over 12 orders of magnitude so that any other order of additions differs."""
    rng = np.random.default_rng(seed)
    lengths = [
        int(v) for v in rng.choice([1, 3, 7, 8, 9, 16, 17, 36, 127, 128, 129, 200, 300, 1000], 30)
    ]
    n = sum(lengths)
    x = np.zeros(n + 1)
    x[:n] = rng.normal(size=n) * 10.0 ** rng.uniform(-6, 6, n)
    sums = _SegmentSums(lengths, n)
    assert sums.vectorized
    want = np.array([np.add.reduce(x[s:e]) for s, e in sums.bounds])
    assert np.array_equal(sums(x), want)
    naive = np.array([math.fsum(x[s:e]) for s, e in sums.bounds])
    assert not np.array_equal(naive, want)  # the test can tell summation orders apart
    few = _SegmentSums(lengths[:2], n)  # one call a segment
    assert not few.vectorized
    assert np.array_equal(few(x), want[:2])


def test_repeated_measurements_and_uncovered_structure():
    """Merged repeated measurements (PGMFitter's path) and 1-way measurements routed into the
    3-way clique: ``fit`` with the numpy backend equals the JAX backend (rtol 1e-8), and every
    combination of potential cliques gets a gradient."""
    sizes = (3, 2, 4, 2)
    rng = np.random.default_rng(11)
    ms = []
    for c in [(0, 1, 2), (2, 3), (0,), (0,), (3,), (1, 2)]:
        cells = math.prod(sizes[a] for a in c)
        ms.append(mg.Measurement(c, rng.normal(300.0 / cells, 2.0, cells), 2.0))
    a = mg.PGMFitter(sizes, backend="numpy").fit(ms, max_iter=60)
    b = mg.PGMFitter(sizes, backend="jax").fit(ms, max_iter=60)
    assert len(merge_measurements(ms)) == 5
    for c in a.cliques:
        np.testing.assert_allclose(a.log_potentials[c], b.log_potentials[c], rtol=1e-8, atol=1e-10)
    assert set(itertools.chain.from_iterable(a.cliques)) == {0, 1, 2, 3}
