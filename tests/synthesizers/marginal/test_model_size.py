"""Tests of ``synthtrust.synthesizers.marginal.model_size``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from synthtrust.synthesizers import marginal as mg


def test_model_size_is_mbi_junction_tree_size():
    from synthtrust._jax import import_mbi

    mbi = import_mbi()
    # chain 0-1-2 of sizes 10, 20, 30: junction tree {0,1}, {1,2} = 200 + 600 cells
    assert mg.model_size_mb([10, 20, 30], [(0, 1), (1, 2)]) == pytest.approx(800 * 8 / 2**20)
    # a triangle becomes one node of 6000 cells
    assert mg.model_size_mb([10, 20, 30], [(0, 1), (1, 2), (0, 2)]) == pytest.approx(
        6000 * 8 / 2**20
    )
    # our pure-Python junction tree equals mbi's on random structures
    rng = np.random.default_rng(0)
    for _ in range(60):
        d = int(rng.integers(2, 12))
        sizes = [int(k) for k in rng.integers(1, 20, d)]
        pairs = list(itertools.combinations(range(d), 2))
        k = int(rng.integers(0, min(len(pairs), 15) + 1))
        cl = [pairs[i] for i in rng.choice(len(pairs), k, replace=False)]
        cl += [(int(i),) for i in rng.choice(d, int(rng.integers(0, d + 1)), replace=False)]
        if d >= 3 and rng.random() < 0.3:
            cl.append(tuple(sorted(rng.choice(d, 3, replace=False).tolist())))
        want = mbi.junction_tree.hypothetical_model_size(
            mbi.Domain(tuple(range(d)), tuple(sizes)), cl
        )
        assert mg.model_size_mb(sizes, cl) == pytest.approx(want, rel=1e-12), (sizes, cl)
