"""synthtrust.run._environ: the worker environment and its temporary setting."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from synthtrust.run._environ import WORKER_ENV, environ, release_freed_memory


def test_environ_sets_then_restores_or_removes(monkeypatch):
    monkeypatch.setenv("SYNTHTRUST_T_SET", "before")
    monkeypatch.delenv("SYNTHTRUST_T_UNSET", raising=False)
    with environ({"SYNTHTRUST_T_SET": "during", "SYNTHTRUST_T_UNSET": "x"}):
        assert os.environ["SYNTHTRUST_T_SET"] == "during"
        assert os.environ["SYNTHTRUST_T_UNSET"] == "x"
    assert os.environ["SYNTHTRUST_T_SET"] == "before"
    assert "SYNTHTRUST_T_UNSET" not in os.environ


def test_environ_restores_after_an_exception(monkeypatch):
    monkeypatch.delenv("SYNTHTRUST_T_UNSET", raising=False)
    try:
        with environ({"SYNTHTRUST_T_UNSET": "x"}):
            raise RuntimeError("boom")
    except RuntimeError:
        pass
    assert "SYNTHTRUST_T_UNSET" not in os.environ


def test_workers_get_the_hash_seed_of_dask_nannies():
    assert WORKER_ENV == {"PYTHONHASHSEED": "6640"}
    pytest.importorskip("distributed")
    from distributed.nanny import Nanny

    nanny = Nanny("tcp://127.0.0.1:1", nthreads=1)  # not started: its environment only
    assert nanny.env["PYTHONHASHSEED"] == WORKER_ENV["PYTHONHASHSEED"]


# Two ways glibc keeps freed memory resident; each script prints the MiB resident above its
# start before and after the release, and what the release returned.
_RELEASE = """
import numpy as np, psutil
from synthtrust.run._environ import release_freed_memory
p = psutil.Process()
base = p.memory_info().rss
{allocate}
before = (p.memory_info().rss - base) / 2**20
released = release_freed_memory()
print(before, (p.memory_info().rss - base) / 2**20, released)
"""
# Freeing a 16 MiB mapped block raises the mmap threshold to 16 MiB and the trim threshold to
# 32 MiB: then 100 blocks of 4 MiB come from the heap, and 99 of them freed below the kept last
# one stay (396 MiB).
_RAISED_THRESHOLDS = """
big = np.ones(16 << 17)
del big
base = p.memory_info().rss
blocks = [np.ones(1 << 19) for _ in range(100)]
keep = blocks[-1]
del blocks
"""
# 375 MB in 96 KB blocks (the heap, below the initial 128 KiB mmap threshold), every 100th
# kept: the freed blocks lie between live ones, where no trim threshold reaches (358 MiB).
_BETWEEN_LIVE_BLOCKS = """
blocks = [np.ones(12_000) for _ in range(4_000)]
keep = blocks[::100]
del blocks
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc_trim")
@pytest.mark.parametrize("allocate", [_RAISED_THRESHOLDS, _BETWEEN_LIVE_BLOCKS])
def test_release_returns_the_freed_memory_glibc_keeps(allocate):
    pytest.importorskip("psutil")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}  # glibc's defaults
    script = _RELEASE.format(allocate=allocate)
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    before, after, released = out.stdout.split()
    assert float(before) > 300  # kept by the process
    assert float(after) < 40 and released == "True"  # the kept blocks (4 MiB) and little else


def test_release_is_a_no_op_without_glibc(monkeypatch):
    import synthtrust.run._environ as env

    monkeypatch.setattr(env.platform, "libc_ver", lambda: ("", ""))
    env._malloc_trim.cache_clear()
    try:
        assert release_freed_memory() is False
    finally:
        env._malloc_trim.cache_clear()
