"""Helpers shared by chapter 5's benchmarks, ``bench_audit.py`` (the audit against dense vectors)
and ``bench_ipf.py`` (IPF against ipfn and humanleague): the clock, formatting, the census sample
coded to an application's columns, the common options and the run with its report header.

Every timing runs on one thread (BLAS limited with ``threadpoolctl``; the peers get
``OPENBLAS_NUM_THREADS=1``) and is CPU time of the process (``time.process_time``), which other
jobs on a shared machine inflate far less than wall time; the header prints the load average all
the same.
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
from _report import ROOT, Report, load, machine  # benchmarks/ is on sys.path when run as a script
from threadpoolctl import threadpool_limits

from synthtrust.studies.auditing import audits as study

SEED = 0
DENSE_MAX_CELLS = 200_000  # dense forms run in full up to this M (IPF: best of --repeats)
#: the clock of every timing: CPU seconds of this process (one thread), which other jobs on the
#: shared machine inflate far less than wall time
clock = time.process_time


def secs(t: float | None) -> str:
    if t is None or not np.isfinite(t):
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.0f} µs"
    if t < 1:
        return f"{t * 1e3:.1f} ms"
    if t < 100:
        return f"{t:.2f} s"
    return f"{t:.0f} s"


def ratio(a: float, b: float) -> str:
    r = a / b
    return f"{r:.2f}x" if r < 10 else f"{r:.0f}x"


def check(cond: bool, message: str) -> None:
    if not cond:
        raise AssertionError(message)


_CENSUS = None


def census_codes(app: int) -> pd.DataFrame:
    """The census sample (10 000 rows) coded to application ``app``'s columns (int64)."""
    global _CENSUS
    from synthtrust.datasets import load as load_dataset
    from synthtrust.domain import dataset_domain

    if _CENSUS is None:
        _CENSUS = load_dataset("census2011_random10k")
    cols = list(study.application(app).columns)
    return dataset_domain(study.CENSUS).select(cols).encode(_CENSUS[cols]).astype(np.int64)


def add_common_options(ap: argparse.ArgumentParser, quick_help: str, results: str) -> None:
    """``--quick``, ``--apps``, ``--repeats`` and ``--output`` (default file ``results``)."""
    ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument(
        "--apps", default=None, help="comma-separated applications (default 1,2,3; --quick: 1,2)"
    )
    ap.add_argument("--repeats", type=int, default=5, help="timed runs, best kept (5)")
    ap.add_argument(
        "--output",
        type=Path,
        default=None,
        help=f"report file (default for a full run: benchmarks/{results})",
    )


def resolve_common_options(ap: argparse.ArgumentParser, args) -> None:
    """``args.apps`` as a tuple of applications; at most 2 repeats with ``--quick``."""
    if args.apps is None:
        args.apps = (1, 2) if args.quick else (1, 2, 3)
    else:
        args.apps = tuple(int(a) for a in args.apps.split(",") if a.strip())
        if not args.apps or any(a not in study.APPLICATIONS for a in args.apps):
            ap.error(f"--apps must list applications among {list(study.APPLICATIONS)}")
    if args.quick:
        args.repeats = min(args.repeats, 2)


def run(script: str, parts, args, results: str, full_run: bool) -> int:
    """Print the header, run ``parts`` (functions ``part(say, args)``) in order on one BLAS
    thread, print the total and save the report (``--output``, or ``benchmarks/<results>`` for a
    full run)."""
    say = Report()
    t0 = time.perf_counter()
    say(
        f"{script} — {_dt.datetime.now(_dt.UTC):%Y-%m-%d %H:%M} UTC"
        f"{' (--quick)' if args.quick else ''}"
    )
    say(f"machine: {machine()}; {load()}")
    say(
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"pandas {pd.__version__}; BLAS limited to 1 thread (threadpoolctl); times are CPU "
        f"seconds of one thread (time.process_time) unless marked wall"
    )
    say()
    with threadpool_limits(limits=1):
        for part in parts:
            part(say, args)
            say()
    say(f"benchmark total {secs(time.perf_counter() - t0)}; {load()}")
    say.finish(args.output, ROOT / "benchmarks" / results, full_run=full_run)
    return 0
