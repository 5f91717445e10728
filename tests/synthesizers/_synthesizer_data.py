"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.synthesizers against brute-force per-replicate oracles, exact formulas and
limiting behaviour (huge / tiny ε).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

DOMAIN = {"group": 2, "value": 10}
SHAPE = (2, 10)


def _table(n, seed=0, sd=2.0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "group": rng.integers(0, 2, n),
            "value": np.clip(np.round(rng.normal(4.5, sd, n)), 0, 9).astype(int),
        }
    )


def _count_matrix(reps, n, seed=0):
    rng = np.random.default_rng(seed)
    p = np.r_[np.linspace(1, 3, 10), np.linspace(3, 1, 10)]
    return rng.multinomial(n, p / p.sum(), size=reps)


def _gens(reps, offset=0):
    return [np.random.default_rng(1000 + offset + i) for i in range(reps)]


def _tvd(a, b):
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    return 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()


# ----------------------------------------------------------------------------------------------
# largest remainder
# ----------------------------------------------------------------------------------------------
def _largest_remainder_brute(w, n, u):
    w = np.asarray(w, float)
    if w.sum() == 0:
        w = np.ones_like(w)
    quota = w / w.sum() * n
    base = np.floor(quota).astype(int)
    left = n - base.sum()
    order = sorted(range(len(w)), key=lambda j: (-(quota[j] - base[j]), u[j]))
    for j in order[:left]:
        base[j] += 1
    return base
