"""Iterative proportional fitting by a PyPI peer: ``ipfn`` 1.4.4 or ``humanleague`` 2.4.3.

Runs in the side environment ``.cache/peers/ipfn`` (``requirements-ipfn.txt``; humanleague is
installed there too by ``bench_ipf.py`` when it builds), driven by ``bench_ipf.py`` (part 3 of
``bench_audit.py`` before the split).

Input (``--problem``, an ``.npz`` written by the bench script): ``sizes`` (the domain sizes of the
joint table) and, for i = 0, 1, ..., ``clique_<i>`` (sorted axes of a declared marginal) and
``target_<i>`` (its counts, shape ``sizes[clique]``). Both peers start from the all-ones table,
as ``synthtrust.synthesizers.IPF`` does.

* ``--impl ipfn``: ``ipfn.ipfn.ipfn(table, aggregates, dimensions, convergence_rate=0,
  rate_tolerance=0, max_iteration=0).iteration()`` called once per sweep, the returned table fed
  to the next call (one call with ``max_iteration = n - 1`` runs the same ``ipfn_np`` sweeps; one
  call per sweep lets the script stop at a time budget). It runs ``--sweeps`` sweeps, or fewer
  when the next sweep would end after ``--budget`` seconds; ``sweep_s`` lists each sweep's time.
  ``ipfn_np`` loops in Python over every cell of every marginal and rescales a strided slice of
  the table per cell; each sweep also checks ipfn's own criterion (max relative marginal error).
* ``--impl humanleague``: ``humanleague.ipf(seed, indices, marginals)`` (C++); its tolerance
  (max absolute marginal error < 1e-8) and limit (1000 sweeps) are fixed in the library, so
  ``--sweeps`` and ``--budget`` do not apply.

Output: the fitted table (``--output``, ``.npy`` float64) and a result JSON (``--result``) with
``fit_s`` and ``fit_cpu_s`` (wall and CPU seconds around the library's calls only: no
imports, no file reading), ``sweeps``, ``sweep_s``, ``versions`` and ``notes``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def load_problem(path: str):
    import numpy as np

    z = np.load(path)
    sizes = tuple(int(n) for n in z["sizes"])
    cliques, targets = [], []
    i = 0
    while f"clique_{i}" in z.files:
        cliques.append([int(a) for a in z[f"clique_{i}"]])
        targets.append(np.asarray(z[f"target_{i}"], dtype=float))
        i += 1
    return sizes, cliques, targets


def run_ipfn(sizes, cliques, targets, sweeps: int, budget: float):
    import numpy as np
    from ipfn.ipfn import ipfn

    table = np.ones(sizes)
    times, cpu = [], []
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        # ipfn prints "Maximum iterations reached" after every call, and its convergence check
        # divides by target cells that are 0 (structural zeros of the data)
        warnings.simplefilter("ignore")
        while len(times) < sweeps:
            if times and sum(times) + max(times) > budget:
                break
            t0, c0 = time.perf_counter(), time.process_time()
            table = ipfn(
                table,
                [t.copy() for t in targets],
                [list(c) for c in cliques],
                convergence_rate=0.0,
                rate_tolerance=0.0,
                max_iteration=0,
            ).iteration()
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
    return table, times, cpu, {"calls": "one ipfn(...).iteration() per sweep, max_iteration=0"}


def run_humanleague(sizes, cliques, targets):
    import humanleague
    import numpy as np

    seed = np.ones(sizes)
    indices = [np.asarray(c, dtype=np.int64) for c in cliques]
    t0, c0 = time.perf_counter(), time.process_time()
    table, info = humanleague.ipf(seed, indices, [t.copy() for t in targets])
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    info = {k: (v.item() if hasattr(v, "item") else v) for k, v in dict(info).items()}
    return np.asarray(table, dtype=float), [elapsed], [cpu], info


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", required=True, help=".npz with sizes, clique_<i>, target_<i>")
    ap.add_argument("--impl", choices=("ipfn", "humanleague"), required=True)
    ap.add_argument("--sweeps", type=int, default=100, help="ipfn: sweeps to run")
    ap.add_argument(
        "--budget",
        type=float,
        default=600.0,
        help="ipfn: stop before a sweep that would end after this many seconds",
    )
    ap.add_argument("--output", required=True, help="where to write the fitted table (.npy)")
    ap.add_argument("--result", required=True, help="where to write the result JSON")
    args = ap.parse_args(argv)

    import numpy as np

    sizes, cliques, targets = load_problem(args.problem)
    if args.impl == "ipfn":
        table, times, cpu, notes = run_ipfn(sizes, cliques, targets, args.sweeps, args.budget)
        vers = _common.versions("ipfn", "numpy", "pandas")
        sweeps = len(times)
    else:
        table, times, cpu, notes = run_humanleague(sizes, cliques, targets)
        vers = _common.versions("humanleague", "numpy")
        sweeps = int(notes.get("iterations", -1))
    np.save(args.output, table)
    _common.write_result(
        args.result,
        impl=args.impl,
        fit_s=float(sum(times)),
        fit_cpu_s=float(sum(cpu)),
        sweeps=sweeps,
        sweep_s=times,
        requested_sweeps=args.sweeps,
        budget_s=args.budget,
        versions=vers,
        notes=notes,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
