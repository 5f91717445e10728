"""synthtrust.importance against hand computations, brute force and library oracles."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.optimize import linprog
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance
from sklearn.tree import DecisionTreeRegressor

from synthtrust.importance import (
    _overlaps,
    association_matrix,
    average_overlap,
    compare_importances,
    correlated_rank_similarity,
    expected_rbo_random_permutation,
    feature_importance,
    importance_ranking,
    random_permutation_cosine,
    random_permutation_rbo,
    rank_biased_overlap,
    top_weightness,
)

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
def _lp_soft_overlap(weight):
    """max Σ W_ij weight_ij over doubly stochastic W (the reference's LP), by scipy linprog."""
    d = weight.shape[0]
    a_eq = np.zeros((2 * d, d * d))
    for i in range(d):
        a_eq[i, i * d : (i + 1) * d] = 1  # row sums
        a_eq[d + i, i::d] = 1  # column sums
    res = linprog(-weight.ravel(), A_eq=a_eq, b_eq=np.ones(2 * d), bounds=(0, 1), method="highs")
    return -res.fun


def test_correlated_rank_similarity_equals_the_lp_of_the_reference():
    rng = np.random.default_rng(5)
    feats = [f"f{i}" for i in range(8)]
    m = rng.uniform(0, 1, (8, 8))
    m = (m + m.T) / 2
    np.fill_diagonal(m, 1.0)
    assoc = pd.DataFrame(m, index=feats, columns=feats)
    s = list(rng.permutation(feats)[:6])
    t = list(rng.permutation(feats)[:5])
    p = 0.8
    x = []
    for d in range(1, 6):
        block = np.zeros((d, d))
        c = assoc.loc[s[:d], t[:d]].to_numpy()
        block[: c.shape[0], : c.shape[1]] = np.sqrt(c)
        x.append(_lp_soft_overlap(block))
    a_d = np.array(x) / np.arange(1, 6)
    expected = (1 - p) * np.sum(p ** np.arange(5) * a_d)
    assert correlated_rank_similarity(s, t, assoc, p) == pytest.approx(expected, abs=1e-9)
    assert correlated_rank_similarity(s, t, assoc, p, ext=True) == pytest.approx(
        expected + a_d[-1] * p**5, abs=1e-9
    )
    assert correlated_rank_similarity(s, t, assoc, 1.0) == pytest.approx(a_d.mean(), abs=1e-9)


def test_correlated_rank_similarity_with_identity_association_is_rbo():
    feats = sorted(set(S) | set(T))
    ident = pd.DataFrame(np.eye(len(feats)), index=feats, columns=feats)
    r = rank_biased_overlap(S, T, 0.9)
    assert correlated_rank_similarity(S, T, ident, 0.9) == pytest.approx(r.truncated, abs=1e-12)
    assert correlated_rank_similarity(S, T, ident, 0.9, ext=True) == pytest.approx(r.ext, abs=1e-12)
    assert correlated_rank_similarity(S, T, ident, 1.0) == pytest.approx(average_overlap(S, T))


def test_correlated_rank_similarity_bad_input():
    feats = list("abc")
    assoc = pd.DataFrame(np.eye(3), index=feats, columns=feats)
    with pytest.raises(ValueError, match=r"feature\(s\) \['z'\]"):
        correlated_rank_similarity(["a", "z"], ["b", "c"], assoc)
    bad = assoc.copy()
    bad.loc["a", "b"] = 1.5
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        correlated_rank_similarity(["a", "c"], ["b", "c"], bad)
    with pytest.raises(TypeError, match="DataFrame or a mapping"):
        correlated_rank_similarity(["a"], ["b"], np.eye(3))
    with pytest.raises(ValueError, match="depth"):
        correlated_rank_similarity(["a", "b"], ["b", "c"], assoc, depth=3)


# ----------------------------------------------------------------- random permutation baseline
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
def test_association_matrix_against_scipy():
    rng = np.random.default_rng(11)
    n = 600
    g = rng.integers(0, 3, n)
    x = rng.normal(size=n) + 0.8 * g
    y = 0.5 * x + rng.normal(size=n)
    h = np.where(rng.random(n) < 0.7, g, rng.integers(0, 3, n))
    df = pd.DataFrame(
        {"x": x, "y": y, "g": pd.Series(g).astype(str), "h": pd.Series(h).astype(str)}
    )
    a = association_matrix(df)
    assert list(a.columns) == ["x", "y", "g", "h"]
    assert np.allclose(a.to_numpy(), a.to_numpy().T) and np.allclose(np.diag(a), 1.0)
    assert a.loc["x", "y"] == pytest.approx(abs(stats.pearsonr(x, y).statistic), abs=1e-12)
    # correlation ratio: η² = F(k−1) / (F(k−1) + n − k) from the one-way ANOVA F statistic
    f = stats.f_oneway(*(x[g == k] for k in range(3))).statistic
    eta = np.sqrt(f * 2 / (f * 2 + n - 3))
    assert a.loc["g", "x"] == pytest.approx(eta, abs=1e-12)
    # bias-corrected Cramér's V (Bergsma & Wicher 2013) by hand from the χ² statistic
    table = pd.crosstab(g, h).to_numpy()
    chi2 = stats.chi2_contingency(table, correction=False).statistic
    phi2c = max(0.0, chi2 / n - 4 / (n - 1))
    kc = 3 - 4 / (n - 1)
    assert a.loc["g", "h"] == pytest.approx(np.sqrt(phi2c / (kc - 1)), abs=1e-12)


def test_association_matrix_extremes_and_errors():
    g = np.repeat(["a", "b", "c"], 60)
    df = pd.DataFrame({"g": g, "g2": g, "v": np.tile([1.0, 2.0, 3.0], 60)})
    a = association_matrix(df)
    assert a.loc["g", "g2"] == pytest.approx(1.0, abs=1e-12)  # perfect association
    assert a.loc["g", "v"] == pytest.approx(0.0, abs=1e-12)  # equal group means
    # a column that is a function of the category: η = 1, which rounding can overshoot
    # (here η computes to 1 + 9e-16); the matrix is bounded by 1 (corrRBO requires it)
    rng = np.random.default_rng(1)
    g3 = rng.integers(0, 7, 500)
    m = rng.normal(size=7) * rng.uniform(1, 1e4)
    f = association_matrix(pd.DataFrame({"g": g3, "v": m[g3]}), categorical=["g"])
    assert f.loc["g", "v"] == 1.0 and f.to_numpy().max() <= 1.0
    with pytest.raises(ValueError, match=r"missing values in column\(s\) \['v'\]"):
        association_matrix(df.assign(v=[np.nan] + [1.0] * 179))
    with pytest.raises(ValueError, match=r"\['nope'\]"):
        association_matrix(df, categorical=["nope"])
    with pytest.raises(TypeError, match="DataFrame"):
        association_matrix(df.to_numpy())


# ------------------------------------------------------------------------- importance scores
@pytest.fixture(scope="module")
def forest():
    rng = np.random.default_rng(2)
    X = pd.DataFrame(rng.normal(size=(400, 4)), columns=["strong", "weak", "noise1", "noise2"])
    y = (X["strong"] + 0.3 * X["weak"] + 0.2 * rng.normal(size=400) > 0).astype(int)
    model = RandomForestClassifier(n_estimators=40, random_state=0).fit(X, y)
    return model, X, y


def test_feature_importance_mdi_and_permutation(forest):
    model, X, y = forest
    mdi = feature_importance(model, X, method="mdi")
    assert np.array_equal(mdi.to_numpy(), model.feature_importances_)
    assert importance_ranking(mdi)[:2] == ["strong", "weak"]
    perm = feature_importance(model, X, y, method="permutation", n_repeats=5, random_state=7)
    seed = int(np.random.default_rng(7).integers(2**31 - 1))
    ref = permutation_importance(model, X, y, n_repeats=5, random_state=seed).importances_mean
    assert np.array_equal(perm.to_numpy(), ref)  # the forest path: bitwise sklearn
    assert importance_ranking(perm)[0] == "strong"


def test_feature_importance_shap_of_a_stump_by_hand():
    # a depth-1 tree on x0: SHAP of x0 is f(x) − E f, of x1 zero, so mean |SHAP| is known exactly
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"x0": rng.normal(size=300), "x1": rng.normal(size=300)})
    y = (X["x0"] > 0.2).astype(float) * 3.0 + 1.0
    stump = DecisionTreeRegressor(max_depth=1).fit(X, y)
    pred = stump.predict(X)
    shap_imp = feature_importance(stump, X, method="shap")
    assert shap_imp["x0"] == pytest.approx(np.mean(np.abs(pred - pred.mean())), rel=1e-9)
    assert shap_imp["x1"] == pytest.approx(0.0, abs=1e-12)


