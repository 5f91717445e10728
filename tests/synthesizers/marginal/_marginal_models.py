"""Helpers shared by the test files of this folder (plain functions and constants).

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np

from synthtrust.synthesizers import marginal as mg


def _random_model(sizes, cliques, seed, total=500.0) -> mg.FittedModel:
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(0, 1.0, [sizes[a] for a in cl]) for cl in cliques}
    return mg.FittedModel(tuple(sizes), tuple(cliques), pots, total)
