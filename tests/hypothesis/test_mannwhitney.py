"""Tests of ``synthtrust.hypothesis.mannwhitney``.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import itertools
import math

import numpy as np
import pytest
from _hypothesis_data import _band, _close, _scipy_or_nan
from scipy import stats

from synthtrust import hypothesis as H


def _random_pairs(rng, n_pairs, max_n=14):
    """Samples of random sizes (incl. n <= 8): tie-heavy integers 0..4 or continuous."""
    out = []
    for _ in range(n_pairs):
        n1, n2 = rng.integers(1, max_n + 1, size=2)
        if rng.random() < 0.6:
            x = rng.integers(0, 5, n1).astype(float)
            y = rng.integers(0, 5, n2).astype(float)
        else:
            x = np.round(rng.normal(size=n1), 6)
            y = np.round(rng.normal(size=n2) + rng.normal(), 6)
        out.append((x, y))
    return out


# ------------------------------------------------------------------------------------------
# Raw-sample tests == SciPy
# ------------------------------------------------------------------------------------------


def test_raw_tests_match_scipy_on_random_small_and_tied_samples():
    rng = np.random.default_rng(20240601)
    n_exact = 0
    for x, y in _random_pairs(rng, 700):
        r = H.mannwhitneyu(x, y)
        s = stats.mannwhitneyu(x, y)
        _close([r.statistic, r.pvalue], [s.statistic, s.pvalue])
        n_exact += bool(r.exact)
        r = H.ttest_ind(x, y)
        _close([r.statistic, r.pvalue], _scipy_or_nan(stats.ttest_ind, x, y))
        assert r.df == x.size + y.size - 2
        r = H.median_test(x, y)
        _close([r.statistic, r.pvalue], _scipy_or_nan(stats.median_test, x, y))
        assert r.median == np.median(np.concatenate([x, y]))
    assert n_exact > 50  # the exact-distribution path was really exercised


def test_mannwhitneyu_scalar_output_and_unpacking():
    r = H.mannwhitneyu([1.0, 2.0, 3.5], [0.5, 4.0])
    assert np.ndim(r.statistic) == 0 and np.ndim(r.pvalue) == 0
    u, p = r
    s = stats.mannwhitneyu([1.0, 2.0, 3.5], [0.5, 4.0])
    _close([u, p], [s.statistic, s.pvalue])


def test_vectorized_leading_axes_equal_per_replicate_scipy():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=(3, 4, 11)).astype(float)
    y = rng.integers(0, 5, size=(3, 4, 9)).astype(float)
    y[0, 0] = 2.0  # partly constant replicate
    res = {
        "mwu": H.mannwhitneyu(x, y),
        "t": H.ttest_ind(x, y),
        "med": H.median_test(x, y),
    }
    for r in res.values():
        assert np.shape(r.statistic) == (3, 4) and np.shape(r.pvalue) == (3, 4)
    for i, j in itertools.product(range(3), range(4)):
        s = stats.mannwhitneyu(x[i, j], y[i, j])
        _close([res["mwu"].statistic[i, j], res["mwu"].pvalue[i, j]], [s.statistic, s.pvalue])
        _close(
            [res["t"].statistic[i, j], res["t"].pvalue[i, j]],
            _scipy_or_nan(stats.ttest_ind, x[i, j], y[i, j]),
        )
        _close(
            [res["med"].statistic[i, j], res["med"].pvalue[i, j]],
            _scipy_or_nan(stats.median_test, x[i, j], y[i, j]),
        )
    # broadcasting of leading shapes: y shared by all replicates
    r = H.mannwhitneyu(x[:, 0], y[0, 0])
    for i in range(3):
        _close(r.pvalue[i], stats.mannwhitneyu(x[i, 0], y[0, 0]).pvalue)


def test_mwu_exact_choice_is_per_replicate():
    # replicate 0 has no ties (exact path), replicate 1 has ties (normal approximation)
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 1.0, 3.0, 4.0, 5.0]])
    y = np.array([[6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0]])
    r = H.mannwhitneyu(x, y)
    np.testing.assert_array_equal(r.exact, [True, False])
    for i in range(2):
        _close(r.pvalue[i], stats.mannwhitneyu(x[i], y[i]).pvalue)
    # exact p for complete separation, 5 vs 6: 2 / C(11, 5)
    _close(r.pvalue[0], 2 / math.comb(11, 5))


@pytest.mark.parametrize("n1,n2", [(1, 1), (1, 7), (8, 8), (3, 400), (8, 120), (8, 9), (9, 9)])
def test_mwu_exact_path_large_other_group(n1, n2):
    rng = np.random.default_rng(n1 * 1000 + n2)
    x = rng.normal(size=n1)
    y = rng.normal(size=n2) + 0.4
    r = H.mannwhitneyu(x, y)
    s = stats.mannwhitneyu(x, y)
    assert bool(r.exact) == (min(n1, n2) <= 8)
    _close([r.statistic, r.pvalue], [s.statistic, s.pvalue])


def test_mwu_exact_cdf_brute_force():
    n1, n2 = 4, 5
    us = []
    for sub in itertools.combinations(range(1, n1 + n2 + 1), n1):
        us.append(sum(sub) - n1 * (n1 + 1) // 2)
    pmf = np.bincount(us, minlength=n1 * n2 + 1) / math.comb(n1 + n2, n1)
    cdf = H.mwu_exact_cdf(n1, n2)
    assert cdf.size == n1 * n2 // 2 + 1
    _close(cdf, np.cumsum(pmf)[: cdf.size])
    _close(H.mwu_exact_cdf(5, 4), cdf)


# ------------------------------------------------------------------------------------------
# Counts fast path == SciPy on the expanded samples
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "values",
    [np.arange(1.0, 8.0), np.array([-3.2, 0.15, 0.5, 1.3, 2.75, 7.0, 41.9])],
    ids=["integer-centres", "irregular-centres"],
)
def test_counts_path_equals_scipy_on_expanded_data(values):
    rng = np.random.default_rng(7)
    reps, nb = 1500, values.size
    cx = rng.integers(0, 4, size=(reps, nb)) * (rng.random((reps, nb)) < 0.5)
    cy = rng.integers(0, 4, size=(reps, nb)) * (rng.random((reps, nb)) < 0.5)
    cx[:40] = 0  # tie-free small samples -> exact MWU path
    cy[:40] = 0
    for i in range(40):
        cx[i, rng.choice(nb, rng.integers(1, 4), replace=False)] = 1
        free = np.flatnonzero(cx[i] == 0)
        cy[i, rng.choice(free, rng.integers(1, free.size + 1), replace=False)] = 1
    mwu = H.mannwhitneyu_counts(cx, cy)
    tt = H.ttest_ind_counts(cx, cy, values)
    med = H.median_test_counts(cx, cy, values)
    assert mwu.statistic.shape == (reps,)
    assert np.count_nonzero(mwu.exact) >= 40
    integer_values = np.all(values == np.round(values))
    for i in range(reps):
        x = np.repeat(values, cx[i])
        y = np.repeat(values, cy[i])
        if x.size == 0 or y.size == 0:
            for r in (mwu, tt, med):
                assert np.isnan(r.statistic[i]) and np.isnan(r.pvalue[i])
            continue
        s = stats.mannwhitneyu(x, y)
        _close([mwu.statistic[i], mwu.pvalue[i]], [s.statistic, s.pvalue])
        # SciPy's variance of a constant non-dyadic sample is rounding noise (documented):
        # compare the t-test there only with integer bin values.
        one_bin = (np.count_nonzero(cx[i]) == 1) and (np.count_nonzero(cy[i]) == 1)
        if integer_values or not one_bin:
            _close([tt.statistic[i], tt.pvalue[i]], _scipy_or_nan(stats.ttest_ind, x, y))
        _close([med.statistic[i], med.pvalue[i]], _scipy_or_nan(stats.median_test, x, y))
        assert med.median[i] == np.median(np.r_[x, y])


def test_counts_path_large_samples_and_broadcasting():
    rng = np.random.default_rng(8)
    values = np.arange(1.0, 101.0)
    p = np.exp(-0.5 * ((values - 50) / 8) ** 2)
    p /= p.sum()
    cx = rng.multinomial(20_000, p, size=4)
    cy = rng.multinomial(15_000, np.roll(p, 1), size=4)
    for r_fn, s_fn in [
        (lambda a, b: H.mannwhitneyu_counts(a, b), stats.mannwhitneyu),
        (lambda a, b: H.ttest_ind_counts(a, b, values), stats.ttest_ind),
        (lambda a, b: H.median_test_counts(a, b, values), stats.median_test),
    ]:
        r = r_fn(cx, cy)
        for i in range(4):
            s = s_fn(np.repeat(values, cx[i]), np.repeat(values, cy[i]))
            _close([r.statistic[i], r.pvalue[i]], [s.statistic, s.pvalue])
    # a 1-D reference group broadcast against (3, 2, n_bins) replicates
    cx3 = rng.multinomial(60, p, size=(3, 2))
    r = H.mannwhitneyu_counts(cx3, cy[0])
    assert r.pvalue.shape == (3, 2)
    s = stats.mannwhitneyu(np.repeat(values, cx3[2, 1]), np.repeat(values, cy[0]))
    _close([r.statistic[2, 1], r.pvalue[2, 1]], [s.statistic, s.pvalue])
    # 1-D counts -> scalars
    r = H.mannwhitneyu_counts(cx[0], cy[0])
    assert np.ndim(r.pvalue) == 0


# ------------------------------------------------------------------------------------------
# Bad input (the counts and the replicate shapes: test_inputs.py)
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: H.mannwhitneyu([], [1.0]), ValueError, "empty"),
        (lambda: H.mannwhitneyu([1.0, np.nan], [1.0]), ValueError, "NaN"),
        (lambda: H.ttest_ind(["a", "b"], [1.0]), TypeError, "numeric"),
        (lambda: H.chi2_contingency([1, 2, 3]), ValueError, "table"),
        (lambda: H.chi2_two_groups([1.0, np.nan], [1.0]), ValueError, "NaN"),
        (lambda: H.simulate_null_u(0, 3, 10), ValueError, "n1"),
    ],
)
def test_bad_input_raises(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_non_dp_mwu_type_i_error_within_band():
    rng = np.random.default_rng(99)
    reps = 4000
    x = rng.normal(50, 2, size=(reps, 50))
    y = rng.normal(50, 2, size=(reps, 50))
    rate = (H.mannwhitneyu(x, y).pvalue <= 0.05).mean()
    lo, hi = _band(reps)
    assert lo <= rate <= hi
    # binned into 100 bins (tie-heavy, asymptotic with tie correction): counts path
    edges = np.arange(0.5, 101.5)
    cx = np.stack([np.histogram(np.clip(np.round(v), 1, 100), edges)[0] for v in x[:1000]])
    cy = np.stack([np.histogram(np.clip(np.round(v), 1, 100), edges)[0] for v in y[:1000]])
    rate = (H.mannwhitneyu_counts(cx, cy).pvalue <= 0.05).mean()
    lo, hi = _band(1000)
    assert lo <= rate <= hi


# ----------------------------------------------------------------- normal null for large samples
@pytest.mark.parametrize("n1", [50, 100, 200])
def test_normal_null_cdf_error_is_order_one_over_n(n1):
    """The exact null CDF of U against the continuity-corrected normal: max error ≈ 0.083/n,
    the bound quoted in dp_mannwhitneyu's docstring for null="auto"."""
    exact = H.mwu_exact_cdf(n1, n1)
    u = np.arange(len(exact))
    mn = n1 * n1
    sd = np.sqrt(mn * (2 * n1 + 1) / 12.0)
    err = np.max(np.abs(exact - stats.norm.cdf((u + 0.5 - mn / 2) / sd)))
    assert err < 0.09 / (2 * n1)
    assert err > 0.07 / (2 * n1)  # the bound is tight, so the test can tell a wrong variance
