"""A real Dask cluster: a scheduler and two workers started with the ``dask`` command over TCP
on localhost, as on a cluster (not ``LocalCluster`` in-process), and the faults a long run
meets there: a worker killed mid-run, the client killed mid-run.

The workers import the installed package; the tests' own cell function reaches them through
``Client.upload_file``; the cache and the results stay with the client. Each test takes well
under two minutes.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from synthtrust.run import runner
from synthtrust.run._environ import WORKER_ENV
from synthtrust.run.experiment import run_grid

distributed = pytest.importorskip("distributed")

from _cluster_tasks import slow_draws  # noqa: E402  (tests/ is on sys.path under pytest)

TASKS = Path(__file__).with_name("_cluster_tasks.py")
GRID = {"mu": [0.0, 1.0, 2.0, 3.0], "seconds": [0.4]}
N_REPS = 4  # 16 tasks of one replicate, 0.4 s each
CHAPTER = "holdout_fidelity_privacy"


@dataclass
class Cluster:
    address: str
    workers: list[subprocess.Popen]
    client: object


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args, log: Path, cwd: Path) -> subprocess.Popen:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [str(Path(sys.executable).with_name("dask")), *args],
        cwd=cwd,
        env={**os.environ, **WORKER_ENV},
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )


@pytest.fixture
def cluster(tmp_path):
    """``dask scheduler`` and two ``dask worker --no-nanny`` processes (one thread each), each in
    a folder of its own."""
    address = f"tcp://127.0.0.1:{_free_port()}"
    procs = [
        _dask(
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            address.rsplit(":", 1)[1],
            "--no-dashboard",
            log=tmp_path / "scheduler.log",
            cwd=tmp_path / "scheduler",
        )
    ]
    try:
        for i in range(2):
            procs.append(
                _dask(
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--no-dashboard",
                    "--memory-limit",
                    "4GiB",
                    log=tmp_path / f"worker{i}.log",
                    cwd=tmp_path / f"worker{i}",
                )
            )
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            client.upload_file(str(TASKS))
            yield Cluster(address, procs[1:], client)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("output.pkl"))


def _wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met")
        time.sleep(0.05)


def _on_cluster(cluster, cache):
    """The grid on the cluster, cached in ``cache``."""
    return run_grid(
        slow_draws,
        GRID,
        N_REPS,
        seed=3,
        chunk_size=1,
        dask=cluster.address,
        cache_dir=cache,
        progress=False,
    )


@pytest.fixture(scope="module")
def sequential():
    """The grid computed in this process, one task after the other."""
    return run_grid(slow_draws, GRID, N_REPS, seed=3, n_jobs=1, progress=False)


def test_a_chapter_on_a_tcp_cluster_equals_the_local_run(cluster, book_build, tmp_path):
    local = book_build.run_dir(CHAPTER)
    if local is None:  # a given site: make the local (loky) run here
        local = runner.run_chapter(
            CHAPTER,
            "smoke",
            out=tmp_path / "loky",
            n_jobs=2,
            progress=False,
            cache_dir=tmp_path / "loky-cache",
        )
    transitions = cluster.client.run_on_scheduler(
        lambda dask_scheduler: dask_scheduler.transition_counter
    )
    out = runner.run_chapter(
        CHAPTER,
        "smoke",
        out=tmp_path / "tcp",
        dask=cluster.address,
        progress=False,
        cache_dir=tmp_path / "tcp-cache",
    )
    tables = sorted(p.name for p in (local / "results").glob("*.csv"))
    assert tables and tables == sorted(p.name for p in (out / "results").glob("*.csv"))
    for name in tables:
        pd.testing.assert_frame_equal(
            pd.read_csv(out / "results" / name), pd.read_csv(local / "results" / name)
        )
    # the scheduler did the chapter's work: its tasks went through it
    done = cluster.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.transition_counter)
    assert done > transitions + 10


def test_a_worker_killed_mid_run_changes_nothing(cluster, sequential, tmp_path):
    cache = tmp_path / "cache"
    victim = cluster.workers[0]
    seen = {}

    def kill_when_running():
        _wait_for(lambda: len(_entries(cache)) >= 2)
        seen["done_at_kill"] = len(_entries(cache))
        victim.send_signal(signal.SIGKILL)

    killer = threading.Thread(target=kill_when_running)
    killer.start()
    got = _on_cluster(cluster, cache)
    killer.join()
    assert victim.wait(timeout=10) == -signal.SIGKILL
    assert seen["done_at_kill"] < 16  # killed while tasks were left
    _wait_for(lambda: len(cluster.client.scheduler_info()["workers"]) == 1)
    assert len(_entries(cache)) == 16
    pd.testing.assert_frame_equal(got, sequential)


def test_the_treeshap_of_one_task_runs_in_row_blocks_on_the_cluster(cluster):
    """Inside a cluster task, feature_importance(..., block_rows=k) makes each block of rows a
    task of its own (synthtrust.run.blocks) and returns exactly the value computed here in one call."""
    pytest.importorskip("shap")
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from synthtrust.importance import feature_importance

    X, y = make_classification(n_samples=300, n_features=5, random_state=0)
    X = pd.DataFrame(X, columns=list("abcde"))
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    here = feature_importance(model, X, method="shap")
    with distributed.get_task_stream(cluster.client) as stream:
        future = cluster.client.submit(
            feature_importance, model, X, method="shap", block_rows=50, pure=False
        )
        there = future.result()
    pd.testing.assert_series_equal(there, here, check_exact=True)
    blocks = [t for t in stream.data if str(t["key"]).startswith("_abs_shap_block")]
    assert len(blocks) == 6  # 300 rows in blocks of 50


_CLIENT_SCRIPT = """
import sys
sys.path.insert(0, {tests!r})
from _cluster_tasks import slow_draws
from synthtrust.run.experiment import run_grid
run_grid(slow_draws, {grid!r}, {n_reps}, seed=3, chunk_size=1, dask={address!r},
         cache_dir={cache!r}, progress=False)
"""


def test_a_client_killed_mid_run_resumes_from_the_cache(cluster, sequential, tmp_path):
    cache = tmp_path / "cache"
    script = _CLIENT_SCRIPT.format(
        tests=str(TASKS.parent),
        grid=GRID,
        n_reps=N_REPS,
        address=cluster.address,
        cache=str(cache),
    )
    client = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, **WORKER_ENV})
    try:
        _wait_for(lambda: len(_entries(cache)) >= 4)
        client.send_signal(signal.SIGKILL)
        assert client.wait(timeout=10) == -signal.SIGKILL
    finally:
        client.kill()
    before = {p: p.stat().st_mtime_ns for p in _entries(cache)}
    assert 4 <= len(before) < 16
    got = _on_cluster(cluster, cache)
    assert len(_entries(cache)) == 16
    assert {p: p.stat().st_mtime_ns for p in before} == before  # loaded, not computed again
    pd.testing.assert_frame_equal(got, sequential)
