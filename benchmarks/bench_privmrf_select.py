"""PrivMRF's candidate scoring on the thyroid data: the model marginals of the noisy L1 queries
from one calibrated junction tree (the package) against one variable elimination per candidate
(the code before issue 24), in one process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_privmrf_select.py                 # ε = 10 (~15 CPU-min)
    .venv/bin/python benchmarks/bench_privmrf_select.py --epsilons 1 10

Data and settings as ``bench_privmrf.py``: ``hypothyroid_allhypo`` as the evaluation-protocols
chapter encodes it (3 772 × 23 integer codes, public domain), δ = 1e-5, ``random_state`` 0, the
fit on the whole table, then as many synthetic rows. Both runs are
:class:`~synthtrust.synthesizers.privmrf.PrivMRF`; they differ only in
``_candidate_marginals`` (the model marginals of the candidates queried in a refinement step,
Cai et al. 2021 [``cai2021``] §5):

* ``old``: :func:`_eliminated_marginals`, one variable elimination over all potentials per
  candidate (``einsum``, min-size order; the package's ``privmrf.inference._model_marginals``
  before issue 24, kept here only);
* ``new``: the package, :func:`~synthtrust.synthesizers.privmrf.inference.tree_marginals`.

Printed per run: CPU seconds (``time.process_time``; the 2 cores may be shared, the load average
is printed) of the fit, of its candidate marginals and of its mirror-descent estimations, and
wall seconds. Then the agreement: the selected cliques of every step, the ledger (every entry's
ρ and note), the steps per estimation and the synthetic records must be identical, and the
candidate marginals of every step are compared cell by cell (max relative difference, and max
absolute difference as a fraction of the model total).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import string
import sys
import time
from pathlib import Path

import numpy as np
from _report import ROOT, Report, load  # benchmarks/ is on sys.path when run as a script

from synthtrust.studies.evaluation_protocols import benchmark as ep
from synthtrust.synthesizers.privmrf import PrivMRF

DATASET, DELTA, SEED = "hypothyroid_allhypo", 1e-5, 0
_LETTERS = string.ascii_letters  # einsum subscripts (at most 52 columns)


def _eliminate(factors: list, query: str, size: dict) -> np.ndarray:
    """Σ over the letters not in ``query`` of Π factors (variable elimination, min-size order);
    every intermediate is divided by its maximum (only the normalised result is used)."""
    facs = list(factors)
    todo = {c for s, _ in facs for c in s} - set(query)
    while todo:
        scopes = [s for s, _ in facs]
        v = min(
            sorted(todo),
            key=lambda u: math.prod(size[c] for c in set("".join(s for s in scopes if u in s))),
        )
        inv = [f for f in facs if v in f[0]]
        scope = "".join(sorted(set("".join(s for s, _ in inv)) - {v}))
        arr = np.einsum(",".join(s for s, _ in inv) + "->" + scope, *[a for _, a in inv])
        top = arr.max()
        facs = [f for f in facs if v not in f[0]] + [(scope, arr / top if top > 0 else arr)]
        todo.discard(v)
    ops = [a for _, a in facs] + [np.ones(size[c]) for c in query]  # query letters without factor
    return np.einsum(",".join([s for s, _ in facs] + list(query)) + "->" + query, *ops)


def _eliminated_marginals(model, queries) -> list[np.ndarray]:
    """The old path: the marginal of every query (tuple of column positions) of a
    :class:`~synthtrust.synthesizers.marginal.FittedModel` by its own variable elimination on
    exp(potential − max), flattened in C order and scaled to ``model.total``."""
    letter = {a: _LETTERS[a] for a in range(len(model.sizes))}
    size = {letter[a]: int(k) for a, k in enumerate(model.sizes)}
    factors = []
    for cl in model.cliques:
        v = np.asarray(model.log_potentials[cl], dtype=float)
        factors.append(("".join(letter[a] for a in cl), np.exp(v - v.max())))
    out = []
    for q in queries:
        res = _eliminate(factors, "".join(letter[a] for a in q), size)
        out.append(np.ravel(res) * (float(model.total) / res.sum()))
    return out


class _Timed(PrivMRF):
    """PrivMRF that records the CPU seconds of its candidate marginals and estimations, and the
    candidate marginals of every refinement step."""

    def _candidate_marginals(self, fitted, queried):
        c0 = time.process_time()
        out = self._marginals_of(fitted, queried)
        self.bench_["select_cpu"] += time.process_time() - c0
        self.bench_["marginals"].append((list(queried), out, float(fitted.total)))
        return out

    def _estimate(self, warm, ratio, min_it):
        if warm is None:
            self.bench_ = dict(select_cpu=0.0, estimate_cpu=0.0, marginals=[])
        c0 = time.process_time()
        out = super()._estimate(warm, ratio, min_it)
        self.bench_["estimate_cpu"] += time.process_time() - c0
        return out


class OldSelect(_Timed):
    """One variable elimination per candidate (before issue 24)."""

    def _marginals_of(self, fitted, queried):
        return _eliminated_marginals(fitted, queried)


class NewSelect(_Timed):
    """The package: every candidate from one calibrated junction tree."""

    def _marginals_of(self, fitted, queried):
        return PrivMRF._candidate_marginals(self, fitted, queried)


def run(cls, codes, sizes: dict, epsilon: float) -> dict:
    """Fit (CPU and wall seconds, with the split) and sample as many rows."""
    cpu0, t0 = time.process_time(), time.perf_counter()
    model = cls(epsilon, DELTA, domain=sizes, random_state=SEED).fit(codes)
    fit_cpu, fit_s = time.process_time() - cpu0, time.perf_counter() - t0
    synth = model.sample(len(codes))[list(codes.columns)]
    return dict(model=model, fit_cpu=fit_cpu, fit_s=fit_s, synth=synth)


def agreement(old: dict, new: dict) -> dict:
    """Identical selections, ledgers, steps and records; the marginals' largest differences."""
    mo, mn = old["model"], new["model"]
    ledger = [(e.rho, e.note) for e in mo.ledger_.entries] == [
        (e.rho, e.note) for e in mn.ledger_.entries
    ]
    rel, frac, same_queries = 0.0, 0.0, True
    steps_o, steps_n = mo.bench_["marginals"], mn.bench_["marginals"]
    same_queries = len(steps_o) == len(steps_n)
    for (qo, fo, total), (qn, fn, _) in zip(steps_o, steps_n, strict=False):
        same_queries &= qo == qn
        for a, b in zip(fo, fn, strict=True):
            diff = np.abs(a - b)
            rel = max(rel, float(np.max(diff / np.maximum(np.abs(a), 1e-300))))
            frac = max(frac, float(diff.max()) / total)
    return dict(
        selected=mo.selected_marginals_ == mn.selected_marginals_,
        queried=same_queries,
        ledger=ledger,
        steps=mo.iterations_ == mn.iterations_,
        records=old["synth"].equals(new["synth"]),
        rel=rel,
        frac=frac,
    )


