"""Tests of ``synthtrust.synthesizers.privmrf.inference``.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from synthtrust.synthesizers.privmrf import (
    _model_marginals,
)


def test_numpy_inference_matches_mbi_project(fit4):
    m, _ = fit4
    names = m._names
    queries = [(names[a],) for a in range(4)] + [
        (names[b], names[a]) for a, b in itertools.combinations(range(4), 2)
    ]
    queries.append((names[3], names[0], names[2]))
    got = _model_marginals(m.model_, names, queries)
    for q, g in zip(queries, got, strict=True):
        ref = np.ravel(np.asarray(m.model_.project(q).datavector(), dtype=float))
        np.testing.assert_allclose(g, ref, rtol=1e-9, atol=1e-9 * m.total_)
        assert g.sum() == pytest.approx(m.total_)