@pytest.fixture(scope="module")
def three_class_forest():
    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.normal(size=(240, 4)), columns=["a", "b", "c", "d"])
    y = np.digitize(X["a"] + 0.6 * X["b"] * X["c"] + 0.3 * rng.normal(size=240), [-0.5, 0.5])
    model = RandomForestClassifier(n_estimators=15, max_depth=5, random_state=0).fit(X, y)
    return model, X.iloc[:60]


def test_feature_importance_shap_multiclass_against_shap_directly(three_class_forest):
    import shap

    model, X = three_class_forest
    assert len(model.classes_) == 3
    phi = np.asarray(shap.TreeExplainer(model).shap_values(X))  # (rows, features, classes)
    assert phi.shape == (60, 4, 3)
    by_hand_mean = np.abs(phi).mean(axis=2).mean(axis=0)  # Giles et al.: |φ| averaged over classes
    by_hand_last = np.abs(phi[:, :, 2]).mean(axis=0)
    mean = feature_importance(model, X, method="shap", multiclass="mean")
    last = feature_importance(model, X, method="shap", multiclass="last")
    np.testing.assert_allclose(mean.to_numpy(), by_hand_mean, rtol=1e-12)
    np.testing.assert_allclose(last.to_numpy(), by_hand_last, rtol=1e-12)
    pd.testing.assert_series_equal(feature_importance(model, X, method="shap"), mean)  # the default
    assert not np.allclose(mean.to_numpy(), last.to_numpy())  # the option matters with 3 classes
    assert list(mean.index) == ["a", "b", "c", "d"] and mean.name == "shap"