def agreement_line(a: dict) -> str:
    """The printed summary of :func:`agreement`."""
    return (
        f"selected cliques {a['selected']}, queried candidates {a['queried']}, ledger "
        f"{a['ledger']}, steps {a['steps']}, synthetic records {a['records']}; candidate "
        f"marginals max relative difference {a['rel']:.2e}, max |difference| / total "
        f"{a['frac']:.2e}"
    )


def report_records(rep: Report, eps: float, runs: dict, codes, sizes) -> None:
    """Print how the synthetic records of two runs (``runs``: name -> :func:`run` result)
    compare: the share of rows equal by position, the mean 2-way TVD between the two tables and
    each table's TVD to the data."""
    (na, a), (nb, b) = runs.items()
    x, y = a["synth"], b["synth"]
    same_rows = (x.to_numpy() == y.to_numpy()).all(axis=1).mean()
    rep(
        f"   synthetic records eps={eps:g}: {same_rows:.1%} of rows identical; mean 2-way TVD "
        f"between the two runs {ep.two_way_tvd(x, y, sizes):.4f} (to the data: {na} "
        f"{ep.two_way_tvd(codes, x, sizes):.4f}, {nb} {ep.two_way_tvd(codes, y, sizes):.4f})"
    )


def open_report(script: str, doc: str, argv) -> tuple[argparse.Namespace, Report, object, dict]:
    """Parse ``--epsilons`` and ``--output`` (``doc``: the script's docstring), print the header
    (command, machine, data) and load the thyroid codes: (arguments, report, codes, sizes)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--epsilons", type=float, nargs="+", default=[10.0])
    ap.add_argument("--output", type=Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)
    rep = Report.start(script, argv)
    codes, sizes, _ = ep.prepare(DATASET)
    rep(f"data: {DATASET} {len(codes):,} x {codes.shape[1]}; delta = {DELTA:g}; seed {SEED}")
    return args, rep, codes, sizes


def report_fit(rep: Report, name: str, eps: float, r: dict, before: float, extra: str) -> list:
    """Print one fit's line (CPU split, wall, steps, ``extra``, load) and return its table row
    (path, ε, fit, candidates, estimations CPU s; the caller appends its own columns)."""
    b = r["model"].bench_
    rep(
        f"   {name} eps={eps:<4g} fit CPU {r['fit_cpu']:.1f} s (candidate marginals "
        f"{b['select_cpu']:.1f} s, estimations {b['estimate_cpu']:.1f} s), wall "
        f"{r['fit_s']:.1f} s; steps {r['model'].iterations_}; {extra}load before {before:.1f}"
    )
    return [
        name,
        f"{eps:g}",
        f"{r['fit_cpu']:.1f}",
        f"{b['select_cpu']:.1f}",
        f"{b['estimate_cpu']:.1f}",
    ]


def compare_paths(script: str, doc: str, argv, names: tuple, old_path, column: str, extra=None):
    """Fit PrivMRF twice per ε in one process, ``names`` = (new, old), the old run inside the
    context ``old_path()``; print each fit (:func:`report_fit`), the synthetic records
    (:func:`report_records`), the agreement (:func:`agreement`) and the table (``column``: the
    name of the first column), and save the report as ``results_<script>.txt`` on a full run.
    ``extra(model, is_new)`` -> (text for the fit's line, extra column headers, their cells)."""
    new, old = names
    args, rep, codes, sizes = open_report(script, doc, argv)
    rows, headers = [], []
    for eps in args.epsilons:
        res = {}
        for name in names:
            before = os.getloadavg()[0]
            with old_path() if name == old else contextlib.nullcontext():
                r = res[name] = run(NewSelect, codes, sizes, eps)
            text, headers, cells = extra(r["model"], name == new) if extra else ("", [], [])
            row = report_fit(rep, name, eps, r, before, text)
            rows.append([*row, *cells, f"{r['fit_s']:.1f}"])
        report_records(rep, eps, {old: res[old], new: res[new]}, codes, sizes)
        a, b = res[old], res[new]
        rep(
            f"   agreement eps={eps:g}: {agreement_line(agreement(a, b))}; fit CPU {old}/{new} "
            f"{a['fit_cpu'] / b['fit_cpu']:.2f}x, estimations "
            f"{a['model'].bench_['estimate_cpu'] / b['model'].bench_['estimate_cpu']:.2f}x"
        )
    rep()
    columns = [column, "ε", "fit CPU s", "candidates CPU s", "estimation CPU s"]
    rep.table([*columns, *headers, "wall s"], rows)
    rep(f"benchmark finished; {load()}")
    stem = Path(script).stem.removeprefix("bench_")
    rep.finish(args.output, ROOT / "benchmarks" / f"results_{stem}.txt", args.epsilons == [10.0])
    return 0


def main(argv=None) -> int:
    args, rep, codes, sizes = open_report("bench_privmrf_select.py", __doc__, argv)
    rows = []
    for eps in args.epsilons:
        res = {}
        for name, cls in (("new", NewSelect), ("old", OldSelect)):
            before = os.getloadavg()[0]
            r = res[name] = run(cls, codes, sizes, eps)
            b = r["model"].bench_
            rest = r["fit_cpu"] - b["select_cpu"] - b["estimate_cpu"]
            row = report_fit(rep, name, eps, r, before, "")
            rows.append([*row, f"{rest:.1f}", f"{r['fit_s']:.1f}"])
        a = agreement(res["old"], res["new"])
        rep(
            f"   agreement eps={eps:g}: {agreement_line(a)}; fit CPU old/new "
            f"{res['old']['fit_cpu'] / res['new']['fit_cpu']:.2f}x, candidate marginals "
            f"{res['old']['model'].bench_['select_cpu'] / res['new']['model'].bench_['select_cpu']:.1f}x"
        )
    rep()
    rep.table(
        ["path", "ε", "fit CPU s", "candidates CPU s", "estimation CPU s", "rest CPU s", "wall s"],
        rows,
    )
    rep(f"benchmark finished; {load()}")
    if args.output is not None:
        rep.save(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
