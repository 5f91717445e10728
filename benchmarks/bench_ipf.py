"""Benchmark of chapter 5's IPF (synthtrust.synthesizers.IPF) against ipfn and humanleague.

``synthtrust.synthesizers.IPF`` against the PyPI peers ``ipfn`` 1.4.4 and ``humanleague`` 2.4.3,
on the census sample's declared marginals of the three applications of ``houssiau2022`` (§4.1;
``synthtrust.studies.auditing.audits``).

Run from the repository root::

    .venv/bin/python benchmarks/bench_ipf.py            # App. 1-3 (or: make bench-ipf; make bench-audit)
    .venv/bin/python benchmarks/bench_ipf.py --quick    # sanity run: App. 1-2, no humanleague build

This was part 3 of ``bench_audit.py``; its past runs are in ``results_audit.txt`` (part 3).
Every timing runs on one thread (BLAS limited with ``threadpoolctl``; the peers get
``OPENBLAS_NUM_THREADS=1``) and is CPU time of the process (``time.process_time``; the peers
measure theirs around the library calls), which other jobs on a shared machine inflate far less
than wall time; the header prints the load average all the same.

IPF: ours vs ``ipfn`` 1.4.4 (and ``humanleague`` 2.4.3 when it builds).
    Same input for all: the declared marginals of the census sample (10 000 rows coded to the
    application's columns; App. 3: 21 pairs over the 1.56 M-cell table), the all-ones start.
    Ours: ``synthtrust.synthesizers.IPF(marginals, tol=--ipf-tol)`` ``fit`` on the coded frame
    (the time includes counting the marginals from the rows); it needs n sweeps. ``ipfn`` runs
    in the side environment ``.cache/peers/ipfn`` (``python -m venv`` + ``pip install -r
    benchmarks/peers/requirements-ipfn.txt``), driven by ``benchmarks/peers/ipfn_ipf.py``: the
    same n sweeps in the same clique order (its time measured around the library calls only),
    or, if that would exceed ``--ipfn-budget`` seconds, fewer sweeps c whose time is
    extrapolated to n (labelled) and compared with ours stopped after c sweeps. Asserted: after
    the same sweeps the two tables agree (max |Δ| ≤ 1e-6 counts) and, for full runs, both
    fitted marginals are within ``--ipf-tol`` of the targets (L1, counts). ``humanleague``
    (C++, pip builds it from the sdist) has a fixed tolerance (max |error| < 1e-8) and 1000
    sweeps; it is compared with ours at ``tol = 1e-8``: tables within 1e-5 counts. Printed:
    sweeps, time, time per sweep, ratio, the largest marginal error of each table and the
    largest table difference.

The report goes to stdout and, for a full run, to ``benchmarks/results_ipf.txt`` (``--output``;
temp file + rename).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shlex
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from _audit_common import (  # benchmarks/ is on sys.path when run as a script
    DENSE_MAX_CELLS,
    SEED,
    add_common_options,
    census_codes,
    check,
    clock,
    ratio,
    resolve_common_options,
    run,
    secs,
)
from _report import ROOT, Report, load

from synthtrust.studies.auditing import audits as study

PEERS = ROOT / "benchmarks" / "peers"
CACHE = ROOT / ".cache" / "peers"
RESULTS = "results_ipf.txt"
TOL_TABLE = 1e-6  # ours vs ipfn after the same sweeps, counts
TOL_TABLE_HL = 1e-5  # ours vs humanleague, both at a marginal error ≤ 1e-8
HUMANLEAGUE = "humanleague==2.4.3"
PEER_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


# --------------------------------------------------------------------------------------------
# IPF, ours vs ipfn (and humanleague)
# --------------------------------------------------------------------------------------------
def env_python() -> Path:
    return CACHE / "ipfn" / "bin" / "python"


def _pip(cmd: list[str], log: Path, timeout: float) -> str | None:
    with open(log, "a", encoding="utf-8") as fh:
        fh.write("$ " + shlex.join(cmd) + "\n")
        fh.flush()
        try:
            proc = subprocess.run(
                cmd, stdout=fh, stderr=subprocess.STDOUT, timeout=timeout, cwd=str(CACHE)
            )
        except subprocess.TimeoutExpired:
            return f"timed out after {timeout:.0f} s"
    if proc.returncode != 0:
        tail = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()][-3:]
        return f"pip failed (exit {proc.returncode}): " + " | ".join(tail)
    return None


def _imports(module: str) -> bool:
    py = env_python()
    return (
        py.exists()
        and subprocess.run([str(py), "-c", f"import {module}"], capture_output=True).returncode == 0
    )


def ensure_ipfn_env(say: Report, humanleague: bool) -> tuple[str | None, str | None]:
    """Create/update ``.cache/peers/ipfn`` from ``requirements-ipfn.txt`` (and try humanleague).
    Returns (why ipfn is unusable or None, why humanleague is unusable or None)."""
    req = PEERS / "requirements-ipfn.txt"
    env = CACHE / "ipfn"
    marker = env / ".requirements.sha256"
    digest = hashlib.sha256(req.read_bytes()).hexdigest()
    CACHE.mkdir(parents=True, exist_ok=True)
    log = CACHE / "ipfn.install.log"
    if not (marker.exists() and marker.read_text().strip() == digest and _imports("ipfn.ipfn")):
        t0 = time.perf_counter()
        log.write_text("")
        if not env_python().exists():
            err = _pip(["python3", "-m", "venv", str(env)], log, 300)
            if err:
                return f"venv: {err}", "no env"
        err = _pip([str(env_python()), "-m", "pip", "install", "-r", str(req)], log, 900)
        if err or not _imports("ipfn.ipfn"):
            return err or "import ipfn failed after install", "no env"
        marker.write_text(digest + "\n")
        (env / ".humanleague-failed").unlink(missing_ok=True)
        say(
            f"   side env ipfn: installed in {time.perf_counter() - t0:.0f} s (pip install -r "
            f"benchmarks/peers/requirements-ipfn.txt; log {log.relative_to(ROOT)})"
        )
    if _imports("humanleague"):
        return None, None
    failed = env / ".humanleague-failed"
    if failed.exists():
        return None, failed.read_text().strip()
    if not humanleague:
        return None, "not installed (installed by a full run)"
    t0 = time.perf_counter()
    err = _pip([str(env_python()), "-m", "pip", "install", HUMANLEAGUE], log, 900)
    if err or not _imports("humanleague"):
        why = f"{HUMANLEAGUE}: {err or 'import failed after install'}"
        failed.write_text(why + "\n")
        return None, why
    say(f"   side env ipfn: {HUMANLEAGUE} built and installed in {time.perf_counter() - t0:.0f} s")
    return None, None


def ipf_problem(app: int):
    """(coded frame, sizes, marginals as column tuples, cliques as sorted axes, targets)."""
    a = study.application(app)
    frame = census_codes(app)
    cols = list(a.columns)
    sizes = tuple(study.card(app).sizes)
    x = frame.to_numpy()
    cliques, targets, marginals = [], [], []
    for clique in a.marginals:
        axes = tuple(sorted(cols.index(c) for c in clique))
        dims = tuple(sizes[i] for i in axes)
        flat = np.ravel_multi_index(tuple(x[:, list(axes)].T), dims)
        cliques.append(axes)
        targets.append(np.bincount(flat, minlength=math.prod(dims)).reshape(dims).astype(float))
        marginals.append(tuple(clique))
    return frame, sizes, marginals, cliques, targets


def marginal_error(table: np.ndarray, cliques, targets) -> tuple[float, float]:
    """(largest |T_S − m_S| over every declared cell, Σ_S ‖T_S − m_S‖₁), counts."""
    worst, l1 = 0.0, 0.0
    for axes, target in zip(cliques, targets, strict=True):
        other = tuple(i for i in range(table.ndim) if i not in axes)
        diff = np.abs(table.sum(axis=other) - target)
        worst, l1 = max(worst, float(diff.max())), l1 + float(diff.sum())
    return worst, l1


def fit_ours(frame, sizes, marginals, tol: float, max_iter: int):
    from synthtrust.synthesizers import IPF

    cols = list(frame.columns)
    gen = IPF(
        list(marginals),
        tol=tol,
        max_iter=max_iter,
        domain={c: int(n) for c, n in zip(cols, sizes, strict=True)},
        random_state=SEED,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fixed number of sweeps: ConvergenceWarning expected
        t0 = clock()
        gen.fit(frame)
        return clock() - t0, gen


def run_peer(impl: str, problem: Path, tmp: Path, sweeps: int, budget: float) -> dict:
    out, res, log = tmp / f"{impl}.npy", tmp / f"{impl}.json", tmp / f"{impl}.log"
    for p in (out, res):
        p.unlink(missing_ok=True)
    cmd = [
        str(env_python()),
        str(PEERS / "ipfn_ipf.py"),
        "--problem",
        str(problem),
        "--impl",
        impl,
        "--sweeps",
        str(sweeps),
        "--budget",
        str(budget),
        "--output",
        str(out),
        "--result",
        str(res),
    ]
    env = {**os.environ, **PEER_ENV}
    t0 = time.perf_counter()
    try:
        with open(log, "w", encoding="utf-8") as fh:
            proc = subprocess.run(
                cmd,
                stdout=fh,
                stderr=subprocess.STDOUT,
                env=env,
                timeout=budget + 600,
                cwd=str(ROOT),
            )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {budget + 600:.0f} s"}
    wall = time.perf_counter() - t0
    if proc.returncode != 0 or not res.exists():
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
        return {"error": (lines[-1] if lines else f"exit {proc.returncode}")[:240]}
    info = json.loads(res.read_text())
    info["table"] = np.load(out)
    info["wall_s"] = wall
    return info


def part_ipf(say: Report, args) -> None:
    say(
        f"IPF on the census sample's declared marginals (10 000 rows), all-ones start: "
        f"ours (synthtrust IPF, tol {args.ipf_tol:g} counts L1) vs ipfn 1.4.4 (same sweeps, "
        f"budget {args.ipfn_budget:.0f} s) and humanleague 2.4.3 (its fixed tolerance 1e-8); "
        f"{load()}"
    )
    why_ipfn, why_hl = ensure_ipfn_env(say, humanleague=not args.quick)
    if why_ipfn:
        say(f"   ipfn side environment unusable: {why_ipfn}")
    if why_hl:
        say(f"   humanleague: {why_hl}")
    rows, notes = [], []
    with tempfile.TemporaryDirectory(prefix="bench_ipf_") as tmpdir:
        tmp = Path(tmpdir)
        for app in args.apps:
            frame, sizes, marginals, cliques, targets = ipf_problem(app)
            problem = tmp / f"app{app}.npz"
            arrays = {"sizes": np.asarray(sizes)}
            for i, (c, t) in enumerate(zip(cliques, targets, strict=True)):
                arrays[f"clique_{i}"], arrays[f"target_{i}"] = np.asarray(c), t
            np.savez(problem, **arrays)
            cells = math.prod(sizes)
            reps = 1 if cells > DENSE_MAX_CELLS else args.repeats
            t_ours, ours = math.inf, None
            for _ in range(reps):
                t, ours = fit_ours(frame, sizes, marginals, args.ipf_tol, 10_000)
                t_ours = min(t_ours, t)
            n = ours.n_iter_
            err_ours = marginal_error(ours.table_, cliques, targets)
            check(
                ours.converged_ and err_ours[1] <= args.ipf_tol * (1 + 1e-9),
                f"App. {app}: our IPF did not reach tol {args.ipf_tol} ({err_ours[1]:.3g})",
            )
            label = f"App. {app} ({cells:,} cells, {len(cliques)} marginals)"
            rows.append(
                [
                    label,
                    "synthtrust IPF (ours)",
                    n,
                    secs(t_ours),
                    secs(t_ours / n),
                    "-",
                    f"{err_ours[0]:.1e}",
                    f"{err_ours[1]:.1e}",
                    "-",
                ]
            )
            if not why_ipfn:
                peer = run_peer("ipfn", problem, tmp, n, args.ipfn_budget)
                if "error" in peer:
                    rows.append([label, "ipfn 1.4.4", "-", "error", "-", "-", "-", "-", "-"])
                    notes.append(f"App. {app} ipfn: {peer['error']}")
                else:
                    c = int(peer["sweeps"])
                    ref = ours if c == n else fit_ours(frame, sizes, marginals, 1e-300, c)[1]
                    dtab = float(np.abs(peer["table"] - ref.table_).max())
                    err = marginal_error(peer["table"], cliques, targets)
                    check(
                        dtab <= TOL_TABLE,
                        f"App. {app}: ipfn and ours differ after {c} sweeps "
                        f"(max |ΔT| = {dtab:.3g} counts > {TOL_TABLE:g})",
                    )
                    if c == n:
                        check(
                            err[1] <= args.ipf_tol * (1 + 1e-6),
                            f"App. {app}: ipfn's L1 "
                            f"marginal error {err[1]:.3g} > tol {args.ipf_tol}",
                        )
                        t_peer, lab = peer["fit_cpu_s"], ""
                    else:
                        t_peer = peer["fit_cpu_s"] / c * n
                        lab = f" (extrapolated from {c} of {n} sweeps)"
                    rows.append(
                        [
                            label,
                            "ipfn 1.4.4",
                            c,
                            secs(t_peer) + lab,
                            secs(peer["fit_cpu_s"] / c),
                            ratio(t_peer, t_ours),
                            f"{err[0]:.1e}",
                            f"{err[1]:.1e}",
                            f"{dtab:.1e}",
                        ]
                    )
            if not why_ipfn and not why_hl:
                t_hl_ours, ours_hl = fit_ours(frame, sizes, marginals, 1e-8, 10_000)
                peer = run_peer("humanleague", problem, tmp, 0, args.ipfn_budget)
                if "error" in peer:
                    rows.append([label, "humanleague 2.4.3", "-", "error", "-", "-", "-", "-", "-"])
                    notes.append(f"App. {app} humanleague: {peer['error']}")
                else:
                    err_o = marginal_error(ours_hl.table_, cliques, targets)
                    err = marginal_error(peer["table"], cliques, targets)
                    dtab = float(np.abs(peer["table"] - ours_hl.table_).max())
                    check(
                        dtab <= TOL_TABLE_HL,
                        f"App. {app}: humanleague and ours (tol 1e-8) "
                        f"differ by {dtab:.3g} counts > {TOL_TABLE_HL:g}",
                    )
                    hs = max(int(peer["sweeps"]), 1)
                    rows.append(
                        [
                            label,
                            "ours, tol 1e-8",
                            ours_hl.n_iter_,
                            secs(t_hl_ours),
                            secs(t_hl_ours / ours_hl.n_iter_),
                            "-",
                            f"{err_o[0]:.1e}",
                            f"{err_o[1]:.1e}",
                            "-",
                        ]
                    )
                    rows.append(
                        [
                            label,
                            "humanleague 2.4.3",
                            hs,
                            secs(peer["fit_cpu_s"]),
                            secs(peer["fit_cpu_s"] / hs),
                            ratio(peer["fit_cpu_s"], t_hl_ours),
                            f"{err[0]:.1e}",
                            f"{err[1]:.1e}",
                            f"{dtab:.1e}",
                        ]
                    )
                    notes.append(f"App. {app} humanleague: {json.dumps(peer.get('notes'))}")
    say.table(
        [
            "problem",
            "implementation",
            "sweeps",
            "time",
            "per sweep",
            "ratio",
            "max |T_S − m_S|",
            "Σ L1 gap",
            "max |ΔT| vs ours",
        ],
        rows,
        right=set(range(2, 9)),
    )
    for n in notes:
        say(n)
    say(
        "time (CPU): ours = IPF.fit on the coded frame (counting the marginals included), "
        "peers = the library calls only (no start-up, no file reading); ratio = peer / ours at the same "
        "sweeps (humanleague: / ours at tol 1e-8); errors in counts over every declared "
        "marginal cell; ΔT: the peer's table minus ours after the same sweeps"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_common_options(
        ap,
        "sanity run: App. 1-2 only, fewer repeats, no humanleague build, no report file",
        RESULTS,
    )
    ap.add_argument(
        "--ipf-tol",
        type=float,
        default=1e-3,
        help="our IPF's L1 tolerance, counts (1e-3, the paper's utility runs)",
    )
    ap.add_argument(
        "--ipfn-budget",
        type=float,
        default=300.0,
        help="seconds ipfn may run per problem before it is extrapolated",
    )
    args = ap.parse_args(argv)
    resolve_common_options(ap, args)
    full_run = not args.quick and args.apps == (1, 2, 3)
    return run("bench_ipf.py", [part_ipf], args, RESULTS, full_run)


if __name__ == "__main__":
    raise SystemExit(main())
