"""Tests of ``synthtrust.protocols.release``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthtrust import protocols as P
from synthtrust.privacy import PrivacyLedger


# --------------------------------------------------------------------------------------------
# DP confusion matrix
# --------------------------------------------------------------------------------------------
def test_dp_confusion_matrix_release_and_ledger():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.8, y, 1 - y)
    ledger = PrivacyLedger()
    rel = P.dp_confusion_matrix(y, pred, 0.5, random_state=1, ledger=ledger)
    assert rel.matrix.dtype == np.int64 and rel.matrix.shape == (2, 2)
    assert np.all(rel.matrix >= 0)
    np.testing.assert_array_equal(rel.matrix, np.clip(np.rint(rel.noisy), 0, None))
    assert len(ledger) == 1 and ledger.total_epsilon == 0.5
    entry = ledger.entries[0]
    assert entry.mechanism == "laplace" and entry.sensitivity == 1.0 and entry.scale == 2.0
    assert rel.accuracy == P.accuracy_from_confusion(rel.matrix)
    assert rel.f1 == P.f1_from_confusion(rel.matrix)
    # replace-one neighbours: sensitivity 2, scale 2/ε, still one entry of ε
    led2 = PrivacyLedger()
    rel2 = P.dp_confusion_matrix(y, pred, 0.5, 1, led2, neighbouring="replace_one")
    assert led2.total_epsilon == 0.5 and rel2.scale == 4.0 and rel2.sensitivity == 2.0
    # huge ε: the release is the true matrix
    big = P.dp_confusion_matrix(y, pred, 1e6, random_state=2)
    np.testing.assert_array_equal(big.matrix, P.confusion_matrix(y, pred))


def _rounded_laplace_moments(b: float, kmax: int = 400):
    """Exact mean, variance, 4th central moment of rint(L), L ~ Laplace(0, b)."""
    k = np.arange(-kmax, kmax + 1, dtype=float)

    def cdf(x):
        return np.where(x < 0, 0.5 * np.exp(x / b), 1 - 0.5 * np.exp(-x / b))

    pmf = cdf(k + 0.5) - cdf(k - 0.5)
    mean = float(np.sum(k * pmf))
    var = float(np.sum((k - mean) ** 2 * pmf))
    m4 = float(np.sum((k - mean) ** 4 * pmf))
    return mean, var, m4


@pytest.mark.parametrize("neighbouring, b", [("add_remove", 1.0), ("replace_one", 2.0)])
def test_dp_confusion_matrix_noise_matches_laplace_theory(neighbouring, b):
    cm = np.array([[1000, 1000], [1000, 1000]])  # far from 0: clipping never happens
    rng = np.random.default_rng(2024)
    draws = 4000
    raw = np.empty((draws, 4))
    out = np.empty((draws, 4))
    for i in range(draws):
        rel = P.privatize_confusion_matrix(cm, 1.0, rng, neighbouring=neighbouring)
        raw[i] = rel.noisy.ravel() - 1000
        out[i] = rel.matrix.ravel() - 1000
    n = raw.size
    # raw Laplace noise: mean 0, variance 2b², 4th moment 24 b⁴
    var_l, m4_l = 2 * b**2, 24 * b**4
    assert abs(raw.mean()) < 4.5 * math.sqrt(var_l / n)
    assert abs(raw.var(ddof=1) - var_l) < 4.5 * math.sqrt((m4_l - var_l**2) / n)
    # released (rounded) noise: exact law of rint(Laplace)
    mean_r, var_r, m4_r = _rounded_laplace_moments(b)
    assert mean_r == pytest.approx(0.0, abs=1e-12)
    assert abs(out.mean() - mean_r) < 4.5 * math.sqrt(var_r / n)
    assert abs(out.var(ddof=1) - var_r) < 4.5 * math.sqrt((m4_r - var_r**2) / n)


def test_dp_confusion_matrix_clipping_at_zero_binomial_band():
    # a true count 0 is released as 0 iff L < 0.5: probability 1 − exp(−0.5/b)/2
    b = 1.0
    rng = np.random.default_rng(7)
    draws = 3000
    zeros = 0
    for _ in range(draws):
        rel = P.privatize_confusion_matrix([[0, 0], [0, 0]], 1 / b, rng)
        zeros += int(np.count_nonzero(rel.matrix == 0))
    p = 1 - 0.5 * math.exp(-0.5 / b)
    n = 4 * draws
    assert abs(zeros / n - p) < 4.5 * math.sqrt(p * (1 - p) / n)


def test_dp_confusion_matrix_bad_input():
    with pytest.raises(ValueError, match="epsilon must be > 0, got 0.0"):
        P.dp_confusion_matrix([0, 1], [0, 1], 0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        P.dp_confusion_matrix([0, 1], [0, 1], -1.0)
    with pytest.raises(ValueError, match="'bounded'.*add_remove, replace_one"):
        P.dp_confusion_matrix([0, 1], [0, 1], 1.0, neighbouring="bounded")
    with pytest.raises(ValueError, match="same length"):
        P.dp_confusion_matrix([0, 1, 1], [0, 1], 1.0)
    with pytest.raises(ValueError, match="integer counts"):
        P.privatize_confusion_matrix([[0.5, 1], [2, 3]], 1.0)
