"""TreeSHAP of one Adult forest of chapter 4: shap's C++ TreeSHAP vs ``synthtrust.importance.treeshap``.

Run from the repository root::

    .venv/bin/python benchmarks/bench_treeshap.py            # full run (or: make bench-treeshap)
    .venv/bin/python benchmarks/bench_treeshap.py --quick    # sanity run (50 rows, < 1 min)

The forest is the chapter's: Adult's engineered features (141 columns), the 70/30 split and
``RandomForestClassifier(n_estimators=150)`` with fully grown trees (seed 0), as
``studies.feature_importance`` fits it. On the first ``--rows`` rows of the test split (default
500; the whole split, about 9 800 rows, costs shap's path about an hour of CPU), both paths run
in this process, one thread each:

* old: ``shap.TreeExplainer(model).shap_values(X)`` (Lundberg et al. 2020, O(leaves × depth²)
  per row);
* new: ``synthtrust.importance.treeshap.tree_shap_values`` (Owen's integral with Gauss–Legendre nodes,
  O(nodes × depth) per row; numba, compiled once per process: that time is printed apart).

Printed: CPU seconds (``time.process_time``) and wall seconds of each, the ratio of CPU seconds,
the largest ``|Δφ|`` over every row, feature and class and the largest ``|Δ mean |φ||`` of the
importance (asserted ≤ 1e-9), and the new path on the whole test split with the old path's time
extrapolated from its per-row cost. The report goes to stdout and, for a full run, to
``benchmarks/results_treeshap.txt`` (``--output``; temp file + rename).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import platform
import time
from pathlib import Path

import numpy as np
import sklearn
from _report import Report, load, machine  # benchmarks/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parents[1]

#: largest |Δφ| and |Δ mean |φ|| accepted between the two paths
TOL = 1e-9
#: the speed-up the change was made for
TARGET_RATIO = 10.0


def timed(fn):
    """(CPU seconds, wall seconds, result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, out


def secs(t: float) -> str:
    return f"{t:.2f} s" if t < 600 else f"{t:.0f} s ({t / 3600:.2f} h)"


def adult_forest():
    """The chapter's Adult forest and its test split."""
    from synthtrust.studies.feature_importance import data as fid
    from synthtrust.studies.feature_importance import models

    X, y = fid.engineer_features("adult", fid.load_table("adult"))
    X_train, X_test, y_train, _ = models.split_table(X, y, 0.3, 0)
    return models.make_forest(150, 0).fit(X_train, y_train), X_test


def main(argv=None) -> int:
    import shap

    from synthtrust.importance import treeshap as _treeshap

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="50 rows, no full split, no report")
    ap.add_argument("--rows", type=int, default=500, help="test rows both paths explain (500)")
    ap.add_argument("--output", type=Path, default=None, help="report file")
    args = ap.parse_args(argv)
    rows = 50 if args.quick else args.rows

    say = Report()
    say(
        f"bench_treeshap.py — {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC"
        f"{' (--quick)' if args.quick else ''}"
    )
    say(f"machine: {machine()}; {load()}")
    say(
        f"python {platform.python_version()}, numpy {np.__version__}, shap {shap.__version__}, "
        f"scikit-learn {sklearn.__version__}"
    )
    t_fit, _, (model, X_test) = timed(adult_forest)
    trees = [e.tree_ for e in model.estimators_]
    say(
        f"Adult forest: 150 trees fitted in {secs(t_fit)} CPU; {X_test.shape[1]} features, "
        f"{np.mean([t.node_count for t in trees]):.0f} nodes and depth "
        f"{np.mean([t.max_depth for t in trees]):.1f} per tree on average "
        f"(max {max(t.max_depth for t in trees)}); test split {len(X_test):,} rows"
    )
    X = X_test.iloc[:rows]
    explainer = shap.TreeExplainer(model)
    assert _treeshap.fast_path_applies(explainer, model)
    t_compile, _, _ = timed(lambda: _treeshap.tree_shap_values(explainer.model, X.iloc[:1]))
    cpu_old, wall_old, old = timed(lambda: np.asarray(explainer.shap_values(X)))
    cpu_new, wall_new, new = timed(lambda: _treeshap.tree_shap_values(explainer.model, X))
    d_phi = float(np.max(np.abs(new - old)))
    d_imp = float(np.max(np.abs(np.abs(new).mean(axis=(0, 2)) - np.abs(old).mean(axis=(0, 2)))))
    ratio = cpu_old / cpu_new
    say()
    say(f"{rows} test rows, one thread each; {load()}")
    say.table(
        ["path", "CPU", "wall", "CPU per row"],
        [
            ["shap.TreeExplainer", secs(cpu_old), secs(wall_old), f"{cpu_old / rows * 1e3:.1f} ms"],
            [
                "synthtrust.importance.treeshap",
                secs(cpu_new),
                secs(wall_new),
                f"{cpu_new / rows * 1e3:.2f} ms",
            ],
        ],
    )
    say(
        f"speed-up {ratio:.1f}x in CPU time (target ≥ {TARGET_RATIO:.0f}x: "
        f"{'met' if ratio >= TARGET_RATIO else 'NOT met'}); numba compilation, once per process: "
        f"{secs(t_compile)} CPU"
    )
    say(
        f"max |Δφ| = {d_phi:.1e} over {old.size:,} values (|φ| ≤ {np.abs(old).max():.3f}); "
        f"max |Δ mean |φ|| = {d_imp:.1e} (asserted ≤ {TOL:g})"
    )
    assert d_phi <= TOL and d_imp <= TOL, (d_phi, d_imp)
    if not args.quick:
        cpu_all, wall_all, _ = timed(lambda: _treeshap.tree_shap_values(explainer.model, X_test))
        say()
        say(
            f"whole test split ({len(X_test):,} rows): synthtrust.importance.treeshap {secs(cpu_all)} CPU "
            f"({secs(wall_all)} wall); shap.TreeExplainer extrapolated from its {rows} rows: "
            f"{secs(cpu_old / rows * len(X_test))} CPU; {load()}"
        )
    say.finish(args.output, ROOT / "benchmarks" / "results_treeshap.txt", full_run=not args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
