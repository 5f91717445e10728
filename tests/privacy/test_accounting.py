"""Tests of ``synthtrust.privacy.accounting``.

Tests of synthtrust.privacy: mechanism distributions against exact laws, accounting test
vectors, and the ledger.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthtrust.privacy import (
    cdp_delta,
    cdp_epsilon,
    cdp_rho,
    pure_to_zcdp,
)


# ----------------------------------------------------------------------------------------------
# accounting
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "eps, delta, rho, tol",
    [
        (1.0, 1e-9, 0.01497, 5e-6),
        (1.0, 1e-5, 0.03056, 5e-6),
        (3.0, 1e-9, 0.1206, 5e-5),
        (10.0, 1e-9, 1.0908, 5e-5),
        (0.1, 1e-9, 0.00018, 5e-6),
    ],
)
def test_cdp_rho_reference_vectors(eps, delta, rho, tol):
    assert cdp_rho(eps, delta) == pytest.approx(rho, abs=tol)


def _reference_cdp_delta(rho, eps):
    """Literal transcription of the reference algorithm: 1000 bisection steps, alpha >= 1.01."""
    amin, amax = 1.01, (eps + 1) / (2 * rho) + 2
    for _ in range(1000):
        alpha = (amin + amax) / 2
        if (2 * alpha - 1) * rho - eps + math.log1p(-1.0 / alpha) < 0:
            amin = alpha
        else:
            amax = alpha
    delta = math.exp((alpha - 1) * (alpha * rho - eps) + alpha * math.log1p(-1 / alpha)) / (
        alpha - 1.0
    )
    return min(delta, 1.0)


@pytest.mark.parametrize(
    "rho, eps", [(0.01497, 1.0), (0.5, 3.0), (2.0, 1.0), (1e-4, 0.1), (0.3, 0.0)]
)
def test_cdp_delta_equals_reference_transcription(rho, eps):
    assert cdp_delta(rho, eps) == pytest.approx(_reference_cdp_delta(rho, eps), rel=1e-12)


def test_cdp_conversions_round_trip_and_edge_cases():
    for eps, delta in [(0.5, 1e-6), (1.0, 1e-9), (8.0, 1e-5)]:
        rho = cdp_rho(eps, delta)
        assert cdp_delta(rho, eps) <= delta
        assert cdp_delta(rho * 1.0001, eps) > delta  # the largest ρ
        assert cdp_epsilon(rho, delta) == pytest.approx(eps, rel=1e-9)
    assert cdp_delta(0.0, 1.0) == 0.0
    assert cdp_epsilon(0.0, 1e-5) == 0.0
    assert cdp_rho(1.0, 1.0) == 0.0
    # ε is increasing in ρ, δ decreasing in ε
    assert cdp_epsilon(0.1, 1e-6) < cdp_epsilon(0.2, 1e-6)
    assert cdp_delta(0.1, 1.0) > cdp_delta(0.1, 2.0)
    with pytest.raises(ValueError):
        cdp_rho(1.0, 0.0)
    with pytest.raises(ValueError):
        cdp_rho(-1.0, 1e-5)
    with pytest.raises(TypeError):
        cdp_epsilon("0.1", 1e-5)


def test_pure_to_zcdp():
    assert pure_to_zcdp(2.0) == 2.0
    np.testing.assert_allclose(pure_to_zcdp(np.array([0.0, 1.0, 3.0])), [0.0, 0.5, 4.5])
    with pytest.raises(ValueError):
        pure_to_zcdp(-1.0)
