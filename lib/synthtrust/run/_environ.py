"""Environment variables of the processes a run starts (loky workers, the chapter kernel), and
how those processes hand the memory a task freed back to the system."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import platform
from collections.abc import Iterator, Mapping

__all__ = [
    "CHAPTER_VAR",
    "WORKER_ENV",
    "environ",
    "release_freed_memory",
]

#: Environment of the processes that compute results, set before their interpreter starts. A
#: fixed string-hash seed: mbi builds junction-tree cliques from Python sets of attribute names,
#: so with Python's per-process hash randomisation the order of a clique's variables, the
#: einsum order and the last bits of Private-PGM's estimate (and, through rounding, its
#: synthetic counts) changed from run to run. The value is the one Dask's nannies give every
#: worker they start (``distributed.nanny``, unless ``distributed.nanny.pre-spawn-environ``
#: sets another; they treat 0 as unset), so a Dask cluster with default settings computes
#: what loky workers and the chapter kernel compute.
WORKER_ENV: dict[str, str] = {"PYTHONHASHSEED": "6640"}

#: Set by the runner in a chapter's kernel to the chapter's name: ``run_grid``'s progress bars
#: say which chapter they belong to.
CHAPTER_VAR = "SYNTHTRUST_CHAPTER"


@contextlib.contextmanager
def environ(values: Mapping[str, str]) -> Iterator[None]:
    """Set ``values`` in ``os.environ`` for the duration of the block, then restore each
    variable to its previous value (or remove it if it was not set)."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None under another C library (musl, macOS, Windows)."""
    if platform.libc_ver()[0] != "glibc":
        return None
    return ctypes.CDLL("libc.so.6").malloc_trim


def release_freed_memory() -> bool:
    """Give the pages of the heap that hold only freed blocks back to the system.

    glibc's malloc keeps what a process frees: at the heap's top until it exceeds the trim
    threshold (raised, with the mmap threshold, after each large block freed), and between
    blocks still in use for good. A worker that fitted a forest on Adult stayed 250–290 MB above
    its size after its first task, one that fitted PrivMRF in chapter 3 150–190 MB, and loky
    recycles a worker 300 MB above its first task ("A worker stopped while some jobs were given
    to the executor"). ``malloc_trim(0)`` releases every free page of every arena (about 30 ms
    for 350 MB of them); it is the call Dask's documentation gives for the same purpose ("Worker
    Memory Management: manually trim memory").
    :func:`synthtrust.run.experiment.run_grid` calls it after every task, before loky measures the
    worker. Memory a task keeps (caches, compiled programs) is the study's ``warm_up``'s
    business. No result changes.

    Fixing the trim threshold instead (``MALLOC_TRIM_THRESHOLD_=65536``, what Dask's nannies
    set) returned the memory too but made every allocation above 128 KiB a fresh mapping: a
    GS-WGAN training of chapter 1 took 24.8 instead of 14.6 CPU-s (34× the page faults).

    Returns
    -------
    bool
        True if memory was released, False if none was or the C library is not glibc (then
        nothing is done).
    """
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
