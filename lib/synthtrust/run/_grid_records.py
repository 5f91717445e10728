"""What each ``run_grid`` call of a chapter run did: its tasks, how many the cache held, and its
profile (wall seconds, the core-seconds and peak memory of the tasks it computed).

``synthtrust run`` sets :data:`RECORD_ENV` to a folder for the chapter's kernel; every
``run_grid`` call with a cache there keeps one record, ``<folder>/<uuid>.json``, rewritten
atomically as its tasks finish::

    {"name": "hypothesis_validity: simulate_cell", "started": 1764770000.0, "tasks": 40,
     "cached": 40, "from_cache": 12, "computed": 28, "wall_s": 31.2, "task_s": 60.1,
     "peak_mb": 402.5}

``cached`` counts the tasks in the cache now (found there, or computed and stored), so a run
stopped halfway says how many a rerun finds (:func:`read_progress`); ``wall_s`` is the time from
the grid's start to its last finished task, ``task_s`` the sum of the computed tasks' seconds
(each on one core: its core-seconds) and ``peak_mb`` the largest peak resident memory of a
process while it ran one of them (the worker's, warm-up included; 0 when none was computed). The
runner writes the records of a finished run into its ``manifest.json`` as ``grids``
(:func:`read_grids`), in the order the grids started.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from synthtrust._atomic import write_text

__all__ = [
    "RECORD_ENV",
    "GridRecord",
    "profile_table",
    "read_grids",
    "read_progress",
    "record_grid",
]

#: The folder of the grid records of a chapter run (set by the runner for the kernel).
RECORD_ENV = "SYNTHTRUST_PROGRESS"


class GridRecord:
    """The record of one ``run_grid`` call (see the module's docstring); made by
    :func:`record_grid`.

    Parameters
    ----------
    path : path
        The record's file.
    name : str
        The grid's label (its progress bar's).
    tasks : int
        The grid's tasks (cells × replicate chunks).
    from_cache : int
        The tasks found in the cache before any was computed.
    """

    def __init__(self, path: str | os.PathLike, name: str, tasks: int, from_cache: int) -> None:
        self.path = Path(path)
        self.name = str(name)
        self.tasks = int(tasks)
        self.from_cache = int(from_cache)
        self.computed = 0
        self.task_s = 0.0
        self.peak_mb = 0.0
        self.started = time.time()
        self._t0 = time.perf_counter()
        self._wall = 0.0
        self._write()

    def task_done(self, seconds: float, peak_mb: float) -> None:
        """Count one computed task of ``seconds`` whose process peaked at ``peak_mb`` MB, and
        rewrite the record."""
        self.computed += 1
        self.task_s += float(seconds)
        self.peak_mb = max(self.peak_mb, float(peak_mb))
        self._wall = time.perf_counter() - self._t0
        self._write()

    def as_dict(self) -> dict:
        """The record as written (see the module's docstring)."""
        return {
            "name": self.name,
            "started": self.started,
            "tasks": self.tasks,
            "cached": self.from_cache + self.computed,
            "from_cache": self.from_cache,
            "computed": self.computed,
            "wall_s": round(self._wall, 3),
            "task_s": round(self.task_s, 3),
            "peak_mb": round(self.peak_mb, 1),
        }

    def _write(self) -> None:
        write_text(self.path, json.dumps(self.as_dict()))


def record_grid(name: str, tasks: int, from_cache: int = 0) -> GridRecord | None:
    """Start the record of one grid call in the folder :data:`RECORD_ENV` names; None (nothing
    recorded) when it is unset."""
    folder = os.environ.get(RECORD_ENV)
    if not folder:
        return None
    return GridRecord(Path(folder) / f"{uuid.uuid4().hex}.json", name, tasks, from_cache)


def read_grids(folder: str | os.PathLike) -> list[dict]:
    """The records in ``folder`` in the order their grids started (``[]`` if none); a record
    being written (a hidden temporary file) is skipped."""
    records = []
    for path in Path(folder).glob("*.json"):
        if path.name.startswith("."):  # a record being written (synthtrust._atomic)
            continue
        records.append(json.loads(path.read_text(encoding="utf-8")))
    return sorted(records, key=lambda r: (r["started"], r["name"]))


def read_progress(folder: str | os.PathLike) -> tuple[int, int, int]:
    """``(grids, cached tasks, tasks)`` summed over the records in ``folder`` (zeros if none)."""
    records = read_grids(folder)
    return (
        len(records),
        sum(r["cached"] for r in records),
        sum(r["tasks"] for r in records),
    )


def _seconds(value: float) -> str:
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def profile_table(manifests: Mapping[str, Mapping], *, grids: bool = False) -> str:
    """The profile of chapter runs as a Markdown table, from their ``manifest.json``.

    One row per chapter: its wall time (``wall_time_s``), its grids, the tasks computed of all
    its grids' tasks (the rest came from the cache), their core-seconds and the largest peak
    resident memory of a task's process; then a total row. With ``grids=True``, a row per
    grid under its chapter's. A manifest without ``grids`` (a run before grid records) shows
    its wall time alone.

    Parameters
    ----------
    manifests : mapping
        Chapter name -> its run's manifest (a dict as :func:`synthtrust.run.manifest.write_manifest`
        wrote it), in the order the rows should follow.
    grids : bool, default False
        Add a row per grid.

    Returns
    -------
    str
        The table, lines joined by newlines (no trailing newline).
    """
    lines = [
        "| chapter / grid | wall (s) | grids | tasks computed / all | task core-s | peak MB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    total_wall = total_cores = 0.0
    total_grids = total_computed = total_tasks = 0
    total_peak = 0.0
    for chapter, manifest in manifests.items():
        wall = float(manifest.get("wall_time_s") or 0.0)
        records = manifest.get("grids")
        total_wall += wall
        if records is None:
            lines.append(f"| {chapter} | {_seconds(wall)} | | | | |")
            continue
        computed = sum(r["computed"] for r in records)
        tasks = sum(r["tasks"] for r in records)
        cores = sum(r["task_s"] for r in records)
        peak = max((r["peak_mb"] for r in records), default=0.0)
        total_grids += len(records)
        total_computed += computed
        total_tasks += tasks
        total_cores += cores
        total_peak = max(total_peak, peak)
        lines.append(
            f"| {chapter} | {_seconds(wall)} | {len(records)} | {computed} / {tasks} | "
            f"{_seconds(cores)} | {peak:.0f} |"
        )
        if grids:
            lines += [
                f"| &nbsp;&nbsp;{r['name'].split(': ', 1)[-1]} | {_seconds(r['wall_s'])} | | "
                f"{r['computed']} / {r['tasks']} | {_seconds(r['task_s'])} | "
                f"{r['peak_mb']:.0f} |"
                for r in records
            ]
    lines.append(
        f"| **total** | {_seconds(total_wall)} | {total_grids} | {total_computed} / "
        f"{total_tasks} | {_seconds(total_cores)} | {total_peak:.0f} |"
    )
    return "\n".join(lines)
