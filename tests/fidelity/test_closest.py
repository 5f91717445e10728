"""Tests of ``synthtrust.fidelity.closest``.

The oracles and the shared set-up are described in ``_fidelity_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _fidelity_data import mixed_table, oracle_distances, triple
from scipy import stats

from synthtrust import fidelity as F


def oracle_share(d_t, d_h, n_t, n_h):
    return np.mean(d_t < d_h) + n_t / (n_t + n_h) * np.mean(d_t == d_h)


# ===================================================================================== DCR
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_dcr_matches_brute_force_oracle(seed):
    train, holdout, synthetic = triple(seed)
    res = F.dcr(train, holdout, synthetic, n_jobs=1)
    d_t, d_h = oracle_distances(train, holdout, synthetic)
    np.testing.assert_array_equal(res.d_train, d_t)
    np.testing.assert_array_equal(res.d_holdout, d_h)
    assert res.share == pytest.approx(oracle_share(d_t, d_h, len(train), len(holdout)), abs=1e-15)
    assert res.n_closer == (d_t < d_h).sum() and res.n_further == (d_t > d_h).sum()
    assert res.n_equal == (d_t == d_h).sum()
    assert res.n_closer + res.n_further + res.n_equal == len(synthetic)
    assert res.mean_train == pytest.approx(d_t.mean()) and res.mean_holdout == pytest.approx(
        d_h.mean()
    )
    assert res.d_train.dtype.kind == "i" and not res.synthetic_is_holdout


@pytest.mark.parametrize(
    "block,tile,dense_bytes,group_bytes",
    [(7, 1, 1 << 30, 1 << 30), (5, 2, 0, 0), (16, 3, 1 << 30, 0), (200, 1024, 0, 1 << 30)],
)
def test_dcr_kernel_variants_agree(monkeypatch, block, tile, dense_bytes, group_bytes):
    """Blocks, tiles (also one word per tile: train/holdout split across tiles), sparse columns
    and column groups are only speed-ups: every combination gives the oracle's distances."""
    monkeypatch.setattr(F.closest, "_BLOCK_ROWS", block)
    monkeypatch.setattr(F.closest, "_TILE_WORDS", tile)
    monkeypatch.setattr(F.closest, "_DENSE_TABLE_BYTES", dense_bytes)
    monkeypatch.setattr(F.closest, "_GROUP_TABLE_BYTES", group_bytes)
    train, holdout, synthetic = triple(10, 140, 200, 90)
    for second, syn in ((False, synthetic), (True, holdout)):
        res = F.dcr(train, holdout, syn, synthetic_is_holdout=second, n_jobs=2)
        d_t, d_h = oracle_distances(train, holdout, syn, second=second)
        np.testing.assert_array_equal(res.d_train, d_t)
        np.testing.assert_array_equal(res.d_holdout, d_h)


def test_dcr_identical_for_any_n_jobs(monkeypatch):
    monkeypatch.setattr(F.closest, "_BLOCK_ROWS", 16)
    rng = np.random.default_rng(7)
    train, holdout, synthetic = (mixed_table(rng, n) for n in (900, 800, 700))
    runs = [F.dcr(train, holdout, synthetic, n_jobs=j) for j in (1, 2, 3, None, -1)]
    for r in runs[1:]:
        np.testing.assert_array_equal(r.d_train, runs[0].d_train)
        np.testing.assert_array_equal(r.d_holdout, runs[0].d_holdout)
        assert r.share == runs[0].share


def test_share_tie_rule_by_hand():
    # one column: distances are 0 (same value) or 1
    train = pd.DataFrame({"x": ["a", "b"]})
    holdout = pd.DataFrame({"x": ["a", "c", "d"]})
    synthetic = pd.DataFrame({"x": ["a", "b", "c", "e"]})
    res = F.dcr(train, holdout, synthetic)
    np.testing.assert_array_equal(res.d_train, [0, 0, 1, 1])
    np.testing.assert_array_equal(res.d_holdout, [0, 1, 0, 1])
    assert (res.n_closer, res.n_further, res.n_equal) == (1, 1, 2)
    # 1/4 closer + (2 / (2 + 3)) * 2/4 ties
    assert res.share == pytest.approx(0.25 + 0.4 * 0.5)
    assert res.mean_train == 0.5 and res.mean_holdout == 0.5


def test_share_extremes():
    rng = np.random.default_rng(11)
    train, holdout = mixed_table(rng, 200), mixed_table(rng, 200)
    copies = F.dcr(train, holdout, train)  # copies of training records: all at distance 0
    assert (copies.d_train == 0).all() and copies.share > 0.9
    assert copies.share == pytest.approx(oracle_share(copies.d_train, copies.d_holdout, 200, 200))


