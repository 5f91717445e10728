"""Tests of the fast paths of ``synthtrust.synthesizers.marginal.mirror_descent`` (a second file on the module: see
``tests/repo/test_layout.py`` for the naming rule).

The oracles and the shared set-up are described in ``_marginal_fast_data.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
from _marginal_fast_data import STRUCTURES, _oracle_pair

from synthtrust.synthesizers.marginal.mirror_descent import NumpyMirrorDescent


def test_oracle_falls_back_to_log_space(monkeypatch):
    sizes, cliques = STRUCTURES[0]
    plan, md = _oracle_pair(sizes, cliques, True)
    theta = [np.full([sizes[a] for a in c], np.nan) for c in cliques]
    assert md._linear_marginals(theta, 10.0) is None  # no finite maximum
    theta = [np.random.default_rng(2).normal(0, 1, [sizes[a] for a in c]) for c in cliques]
    want = md.marginals(theta, 10.0)
    monkeypatch.setattr(NumpyMirrorDescent, "_linear_pass", lambda self, total, b: False)
    for got, ref in zip(md.marginals(theta, 10.0), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_subnormal_node_mass_falls_back_to_log_space():
    """Two cliques that favour opposite values of their shared column by e^720: after the
    downward pass the child's mass is subnormal (positive, below 2.2e-308), so total / mass
    overflows in linear space. The marginals come from the log-space calibration instead:
    finite, summing to the total, and equal to the brute-force joint (B = 0 and B = 1 have equal
    mass, the other columns are uniform)."""
    sizes, cliques = (3, 2, 4), [(0, 1), (1, 2)]
    plan, md = _oracle_pair(sizes, cliques, True)
    ab, bc = np.zeros((3, 2)), np.zeros((2, 4))
    ab[:, 1], bc[0, :] = -720.0, -720.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the overflow warned before the fix
        assert md._linear_marginals([ab, bc], 10.0) is None
        got = md.marginals([ab, bc], 10.0)
    np.testing.assert_allclose(got[0], np.full((3, 2), 10.0 / 6), rtol=1e-9)
    np.testing.assert_allclose(got[1], np.full((2, 4), 10.0 / 8), rtol=1e-9)
