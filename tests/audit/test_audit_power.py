"""Tests of ``synthtrust.audit.power``.

The audit's power: LeakMixture samples the mixture (1 − leak)·honest + leak·dishonest (a
chi-square goodness-of-fit against the two fitted IPF tables), rejection rates against the
Clopper–Pearson formula, power rising with the leak, and the study's grid and curve.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.audit import GeneratorCard, LeakMixture, audit, complement_basis, rejection_rate
from synthtrust.synthesizers import IPF

COLUMNS = {"a": 3, "b": 3, "c": 2}
CARD = GeneratorCard.two_way(COLUMNS)
PAIRS = [list(m) for m in CARD.marginals]
HONEST = IPF(PAIRS, domain=COLUMNS)
DISHONEST = IPF.dishonest(PAIRS, ("a", "b", "c"), domain=COLUMNS)


def _data(seed=0, n=600):
    rng = np.random.default_rng(seed)
    a = rng.integers(3, size=n)
    b = (a + rng.integers(2, size=n)) % 3
    c = ((a + b) % 2) ^ (rng.random(n) < 0.1)  # a 3-way interaction the pairs cannot carry
    return pd.DataFrame({"a": a, "b": b, "c": c.astype(int)})


@pytest.mark.parametrize("leak", [0.0, 0.3, 1.0])
def test_samples_follow_the_mixture_of_the_two_fitted_tables(leak):
    gen = LeakMixture(HONEST, DISHONEST, leak, random_state=3).fit(_data())
    h, d = gen.honest_.table_, gen.dishonest_.table_
    assert not np.allclose(h, d, atol=1.0)  # the two fits differ on the 3-way interaction
    expected = ((1 - leak) * h + leak * d).ravel() / h.sum()
    s = gen.sample(200_000)
    assert list(s.columns) == ["a", "b", "c"] and len(s) == 200_000
    observed = np.bincount(np.ravel_multi_index((s.a, s.b, s.c), (3, 3, 2)), minlength=18)
    keep = expected > 0
    p = stats.chisquare(observed[keep], expected[keep] * 200_000).pvalue
    assert p > 1e-3
    # a wrong mixture weight is rejected by the same test
    wrong = ((1 - abs(leak - 0.5)) * h + abs(leak - 0.5) * d).ravel() / h.sum()
    assert stats.chisquare(observed[keep], wrong[keep] / wrong[keep].sum() * 200_000).pvalue < 1e-6


def test_mixture_is_reproducible_and_shuffled():
    one = LeakMixture(HONEST, DISHONEST, 0.5, random_state=7).fit(_data()).sample(1000)
    two = LeakMixture(HONEST, DISHONEST, 0.5, random_state=7).fit(_data()).sample(1000)
    pd.testing.assert_frame_equal(one, two)
    other = LeakMixture(HONEST, DISHONEST, 0.5, random_state=8).fit(_data()).sample(1000)
    assert not one.equals(other)


def test_mixture_bad_input():
    with pytest.raises(ValueError, match="leak must be in \\[0.0, 1.0\\], got 1.5"):
        LeakMixture(HONEST, DISHONEST, 1.5)
    with pytest.raises(TypeError, match="honest must be an unfitted estimator"):
        LeakMixture(object(), DISHONEST, 0.1)
    with pytest.raises(AttributeError, match="LeakMixture is not fitted yet"):
        LeakMixture(HONEST, DISHONEST, 0.1).sample(3)
    with pytest.raises(ValueError, match="n must be >= 1, got 0"):
        LeakMixture(HONEST, DISHONEST, 0.1).fit(_data()).sample(0)
    with pytest.raises(TypeError, match="n must be an integer, got float 2.5"):
        LeakMixture(HONEST, DISHONEST, 0.1).fit(_data()).sample(2.5)


def test_rejection_rate_against_clopper_pearson():
    verdicts = [True] * 3 + [False] * 17
    rate, low, high = rejection_rate(verdicts)
    assert rate == 0.15
    assert low == pytest.approx(stats.beta.ppf(0.025, 3, 18), rel=1e-9)
    assert high == pytest.approx(stats.beta.ppf(0.975, 4, 17), rel=1e-9)
    assert rejection_rate([False] * 20)[1:] == (0.0, pytest.approx(1 - 0.025 ** (1 / 20)))
    with pytest.raises(ValueError, match="rejected is empty"):
        rejection_rate([])


def test_the_audit_detects_a_five_percent_leak_and_not_a_zero_one():
    basis = complement_basis(CARD, "next")
    kw = {"basis": basis, "copies": 200, "k_select": 10, "k_audit": 10, "n_jobs": 1}
    zero = audit(LeakMixture(HONEST, DISHONEST, 0.0), CARD, random_state=2, **kw)
    five = audit(LeakMixture(HONEST, DISHONEST, 0.05), CARD, random_state=2, **kw)
    assert not zero.rejected and five.rejected
    assert five.statistic > 0 and five.leak.index[0] == ("a", "b", "c")
