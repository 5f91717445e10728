"""Tests of ``synthtrust.cli.app``, the `synthtrust` command line (the runner's and the manifest's own
functions are tested in tests/test_runner.py and tests/test_manifest.py).

They run against a copy of tests/fixtures/book (chapters `tiny` and `broken`), selected with
SYNTHTRUST_ROOT, so nothing is written into the repository.
"""

from __future__ import annotations

import json
import sys
import types

import nbformat
import numpy as np
import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.cli import app as cli
from synthtrust.run import fingerprint, manifest, runner
from synthtrust.run.experiment import cell_key


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_prints_chapters_and_presets(book, capsys):
    code, out, err = run_cli(capsys, "list")
    assert code == 0 and err == ""
    assert out.splitlines() == ["broken  presets: default", "tiny    presets: smoke, default"]


# ---------------------------------------------------------------------------------------------
# Errors: exit status 2, one line on stderr, no traceback
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "nope"], "synthtrust: error: unknown chapter 'nope'; chapters: broken, tiny"),
        (
            ["run", "tiny", "--preset", "huge"],
            "synthtrust: error: unknown preset 'huge' for chapter 'tiny'; presets: smoke, default",
        ),
        (
            ["run", "tiny", "-p", "bogus", "1"],
            "synthtrust: error: unknown parameter(s) 'bogus' for chapter 'tiny' (preset 'default'); "
            "allowed: epsilon, n_reps, seed, label",
        ),
        (["run", "tiny", "-p", "results_dir", "/x"], "unknown parameter(s) 'results_dir'"),
        (["run", "tiny", "-p", "epsilon", "[0.1,"], "synthtrust: error: -p epsilon: value"),
    ],
)
def test_bad_requests_exit_2_with_message(book, capsys, argv, message):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert not (book / "_build").exists()  # nothing ran


def test_usage_errors_exit_2(book, capsys):
    code, _, err = run_cli(capsys, "run", "tiny", "--n-jobs", "0")
    assert code == 2 and "--n-jobs" in err
    code, _, err = run_cli(capsys, "frobnicate")
    assert code == 2 and "invalid choice" in err
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.startswith("synthtrust ")


