"""Tests of ``synthtrust.importance.baselines``: the random-permutation baseline draw by draw,
its closed form against an enumeration of all permutations."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from synthtrust.importance import (
    compare_importances,
    correlated_rank_similarity,
    expected_rbo_random_permutation,
    importance_ranking,
    random_permutation_cosine,
    random_permutation_rbo,
    rank_biased_overlap,
)
from synthtrust.importance.rbo import _overlaps

S, T = list("abcdefg"), list("zcavwxy")  # Webber et al. (2010), Fig. 5


def full_rbo(s, t, p, depth=4000):
    """RBO of two long rankings, summed to a depth where p^depth is negligible."""
    x = _overlaps(list(s), list(t), depth)
    d = np.arange(1, depth + 1)
    return (1 - p) * float(np.sum(p ** (d - 1) * x / d))


# ------------------------------------------------------------------------------ RBO family
def test_random_permutation_rbo_equals_rank_biased_overlap_draw_by_draw():
    ranking = [f"f{i}" for i in range(9)]
    out = random_permutation_rbo(ranking, 0.8, 30, random_state=4)
    assert list(out.columns) == ["rbo"] and len(out) == 30
    # the same permutations, drawn as documented (Generator.permuted on a tiled arange)
    perms = np.random.default_rng(4).permuted(np.tile(np.arange(9), (30, 1)), axis=1)
    for row, perm in zip(out.itertuples(), perms, strict=True):
        r = rank_biased_overlap(ranking, [ranking[j] for j in perm], 0.8)
        assert row.rbo == pytest.approx(r.ext, abs=1e-12)
    again = random_permutation_rbo(ranking, 0.8, 30, random_state=4)
    pd.testing.assert_frame_equal(out, again)


def test_random_permutation_correlated_rbo_equals_the_direct_computation():
    rng = np.random.default_rng(8)
    feats = [f"f{i}" for i in range(7)]
    m = rng.uniform(0, 1, (7, 7))
    m = (m + m.T) / 2
    np.fill_diagonal(m, 1.0)
    assoc = pd.DataFrame(m, index=feats, columns=feats)
    ranking = list(rng.permutation(feats))
    out = random_permutation_rbo(ranking, 0.8, 12, association=assoc, random_state=2)
    perms = np.random.default_rng(2).permuted(np.tile(np.arange(7), (12, 1)), axis=1)
    assert list(out.columns) == ["rbo", "corr_rbo"]
    for row, perm in zip(out.itertuples(), perms, strict=True):
        t = [ranking[j] for j in perm]
        assert row.corr_rbo == pytest.approx(
            correlated_rank_similarity(ranking, t, assoc, 0.8, ext=True), abs=1e-12
        )
        assert row.corr_rbo >= row.rbo - 1e-12  # a soft overlap is never below X_d


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_expected_rbo_closed_form_against_enumeration_of_all_permutations(n, p):
    ranking = list(range(n))
    exts = [
        rank_biased_overlap(ranking, list(perm), p).ext for perm in itertools.permutations(ranking)
    ]
    assert len(exts) == math.factorial(n)
    assert expected_rbo_random_permutation(n, p) == pytest.approx(np.mean(exts), abs=1e-12)
    assert expected_rbo_random_permutation(n, p) == pytest.approx(
        (1 - p**n) / (n * (1 - p)), rel=1e-14
    )


@pytest.mark.parametrize("n", [39, 67, 141])
def test_random_permutation_mean_matches_the_closed_form(n):
    ranking = [f"x{i}" for i in range(n)]
    draws = random_permutation_rbo(ranking, 0.8, 4000, random_state=n)["rbo"].to_numpy()
    se = draws.std(ddof=1) / np.sqrt(draws.size)
    assert abs(draws.mean() - expected_rbo_random_permutation(n, 0.8)) < 4 * se
    # the chapter's baselines at p = 0.8: 39, 67, 141 features
    assert (
        round(expected_rbo_random_permutation(n, 0.8), 4)
        == {39: 0.1282, 67: 0.0746, 141: 0.0355}[n]
    )


def test_random_permutation_cosine_by_hand_and_its_mean():
    scores = pd.Series({"a": 0.1, "b": 0.5, "c": 0.3, "d": 0.1})
    vals = random_permutation_cosine(scores, 2000, random_state=3)
    assert vals.shape == (2000,)
    perms = np.random.default_rng(3).permuted(np.tile(np.arange(4), (2000, 1)), axis=1)
    ranking = importance_ranking(scores)  # b, c, a, d
    ordered = scores[ranking].to_numpy()
    for value, perm in list(zip(vals, perms, strict=True))[:50]:
        # the j-th feature of the permuted ranking gets the j-th largest real score
        permuted = pd.Series(ordered, index=[ranking[j] for j in perm])
        assert value == pytest.approx(compare_importances(scores, permuted)["cosine"], abs=1e-12)
    v = scores.to_numpy()
    mean = v.sum() ** 2 / (v.size * (v @ v))
    assert abs(vals.mean() - mean) < 4 * vals.std(ddof=1) / np.sqrt(vals.size)
    assert np.all(
        random_permutation_cosine({"x": 2.0, "y": 2.0}, 5, random_state=0) == pytest.approx(1.0)
    )


def test_random_permutation_rbo_of_scores_adds_the_cosine_for_the_same_permutations():
    rng = np.random.default_rng(9)
    feats = list("abcdef")
    scores = pd.Series(rng.uniform(0, 1, 6), index=feats)
    m = rng.uniform(0, 1, (6, 6))
    assoc = pd.DataFrame((m + m.T) / 2, index=feats, columns=feats)
    out = random_permutation_rbo(scores, 0.8, 40, association=assoc, random_state=1)
    assert list(out.columns) == ["rbo", "corr_rbo", "cosine"]
    by_ranking = random_permutation_rbo(
        importance_ranking(scores), 0.8, 40, association=assoc, random_state=1
    )
    pd.testing.assert_frame_equal(out[["rbo", "corr_rbo"]], by_ranking)
    np.testing.assert_allclose(
        out["cosine"], random_permutation_cosine(scores, 40, random_state=1), rtol=1e-14
    )


def test_random_permutation_bad_input():
    with pytest.raises(ValueError, match=r"p must be in \(0.0, 1.0\)"):
        random_permutation_rbo(["a", "b"], 1.0, 5)
    with pytest.raises(ValueError, match="n_draws must be >= 1"):
        random_permutation_rbo(["a", "b"], 0.8, 0)
    with pytest.raises(TypeError, match="n_draws must be an integer"):
        random_permutation_rbo(["a", "b"], 0.8, 2.5)
    with pytest.raises(ValueError, match="ranking is empty"):
        random_permutation_rbo([], 0.8, 5)
    with pytest.raises(ValueError, match=r"feature\(s\) \['b'\]"):
        random_permutation_rbo(["a", "b"], 0.8, 5, association=pd.DataFrame({"a": {"a": 1.0}}))
    with pytest.raises(ValueError, match="n_features must be >= 1"):
        expected_rbo_random_permutation(0, 0.8)
    with pytest.raises(ValueError, match=r"p must be in \(0.0, 1.0\)"):
        expected_rbo_random_permutation(5, 0.0)
    with pytest.raises(ValueError, match="not all zero"):
        random_permutation_cosine({"a": 0.0, "b": 0.0}, 5)
    with pytest.raises(ValueError, match="not all zero"):
        random_permutation_cosine({"a": np.nan, "b": 1.0}, 5)
    with pytest.raises(ValueError, match="not all zero"):
        random_permutation_rbo(pd.Series({"a": 0.0, "b": 0.0}), 0.8, 5)


# ------------------------------------------------------------------------- association matrix
