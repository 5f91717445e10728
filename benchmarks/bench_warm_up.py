"""Worker warm-ups: everything for every task (the previous code) vs what the task's cell
needs, in the same process, the tasks' outputs compared.

Each variant runs the same task in a fresh worker process (spawned, one BLAS thread, as loky's
workers), after the variant's warm-up. Chapter 4 (``warm_up_for``): the real forest on Adult
(``real_cell``) and PrivBayes on Adult (``importance_cell``), neither of which needs JAX, mbi or
PyTorch. Chapter 2 (``--chapter holdout_fidelity_privacy``, ``generators.warm_up_of``): CTGAN
(PyTorch, no JAX) and MST (JAX and mbi, no PyTorch) on credit-default, the generator grid's
largest tasks. Printed: the worker's peak resident memory during the task (its warm-up's
modules included), the task's seconds and the warm-up's, and whether the two variants' frames
are identical.

Usage::

    python benchmarks/bench_warm_up.py                 # chapter 4, default preset (~1 min)
    python benchmarks/bench_warm_up.py --preset paper  # the paper's forests (~4 min)
    python benchmarks/bench_warm_up.py --chapter holdout_fidelity_privacy   # (~4 min)
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


def _warm_and_time(warm_up) -> float:
    t0 = time.perf_counter()
    warm_up()
    return time.perf_counter() - t0


def _run(warm_up, func, cell: dict, seed: int):
    """(frame, task seconds, peak MB, warm-up seconds) of one replicate in a fresh worker."""
    context = multiprocessing.get_context("spawn")
    with environ(WORKER_ENV), ProcessPoolExecutor(1, mp_context=context) as pool:
        warm = pool.submit(_warm_and_time, warm_up).result()
        _, frame, seconds, peak = pool.submit(
            _timed_task, func, cell, cell_key(cell), 0, 1, seed, 0
        ).result()
    return frame, seconds, peak, warm


def _load_both() -> None:
    """Chapter 2's previous warm-up of its generator grid: JAX, mbi and PyTorch in every worker."""
    from synthtrust.studies.holdout_fidelity_privacy import generators

    generators.load_mbi()
    generators.load_torch()


def _params(chapter: str, preset: str) -> dict:
    return yaml.safe_load((ROOT / "chapters" / "params" / chapter / f"{preset}.yaml").read_text())


def _feature_importance_tasks(preset: str):
    """(label, func, cell, previous warm-up, new warm-up) of chapter 4, and the seed."""
    params = _params("feature_importance", preset)
    params["datasets"] = ["adult"]
    params["pate_datasets"] = params["beyond_datasets"] = []
    cells, real_cells = study_cells(params)
    (real,) = real_cells
    privbayes = next(c for c in cells if c["generator"] == "privbayes")
    tasks = [
        ("real forest, Adult", real_cell, real, WarmUp(), warm_up_for(real_cells)),
        (
            f"PrivBayes ε={privbayes['level']:g}, Adult",
            importance_cell,
            privbayes,
            WarmUp(),
            warm_up_for([privbayes]),
        ),
    ]
    return tasks, params["seed"]


def _holdout_tasks(preset: str):
    """(label, func, cell, previous warm-up, new warm-up) of chapter 2, and the seed."""
    from synthtrust.studies.holdout_fidelity_privacy import generators

    params = _params("holdout_fidelity_privacy", preset)
    cells = generators.build_grid(
        datasets_=["credit-default"],
        generators=["ctgan", "mst"],
        rows=params["generator_rows"],
        ctgan_epochs=params["ctgan_epochs"],
        epsilon=params["generator_epsilon"],
        delta=params["generator_delta"],
    )
    tasks = [
        (f"{c['label']}, credit-default", generators.score_cell, c, _load_both,
         generators.warm_up_of(c))
        for c in cells
    ]  # fmt: skip
    return tasks, params["seed"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="default")
    parser.add_argument(
        "--chapter",
        default="feature_importance",
        choices=["feature_importance", "holdout_fidelity_privacy"],
    )
    args = parser.parse_args(argv)
    if args.chapter == "feature_importance":
        tasks, seed = _feature_importance_tasks(args.preset)
    else:
        tasks, seed = _holdout_tasks(args.preset)
    print(f"# {args.chapter} warm-up, preset {args.preset}: every library vs what the cell needs\n")
    header = (
        f"{'task':<28} {'warm-up':<22} {'peak MB':>8} {'task s':>7} {'warm-up s':>9}  same output"
    )
    print(header)
    print("-" * len(header))
    for label, func, cell, previous, needed in tasks:
        rows = []
        for name, warm_up in (("all (previous)", previous), ("needed", needed)):
            frame, seconds, peak, warm = _run(warm_up, func, cell, seed)
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