def test_feature_importance_shap_binary_classes_agree(forest):
    model, X, _ = forest
    mean = feature_importance(model, X.iloc[:40], method="shap", multiclass="mean")
    last = feature_importance(model, X.iloc[:40], method="shap", multiclass="last")
    np.testing.assert_allclose(mean.to_numpy(), last.to_numpy(), rtol=1e-9)  # |φ_0| = |φ_1|


def test_feature_importance_bad_input(forest):
    model, X, y = forest
    with pytest.raises(ValueError, match="method must be one of"):
        feature_importance(model, X, method="gini")
    with pytest.raises(ValueError, match="needs y"):
        feature_importance(model, X, method="permutation")
    with pytest.raises(TypeError, match="DataFrame"):
        feature_importance(model, X.to_numpy())
    with pytest.raises(ValueError, match="feature_importances_"):
        feature_importance(object(), X, method="mdi")
    with pytest.raises(
        ValueError, match=r"multiclass must be one of \('mean', 'last'\), got 'sum'"
    ):
        feature_importance(model, X, method="shap", multiclass="sum")
    with pytest.raises(ValueError, match="n_repeats must be >= 1"):
        feature_importance(model, X, y, method="permutation", n_repeats=0)


def test_feature_importance_shap_is_shaps_on_the_fast_path_and_off_it(forest):
    """A fully grown forest goes through synthtrust._treeshap, a boosted model through shap
    itself: both give shap's mean |φ| (tests/test_treeshap.py checks the φ themselves)."""
    import shap
    from sklearn.ensemble import GradientBoostingClassifier

    model, X, y = forest
    assert model.max_depth is None  # fully grown trees
    rows = X.iloc[:40]
    phi = np.asarray(shap.TreeExplainer(model).shap_values(rows))  # (rows, features, classes)
    for multiclass in ("mean", "last"):
        ours = feature_importance(model, rows, method="shap", multiclass=multiclass).to_numpy()
        theirs = np.abs(phi[..., -1]) if multiclass == "last" else np.abs(phi).mean(axis=2)
        assert np.max(np.abs(ours - theirs.mean(axis=0))) <= 1e-9
    boosted = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    phi = shap.TreeExplainer(boosted).shap_values(rows)
    got = feature_importance(boosted, rows, method="shap")
    np.testing.assert_allclose(got.to_numpy(), np.abs(phi).mean(axis=0), rtol=1e-12)


def test_importance_ranking_ties_keep_order():
    assert importance_ranking(pd.Series({"a": 1.0, "b": 2.0, "c": 1.0})) == ["b", "a", "c"]
    with pytest.raises(ValueError, match="NaN"):
        importance_ranking({"a": np.nan})


def test_compare_importances_by_hand():
    a = pd.Series({"x": 3.0, "y": 4.0})
    b = pd.Series({"y": 1.0, "x": 0.0})
    out = compare_importances(a, b)
    assert out["cosine"] == pytest.approx(0.8)
    assert out["l2"] == pytest.approx(np.hypot(0.6, 0.8 - 1.0))
    pa = np.array([0.6, 0.8]) + 1e-20
    pb = np.array([0.0, 1.0]) + 1e-20
    pa, pb = pa / pa.sum(), pb / pb.sum()
    assert out["kl"] == pytest.approx(np.sum(pa * np.log(pa / pb)))
    same = compare_importances(a, a)
    assert same["cosine"] == pytest.approx(1.0) and same["l2"] == 0.0 and same["kl"] == 0.0
    with pytest.raises(ValueError, match="same features"):
        compare_importances(a, pd.Series({"x": 1.0, "z": 1.0}))
    with pytest.raises(ValueError, match="not all zero"):
        compare_importances(a, pd.Series({"x": 0.0, "y": 0.0}))
