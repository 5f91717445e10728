"""Permutation importance of one Adult forest of chapter 4: sklearn's default scorer (the whole
forest on the whole table for each permuted column) vs ``synthtrust.importance.forest_score``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_permutation.py           # full run (or: make bench-permutation)
    .venv/bin/python benchmarks/bench_permutation.py --quick   # 1 000 rows, 1 repeat, no report

The forest and split are ``bench_treeshap.py``'s (chapter 4's: Adult's 141 engineered columns,
``RandomForestClassifier(n_estimators=150)`` fully grown, 9 769 test rows). Both paths run
``sklearn.inspection.permutation_importance`` in this process on one thread with the chapter's
5 repeats and the same random state:

* old: ``scoring=None`` (``model.score``: 150 trees traverse every row for each permuted column);
* new: ``scoring=ForestAccuracy(model, X_test)``: rows whose path in a tree tests no permuted
  column keep their leaf, the others are traversed again; probabilities summed in tree order.

Printed: CPU and wall seconds of each, the ratio, and whether the importances (every repeat of
every column) are bitwise equal (asserted). The report goes to stdout and, for a full run, to
``benchmarks/results_permutation.txt`` (``--output``; temp file + rename).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from _report import ROOT, Report, load  # benchmarks/ is on sys.path when run as a script
from bench_treeshap import adult_forest, secs, timed

#: the speed-up the change was made for
TARGET_RATIO = 5.0


def main(argv=None) -> int:
    from sklearn.inspection import permutation_importance

    from synthtrust.importance.forest_score import ForestAccuracy

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 000 rows, 1 repeat, no report")
    ap.add_argument("--output", type=Path, default=None, help="report file")
    args = ap.parse_args(argv)
    say = Report.start("bench_permutation.py", argv)
    from synthtrust.studies.feature_importance import data as fid

    t_fit, _, (model, X_test) = timed(adult_forest)
    _, y = fid.engineer_features("adult", fid.load_table("adult"))
    rows, repeats = (1000, 1) if args.quick else (len(X_test), 5)
    X_test = X_test.iloc[:rows]
    y_test = y.loc[X_test.index]
    say(
        f"Adult forest: {len(model.estimators_)} trees fitted in {secs(t_fit)} CPU; "
        f"{X_test.shape[1]} columns x {repeats} repeats on {len(X_test):,} test rows"
    )

    def run(scoring):
        return permutation_importance(
            model, X_test, y_test, scoring=scoring, n_repeats=repeats, random_state=0
        ).importances

    cpu_old, wall_old, old = timed(lambda: run(None))
    cpu_new, wall_new, new = timed(lambda: run(ForestAccuracy(model, X_test)))
    same = bool(np.array_equal(old, new))
    say(f"one thread each; {load()}")
    say.table(
        ["scorer", "CPU", "wall"],
        [
            ["model.score (sklearn)", secs(cpu_old), secs(wall_old)],
            ["ForestAccuracy", secs(cpu_new), secs(wall_new)],
        ],
    )
    ratio = cpu_old / cpu_new
    say(
        f"speed-up {ratio:.1f}x in CPU time (target ≥ {TARGET_RATIO:.0f}x: "
        f"{'met' if ratio >= TARGET_RATIO else 'NOT met'}); importances of {old.size:,} "
        f"(column, repeat) pairs bitwise equal: {same}"
    )
    assert same
    say.finish(
        args.output, ROOT / "benchmarks" / "results_permutation.txt", full_run=not args.quick
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
