"""synthtrust.run._grid_records: a chapter run's record of each run_grid call (progress for the
line a stopped run prints, the profile its manifest keeps), checked against hand counts and
against run_grid itself on a cache."""

from __future__ import annotations

import functools
import json
import time

import numpy as np
import pandas as pd
import pytest

from synthtrust.run import _grid_records
from synthtrust.run._grid_records import (
    RECORD_ENV,
    profile_table,
    read_grids,
    read_progress,
    record_grid,
)
from synthtrust.run.experiment import run_grid


def test_records_add_up_over_grids(tmp_path, monkeypatch):
    monkeypatch.delenv(RECORD_ENV, raising=False)
    assert record_grid("g", 4) is None  # no folder: nothing recorded
    monkeypatch.setenv(RECORD_ENV, str(tmp_path))
    first = record_grid("first", 8, from_cache=1)
    record_grid("second", 5, from_cache=5)  # found all its tasks in the cache
    first.task_done(2.0, 300.0)
    first.task_done(0.5, 250.0)  # the peak is the largest, the seconds add up
    (tmp_path / ".abc.json.x.tmp.json").write_text("{half")  # a record being written
    assert read_progress(tmp_path) == (2, 3 + 5, 8 + 5)
    assert read_progress(tmp_path / "none") == (0, 0, 0)
    one, two = read_grids(tmp_path)  # in the order the grids started
    assert (one["name"], two["name"]) == ("first", "second")
    assert one | {"started": 0, "wall_s": 0} == {
        "name": "first",
        "started": 0,
        "tasks": 8,
        "cached": 3,
        "from_cache": 1,
        "computed": 2,
        "wall_s": 0,
        "task_s": 2.5,
        "peak_mb": 300.0,
    }
    assert two["computed"] == 0 and two["peak_mb"] == 0.0 and two["wall_s"] == 0.0
    assert 0 <= one["wall_s"] < 5


def test_the_wall_time_runs_from_the_start_to_the_last_task(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORD_ENV, str(tmp_path))
    record = record_grid("g", 2)
    time.sleep(0.2)
    record.task_done(0.01, 1.0)
    (written,) = read_grids(tmp_path)
    assert 0.2 <= written["wall_s"] < 2.0
    assert written == json.loads(record.path.read_text()) == record.as_dict()


def _busy(params, rngs):
    """Busy for params['ms'] milliseconds a task, and a draw a replicate to return."""
    end = time.perf_counter() + params["ms"] / 1000
    while time.perf_counter() < end:
        pass
    return pd.DataFrame({"x": [rng.random() for rng in rngs]})


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_run_grid_records_its_tasks_and_their_seconds(tmp_path, monkeypatch, n_jobs):
    records, cache = tmp_path / "records", tmp_path / "cache"
    records.mkdir()
    monkeypatch.setenv(RECORD_ENV, str(records))
    grid = {"ms": [40, 80]}
    first = run_grid(_busy, grid, n_reps=4, chunk_size=2, cache_dir=cache, n_jobs=n_jobs)
    (record,) = read_grids(records)
    assert record["name"].endswith("_busy")
    assert (record["tasks"], record["from_cache"], record["computed"]) == (4, 0, 4)
    assert record["cached"] == 4
    # two tasks a cell, busy 40 and 80 ms each: 2 * (0.04 + 0.08) = 0.24 s at least
    assert 0.24 <= record["task_s"] < 0.24 + 2.0
    assert 50 < record["peak_mb"] < 4000  # a Python process with numpy and pandas
    assert record["wall_s"] > 0
    for path in records.iterdir():
        path.unlink()
    again = run_grid(_busy, grid, n_reps=4, chunk_size=2, cache_dir=cache, n_jobs=n_jobs)
    pd.testing.assert_frame_equal(again, first)
    (record,) = read_grids(records)
    assert (record["tasks"], record["from_cache"], record["computed"]) == (4, 4, 0)
    assert record["task_s"] == 0.0 and record["peak_mb"] == 0.0


def test_run_grid_without_a_cache_keeps_no_record(tmp_path, monkeypatch):
    """A grid inside a task (an audit's generator copies) has no cache: only the chapter's own
    grids are in the profile."""
    monkeypatch.setenv(RECORD_ENV, str(tmp_path))
    out = run_grid(_busy, {"ms": [1]}, n_reps=2, n_jobs=1)
    assert len(out) == 2 and np.isfinite(out["x"]).all()
    assert read_grids(tmp_path) == []
    assert _grid_records.read_progress(tmp_path) == (0, 0, 0)


def _record(name, tasks, computed, wall, task_s, peak):
    return {
        "name": name,
        "started": 0.0,
        "tasks": tasks,
        "cached": tasks,
        "from_cache": tasks - computed,
        "computed": computed,
        "wall_s": wall,
        "task_s": task_s,
        "peak_mb": peak,
    }


def test_the_profile_table_sums_the_grids_of_each_chapter():
    manifests = {
        "a": {
            "wall_time_s": 130.0,
            "grids": [
                _record("a: fit", 10, 10, 100.0, 190.0, 700.4),
                _record("a: g", 4, 1, 5, 8, 300),
            ],
        },
        "b": {"wall_time_s": 12.25},  # a run from before grid records
    }
    assert profile_table(manifests) == "\n".join(
        [
            "| chapter / grid | wall (s) | grids | tasks computed / all | task core-s | peak MB |",
            "|---|---:|---:|---:|---:|---:|",
            "| a | 130 | 2 | 11 / 14 | 198 | 700 |",
            "| b | 12.2 | | | | |",
            "| **total** | 142 | 2 | 11 / 14 | 198 | 700 |",
        ]
    )
    rows = profile_table(manifests, grids=True).splitlines()
    assert rows[3:5] == [
        "| &nbsp;&nbsp;fit | 100 | | 10 / 10 | 190 | 700 |",
        "| &nbsp;&nbsp;g | 5.0 | | 1 / 4 | 8.0 | 300 |",
    ]
    assert len(rows) == 7


def test_a_partial_is_recorded_under_its_functions_name(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "records"))
    (tmp_path / "records").mkdir()
    monkeypatch.setenv("SYNTHTRUST_CHAPTER", "tiny")  # inside a chapter: after its name
    run_grid(functools.partial(_busy), {"ms": [1]}, n_reps=1, cache_dir=tmp_path / "c", n_jobs=1)
    (record,) = read_grids(tmp_path / "records")
    assert record["name"] == "tiny: _busy"
