"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.synthesizers.privmrf (PrivMRF, Cai et al. PVLDB 2021).

Oracles: zCDP ledger = cdp_rho(ε, δ) and the authors' budget fractions; brute-force contingency
tables for the R-score; hand-triangulated graphs; brute-force maximal parent sets; scipy's
maximum spanning tree for the size-constrained local search; exact 2-way marginals at huge ε.
Tiny domains keep mbi's JIT compilation (seconds per clique structure) affordable.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

FAST = dict(max_iter=50)


def _table(rng, n, sizes, dependent=True) -> pd.DataFrame:
    """Random integer table; column j>0 copies column 0 (mod its size) with prob. 0.8."""
    cols = {}
    base = rng.integers(sizes[0], size=n)
    cols["c0"] = base
    for j, k in enumerate(sizes[1:], start=1):
        noise = rng.integers(k, size=n)
        copy = rng.random(n) < (0.8 if dependent else 0.0)
        cols[f"c{j}"] = np.where(copy, base % k, noise)
    return pd.DataFrame(cols).astype("int64")


def _joint_marginals(model, queries) -> list[np.ndarray]:
    """Brute-force oracle of a FittedModel's marginals: the whole joint table exp(Σ potentials)
    scaled to the total, summed onto each query (flat, C order over the query's columns)."""
    d = len(model.sizes)
    log_joint = np.zeros(model.sizes)
    for cl, pot in model.log_potentials.items():
        shape = [model.sizes[a] if a in cl else 1 for a in range(d)]
        order = sorted(range(len(cl)), key=lambda i: cl[i])
        log_joint = log_joint + np.transpose(np.asarray(pot), order).reshape(shape)
    joint = np.exp(log_joint - log_joint.max())
    joint *= model.total / joint.sum()
    out = []
    for q in queries:
        m = joint.sum(axis=tuple(a for a in range(d) if a not in q))
        kept = sorted(q)
        out.append(np.ravel(np.transpose(m, [kept.index(a) for a in q])))
    return out
