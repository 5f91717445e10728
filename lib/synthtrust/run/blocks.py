"""Nested tasks: the independent blocks of one long task run as tasks of their own on the Dask
cluster that runs it, so a cluster's tasks stay minutes long even when one grid task is hours of
work (chapter 4's TreeSHAP on a whole test split).

Outside a Dask worker (in this process, in a loky worker) the blocks run one after another in the
calling process. The blocks' results come back in the order of ``blocks`` whatever the backend, so
a caller that combines them in that order gets the same numbers everywhere.

Inside a task on a ``distributed`` worker, :func:`map_blocks` opens the worker's client
(``distributed.worker_client``: the task leaves the worker's thread pool while it waits, so a
single-threaded worker runs blocks too), scatters the shared argument once, submits one task per
block and gathers the results. Nothing goes through a shared file system.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["in_dask_task", "map_blocks"]


def in_dask_task() -> bool:
    """True when called from a task running on a ``distributed`` worker."""
    try:
        from distributed import get_worker
    except ImportError:
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True


def map_blocks(func: Callable, shared, blocks: Sequence) -> list:
    """``[func(shared, block) for block in blocks]``, one cluster task per block inside a Dask task.

    Parameters
    ----------
    func : callable ``func(shared, block)``
        A module-level function (workers import it from the installed package).
    shared : object
        The argument every block needs (e.g. a fitted model); shipped once per worker.
    blocks : sequence
        The pieces of work, e.g. row blocks of a table.

    Returns
    -------
    list
        ``func``'s results, in the order of ``blocks``.

    Examples
    --------
    >>> from synthtrust.run.blocks import map_blocks
    >>> map_blocks(pow, 2, [1, 2, 3])
    [2, 4, 8]
    """
    blocks = list(blocks)
    if len(blocks) < 2 or not in_dask_task():
        return [func(shared, block) for block in blocks]
    from distributed import worker_client

    with worker_client() as client:
        [handle] = client.scatter([shared], hash=False)
        futures = client.map(func, [handle] * len(blocks), blocks, pure=False)
        return client.gather(futures)
