"""Tests of ``synthtrust.studies.auditing.utility.table1``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthtrust.domain import dataset_domain
from synthtrust.studies.auditing.utility import experiment as U


# --------------------------------------------------------------------------------------------
# Application 1 on a hand-made frame
# --------------------------------------------------------------------------------------------
def _app1_codes(rows):
    dom = dataset_domain("census2011").select(U.APP1_COLUMNS)
    return dom.encode(pd.DataFrame(rows, columns=list(U.APP1_COLUMNS)))


# (Economic Activity, Occupation, Sex) in ONS codes; EA 1/2 = active, 3 = unemployed
_REAL = [(1, 1, 1), (1, 1, 2), (2, 1, 1), (3, 2, 2)]
_SYNTH = [(1, 1, 1), (1, 1, 1), (2, 2, 2), (-9, -9, 1)]


def test_three_way_table_by_hand():
    t = U.three_way_table(_app1_codes(_REAL))
    assert t.shape == (10, 10, 2) and t.sum() == pytest.approx(1.0)
    # codes: -9 -> 0, so ONS EA 1 -> 1, Occupation 1 -> 1, Sex 1 (male) -> 0
    assert t[1, 1, 0] == 0.25 and t[1, 1, 1] == 0.25 and t[2, 1, 0] == 0.25 and t[3, 2, 1] == 0.25


def test_gender_gap_by_hand():
    gap_real = U.gender_gap(_app1_codes(_REAL))
    expected = np.zeros(10)
    expected[1] = 2 / 3 - 1 / 3  # occupation 1: 2 men, 1 woman among EA 1-2; EA 3 excluded
    np.testing.assert_allclose(gap_real, expected)
    gap_syn = U.gender_gap(_app1_codes(_SYNTH))
    expected = np.zeros(10)
    expected[1], expected[2] = 1.0, -1.0  # the EA -9 record is not active
    np.testing.assert_allclose(gap_syn, expected)


def test_app1_metrics_by_hand():
    m = U.app1_metrics(_app1_codes(_SYNTH), _app1_codes(_REAL))
    # six cells differ by ±0.25 out of 200: sqrt(6 · 0.0625 / 200)
    assert m["rmse_3way"] == pytest.approx(math.sqrt(6 * 0.0625 / 200), rel=1e-12)
    assert m["rmse_3way"] == pytest.approx(0.0433013, abs=1e-7)
    # occupation 1: 1 − 1/3, occupation 2: −1 − 0: sqrt((4/9 + 1) / 10)
    assert m["rmse_gender_gap"] == pytest.approx(math.sqrt(13 / 90), rel=1e-12)
    assert U.app1_metrics(_app1_codes(_REAL), _app1_codes(_REAL)) == {
        "rmse_3way": 0.0,
        "rmse_gender_gap": 0.0,
    }
    with pytest.raises(ValueError, match="lacks"):
        U.three_way_table(_app1_codes(_REAL).drop(columns="Sex"))
