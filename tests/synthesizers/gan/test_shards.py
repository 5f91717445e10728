"""Tests of ``synthtrust.synthesizers.gan.shards``.

The oracles and the shared set-up are described in ``_gan_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthtrust.synthesizers.gan import (
    partition_shards,
)


def test_partition_is_disjoint_and_covers():
    rng = np.random.default_rng(0)
    shards = partition_shards(1003, 40, rng)
    assert len(shards) == 1003 // 40 == 25
    allidx = np.concatenate(shards)
    assert np.array_equal(np.sort(allidx), np.arange(1003))
    sizes = [len(s) for s in shards]
    assert min(sizes) >= 40 and max(sizes) - min(sizes) <= 1 and sum(sizes) == 1003
    assert not np.array_equal(allidx, np.arange(1003))  # shuffled
    with pytest.raises(
        ValueError, match="subset_size must be <= the number of records n = 10, got 11"
    ):
        partition_shards(10, 11, rng)
