"""Tests of ``synthtrust.fidelity._hamming``, the compiled exact nearest-record kernel.

Oracles: a brute-force loop over all query–target pairs, the one-hot oracle of
``_fidelity_data.py``, and the numpy kernel of ``closest.py`` (itself tested against the
one-hot oracle) on a 20 000-row cut of the benchmark's 50-column tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _fidelity_data import oracle_distances, triple
from _repo import ROOT

from synthtrust import fidelity as F
from synthtrust.fidelity import _hamming as H
from synthtrust.fidelity import closest
from synthtrust.fidelity._tables import DCR_BINS, column_kind


def brute_top(targets, queries, k):
    """The k-th largest match count of each query, by comparing every pair."""
    matches = (queries[:, None, :] == targets[None, :, :]).sum(axis=2)
    return np.sort(matches, axis=1)[:, -k]


@pytest.mark.parametrize("d", [1, 2, 3, 7, 8, 15, 16, 50, 64, 70])
def test_adder_tree_sums_bits(d):
    """The generated adder tree gives the number of set inputs, bit plane by bit plane."""
    lines, planes = H._adder_tree([f"x{j}" for j in range(d)])
    assert len(planes) == d.bit_length()
    rng = np.random.default_rng(d)
    for _ in range(20):
        bits = rng.integers(0, 2, d)
        env = {f"x{j}": int(b) for j, b in enumerate(bits)}
        exec("\n".join(lines), {}, env)
        assert sum(env[p] << w for w, p in enumerate(planes)) == bits.sum()


@pytest.fixture
def tiny_tiles(monkeypatch):
    """Tiles of one word, chunks of 3 queries, 4 rows a column (hashing), 5 seed targets:
    every code path of the kernel runs on small tables."""
    monkeypatch.setattr(H, "TILE_WORDS", 1)
    monkeypatch.setattr(H, "CHUNK_QUERIES", 3)
    monkeypatch.setattr(H, "HASH_ROWS", 4)
    monkeypatch.setattr(H, "SEED_TARGETS", 5)


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("n_targets", [2, 64, 65, 300])
def test_top_matches_equals_brute_force(tiny_tiles, k, n_targets):
    rng = np.random.default_rng(n_targets + 10 * k)
    n_codes = np.array([2, 3, 9, 40, 5, 300])
    targets = (rng.random((n_targets, 6)) ** 2 * n_codes).astype(np.int32)
    queries = (rng.random((50, 6)) ** 2 * n_codes).astype(np.int32)
    queries[:5] = targets[np.arange(5) % n_targets]  # exact matches, some of seed targets
    got = H.top_matches(targets, queries, n_codes, k=k)
    np.testing.assert_array_equal(got, brute_top(targets, queries, k))


def test_top_matches_with_default_tiles_and_ties():
    rng = np.random.default_rng(3)
    n_codes = np.full(12, 3)
    targets = rng.integers(0, 3, (5000, 12)).astype(np.int32)
    targets[4000:4003] = targets[100]  # a record three times: ties in the top two
    queries = np.concatenate([targets[[100, 7]], rng.integers(0, 3, (300, 12))]).astype(np.int32)
    for k in (1, 2):
        got = H.top_matches(targets, queries, n_codes, k=k)
        np.testing.assert_array_equal(got, brute_top(targets, queries, k))
    assert got[0] == 12  # the second best of a record held four times is itself


@pytest.mark.parametrize("second", [False, True])
def test_compiled_dcr_equals_one_hot_oracle(monkeypatch, tiny_tiles, second):
    monkeypatch.setattr(closest, "COMPILED_MIN_WORK", 0)
    train, holdout, synthetic = triple(10, 140, 200, 90)
    syn = holdout if second else synthetic
    res = F.dcr(train, holdout, syn, synthetic_is_holdout=second, n_jobs=2)
    d_t, d_h = oracle_distances(train, holdout, syn, second=second)
    np.testing.assert_array_equal(res.d_train, d_t)
    np.testing.assert_array_equal(res.d_holdout, d_h)


@pytest.fixture(scope="module")
def scale_cut():
    """A 20 000-row cut of the tables of ``benchmarks/bench_fidelity_scale.py``."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_fidelity_scale import mixed_table
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return [mixed_table(20_000, shift, random_state=s) for shift, s in ((0, 1), (0, 2), (0.1, 3))]


@pytest.mark.slow
def test_holdout_report_on_a_cut_of_the_scale_tables(monkeypatch, scale_cut):
    """Acceptance of issue 27 at 20 000 rows: the compiled kernels (k-way counts, nearest
    records with all threads) equal the numpy kernel's distances and a brute-force count of
    the cells, and the JSON holds every triple and both distance distributions."""
    train, holdout, synthetic = scale_cut
    monkeypatch.setattr(closest, "COMPILED_MIN_WORK", 0)
    fast = F.holdout_report(train, holdout, synthetic)
    monkeypatch.setattr(closest, "COMPILED_MIN_WORK", float("inf"))
    slow = F.dcr(train, holdout, synthetic, n_jobs=2)
    np.testing.assert_array_equal(fast.dcr.d_train, slow.d_train)
    np.testing.assert_array_equal(fast.dcr.d_holdout, slow.d_holdout)
    ref = F.dcr(train, holdout, holdout, synthetic_is_holdout=True, n_jobs=2)
    np.testing.assert_array_equal(fast.holdout_dcr.d_holdout, ref.d_holdout)
    # brute force on 300 synthetic records: every pair compared
    kinds = [column_kind(train[c]) for c in train]
    t_codes, h_codes, s_codes = closest.dcr_codes([train, holdout, synthetic], kinds, DCR_BINS)
    rows = np.random.default_rng(0).choice(len(s_codes), 300, replace=False)
    d = train.shape[1]
    np.testing.assert_array_equal(fast.dcr.d_train[rows], d - brute_top(t_codes, s_codes[rows], 1))
    np.testing.assert_array_equal(
        fast.dcr.d_holdout[rows], d - brute_top(h_codes, s_codes[rows], 1)
    )
    # 3-way TVDs: 19 600 of them; 40 checked against pandas' cell counts of the binned tables
    triples = fast.tvd_per_combination[3]
    assert len(triples) == 19_600
    binned = F.discretize(train, [synthetic], bins=F.TVD_BINS[3])
    for cols in triples.index[:: len(triples) // 40]:
        p, q = (b.value_counts(list(cols), normalize=True) for b in binned)
        tv = 0.5 * p.sub(q, fill_value=0).abs().sum()
        assert triples[cols] == pytest.approx(tv, abs=1e-12)
    out = fast.to_dict()
    assert len(out["tvd_per_triple"]) == 19_600
    for key in ("dcr_histogram", "holdout_dcr_histogram"):
        hist = pd.DataFrame(out[key])
        assert hist["train"].sum() == hist["holdout"].sum() == 20_000
