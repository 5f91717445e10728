"""Tests of ``synthtrust.synthesizers.marginal.compress``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthtrust.synthesizers import marginal as mg


def test_compress_domain_hand_example():
    m0 = mg.Measurement((0,), np.array([100.0, 2.0, 50.0, -1.0, 3.0]), 10.0)
    m1 = mg.Measurement((1,), np.array([40.0, 35.0, 31.0]), 10.0)
    m2 = mg.Measurement((2,), np.array([1.0, 2.0]), 10.0)  # nothing kept
    comp, meas = mg.compress_domain([m0, m1, m2], [5, 3, 2])
    assert comp.sizes == (3, 3, 1)
    np.testing.assert_array_equal(comp.mapping[0], [0, 2, 1, 2, 2])
    np.testing.assert_array_equal(comp.kept[0], [0, 2])
    np.testing.assert_array_equal(comp.merged[0], [1, 3, 4])
    np.testing.assert_allclose(meas[0].values, [100.0, 50.0, 4.0 / math.sqrt(3)])
    np.testing.assert_allclose(meas[0].weights, [1.0, 1.0, 1.0 / math.sqrt(3)])
    assert meas[0].stddev == 10.0
    assert meas[1] is m1 and comp.merged[1].size == 0
    np.testing.assert_allclose(meas[2].values, [3.0 / math.sqrt(2)])
    # the merged cell still estimates the total with the right variance: sum = 154, var = 5·100
    assert meas[0].total() == pytest.approx((154.0, 500.0))
    # codes round trip: kept codes exactly, merged codes uniformly over their members
    X = np.array([[0, 0, 0], [2, 1, 1], [1, 2, 0], [3, 0, 1], [4, 1, 0]] * 6000)
    Xc = mg.compress_codes(X, comp)
    np.testing.assert_array_equal(Xc[:5], [[0, 0, 0], [1, 1, 0], [2, 2, 0], [2, 0, 0], [2, 1, 0]])
    back = mg.decompress_codes(Xc, comp, np.random.default_rng(0))
    np.testing.assert_array_equal(back[:, 1], X[:, 1])
    kept_rows = np.isin(X[:, 0], [0, 2])
    np.testing.assert_array_equal(back[kept_rows, 0], X[kept_rows, 0])
    merged_vals = back[~kept_rows, 0]
    assert set(np.unique(merged_vals)) == {1, 3, 4}
    np.testing.assert_allclose(
        np.bincount(merged_vals)[[1, 3, 4]] / merged_vals.size, 1 / 3, atol=0.01
    )
    assert set(np.unique(back[:, 2])) == {0, 1}
