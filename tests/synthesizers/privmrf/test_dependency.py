"""Tests of ``synthtrust.synthesizers.privmrf.dependency``.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from synthtrust.synthesizers.privmrf import (
    r_score_statistics,
)


# --------------------------------------------------------------------------------------------
# dependency score
# --------------------------------------------------------------------------------------------
def test_r_score_statistic_matches_brute_force_and_hand_value():
    rng = np.random.default_rng(5)
    sizes = [3, 4, 2]
    codes = np.column_stack([rng.integers(k, size=200) for k in sizes])
    got = r_score_statistics(codes, sizes)
    n = codes.shape[0]
    for a, b in itertools.combinations(range(3), 2):
        tot = 0.0
        for i in range(sizes[a]):
            for j in range(sizes[b]):
                c_ij = np.sum((codes[:, a] == i) & (codes[:, b] == j))
                c_i, c_j = np.sum(codes[:, a] == i), np.sum(codes[:, b] == j)
                tot += abs(c_ij - c_i * c_j / n)
        assert got[a, b] == pytest.approx(0.5 * tot, rel=1e-12)
        assert got[b, a] == got[a, b]
    assert np.all(np.diag(got) == 0)
    # hand value: {(0,0), (1,1)} -> joint diag(1, 1), product 0.5 everywhere -> ½·4·0.5 = 1
    assert r_score_statistics(np.array([[0, 0], [1, 1]]), [2, 2])[0, 1] == pytest.approx(1.0)


def test_r_score_statistic_sensitivity_at_most_two():
    rng = np.random.default_rng(9)
    worst = 0.0
    for _ in range(300):
        sizes = [int(k) for k in rng.integers(2, 5, size=2)]
        n = int(rng.integers(1, 12))
        codes = np.column_stack([rng.integers(k, size=n) for k in sizes])
        extra = np.array([[rng.integers(sizes[0]), rng.integers(sizes[1])]])
        before = r_score_statistics(codes, sizes)[0, 1]
        after = r_score_statistics(np.vstack([codes, extra]), sizes)[0, 1]
        worst = max(worst, abs(after - before))
    assert worst <= 2.0
    assert worst > 0.5  # the statistic does move by O(1) records
