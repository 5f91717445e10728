"""Tests of ``synthtrust.hypothesis.null_u``.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import math

import numpy as np
import pytest
from scipy import stats

from synthtrust import hypothesis as H
from synthtrust.hypothesis import null_u

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


def test_normal_null_draws_match_exact_draws():
    rng = np.random.default_rng(5)
    n = np.full(100_000, 6000)
    m = np.full(100_000, 2500)
    exact = null_u.sample_null_u(n, m, rng)
    normal = null_u.sample_null_u_normal(n, m, rng)
    mean, var = 2500 * 3500 / 2, 2500 * 3500 * 6001 / 12
    assert abs(normal.mean() - mean) < 5 * np.sqrt(var / len(n))
    assert abs(normal.var() / var - 1) < 0.02
    assert stats.ks_2samp(exact, normal).pvalue > 1e-3
