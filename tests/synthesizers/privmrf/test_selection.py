"""Tests of ``synthtrust.synthesizers.privmrf.selection``.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from synthtrust.synthesizers.privmrf.selection import (
    maximal_parents,
)


def test_maximal_parents_matches_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(40):
        k = int(rng.integers(0, 6))
        sizes = {a: int(rng.integers(2, 6)) for a in range(k)}
        limit = float(rng.uniform(0.5, 300))
        feasible = [
            set(s)
            for r in range(k + 1)
            for s in itertools.combinations(range(k), r)
            if math.prod(sizes[a] for a in s) <= limit
        ]
        maximal = {tuple(sorted(s)) for s in feasible if not any(s < t for t in feasible)}
        if limit < 1:
            maximal = set()
        assert maximal_parents(list(range(k)), limit, sizes) == maximal
