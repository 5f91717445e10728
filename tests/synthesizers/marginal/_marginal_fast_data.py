"""Helpers shared by the test files of this folder (plain functions and constants).

The fast paths of the marginal-based synthesizers against their slow oracles.

* :meth:`JunctionTree.marginals` (all candidates in one pass) = :meth:`JunctionTree.marginal`
  one clique at a time, and AIM scored either way selects the same cliques;
* the numpy mirror-descent oracle (one exponential a node, columns laid out by size) = the
  log-space calibration of the junction tree, and the fallback to it;
* AIM's refit effort rule (:func:`refit_iters`, ``refit_mb``) and its model-size cache.
"""

from __future__ import annotations

import math

import numpy as np

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal.junction import TreePlan
from synthtrust.synthesizers.marginal.mirror_descent import NumpyMirrorDescent

#: (sizes, cliques): a cycle that needs fill-in plus a pendant; a forest (three components and a
#: lone column); a longer cycle with a chord and mixed sizes
STRUCTURES = [
    ((3, 2, 4, 2, 3), [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)]),
    ((3, 2, 4, 2, 3, 5, 2), [(0, 1), (3, 4), (5, 6), (1, 5)]),
    (
        (3, 4, 2, 5, 3, 2, 4, 3),
        [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (0, 7), (2, 6)],
    ),
]


# --------------------------------------------------------------------------------------------
# the numpy mirror-descent oracle
# --------------------------------------------------------------------------------------------
def _oracle_pair(sizes, cliques, by_size):
    plan = TreePlan(sizes, cliques, by_size=by_size)
    ms = [mg.Measurement(c, np.ones(math.prod(sizes[a] for a in c)), 1.0) for c in cliques]
    return plan, NumpyMirrorDescent(plan, cliques, ms)
