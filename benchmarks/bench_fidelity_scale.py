"""Benchmark of the holdout report at scale: synthtrust against mostlyai-qa and SDMetrics on
mixed tables of 50 columns (issue 27).

Run from the repository root::

    .venv/bin/python benchmarks/bench_fidelity_scale.py                 # 100 000 and 1 000 000 rows
    .venv/bin/python benchmarks/bench_fidelity_scale.py --rows 2000 --quick   # plumbing check

Data: training, holdout and synthetic tables of ``--rows`` records and 50 columns drawn from one
model (:func:`mixed_table`: 25 categorical columns of 2-50 levels and 25 numeric ones, tied by
a latent factor; the synthetic table from a slightly shifted model), written as CSV.

Each peer runs in its own process (``benchmarks/peers/fidelity_report.py``; the peers in their
side environments ``.cache/peers/mostlyai-qa`` and ``.cache/peers/sdmetrics``, created from
``benchmarks/peers/requirements-*.txt``), timed around the library's calls only (no CSV
reading), with its peak resident memory; a peer that exceeds ``--timeout`` seconds is stopped
and reported as such. The table states what each peer samples: a DCR share computed on a sample
of the tables is not the statistic of ``platzer2021``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from synthtrust._atomic import write_text

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "peers" / "fidelity_report.py"
PEER_PYTHON = {
    "synthtrust": Path(sys.executable),
    "mostlyai-qa": ROOT / ".cache" / "peers" / "mostlyai-qa" / "bin" / "python",
    "sdmetrics": ROOT / ".cache" / "peers" / "sdmetrics" / "bin" / "python",
}
DEFAULT_OUTPUT = ROOT / "benchmarks" / "results_fidelity_scale.txt"


def mixed_table(n: int, shift: float = 0.0, *, random_state=0) -> pd.DataFrame:
    """``n`` records of 50 columns: ``cat00`` … ``cat24`` (text levels, 2 to 50 of them) and
    ``num00`` … ``num24`` (floats), all depending on one latent normal factor; ``shift`` moves
    the factor's mean (the synthetic table's model)."""
    rng = np.random.default_rng(random_state)
    z = rng.normal(shift, 1.0, n)
    out = {}
    for j in range(25):
        levels = 2 + (j * 2) % 49
        logits = np.outer(z, np.linspace(-1, 1, levels)) + rng.gumbel(size=(n, levels))
        out[f"cat{j:02d}"] = pd.Categorical.from_codes(
            logits.argmax(axis=1), [f"L{v}" for v in range(levels)]
        ).astype(str)
    for j in range(25):
        out[f"num{j:02d}"] = np.round(z * (j % 5 + 1) + rng.standard_normal(n) * (1 + j % 3), 3)
    return pd.DataFrame(out)


def run_peer(peer: str, files: dict, timeout: float, extra: list[str]) -> dict:
    python = PEER_PYTHON[peer]
    if not python.exists():
        return {"status": f"no side environment ({python.parent.parent})"}
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        argv = [str(python), str(SCRIPT), "--peer", peer, "--result", str(result), *extra]
        argv += [f"--{role}={path}" for role, path in files.items()]
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"status": f"stopped after {timeout:.0f} s"}
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            return {"status": "failed: " + proc.stderr.strip().splitlines()[-1][:120]}
        out = json.loads(result.read_text())
    return {"status": "ok", "wall": wall, **out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds a peer may take")
    ap.add_argument("--peers", nargs="+", default=list(PEER_PYTHON))
    ap.add_argument("--quick", action="store_true", help="write no results file")
    ap.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = ap.parse_args(argv)
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    say(f"bench_fidelity_scale.py — {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC")
    say(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    )
    for n in args.rows:
        with tempfile.TemporaryDirectory() as tmp:
            files = {}
            for role, (shift, seed) in {
                "train": (0.0, 1),
                "holdout": (0.0, 2),
                "synthetic": (0.1, 3),
            }.items():
                files[role] = Path(tmp) / f"{role}.csv"
                mixed_table(n, shift, random_state=seed).to_csv(files[role], index=False)
            say()
            say(f"{n:,} rows x 50 columns (25 categorical with 2-50 levels, 25 numeric)")
            say(f"  {'peer':<14} {'seconds':>9} {'ratio':>7} {'peak MB':>8}  samples / status")
            base = None
            for peer in args.peers:
                r = run_peer(peer, files, args.timeout, [])
                if r["status"] != "ok":
                    say(f"  {peer:<14} {'-':>9} {'-':>7} {'-':>8}  {r['status']}")
                    continue
                base = base or r["seconds"]
                say(
                    f"  {peer:<14} {r['seconds']:>9.1f} {r['seconds'] / base:>6.1f}x "
                    f"{r['maxrss_mb']:>8.0f}  {r['samples']}; {json.dumps(r['metrics'])}"
                )
    if not args.quick:
        write_text(args.output, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
