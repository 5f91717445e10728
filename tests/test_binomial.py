"""Tests of ``synthtrust.binomial``: the Clopper–Pearson limits against SciPy's exact binomial
interval (root-finding), the beta quantiles for fractional counts, the edges and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from synthtrust.binomial import clopper_pearson

CASES = [(0, 1), (0, 20), (1, 20), (7, 50), (19, 20), (20, 20), (3, 10), (500, 1000), (1, 200)]


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.975])
def test_limits_are_scipys_exact_interval(alternative, confidence):
    k, n = np.array(CASES).T
    low, high = clopper_pearson(k, n, confidence, alternative)
    for i, (ki, ni) in enumerate(CASES):
        ci = stats.binomtest(int(ki), int(ni), alternative=alternative).proportion_ci(
            confidence, "exact"
        )
        assert low[i] == pytest.approx(ci.low, abs=1e-11)
        assert high[i] == pytest.approx(ci.high, abs=1e-11)


def test_limits_are_the_beta_quantiles_also_for_fractional_counts():
    low, high = clopper_pearson(2.5, 10.0)
    tail = (1 - 0.95) / 2
    assert float(low) == stats.beta.ppf(tail, 2.5, 8.5)
    assert float(high) == stats.beta.ppf(1 - tail, 3.5, 7.5)
    # one-sided: the upper limit at alpha = 5 %, 1 − 0.05 ** (1 / n) at k = 0
    assert float(clopper_pearson(0, 100, 0.95, "less")[1]) == pytest.approx(1 - 0.05 ** (1 / 100))


def test_edges_and_broadcasting():
    low, high = clopper_pearson([0, 5, 10], 10)
    assert low[0] == 0.0 and high[2] == 1.0 and low.shape == (3,)
    low, high = clopper_pearson(np.zeros((2, 3)), [1, 2, 3])
    assert low.shape == high.shape == (2, 3)
    low, high = clopper_pearson(0, 0)
    assert np.isnan(low) and np.isnan(high)
    assert clopper_pearson(4, 10, alternative="less")[0] == 0.0
    assert clopper_pearson(4, 10, alternative="greater")[1] == 1.0


def test_coverage_is_at_least_nominal():
    # exact coverage of the two-sided 95 % interval for n = 30 over a grid of true p
    n, k = 30, np.arange(31)
    low, high = clopper_pearson(k, n)
    for p in np.linspace(0.01, 0.99, 25):
        covered = (low <= p) & (p <= high)
        assert stats.binom.pmf(k, n, p)[covered].sum() >= 0.95 - 1e-12


@pytest.mark.parametrize(
    "args, match",
    [
        ((11, 10), r"k must be a count in \[0, n\].*k=11.0, n=10.0"),
        ((-1, 10), r"k=-1.0"),
        ((1, -2), r"n=-2.0"),
        ((np.nan, 10), r"k=nan"),
        ((1, 10, 1.5), r"confidence must be in the open interval \(0, 1\), got 1.5"),
        ((1, 10, 0.95, "both"), r"alternative must be one of .*'two-sided'.*got 'both'"),
    ],
)
def test_bad_input_names_the_parameter(args, match):
    with pytest.raises(ValueError, match=match):
        clopper_pearson(*args)
