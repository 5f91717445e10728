"""PrivMRF on the thyroid data with the junction trees of a searched elimination order (the
package) against mbi's greedy order (before), in one process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_privmrf_tree.py                 # ε = 10 (~5 CPU-min)
    .venv/bin/python benchmarks/bench_privmrf_tree.py --epsilons 1 10

Data and settings as ``bench_privmrf_select.py`` (``hypothyroid_allhypo``, 3 772 × 23 integer
codes, δ = 1e-5, ``random_state`` 0, the fit on the whole table, then as many synthetic rows).
Both runs are the package's :class:`~synthtrust.synthesizers.privmrf.PrivMRF`; they differ only
in the junction trees its numpy mirror descent and candidate scoring run on:

* ``greedy``: mbi's ``make_junction_tree`` with its default greedy order (the package before
  this change; ``junction.small_tree_order`` patched to keep it);
* ``searched``: the package, the order :func:`~synthtrust.synthesizers.marginal.elimination.
  small_tree_order` finds (fewest cells of 100 randomised greedy orders when the greedy tree has
  more than 2²⁰ cells).

The model's marginals do not depend on the tree, only the rounding does. Printed per run: CPU
seconds (``time.process_time``; the load average is printed) of the fit, of its candidate
marginals and of its mirror-descent estimations, wall seconds, and the cells of the tree of the
last estimation. Then the agreement (``bench_privmrf_select.agreement``): the selected cliques,
the ledger and the steps per estimation must be identical, and the candidate marginals of every
step are compared cell by cell. The synthetic records are drawn by mbi's randomised rounding of
the model's marginals, where a difference in the last bits can move a record: printed are the
share of identical rows and the mean 2-way TVD between the two synthetic tables, beside each
table's TVD to the data.
"""

from __future__ import annotations

import sys
import unittest.mock

from bench_privmrf_select import compare_paths  # benchmarks/ is on sys.path as a script

from synthtrust.synthesizers.marginal import elimination, junction


def _last_tree_cells(model) -> tuple[int, int]:
    """Cells of the junction tree of the model's last estimation: mbi's greedy order, and the
    searched one."""
    sizes = [int(model.domain_[c]) for c in model.columns_]
    cliques = [tuple(int(a[1:]) for a in cl) for cl in model.model_.cliques]
    adj = elimination.adjacency(len(sizes), cliques)
    greedy = elimination.greedy_order(sizes, cliques)
    searched = elimination.small_tree_order(sizes, cliques) or greedy
    return tuple(
        elimination.tree_cells(sizes, elimination.elimination_cliques(adj, o))
        for o in (greedy, searched)
    )


def _cells(model, searched: bool) -> tuple[str, list, list]:
    cells = _last_tree_cells(model)[searched]
    return f"last tree {cells:,} cells; ", ["last tree cells"], [f"{cells:,}"]


def main(argv=None) -> int:
    def greedy():
        return unittest.mock.patch.object(junction, "small_tree_order", lambda *a, **k: None)

    return compare_paths(
        "bench_privmrf_tree.py", __doc__, argv, ("searched", "greedy"), greedy, "tree", _cells
    )


if __name__ == "__main__":
    sys.exit(main())
