"""Benchmark of synthtrust's synthesizers for high-dimensional tables against PyPI peers, adult, ε = 1
(AIM also at ε = 10).

Run from the repository root::

    .venv/bin/python benchmarks/bench_synthesizers.py                # full run (up to ~1.5 h)
    .venv/bin/python benchmarks/bench_synthesizers.py --quick        # 10k rows: ours + DataSynthesizer
    .venv/bin/python benchmarks/bench_synthesizers.py --skip-peers   # ours only, full adult
    .venv/bin/python benchmarks/bench_synthesizers.py --skip-peers --only "AIM synthtrust"  # our AIM
    .venv/bin/python benchmarks/bench_synthesizers.py --only "AIM" --aim-epsilons 10  # AIM, ε = 10

Data: ``synthtrust.datasets.load("adult_pgm_discretized")`` (48,842 × 14, integer codes), public
domain sizes from ``data/adult_pgm_discretized_domain.json``; the 10k-row table is a seeded random
subset (seed 0) in the original row order. Every run fits on the table and samples as many rows.

Ours (``lib/synthtrust/synthesizers``): ``PrivBayes(ε)``, ``MST``, ``AIM``, ``MWEMPGM``, ``PrivMRF``
as ``Cls(ε, δ, domain=sizes, random_state=0).fit(df).sample(n)`` (PrivBayes: pure ε, no δ), each
imported from its own module; a class that cannot be imported gets a "not available" row.

Peers, each in its own side virtual environment under ``.cache/peers/<name>/`` (created on demand
with ``python3 -m venv`` + ``pip install -r benchmarks/peers/requirements-<name>.txt``; only PyPI;
nothing of them is copied into the project), driven by the scripts in ``benchmarks/peers/``:

* DataSynthesizer 0.1.13 PrivBayes (correlated attribute mode, k = 2, NumPy < 2), 10k rows and the
  full table;
* smartnoise-synth 1.0.8 MST and AIM (mbi 1.1.0 from PyPI);
* dpmm 0.1.9 (SAS) MST, AIM and PrivBayes+PGM (vendored NumPy Private-PGM);
* OpenDP 0.16 ``dp.mbi.MST`` / ``dp.mbi.AIM`` (mbi 1.1.0, polars).

AIM runs everywhere with the same workload (all 2-way marginals) and ``max_model_size`` 80 MB
(OpenDP's default workload is all 3-way: set to 2); everything else at each library's defaults.
The zCDP synthesizers use ρ = ``cdp_rho(1, 1e-9)``; AIM runs at every ε of ``--aim-epsilons``
(default 1 and 10, ρ = ``cdp_rho(ε, 1e-9)``). At ε = 10 the reference's mechanism refits a model
growing towards the 80 MB cap with 1000 mirror-descent steps a round, for hours; ours caps the
effort of the refits of large models (``AIM(refit_mb=2)``, see its docstring).

Measured per run, each in a fresh subprocess (so JAX/NumPy allocations are counted and imports are
paid by every run alike):

* ``fit`` and ``sample`` wall seconds, measured inside the worker around the library calls only
  (no interpreter start, imports or CSV reading; JAX compilation *is* included, in fit);
* ``CPU s``: user + system CPU seconds of the whole process tree (``os.wait4``), which is what
  an idle machine would need at one core — the figure to trust when other jobs compete;
* ``peak MB``: ``ru_maxrss`` of the process tree from ``os.wait4`` (the largest single process,
  interpreter and imports included); ``tree MB``: the largest *sum* of the resident set sizes of
  the worker and its children, sampled from ``/proc`` every 0.25 s (differs for peers that fork a
  multiprocessing pool: DataSynthesizer, dpmm);
* ``2-way TVD``: the mean over all 91 column pairs of ½‖p − q‖₁ between the pair's normalised
  contingency tables of the real table and of the synthetic output (``np.bincount``; a synthetic
  value outside the public domain counts as an extra, always-wrong cell);
* ``ratio``: the peer's fit + sample time divided by ours for the same algorithm at the same
  number of rows and ε (``> x`` after a timeout).

Each run gets ``--timeout`` seconds (default 900); the row then says "> 900 s (timeout)". The
report goes to stdout and, for a full run, to ``benchmarks/results_synthesizers.txt``
(``--output``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import itertools
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
PEERS = ROOT / "benchmarks" / "peers"
CACHE = ROOT / ".cache" / "peers"
DOMAIN_JSON = ROOT / "data" / "adult_pgm_discretized_domain.json"
EPS, DELTA, SEED = 1.0, 1e-9, 0
QUICK_ROWS = 10_000

#: ours: display name -> module under synthtrust.synthesizers
OURS = {
    "PrivBayes": "privbayes",
    "MST": "mst",
    "AIM": "aim",
    "MWEMPGM": "mwem_pgm",
    "PrivMRF": "privmrf",
}

#: side environments: name -> (requirements file, import check, label)
SIDE_ENVS = {
    "datasynthesizer": (
        "requirements-datasynthesizer.txt",
        "import DataSynthesizer.DataDescriber",
        "DataSynthesizer 0.1.13",
    ),
    "smartnoise": (
        "requirements-smartnoise.txt",
        "import snsynth.mst.mst, snsynth.aim.aim",
        "smartnoise-synth 1.0.8",
    ),
    "dpmm": ("requirements-dpmm.txt", "import dpmm.pipelines", "dpmm 0.1.9"),
    "opendp": (
        "requirements-opendp.txt",
        "import opendp.prelude, mbi, polars, pandas",
        "OpenDP 0.16 dp.mbi",
    ),
}
AIM_MAX_MODEL_MB = 80
#: AIM runs (ours and the peers') at these ε; the other synthesizers at EPS only
AIM_EPSILONS = (1.0, 10.0)


# --------------------------------------------------------------------------------------------
# output helpers (as in bench_hypothesis.py)
# --------------------------------------------------------------------------------------------
from _report import Report, load, machine  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def secs(t: float | None) -> str:
    if t is None:
        return "-"
    if t < 1:
        return f"{t * 1e3:.0f} ms"
    if t < 120:
        return f"{t:.1f} s"
    return f"{t:.0f} s"


# --------------------------------------------------------------------------------------------
# fidelity: mean 2-way TVD
# --------------------------------------------------------------------------------------------
def codes_matrix(df: pd.DataFrame, columns: list[str], sizes: dict) -> np.ndarray:
    """(rows, d) int64 codes; NaN, non-integers and values outside the domain -> size (extra cell)."""
    out = np.empty((len(df), len(columns)), dtype=np.int64)
    for j, c in enumerate(columns):
        v = pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        r = np.rint(v)
        bad = ~np.isfinite(v) | (np.abs(v - r) > 1e-9) | (r < 0) | (r >= sizes[c])
        r[bad] = sizes[c]
        out[:, j] = r.astype(np.int64)
    return out


def mean_two_way_tvd(real: np.ndarray, synth: np.ndarray, sizes: list[int]) -> float:
    """Mean over all column pairs of ½‖p − q‖₁ (normalised pair histograms, extra invalid cell)."""
    tv = []
    for a, b in itertools.combinations(range(len(sizes)), 2):
        nb = sizes[b] + 1
        m = (sizes[a] + 1) * nb
        p = np.bincount(real[:, a] * nb + real[:, b], minlength=m) / len(real)
        q = np.bincount(synth[:, a] * nb + synth[:, b], minlength=m) / len(synth)
        tv.append(0.5 * np.abs(p - q).sum())
    return float(np.mean(tv))


# --------------------------------------------------------------------------------------------
# worker for our synthesizers (runs in a fresh subprocess of the project venv)
# --------------------------------------------------------------------------------------------
def worker_ours(args) -> int:
    sys.path.insert(0, str(PEERS))
    import _common  # noqa: PLC0415

    name = args.worker
    try:
        import importlib  # noqa: PLC0415

        cls = getattr(importlib.import_module(f"synthtrust.synthesizers.{OURS[name]}"), name)
    except Exception as exc:  # noqa: BLE001 - report any import failure as a row
        _common.write_result(
            args.result, status="not available", error=f"{type(exc).__name__}: {exc}"
        )
        return 3
    import synthtrust  # noqa: PLC0415

    df = pd.read_csv(args.input)
    with open(args.domain, encoding="utf-8") as fh:
        sizes = {c: int(v) for c, v in json.load(fh).items()}
    n_out = args.rows or len(df)
    kwargs = {} if name == "PrivBayes" else {"delta": args.delta}
    t0 = time.perf_counter()
    model = cls(args.epsilon, domain=sizes, random_state=args.seed, **kwargs).fit(df)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = model.sample(n_out)
    out[list(df.columns)].to_csv(args.output, index=False)
    sample_s = time.perf_counter() - t0
    notes = {
        "params": {k: v for k, v in model.get_params().items() if k != "domain"}
        if hasattr(model, "get_params")
        else None
    }
    notes["ledger"] = repr(getattr(model, "ledger_", None))[:300]
    vers = _common.versions("numpy", "pandas", "jax", "mbi")
    vers["synthtrust"] = synthtrust.__version__
    _common.write_result(
        args.result,
        fit_s=fit_s,
        sample_s=sample_s,
        rows_in=len(df),
        rows_out=n_out,
        versions=vers,
        notes=notes,
    )
    return 0


# --------------------------------------------------------------------------------------------
# side environments
# --------------------------------------------------------------------------------------------
def env_python(name: str) -> Path:
    return CACHE / name / "bin" / "python"


def ensure_env(name: str, rep: Report, install_timeout: float = 1800) -> str | None:
    """Create/update ``.cache/peers/<name>`` from its requirements file; None if usable, else why not."""
    req_file, check, _ = SIDE_ENVS[name]
    req = PEERS / req_file
    digest = hashlib.sha256(req.read_bytes()).hexdigest()
    env = CACHE / name
    marker = env / ".requirements.sha256"
    py = env_python(name)
    if py.exists() and marker.exists() and marker.read_text().strip() == digest:
        ok = subprocess.run([str(py), "-c", check], capture_output=True, text=True)
        if ok.returncode == 0:
            return None
    env.parent.mkdir(parents=True, exist_ok=True)
    log = env.parent / f"{name}.install.log"
    t0 = time.perf_counter()
    steps = []
    if not py.exists():
        steps.append(["python3", "-m", "venv", str(env)])
    steps.append([str(py), "-m", "pip", "install", "-r", str(req)])
    with open(log, "w", encoding="utf-8") as fh:
        for cmd in steps:
            fh.write("$ " + shlex.join(cmd) + "\n")
            fh.flush()
            try:
                proc = subprocess.run(
                    cmd,
                    stdout=fh,
                    stderr=subprocess.STDOUT,
                    timeout=install_timeout,
                    cwd=str(env.parent),
                )
            except subprocess.TimeoutExpired:
                return f"install timed out after {install_timeout:.0f} s (log {log})"
            if proc.returncode != 0:
                tail = [
                    ln
                    for ln in log.read_text(errors="replace").splitlines()
                    if ln.strip() and "is ignored" not in ln
                ][-4:]
                return f"pip failed (exit {proc.returncode}): " + " | ".join(tail)
    ok = subprocess.run([str(py), "-c", check], capture_output=True, text=True)
    if ok.returncode != 0:
        return "import failed after install: " + (ok.stderr.strip().splitlines() or ["?"])[-1]
    marker.write_text(digest + "\n")
    rep(
        f"   side env {name}: installed/updated in {time.perf_counter() - t0:.0f} s "
        f"(pip install -r benchmarks/peers/{req_file}; log {log.relative_to(ROOT)})"
    )
    return None


# --------------------------------------------------------------------------------------------
# running one job in a subprocess: wall/cpu/rss
# --------------------------------------------------------------------------------------------
def _children_map() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(p))
    return kids


def _tree_rss_mb(root: int) -> float:
    kids = _children_map()
    page = os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            pass
        stack.extend(kids.get(pid, []))
    return total / 2**20


def run_job(cmd: list[str], timeout: float, log: Path, result: Path) -> dict:
    """Run ``cmd`` in its own session; return timing/rusage and the worker's result JSON."""
    t0 = time.perf_counter()
    with open(log, "w", encoding="utf-8") as fh:
        fh.write("$ " + shlex.join(cmd) + "\n")
        fh.flush()
        proc = subprocess.Popen(
            cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=str(ROOT), start_new_session=True
        )
    tree_peak, timed_out, status, ru = 0.0, False, None, None
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        if time.perf_counter() - t0 > timeout:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # our own child's process group
            except ProcessLookupError:
                pass
            _, status, ru = os.wait4(proc.pid, 0)
            break
        tree_peak = max(tree_peak, _tree_rss_mb(proc.pid))
        time.sleep(0.25)
    proc.returncode = os.waitstatus_to_exitcode(status)
    out = {
        "wall_total_s": time.perf_counter() - t0,
        "returncode": proc.returncode,
        "timed_out": timed_out,
        "maxrss_mb": ru.ru_maxrss / 1024.0,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "tree_rss_mb": tree_peak,
    }
    if result.exists() and not timed_out:
        out.update(json.loads(result.read_text()))
    if proc.returncode != 0 and not timed_out and "error" not in out:
        lines = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
        errs = [ln.strip() for ln in lines if "Error" in ln or "Exception" in ln or "Failed" in ln]
        out["error"] = (errs[-1] if errs else (lines[-1] if lines else "?"))[:240]
    return out


