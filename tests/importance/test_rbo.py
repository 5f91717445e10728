"""Tests of ``synthtrust.importance.rbo``: RBO against the reference vectors of Webber et al.
(2010), the full sum, its bounds and residual, and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthtrust.importance import (
    average_overlap,
    correlated_rank_similarity,
    random_permutation_rbo,
    rank_biased_overlap,
    top_weightness,
)
from synthtrust.importance.rbo import _overlaps

S, T = list("abcdefg"), list("zcavwxy")  # Webber et al. (2010), Fig. 5


def full_rbo(s, t, p, depth=4000):
    """RBO of two long rankings, summed to a depth where p^depth is negligible."""
    x = _overlaps(list(s), list(t), depth)
    d = np.arange(1, depth + 1)
    return (1 - p) * float(np.sum(p ** (d - 1) * x / d))


# ------------------------------------------------------------------------------ RBO family
def test_rbo_reference_vectors():
    r = rank_biased_overlap(S, T, 0.9)
    assert round(r.truncated, 3) == 0.152
    assert round(r.min, 3) == 0.222
    assert round(r.ext, 3) == 0.288
    assert round(average_overlap(S, T), 3) == 0.312
    # uneven lengths: changyaochen/rbo's rbo_ext on (abcdefg, zcav), p = 0.9
    assert rank_biased_overlap(S, list("zcav"), 0.9).ext == pytest.approx(0.4185, abs=5e-5)
    assert rank_biased_overlap(list("zcav"), S, 0.9).ext == pytest.approx(0.4185, abs=5e-5)


@pytest.mark.parametrize(
    ("p", "d", "w"), [(0.9, 10, 0.856), (0.98, 50, 0.852), (0.6, 5, 0.977), (0.8, 10, 0.969)]
)
def test_top_weightness_reference_vectors(p, d, w):
    assert round(top_weightness(p, d), 3) == w


def test_top_weightness_is_the_weight_of_the_prefix_on_full_agreement():
    # with A_d = 1 for d <= k and 0 after, RBO = Σ_{d<=k} (1-p) p^{d-1} = 1 - p^k; Eq. 21 is the
    # share of the weight of depths 1..k under the harmonic X_d/d weighting: check it by brute force
    p, k = 0.85, 7
    depth = 3000
    d = np.arange(1, depth + 1)
    w = (1 - p) * p ** (d - 1)
    # weight of rank i in RBO: Σ_{d>=i} w_d / d
    rank_weight = np.array([np.sum(w[i - 1 :] / d[i - 1 :]) for i in range(1, k + 1)])
    assert top_weightness(p, k) == pytest.approx(rank_weight.sum(), abs=1e-9)


def _continuations(short, long, rng, n_new=60):
    """A random continuation of both rankings (items from the seen ones and fresh ones)."""
    pool = list(dict.fromkeys(list(short) + list(long))) + [f"new{i}" for i in range(n_new)]
    rest_s = [x for x in pool if x not in short]
    rest_l = [x for x in pool if x not in long]
    fresh = [f"tail{i}" for i in range(3000)]
    return (
        list(short) + list(rng.permutation(rest_s)) + fresh,
        list(long) + list(rng.permutation(rest_l)) + fresh,
    )


def test_rbo_bounds_hold_and_are_attained():
    rng = np.random.default_rng(3)
    universe = [f"f{i}" for i in range(25)]
    for _ in range(20):
        a = list(rng.permutation(universe)[: rng.integers(1, 10)])
        b = list(rng.permutation(universe)[: rng.integers(1, 10)])
        p = float(rng.uniform(0.5, 0.95))
        r = rank_biased_overlap(a, b, p)
        short, long = (a, b) if len(a) <= len(b) else (b, a)
        # min: no item seen later matches (disjoint continuations)
        lo = full_rbo(
            short + [f"x{i}" for i in range(4000)], long + [f"y{i}" for i in range(4000)], p
        )
        assert r.min == pytest.approx(lo, abs=1e-9)
        # max: the best continuation (each list continues with the other's missing items)
        miss_s = [x for x in long if x not in short]
        miss_l = [x for x in short if x not in long]
        common = [f"c{i}" for i in range(4000)]
        hi = full_rbo(short + miss_s + common, long + miss_l + common, p)
        assert r.max == pytest.approx(hi, abs=1e-9)
        assert r.residual == pytest.approx(r.max - r.min, abs=1e-12)
        # any other continuation lies between the bounds, and so does the point estimate
        for _ in range(5):
            s2, l2 = _continuations(short, long, rng)
            assert r.min - 1e-9 <= full_rbo(s2, l2, p) <= r.max + 1e-9
        assert r.min - 1e-12 <= r.ext <= r.max + 1e-12
        assert r.truncated <= r.min + 1e-12


def test_rbo_webber_residual_would_exceed_one():
    # the closed-form residual of Webber et al. (Eq. 13) gives 2p - p = p here, so max = min + p
    # = 1.156 > 1 for p = 0.9; the direct maximum is 1 (the lists can agree forever)
    r = rank_biased_overlap(["a"], ["a"], 0.9)
    assert r.max == pytest.approx(1.0)
    assert r.min == pytest.approx(-(0.1 / 0.9) * np.log(0.1))
    assert rank_biased_overlap(S, T, 0.9).max == pytest.approx(0.58068, abs=5e-6)


def test_rbo_identical_disjoint_and_empty():
    same = rank_biased_overlap(S, S, 0.8)
    assert same.ext == pytest.approx(1.0) and same.max == pytest.approx(1.0)
    assert same.min == pytest.approx(
        full_rbo(S + [f"x{i}" for i in range(4000)], S + [f"y{i}" for i in range(4000)], 0.8),
        abs=1e-9,
    )
    apart = rank_biased_overlap(list("abc"), list("xyz"), 0.8)
    assert apart.min == 0.0 and apart.ext == 0.0 and apart.truncated == 0.0
    assert rank_biased_overlap([], [], 0.9).ext == 1.0
    assert rank_biased_overlap([], ["a"], 0.9).min == 0.0


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (dict(s=S, t=T, p=1.0), ValueError, r"p must be in \(0.0, 1.0\), got"),
        (dict(s=S, t=T, p=0.0), ValueError, r"p must be in \(0.0, 1.0\), got"),
        (dict(s=S, t=T, p="0.9"), TypeError, "real number"),
        (dict(s=["a", "a"], t=T, p=0.9), ValueError, "twice"),
        (dict(s="abc", t=T, p=0.9), TypeError, "sequence"),
    ],
)
def test_rbo_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        rank_biased_overlap(**kwargs)


def test_duplicates_in_a_ranking_are_rejected_everywhere():
    feats = list("abc")
    assoc = pd.DataFrame(np.eye(3), index=feats, columns=feats)
    with pytest.raises(ValueError, match=r"t has the item 'b' twice"):
        rank_biased_overlap(["a", "b"], ["b", "b"])
    with pytest.raises(ValueError, match=r"s has the item 'a' twice"):
        average_overlap(["a", "a"], ["a", "b"])
    with pytest.raises(ValueError, match=r"s has the item 'c' twice"):
        correlated_rank_similarity(["c", "a", "c"], ["a", "b", "c"], assoc)
    with pytest.raises(ValueError, match=r"ranking has the item 'a' twice"):
        random_permutation_rbo(["a", "b", "a"], 0.8, 5)


def test_correlated_rank_similarity_takes_p_up_to_one():
    feats = sorted(set(S) | set(T))
    ident = pd.DataFrame(np.eye(len(feats)), index=feats, columns=feats)
    assert correlated_rank_similarity(S, T, ident, 1.0) == pytest.approx(average_overlap(S, T))
    for p in (0.0, 1.5):
        with pytest.raises(ValueError, match=rf"p must be in \(0.0, 1.0\], got {p}"):
            correlated_rank_similarity(S, T, ident, p)


def test_average_overlap_and_top_weightness_bad_input():
    with pytest.raises(ValueError, match="exceeds"):
        average_overlap(S, T, depth=8)
    with pytest.raises(ValueError, match="depth"):
        top_weightness(0.9, 0)


# ------------------------------------------------------------------- correlated rank similarity
