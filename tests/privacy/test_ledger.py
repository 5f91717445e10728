"""Tests of ``synthtrust.privacy.ledger``.

The oracles and the shared set-up are described in ``test_accounting.py``.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from synthtrust.privacy import (
    PrivacyLedger,
)


# ----------------------------------------------------------------------------------------------
# ledger
# ----------------------------------------------------------------------------------------------
def test_ledger_totals_and_frame():
    led = PrivacyLedger()
    assert led.total_epsilon == 0.0 and len(led) == 0
    for _ in range(10):
        led.record(mechanism="laplace", epsilon=0.1, sensitivity=1.0, scale=10.0, note="m")
    led.record(mechanism="gaussian", epsilon=1.0, delta=1e-6, rho=0.02, sensitivity=1.0, scale=5.0)
    assert led.total_epsilon == 2.0  # fsum: ten 0.1's add to exactly 1.0
    assert led.total_delta == 1e-6
    assert led.total_rho == pytest.approx(10 * 0.1**2 / 2 + 0.02)
    frame = led.to_frame()
    assert list(frame.columns) == [
        "step",
        "mechanism",
        "epsilon",
        "delta",
        "rho",
        "sensitivity",
        "scale",
        "draws",
        "note",
    ]
    assert frame["draws"].tolist() == [1] * 11
    assert len(frame) == 11 and frame["step"].tolist() == list(range(11))
    assert frame["epsilon"].dtype == float and frame["epsilon"].sum() == pytest.approx(2.0)
    assert isinstance(frame, pd.DataFrame)
    assert "11 entries" in repr(led)


def test_ledger_unknown_cost_gives_nan_total_and_validation():
    led = PrivacyLedger()
    led.record(mechanism="gaussian", rho=0.1)
    assert math.isnan(led.total_epsilon) and led.total_rho == 0.1
    assert math.isnan(led.to_frame()["epsilon"][0])
    other = PrivacyLedger()
    other.record(mechanism="laplace", epsilon=1.0)
    led.extend(other)
    assert len(led) == 2 and led.total_rho == pytest.approx(0.6)
    with pytest.raises(ValueError, match="epsilon and/or rho"):
        led.record(mechanism="laplace")
    with pytest.raises(ValueError, match="draws must be an integer >= 0, got 1.5"):
        led.record(mechanism="pate_moments", epsilon=1.0, draws=1.5)
    assert led.record(mechanism="pate_moments", epsilon=0.0, draws=0).draws == 0
    with pytest.raises(ValueError):
        led.record(mechanism="laplace", epsilon=-1.0)
    with pytest.raises(TypeError):
        led.record(mechanism="", epsilon=1.0)
    with pytest.raises(ValueError):
        led.record(mechanism="laplace", epsilon=1.0, delta=2.0)
