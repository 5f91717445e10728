"""The accountants' ε checked by independent computations (issue 47).

* Rényi DP of the subsampled Gaussian (:mod:`synthtrust.privacy.rdp`, one of K shards drawn
  without replacement, replace-one) converted to (ε, δ), against dp-accounting's privacy loss
  distribution (PLD) of the pair P = (1 − q)·N(0, 1) + q·N(1/σ, 1), Q = N(0, 1), q = 1/K. The
  pair is *realised* by the mechanism (the shard holding the target record answers one
  sensitivity, every other shard and the replaced record's shard answer 0), so the exact ε of
  the pair is a lower bound on the mechanism's true ε; dp-accounting's optimistic PLD is a lower
  bound on that, and every valid RDP conversion an upper bound on the true ε: RDP ≥ PLD
  optimistic, always. Without subsampling (K = 1) the exact ε of the Gaussian is known in
  closed form (Balle & Wang 2018, Theorem 8: δ(ε) = Φ(μ/2 − ε/μ) − e^ε·Φ(−μ/2 − ε/μ)), solved
  by scipy's ``brentq``: PLD optimistic ≤ exact ≤ PLD pessimistic ≤ RDP.
* The PATE moments accountant (:mod:`synthtrust.privacy.pate`) against a direct numpy
  transcription of Papernot et al. (2017), Theorems 2 and 3 of their appendix, written in the
  paper's notation (a (2γ, 0)-DP query, 2γ = λ), with the tail bound of Abadi et al. (2016),
  Theorem 2; the flip probability q from scipy's Laplace law. It is applied to the votes a
  PATE-GAN fit actually made (recorded by :func:`synthtrust.privacy.record_mechanisms`), and
  the automatic λ is checked against scipy's ``brentq`` on the data-independent ε(λ).
* The ρ-zCDP → (ε, δ) conversion (:mod:`synthtrust.privacy.accounting`) against a brute-force
  minimisation over α of the bound of Canonne, Kamath & Steinke (2020), Proposition 12 (a
  log-spaced grid of 20 001 orders, refined by scipy's bounded ``minimize_scalar``), and
  against the exact privacy profile of the Gaussian mechanism with the same ρ (a ρ-zCDP
  mechanism, so any valid conversion is at least its δ).

References: Balle & Wang (2018), "Improving the Gaussian mechanism for differential privacy",
ICML, Theorem 8; Papernot et al. (2017) [``papernot2017``]; Abadi et al. (2016)
[``abadi2016``]; Canonne, Kamath & Steinke (2020) [``canonne2020``]; Doroshenko et al. (2022)
[``doroshenko2022``] (dp-accounting's PLD).
"""

from __future__ import annotations

import logging
import math
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from synthtrust.privacy import (
    cdp_delta,
    cdp_epsilon,
    cdp_rho,
    pate_epsilon,
    pate_moments,
    pate_noise_for_budget,
    rdp_to_epsilon,
    record_mechanisms,
    sampled_gaussian_rdp,
)
from synthtrust.privacy.rdp import DEFAULT_ORDERS

#: dp-accounting's PLD grid (nats); the optimistic and pessimistic PLD bracket the exact ε
DISCRETIZATION = 1e-3


