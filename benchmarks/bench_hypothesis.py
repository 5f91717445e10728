"""Benchmarks for chapter 1 (hypothesis validity): vectorized tests and the grid's compute time.

Run from the repository root::

    .venv/bin/python benchmarks/bench_hypothesis.py            # full run (several minutes)
    .venv/bin/python benchmarks/bench_hypothesis.py --quick    # sanity run (< 1 min)

Part 1 — counts fast path vs a per-replicate SciPy loop, on the same data.
    Synthetic count matrices as the study produces them: Gaussian non-signal originals
    (``hv.original_samples``), binned on the 100 Gaussian bins (``hv._group_counts``) and released
    with the DP perturbed histogram (``hv._synthesize``), for every n ∈ {50, 100, 500, 1000, 20000}
    × ε ∈ {0.01, 0.1, 1, 5, 10}, 1000 replicates per cell (shape (reps, 2 groups, 100 bins)).
    (a) the four tests with ``synthtrust.hypothesis.*_counts`` on all replicates at once (and, as
    run_grid calls them, per chunk of 50 replicates); (b) ``scipy.stats`` (mannwhitneyu,
    ttest_ind, median_test, chi2_contingency of group × [value ≥ split] with absent categories
    dropped, as the study's ``chi2_counts``) in a Python loop over replicates on the expanded raw
    samples ``np.repeat(values, counts)``.  The script asserts that the p-values agree to 1e-10
    (absolute + relative; NaN where SciPy raises) on every replicate it ran through SciPy.

Part 2 — compute time of the chapter's grid (no notebook).
    ``run_grid(simulate_cell, cells, n_reps, seed, n_jobs=2, chunk_size=50, cache_dir=<fresh
    temporary dir>)`` on every cell of the ``paper`` preset (the Gaussian scenarios, then cardio,
    two calls as in the chapter) with a reduced number of replicates (default 50 = one task per
    cell), then a linear extrapolation to the preset's replicates.  ``simulate_cell`` is wrapped to
    record each task's own time, which gives the breakdown by method and data.

Part 4 — the ``paper`` preset end to end, measured (not extrapolated).
    ``synthtrust run hypothesis_validity --preset paper`` in a subprocess with a fresh output and
    cache directory: the whole chapter (papermill, all 375 cells × 1000 replicates, tables,
    charts, manifest) on all cores. Wall time from the clock; CPU time of the finished child
    processes (the CLI, the kernel and the joblib workers) from ``getrusage(RUSAGE_CHILDREN)``.

The script writes nothing but its report (``--output``; atomic temp file + rename) and removes its
temporary cache directories.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import scipy
import yaml
from _hypothesis_counts import (  # the counts data and both paths of part 1
    NO_SIGNAL,
    TOL,
    check_agreement,
    make_counts,
    scipy_loop,
    time_study_helper,
    time_vectorized,
)

from synthtrust import hypothesis
from synthtrust.run.experiment import run_grid
from synthtrust.studies.hypothesis_validity import simulation as hv

ROOT = Path(__file__).resolve().parents[1]
PARAMS = ROOT / "chapters" / "params" / "hypothesis_validity"
N_JOBS = 2
CHUNK = 50  # the chapter's chunk_size
#: the study's Gaussian scenarios
GAUSSIAN_DATA = list(hv.GAUSSIAN)


# --------------------------------------------------------------------------------------------
# output helpers
# --------------------------------------------------------------------------------------------
from _report import Report, load, machine  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def secs(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    if t < 1:
        return f"{t * 1e3:.1f} ms"
    if t < 120:
        return f"{t:.2f} s"
    return f"{t:.0f} s ({t / 60:.1f} min)"


# --------------------------------------------------------------------------------------------
# Part 1: vectorized counts tests vs a per-replicate SciPy loop (the data, both paths and the
# agreement check are in _hypothesis_counts.py)
# --------------------------------------------------------------------------------------------


def part1(rep: Report, reps: int, scipy_k: int, repeats: int, seed: int) -> dict:
    sizes = [50, 100, 500, 1000, 20000]
    epsilons = [0.01, 0.1, 1.0, 5.0, 10.0]
    bins = hv.GAUSSIAN_BINS
    rep("=" * 100)
    rep("PART 1  Counts fast path (synthtrust.hypothesis.*_counts) vs scipy.stats loop, same data")
    rep("=" * 100)
    s = time.perf_counter()
    cells, counts = make_counts(sizes, epsilons, reps, seed)
    gen = time.perf_counter() - s
    n_cells = len(cells)
    n_total = n_cells * reps
    flat = counts.reshape(n_total, 2, bins.n_bins)
    rep(
        f"data: Gaussian {NO_SIGNAL!r} originals -> DP perturbed histogram synthetic counts (study code), "
        f"n in {sizes} x eps in {epsilons},"
    )
    rep(
        f"      {reps} replicates per cell = {n_total} replicates of shape (2 groups, "
        f"{bins.n_bins} bins); generated in {secs(gen)} (not timed below)"
    )

    vec_all, t_all = time_vectorized(flat, bins, repeats)
    _, t_chunk = time_vectorized(flat, bins, repeats, chunk=CHUNK)
    t_study = time_study_helper(flat, bins, repeats, CHUNK)

    s = time.perf_counter()
    ref, t_sc, k = scipy_loop(counts, scipy_k)
    t_loop_wall = time.perf_counter() - s
    worst = check_agreement(vec_all, ref, n_cells, reps, k)
    n_checked = n_cells * k
    label = (
        "measured on all replicates"
        if k == reps
        else f"extrapolated from {k} of {reps} replicates per cell ({n_checked} of {n_total})"
    )
    rep(f"scipy loop: {label}; loop wall time {secs(t_loop_wall)}")
    rep(
        f"vectorized: best of {repeats} runs; 'all at once' = one call on all {n_total} replicates, "
        f"'chunks of {CHUNK}' = as run_grid feeds simulate_cell"
    )
    rep()
    rows = []
    tot_sc = sum(t_sc[t] for t in hv.TESTS)
    tot_all = sum(t_all.values())
    tot_chunk = sum(t_chunk.values())
    for test in hv.TESTS:
        rows.append(
            [
                test,
                secs(t_sc[test]),
                secs(t_all[test]),
                secs(t_chunk[test]),
                f"{t_sc[test] / t_all[test]:,.0f}x",
                f"{t_sc[test] / t_chunk[test]:,.0f}x",
            ]
        )
    rows.append(
        [
            "4 tests",
            secs(tot_sc),
            secs(tot_all),
            secs(tot_chunk),
            f"{tot_sc / tot_all:,.0f}x",
            f"{tot_sc / tot_chunk:,.0f}x",
        ]
    )
    tot_sc_exp = tot_sc + t_sc["expand"]
    rows.append(
        [
            "4 tests + np.repeat expansion",
            secs(tot_sc_exp),
            secs(tot_all),
            secs(tot_chunk),
            f"{tot_sc_exp / tot_all:,.0f}x",
            f"{tot_sc_exp / tot_chunk:,.0f}x",
        ]
    )
    rep.table(
        [
            "test",
            "scipy loop",
            "vectorized (all)",
            f"vectorized ({CHUNK})",
            "speed-up (all)",
            f"speed-up ({CHUNK})",
        ],
        rows,
    )
    rep()
    rep(
        f"study's hv._tests_from_counts (4 tests + feasibility rules), chunks of {CHUNK}: "
        f"{secs(t_study)} for {n_total} replicates ({t_study / n_total * 1e6:.1f} µs/replicate)"
    )
    rep(
        f"per replicate: scipy {tot_sc / n_total * 1e6:.0f} µs (tests only), "
        f"{tot_sc_exp / n_total * 1e6:.0f} µs (with expansion); vectorized "
        f"{tot_all / n_total * 1e6:.2f} µs (all), {tot_chunk / n_total * 1e6:.2f} µs (chunks)"
    )
    rep(
        f"agreement asserted on {n_checked} replicates (|dp| <= {TOL:g}*(1+|p|), NaN where SciPy "
        f"raises): max |dp| " + ", ".join(f"{t} {w:.1e} ({nn} NaN)" for t, (w, nn) in worst.items())
    )
    speedup = tot_sc / tot_chunk
    verdict = "OK" if speedup >= 50 else "BELOW TARGET"
    rep(
        f"speed-up of the 4 tests, as the study runs them (chunks of {CHUNK}): {speedup:,.0f}x "
        f"(target >= 50x: {verdict}); all at once: {tot_sc / tot_all:,.0f}x"
    )
    return {"speedup_chunk": speedup, "speedup_all": tot_sc / tot_all}


# --------------------------------------------------------------------------------------------
# Part 2: the chapter's grid through run_grid
# --------------------------------------------------------------------------------------------
def timed_simulate_cell(params, rngs):
    """hv.simulate_cell plus the task's own wall and CPU time (for the breakdown)."""
    start = time.time()
    w, c = time.perf_counter(), time.process_time()
    out = hv.simulate_cell(params, rngs)
    out["bench_task_start"] = start
    out["bench_task_wall"] = time.perf_counter() - w
    out["bench_task_cpu"] = time.process_time() - c
    out["bench_pid"] = os.getpid()
    try:
        import psutil  # a loky dependency

        out["bench_rss_mb"] = psutil.Process().memory_info().rss / 1e6
    except ImportError:
        out["bench_rss_mb"] = np.nan
    return out


