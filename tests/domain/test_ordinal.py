"""Tests of ``synthtrust.domain.ordinal``.

The oracles and the shared set-up are described in ``_domain_data.py``.
"""

from __future__ import annotations

import numpy as np

from synthtrust.domain import (
    Numeric,
    Ordinal,
)


def test_ordinal_and_integer_decode_dtypes():
    ordi = Ordinal(1, 5, missing="NA")
    assert ordi.decode([0, 4]).dtype == np.int64  # nothing missing: int64
    out = ordi.decode([0, 5])  # a missing code: float64 with NaN (read_csv's convention)
    assert out.dtype == np.float64 and out.iloc[0] == 1.0 and np.isnan(out.iloc[1])
    num = Numeric([0, 5, 10], integer=True, missing="NA")
    assert num.decode([0, 1], random_state=0).dtype == np.int64
    assert num.decode([0, 2], random_state=0).dtype == np.float64
