"""Fixtures shared by the test files of this folder and its sub-folders.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _privmrf_data import FAST, _table

from synthtrust.synthesizers.privmrf import (
    PrivMRF,
)


@pytest.fixture(scope="module")
def fit4():
    """One d = 4 fit shared by two tests (mbi compiles each clique structure once)."""
    rng = np.random.default_rng(4)
    X = _table(rng, 500, [4, 3, 3, 2])
    dom = {"c0": 4, "c1": 3, "c2": 3, "c3": 2}
    m = PrivMRF(
        20.0, domain=dom, max_clique_size=12, max_parameter_size=40, random_state=2, **FAST
    ).fit(X)
    return m, dom