# --------------------------------------------------------------------------------------------
# the benchmark
# --------------------------------------------------------------------------------------------
def build_jobs(args, files: dict[int, Path]) -> list[dict]:
    jobs = _all_jobs(args, files)
    if args.only:
        keep = [s.lower() for s in args.only]
        jobs = [j for j in jobs if any(k in job_label(j).lower() for k in keep)]
    return jobs


def job_label(job: dict) -> str:
    """What ``--only`` matches: e.g. ``AIM synthtrust (ours) 48842 eps=10``."""
    return f"{job['algo']} {job['impl']} {job['rows']} eps={job['eps']:g}"


def _all_jobs(args, files: dict[int, Path]) -> list[dict]:
    from synthtrust.privacy.accounting import cdp_rho  # noqa: PLC0415

    me = [sys.executable, str(Path(__file__).resolve())]
    full = max(files)
    jobs = []

    def add(algo, impl, rows, env, cmd, eps=EPS):
        common = ["--input", str(files[rows]), "--domain", str(DOMAIN_JSON), "--epsilon"]
        common += [str(eps), "--delta", str(DELTA), "--seed", str(SEED)]
        jobs.append(dict(algo=algo, impl=impl, rows=rows, env=env, eps=eps, cmd=cmd + common))

    our_rows = [QUICK_ROWS] if args.quick else [full]
    for rows in our_rows:
        for name in OURS:
            for eps in args.aim_epsilons if name == "AIM" else [EPS]:
                add(name, "synthtrust (ours)", rows, None, me + ["--worker", name], eps)
    if args.skip_peers:
        return jobs
    ds = [env_python("datasynthesizer"), PEERS / "datasynthesizer_privbayes.py", "--k", "2"]
    if args.quick:
        add("PrivBayes", "DataSynthesizer 0.1.13 (k=2)", QUICK_ROWS, "datasynthesizer", ds)
        return jobs
    # ours at 10k too, for the DataSynthesizer 10k ratio
    add("PrivBayes", "synthtrust (ours)", QUICK_ROWS, None, me + ["--worker", "PrivBayes"])
    for rows in (QUICK_ROWS, full):
        add("PrivBayes", "DataSynthesizer 0.1.13 (k=2)", rows, "datasynthesizer", ds)
    dp = [env_python("dpmm"), PEERS / "dpmm_marginal.py"]
    add("PrivBayes", "dpmm 0.1.9 PrivBayes+PGM", full, "dpmm", dp + ["--algo", "privbayes"])
    sn = [env_python("smartnoise"), PEERS / "smartnoise_mst_aim.py"]
    od = [env_python("opendp"), PEERS / "opendp_mst_aim.py"]
    add("MST", "smartnoise-synth 1.0.8", full, "smartnoise", sn + ["--algo", "mst"])
    add("MST", "dpmm 0.1.9", full, "dpmm", dp + ["--algo", "mst"])
    rho = repr(cdp_rho(EPS, DELTA))
    add("MST", "OpenDP 0.16 dp.mbi.MST", full, "opendp", od + ["--algo", "mst", "--rho", rho])
    mm = str(AIM_MAX_MODEL_MB)
    for eps in args.aim_epsilons:
        rho = repr(cdp_rho(eps, DELTA))
        aim = ["--algo", "aim", "--max-model-size", mm]
        add("AIM", "smartnoise-synth 1.0.8", full, "smartnoise", sn + aim, eps)
        add("AIM", "dpmm 0.1.9", full, "dpmm", dp + aim, eps)
        aim = ["--algo", "aim", "--rho", rho, "--queries", "2", "--max-size", mm]
        add("AIM", "OpenDP 0.16 dp.mbi.AIM (2-way)", full, "opendp", od + aim, eps)
    return jobs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help=f"{QUICK_ROWS:,} rows: ours + DataSynthesizer only"
    )
    ap.add_argument("--skip-peers", action="store_true", help="ours only")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per run (default 900)")
    ap.add_argument(
        "--only",
        nargs="+",
        default=None,
        help="keep only runs whose 'algo impl rows eps=ε' contains one of these strings "
        "(e.g. 'AIM synthtrust', 'eps=10')",
    )
    ap.add_argument(
        "--aim-epsilons",
        type=float,
        nargs="+",
        default=None,
        help="ε of the AIM runs, ours and the peers' (default 1 10, with --quick 1); the others "
        "run at ε = 1",
    )
    ap.add_argument(
        "--output",
        type=Path,
        default=None,
        help="report file (default for a full run: benchmarks/results_synthesizers.txt)",
    )
    ap.add_argument(
        "--keep",
        type=Path,
        default=None,
        help="directory to keep the inputs, synthetic CSVs, logs and result JSONs",
    )
    # hidden: the per-synthesizer worker of our own synthesizers
    ap.add_argument("--worker", choices=sorted(OURS), help=argparse.SUPPRESS)
    for flag in ("--input", "--domain", "--result"):
        ap.add_argument(flag, help=argparse.SUPPRESS)
    ap.add_argument("--epsilon", type=float, default=EPS, help=argparse.SUPPRESS)
    ap.add_argument("--delta", type=float, default=DELTA, help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=SEED, help=argparse.SUPPRESS)
    ap.add_argument("--rows", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--synth-output", dest="synth_output", help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args(argv)
    if args.aim_epsilons is None:
        args.aim_epsilons = [EPS] if args.quick else list(AIM_EPSILONS)
    if args.worker:
        args.output = args.synth_output
        return worker_ours(args)

    from synthtrust import datasets  # noqa: PLC0415
    from synthtrust.privacy.accounting import cdp_rho  # noqa: PLC0415

    rep = Report()
    now = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    flags = " ".join(a for a in (argv if argv is not None else sys.argv[1:]))
    rep(f"bench_synthesizers.py {flags} — {now}".replace("  ", " "))
    rep(f"machine: {machine()}; {load()}")
    rep(f"python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}")

    real = datasets.load("adult_pgm_discretized")
    with open(DOMAIN_JSON, encoding="utf-8") as fh:
        sizes = {c: int(v) for c, v in json.load(fh).items()}
    columns = list(real.columns)
    full = len(real)
    rng = np.random.default_rng(SEED)
    sub = real.iloc[np.sort(rng.permutation(full)[:QUICK_ROWS])].reset_index(drop=True)
    tables = {QUICK_ROWS: sub, full: real}
    rho = cdp_rho(EPS, DELTA)
    aim_eps = ", ".join(f"{e:g}" for e in args.aim_epsilons)
    rep(
        f"data: adult_pgm_discretized {full:,} x {len(columns)} (and a seeded {QUICK_ROWS:,}-row "
        f"subset); eps = {EPS:g}, delta = {DELTA:g} (rho = {rho:.6g}) for the zCDP synthesizers, "
        f"AIM at eps = {aim_eps}; seed {SEED}; timeout {args.timeout:.0f} s per run"
    )
    rep()

    work = Path(tempfile.mkdtemp(prefix="bench_synth_")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    files = {}
    for rows, t in tables.items():
        files[rows] = work / f"adult_{rows}.csv"
        t.to_csv(files[rows], index=False)
    real_codes = {rows: codes_matrix(t, columns, sizes) for rows, t in tables.items()}
    size_list = [sizes[c] for c in columns]

    jobs = build_jobs(args, files)
    env_status: dict[str, str | None] = {}
    results = []
    rep("runs (one fresh process each):")
    for i, job in enumerate(jobs):
        tag = f"{job['algo']}-{job['impl'].split()[0]}-{job['rows']}-eps{job['eps']:g}"
        tag = tag.replace("/", "_")
        out_csv, res_json, log = (work / f"{tag}.csv", work / f"{tag}.json", work / f"{tag}.log")
        r = dict(job)
        if job["env"] is not None:
            if job["env"] not in env_status:
                env_status[job["env"]] = ensure_env(job["env"], rep)
            if env_status[job["env"]] is not None:
                r.update(status="not runnable", error=env_status[job["env"]])
                results.append(r)
                rep(
                    f"   [{i + 1}/{len(jobs)}] {job['algo']:9s} {job['impl']:32s} "
                    f"eps={job['eps']:<3g} not runnable: {r['error']}"
                )
                continue
        cmd = [str(c) for c in job["cmd"]] + ["--result", str(res_json)]
        cmd += (
            ["--synth-output", str(out_csv)] if job["env"] is None else ["--output", str(out_csv)]
        )
        res_json.unlink(missing_ok=True)
        out_csv.unlink(missing_ok=True)
        load_before = os.getloadavg()[0]
        m = run_job(cmd, args.timeout, log, res_json)
        r.update(m)
        r["load_before"] = load_before
        if m["timed_out"]:
            r["status"] = "timeout"
        elif m.get("status") == "not available":
            r["status"] = "not available"
        elif m["returncode"] != 0 or not out_csv.exists():
            r["status"] = "error"
        else:
            r["status"] = "ok"
            synth = pd.read_csv(out_csv)
            missing = [c for c in columns if c not in synth.columns]
            if missing:
                r.update(status="error", error=f"output lacks columns {missing}")
            else:
                r["tvd2"] = mean_two_way_tvd(
                    real_codes[job["rows"]], codes_matrix(synth, columns, sizes), size_list
                )
                r["rows_synth"] = len(synth)
        results.append(r)
        fs = (r.get("fit_s") or 0) + (r.get("sample_s") or 0)
        detail = (
            f"fit+sample {secs(fs)}, cpu {secs(m['cpu_s'])}, peak {m['maxrss_mb']:.0f} MB, "
            f"TVD {r['tvd2']:.4f}"
            if r["status"] == "ok"
            else f"{r['status']}: {r.get('error', '')} (after {secs(m['wall_total_s'])}, "
            f"cpu {secs(m['cpu_s'])}, peak {m['maxrss_mb']:.0f} MB)"
        )
        rep(
            f"   [{i + 1}/{len(jobs)}] {job['algo']:9s} {job['impl']:32s} {job['rows']:>6,} rows "
            f"eps={job['eps']:<3g} {detail}; load {load_before:.1f}"
        )

    # ---- the table
    ours = {
        (r["algo"], r["rows"], r["eps"]): r
        for r in results
        if r["impl"].startswith("synthtrust") and r["status"] == "ok"
    }
    rows_out = []
    for r in results:
        fs = None
        if r["status"] == "ok":
            fs = r["fit_s"] + r["sample_s"]
        ref = ours.get((r["algo"], r["rows"], r["eps"]))
        ratio = "-"
        if ref is not None and not r["impl"].startswith("synthtrust"):
            ref_t = ref["fit_s"] + ref["sample_s"]
            if fs is not None:
                ratio = f"{fs / ref_t:.1f}x"
            elif r["status"] == "timeout":
                lo = args.timeout / ref_t
                ratio = f"> {lo:.1f}x" if lo < 10 else f"> {lo:.0f}x"
        status = {"ok": "", "timeout": f"> {args.timeout:.0f} s (timeout)"}.get(
            r["status"], r["status"]
        )
        rows_out.append(
            [
                r["algo"],
                r["impl"],
                f"{r['rows']:,}",
                f"{r['eps']:g}",
                secs(r.get("fit_s")) if r["status"] == "ok" else "-",
                secs(r.get("sample_s")) if r["status"] == "ok" else "-",
                secs(fs) if fs is not None else status,
                secs(r.get("cpu_s"))
                if r.get("cpu_s") and r["status"] in ("ok", "timeout")
                else "-",
                f"{r['maxrss_mb']:.0f}"
                if r.get("maxrss_mb") and r["status"] in ("ok", "timeout")
                else "-",
                f"{r['tree_rss_mb']:.0f}"
                if r.get("tree_rss_mb") and r["status"] in ("ok", "timeout")
                else "-",
                f"{r['tvd2']:.4f}" if "tvd2" in r else "-",
                ratio,
            ]
        )
    rep()
    rep(
        f"Fit + sample on adult (ε = {EPS:g}; AIM at ε = {aim_eps}), synthetic rows = training rows; "
        "ratio = peer time / ours (same algorithm, rows and ε)"
    )
    rep.table(
        [
            "synthesizer",
            "implementation",
            "rows",
            "ε",
            "fit",
            "sample",
            "fit+sample",
            "CPU",
            "peak MB",
            "tree MB",
            "2-way TVD",
            "ratio",
        ],
        rows_out,
        right=set(range(2, 12)),
    )
    problems = [r for r in results if r["status"] not in ("ok",)]
    if problems:
        rep()
        rep("not run to the end:")
        for r in problems:
            what = r.get("error") or ""
            if r["status"] == "timeout":
                what = f"killed after {args.timeout:.0f} s (--timeout)"
            rep(
                f"   {r['algo']} / {r['impl']} / {r['rows']:,} rows / eps={r['eps']:g}: "
                f"{r['status']}: {what}"
            )
    rep()
    rep("versions and what each peer did:")
    seen = set()
    for r in results:
        v = r.get("versions")
        if v and r["impl"] not in seen:
            seen.add(r["impl"])
            rep(f"   {r['impl']}: " + ", ".join(f"{k} {x}" for k, x in v.items() if x))
    for r in results:
        notes = r.get("notes") or {}
        if r["impl"].startswith("DataSynthesizer") and notes:
            rep(
                f"   DataSynthesizer {r['rows']:,} rows: numeric (20 equal-width bins from the data's "
                f"min/max): {', '.join(notes.get('numeric_20_bins', []))}; max parents "
                f"{notes.get('n_parents_max')}; budget: network {notes.get('epsilon_network')} + "
                f"conditionals {notes.get('epsilon_conditionals')} + independent-mode histograms "
                f"{notes.get('epsilon_independent_histograms')} = {notes.get('epsilon_strict_total')} "
                "(strict accounting of the saved description)"
            )
    rep()
    rep(
        "notes: wall times (fit, sample) are measured inside each worker; CPU = user + system seconds of the "
        "whole process tree (imports included). The machine has 2 cores and is shared with other jobs: "
        "the load average before each run is printed above; where it exceeds 2 the wall times are "
        "inflated and CPU is the figure to compare."
    )
    rep(f"benchmark finished; {load()}")
    rep.finish(
        args.output,
        ROOT / "benchmarks" / "results_synthesizers.txt",
        full_run=not args.quick and not args.skip_peers and not args.only,
    )
    if args.keep is None:
        import shutil  # noqa: PLC0415

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