# ----------------------------------------------------------------------------------------------
# RDP of the subsampled Gaussian against dp-accounting's PLD
# ----------------------------------------------------------------------------------------------
def _pld_epsilon(sigma, q, compositions, delta, pessimistic):
    """ε of ``compositions`` releases of the pair ((1−q)N(0,1) + qN(1/σ,1), N(0,1)), both
    orders, by dp-accounting's PLD (optimistic: a lower bound; pessimistic: an upper bound)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # "connect the dots has no optimistic variant": expected
    try:
        one = pld.from_gaussian_mechanism(
            sigma,
            sensitivity=1.0,
            sampling_prob=q,
            pessimistic_estimate=pessimistic,
            use_connect_dots=pessimistic,
            value_discretization_interval=DISCRETIZATION,
        )
    finally:
        root.setLevel(level)
    return float(one.self_compose(compositions).get_epsilon_for_delta(delta))


def _gaussian_delta(epsilon, mu):
    """Exact δ(ε) of the Gaussian mechanism with sensitivity/σ = μ (Balle & Wang 2018, Thm 8)."""
    return stats.norm.cdf(mu / 2 - epsilon / mu) - math.exp(epsilon) * stats.norm.cdf(
        -mu / 2 - epsilon / mu
    )


def _gaussian_epsilon(mu, delta):
    """The exact ε at δ of the Gaussian mechanism with μ = sensitivity/σ (brentq)."""
    return optimize.brentq(lambda e: _gaussian_delta(e, mu) - delta, 0.0, 100.0 * (1 + mu**2))


def test_without_subsampling_the_rdp_curve_is_the_gaussian_one():
    """K = 1 (no subsampling): RDP(α) = α/(2σ²) exactly (Mironov 2017, Prop. 7)."""
    for sigma in (0.5, 1.07, 4.0):
        orders = np.asarray(DEFAULT_ORDERS)
        np.testing.assert_allclose(
            sampled_gaussian_rdp(1, 1, sigma), orders / (2 * sigma**2), rtol=1e-12
        )


@pytest.mark.parametrize(
    ("sigma", "compositions", "delta"), [(1.0, 1, 1e-5), (2.0, 10, 1e-5), (0.8, 3, 1e-8)]
)
def test_without_subsampling_pld_brackets_the_exact_epsilon_and_rdp_is_above(
    sigma, compositions, delta
):
    mu = math.sqrt(compositions) / sigma  # T Gaussian releases compose to a Gaussian of μ√T
    exact = _gaussian_epsilon(mu, delta)
    low = _pld_epsilon(sigma, 1.0, compositions, delta, pessimistic=False)
    high = _pld_epsilon(sigma, 1.0, compositions, delta, pessimistic=True)
    assert low <= exact + 1e-9 and exact <= high + 1e-9
    assert high - low <= 2 * DISCRETIZATION * compositions  # the grid's error, composed
    curve = sampled_gaussian_rdp(1, 1, sigma) * compositions
    for conversion in ("classic", "improved"):
        assert rdp_to_epsilon(curve, delta, conversion) >= exact


@pytest.mark.parametrize(
    ("n_shards", "sigma", "compositions", "delta"),
    [
        (50, 1.07, 1, 1e-5),  # one GS-WGAN iteration at K = 50
        (50, 1.07, 100, 1e-5),
        (10, 3.0, 50, 1e-6),
        (500, 0.9, 400, 1e-5),
        (2, 5.0, 30, 1e-5),
    ],
)
def test_subsampled_rdp_epsilon_is_at_least_the_pld_lower_bound(
    n_shards, sigma, compositions, delta
):
    """The RDP accountant's ε (either conversion) of ``compositions`` releases of the Gaussian
    with multiplier σ on one of K shards is at least the optimistic PLD ε of a pair the
    mechanism realises: an RDP ε below it would claim less than the mechanism's true ε."""
    curve = sampled_gaussian_rdp(n_shards, 1, sigma) * compositions
    lower = _pld_epsilon(sigma, 1.0 / n_shards, compositions, delta, pessimistic=False)
    upper = _pld_epsilon(sigma, 1.0 / n_shards, compositions, delta, pessimistic=True)
    assert 0 <= lower <= upper
    improved = rdp_to_epsilon(curve, delta, "improved")
    classic = rdp_to_epsilon(curve, delta, "classic")
    assert classic >= improved >= lower
    # the classic conversion is the improved one plus a non-negative slack at every order
    # (log(1/δ)/(α−1) ≥ log(1 − 1/α) − log(δα)/(α−1) ⇔ log(α) ≥ (α−1)·log(1 − 1/α)), so it
    # can only be larger; both stay finite
    assert math.isfinite(classic)


def test_the_pld_lower_bound_would_catch_an_accountant_that_under_reports():
    """A broken RDP accountant that forgot the subsampling's cost by dividing the curve by
    10 (or composed ten times fewer releases) falls below the PLD lower bound."""
    curve = sampled_gaussian_rdp(10, 1, 3.0) * 50
    lower = _pld_epsilon(3.0, 0.1, 50, 1e-6, pessimistic=False)
    assert (
        rdp_to_epsilon(curve / 10, 1e-6, "improved")
        < lower
        <= rdp_to_epsilon(curve, 1e-6, "improved")
    )


