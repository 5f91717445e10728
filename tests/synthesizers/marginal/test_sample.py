"""Tests of ``synthtrust.synthesizers.marginal.sample`` (record generation from model marginals,
mbi's ``synthetic_data(method="round")`` algorithm, mbi2026). The oracles: the defining
properties of randomised rounding (every count is the floor or the ceiling of n·p, exactly n
records, a zero count never drawn, the expected counts n·p: an average over many draws) and of
the stratified conditional draw (in each parent configuration of m rows, the number of rows with
a level ≤ j is within one of m times the conditional CDF at j, since each of the m uniforms lies
in its own stratum of width 1/m; a parent configuration without mass uses the column's overall
distribution); the sampling mixin against a stand-in junction tree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from synthtrust.synthesizers.marginal.sample import (
    PGMSamplingMixin,
    conditional_sample,
    round_sample,
)


def test_round_sample_rounds_n_p_up_or_down():
    counts = np.array([2.0, 0.0, 3.0, 5.0])  # p = (0.2, 0, 0.3, 0.5); n·p = (1.4, 0, 2.1, 3.5)
    rng = np.random.default_rng(0)
    draws = np.array([np.bincount(round_sample(counts, 7, rng), minlength=4) for _ in range(4000)])
    assert (draws.sum(axis=1) == 7).all()
    assert set(map(tuple, draws)) == {(2, 0, 2, 3), (1, 0, 3, 3), (1, 0, 2, 4)}
    # the one extra record goes to a level with probability its fractional part (0.4, 0.1, 0.5)
    extra = np.c_[draws[:, 0] == 2, draws[:, 2] == 3, draws[:, 3] == 4].sum(axis=0)
    assert stats.chisquare(extra, [0.4 * 4000, 0.1 * 4000, 0.5 * 4000]).pvalue > 0.001
    np.testing.assert_allclose(draws.mean(axis=0), [1.4, 0, 2.1, 3.5], atol=0.05)


def test_round_sample_is_shuffled_and_uniform_without_mass():
    codes = round_sample(np.array([50.0, 50.0]), 100, np.random.default_rng(1))
    assert codes.dtype == np.int64 and np.bincount(codes).tolist() == [50, 50]
    assert not (np.diff(codes) >= 0).all()  # not sorted: shuffled
    empty = round_sample(np.zeros(4), 6, np.random.default_rng(2))  # 1.5 each: 1 or 2
    assert len(empty) == 6 and set(np.bincount(empty, minlength=4)) <= {1, 2}
    assert round_sample(np.array([1.0, 3.0]), 0, np.random.default_rng(3)).size == 0


def test_conditional_sample_is_stratified_within_each_parent_configuration():
    rng = np.random.default_rng(4)
    parent_sizes = (2, 3)
    marg = rng.random((6, 5)) * (rng.random((6, 5)) > 0.3)  # some levels without mass
    marg[4] = 0.0  # a parent configuration without mass
    parents = np.c_[rng.integers(0, 2, 3000), rng.integers(0, 3, 3000)]
    out = conditional_sample(marg, parents, parent_sizes, rng)
    assert out.shape == (3000,) and out.dtype == np.int64
    config = parents[:, 0] * 3 + parents[:, 1]
    fallback = marg.sum(axis=0) / marg.sum()
    for g in range(6):
        vals = out[config == g]
        m = vals.size
        cond = marg[g] / marg[g].sum() if marg[g].sum() > 0 else fallback
        assert m > 300
        assert set(vals) <= set(np.flatnonzero(cond > 0))  # never a level without mass
        below = np.cumsum(np.bincount(vals, minlength=5))
        assert (np.abs(below - m * np.cumsum(cond)) <= 1 + 1e-9).all(), g


def test_conditional_sample_keeps_the_rows_order():
    # a deterministic conditional (one level per parent): each row gets its parent's level back
    marg = np.array([[0.0, 4.0, 0.0], [0.0, 0.0, 1.0], [2.0, 0.0, 0.0]])
    parents = np.random.default_rng(5).integers(0, 3, (200, 1))
    out = conditional_sample(marg, parents, (3,), np.random.default_rng(6))
    np.testing.assert_array_equal(out, np.array([1, 2, 0])[parents[:, 0]])


class _Tree:
    def sample(self, n, rng):
        return np.arange(2 * n, dtype=np.int64).reshape(n, 2)


class _Model:
    total = 12.6


class _Sampler(PGMSamplingMixin):
    columns_ = ["x", "y"]
    model_ = _Model()
    _jtree = _Tree()


class _Decoding(_Sampler):
    def _decode_codes(self, X, rng):
        return X * 10


def test_sampling_mixin_frames_the_junction_trees_records():
    s = _Sampler()
    assert s._default_n() == 13  # the model's total, rounded
    s.model_ = type("M", (), {"total": 0.3})()
    assert s._default_n() == 1  # at least one record
    rng = np.random.default_rng(0)
    X = np.arange(6).reshape(3, 2)
    assert s._decode_codes(X, rng) is X
    want = pd.DataFrame({"x": [0, 2, 4], "y": [1, 3, 5]})
    pd.testing.assert_frame_equal(s._sample_codes(3, rng), want)
    pd.testing.assert_frame_equal(_Decoding()._sample_codes(3, rng), want * 10)
