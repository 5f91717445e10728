"""PrivMRF on the thyroid data with each junction-tree node summed onto its potential cliques
through shared partial sums (the package) against one full reduction a clique (before), in one
process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_privmrf_sums.py                 # ε = 10 (~2 CPU-min)
    .venv/bin/python benchmarks/bench_privmrf_sums.py --epsilons 1 10

Data and settings as ``bench_privmrf_select.py`` (``hypothyroid_allhypo``, 3 772 × 23 integer
codes, δ = 1e-5, ``random_state`` 0, the fit on the whole table, then as many synthetic rows).
Both runs are the package's :class:`~synthtrust.synthesizers.privmrf.PrivMRF` on the same
junction trees; they differ only in how a step of the numpy mirror descent sums the calibrated
node arrays onto the potential cliques they host (a node of the last thyroid tree hosts seven):

* ``direct``: one ``np.add.reduce`` of the whole node array a clique (the package before;
  :class:`DirectReduction` below, which plans exactly those reductions);
* ``shared``: :class:`~synthtrust.synthesizers.marginal.reduction.SharedReduction`, the columns
  that none of a group of cliques keeps summed out once.

The sums differ only in the order of the additions. Printed per run: CPU seconds
(``time.process_time``; the load average is printed) of the fit, of its candidate marginals and
of its mirror-descent estimations, and wall seconds; then the agreement
(``bench_privmrf_select.agreement``): the selected cliques, the ledger and the steps per
estimation must be identical, and the candidate marginals of every step are compared cell by
cell; the synthetic records as in ``bench_privmrf_tree.py``.
"""

from __future__ import annotations

import sys
import unittest.mock

from bench_privmrf_select import compare_paths  # benchmarks/ is on sys.path as a script

from synthtrust.synthesizers.marginal import mirror_descent
from synthtrust.synthesizers.marginal.reduction import SharedReduction


class DirectReduction(SharedReduction):
    """The reductions before shared sums: every marginal summed from the whole array."""

    def _plan(self, src, cols, targets):
        for j, keep in targets:
            self._add(src, cols, keep, j, True)


def main(argv=None) -> int:
    def direct():
        return unittest.mock.patch.object(mirror_descent, "SharedReduction", DirectReduction)

    return compare_paths(
        "bench_privmrf_sums.py", __doc__, argv, ("shared", "direct"), direct, "node sums"
    )


if __name__ == "__main__":
    sys.exit(main())
