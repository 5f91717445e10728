"""AIM on the whole Cardio data with the node log-potentials of the numpy mirror descent summed
through shared partial sums (the package) against the hosted potentials added one at a time
(before), in one process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_node_fill.py                 # ε = 15 (~6 CPU-min)
    .venv/bin/python benchmarks/bench_node_fill.py --epsilons 1 15

Data and settings as chapter 3's ``paper`` preset: ``cardio`` encoded by
``evaluation_protocols.prepare`` (70 000 × 12 integer codes, all rows), AIM at δ = 1e-5 with the
chapter's parameters (``evaluation_protocols.make_generator``), ``random_state`` 0, fitted on the
whole table, then as many synthetic rows. At ε = 15 AIM measures every pair of the 12 columns;
its junction tree then covers the full table (1 866 240 cells, two nodes of 933 120 cells, one
hosting 55 potentials), and each mirror-descent step writes the nodes' log-potentials from
their potentials:

* ``chained``: the potentials added one at a time, each addition written on the union of the
  columns so far, so the whole node once they span it (the package before;
  ``SharedBroadcast(..., shared=False)``);
* ``shared``: :class:`~synthtrust.synthesizers.marginal.reduction.SharedBroadcast`, the
  potentials that all lack a column summed first without it, recursively.

The sums differ only in the order of the additions. Printed: for one fill of the largest node of
the final model, milliseconds per call of each (best of 5) and the largest relative difference;
per fit, CPU seconds (``time.process_time``; the load average is printed), rounds, the final
model's cells; then whether the two fits selected the same cliques and the synthetic records'
2-way TVD between the runs and to the data.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
import unittest.mock

import numpy as np
from _report import ROOT, Report, load  # benchmarks/ is on sys.path as a script

from synthtrust.studies.evaluation_protocols import benchmark as ep
from synthtrust.synthesizers.marginal import PGMFitter, mirror_descent
from synthtrust.synthesizers.marginal.reduction import SharedBroadcast

DATASET, DELTA, SEED = "cardio", 1e-5, 0
NAMES = ("shared", "chained")


def fit(codes, sizes, eps: float, chained: bool) -> dict:
    """One AIM fit and sample (the old node fill when ``chained``): CPU seconds and outputs."""
    patch = unittest.mock.patch.object(
        mirror_descent, "SharedBroadcast", functools.partial(SharedBroadcast, shared=False)
    )
    model = ep.make_generator("aim", eps, DELTA, sizes, np.random.default_rng(SEED))
    with patch if chained else unittest.mock.patch.dict({}):
        t0 = time.process_time()
        model.fit(codes)
        cpu = time.process_time() - t0
        synth = model.sample(len(codes))
    return {"model": model, "cpu": cpu, "synth": synth}


def descent(model) -> mirror_descent.NumpyMirrorDescent:
    """The numpy mirror descent of a fitted AIM's final model (its measurements, warm start)."""
    fitted = model.model_
    fitter = PGMFitter(fitted.sizes, backend="numpy")
    return fitter.start(model.measurements_, fitted.total, warm_start=fitted)[0]


def node_timing(md) -> tuple[tuple, int, dict, float]:
    """The largest node of the descent ``md``: its shape, potentials, ms per fill of each way
    (best of 5) and the largest relative difference of the two sums."""
    h = int(np.argmax([b.size for b in md.buffers]))
    fill = md.node_fill[h]
    rng = np.random.default_rng(1)
    terms = [rng.normal(size=v.shape) for v in md.node_views[0][h]]
    ways = (fill, SharedBroadcast(fill.shape, fill.spans, shared=False))
    outs, ms = {}, {}
    for name, way in zip(NAMES, ways, strict=True):
        outs[name] = np.empty(fill.shape)
        best = math.inf
        for _ in range(5):
            t0 = time.process_time()
            way(terms, outs[name])
            best = min(best, time.process_time() - t0)
        ms[name] = 1000 * best
    rel = float(np.abs(outs["shared"] - outs["chained"]).max() / np.abs(outs["chained"]).max())
    return fill.shape, len(terms), ms, rel


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilons", type=float, nargs="+", default=[15.0])
    ap.add_argument("--output", default=None, help="also write the report here")
    args = ap.parse_args(argv)
    rep = Report.start("bench_node_fill.py", argv)
    codes, sizes, _ = ep.prepare(DATASET)
    rep(f"data: {DATASET} {len(codes):,} x {codes.shape[1]}; delta = {DELTA:g}; seed {SEED}")
    rows = []
    for eps in args.epsilons:
        runs = {name: fit(codes, sizes, eps, name == "chained") for name in NAMES}
        trees = {name: descent(r["model"]) for name, r in runs.items()}
        shape, n_terms, ms, rel = node_timing(trees["shared"])
        rep(
            f"eps={eps:g}: largest node {math.prod(shape):,} cells {shape}, {n_terms} "
            f"potentials: one fill shared {ms['shared']:.1f} ms, chained {ms['chained']:.1f} ms "
            f"({ms['chained'] / ms['shared']:.1f}x), max relative difference {rel:.1e}"
        )
        a, b = runs["shared"], runs["chained"]
        same = a["model"].cliques_ == b["model"].cliques_
        x, y = a["synth"], b["synth"]
        rep(
            f"   same selected cliques: {same} ({len(a['model'].cliques_)} vs "
            f"{len(b['model'].cliques_)}); synthetic records: 2-way TVD between the runs "
            f"{ep.two_way_tvd(x, y, sizes):.4f}, to the data shared "
            f"{ep.two_way_tvd(codes, x, sizes):.4f}, chained {ep.two_way_tvd(codes, y, sizes):.4f}"
        )
        for name in NAMES:
            r = runs[name]
            cells = sum(b.size for b in trees[name].buffers)
            rows.append(
                [name, f"{eps:g}", f"{r['cpu']:.1f}", r["model"].rounds_, f"{cells:,}",
                 f"{ms[name]:.1f}"]
            )  # fmt: skip
        rep(f"   fit CPU chained/shared {b['cpu'] / a['cpu']:.2f}x; {load()}")
    rep()
    rep.table(["node fill", "ε", "fit CPU s", "rounds", "final tree cells", "ms a fill"], rows)
    rep(f"benchmark finished; {load()}")
    default = ROOT / "benchmarks" / "results_node_fill.txt"
    rep.finish(args.output, default, args.epsilons == [15.0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
