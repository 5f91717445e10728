"""synthtrust._environ: the worker environment and its temporary setting."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from synthtrust._environ import (
    MEMORY_ENV,
    PROCESS_ENV,
    WORKER_ENV,
    environ,
    release_freed_memory,
)


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


def test_workers_get_the_hash_seed_and_trim_threshold_of_dask_nannies():
    assert WORKER_ENV == {"PYTHONHASHSEED": "6640"}
    assert MEMORY_ENV == {"MALLOC_TRIM_THRESHOLD_": "65536"}
    assert PROCESS_ENV == {**WORKER_ENV, **MEMORY_ENV}
    pytest.importorskip("distributed")
    from distributed.nanny import Nanny

    nanny = Nanny("tcp://127.0.0.1:1", nthreads=1)  # not started: its environment only
    assert nanny.env["PYTHONHASHSEED"] == WORKER_ENV["PYTHONHASHSEED"]
    assert nanny.env["MALLOC_TRIM_THRESHOLD_"] == MEMORY_ENV["MALLOC_TRIM_THRESHOLD_"]


# Frees a 16 MiB block (glibc then serves blocks up to 16 MiB from the heap and trims it only
# above 32 MiB free at its top), then 99 of 100 blocks of 4 MiB, keeping the last (the heap's
# top): prints the MiB still resident.
_RETAINED = """
import numpy as np, psutil
p = psutil.Process()
big = np.ones(16 << 17)
del big
base = p.memory_info().rss
blocks = [np.ones(1 << 19) for _ in range(100)]
keep = blocks[-1]
del blocks
print((p.memory_info().rss - base) / 2**20)
"""


def _retained_mib(env: dict) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _RETAINED], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return float(out.stdout)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc thresholds")
def test_the_memory_environment_returns_freed_memory_to_the_system():
    pytest.importorskip("psutil")
    plain = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    assert _retained_mib(plain) > 300  # 396 MiB of freed blocks kept by the process
    assert _retained_mib({**plain, **PROCESS_ENV}) < 40  # the kept block and little else


# 375 MB in 96 KB blocks (served from the heap), every 100th kept: the freed blocks lie between
# live ones. Prints the MiB resident above the start, before and after the release.
_FRAGMENTED = """
import numpy as np, psutil
from synthtrust._environ import release_freed_memory
p = psutil.Process()
base = p.memory_info().rss
blocks = [np.ones(12_000) for _ in range(4_000)]
keep = blocks[::100]
del blocks
before = (p.memory_info().rss - base) / 2**20
released = release_freed_memory()
print(before, (p.memory_info().rss - base) / 2**20, released)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc_trim")
def test_release_returns_freed_blocks_between_live_ones():
    pytest.importorskip("psutil")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}, **PROCESS_ENV}
    out = subprocess.run(
        [sys.executable, "-c", _FRAGMENTED], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    before, after, released = out.stdout.split()
    assert float(before) > 300  # the trim threshold returned none of it (measured: 358 MiB)
    assert float(after) < 40 and released == "True"  # the kept 40 blocks (3.7 MiB) and little else


def test_release_is_a_no_op_without_glibc(monkeypatch):
    import synthtrust._environ as env

    monkeypatch.setattr(env.platform, "libc_ver", lambda: ("", ""))
    env._malloc_trim.cache_clear()
    try:
        assert release_freed_memory() is False
    finally:
        env._malloc_trim.cache_clear()
