"""Helpers shared by the test files of this folder (plain functions and constants).

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import math

import numpy as np

from synthtrust.synthesizers import marginal as mg


def _random_model(sizes, cliques, seed, total=500.0) -> mg.FittedModel:
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(0, 1.0, [sizes[a] for a in cl]) for cl in cliques}
    return mg.FittedModel(tuple(sizes), tuple(cliques), pots, total)


def _noisy_measurements(sizes, cliques, seed=3, rows=400, sd=2.0) -> list:
    """Marginals of ``rows`` uniform random records on ``cliques``, each with N(0, sd²) noise."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, s, rows) for s in sizes])
    return [
        mg.Measurement(c, mg.true_marginal(X, sizes, c).ravel() + rng.normal(0, sd, n), sd)
        for c in cliques
        for n in [math.prod(sizes[a] for a in c)]
    ]


def _assert_same_fit(fits, ref, cliques) -> None:
    """Two runs of the same Private-PGM fit, each [100 steps, 300 steps]: the same iterates up to
    rounding after 100 steps (log-potentials within 1e-12); the same model marginals within 1e-6
    of the total after 300 (where an Armijo test within rounding of a tie may go either way)."""
    for c in cliques:
        np.testing.assert_allclose(
            fits[0].log_potentials[c], ref[0].log_potentials[c], rtol=0, atol=1e-12
        )
    a, b = mg.JunctionTree(fits[1]), mg.JunctionTree(ref[1])
    for c in cliques:
        np.testing.assert_allclose(a.marginal(c), b.marginal(c), rtol=0, atol=1e-6 * ref[1].total)
