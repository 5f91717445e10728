"""Tests of synthtrust.hypothesis against SciPy (oracle), brute force and binomial bands."""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import hypothesis as H

TOL = dict(rtol=1e-10, atol=1e-10, equal_nan=True)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), **TOL)


def _scipy_or_nan(fn, *args):
    """SciPy result as (statistic, pvalue); nan where SciPy raises for a degenerate input."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = fn(*args)
        except ValueError:
            return np.nan, np.nan
    return res.statistic, res.pvalue


def _band(n, p=0.05, level=0.999):
    lo = stats.binom.ppf((1 - level) / 2, n, p) / n
    hi = stats.binom.ppf(1 - (1 - level) / 2, n, p) / n
    return lo, hi


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


def test_degenerate_replicates_follow_scipy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # all values equal: SciPy gives U = n1 n2 / 2, p = 1
        r = H.mannwhitneyu([2.0, 2.0, 2.0], [2.0, 2.0])
        _close([r.statistic, r.pvalue], [3.0, 1.0])
        # t-test: equal constants -> nan; different constants -> -inf, p = 0; n = 1 + 1 -> nan
        r = H.ttest_ind([1.0, 1.0, 1.0], [1.0, 1.0])
        assert np.isnan(r.statistic) and np.isnan(r.pvalue)
        r = H.ttest_ind([1.0, 1.0, 1.0], [2.0, 2.0])
        assert r.statistic == -np.inf and r.pvalue == 0.0
        _close(list(H.ttest_ind([1.0], [2.0])), list(stats.ttest_ind([1.0], [2.0]))[:2])
        _close(list(H.ttest_ind([1.0], [2.0, 3.0])), list(stats.ttest_ind([1.0], [2.0, 3.0]))[:2])
    # median test: SciPy raises "All values are below the grand median" -> nan here
    with pytest.raises(ValueError, match="below the grand median"):
        stats.median_test([0.0, 1.0, 1.0], [1.0, 1.0])
    r = H.median_test([0.0, 1.0, 1.0], [1.0, 1.0])
    assert np.isnan(r.statistic) and np.isnan(r.pvalue) and r.median == 1.0
    # the 2 x 2 table has SciPy's layout (rows above / at-or-below, columns x / y)
    x, y = [1.0, 2.0, 2.0, 5.0, 7.0], [0.0, 2.0, 3.0, 9.0]
    np.testing.assert_array_equal(H.median_test(x, y).table, stats.median_test(x, y).table)
    np.testing.assert_array_equal(
        H.median_test_counts(
            [0, 1, 2, 0, 1, 1, 0], [1, 0, 1, 1, 0, 0, 1], [0, 1, 2, 3, 5, 7, 9]
        ).table,
        stats.median_test(x, y).table,
    )


# ------------------------------------------------------------------------------------------
# χ²
# ------------------------------------------------------------------------------------------


def test_chi2_contingency_matches_scipy_including_degenerate_tables():
    rng = np.random.default_rng(11)
    for shape in [(400, 2, 2), (300, 3, 4), (50, 1, 3), (50, 3, 1)]:
        t = rng.integers(0, 7, size=shape) * (rng.random(shape) < 0.85)
        r = H.chi2_contingency(t)
        assert r.dof == (shape[1] - 1) * (shape[2] - 1)
        assert r.expected_freq.shape == shape
        for i in range(shape[0]):
            _close([r.statistic[i], r.pvalue[i]], _scipy_or_nan(stats.chi2_contingency, t[i]))
    r = H.chi2_contingency([[12, 3], [17, 16]])
    s = stats.chi2_contingency([[12, 3], [17, 16]])
    _close([r.statistic, r.pvalue], [s.statistic, s.pvalue])
    _close(r.expected_freq, s.expected_freq)
    assert np.isnan(H.chi2_contingency([[1, 0], [2, 0]]).pvalue)


def test_chi2_counts_and_two_groups_match_scipy_on_crosstab():
    rng = np.random.default_rng(12)
    k = 4
    cx = rng.integers(0, 5, size=(500, k)) * (rng.random((500, k)) < 0.6)
    cy = rng.integers(0, 5, size=(500, k)) * (rng.random((500, k)) < 0.6)
    r = H.chi2_counts(cx, cy)
    labels = np.arange(k)
    for i in range(500):
        x = np.repeat(labels, cx[i])
        y = np.repeat(labels, cy[i])
        if x.size == 0 or y.size == 0:
            assert np.isnan(r.statistic[i]) and np.isnan(r.pvalue[i])
            continue
        group = np.r_[np.zeros(x.size), np.ones(y.size)]
        tab = pd.crosstab(group, np.r_[x, y]).to_numpy()
        s = stats.chi2_contingency(tab)
        _close([r.statistic[i], r.pvalue[i]], [s.statistic, s.pvalue])
        assert r.dof[i] == s.dof
    # raw binary / string labels
    x = rng.integers(0, 2, size=(20, 30))
    y = rng.integers(0, 2, size=(20, 25))
    r = H.chi2_two_groups(x, y)
    for i in range(20):
        tab = np.array([np.bincount(x[i], minlength=2), np.bincount(y[i], minlength=2)])
        tab = tab[:, tab.sum(axis=0) > 0]
        s = stats.chi2_contingency(tab)
        _close([r.statistic[i], r.pvalue[i]], [s.statistic, s.pvalue])
    r = H.chi2_two_groups(np.array(["a", "b", "a", "a"]), np.array(["b", "b", "c"]))
    s = stats.chi2_contingency([[3, 1, 0], [0, 2, 1]])
    _close([r.statistic, r.pvalue], [s.statistic, s.pvalue])


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
# Bad input
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda: H.mannwhitneyu([], [1.0]), ValueError, "empty"),
        (lambda: H.mannwhitneyu([1.0, np.nan], [1.0]), ValueError, "NaN"),
        (lambda: H.ttest_ind(["a", "b"], [1.0]), TypeError, "numeric"),
        (lambda: H.median_test(np.ones((2, 3)), np.ones((3, 3))), ValueError, "broadcast"),
        (lambda: H.mannwhitneyu_counts([[1, -1]], [[1, 1]]), ValueError, "nonnegative"),
        (lambda: H.mannwhitneyu_counts([[1, 0.5]], [[1, 1]]), ValueError, "integer"),
        (lambda: H.mannwhitneyu_counts([[1, np.nan]], [[1, 1]]), ValueError, "NaN"),
        (lambda: H.mannwhitneyu_counts([[1, 2, 3]], [[1, 1]]), ValueError, "number of bins"),
        (lambda: H.mannwhitneyu_counts("ab", [1, 1]), TypeError, "cx"),
        (lambda: H.ttest_ind_counts([1, 2], [1, 1], [1.0, 2.0, 3.0]), ValueError, "values"),
        (lambda: H.median_test_counts([1, 2], [1, 1], [2.0, 1.0]), ValueError, "increasing"),
        (lambda: H.chi2_contingency([1, 2, 3]), ValueError, "table"),
        (lambda: H.chi2_two_groups([1.0, np.nan], [1.0]), ValueError, "NaN"),
        (lambda: H.simulate_null_u(0, 3, 10), ValueError, "n1"),
    ],
)
def test_bad_input_raises(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(epsilon=0.0), ValueError, "epsilon"),
        (dict(epsilon=-1.0), ValueError, "epsilon"),
        (dict(epsilon=float("nan")), ValueError, "epsilon"),
        (dict(epsilon="1"), TypeError, "epsilon"),
        (dict(epsilon=1.0, delta=0.0), ValueError, "delta"),
        (dict(epsilon=1.0, delta=1.0), ValueError, "delta"),
        (dict(epsilon=1.0, alpha=1.5), ValueError, "alpha"),
        (dict(epsilon=1.0, n_sim=0), ValueError, "n_sim"),
        (dict(epsilon=1.0, size_fraction=1.0), ValueError, "size_fraction"),
        (dict(epsilon=1.0, random_state=np.random.RandomState(0)), TypeError, "random_state"),
    ],
)
def test_dp_mannwhitneyu_rejects_bad_parameters(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        H.dp_mannwhitneyu([1.0, 2.0, 3.0], [2.0, 4.0], **kwargs)


def test_dp_mannwhitneyu_rejects_bad_data():
    with pytest.raises(ValueError, match="empty"):
        H.dp_mannwhitneyu([], [1.0, 2.0], epsilon=1.0)
    with pytest.raises(ValueError, match="NaN"):
        H.dp_mannwhitneyu([1.0, np.nan], [1.0, 2.0], epsilon=1.0)
    with pytest.raises(ValueError, match="empty group"):
        H.dp_mannwhitneyu_counts([[1, 2], [0, 0]], [[1, 1], [3, 0]], epsilon=1.0)


# ------------------------------------------------------------------------------------------
# Exact null sampler of U
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n1,n2", [(4, 6), (8, 30), (3, 300)])
def test_simulate_null_u_matches_exact_distribution(n1, n2):
    n_draw = 200_000
    u = H.simulate_null_u(n1, n2, n_draw, random_state=n1 + n2)
    half = H.mwu_exact_cdf(n1, n2)
    d = n1 * n2
    pmf_half = np.diff(np.r_[0.0, half])
    pmf = np.zeros(d + 1)
    pmf[: pmf_half.size] = pmf_half
    pmf[d - np.arange(pmf_half.size)] = pmf_half
    obs = np.bincount(u, minlength=d + 1)
    assert obs.size == d + 1  # no draw outside [0, n1 n2]
    expected = pmf * n_draw
    keep = expected >= 5
    chi2 = np.sum((obs[keep] - expected[keep]) ** 2 / expected[keep])
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


@pytest.mark.parametrize("n1,n2", [(128, 128), (300, 713)])
def test_simulate_null_u_moments_multi_block(n1, n2):
    n_draw = 400_000
    u = H.simulate_null_u(n1, n2, n_draw, random_state=5)
    mean = n1 * n2 / 2
    var = n1 * n2 * (n1 + n2 + 1) / 12
    assert u.min() >= 0 and u.max() <= n1 * n2
    assert abs(u.mean() - mean) < 4.5 * math.sqrt(var / n_draw)
    # var of the sample variance ~ 2 var² / N (U is nearly normal)
    assert abs(u.var() / var - 1) < 4.5 * math.sqrt(2 / n_draw)


# ------------------------------------------------------------------------------------------
# DP Mann–Whitney U
# ------------------------------------------------------------------------------------------


def test_dp_release_formulas_and_lower_bound_sign():
    rng = np.random.default_rng(21)
    reps, n1, n2 = 3000, 30, 45
    x = rng.normal(size=(reps, n1))
    y = rng.normal(size=(reps, n2))
    eps, delta = 0.5, 1e-6
    r = H.dp_mannwhitneyu(x, y, eps, delta=delta, n_sim=10, random_state=3)
    eps_m, eps_u = 0.65 * eps, 0.35 * eps
    assert r.epsilon_size == pytest.approx(eps_m) and r.epsilon_u == pytest.approx(eps_u)
    m, n = min(n1, n2), n1 + n2
    expected_lower = np.clip(r.m_noisy - math.log(1 / (2 * delta)) / eps_m, 0, n // 2)
    _close(r.m_lower, expected_lower)
    # lower bound holds with prob 1 - delta (the C++ port's sign would break this often)
    assert np.all(r.m_lower <= m)
    # m_noisy - m ~ Laplace(1/eps_m): mean |.| = 1/eps_m
    dev = np.abs(r.m_noisy - m) * eps_m
    assert abs(dev.mean() - 1) < 4.5 / math.sqrt(reps)
    np.testing.assert_array_equal(r.m_hat, np.clip(np.rint(r.m_noisy), 1, n // 2))
    # U noise ~ Laplace((n - m*)/eps_U), around SciPy's U1
    u1 = H.mannwhitneyu(x, y).statistic
    z = np.abs(r.statistic - u1) / ((n - r.m_lower) / eps_u)
    assert abs(z.mean() - 1) < 4.5 / math.sqrt(reps)
    np.testing.assert_array_equal(r.reject, r.pvalue <= 0.05)
    assert np.all((r.pvalue > 0) & (r.pvalue <= 1))
    np.testing.assert_allclose(r.pvalue * 11, np.round(r.pvalue * 11))  # (1 + count) / (1 + B)


def test_dp_counts_equals_raw_and_is_reproducible():
    rng = np.random.default_rng(4)
    values = np.arange(1.0, 11.0)
    cx = rng.integers(0, 6, size=(50, 10))
    cy = rng.integers(0, 6, size=(50, 10))
    cx[:, 0] += 1
    cy[:, 0] += 1
    a = H.dp_mannwhitneyu_counts(cx, cy, 1.0, n_sim=200, random_state=9)
    b = H.dp_mannwhitneyu_counts(cx, cy, 1.0, n_sim=200, random_state=9)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
    np.testing.assert_array_equal(a.statistic, b.statistic)
    # the same replicate through the raw path (same seed, one replicate) gives the same release
    i = 7
    raw = H.dp_mannwhitneyu(
        np.repeat(values, cx[i]), np.repeat(values, cy[i]), 1.0, n_sim=200, random_state=9
    )
    one = H.dp_mannwhitneyu_counts(cx[i], cy[i], 1.0, n_sim=200, random_state=9)
    assert np.ndim(raw.pvalue) == 0
    assert raw.statistic == one.statistic and raw.pvalue == one.pvalue
    assert raw.m_noisy == one.m_noisy


def test_dp_large_epsilon_recovers_exact_mwu_pvalue():
    # eps -> infinity: the noise only breaks ties of |U - c|, so the DP p-value lies between
    # P(|U - c| > T) and P(|U - c| >= T) (= SciPy's exact p) up to Monte-Carlo error.
    rng = np.random.default_rng(31)
    n1 = n2 = 8
    x = rng.normal(size=(12, n1))
    y = rng.normal(size=(12, n2)) + np.linspace(0, 1.5, 12)[:, None]
    r = H.dp_mannwhitneyu(x, y, 1e6, n_sim=4000, random_state=1)
    half = H.mwu_exact_cdf(n1, n2)
    pmf_half = np.diff(np.r_[0.0, half])
    for i in range(12):
        s = stats.mannwhitneyu(x[i], y[i])  # exact path (n <= 8, no ties)
        kc = int(min(s.statistic, n1 * n2 - s.statistic))
        at = pmf_half[kc] * (1 if 2 * kc == n1 * n2 else 2)
        p_ge, p_gt = s.pvalue, s.pvalue - at
        assert p_gt - 0.035 <= r.pvalue[i] <= p_ge + 0.035


def test_dp_type_i_error_within_band():
    rng = np.random.default_rng(2024)
    reps, n = 400, 100
    x = rng.normal(50, 2, size=(reps, n // 2))
    y = rng.normal(50, 2, size=(reps, n // 2))
    r = H.dp_mannwhitneyu(x, y, epsilon=1.0, random_state=7)
    lo, hi = _band(reps)
    assert lo <= r.reject.mean() <= hi


def test_dp_power_increases_with_epsilon():
    rng = np.random.default_rng(77)
    reps = 300
    x = rng.normal(51, 1, size=(reps, 50))
    y = rng.normal(50, 1, size=(reps, 50))
    power = [
        H.dp_mannwhitneyu(x, y, epsilon=e, n_sim=500, random_state=1).reject.mean()
        for e in (0.1, 1.0, 10.0)
    ]
    # ~0.06, ~0.5, ~1.0 at these settings; differences far beyond binomial noise
    assert power[0] + 0.2 < power[1] < power[2] - 0.2
    assert power[2] > 0.95


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


def test_normal_null_draws_match_exact_draws():
    rng = np.random.default_rng(5)
    n = np.full(100_000, 6000)
    m = np.full(100_000, 2500)
    exact = H._sample_null_u(n, m, rng)
    normal = H._sample_null_u_normal(n, m, rng)
    mean, var = 2500 * 3500 / 2, 2500 * 3500 * 6001 / 12
    assert abs(normal.mean() - mean) < 5 * np.sqrt(var / len(n))
    assert abs(normal.var() / var - 1) < 0.02
    assert stats.ks_2samp(exact, normal).pvalue > 1e-3


def test_dp_mwu_null_methods_agree_and_validate():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(40, 3000))
    y = rng.normal(size=(40, 3000))
    p = {
        null: H.dp_mannwhitneyu(x, y, 1.0, n_sim=2000, random_state=1, null=null).pvalue
        for null in ("exact", "normal")
    }
    # same released statistic, independent null simulations: p-values within MC noise
    np.testing.assert_allclose(p["exact"], p["normal"], atol=0.06)
    with pytest.raises(ValueError, match="null must be one of"):
        H.dp_mannwhitneyu(x[0], y[0], 1.0, null="asymptotic")
