"""Tests of ``synthtrust.synthesizers.marginal.estimate``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal import estimate


def test_independent_estimate_matches_scipy():
    rng = np.random.default_rng(1)
    for _ in range(3):
        k = 6
        y = rng.normal(20, 30, k)
        w = np.where(rng.random(k) < 0.3, 1 / math.sqrt(3), 1.0)
        m = mg.Measurement((0,), y, 7.0, w)
        total = 150.0
        (mu,) = mg.independent_estimate([m], total)

        def loss(x, y=y, w=w):
            return 0.5 * np.sum((w * x - y) ** 2)

        res = minimize(
            loss,
            np.full(k, total / k),
            method="SLSQP",
            bounds=[(0, None)] * k,
            constraints={"type": "eq", "fun": lambda x, total=total: x.sum() - total},
            options={"ftol": 1e-12, "maxiter": 500},
        )
        assert mu.sum() == pytest.approx(total)
        assert loss(mu) <= res.fun + 1e-6
        np.testing.assert_allclose(mu, res.x, atol=1e-3)


def test_pgm_fitter_recovers_exact_marginals_and_merges():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 400), rng.integers(0, 2, 400), rng.integers(0, 2, 400)])
    X[:, 1] = (X[:, 0] + X[:, 1]) % 2
    sizes = (3, 2, 2)
    cl = [(0,), (0, 1), (1, 2)]
    exact = [mg.Measurement(c, mg.true_marginal(X, sizes, c), 1e-3) for c in cl]
    model = mg.PGMFitter(sizes).fit(exact, max_iter=1000)
    assert model.total == pytest.approx(400)
    jt = mg.JunctionTree(model)
    for c in cl:
        np.testing.assert_allclose(jt.marginal(c).ravel(), mg.true_marginal(X, sizes, c), atol=0.5)
    # two measurements of one clique = their inverse-variance average
    y1, y2 = np.array([1.0, 5.0]), np.array([3.0, 1.0])
    merged = estimate.merge_measurements(
        [mg.Measurement((0,), y1, 1.0), mg.Measurement((0,), y2, 2.0)]
    )
    assert len(merged) == 1
    np.testing.assert_allclose(merged[0].values, (y1 + y2 / 4) / 1.25)
    assert merged[0].stddev == pytest.approx(1 / math.sqrt(1.25))


def test_choose_backend_cost_model():
    # a small model (an AIM round), MST on adult, AIM at ε = 10, a tiny model run very long
    assert mg.choose_backend(cells=900, nodes=15, max_iter=1000) == "numpy"
    assert mg.choose_backend(cells=28_000, nodes=14, max_iter=10_000) == "numpy"
    assert mg.choose_backend(cells=6_000_000, nodes=8, max_iter=1000) == "numpy"
    assert mg.choose_backend(cells=100, nodes=2, max_iter=1_000_000) == "jax"


def test_choose_backend_old_iters_keyword_is_a_type_error():
    """The package was never released: ``iters=`` (now ``max_iter=``) is refused, not mapped."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'iters'"):
        mg.choose_backend(cells=100, nodes=2, iters=1000)


def test_pgm_fitter_fit_old_iters_keyword_is_a_type_error():
    """The package was never released: ``iters=`` (now ``max_iter=``) is refused, not mapped."""
    fitter = mg.PGMFitter((2, 2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'iters'"):
        fitter.fit([], iters=10)
    assert fitter.fit([], max_iter=10).total == 1  # no measurements: the uniform model, total 1


def test_mbi_model_has_the_fitted_marginals():
    """:func:`mbi_model` wraps a fitted model as mbi's MarkovRandomField over a named domain:
    its ``project`` (marginals of the potential cliques, and mbi's variable elimination beyond
    them) equals the numpy junction tree's marginals; ``fitted_model`` rejects NaN potentials."""
    from synthtrust._jax import import_mbi

    mbi = import_mbi()
    rng = np.random.default_rng(2)
    sizes = (3, 2, 4)
    ms = [
        mg.Measurement((0, 1), rng.normal(15, 5, 6), 2.0),
        mg.Measurement((1, 2), rng.normal(10, 5, 8), 3.0),
    ]
    md, state = mg.PGMFitter(sizes).start(ms, 60.0)
    state = md.steps(state, 60.0, 30)
    fitted = mg.fitted_model(sizes, md.cliques, state.theta, 60.0)
    domain = mbi.Domain(("x", "y", "z"), sizes)
    model = mg.mbi_model(fitted, state.mu, domain)
    jt = mg.JunctionTree(fitted)
    assert model.total == 60.0
    for cl, names in [((0, 1), ("x", "y")), ((2, 1), ("z", "y")), ((0, 2), ("x", "z"))]:
        got = np.asarray(model.project(names).datavector())
        np.testing.assert_allclose(got, jt.marginal(cl).ravel(), rtol=1e-9)
    with pytest.raises(FloatingPointError, match="non-finite"):
        mg.fitted_model(sizes, [(0,)], [np.array([0.0, np.nan, 1.0])], 60.0)
