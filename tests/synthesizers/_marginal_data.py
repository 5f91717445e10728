"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of the marginal-based synthesizers MST, MWEM+PGM and AIM and their shared machinery.

Oracles: the noise scales of the reference mechanisms (Private-PGM, adult), pandas crosstab,
scipy's constrained least squares, brute-force joint distributions, hand-computed compression,
the privacy ledger vs. cdp_rho.
JAX compilation dominates: tiny domains, few iterations, fitted objects shared by fixtures.
"""

from __future__ import annotations

import numpy as np

DOMAIN = {"a": 3, "b": 4, "c": 2, "e": 3}
COLS = list(DOMAIN)
SIZES = [DOMAIN[c] for c in COLS]
REL = 1e-9


def _tvd(p, q) -> float:
    p, q = np.asarray(p, float).ravel(), np.asarray(q, float).ravel()
    return 0.5 * np.abs(p / p.sum() - q / q.sum()).sum()


def _codes(df) -> np.ndarray:
    return df[COLS].to_numpy(np.int64)
