"""Tests of ``synthtrust.dp_audit.bounds`` against independent oracles.

Oracles: SciPy's ``binomtest`` exact interval (Clopper–Pearson), binomial tails summed from
``math.comb`` (the confidence limits of the brute-force checks and the one-run p-value), the
defining inequalities of (ε, δ)-DP and μ-GDP checked on fine grids, a numeric integral of the
hockey-stick divergence and 60-digit mpmath values (Gaussian DP), closed forms, and simulated
Laplace and Gaussian mechanisms whose test at the chosen threshold is tight (so that a bound
without its confidence correction would exceed the truth in about half of the runs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from synthtrust.dp_audit.bounds import (
    ceiling,
    clopper_pearson_upper,
    epsilon_lower_bound,
    gdp_delta,
    gdp_mu,
    mu_lower_bound,
    one_run_epsilon_lower_bound,
)


# ------------------------------------------------------------------------------------ oracles
def _binom_cdf(k: int, n: int, p: float) -> float:
    """P[Bin(n, p) ≤ k] summed term by term (small n only)."""
    return math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


def _cp_upper_by_root(k: int, n: int, level: float) -> float:
    """The largest p with P[Bin(n, p) ≤ k] ≥ level: the definition of the upper limit."""
    if k == n:
        return 1.0
    return optimize.brentq(lambda p: _binom_cdf(k, n, p) - level, 0.0, 1.0, xtol=1e-15)


def _one_run_p_brute(m: int, r: int, v: int, eps: float, delta: float) -> float:
    """Theorem 5.2 of Steinke, Nasr & Jagielski (2023), summed from binomial pmfs."""
    q = math.exp(eps) / (1 + math.exp(eps))
    pmf = [math.comb(r, j) * q**j * (1 - q) ** (r - j) for j in range(r + 1)]
    tail = math.fsum(pmf[v:])
    worst = max((math.fsum(pmf[v - i : v]) / i for i in range(1, v + 1)), default=0.0)
    return min(tail + 2 * m * delta * worst, 1.0)


def _slack(alpha: float, runs: int) -> float:
    return alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs)


# --------------------------------------------------------------------- Clopper–Pearson limit
CP_GRID = [(k, n) for n in (1, 2, 7, 20, 137, 1000) for k in sorted({0, 1, n // 2, n - 1, n})]


@pytest.mark.parametrize("alpha", [0.005, 0.025, 0.05, 0.2])
def test_clopper_pearson_upper_matches_binomtest_exact_interval(alpha):
    for k, n in CP_GRID:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 2 * alpha, method="exact")
        got = clopper_pearson_upper(k, n, alpha)
        assert type(got) is float
        # binomtest finds its limit by brentq (default xtol 2e-12): agreement to ~1e-11
        assert got == pytest.approx(ci.high, rel=1e-9, abs=1e-11), (k, n)


def test_clopper_pearson_upper_solves_its_defining_equation():
    # P[Bin(n, upper) <= k] = alpha for k < n, summed from the binomial pmf; 1.0 when k == n.
    for k, n in CP_GRID:
        upper = clopper_pearson_upper(k, n, 0.05)
        if k == n:
            assert upper == 1.0
        elif n <= 137:
            assert _binom_cdf(k, n, upper) == pytest.approx(0.05, rel=1e-9)
    assert clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100), rel=1e-12)


def test_clopper_pearson_upper_broadcasts_over_arrays():
    k = np.array([[0, 3, 10], [1, 5, 10]])
    n = np.array([10, 10, 10])
    got = clopper_pearson_upper(k, n, 0.05)
    assert isinstance(got, np.ndarray) and got.shape == (2, 3)
    expected = [[clopper_pearson_upper(int(a), 10, 0.05) for a in row] for row in k]
    np.testing.assert_allclose(got, expected, rtol=0, atol=0)
    assert type(clopper_pearson_upper(np.int64(3), np.int64(10), 0.05)) is float


# ------------------------------------------------------------------------- ε lower bound
@pytest.mark.parametrize("delta", [0.0, 0.05, 0.3])
def test_epsilon_lower_bound_is_the_smallest_epsilon_consistent_with_the_limits(delta):
    # (ε, δ)-DP demands FPR + e^ε FNR ≥ 1 − δ and e^ε FPR + FNR ≥ 1 − δ of the true rates; both
    # sides increase in the rates, so an ε is consistent with the confidence box
    # [0, FPR_ub] × [0, FNR_ub] iff the corner satisfies both. The bound must reject every ε
    # below it and no ε above it (checked on a grid of step 1e-3).
    n0, n1, alpha = 20, 17, 0.1
    fpr_ub = [_cp_upper_by_root(k, n0, alpha / 2) for k in range(n0 + 1)]
    fnr_ub = [_cp_upper_by_root(k, n1, alpha / 2) for k in range(n1 + 1)]
    grid = np.linspace(0.0, 4.0, 4001)
    e = np.exp(grid)
    n_positive = 0
    for fp in range(n0 + 1):
        for fn in range(n1 + 1):
            a, b = fpr_ub[fp], fnr_ub[fn]
            consistent = (a + e * b >= 1 - delta) & (e * a + b >= 1 - delta)
            got = epsilon_lower_bound(fp, n0, fn, n1, delta=delta, alpha=alpha)
            assert type(got) is float and got >= 0.0
            assert not consistent[grid < got - 1e-9].any(), (fp, fn, got)
            assert consistent[grid > got + 1e-9].all(), (fp, fn, got)
            if got > 0:  # at the bound one of the two inequalities is an equality
                slack = min(a + math.exp(got) * b, math.exp(got) * a + b) - (1 - delta)
                assert abs(slack) < 1e-9
                n_positive += 1
    assert n_positive > 20  # the grid of outcomes does exercise positive bounds


def test_epsilon_lower_bound_symmetry_and_monotonicity():
    assert epsilon_lower_bound(3, 200, 40, 150) == epsilon_lower_bound(40, 150, 3, 200)
    bounds = [epsilon_lower_bound(fp, 300, 100, 300) for fp in range(0, 60, 5)]
    assert all(x > y for x, y in zip(bounds, bounds[1:], strict=False))
    assert epsilon_lower_bound(10, 300, 100, 300, delta=0.1) < epsilon_lower_bound(
        10, 300, 100, 300
    )
    assert epsilon_lower_bound(10, 300, 100, 300, alpha=0.2) > epsilon_lower_bound(
        10, 300, 100, 300
    )
    assert epsilon_lower_bound(150, 300, 150, 300) == 0.0
    assert epsilon_lower_bound(300, 300, 300, 300) == 0.0  # both numerators ≤ 0


def test_epsilon_lower_bound_coverage_laplace_mechanism():
    # Counts 0 (D) and 1 (D') released with Laplace noise of scale 1/ε: ε-DP. At the threshold 1
    # (fixed in advance), FPR = e^−ε / 2 and FNR = 1/2, so (1 − FNR) / FPR = e^ε: the test is
    # tight, and the bound may exceed ε in at most a share alpha of the runs.
    eps_true, n, runs, alpha = 1.0, 500, 400, 0.05
    rng = np.random.default_rng(20240607)
    out0 = rng.laplace(0.0, 1.0 / eps_true, size=(runs, n))
    out1 = 1.0 + rng.laplace(0.0, 1.0 / eps_true, size=(runs, n))
    fp = (out0 >= 1.0).sum(axis=1)
    fn = (out1 < 1.0).sum(axis=1)
    bounds = np.array(
        [
            epsilon_lower_bound(int(a), n, int(b), n, alpha=alpha)
            for a, b in zip(fp, fn, strict=True)
        ]
    )
    assert np.mean(bounds > eps_true) <= _slack(alpha, runs)
    assert np.median(bounds) > 0.5 * eps_true  # not vacuous
    # the same statistic without confidence limits overshoots in about half of the runs
    naive = np.log((1 - fn / n) / (fp / n))
    assert np.mean(naive > eps_true) > 0.3


# ------------------------------------------------------------------------- μ lower bound
def test_mu_lower_bound_is_the_smallest_mu_consistent_with_the_limits():
    # μ-GDP demands FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ) and FPR ≥ Φ(Φ⁻¹(1 − FNR) − μ), checked at the
    # corner (FPR_ub, FNR_ub) on a grid of μ.
    n0, n1, alpha = 20, 17, 0.1
    fpr_ub = [_cp_upper_by_root(k, n0, alpha / 2) for k in range(n0 + 1)]
    fnr_ub = [_cp_upper_by_root(k, n1, alpha / 2) for k in range(n1 + 1)]
    grid = np.linspace(0.0, 5.0, 5001)
    tol = 1e-12
    n_positive = 0
    for fp in range(n0 + 1):
        for fn in range(n1 + 1):
            a, b = fpr_ub[fp], fnr_ub[fn]
            consistent = (b + tol >= stats.norm.cdf(stats.norm.ppf(1 - a) - grid)) & (
                a + tol >= stats.norm.cdf(stats.norm.ppf(1 - b) - grid)
            )
            got = mu_lower_bound(fp, n0, fn, n1, alpha=alpha)
            assert type(got) is float and got >= 0.0
            assert not consistent[grid < got - 1e-9].any(), (fp, fn, got)
            assert consistent[grid > got + 1e-9].all(), (fp, fn, got)
            n_positive += got > 0
    assert n_positive > 20


def test_mu_lower_bound_without_a_side():
    # every trial of a world erred: that limit is 1 and gives no bound; no warnings
    with np.errstate(all="raise"):
        assert mu_lower_bound(500, 500, 0, 500) == 0.0
        assert mu_lower_bound(0, 500, 500, 500) == 0.0
        assert mu_lower_bound(500, 500, 500, 500) == 0.0
    assert mu_lower_bound(0, 500, 0, 500) == pytest.approx(
        2 * stats.norm.isf(1 - 0.025 ** (1 / 500)), rel=1e-10
    )


def test_mu_lower_bound_coverage_gaussian_mechanism():
    # Scores N(0, 1) on D and N(1, 1) on D' (exactly 1-GDP); at the threshold 1/2,
    # Φ⁻¹(1 − FPR) − Φ⁻¹(FNR) = 1/2 + 1/2 = μ: the test is tight.
    mu_true, n, runs, alpha = 1.0, 500, 400, 0.05
    rng = np.random.default_rng(7)
    s0 = rng.standard_normal((runs, n))
    s1 = mu_true + rng.standard_normal((runs, n))
    fp = (s0 >= 0.5).sum(axis=1)
    fn = (s1 < 0.5).sum(axis=1)
    bounds = np.array(
        [mu_lower_bound(int(a), n, int(b), n, alpha=alpha) for a, b in zip(fp, fn, strict=True)]
    )
    assert np.mean(bounds > mu_true) <= _slack(alpha, runs)
    assert np.median(bounds) > 0.5 * mu_true
    naive = stats.norm.isf(fp / n) - stats.norm.ppf(fn / n)
    assert np.mean(naive > mu_true) > 0.3


# ------------------------------------------------------------------------------- ceiling
@pytest.mark.parametrize(
    "n_per_world, expected",
    [
        (500, 4.91),
        # N fits, 50/50 select/eval split: N / 4 eval trials per world
        (200 // 4, 2.57),
        (1000 // 4, 4.21),
        (2000 // 4, 4.91),
        (10000 // 4, 6.52),
        (100000 // 4, 8.82),
        # fixed-rule scores: N / 2 trials per world
        (200 // 2, 3.28),
        (1000 // 2, 4.91),
        (2000 // 2, 5.60),
        (10000 // 2, 7.21),
    ],
)
def test_ceiling_spec_values(n_per_world, expected):
    assert round(ceiling(n_per_world), 2) == expected


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.3])
def test_ceiling_is_the_bound_of_a_perfect_separation(alpha):
    for n in (1, 2, 5, 6, 10, 50, 500, 2500, 25000, 10**5, 10**7):
        got = ceiling(n, alpha=alpha)
        assert type(got) is float
        assert got == pytest.approx(epsilon_lower_bound(0, n, 0, n, alpha=alpha), abs=1e-12)
        # no other outcome of the game does better
        assert epsilon_lower_bound(1, n, 0, n, alpha=alpha) <= got
    ns = np.array([1, 5, 6, 500])
    np.testing.assert_allclose(ceiling(ns), [ceiling(int(n)) for n in ns], rtol=0, atol=0)
    assert ceiling(5) == 0.0 < ceiling(6)  # q = 0.025 ** (1 / n) crosses 1/2 at n = log2(40)


# ----------------------------------------------------------------------------- Gaussian DP
def _hockey_stick(eps: float, mu: float) -> float:
    """δ(ε) = ∫ (φ(x − μ) − e^ε φ(x))₊ dx, integrated numerically."""

    def integrand(x):
        return max(stats.norm.pdf(x - mu) - math.exp(eps) * stats.norm.pdf(x), 0.0)

    cut = eps / mu + mu / 2  # where the integrand turns positive: a break point for quad
    left = integrate.quad(integrand, mu - 40, cut, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    right = integrate.quad(integrand, cut, mu + 40, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    return left + right


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("mu", [0.3, 1.0, 2.0, 4.0])
def test_gdp_delta_matches_the_hockey_stick_integral(eps, mu):
    got = gdp_delta(eps, mu)
    assert type(got) is float
    assert got == pytest.approx(_hockey_stick(eps, mu), rel=1e-7, abs=1e-14)


@pytest.mark.parametrize(
    "eps, mu", [(0.0, 1e-9), (1.0, 0.1), (50.0, 1.5), (50.0, 5.0), (200.0, 5.0), (1000.0, 40.0)]
)
def test_gdp_delta_extreme_values_match_mpmath(eps, mu):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    e, m = mpmath.mpf(eps), mpmath.mpf(mu)
    exact = mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # 5e-309 is subnormal
        got = gdp_delta(eps, mu)
    assert got == pytest.approx(float(exact), rel=1e-10)
    assert got > 0


def test_gdp_delta_broadcasts_and_is_monotone():
    eps = np.linspace(0.0, 5.0, 11)
    mus = np.array([[0.5], [1.0], [2.0]])
    got = gdp_delta(eps, mus)
    assert got.shape == (3, 11)
    assert np.all(np.diff(got, axis=1) < 0)  # decreasing in ε
    assert np.all(np.diff(got, axis=0) > 0)  # increasing in μ
    assert got[1, 2] == gdp_delta(float(eps[2]), 1.0)
    assert gdp_delta(0.0, 1.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-14)


def test_gdp_mu_spec_value():
    # spec: (ε, δ) = (1, 1e-2) ↔ μ ≈ 0.533; computed 0.53251664850...
    mu = gdp_mu(1.0, 1e-2)
    assert round(mu, 3) == 0.533
    assert mu == pytest.approx(0.5325166485, abs=1e-9)


@pytest.mark.parametrize("eps", [0.0, 0.1, 1.0, 5.0, 50.0])
@pytest.mark.parametrize("delta", [1e-200, 1e-12, 1e-6, 1e-2, 0.5, 0.99])
def test_gdp_mu_inverts_gdp_delta(eps, delta):
    mu = gdp_mu(eps, delta)
    assert type(mu) is float and mu > 0
    assert gdp_delta(eps, mu) == pytest.approx(delta, rel=1e-9)
    assert gdp_delta(eps, mu * (1 + 1e-6)) > delta > gdp_delta(eps, mu * (1 - 1e-6))


# ------------------------------------------------------------------------- one-run audit
@pytest.mark.parametrize(
    "m, r, v, delta",
    [
        (100, 30, 28, 0.0),
        (100, 30, 28, 1e-3),
        (60, 40, 33, 1e-3),
        (1000, 50, 50, 1e-4),
        (10**4, 200, 200, 1e-4),  # 2mδ = 2 > 1: the p-value need not be monotone a priori
    ],
)
def test_one_run_bound_is_the_crossing_of_the_brute_force_p_value(m, r, v, delta):
    alpha = 0.05
    got = one_run_epsilon_lower_bound(m, r, v, delta=delta, alpha=alpha)
    assert type(got) is float and got > 0
    assert _one_run_p_brute(m, r, v, got, delta) == pytest.approx(alpha, rel=1e-8)
    # every ε below the bound is rejected (p ≤ alpha), every ε on a grid above it is not
    below = np.linspace(0.0, got, 40, endpoint=False)
    above = got + np.linspace(1e-6, 3.0, 40)
    assert all(_one_run_p_brute(m, r, v, e, delta) <= alpha for e in below)
    assert all(_one_run_p_brute(m, r, v, e, delta) > alpha for e in above)


@pytest.mark.parametrize("alpha", [0.05, 0.0025])
@pytest.mark.parametrize("r", [5, 10, 100, 1000, 5000])
def test_one_run_all_right_without_delta_matches_closed_form(r, alpha):
    # p(ε) = q^r, so ε_lb = ln(q / (1 − q)) with q = alpha ** (1 / r)
    q = alpha ** (1 / r)
    expected = max(math.log(q / (1 - q)), 0.0)
    assert one_run_epsilon_lower_bound(10**6, r, r, alpha=alpha) == pytest.approx(
        expected, rel=1e-9, abs=1e-12
    )


@pytest.mark.parametrize(
    "m, r, delta, alpha, expected",
    [
        # all guesses right; reproduced only at alpha = 0.05 (alpha/20 = 0.0025 gives less,
        # see test_one_run_values_at_alpha_over_20)
        (10**6, 100, 0.0, 0.05, 3.49),
        (10**6, 1000, 0.0, 0.05, 5.81),
        (10**6, 5000, 0.0, 0.05, 7.42),
        # δ = 1e-5 with m = 2r canaries, alpha = 0.05
        (2000, 1000, 1e-5, 0.05, 5.76),
        (10000, 5000, 1e-5, 0.05, 7.14),
    ],
)
def test_one_run_spec_values(m, r, delta, alpha, expected):
    assert round(one_run_epsilon_lower_bound(m, r, r, delta=delta, alpha=alpha), 2) == expected


def test_one_run_values_at_alpha_over_20():
    # alpha = 0.05 / 20 (a grid of 20 guess counts each tested at alpha / 20): r = 1000 and
    # 5000 give 5.11 and 6.73 (δ = 0), not the 5.81 and 7.42 of alpha = 0.05
    assert round(one_run_epsilon_lower_bound(10**6, 1000, 1000, alpha=0.0025), 2) == 5.11
    assert round(one_run_epsilon_lower_bound(10**6, 5000, 5000, alpha=0.0025), 2) == 6.73


def test_one_run_no_evidence_and_monotonicity():
    assert one_run_epsilon_lower_bound(1000, 100, 55) == 0.0  # p(0) > alpha
    assert one_run_epsilon_lower_bound(1000, 0, 0) == 0.0
    assert one_run_epsilon_lower_bound(1000, 100, 0) == 0.0
    base = one_run_epsilon_lower_bound(1000, 500, 450)
    assert one_run_epsilon_lower_bound(1000, 500, 460) > base
    assert one_run_epsilon_lower_bound(1000, 500, 450, delta=1e-5) < base
    assert one_run_epsilon_lower_bound(1000, 500, 450, alpha=0.01) < base


# ---------------------------------------------------------------------------- bad input
BAD_INPUT = [
    # (callable, args, kwargs, exception, parameter name, text the message shows)
    (clopper_pearson_upper, (-1, 10, 0.05), {}, ValueError, "k", "-1"),
    (clopper_pearson_upper, (11, 10, 0.05), {}, ValueError, "k", "11"),
    (clopper_pearson_upper, (2.5, 10, 0.05), {}, TypeError, "k", "2.5"),
    (clopper_pearson_upper, (True, 10, 0.05), {}, TypeError, "k", "True"),
    (clopper_pearson_upper, ([0, 2.5], 10, 0.05), {}, TypeError, "k", "float"),
    (clopper_pearson_upper, ([0, -2], 10, 0.05), {}, ValueError, "k", "-2"),
    (clopper_pearson_upper, (0, 0, 0.05), {}, ValueError, "n", "0"),
    (clopper_pearson_upper, (0, 10, 0.0), {}, ValueError, "alpha", "0.0"),
    (clopper_pearson_upper, (0, 10, 1.0), {}, ValueError, "alpha", "1.0"),
    (clopper_pearson_upper, (0, 10, "x"), {}, TypeError, "alpha", "'x'"),
    (epsilon_lower_bound, (-1, 10, 0, 10), {}, ValueError, "fp", "-1"),
    (epsilon_lower_bound, (11, 10, 0, 10), {}, ValueError, "fp", "11"),
    (epsilon_lower_bound, (0, 10, 5, 4), {}, ValueError, "fn", "5"),
    (epsilon_lower_bound, (0, 10, -3, 4), {}, ValueError, "fn", "-3"),
    (epsilon_lower_bound, (2.5, 10, 0, 10), {}, TypeError, "fp", "2.5"),
    (epsilon_lower_bound, (0, 10, 0, 10.0), {}, TypeError, "n1", "10.0"),
    (epsilon_lower_bound, (0, 0, 0, 10), {}, ValueError, "n0", "0"),
    (epsilon_lower_bound, (0, 10, 0, 10), {"alpha": 0}, ValueError, "alpha", "0"),
    (epsilon_lower_bound, (0, 10, 0, 10), {"alpha": 1}, ValueError, "alpha", "1"),
    (epsilon_lower_bound, (0, 10, 0, 10), {"alpha": "x"}, TypeError, "alpha", "'x'"),
    (epsilon_lower_bound, (0, 10, 0, 10), {"delta": -0.1}, ValueError, "delta", "-0.1"),
    (epsilon_lower_bound, (0, 10, 0, 10), {"delta": 1.0}, ValueError, "delta", "1.0"),
    (mu_lower_bound, (-1, 10, 0, 10), {}, ValueError, "fp", "-1"),
    (mu_lower_bound, (11, 10, 0, 10), {}, ValueError, "fp", "11"),
    (mu_lower_bound, (0, 10, 2.5, 10), {}, TypeError, "fn", "2.5"),
    (mu_lower_bound, (0, 10, 0, 0), {}, ValueError, "n1", "0"),
    (mu_lower_bound, (0, 10, 0, 10), {"alpha": 0.0}, ValueError, "alpha", "0.0"),
    (mu_lower_bound, (0, 10, 0, 10), {"alpha": 1.0}, ValueError, "alpha", "1.0"),
    (mu_lower_bound, (0, 10, 0, 10), {"alpha": "x"}, TypeError, "alpha", "'x'"),
    (gdp_delta, (1.0, 0.0), {}, ValueError, "mu", "0.0"),
    (gdp_delta, (1.0, -1.0), {}, ValueError, "mu", "-1.0"),
    (gdp_delta, (1.0, [1.0, 0.0]), {}, ValueError, "mu", "0.0"),
    (gdp_delta, (1.0, "x"), {}, TypeError, "mu", "'x'"),
    (gdp_delta, (-0.5, 1.0), {}, ValueError, "epsilon", "-0.5"),
    (gdp_delta, (math.nan, 1.0), {}, ValueError, "epsilon", "nan"),
    (gdp_delta, (math.inf, 1.0), {}, ValueError, "epsilon", "inf"),
    (gdp_mu, (1.0, 0.0), {}, ValueError, "delta", "0.0"),
    (gdp_mu, (1.0, 1.0), {}, ValueError, "delta", "1.0"),
    (gdp_mu, (1.0, "x"), {}, TypeError, "delta", "'x'"),
    (gdp_mu, (-1.0, 0.1), {}, ValueError, "epsilon", "-1.0"),
    (ceiling, (0,), {}, ValueError, "n_per_world", "0"),
    (ceiling, (-5,), {}, ValueError, "n_per_world", "-5"),
    (ceiling, (2.5,), {}, TypeError, "n_per_world", "2.5"),
    (ceiling, (500,), {"alpha": 0}, ValueError, "alpha", "0"),
    (ceiling, (500,), {"alpha": 1}, ValueError, "alpha", "1"),
    (ceiling, (500,), {"alpha": "x"}, TypeError, "alpha", "'x'"),
    (one_run_epsilon_lower_bound, (0, 0, 0), {}, ValueError, "m", "0"),
    (one_run_epsilon_lower_bound, (10, 11, 5), {}, ValueError, "r", "11"),
    (one_run_epsilon_lower_bound, (10, 5, 6), {}, ValueError, "v", "6"),
    (one_run_epsilon_lower_bound, (10, -1, 0), {}, ValueError, "r", "-1"),
    (one_run_epsilon_lower_bound, (10, 5, -1), {}, ValueError, "v", "-1"),
    (one_run_epsilon_lower_bound, (10, 5, 2.5), {}, TypeError, "v", "2.5"),
    (one_run_epsilon_lower_bound, (10.0, 5, 2), {}, TypeError, "m", "10.0"),
    (one_run_epsilon_lower_bound, (10, 5, 2), {"delta": 1.5}, ValueError, "delta", "1.5"),
    (one_run_epsilon_lower_bound, (10, 5, 2), {"delta": -1e-5}, ValueError, "delta", "-1e-05"),
    (one_run_epsilon_lower_bound, (10, 5, 2), {"alpha": 0}, ValueError, "alpha", "0"),
    (one_run_epsilon_lower_bound, (10, 5, 2), {"alpha": 1}, ValueError, "alpha", "1"),
    (one_run_epsilon_lower_bound, (10, 5, 2), {"alpha": "x"}, TypeError, "alpha", "'x'"),
]


@pytest.mark.parametrize(
    "func, args, kwargs, exc, name, shows",
    BAD_INPUT,
    ids=[f"{case[0].__name__}-{case[4]}-{i}" for i, case in enumerate(BAD_INPUT)],
)
def test_bad_input_names_the_parameter_and_value(func, args, kwargs, exc, name, shows):
    with pytest.raises(exc) as err:
        func(*args, **kwargs)
    message = str(err.value)
    assert message.startswith(f"{name} "), message
    assert shows in message, message


def test_fits_to_reach_is_the_first_budget_whose_expected_game_reaches_the_target():
    """Oracle: a loop over every n whose counts fpr·n and fnr·n are whole numbers (n a multiple
    of 20 at rates 0.35 / 0.45), with the integer bounds of mu_lower_bound and
    epsilon_lower_bound; the answer lies within one step of the loop's first n."""
    from synthtrust.dp_audit.bounds import fits_to_reach

    for kind, target, bound in (
        ("mu", 0.15, lambda n: mu_lower_bound(7 * n // 20, n, 9 * n // 20, n)),
        ("epsilon", 0.1, lambda n: epsilon_lower_bound(7 * n // 20, n, 9 * n // 20, n)),
    ):
        first = next(n for n in range(20, 10**6, 20) if bound(n) >= target)
        n = fits_to_reach(0.35, 0.45, target, bound=kind)
        assert first - 20 < n <= first
    # the rates' own value caps every budget: Φ⁻¹(0.65) − Φ⁻¹(0.45) = 0.511
    assert fits_to_reach(0.35, 0.45, 0.50) < 10**7
    assert fits_to_reach(0.35, 0.45, 0.52) == np.inf
    assert fits_to_reach(0.5, 0.5, 0.01) == np.inf  # a coin flip never bounds
    with pytest.raises(ValueError, match="fpr"):
        fits_to_reach(1.5, 0.4, 0.1)
    with pytest.raises(ValueError, match="bound must be"):
        fits_to_reach(0.3, 0.4, 0.1, bound="rho")


def test_a_game_of_the_budget_fits_to_reach_gives_reaches_the_target_half_the_time():
    """Monte Carlo: 400 games of n fits a world at the rates; the target is the median bound."""
    from synthtrust.dp_audit.bounds import fits_to_reach

    n = int(fits_to_reach(0.42, 0.42, 0.12))
    rng = np.random.default_rng(5)
    fp, fn = rng.binomial(n, 0.42, 400), rng.binomial(n, 0.42, 400)
    bounds = np.array([mu_lower_bound(int(a), n, int(b), n) for a, b in zip(fp, fn, strict=True)])
    assert 0.4 < (bounds >= 0.12).mean() < 0.6