def test_leave_self_out_is_second_nearest_and_handles_duplicates():
    train, holdout, _ = triple(12, 120, 150)
    holdout = pd.concat([holdout, holdout.iloc[:5]], ignore_index=True)  # 5 duplicated rows
    res = F.dcr(train, holdout, holdout, synthetic_is_holdout=True)
    d_t, d_h = oracle_distances(train, holdout, holdout, second=True)
    np.testing.assert_array_equal(res.d_holdout, d_h)
    np.testing.assert_array_equal(res.d_train, d_t)
    assert (res.d_holdout[:5] == 0).all() and (res.d_holdout[-5:] == 0).all()
    naive = F.dcr(train, holdout, holdout)  # without the rule every record finds itself
    assert (naive.d_holdout == 0).all()


def test_dcr_bins_parameter():
    train, holdout, synthetic = triple(13)
    res = F.dcr(train, holdout, synthetic, bins=7)
    d_t, d_h = oracle_distances(train, holdout, synthetic, bins=7)
    np.testing.assert_array_equal(res.d_train, d_t)
    np.testing.assert_array_equal(res.d_holdout, d_h)
    assert res.bins == 7


def test_dcr_histogram():
    train, holdout, synthetic = triple(14)
    res = F.dcr(train, holdout, synthetic)
    hist = res.histogram()
    assert list(hist.columns) == ["distance", "train", "holdout"]
    assert hist["train"].sum() == hist["holdout"].sum() == len(synthetic)
    assert hist["train"].tolist() == np.bincount(res.d_train, minlength=len(hist)).tolist()


# ============================================================================ bad inputs
def test_bad_inputs():
    train, holdout, synthetic = triple(20, 40, 40, 40)
    with pytest.raises(TypeError, match="holdout must be a pandas DataFrame"):
        F.dcr(train, holdout.to_numpy(), synthetic)
    with pytest.raises(ValueError, match="synthetic is empty"):
        F.dcr(train, holdout, synthetic.iloc[:0])
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['city'\]"):
        F.dcr(train, holdout, synthetic.drop(columns="city"))
    with pytest.raises(ValueError, match=r"not in train: \['extra'\]"):
        F.tvd(train, synthetic.assign(extra=1), 1)
    with pytest.raises(ValueError, match="only missing values: 'income' in holdout"):
        F.dcr(train, holdout.assign(income=np.nan), synthetic)
    with pytest.raises(ValueError, match="'age' has different types"):
        F.dcr(train, holdout, synthetic.assign(age=synthetic["age"].astype(str)))
    with pytest.raises(ValueError, match="infinite"):
        F.tvd(train, synthetic.assign(income=np.inf), 1)
    with pytest.raises(ValueError, match="duplicate column"):
        F.tvd(pd.concat([train, train[["age"]]], axis=1), synthetic, 1)
    with pytest.raises(ValueError, match="k must be 1, 2 or 3"):
        F.tvd(train, synthetic, 4)
    with pytest.raises(ValueError, match="bins must be >= 1"):
        F.tvd(train, synthetic, 1, bins=0)
    with pytest.raises(TypeError, match="bins must be an integer"):
        F.dcr(train, holdout, synthetic, bins=2.5)
    with pytest.raises(ValueError, match="n_jobs"):
        F.dcr(train, holdout, synthetic, n_jobs=0)
    with pytest.raises(ValueError, match="at least 2 holdout rows"):
        one = holdout.dropna().iloc[:1]
        F.dcr(train, one, one, synthetic_is_holdout=True)
    with pytest.raises(TypeError, match="synthetic_is_holdout must be True or False"):
        F.dcr(train, holdout, synthetic, synthetic_is_holdout="yes")
    with pytest.raises(TypeError, match="others must be a list"):
        F.discretize(train, synthetic, 5)
    with pytest.raises(ValueError, match="max_rows must be >= 1"):
        F.holdout_report(train, holdout, synthetic, max_rows=0)


def test_share_interval_is_the_t_interval_of_the_record_scores():
    d_t = np.array([0, 1, 2, 2, 3, 1, 0, 4])
    d_h = np.array([1, 1, 1, 3, 3, 0, 2, 4])
    res = F.closest.dcr_result(d_t, d_h, 300, 100, False, 100)
    scores = np.array([1, 0.75, 0, 1, 0.75, 0, 1, 0.75])  # 1[closer] + 300/400 · 1[equal]
    assert res.share == pytest.approx(scores.mean())
    half = stats.t.ppf(0.975, 7) * scores.std(ddof=1) / np.sqrt(8)
    low, high = res.share_interval()
    assert (low, high) == pytest.approx((scores.mean() - half, min(scores.mean() + half, 1.0)))
    assert high == 1.0  # clipped
    same = F.closest.dcr_result(d_t[:1].repeat(3), d_h[:1].repeat(3), 5, 5, False, 100)
    assert same.share_interval() == (1.0, 1.0)  # every record closer to training
    one = F.closest.dcr_result(d_t[:1], d_h[:1], 5, 5, False, 100)
    assert np.isnan(one.share_interval()).all()
