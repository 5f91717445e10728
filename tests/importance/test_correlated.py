"""Tests of ``synthtrust.importance.correlated``: correlated rank similarity against the LP of the
QUIPP reference, the association matrix against SciPy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.optimize import linprog

from synthtrust.importance import (
    association_matrix,
    average_overlap,
    correlated_rank_similarity,
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
