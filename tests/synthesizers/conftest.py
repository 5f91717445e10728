"""Fixtures shared by the test files of this folder and its sub-folders.

The oracles and the shared set-up are described in ``_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


def _chain_table(n: int, seed: int) -> pd.DataFrame:
    """A chain a → b → c plus an independent column e (tree-structured distribution)."""
    rng = np.random.default_rng(seed)
    a = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 4, n))
    c = np.where(rng.random(n) < 0.85, (b >= 2).astype(int), rng.integers(0, 2, n))
    e = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    return pd.DataFrame({"a": a, "b": b, "c": c, "e": e})


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return _chain_table(600, 0)
