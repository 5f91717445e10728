"""Tests of the fast paths of ``synthtrust.synthesizers.marginal.mirror_descent`` (a second file on the module: see
``tests/repo/test_layout.py`` for the naming rule).

The oracles and the shared set-up are described in ``_marginal_fast_data.py``.
"""

from __future__ import annotations

import numpy as np
from _marginal_fast_data import STRUCTURES, _oracle_pair

from synthtrust.synthesizers.marginal.mirror_descent import _NumpyMirrorDescent


def test_oracle_falls_back_to_log_space(monkeypatch):
    sizes, cliques = STRUCTURES[0]
    plan, md = _oracle_pair(sizes, cliques, True)
    theta = [np.full([sizes[a] for a in c], np.nan) for c in cliques]
    assert md._linear_marginals(theta, 10.0) is None  # no finite maximum
    theta = [np.random.default_rng(2).normal(0, 1, [sizes[a] for a in c]) for c in cliques]
    want = md.marginals(theta, 10.0)
    monkeypatch.setattr(_NumpyMirrorDescent, "_linear_marginals", lambda self, th, tot: None)
    for got, ref in zip(md.marginals(theta, 10.0), want, strict=True):
        np.testing.assert_allclose(got, ref, rtol=1e-10)
