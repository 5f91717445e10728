"""Tests of ``synthtrust.synthesizers.histogram``.

The oracles and the shared set-up are described in ``_synthesizer_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _synthesizer_data import DOMAIN, SHAPE, _count_matrix, _gens, _largest_remainder_brute, _table
from scipy import stats

from synthtrust.privacy import PrivacyLedger, exponential_mechanism_probabilities
from synthtrust.synthesizers import (
    PerturbedHistogram,
    SmoothedHistogram,
    counts_to_frame,
    frame_to_counts,
    perturbed_histogram,
    smoothed_histogram,
    smoothed_histogram_probabilities,
)


def test_inferring_the_domain_warns():
    with pytest.warns(UserWarning, match="NOT differentially private"):
        synth = PerturbedHistogram(epsilon=1.0, random_state=0).fit(_table(40))
    assert synth.domain_ == {"group": 2, "value": int(_table(40)["value"].max()) + 1}


# ----------------------------------------------------------------------------------------------
# perturbed histogram
# ----------------------------------------------------------------------------------------------
def test_perturbed_histogram_equals_per_replicate_loop():
    counts = _count_matrix(25, 300)
    eps = 0.7
    out = perturbed_histogram(counts, eps, random_state=_gens(25))
    assert out.shape == counts.shape and out.dtype == np.int64
    np.testing.assert_array_equal(out.sum(axis=1), counts.sum(axis=1))
    for i, rng in enumerate(_gens(25)):
        p = 1 - math.exp(-eps / 2)
        g1, g2 = rng.geometric(p, 20), rng.geometric(p, 20)
        noisy = np.maximum(counts[i] + g1 - g2, 0)
        u = rng.random(20)
        np.testing.assert_array_equal(out[i], _largest_remainder_brute(noisy, counts[i].sum(), u))


def test_perturbed_histogram_chunking_class_and_n_synthetic():
    counts = _count_matrix(6, 200)
    whole = perturbed_histogram(counts, 1.0, random_state=_gens(6))
    parts = np.vstack(
        [
            perturbed_histogram(counts[:4], 1.0, random_state=_gens(6)[:4]),
            perturbed_histogram(counts[4:], 1.0, random_state=_gens(6)[4:]),
        ]
    )
    np.testing.assert_array_equal(whole, parts)
    # the estimator gives the same counts as the functional form for the same generator
    for i in (0, 5):
        df = counts_to_frame(counts[i], SHAPE, ["group", "value"], random_state=0)
        synth = PerturbedHistogram(1.0, domain=DOMAIN, random_state=_gens(6)[i]).fit(df)
        np.testing.assert_array_equal(synth.sample_counts().ravel(), whole[i])
        assert synth.ledger_.total_epsilon == 1.0
        (entry,) = synth.ledger_.entries
        assert (entry.mechanism, entry.sensitivity, entry.scale) == ("discrete_laplace", 2.0, 2.0)
    out = perturbed_histogram(counts, 1.0, n_synthetic=77, random_state=0)
    np.testing.assert_array_equal(out.sum(axis=1), [77] * 6)
    multi = perturbed_histogram(counts, 1.0, rounding="multinomial", random_state=0)
    np.testing.assert_array_equal(multi.sum(axis=1), counts.sum(axis=1))
    # large ε: the noise is (almost surely) zero, the synthetic histogram is the real one
    np.testing.assert_array_equal(perturbed_histogram(counts, 200.0, random_state=0), counts)


def test_perturbed_histogram_estimator_sample_and_determinism():
    df = _table(400)
    a = PerturbedHistogram(0.5, domain=DOMAIN, random_state=3).fit(df)
    b = PerturbedHistogram(0.5, domain=DOMAIN, random_state=3).fit(df)
    sa, sb = a.sample(), b.sample()
    pd.testing.assert_frame_equal(sa, sb)
    assert len(sa) == 400 and list(sa.columns) == ["group", "value"]
    assert np.all(a.noisy_counts_ >= 0) and a.noisy_counts_.shape == SHAPE
    assert len(a.sample(1000)) == 1000
    c = PerturbedHistogram(0.5, domain=DOMAIN, random_state=4).fit(df)
    assert not np.array_equal(c.noisy_counts_, a.noisy_counts_)


# ----------------------------------------------------------------------------------------------
# smoothed histogram
# ----------------------------------------------------------------------------------------------
def test_smoothed_probabilities_equal_formula_and_exponential_mechanism():
    counts = _count_matrix(4, 20_000)
    for eps, m in [(0.01, 50), (1.0, 100), (10.0, 1000)]:
        p = smoothed_histogram_probabilities(counts, eps, m)
        alpha = 2 * m / eps
        formula = (counts + alpha) / (counts + alpha).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(p, formula, rtol=0, atol=1e-12)
        # Algorithm 1: exponential mechanism with score α ln(c + α), sensitivity 1, budget ε/m
        em = exponential_mechanism_probabilities(alpha * np.log(counts + alpha), eps / m, 1.0)
        np.testing.assert_allclose(p, em, rtol=0, atol=1e-12)


def test_smoothed_histogram_draws_follow_the_probabilities():
    counts = _count_matrix(1, 20_000)[0]
    reps, m, eps = 3000, 100, 5.0
    out = smoothed_histogram(np.tile(counts, (reps, 1)), eps, m, random_state=_gens(reps))
    np.testing.assert_array_equal(out.sum(axis=1), [m] * reps)
    p = smoothed_histogram_probabilities(counts, eps, m)
    assert stats.chisquare(out.sum(axis=0), reps * m * p).pvalue > 0.001
    led = PrivacyLedger()
    smoothed_histogram(counts, eps, m, random_state=0, ledger=led)
    assert led.total_epsilon == eps and led.entries[0].mechanism == "exponential_counts"
    assert led.total_rho == pytest.approx(eps**2 / (8 * m))


def test_smoothed_histogram_estimator_releases_exactly_m_records():
    df = _table(2000)
    synth = SmoothedHistogram(1.0, n_synthetic=50, domain=DOMAIN, random_state=7).fit(df)
    _, _, counts = frame_to_counts(df, DOMAIN)
    expect = smoothed_histogram(counts, 1.0, 50, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(synth.synthetic_counts_.ravel(), expect)
    full = synth.sample()
    assert len(full) == 50
    np.testing.assert_array_equal(frame_to_counts(full, DOMAIN)[2], expect)
    sub = frame_to_counts(synth.sample(20), DOMAIN)[2]
    assert sub.sum() == 20 and np.all(sub <= expect)
    with pytest.raises(ValueError, match="exceeds the n_synthetic=50"):
        synth.sample(51)
    assert synth.ledger_.total_epsilon == 1.0 and len(synth.ledger_) == 1
    assert SmoothedHistogram(1.0, domain=DOMAIN, random_state=0).fit(df).m_ == 2000
