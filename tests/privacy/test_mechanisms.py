"""Tests of ``synthtrust.privacy.mechanisms``.

The oracles and the shared set-up are described in ``test_accounting.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from synthtrust.privacy import (
    PrivacyLedger,
    cdp_rho,
    discrete_laplace,
    discrete_laplace_pmf,
    exponential_mechanism,
    exponential_mechanism_probabilities,
    gaussian,
    laplace,
)

N_DRAWS = 40_000


# ----------------------------------------------------------------------------------------------
# Laplace
# ----------------------------------------------------------------------------------------------
def test_laplace_noise_follows_laplace_law():
    b = 2.5
    noise = laplace(np.zeros(N_DRAWS), b, random_state=1)
    assert noise.shape == (N_DRAWS,) and noise.dtype == np.float64
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > 0.01
    # variance 2b² (relative standard error of a variance estimate ≈ sqrt(5/N) for Laplace)
    assert noise.var() == pytest.approx(2 * b**2, rel=0.05)


def test_laplace_calibration_from_sensitivity_and_epsilon_and_ledger():
    led = PrivacyLedger()
    values = np.arange(12.0).reshape(3, 4)
    out = laplace(values, sensitivity=2.0, epsilon=0.5, random_state=3, ledger=led, note="x")
    assert out.shape == (3, 4)
    # same draws as numpy's Laplace with scale Δ/ε = 4 from the same seed
    expected = values + np.random.default_rng(3).laplace(0.0, 4.0, size=(3, 4))
    np.testing.assert_allclose(out, expected)
    (entry,) = led.entries
    assert (entry.mechanism, entry.epsilon, entry.delta, entry.scale, entry.sensitivity) == (
        "laplace",
        0.5,
        0.0,
        4.0,
        2.0,
    )
    assert entry.rho == pytest.approx(0.5**2 / 2)
    assert entry.note == "x"


def test_laplace_scalar_in_scalar_out_and_determinism():
    a = laplace(3.0, 1.0, random_state=7)
    b = laplace(3.0, 1.0, random_state=7)
    assert np.ndim(a) == 0 and a == b
    assert laplace(3.0, 1.0, random_state=8) != a


@pytest.mark.parametrize(
    "kwargs, err",
    [
        ({"scale": 0.0}, ValueError),
        ({"scale": -1.0}, ValueError),
        ({"sensitivity": 1.0}, ValueError),  # epsilon missing
        ({"sensitivity": 1.0, "epsilon": 0.0}, ValueError),
        ({"sensitivity": 1.0, "epsilon": float("nan")}, ValueError),
        ({"scale": 1.0, "epsilon": 1.0}, ValueError),  # both calibrations
        ({"scale": "1"}, TypeError),
    ],
)
def test_laplace_rejects_bad_calibration(kwargs, err):
    with pytest.raises(err):
        laplace(np.zeros(3), **kwargs)


def test_laplace_rejects_nan_values_and_ledger_without_epsilon():
    with pytest.raises(ValueError, match="NaN"):
        laplace([1.0, np.nan], 1.0)
    with pytest.raises(ValueError, match="ledger"):
        laplace([1.0], 1.0, ledger=PrivacyLedger())
    with pytest.raises(TypeError, match="ledger"):
        laplace([1.0], 1.0, ledger=[])


# ----------------------------------------------------------------------------------------------
# discrete Laplace
# ----------------------------------------------------------------------------------------------
def test_discrete_laplace_pmf_is_normalised():
    for t in (0.3, 2.0, 200.0):
        k = np.arange(-20_000, 20_001)
        assert discrete_laplace_pmf(k, t).sum() == pytest.approx(1.0, abs=1e-12)
    # exact value at 0: (1-q)/(1+q), q = e^{-1/t}
    q = math.exp(-1 / 2.0)
    assert discrete_laplace_pmf(0, 2.0) == pytest.approx((1 - q) / (1 + q))


@pytest.mark.parametrize("t", [0.7, 2.0, 20.0])
def test_discrete_laplace_matches_exact_pmf(t):
    noise = discrete_laplace(np.zeros(N_DRAWS, dtype=int), t, random_state=11)
    assert noise.dtype == np.int64
    kmax = int(np.ceil(4 * t)) + 1
    edges = np.arange(-kmax, kmax + 1)
    observed = np.array(
        [np.sum(noise < -kmax + 1)]
        + [np.sum(noise == k) for k in edges[1:-1]]
        + [np.sum(noise > kmax - 1)]
    )
    p_mid = discrete_laplace_pmf(edges[1:-1], t)
    tail = (1 - p_mid.sum()) / 2
    expected = N_DRAWS * np.concatenate([[tail], p_mid, [tail]])
    assert observed.sum() == N_DRAWS
    assert stats.chisquare(observed, expected).pvalue > 0.001
    q = math.exp(-1 / t)
    assert noise.var() == pytest.approx(2 * q / (1 - q) ** 2, rel=0.06)


def test_discrete_laplace_paper_calibration_and_ledger():
    led = PrivacyLedger()
    counts = np.array([[5, 0, 7], [1, 2, 3]])
    out = discrete_laplace(counts, sensitivity=2.0, epsilon=1.0, random_state=0, ledger=led)
    assert out.shape == counts.shape and out.dtype == np.int64
    # difference of two geometrics with p = 1 - e^{-ε/2}
    rng = np.random.default_rng(0)
    p = 1 - math.exp(-0.5)
    g1, g2 = rng.geometric(p, size=counts.shape), rng.geometric(p, size=counts.shape)
    np.testing.assert_array_equal(out, counts + g1 - g2)
    (entry,) = led.entries
    assert entry.mechanism == "discrete_laplace" and entry.epsilon == 1.0 and entry.scale == 2.0


def test_discrete_laplace_tiny_scale_is_exact_and_rejects_fractions():
    np.testing.assert_array_equal(
        discrete_laplace(np.arange(5), 1e-3, random_state=0), np.arange(5)
    )
    assert isinstance(discrete_laplace(4, 1.0, random_state=0), (int, np.integer))
    with pytest.raises(ValueError, match="integer"):
        discrete_laplace([1.5, 2.0], 1.0)


# ----------------------------------------------------------------------------------------------
# Gaussian
# ----------------------------------------------------------------------------------------------
def test_gaussian_rho_calibration_matches_normal_law():
    led = PrivacyLedger()
    noise = gaussian(np.zeros(N_DRAWS), sensitivity=1.0, rho=0.125, random_state=5, ledger=led)
    sigma = 1.0 / math.sqrt(2 * 0.125)  # = 2
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > 0.01
    (entry,) = led.entries
    assert entry.rho == pytest.approx(0.125) and entry.scale == pytest.approx(2.0)
    assert entry.epsilon is None and math.isnan(led.total_epsilon)


def test_gaussian_epsilon_delta_calibration_uses_cdp_rho():
    led = PrivacyLedger()
    out = gaussian(
        np.zeros(4), sensitivity=math.sqrt(2), epsilon=1.0, delta=1e-9, random_state=2, ledger=led
    )
    rho = cdp_rho(1.0, 1e-9)
    sigma = math.sqrt(2) / math.sqrt(2 * rho)
    np.testing.assert_allclose(out, np.random.default_rng(2).normal(0, sigma, 4))
    (entry,) = led.entries
    assert (entry.epsilon, entry.delta) == (1.0, 1e-9) and entry.rho == pytest.approx(rho)
    with pytest.raises(ValueError):
        gaussian(0.0, sensitivity=1.0, epsilon=1.0)  # delta missing
    with pytest.raises(ValueError):
        gaussian(0.0, sensitivity=1.0, epsilon=1.0, delta=1.0)
    with pytest.raises(ValueError):
        gaussian(0.0, sigma=1.0, rho=0.5)


# ----------------------------------------------------------------------------------------------
# exponential mechanism
# ----------------------------------------------------------------------------------------------
def test_exponential_mechanism_frequencies_match_exact_probabilities():
    scores = np.array([0.0, 1.0, 2.0, 5.0, -np.inf])
    eps, sens = 1.0, 2.0
    p = np.exp(eps * scores / (2 * sens))
    p /= p.sum()
    np.testing.assert_allclose(
        exponential_mechanism_probabilities(scores, eps, sens), p, rtol=1e-14
    )
    picks = exponential_mechanism(np.broadcast_to(scores, (N_DRAWS, 5)), eps, sens, random_state=4)
    assert picks.shape == (N_DRAWS,)
    counts = np.bincount(picks, minlength=5)
    assert counts[4] == 0  # excluded candidate never chosen
    assert stats.chisquare(counts[:4], N_DRAWS * p[:4]).pvalue > 0.001


def test_exponential_mechanism_is_stable_for_huge_scores():
    scores = np.array([1e6, 1e6 - 1.0, 0.0])
    p = exponential_mechanism_probabilities(scores, 2.0, 1.0)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(
        p, [1 / (1 + math.e**-1), math.e**-1 / (1 + math.e**-1), 0.0], atol=1e-15
    )
    assert exponential_mechanism(scores, 1000.0, 1.0, random_state=0) == 0
    assert isinstance(exponential_mechanism(scores, 1.0, random_state=0), int)


def test_exponential_mechanism_ledger_and_errors():
    led = PrivacyLedger()
    exponential_mechanism(np.zeros((3, 4)), 0.2, 1.0, random_state=0, ledger=led)
    (entry,) = led.entries
    assert entry.epsilon == pytest.approx(0.6) and entry.rho == pytest.approx(3 * 0.2**2 / 8)
    with pytest.raises(ValueError, match="NaN"):
        exponential_mechanism([0.0, np.nan], 1.0)
    with pytest.raises(ValueError, match="-inf"):
        exponential_mechanism([-np.inf, -np.inf], 1.0)
    with pytest.raises(ValueError):
        exponential_mechanism([], 1.0)
    with pytest.raises(ValueError):
        exponential_mechanism([1.0, 2.0], 0.0)


def test_exponential_mechanism_counts_is_a_multinomial_with_its_ledger_entry():
    from synthtrust.privacy import exponential_mechanism_counts

    p = np.array([0.5, 0.3, 0.2])
    led = PrivacyLedger()
    got = exponential_mechanism_counts(p, 40, epsilon=2.0, random_state=9, ledger=led, note="x")
    np.testing.assert_array_equal(got, np.random.default_rng(9).multinomial(40, p))
    (entry,) = list(led)
    assert entry.mechanism == "exponential_counts" and entry.epsilon == 2.0
    assert entry.rho == pytest.approx(2.0**2 / (8 * 40)) and entry.note == "x"
    # 40 000 draws follow p (chi-square against the expected counts)
    big = exponential_mechanism_counts(p, 40_000, epsilon=1.0, random_state=1)
    assert stats.chisquare(big, 40_000 * p).pvalue > 1e-3
    for bad in ([0.5, 0.6], [-0.1, 1.1], [[0.5, 0.5]]):
        with pytest.raises(ValueError, match="probabilities must be"):
            exponential_mechanism_counts(bad, 3, epsilon=1.0)
    with pytest.raises(ValueError, match="size must be an integer >= 1"):
        exponential_mechanism_counts(p, 0, epsilon=1.0)
