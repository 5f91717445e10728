"""Tests of ``synthtrust.hypothesis.dp_mannwhitney``.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import math

import numpy as np
import pytest
from _hypothesis_data import _band, _close
from scipy import stats

from synthtrust import hypothesis as H


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
