"""Tests of ``synthtrust._format``: the package's one percent and number formatter, by hand."""

import math

import numpy as np
import pytest

from synthtrust._format import number, percent


def test_percent_by_hand():
    assert percent(0.1234) == "12.3 %" and percent(0.5, 0) == "50 %"
    assert percent(0.01234, 3, significant=True) == "1.23 %"
    assert percent(0.25, unit="") == "25.0" and percent(np.float64(0.125), 2) == "12.50 %"


@pytest.mark.parametrize("missing", [None, math.nan, math.inf, -math.inf, "x", True])
def test_missing_values_are_said_so(missing):
    assert percent(missing) == "n/a" and number(missing) == "n/a"
    assert percent(missing, missing="—") == "—"


def test_number_by_hand():
    assert number(0.12345) == "0.123" and number(2, digits=1) == "2.0"
    assert number(np.int64(3), 0) == "3"
