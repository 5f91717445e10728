"""Model marginals of PrivMRF's candidate marginals (the noisy L1 queries of the refinement), all
from one calibrated numpy junction tree of the fitted model.

Source: Cai et al. (PVLDB 2021) [``cai2021``], §5 (the L1 error queries); the junction tree of
mbi [``mbi2026``] (:class:`~synthtrust.synthesizers.marginal.JunctionTree`); equal to mbi's
``model.project`` to 1e-12.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..marginal import FittedModel, JunctionTree


def tree_marginals(model: FittedModel, queries: Sequence[tuple]) -> list[np.ndarray]:
    """Marginals of a fitted model on ``queries`` (tuples of column positions), each flattened in
    C order over the query's column order and summing to ``model.total``.

    One pass: the junction tree of the model's cliques is calibrated once, and every query is read
    from it (:meth:`JunctionTree.clique_marginals`: a query inside a node is summed from the node,
    pairs in no common node share one sweep per column, larger queries contract the smallest
    covering subtree on node tables already summed down to the query's columns and the
    separators, with the partial sums shared across queries). Before, every query ran its own
    variable elimination over all potentials, which took most of a fit at large ε (thyroid,
    ε = 10: ≈ 150 of ≈ 420 CPU seconds; ``benchmarks/bench_privmrf_select.py``).

    Parameters
    ----------
    model : FittedModel
        The fitted log-linear model (column positions, log-potentials, total N in records).
    queries : sequence of tuple of int
        Cliques of column positions, in any order; each query's axes follow its order.

    Returns
    -------
    list of ndarray
        One flat array of counts per query (length: the product of the query's levels).
    """
    got = JunctionTree(model).clique_marginals(queries)
    return [np.ravel(got[tuple(q)]) for q in queries]
