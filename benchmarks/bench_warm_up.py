"""Chapter 4's worker warm-up: everything for every task (the previous code) vs what the grid
needs (``warm_up_for``), in the same process, the tasks' outputs compared.

Each variant runs the same task in a fresh worker process (spawned, one BLAS thread, as loky's
workers), after the variant's warm-up: the real forest on Adult (``real_cell``) and PrivBayes on
Adult (``importance_cell``), neither of which needs JAX, mbi or PyTorch. Printed: the worker's
peak resident memory during the task (its warm-up's modules included), the task's seconds and
the warm-up's, and whether the two variants' frames are identical.

Usage::

    python benchmarks/bench_warm_up.py                 # the default preset's cells (~1 min)
    python benchmarks/bench_warm_up.py --preset paper  # the paper's forests (~4 min)
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd
import yaml

from synthtrust.run._environ import WORKER_ENV, environ
from synthtrust.run.experiment import _timed_task, cell_key
from synthtrust.studies.feature_importance import WarmUp, warm_up_for
from synthtrust.studies.feature_importance.grid import importance_cell, real_cell
from synthtrust.studies.feature_importance.study import study_cells

ROOT = Path(__file__).resolve().parents[1]


def _warm_and_time(warm_up: WarmUp) -> float:
    t0 = time.perf_counter()
    warm_up()
    return time.perf_counter() - t0


def _run(warm_up: WarmUp, func, cell: dict, seed: int):
    """(frame, task seconds, peak MB, warm-up seconds) of one replicate in a fresh worker."""
    context = multiprocessing.get_context("spawn")
    with environ(WORKER_ENV), ProcessPoolExecutor(1, mp_context=context) as pool:
        warm = pool.submit(_warm_and_time, warm_up).result()
        _, frame, seconds, peak = pool.submit(
            _timed_task, func, cell, cell_key(cell), 0, 1, seed, 0
        ).result()
    return frame, seconds, peak, warm


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="default")
    args = parser.parse_args(argv)
    params = yaml.safe_load(
        (ROOT / "chapters" / "params" / "feature_importance" / f"{args.preset}.yaml").read_text()
    )
    params["datasets"] = ["adult"]
    params["pate_datasets"] = params["beyond_datasets"] = []
    cells, real_cells = study_cells(params)
    (real,) = real_cells
    privbayes = next(c for c in cells if c["generator"] == "privbayes")
    tasks = [
        ("real forest, Adult", real_cell, real, real_cells),
        (f"PrivBayes ε={privbayes['level']:g}, Adult", importance_cell, privbayes, [privbayes]),
    ]
    print(f"# chapter 4 warm-up, preset {args.preset}: every library vs what the grid needs\n")
    header = (
        f"{'task':<28} {'warm-up':<22} {'peak MB':>8} {'task s':>7} {'warm-up s':>9}  same output"
    )
    print(header)
    print("-" * len(header))
    for label, func, cell, grid in tasks:
        rows = []
        for name, warm_up in (
            ("all (previous)", WarmUp()),
            ("needed (warm_up_for)", warm_up_for(grid)),
        ):
            frame, seconds, peak, warm = _run(warm_up, func, cell, params["seed"])
            rows.append((name, frame, seconds, peak, warm))
        same = rows[0][1].equals(rows[1][1])
        for name, _, seconds, peak, warm in rows:
            print(f"{label:<28} {name:<22} {peak:8.0f} {seconds:7.1f} {warm:9.1f}  {same}")
        old, new = rows[0][3], rows[1][3]
        print(f"{'':<28} {'ratio new/old':<22} {new / old:8.2f}")
        if not same:
            pd.testing.assert_frame_equal(rows[0][1], rows[1][1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
