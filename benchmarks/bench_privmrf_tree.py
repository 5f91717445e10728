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

import contextlib
import os
import sys
import unittest.mock

from _report import ROOT, load  # benchmarks/ is on sys.path when run as a script
from bench_privmrf_select import NewSelect, agreement, open_report, report_fit, run

from synthtrust.studies import evaluation_protocols as ep
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


def main(argv=None) -> int:
    args, rep, codes, sizes = open_report("bench_privmrf_tree.py", __doc__, argv)
    rows = []
    for eps in args.epsilons:
        res = {}
        for name in ("searched", "greedy"):
            before = os.getloadavg()[0]
            keep = unittest.mock.patch.object(junction, "small_tree_order", lambda *a, **k: None)
            with keep if name == "greedy" else contextlib.nullcontext():
                r = res[name] = run(NewSelect, codes, sizes, eps)
            cells = _last_tree_cells(r["model"])[name == "searched"]
            row = report_fit(rep, name, eps, r, before, f"last tree {cells:,} cells; ")
            rows.append([*row, f"{cells:,}", f"{r['fit_s']:.1f}"])
        a = agreement(res["greedy"], res["searched"])
        g, s = res["greedy"]["synth"], res["searched"]["synth"]
        same_rows = (g.to_numpy() == s.to_numpy()).all(axis=1).mean()
        tvd = [ep.two_way_tvd(codes, x, sizes) for x in (g, s)]
        rep(
            f"   synthetic records eps={eps:g}: {same_rows:.1%} of rows identical; mean 2-way "
            f"TVD between the two runs {ep.two_way_tvd(g, s, sizes):.4f} (to the data: greedy "
            f"{tvd[0]:.4f}, searched {tvd[1]:.4f})"
        )
        rep(
            f"   agreement eps={eps:g}: selected cliques {a['selected']}, queried candidates "
            f"{a['queried']}, ledger {a['ledger']}, steps {a['steps']}, synthetic records "
            f"{a['records']}; candidate marginals max relative difference {a['rel']:.2e}, "
            f"max |difference| / total {a['frac']:.2e}; fit CPU greedy/searched "
            f"{res['greedy']['fit_cpu'] / res['searched']['fit_cpu']:.2f}x"
        )
    rep()
    rep.table(
        [
            "tree",
            "ε",
            "fit CPU s",
            "candidates CPU s",
            "estimation CPU s",
            "last tree cells",
            "wall s",
        ],
        rows,
    )
    rep(f"benchmark finished; {load()}")
    rep.finish(
        args.output, ROOT / "benchmarks" / "results_privmrf_tree.txt", args.epsilons == [10.0]
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
