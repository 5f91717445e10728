"""Tests of ``synthtrust.synthesizers.marginal.mirror_descent``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthtrust.synthesizers import marginal as mg


@pytest.mark.parametrize("backend", ["jax", "numpy"])
def test_fit_equals_mbi_mirror_descent(backend):
    """Both backends follow mbi MirrorDescent's iterates (the numpy one and our fused JAX program
    with one oracle call a step), including a weighted (compressed) measurement."""
    from synthtrust._jax import import_mbi

    mbi = import_mbi()
    rng = np.random.default_rng(3)
    sizes = (3, 2, 4)
    ms = [
        mg.Measurement((0,), rng.normal(30, 5, 3), 4.0),
        mg.Measurement((0, 1), rng.normal(15, 5, 6), 2.0),
        mg.Measurement((1, 2), rng.normal(10, 5, 8), 3.0),
        mg.Measurement((2,), rng.normal(20, 5, 4), 5.0, np.array([1.0, 1.0, 1.0, 0.5])),
    ]
    ours = mg.PGMFitter(sizes, backend=backend).fit(ms, max_iter=100)
    domain = mbi.Domain((0, 1, 2), sizes)
    lms = [mbi.LinearMeasurement(m.values, m.clique, stddev=m.stddev) for m in ms[:3]]
    lms.append(
        mbi.LinearMeasurement(
            ms[3].values, (2,), stddev=5.0, query=mbi.WeightedQuery(np.array([1.0, 1.0, 1.0, 0.5]))
        )
    )
    ref = mbi.estimation.MirrorDescent().estimate(domain, lms, known_total=ours.total, iters=100)
    jt = mg.JunctionTree(ours)
    for cl in [(0, 1), (1, 2), (0,), (2,)]:
        np.testing.assert_allclose(
            jt.marginal(cl).ravel(), np.asarray(ref.project(cl).datavector()), rtol=1e-6, atol=1e-8
        )
    with pytest.raises(ValueError, match="backend"):
        mg.PGMFitter(sizes, backend="gpu")


def test_steps_in_chunks_follow_one_run():
    """``start`` + ``steps`` in chunks (α, loss and gradient carried) give the potentials of one
    ``run`` bit for bit, and :meth:`PGMFitter.start` with the fitter's total gives ``fit``'s."""
    rng = np.random.default_rng(5)
    sizes = (3, 2, 4)
    ms = [
        mg.Measurement((0, 1), rng.normal(15, 5, 6), 2.0),
        mg.Measurement((1, 2), rng.normal(10, 5, 8), 3.0),
    ]
    fitter = mg.PGMFitter(sizes, backend="numpy")
    whole = fitter.fit(ms, max_iter=120)
    md, state = fitter.start(ms, whole.total)
    for k in (50, 50, 20):
        state = md.steps(state, whole.total, k)
    chunked = mg.fitted_model(sizes, md.cliques, state.theta, whole.total)
    assert chunked.cliques == whole.cliques
    for cl in whole.cliques:
        assert np.array_equal(chunked.log_potentials[cl], whole.log_potentials[cl])
    assert state.loss == pytest.approx(md.loss_grad(state.mu)[0], rel=1e-12)
