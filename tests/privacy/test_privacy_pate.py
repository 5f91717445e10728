"""Tests of ``synthtrust.privacy.pate``.

Tests of synthtrust.synthesizers.pate (PATE-CTGAN) against oracles: the exact log-moments of the
binary noisy-vote mechanism (scipy Laplace), a brute-force loop over the Papernot et al. (2017)
bounds, scipy's Laplace survival function for the label distribution, brute-force ε over orders,
and refits on modified data for the disjointness of the teachers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from synthtrust.synthesizers.pate import (
    noisy_vote_labels,
    pate_epsilon,
    pate_moments,
    pate_noise_for_budget,
)


# ----------------------------------------------------------------------------------------------
# accountant
# ----------------------------------------------------------------------------------------------
def _flip_prob(v, k, lam):
    """P[label ≠ majority] for label = 1[v + Lap(1/λ) > k/2], by scipy."""
    return float(stats.laplace.cdf(-abs(v - k / 2), scale=1 / lam))


def _brute_moments(votes, k, lam, order):
    """Papernot et al. 2017 Thms 2–3 with ε_q = λ, evaluated query by query, order by order."""
    alpha = [0.0] * order
    for v in votes:
        q = _flip_prob(v, k, lam)
        for i in range(order):
            l = i + 1  # noqa: E741
            indep = lam**2 * l * (l + 1) / 2
            dep = math.inf
            if q < 1 / (math.exp(lam) + 1):
                dep = math.log(
                    (1 - q) * ((1 - q) / (1 - math.exp(lam) * q)) ** l + q * math.exp(lam * l)
                )
            alpha[i] += min(indep, dep)
    return np.array(alpha)


def _exact_moment(v, k, lam, l):  # noqa: E741
    """Exact log-moment of one query at vote count v, worst neighbour v ± 1 (one teacher changes)."""
    s = lambda u: stats.laplace.sf(k / 2 - u, scale=1 / lam)  # noqa: E731  P(label = 1 | u)
    out = -math.inf
    for u in (v - 1, v + 1):
        if 0 <= u <= k:
            p, pp = s(v), s(u)
            out = max(
                out, math.log(p ** (l + 1) * pp ** (-l) + (1 - p) ** (l + 1) * (1 - pp) ** (-l))
            )
    return out


@pytest.mark.parametrize(
    ("votes", "k", "lam"),
    [
        ([5, 5, 6, 4], 10, 0.5),
        ([10, 0, 9, 10], 10, 1.0),
        ([30, 29, 0, 15, 16], 30, 0.3),
        ([1], 1, 2.0),
    ],
)
def test_moments_match_brute_force_formula(votes, k, lam):
    order = 20
    np.testing.assert_allclose(
        pate_moments(votes, k, lam, order),
        _brute_moments(votes, k, lam, order),
        rtol=1e-10,
        atol=1e-14,
    )
    # data-independent mode: Q · λ² l(l+1)/2
    ls = np.arange(1, order + 1)
    np.testing.assert_allclose(
        pate_moments(votes, k, lam, order, data_dependent=False),
        len(votes) * lam**2 * ls * (ls + 1) / 2,
        rtol=1e-12,
    )


def test_which_bound_wins():
    k, lam, ls = 10, 1.0, np.arange(1, 6)
    indep = lam**2 * ls * (ls + 1) / 2
    # tie (gap 0): q = 1/2 ≥ 1/(e^λ + 1), only the data-independent bound applies
    np.testing.assert_allclose(pate_moments([5], k, lam, 5), indep, rtol=1e-12)
    # unanimous vote: q = e^{-5}/2; the data-dependent bound is smaller at l = 1..3 (by hand:
    # l = 1: log((1−q)²/(1−e q) + q e) = 0.0115446)
    q = 0.5 * math.exp(-5)
    by_hand = math.log((1 - q) ** 2 / (1 - math.e * q) + q * math.e)
    got = pate_moments([10], k, lam, 5)
    assert got[0] == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.0115446, abs=5e-8)
    assert np.all(got[:3] < indep[:3]) and got[0] < indep[0] / 40


@pytest.mark.parametrize("lam", [0.5, 1.0, 2.0])
def test_bound_is_above_the_exact_moment_and_the_reference_formula_is_not(lam):
    k = 10
    for v in range(k + 1):
        for l in (1, 2, 5, 10):  # noqa: E741
            assert pate_moments([v], k, lam, l)[-1] >= _exact_moment(v, k, lam, l) - 1e-12
    # smartnoise's accountant: q = (2+λg)/(4e^{λg}), g = |2v−k|, with 2λ in place of ε_q (its
    # missing log restored):
    # for a unanimous vote at λ = 2 it falls below the exact moment, i.e. it is not a valid bound
    g, lam2 = 10, 2.0
    q = (2 + lam2 * g) / (4 * math.exp(lam2 * g))
    ref = math.log((1 - q) * ((1 - q) / (1 - math.exp(2 * lam2) * q)) + q * math.exp(2 * lam2))
    assert ref < _exact_moment(10, 10, lam2, 1) / 50


def test_epsilon_brute_force_and_monotone_in_queries():
    alpha = pate_moments([10, 9, 10, 3, 7], 10, 0.7, 50)
    delta = 1e-5
    by_hand = min((alpha[i] + math.log(1 / delta)) / (i + 1) for i in range(50))
    assert pate_epsilon(alpha, delta) == pytest.approx(by_hand, rel=1e-12)
    votes = np.random.default_rng(0).integers(0, 11, 300)
    eps = [pate_epsilon(pate_moments(votes[:t], 10, 0.2, 100), delta) for t in range(0, 301, 25)]
    assert all(b > a for a, b in zip(eps[:-1], eps[1:], strict=True))


def test_noise_for_budget_brackets_the_target():
    lam = pate_noise_for_budget(1.0, 1e-6, 10000, 1000)
    ls = np.arange(1, 1001)

    def eps_of(x):
        return float(np.min((10000 * x * x * ls * (ls + 1) / 2 + math.log(1e6)) / ls))

    assert eps_of(lam) <= 1.0 < eps_of(lam * 1.000001)
    with pytest.raises(ValueError, match="moments_order = 5 is too small for epsilon = 1.0"):
        pate_noise_for_budget(1.0, 1e-6, 10, 5)


def test_noisy_vote_label_distribution():
    k, lam, n = 10, 0.3, 40000
    for v in (3, 5, 8):
        labels = noisy_vote_labels(np.full(n, v), k, lam, np.random.default_rng(v))
        p = float(stats.laplace.sf(k / 2 - v, scale=1 / lam))  # P(Lap(1/λ) > k/2 − v)
        assert abs(labels.mean() - p) < 4 * math.sqrt(p * (1 - p) / n)
