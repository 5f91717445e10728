"""Benchmarks for chapter 4 (feature importance, a re-run of Giles et al. 2022).

Run from the repository root::

    .venv/bin/python benchmarks/bench_importance.py             # all parts (or: make bench-importance)
    .venv/bin/python benchmarks/bench_importance.py --quick     # sanity run (< 30 s)
    .venv/bin/python benchmarks/bench_importance.py --parts 1   # only the listed parts

Part 1 — correlated rank similarity: exact assignment vs the reference's linear programmes.
    ``synthtrust.importance.correlated_rank_similarity`` solves, at every depth d, the assignment
    problem max Σ W_ij·√C_ij over permutation matrices W on the two depth-d prefixes with
    ``scipy.optimize.linear_sum_assignment`` (exact; Birkhoff–von Neumann: the optimum over
    doubly stochastic W is attained at a permutation). The QUIPP pipeline used by Giles et al.
    (2022) [``giles2022``] instead solves, at every depth, the linear programme
    over doubly stochastic W ∈ [0, 1]^{d×d} (row and column sums 1) with PuLP/CBC. Here that LP is
    re-solved with ``scipy.optimize.linprog(method="highs")`` on a sparse constraint matrix (a
    faster stand-in for PuLP/CBC, so the ratio is a lower bound on the gain over the reference).
    Inputs: two independent uniformly random rankings of n ∈ {39, 67, 141} features (the feature
    counts of Household, Polish and Adult) and a random symmetric association matrix
    (C_ij ~ U(0, 1), C_ii = 1); p = 0.8, extrapolated form (``ext=True``). The script **asserts**
    that every per-depth soft overlap X_d and the final value agree to 1e-6. Times: best of
    ``--repeats`` runs for the assignment, ``--lp-repeats`` runs (best) for the LPs. Also printed:
    the cost of the random-permutation baseline with correlated RBO
    (``random_permutation_rbo(..., association=C)``) per draw.

Part 2 — the cost of one replicate of the chapter per dataset (Artificial 1, Household, Polish,
    Adult), split into synthesizer fit, feature engineering, forest fit, TreeSHAP, permutation
    importance, association matrix and similarity: where the ``default`` and ``paper`` presets
    spend their time (TreeSHAP on Adult's deep trees dominates; hence ``shap_rows``).

Parts are functions ``part<k>(say, args)`` registered in ``PARTS``; ``main()`` runs the parts
given by ``--parts`` in order.

The report goes to stdout and, for a full run, to ``benchmarks/results_importance.txt``
(``--output``; temp file + rename).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
from _report import Report, load, machine  # benchmarks/ is on sys.path when run as a script
from scipy import sparse
from scipy.optimize import linprog

from synthtrust.importance import correlated_rank_similarity, random_permutation_rbo
from synthtrust.importance.correlated import association_weights, soft_overlaps

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-6
P = 0.8  # persistence of Giles et al. (2022), App. A
#: feature counts of the paper's engineered tables: Household, Polish, Adult (App. A)
SIZES = (39, 67, 141)
TARGET_RATIO = 20.0


def secs(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    if t < 1:
        return f"{t * 1e3:.1f} ms"
    return f"{t:.2f} s"


def best_time(fn, repeats: int):
    """(best wall time over ``repeats`` calls, result of the last call)."""
    best, out = float("inf"), None
    for _ in range(max(1, repeats)):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


# --------------------------------------------------------------------------------------------
# part 1: correlated RBO, assignment vs LP
# --------------------------------------------------------------------------------------------
def random_problem(n: int, seed: int):
    """Two independent random rankings of n features and a random association matrix."""
    rng = np.random.default_rng(seed)
    feats = [f"f{i}" for i in range(n)]
    m = rng.uniform(0.0, 1.0, (n, n))
    m = (m + m.T) / 2
    np.fill_diagonal(m, 1.0)
    assoc = pd.DataFrame(m, index=feats, columns=feats)
    return list(rng.permutation(feats)), list(rng.permutation(feats)), assoc


def doubly_stochastic_constraints(d: int) -> sparse.csr_matrix:
    """A_eq (2d × d²) of "every row sum and every column sum of W (row-major) is 1"."""
    idx = np.arange(d * d)
    rows = np.concatenate([idx // d, d + idx % d])
    return sparse.csr_matrix(
        (np.ones(2 * d * d), (rows, np.concatenate([idx, idx]))), shape=(2 * d, d * d)
    )


def lp_soft_overlaps(weight: np.ndarray) -> np.ndarray:
    """X_d for d = 1..n: max Σ W_ij·weight_ij over doubly stochastic W on the depth-d prefixes,
    one HiGHS LP per depth (the QUIPP pipeline's formulation, ``rbo.py``, re-solved)."""
    n = weight.shape[0]
    out = np.empty(n)
    for d in range(1, n + 1):
        res = linprog(
            -weight[:d, :d].ravel(),
            A_eq=doubly_stochastic_constraints(d),
            b_eq=np.ones(2 * d),
            bounds=(0.0, 1.0),
            method="highs",
        )
        if res.status != 0:
            raise RuntimeError(f"linprog failed at depth {d}: {res.message}")
        out[d - 1] = -res.fun
    return out


def rbo_ext_from_overlaps(x: np.ndarray, p: float) -> float:
    """(1 − p)·Σ p^{d−1}·X_d/d + (X_k/k)·p^k, the reference's ``ext=True`` form."""
    k = x.size
    d = np.arange(1, k + 1)
    a = x / d
    return float((1 - p) * np.sum(p ** (d - 1) * a) + a[-1] * p**k)


def part1(say: Report, args) -> None:
    sizes = SIZES[:2] if args.quick else SIZES
    repeats = 2 if args.quick else args.repeats
    lp_repeats = 1 if args.quick else args.lp_repeats
    say(
        f"Part 1 — correlated rank similarity (p = {P}, ext=True): exact assignment "
        f"(linear_sum_assignment) vs one LP per depth (linprog HiGHS, doubly stochastic W); "
        f"assignment best of {repeats}, LPs best of {lp_repeats}; {load()}"
    )
    rows, worst, ratios = [], 0.0, []
    for n in sizes:
        s, t, assoc = random_problem(n, seed=n)
        weight = association_weights(s, t, assoc)
        t_ours, value = best_time(
            lambda s=s, t=t, a=assoc: correlated_rank_similarity(s, t, a, P, ext=True), repeats
        )
        t_lp, x_lp = best_time(lambda w=weight: lp_soft_overlaps(w), lp_repeats)
        x_ours = soft_overlaps(s, t, weight, n)
        value_lp = rbo_ext_from_overlaps(x_lp, P)
        dx = float(np.max(np.abs(x_ours - x_lp)))
        dv = abs(value - value_lp)
        if dx > TOL or dv > TOL:
            raise AssertionError(
                f"n = {n}: assignment and LP disagree (max |ΔX_d| = {dx:.3g}, "
                f"|Δ value| = {dv:.3g} > {TOL})"
            )
        worst = max(worst, dx, dv)
        t_perm, _ = best_time(
            lambda s=s, a=assoc: random_permutation_rbo(s, P, 5, association=a, random_state=0), 1
        )
        ratios.append(t_lp / t_ours)
        rows.append(
            [
                n,
                f"{value:.6f}",
                secs(t_ours),
                secs(t_lp),
                f"{t_lp / t_ours:.0f}x",
                f"{max(dx, dv):.1e}",
                secs(t_perm / 5),
            ]
        )
    say.table(
        [
            "features",
            "corrRBO_ext",
            "assignment",
            "LP (HiGHS)",
            "speed-up",
            "max |Δ|",
            "perm. baseline/draw",
        ],
        rows,
    )
    say(
        f"values and every X_d agree to {worst:.1e} (asserted ≤ {TOL:g}); "
        f"speed-up {min(ratios):.0f}x–{max(ratios):.0f}x (target ≥ {TARGET_RATIO:.0f}x: "
        f"{'met' if min(ratios) >= TARGET_RATIO else 'NOT met'})"
    )
    say(
        "perm. baseline/draw: random_permutation_rbo with the association (RBO_ext and "
        "corrRBO_ext of one random permutation), 5 draws timed once"
    )


#: datasets of part 2, from the fewest to the most engineered features
PART2_DATASETS = ("artificial_1", "household", "polish", "adult")


def part2(say: Report, args) -> None:
    """One replicate of the chapter's pipeline per dataset, phase by phase (one core)."""
    from synthtrust.importance import association_matrix, feature_importance
    from synthtrust.studies import feature_importance as fi
    from synthtrust.studies.feature_importance import data as fid
    from synthtrust.studies.feature_importance import models

    names = PART2_DATASETS[:2] if args.quick else PART2_DATASETS
    shap_rows = 50 if args.quick else 200
    say(
        f"Part 2 — one replicate of the chapter per dataset, on one core: PrivBayes fit + sample "
        f"(k = 3, ε = 1), feature engineering of the synthetic table, random forest (150 trees, "
        f"70 %), TreeSHAP on {shap_rows} test rows (and extrapolated to the whole 30 % split, "
        f"the paper preset), permutation importance (5 repeats, whole 30 %), similarity "
        f"(association matrix of the real training features, RBO_ext, corrRBO_ext, cosine); "
        f"{load()}"
    )
    rows = []
    for name in names:
        real = fid.load_table(name)
        t0 = time.perf_counter()
        synth = fi.make_generator(
            "privbayes", 1.0, name, {"privbayes_degree": 3, "privbayes_beta": 0.5}, 0
        )
        synth = synth.fit(real.drop(columns=list(fid.DATASETS[name].identifiers)))
        table = synth.sample(len(real))
        t_syn = time.perf_counter() - t0
        t_fe, (X, y) = best_time(lambda t=table, n=name: fid.engineer_features(n, t), 1)
        Xr, yr = fid.engineer_features(name, real)
        X_train, X_test, y_train, y_test = models.split_table(Xr, yr, 0.3, 0)
        t_fit, model = best_time(
            lambda a=X_train, b=y_train: models.make_forest(150, 0).fit(a, b), 1
        )
        t_shap, _ = best_time(
            lambda m=model, x=X_test.iloc[:shap_rows]: feature_importance(m, x, method="shap"), 1
        )
        t_pfi, _ = best_time(
            lambda m=model, x=X_test, yy=y_test: feature_importance(
                m, x, yy, "permutation", n_repeats=5, random_state=0
            ),
            1,
        )
        t_assoc, assoc = best_time(
            lambda a=X_train, n=name: association_matrix(a, categorical=fid.nominal_features(n)), 1
        )
        imp = feature_importance(model, X_train, method="mdi")
        t_sim, _ = best_time(
            lambda i=imp, a=assoc: fi.compare_rankings(i, i.sample(frac=1.0, random_state=1), a, P),
            1,
        )
        full = t_shap / shap_rows * len(X_test)
        rows.append(
            [
                fid.DATASETS[name].label,
                f"{len(Xr):,}",
                X.shape[1],
                secs(t_syn),
                secs(t_fe),
                secs(t_fit),
                secs(t_shap),
                secs(full),
                secs(t_pfi),
                secs(t_assoc),
                secs(t_sim),
            ]
        )
    say.table(
        [
            "dataset",
            "rows",
            "features",
            "PrivBayes",
            "engineer",
            "forest",
            f"SHAP {shap_rows}",
            "SHAP 30 %",
            "PFI",
            "assoc.",
            "similarity",
        ],
        rows,
    )
    say(
        "SHAP 30 %: the per-row TreeSHAP time times the rows of the test split (the paper "
        "preset's shap_rows: null); the association matrix is computed once per replicate "
        "and dataset, the similarity once per synthetic table and importance measure"
    )


#: the parts, run in this order
PARTS = {"1": part1, "2": part2}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="sanity run: 39 and 67 features only, fewer repeats, no report file",
    )
    ap.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"comma-separated parts to run, in order (default: {','.join(PARTS)})",
    )
    ap.add_argument("--repeats", type=int, default=5, help="timed runs of the assignment (5)")
    ap.add_argument("--lp-repeats", type=int, default=1, help="timed runs of the LPs (1)")
    ap.add_argument(
        "--output",
        type=Path,
        default=None,
        help="report file (default for a full run: benchmarks/results_importance.txt)",
    )
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        ap.error(f"unknown part(s) {unknown}; available: {sorted(PARTS)}")

    say = Report()
    t0 = time.perf_counter()
    say(
        f"bench_importance.py — {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC"
        f"{' (--quick)' if args.quick else ''}"
    )
    say(f"machine: {machine()}; {load()}")
    say(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"pandas {pd.__version__}"
    )
    say()
    for part in parts:
        PARTS[part](say, args)
        say()
    say(f"benchmark total {secs(time.perf_counter() - t0)}; {load()}")
    say.finish(
        args.output,
        ROOT / "benchmarks" / "results_importance.txt",
        full_run=not args.quick and parts == list(PARTS),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