# ---------------------------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------------------------
def test_run_writes_notebook_results_and_manifest(book, tmp_path, capsys):
    out_dir, cache = tmp_path / "runs" / "x", tmp_path / "cache"
    code, out, err = run_cli(
        capsys,
        "run",
        "tiny",
        "-p",
        "epsilon",
        "[0.25, 2]",
        "-p",
        "label",
        "hello",
        "--out",
        str(out_dir),
        "--n-jobs",
        "1",
        "--cache-dir",
        str(cache),
        "--no-progress",
    )
    assert code == 0, err
    notebook, results, manifest_path = (
        out_dir / "tiny.ipynb",
        out_dir / "results",
        out_dir / "manifest.json",
    )
    table = verdicts.read_verdicts(results)
    assert out.splitlines() == [
        f"notebook: {notebook}",
        f"results:  {results}",
        f"manifest: {manifest_path}",
        f"verdicts: {verdicts.summarize(table)['text']}",
    ]
    assert sorted(p.name for p in out_dir.iterdir()) == ["manifest.json", "results", "tiny.ipynb"]

    # manifest: final parameters, seed, environment, timing
    info = json.loads(manifest_path.read_text())
    for key in (
        "chapter",
        "preset",
        "parameters",
        "seed",
        "git",
        "python",
        "packages",
        "platform",
        "start_time",
        "end_time",
        "wall_time_s",
        "peak_memory_mib",
        "n_jobs",
        "dask",
    ):
        assert key in info, key
    assert info["chapter"] == "tiny" and info["preset"] == "default"
    assert info["parameters"] == {"epsilon": [0.25, 2], "n_reps": 6, "seed": 0, "label": "hello"}
    assert info["overrides"] == {"epsilon": [0.25, 2], "label": "hello"}
    assert info["seed"] == 0 and info["n_jobs"] == 1 and info["dask"] is None
    assert set(manifest.PACKAGES) <= set(info["packages"])
    assert info["packages"]["numpy"] == np.__version__
    assert info["wall_time_s"] > 0 and info["peak_memory_mib"]["total"] > 0
    assert set(info["git"]) == {"commit", "dirty"}
    assert info["results"] == ["draws.csv", "seen.json", "verdicts.csv"]
    # the inputs it was made from: a book build reuses this run while they stay the same
    overrides = {"epsilon": [0.25, 2], "label": "hello"}
    assert info["inputs_digest"] == runner.run_inputs_digest("tiny", "default", overrides)
    assert fingerprint.up_to_date(out_dir, "tiny", info["inputs_digest"])
    assert not fingerprint.up_to_date(out_dir, "tiny", runner.run_inputs_digest("tiny", "default"))
    assert not fingerprint.up_to_date(out_dir, "other", info["inputs_digest"])
    # the record of the chapter's one grid: 2 cells x 2 chunks of replicates (6 by 4)
    (grid,) = info["grids"]
    assert (grid["name"], grid["tasks"], grid["cached"]) == ("tiny: simulate", 4, 4)
    assert grid["computed"] + grid["from_cache"] == 4
    assert grid["task_s"] >= 0 and grid["wall_s"] >= 0
    assert grid["computed"] == 0 or grid["peak_mb"] > 50  # a worker with numpy and pandas

    # executed notebook: papermill's injected cell carries the overrides and runtime keys
    nb = nbformat.read(notebook, as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1
    assert "epsilon = [0.25, 2]" in injected[0].source
    assert 'label = "hello"' in injected[0].source
    assert f'results_dir = "{results}"' in injected[0].source
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))
    assert "label=hello epsilon=[0.25, 2]" in printed
    assert nb.metadata.papermill["input_path"] == str(book / "chapters" / "tiny.md")

    # what the kernel saw: runtime keys, and the chapters folder as working directory
    seen = json.loads((results / "seen.json").read_text())
    assert seen["cwd"] == str(book / "chapters")
    assert seen["chapter"] == "tiny"  # the label of the kernel's progress bars
    assert seen["cache_dir"] == str(cache) and seen["n_jobs"] == 1 and seen["dask"] is None

    # results equal the seed contract, computed here by hand
    draws = pd.read_csv(results / "draws.csv")
    assert len(draws) == 2 * 6
    for row in draws.itertuples():
        eps = row.epsilon
        rng = np.random.default_rng(
            np.random.SeedSequence(0, spawn_key=(cell_key({"epsilon": eps}), row.rep))
        )
        assert row.x == pytest.approx(rng.laplace(scale=1 / eps), rel=1e-12)
    assert any(cache.rglob("output.pkl"))  # finished tasks were cached

    # the verdicts: the bootstrap interval of each ε's draws, recomputed here
    assert list(table.finding) == ["mean_eps_0.25", "mean_eps_2"]
    for row, eps in zip(table.itertuples(), [0.25, 2], strict=True):
        ci = verdicts.bootstrap_interval(draws[draws.epsilon == eps].x, random_state=0)
        assert (row.estimate, row.lower, row.upper, row.n) == pytest.approx(
            (ci.estimate, ci.lower, ci.upper, 6), rel=1e-12
        )
        assert row.verdict == verdicts.decide(ci.lower, ci.upper, -1.0, 1.0)


def test_failing_chapter_exits_1_and_keeps_the_notebook(book, capsys):
    code, out, err = run_cli(capsys, "run", "broken", "--no-progress")
    assert code == 1
    assert "ValueError: boom with size=3" in err and "Traceback" not in err
    run_dir = book / "_build" / "runs" / "default" / "broken"  # the default --out
    assert (run_dir / "broken.failed.ipynb").is_file()
    assert not (run_dir / "broken.ipynb").exists() and not (run_dir / "manifest.json").exists()
    assert not list(run_dir.glob(".*"))  # no temporary files left

    # a later successful run in the same folder replaces the failed one, leaving no stale files
    (book / "chapters" / "broken.md").write_text(
        (book / "chapters" / "broken.md").read_text().replace("raise ValueError", "print")
    )
    code, out, err = run_cli(capsys, "run", "broken", "--no-progress", "-p", "size", "4")
    assert code == 0, err
    assert sorted(p.name for p in run_dir.iterdir()) == ["broken.ipynb", "manifest.json", "results"]
    nb = nbformat.read(run_dir / "broken.ipynb", as_version=4)
    assert "boom with size=4" in "".join(o.get("text", "") for o in nb.cells[-1].outputs)


