"""Tests of ``synthtrust.run.manifest``: the run manifest written next to a chapter's results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from synthtrust.run import manifest


# ---------------------------------------------------------------------------------------------
# manifest
# ---------------------------------------------------------------------------------------------
def test_write_manifest_outside_git(tmp_path, monkeypatch):
    import datetime as dt

    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    start = dt.datetime(2026, 1, 1, 12, 0, 0, tzinfo=dt.UTC)
    end = start + dt.timedelta(seconds=90.5)
    path = tmp_path / "m" / "manifest.json"
    info = manifest.write_manifest(
        path,
        chapter="c",
        preset="smoke",
        parameters={"seed": 7, "eps": np.float64(0.5)},
        start_time=start,
        end_time=end,
        n_jobs=2,
        dask="local",
        extra=Path("/x"),
    )
    assert json.loads(path.read_text()) == info
    assert info["seed"] == 7 and info["parameters"]["eps"] == 0.5
    assert info["wall_time_s"] == 90.5
    assert info["start_time"] == "2026-01-01T12:00:00+00:00"
    assert info["git"] == {"commit": "unknown", "dirty": None}
    assert info["extra"] == "/x" and info["dask"] == "local"
    assert [p.name for p in path.parent.iterdir()] == ["manifest.json"]