# ----------------------------------------------------------------------------------------------
# the PATE moments accountant against Papernot et al. (2017)
# ----------------------------------------------------------------------------------------------
def _papernot_moments(votes, n_teachers, lam, orders):
    """Σ over queries of min(Theorem 2, Theorem 3) of Papernot et al. (2017), in their notation:
    the query is (2γ, 0)-DP with 2γ = λ (replace-one changes one vote by one; the label is a
    threshold of v + Lap(1/λ)); Theorem 2: α(l) ≤ 2γ²·l·(l + 1); Theorem 3, for
    q < (e^{2γ} − 1)/(e^{4γ} − 1): α(l) ≤ log((1 − q)·((1 − q)/(1 − e^{2γ}q))^l + q·e^{2γl}),
    with q = P[label ≠ majority] from scipy's Laplace distribution."""
    gamma = lam / 2
    ls = np.arange(1, orders + 1, dtype=float)
    total = np.zeros(orders)
    for v in np.asarray(votes, dtype=float):
        bound = 2 * gamma**2 * ls * (ls + 1)
        q = stats.laplace.sf(abs(v - n_teachers / 2), scale=1 / lam)
        if q < (math.exp(2 * gamma) - 1) / (math.exp(4 * gamma) - 1):
            dependent = np.log(
                (1 - q) * ((1 - q) / (1 - math.exp(2 * gamma) * q)) ** ls
                + q * np.exp(2 * gamma * ls)
            )
            bound = np.minimum(bound, dependent)
        total += bound
    return total


def _abadi_epsilon(alpha, delta):
    """Abadi et al. (2016), Theorem 2: δ = min_l exp(α(l) − l·ε), so ε = min_l (α(l) + ln(1/δ))/l."""
    ls = np.arange(1, len(alpha) + 1)
    return float(min((a + math.log(1 / delta)) / order for a, order in zip(alpha, ls, strict=True)))


@pytest.mark.parametrize(
    ("n_queries", "lam", "delta", "orders"),
    [(1, 0.1, 1e-5, 50), (640, 0.02, 1e-5, 200), (10_000, 1e-3, 1e-6, 1000)],
)
def test_data_independent_moments_and_epsilon_match_the_paper(n_queries, lam, delta, orders):
    votes = np.zeros(n_queries, dtype=int)  # the data-independent bound ignores the votes
    alpha = pate_moments(votes, 4, lam, orders, data_dependent=False)
    ls = np.arange(1, orders + 1)
    expected = n_queries * 2 * (lam / 2) ** 2 * ls * (ls + 1)  # Theorem 2, composed
    np.testing.assert_allclose(alpha, expected, rtol=1e-12)
    assert pate_epsilon(alpha, delta) == pytest.approx(_abadi_epsilon(expected, delta), rel=1e-12)


def _independent_epsilon(lam, n_queries, delta, orders):
    """The data-independent ε(λ) = min_l (Qλ²l(l+1)/2 + ln(1/δ))/l (Theorem 2 + Abadi's tail)."""
    ls = np.arange(1, orders + 1)
    return float(np.min((n_queries * lam**2 * ls * (ls + 1) / 2 + math.log(1 / delta)) / ls))


@pytest.mark.parametrize(
    ("epsilon", "delta", "n_queries", "orders"), [(1.0, 1e-5, 3000, 1000), (10.0, 1e-6, 640, 100)]
)
def test_the_automatic_noise_affords_exactly_the_budget(epsilon, delta, n_queries, orders):
    """``pate_noise_for_budget``'s λ against scipy's ``brentq`` on the data-independent ε(λ)
    (continuous and increasing in λ)."""
    root = optimize.brentq(
        lambda lam: _independent_epsilon(lam, n_queries, delta, orders) - epsilon,
        1e-9,
        10.0,
        xtol=1e-15,
    )
    lam = pate_noise_for_budget(epsilon, delta, n_queries, orders)
    assert lam == pytest.approx(root, rel=1e-8)
    assert _independent_epsilon(lam, n_queries, delta, orders) <= epsilon