def read_preset(name: str) -> dict:
    with open(PARAMS / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def chapter_cells(p: dict) -> dict[str, list[dict]]:
    """The chapter's two run_grid calls: the Gaussian scenarios, then cardio."""
    common = dict(
        methods=p["methods"],
        epsilon=p["epsilon"],
        smoothed_original_size=p["smoothed_original_size"],
        smoothed_sizes=p["smoothed_sizes"],
        alpha=p["alpha"],
        delta=p["dp_mwu_delta"],
        n_sim=p["dp_mwu_n_sim"],
        pgm_max_iter=p.get("pgm_max_iter"),
    )
    return {
        "gaussian": hv.build_grid(data=GAUSSIAN_DATA, sizes=p["sizes"], **common),
        "cardio": hv.build_grid(data=["cardio"], sizes=p["cardio_sizes"], **common),
    }


def run_preset_grid(grids: dict, n_reps: int, seed: int) -> tuple[dict, pd.DataFrame]:
    """Run every grid with a fresh cache dir; return ({group: wall seconds}, per-task frame)."""
    walls, tasks = {}, []
    # loky warns when it replaces a worker (reported below from the worker pids instead)
    warnings.filterwarnings("ignore", message="A worker stopped while some jobs")
    for group, cells in grids.items():
        cache = tempfile.mkdtemp(prefix="bench_hv_cache_")
        try:
            s = time.perf_counter()
            out = run_grid(
                timed_simulate_cell,
                cells,
                n_reps,
                seed,
                n_jobs=N_JOBS,
                chunk_size=CHUNK,
                cache_dir=cache,
                progress=False,
            )
            walls[group] = time.perf_counter() - s
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        # one row per task: the cell's parameters and the task's timing (constant within a task)
        out["task"] = out["rep"] // CHUNK
        per = (
            out.groupby(["data", "method", "n", "m", "epsilon", "task"], dropna=False, sort=False)
            .agg(
                wall=("bench_task_wall", "first"),
                cpu=("bench_task_cpu", "first"),
                pid=("bench_pid", "first"),
                start=("bench_task_start", "first"),
                rss=("bench_rss_mb", "first"),
            )
            .reset_index()
        )
        per["group"] = group
        tasks.append(per)
    return walls, pd.concat(tasks, ignore_index=True)


def part2(rep: Report, preset_names: list[str], n_reps: int, seed_override, quick: bool) -> dict:
    rep()
    rep("=" * 100)
    rep(
        "PART 2  Compute time of the chapter-1 grid: run_grid(simulate_cell, cells, ...) "
        f"n_jobs={N_JOBS}, chunk_size={CHUNK}, fresh cache"
    )
    rep("=" * 100)
    presets = {name: read_preset(name) for name in preset_names}
    base_name = preset_names[0]
    base = presets[base_name]
    grids = chapter_cells(base)
    for name, p in presets.items():  # the extrapolation needs the same cells
        if chapter_cells(p) != grids:
            raise SystemExit(
                f"preset {name!r} has a different grid from {base_name!r}; measure it separately"
            )
    seed = base["seed"] if seed_override is None else seed_override
    n_cells = {g: len(c) for g, c in grids.items()}
    rep(
        f"cells of the {base_name!r} grid: gaussian ({' + '.join(GAUSSIAN_DATA)}) "
        f"{n_cells['gaussian']}, "
        f"cardio {n_cells['cardio']}; measured with n_reps = {n_reps} "
        f"({-(-n_reps // CHUNK)} task(s) per cell); {load()}"
    )
    s = time.perf_counter()
    walls, tasks = run_preset_grid(grids, n_reps, seed)
    total_wall = time.perf_counter() - s
    rep(
        f"measured wall time: gaussian {secs(walls['gaussian'])}, cardio {secs(walls['cardio'])}, "
        f"total {secs(total_wall)} (incl. worker start-up, imports, JAX compilation); {load()}"
    )
    task_sum = tasks["wall"].sum()
    rep(
        f"sum of task times (inside workers) {secs(task_sum)} = {task_sum / total_wall:.2f} x wall "
        f"on {N_JOBS} workers"
    )
    rep()

    # breakdown: share of task time -> share of wall time
    def breakdown(keys):
        g = tasks.groupby(keys, sort=False).agg(
            cells=("task", "size"),
            task_s=("wall", "sum"),
            cpu_s=("cpu", "sum"),
            max_s=("wall", "max"),
        )
        g["cpu_ratio"] = g["cpu_s"] / g["task_s"]
        g["share"] = g["task_s"] / task_sum
        g["wall_s"] = g["share"] * total_wall
        return g.reset_index()

    targets = {name: presets[name]["n_reps"] for name in preset_names}
    if quick:
        targets = {}
    factor = {name: r / n_reps for name, r in targets.items()}

    def rows_for(df, label_cols):
        rows = []
        for _, r in df.iterrows():
            row = [
                " / ".join(str(r[c]) for c in label_cols),
                int(r["cells"]),
                secs(r["task_s"]),
                f"{r['cpu_ratio']:.2f}",
                f"{100 * r['share']:.1f} %",
                secs(r["wall_s"]),
            ]
            row += [secs(r["wall_s"] * f) for f in factor.values()]
            rows.append(row)
        return rows

    ext_headers = [f"est. {name} ({targets[name]} reps)" for name in factor]
    by_method = breakdown(["method"]).sort_values("task_s", ascending=False)
    tasks["data group"] = np.where(tasks["data"] == "cardio", "cardio", "gaussian")
    by_data = breakdown(["data group"]).sort_values("task_s", ascending=False)
    by_both = breakdown(["data group", "method"]).sort_values("task_s", ascending=False)
    by_n = breakdown(["method", "n"]).sort_values("task_s", ascending=False).head(10)
    by_n["n"] = by_n["n"].astype(int)
    headers = ["", "tasks", "task time", "cpu/task", "share", f"wall ({n_reps} reps)", *ext_headers]
    for title, df, cols in (
        ("by method", by_method, ["method"]),
        ("by data", by_data, ["data group"]),
        ("by data and method", by_both, ["data group", "method"]),
        ("10 most expensive (method, n) groups", by_n, ["method", "n"]),
    ):
        rep(
            f"-- {title} (wall = measured wall x share of task time; cpu/task = process CPU time "
            f"/ task wall time)"
        )
        h = list(headers)
        h[0] = " / ".join(cols)
        rep.table(h, rows_for(df, cols), right=set(range(1, len(h))))
        rep()

    first = tasks.sort_values("wall", ascending=False)
    pids = tasks.groupby("group", sort=False)["pid"].nunique()
    rep(
        f"worker processes that ran tasks: {tasks['pid'].nunique()} distinct pids for {N_JOBS} "
        f"workers (" + ", ".join(f"{g} {k}" for g, k in pids.items()) + "); more than "
        f"{N_JOBS} means loky restarted workers (e.g. its 300 MB memory-growth check after JAX "
        f"is loaded), each restart repeating imports and JAX compilation"
    )
    by_pid = tasks.sort_values("start").groupby("pid", sort=False)["rss"]
    rep(
        "worker RSS after its first task -> max (MB): "
        + ", ".join(
            f"{a:.0f} -> {b:.0f}" for a, b in zip(by_pid.first(), by_pid.max(), strict=True)
        )
    )
    compile_excess = 0.0
    pgm = tasks[tasks["method"] == "private_pgm"].copy()
    if len(pgm):
        # the first private_pgm task (by start time) of a worker for a given domain
        # (Gaussian 2x100 or cardio 2x24) pays the JAX compilation
        pgm = pgm.sort_values("start")
        pgm["first"] = ~pgm.duplicated(["pid", "group"])
        f, rest = pgm[pgm["first"]], pgm[~pgm["first"]]
        extra = f["wall"].sum() - len(f) * (rest["wall"].median() if len(rest) else 0.0)
        compile_excess = max(extra, 0.0)
        rep(
            f"private_pgm task times: median {secs(pgm['wall'].median())}, max "
            f"{secs(pgm['wall'].max())}; {len(f)} first-in-worker tasks (JAX compilation) take "
            f"{secs(f['wall'].sum())}, ~{secs(max(extra, 0.0))} more than typical tasks"
        )
    rep(
        f"slowest task: {first.iloc[0][['data', 'method', 'n', 'm', 'epsilon']].to_dict()} "
        f"{secs(first.iloc[0]['wall'])}"
    )
    result = {"measured_wall": total_wall, "n_reps": n_reps}
    if quick:
        rep("quick mode: this is a sanity run of a small grid, NOT an estimate of the paper preset")
        return result
    rep()
    rep(
        "Extrapolation (linear in replicates): T(R) = T_measured x R / n_reps_measured; with "
        f"chunk_size = {CHUNK} a cell at R replicates is R/{CHUNK} tasks of the measured cost."
    )
    rep(
        "Per-cell/per-worker fixed costs (worker start-up, imports, JAX compilation of Private-PGM, "
        "the DP-MWU null tables) are counted R/n_reps times, so the estimate is conservative."
    )
    overhead = max(total_wall - task_sum / N_JOBS, 0.0)
    fixed = compile_excess / N_JOBS + overhead
    rep(
        f"Less conservative: T'(R) = F + (T_measured - F) x R / n_reps_measured with fixed part "
        f"F = JAX-compile excess / {N_JOBS} + (wall - task time / {N_JOBS}) = "
        f"{secs(compile_excess / N_JOBS)} + {secs(overhead)} = {secs(fixed)}."
    )
    cpu_sum = tasks["cpu"].sum()
    rep(
        f"CPU-based: T_cpu(R) = (sum of task CPU time = {secs(cpu_sum)}) x R / n_reps_measured / "
        f"{N_JOBS} - what an otherwise idle machine would need if the work splits evenly "
        f"(task CPU / task wall = {cpu_sum / task_sum:.2f} in this run: "
        f"{'other processes competed for the cores' if cpu_sum / task_sum < 0.9 else 'little contention'})."
    )
    rows = []
    for name, f in factor.items():
        est = total_wall * f
        est2 = fixed + (total_wall - fixed) * f
        est3 = cpu_sum * f / N_JOBS
        rows.append(
            [
                name,
                targets[name],
                f"{secs(total_wall)} x {targets[name]}/{n_reps}",
                secs(est),
                secs(est2),
                secs(est3),
            ]
        )
        result[f"est_{name}"] = est
    rep.table(
        [
            "preset",
            "n_reps",
            "formula T(R)",
            "estimated wall T",
            "less conservative T'",
            "CPU-based T_cpu",
        ],
        rows,
    )
    rep(
        "These are upper bounds from a small fraction of the work; part 4 measures the paper "
        "preset itself."
    )
    result["by_method"] = by_method
    return result


# --------------------------------------------------------------------------------------------
# Part 3: probes of the dominant cost (DP Mann-Whitney U null simulation)
# --------------------------------------------------------------------------------------------
def part3(rep: Report, reps: int = 50, n_sim: int = 1000) -> None:
    rep()
    rep("=" * 100)
    rep("PART 3  Probe: DP-MWU cells (simulate_cell loops dp_mannwhitneyu over replicates)")
    rep("=" * 100)
    rows = []
    hypothesis.dp_mannwhitneyu(
        np.arange(3.0), np.arange(3.0) + 0.5, 1.0, n_sim=10, random_state=0
    )  # build the null tables once
    for n in (500, 20000):
        rngs = [
            np.random.default_rng(np.random.SeedSequence(7, spawn_key=(n, r))) for r in range(reps)
        ]
        samples = hv.original_samples(NO_SIGNAL, n, rngs)
        s = time.perf_counter()
        for (x, y), r in zip(samples, rngs, strict=True):
            hypothesis.dp_mannwhitneyu(x, y, 1.0, n_sim=n_sim, random_state=r)
        loop = time.perf_counter() - s
        x = np.stack([a for a, _ in samples])
        y = np.stack([b for _, b in samples])
        s = time.perf_counter()
        hypothesis.dp_mannwhitneyu(x, y, 1.0, n_sim=n_sim, random_state=rngs[0])
        batched = time.perf_counter() - s
        draws = reps * n_sim
        rows.append(
            [
                n,
                secs(loop),
                f"{loop / draws * 1e6:.1f}",
                secs(batched),
                f"{batched / draws * 1e6:.1f}",
                f"{loop / batched:.1f}x",
            ]
        )
    rep(f"{reps} replicates, n_sim = {n_sim}, eps = 1 (one task of a DP-MWU cell)")
    rep.table(["n", "loop (study)", "µs/draw", "one batched call", "µs/draw", "batched gain"], rows)


# --------------------------------------------------------------------------------------------
# Part 4: the paper preset, end to end
# --------------------------------------------------------------------------------------------
def part4(rep: Report, preset: str = "paper", limit_s: float = 300.0) -> dict:
    rep()
    rep("=" * 100)
    rep(
        f"PART 4  The {preset!r} preset end to end: synthtrust run hypothesis_validity "
        f"--preset {preset} (fresh output and cache)"
    )
    rep("=" * 100)
    cli = Path(sys.executable).with_name("synthtrust")
    work = Path(tempfile.mkdtemp(prefix="bench_hv_run_"))
    cmd = [
        str(cli),
        "run",
        "hypothesis_validity",
        "--preset",
        preset,
        "--out",
        str(work / "out"),
        "--cache-dir",
        str(work / "cache"),
        "--no-progress",
    ]
    rep(
        f"command: {' '.join(cmd[1:3])} --preset {preset} --out <tmp> --cache-dir <tmp> "
        f"--no-progress; {load()}"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        s = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - s
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            rep(done.stdout[-2000:] + done.stderr[-4000:])
            raise SystemExit(f"the {preset} run failed with exit code {done.returncode}")
        n_rows = sum(
            len(pd.read_parquet(f)) for f in (work / "out" / "results").glob("*_replicates.parquet")
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    verdict = "OK" if wall < limit_s else "MISSED"
    rep.table(
        [
            "preset",
            "wall time",
            "CPU time (children)",
            "CPU / wall",
            "replicate rows",
            f"target < {limit_s / 60:.0f} min",
        ],
        [[preset, secs(wall), secs(cpu), f"{cpu / wall:.2f}", f"{n_rows:,}", verdict]],
    )
    rep(f"{load()}")
    return {"wall": wall, "cpu": cpu}


# --------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="sanity run (< 1 min): 100 replicates per cell in part 1 (SciPy on 10, "
        "extrapolated) and the smoke preset in part 2",
    )
    ap.add_argument(
        "--reps",
        type=int,
        default=None,
        help="part 1 replicates per cell (default 1000; quick 100)",
    )
    ap.add_argument(
        "--scipy-reps",
        type=int,
        default=None,
        help="part 1 replicates per cell run through SciPy (default all; quick 10)",
    )
    ap.add_argument(
        "--grid-reps",
        type=int,
        default=None,
        help="part 2 replicates per cell actually run (default 50; quick: smoke's)",
    )
    ap.add_argument("--skip-part1", action="store_true")
    ap.add_argument("--skip-part2", action="store_true")
    ap.add_argument("--skip-part3", action="store_true")
    ap.add_argument(
        "--skip-part4",
        action="store_true",
        help="skip the end-to-end run of the paper preset (~4 min)",
    )
    ap.add_argument(
        "--output",
        type=Path,
        default=None,
        help="also write the report here (atomic); default "
        "benchmarks/results_hypothesis.txt for a full run, none for --quick",
    )
    args = ap.parse_args(argv)

    rep = Report()
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    rep(f"bench_hypothesis.py {'--quick ' if args.quick else ''}— {now}")
    rep(f"machine: {machine()}; {load()}")
    rep(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"pandas {pd.__version__}"
    )
    rep()
    t0 = time.perf_counter()
    if not args.skip_part1:
        reps = args.reps or (100 if args.quick else 1000)
        scipy_k = args.scipy_reps or (10 if args.quick else reps)
        part1(rep, reps, scipy_k, repeats=3 if args.quick else 5, seed=12345)
    if not args.skip_part2:
        if args.quick:
            smoke = read_preset("smoke")
            part2(rep, ["smoke"], args.grid_reps or smoke["n_reps"], None, quick=True)
        else:
            part2(rep, ["paper", "default"], args.grid_reps or 50, None, quick=False)
    if not args.skip_part3 and not args.quick:
        part3(rep)
    if not args.skip_part4 and not args.quick:
        part4(rep)
    rep()
    rep(f"benchmark total {secs(time.perf_counter() - t0)}; {load()}")
    rep.finish(args.output, ROOT / "benchmarks" / "results_hypothesis.txt", full_run=not args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
