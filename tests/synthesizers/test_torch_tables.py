"""Tests of ``synthtrust.synthesizers._torch_tables``.

The oracles and the shared set-up are described in ``tests/synthesizers/gan/_gan_data.py``.
"""

from __future__ import annotations

import numpy as np

from synthtrust.synthesizers._torch_tables import code_shards, onehot_shards
from synthtrust.synthesizers.gan import (
    partition_shards,
)


def test_code_shards_are_the_one_hot_shards():
    rng = np.random.default_rng(4)
    codes = {"a": rng.integers(0, 3, 103), "b": rng.integers(0, 5, 103)}
    shards = partition_shards(103, 20, rng)
    dense, sizes_d = onehot_shards(codes, ["a", "b"], [3, 5], shards)
    cols, sizes_c = code_shards(codes, ["a", "b"], [3, 5], shards)
    assert cols.shape == (5, 21, 2) and np.array_equal(sizes_d, sizes_c)
    rebuilt = np.zeros_like(dense)
    for j in range(5):
        for r in range(sizes_c[j]):
            rebuilt[j, r, cols[j, r]] = 1.0
    np.testing.assert_array_equal(rebuilt, dense)