def test_a_pate_fit_is_accounted_as_the_paper_says():
    """The votes a PATE-GAN fit made (recorded), run through the paper's formulas, give the
    fit's log-moments ``alpha_``, its ε ``pate_epsilon_`` and its ledger entry."""
    pytest.importorskip("torch")
    import pandas as pd

    from synthtrust.synthesizers import PATEGAN

    rng = np.random.default_rng(0)
    data = pd.DataFrame({"a": rng.integers(0, 3, 60), "b": rng.integers(0, 2, 60)})
    for accountant in ("data_dependent", "data_independent"):
        gan = PATEGAN(
            30.0,
            domain={"a": 3, "b": 2},
            noise_multiplier=0.7,
            accountant=accountant,
            moments_order=60,
            sample_per_teacher=10,
            max_iter=4,
            batch_size=8,
            student_iters=2,
            embedding_dim=8,
            generator_dim=(8,),
            discriminator_dim=(8,),
            discriminator_lr=0.2,
            random_state=2,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with record_mechanisms() as calls:
                gan.fit(data)
        votes = np.concatenate([c.value for c in calls if c.mechanism == "noisy_vote_labels"])
        assert votes.size == gan.iterations_ * 2 * 8 > 0
        if accountant == "data_dependent":
            alpha = _papernot_moments(votes, gan.n_teachers_, 0.7, 60)
        else:
            ls = np.arange(1, 61)
            alpha = votes.size * 2 * 0.35**2 * ls * (ls + 1)
        np.testing.assert_allclose(gan.alpha_, alpha, rtol=1e-9)
        eps = _abadi_epsilon(alpha, gan.delta_)
        assert gan.pate_epsilon_ == pytest.approx(eps, rel=1e-9)
        (entry,) = gan.ledger_
        assert entry.epsilon == pytest.approx(eps, rel=1e-9) and entry.draws == gan.iterations_
    # the votes were not all unanimous: Theorem 3 was exercised on some queries and not others
    assert len(np.unique(np.abs(votes - gan.n_teachers_ / 2))) > 1


# ----------------------------------------------------------------------------------------------
# ρ-zCDP → (ε, δ) against a brute-force minimisation over the order
# ----------------------------------------------------------------------------------------------
def _cks_log_delta(alpha, rho, epsilon):
    """log of the Canonne–Kamath–Steinke (2020, Prop. 12) bound at order α."""
    return (
        (alpha - 1) * (alpha * rho - epsilon) + alpha * np.log1p(-1.0 / alpha) - np.log(alpha - 1)
    )


def _brute_log_delta(rho, epsilon):
    """log of the min over α ∈ [1.01, 1e6] of the CKS bound (capped at log 1 = 0): a log-spaced
    grid, then a bounded scipy minimisation around the best grid point (the reference's
    α ≥ 1.01 is kept)."""
    grid = 1.0 + np.geomspace(0.01, 1e6, 20_001)
    values = _cks_log_delta(grid, rho, epsilon)
    i = int(np.argmin(values))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
    best = optimize.minimize_scalar(
        lambda a: _cks_log_delta(a, rho, epsilon),
        bounds=(lo, hi),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return min(0.0, float(best.fun), float(values[i]))


CDP_CASES = [(0.01497, 1.0), (0.03, 0.5), (0.1206, 3.0), (1.0908, 10.0), (2.0, 1.0), (5e-4, 0.2)]


@pytest.mark.parametrize(("rho", "epsilon"), CDP_CASES)
def test_cdp_delta_is_the_minimum_over_orders(rho, epsilon):
    assert cdp_delta(rho, epsilon) == pytest.approx(
        math.exp(_brute_log_delta(rho, epsilon)), rel=1e-7
    )


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 1e-9), (1.0, 1e-5), (3.0, 1e-9), (0.1, 1e-6)])
def test_cdp_rho_and_epsilon_invert_the_brute_force_delta(epsilon, delta):
    def log_gap(rho):
        return _brute_log_delta(rho, epsilon) - math.log(delta)

    rho = optimize.brentq(log_gap, 1e-8, epsilon + 1, xtol=1e-14, rtol=1e-12)
    assert cdp_rho(epsilon, delta) == pytest.approx(rho, rel=1e-6)
    eps_back = optimize.brentq(
        lambda e: _brute_log_delta(rho, e) - math.log(delta), 1e-9, 50.0, xtol=1e-13
    )
    assert cdp_epsilon(rho, delta) == pytest.approx(eps_back, rel=1e-6)


@pytest.mark.parametrize(("rho", "epsilon"), CDP_CASES)
def test_cdp_delta_is_at_least_the_gaussian_mechanisms_delta(rho, epsilon):
    """The Gaussian mechanism with μ = √(2ρ) is ρ-zCDP (Bun & Steinke 2016, Prop. 1.6): a valid
    conversion gives at least its exact δ(ε); the CKS bound is within a factor of it."""
    exact = _gaussian_delta(epsilon, math.sqrt(2 * rho))
    bound = cdp_delta(rho, epsilon)
    assert bound >= exact
    if exact > 1e-300:
        assert bound <= 10 * exact + 1e-12  # CKS is near-tight for the Gaussian
