"""Tests of ``synthtrust.synthesizers._torch_tables``.

The oracles and the shared set-up are described in ``tests/synthesizers/gan/_gan_data.py``.
"""

from __future__ import annotations

import numpy as np

from synthtrust.synthesizers._torch_tables import (
    code_shards,
    numeric_code,
    numeric_value,
    onehot_shards,
)
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


def test_numeric_slots_hold_the_code_in_minus_one_to_one():
    # hand computation: 5 levels -> codes 0..4 at -1, -0.5, 0, 0.5, 1; rounding back to the
    # nearest code, clipped to the domain
    np.testing.assert_allclose(numeric_value(np.arange(5), 5), [-1.0, -0.5, 0.0, 0.5, 1.0])
    got = numeric_code(np.array([-3.0, -0.76, -0.74, 0.24, 0.26, 0.9, 7.0]), 5)
    np.testing.assert_array_equal(got, [0, 0, 1, 2, 3, 4, 4])
    rng = np.random.default_rng(4)
    codes = {"a": rng.integers(0, 3, 41), "b": rng.integers(0, 5, 41)}
    shards = partition_shards(41, 20, rng)
    dense, _ = onehot_shards(codes, ["a", "b"], [3, 5], shards, numeric=[False, True])
    assert dense.shape == (2, 21, 4)
    for j, idx in enumerate(shards):
        np.testing.assert_array_equal(dense[j, : len(idx), codes["a"][idx]].diagonal(), 1.0)
        np.testing.assert_array_equal(dense[j, : len(idx), 3], codes["b"][idx] / 2.0 - 1.0)
        np.testing.assert_array_equal(numeric_code(dense[j, : len(idx), 3], 5), codes["b"][idx])
