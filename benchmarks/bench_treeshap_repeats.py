"""TreeSHAP of chapter 4's forests on tables with repeated rows: every row (previous) vs each
distinct row once (``synthtrust.importance.treeshap.tree_shap_values`` now).

Run from the repository root::

    .venv/bin/python benchmarks/bench_treeshap_repeats.py            # or: make bench-treeshap-repeats
    .venv/bin/python benchmarks/bench_treeshap_repeats.py --quick    # two datasets, < 1 min

For each dataset, a replicate as chapter 4's ``paper`` preset runs it (``shap_rows: null``, the
whole 30 % test split): the real table, and a PrivBayes table at ε = 1 (degree 3, β = 0.5, the
chapter's generator and domain, seed 0) of the same size; the chapter's features, 70/30 split and
forest (150 fully grown trees, seed 0); then TreeSHAP of the whole test split, in this process,
one thread, twice: on every row (``treeshap._every_row``, the previous path) and through
``tree_shap_values`` (each distinct row once, the values given back to the repeated rows). The
script **asserts** that the two arrays of φ are bitwise equal. Printed: rows, distinct rows, CPU
seconds of each path and their ratio. numba compiles the kernel once before the timings.

The report goes to stdout and, for a full run, to ``benchmarks/results_treeshap_repeats.txt``
(``--output``; temp file + rename).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from _report import ROOT, Report  # benchmarks/ is on sys.path when run as a script

#: Chapter 4's datasets of the paper preset without Adult (no repeated rows in its tables, and
#: its whole split costs about a minute a path)
DATASETS = (
    "artificial_1",
    "artificial_2",
    "artificial_3",
    "artificial_4",
    "artificial_5",
    "polish",
    "household",
)


def _cpu(fn):
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _tables(dataset: str):
    """(label, engineered X, y) of the real table and of a PrivBayes table at ε = 1."""
    from synthtrust.studies.feature_importance import grid
    from synthtrust.studies.feature_importance.data import engineer_features

    params = {"privbayes_degree": 3, "privbayes_beta": 0.5, "pate_max_iter": 300, "delta": 1e-6}
    side = grid._real_split(dataset, 2022, 0, 0.3)
    synth, _ = grid._synthesize(
        "privbayes", 1.0, dataset, side["real"], params, np.random.default_rng(0)
    )
    return [("real", side["X"], side["y"]), ("PrivBayes ε=1", *engineer_features(dataset, synth))]


def main(argv=None) -> int:
    import shap

    from synthtrust.importance import treeshap
    from synthtrust.studies.feature_importance import models

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="artificial_1 and polish, no report")
    ap.add_argument("--datasets", nargs="+", default=None, help=f"default: {' '.join(DATASETS)}")
    ap.add_argument("--output", type=Path, default=None, help="report file")
    args = ap.parse_args(argv)
    names = args.datasets or (["artificial_1", "polish"] if args.quick else list(DATASETS))

    say = Report.start("bench_treeshap_repeats.py", argv)
    say("TreeSHAP of the whole 30 % test split, one thread: every row vs each distinct row once")
    say()
    rows, total_old, total_new = [], 0.0, 0.0
    compiled = False
    for name in names:
        for label, X, y in _tables(name):
            X_train, X_test, y_train, _ = models.split_table(X, y, 0.3, 0)
            model = models.make_forest(150, 0).fit(X_train, y_train)
            ens = shap.TreeExplainer(model).model
            if not compiled:
                treeshap.tree_shap_values(ens, X_test.iloc[:1])
                compiled = True
            cast = np.ascontiguousarray(X_test.to_numpy().astype(ens.input_dtype))
            t_old, old = _cpu(lambda: treeshap._every_row(ens, cast))  # noqa: B023
            t_new, new = _cpu(lambda: treeshap.tree_shap_values(ens, X_test))  # noqa: B023
            same = bool(np.array_equal(old, new))
            assert same, f"{name} {label}: the values differ"
            distinct = len(treeshap.distinct_rows(cast)[0])
            total_old, total_new = total_old + t_old, total_new + t_new
            rows.append(
                [
                    name,
                    label,
                    f"{len(X_test):,}",
                    f"{distinct:,}",
                    f"{t_old:.2f}",
                    f"{t_new:.2f}",
                    f"{t_new / t_old:.3f}",
                    str(same),
                ]
            )
    rows.append(
        [
            "all",
            "",
            "",
            "",
            f"{total_old:.2f}",
            f"{total_new:.2f}",
            f"{total_new / total_old:.3f}",
            "",
        ]
    )
    say.table(
        [
            "dataset",
            "table",
            "rows",
            "distinct",
            "every row s",
            "distinct s",
            "ratio new/old",
            "bitwise equal",
        ],
        rows,
        right={2, 3, 4, 5, 6},
    )
    full = not args.quick and args.datasets is None
    say.finish(args.output, ROOT / "benchmarks" / "results_treeshap_repeats.txt", full_run=full)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
