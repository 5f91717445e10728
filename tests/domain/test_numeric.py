"""Tests of ``synthtrust.domain.numeric``.

The oracles and the shared set-up are described in ``_domain_data.py``.
"""

from __future__ import annotations

import numpy as np
from _domain_data import small_domain
from scipy import stats

from synthtrust.domain import (
    Numeric,
    Ordinal,
)


def test_equal_width_edges_and_labels():
    assert Numeric((0, 100, 4)).edges == (0.0, 25.0, 50.0, 75.0, 100.0)
    assert Numeric([0, 10, 20], missing="NA").labels() == ["[0, 10)", "[10, 20]", "NA"]
    assert Ordinal(3, 5).labels() == ["3", "4", "5"]
    assert small_domain().labels("weight") == ["[0, 10)", "[10, 20]"]


def test_clip():
    num = Numeric([0, 10, 20], clip=True)
    assert num.encode([-5.0, 25.0, np.inf, -np.inf, 10.0]).tolist() == [0, 1, 1, 0, 1]


# --------------------------------------------------------------------------------------------
# Decoding draws: uniform within the bin, deterministic given random_state
# --------------------------------------------------------------------------------------------
def test_continuous_decode_is_uniform_within_the_bin():
    num = Numeric([0, 10, 20])
    for code, (lo, hi) in enumerate([(0, 10), (10, 20)]):
        x = num.decode(np.full(4000, code), random_state=code).to_numpy()
        assert ((x >= lo) & (x <= hi)).all()
        if code == 0:
            assert (x < hi).all()  # left-closed bins: the upper edge belongs to the next bin
        assert stats.kstest(x, stats.uniform(loc=lo, scale=hi - lo).cdf).pvalue > 1e-3


def test_integer_decode_covers_exactly_the_bins_integers():
    edges = [0.5, 3, 7.5]
    num = Numeric(edges, integer=True)
    # brute-force oracle: integers of [0.5, 3) and of the closed last bin [3, 7.5]
    oracle = [
        [v for v in range(-20, 20) if 0.5 <= v < 3],
        [v for v in range(-20, 20) if 3 <= v <= 7.5],
    ]
    assert oracle == [[1, 2], [3, 4, 5, 6, 7]]
    for code, allowed in enumerate(oracle):
        x = num.decode(np.full(5000, code), random_state=10 + code)
        assert x.dtype == np.int64
        values, counts = np.unique(x, return_counts=True)
        assert values.tolist() == allowed
        assert stats.chisquare(counts).pvalue > 1e-3  # uniform over the bin's integers
        assert (num.encode(x) == code).all()