def test_book_calls_book_build_lazily(book, capsys, monkeypatch, tmp_path):
    seen = {}

    def build(preset="default", out=None, n_jobs=None, dask=None, rerun=False):
        seen.update(preset=preset, out=out, n_jobs=n_jobs, dask=dask, rerun=rerun)
        return tmp_path / "site"

    monkeypatch.setitem(sys.modules, "synthtrust.run.book", types.SimpleNamespace(build=build))
    import synthtrust.run

    monkeypatch.setattr(synthtrust.run, "book", sys.modules["synthtrust.run.book"], raising=False)
    code, out, _ = run_cli(
        capsys, "book", "--preset", "smoke", "--out", str(tmp_path / "b"), "--n-jobs", "2"
    )
    assert code == 0
    expected = {"preset": "smoke", "out": tmp_path / "b", "n_jobs": 2, "dask": None}
    assert seen == {**expected, "rerun": False}
    assert out.strip() == f"book: {tmp_path / 'site'}"
    code, _, _ = run_cli(capsys, "book", "--rerun")  # every chapter, also the up-to-date ones
    assert code == 0
    assert seen == {"preset": "default", "out": None, "n_jobs": None, "dask": None, "rerun": True}


def test_book_failure_exits_1_without_traceback(book, capsys, monkeypatch):
    class BookBuildError(RuntimeError):
        pass

    def build(**kwargs):
        raise BookBuildError("jupyter-book build failed: see log")

    fake = types.SimpleNamespace(build=build, BookBuildError=BookBuildError)
    monkeypatch.setitem(sys.modules, "synthtrust.run.book", fake)
    import synthtrust.run

    monkeypatch.setattr(synthtrust.run, "book", fake, raising=False)
    code, _, err = run_cli(capsys, "book")
    assert code == 1
    assert err.strip() == "synthtrust: error: jupyter-book build failed: see log"


def test_two_runs_never_write_into_the_same_folder(book, tmp_path, capsys):
    import subprocess

    out_dir = tmp_path / "runs" / "tiny"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from synthtrust.run._lock import folder_lock\n"
            "with folder_lock(sys.argv[1]):\n    print('locked', flush=True); time.sleep(60)",
            str(out_dir),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        code, out, err = run_cli(capsys, "run", "tiny", "--out", str(out_dir), "--no-progress")
        assert code == 1 and "Traceback" not in err
        assert f"is being written by another run (pid {holder.pid} on " in err
        assert "choose another --out" in err
        assert not (out_dir / "results").exists()  # nothing written by the refused run
    finally:
        holder.kill()
        holder.wait()
    # the holder was killed: its lock went with it (its lock file is taken over)
    assert (out_dir / ".lock").exists()
    code, out, err = run_cli(capsys, "run", "tiny", "--out", str(out_dir), "--no-progress")
    assert code == 0, err
    assert not (out_dir / ".lock").exists()


def test_estimate_prints_the_cost_without_running(book, capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "tiny",
        "--estimate",
        "--estimate-tasks",
        "2",
        "-p",
        "epsilon",
        "[0.5, 1, 2]",
        "-p",
        "n_reps",
        "8",
        "--no-progress",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == (
        "tiny --preset default, epsilon=[0.5, 1, 2], n_reps=8: at least 2 task(s) timed per grid"
    )
    row = next(line for line in lines if line.startswith("simulate"))
    assert row.split()[1:4] == ["3", "6", "2"]  # 3 cells x 2 chunks of 4, 2 timed
    assert not (book / "_build").exists()  # nothing was run into a run folder
    code, out, err = run_cli(capsys, "run", "tiny", "--estimate", "--estimate-tasks", "0")
    assert code == 2 and "--estimate-tasks: must be >= 1" in err
