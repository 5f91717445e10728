"""Grids × replicates: deterministic seeds, parallel execution, caching and resumption.

A Monte Carlo study is a *grid* of parameter cells (e.g. every ε × sample size) times ``n_reps``
replicates per cell. :func:`run_grid` splits the work into *tasks* — one grid cell and one chunk
of consecutive replicate indices ``[r0, r1)`` — and runs them in parallel with joblib (loky
processes) or on a Dask cluster through joblib's Dask backend.

Determinism
    Replicate ``rep`` of a cell draws from
    ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(cell_key, rep)))`` where ``cell_key``
    is a stable 64-bit hash (SHA-256 of the canonical JSON of the cell's parameters). The result
    of a replicate therefore does not depend on ``n_jobs``, the backend, the order in which tasks
    finish, ``chunk_size`` or resumption, and adding a value to the grid does not change the
    results of the other cells.

Caching and resumption
    With ``cache_dir`` set, each finished task is stored with :class:`joblib.Memory` (written by
    the calling process, so Dask workers need no shared file system), keyed by the function's
    module, qualified name and source code, the cell's parameters, ``r0``, ``r1``, ``seed``,
    ``synthtrust.__version__`` and a digest of every file of the installed synthtrust package
    (:func:`package_digest`), so that any change to the package's code or data recomputes the
    tasks. Rerunning the same call after a crash (or after the calling process was killed) loads
    the finished tasks and computes only the missing ones. Each entry holds the task's frame with
    its digest (``joblib.hash``): an entry that cannot be read or no longer matches its digest is
    computed again, with a warning, never loaded. A change to code outside the package that
    ``func`` calls (other than ``func`` itself) does *not* invalidate the cache: delete
    ``cache_dir`` (``make clean``) in that case.

Stopping
    A grid stopped by SIGINT (``KeyboardInterrupt``, e.g. a kernel interrupt) or SIGTERM kills
    its loky workers (joblib's abort) or closes the Dask cluster it started before the
    exception leaves :func:`run_grid`; after SIGTERM the process then ends by SIGTERM
    (:func:`synthtrust.run._stop.sigterm_unwinds`). The tasks stored so far stay in the cache:
    joblib writes every file of an entry to a temporary name and renames it, so an entry is
    whole or absent.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import itertools
import json
import logging
import math
import numbers
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack, closing
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

import synthtrust
from synthtrust._validation import check_int_range
from synthtrust.run import estimate
from synthtrust.run._environ import (
    CHAPTER_VAR,
    WORKER_ENV,
    environ,
    release_freed_memory,
)
from synthtrust.run._grid_records import record_grid
from synthtrust.run._stop import sigterm_unwinds

__all__ = ["FROZEN_NAMES", "cell_key", "replicate_index", "replicate_rngs", "run_grid"]

_BACKENDS = ("loky", "threading", "sequential", "dask")


# --------------------------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------------------------
def _canonical(value, where: str):
    """Return a JSON-ready version of ``value`` (numpy scalars → Python, integral floats → int)."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{where} must be finite to be hashed, got {value!r}")
        return int(value) if value.is_integer() else value
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where} has a non-string key {k!r}; use string keys")
            out[k] = _canonical(v, f"{where}[{k!r}]")
        return out
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_canonical(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(
        f"{where} = {value!r} ({type(value).__name__}) cannot be hashed into a seed; grid values "
        "must be None, bool, int, float, str, or lists/dicts of these (name a synthesizer by a "
        "string, not by its class)"
    )


#: Grid keys renamed into the field's vocabulary after their cells had been seeded: ``{today's
#: name: the frozen name its seeds hash}``. A cell's key (and its replicates' seeds and cache
#: entries) is computed with the frozen names, so a rename never moves a number; add a row here
#: when a grid key is renamed, never change one.
FROZEN_NAMES = {
    "pgm_max_iter": "pgm_iters",
    "multivariate_pgm_max_iter": "multivariate_pgm_iters",
    "pate_max_iter": "pate_max_iterations",
    "rf_n_estimators": "rf_trees",
}


def _frozen(params: Mapping) -> dict:
    """``params`` with its renamed keys back under their frozen names (:data:`FROZEN_NAMES`)."""
    out = {}
    for key, value in params.items():
        name = FROZEN_NAMES.get(key, key)
        if name in out or (name != key and name in params):
            raise ValueError(
                f"grid cell has both {key!r} and {name!r}, the frozen name of {key!r}; keep one"
            )
        out[name] = value
    return out


def _cell_json(params: Mapping) -> str:
    return json.dumps(
        _canonical(_frozen(dict(params)), "grid cell"),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
    )


def cell_key(params: Mapping) -> int:
    """Stable 64-bit integer key of a grid cell.

    The first 8 bytes (big-endian) of the SHA-256 of the cell's canonical JSON (sorted keys, numpy
    scalars converted, integral floats written as integers so ``1`` and ``1.0`` give the same key).
    Keys renamed after their cells were seeded are hashed under their frozen names
    (:data:`FROZEN_NAMES`), so ``{"pgm_max_iter": 200}`` has the key of ``{"pgm_iters": 200}``.

    Raises
    ------
    TypeError
        If a value is not None, bool, int, float, str or a list/dict of these.
    ValueError
        If a float is NaN or infinite, or a cell holds a key and its frozen name.
    """
    digest = hashlib.sha256(_cell_json(params).encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def replicate_rngs(params: Mapping, reps, seed: int = 0) -> list[np.random.Generator]:
    """The generators :func:`run_grid` hands to ``func`` for replicates ``reps`` of cell ``params``.

    ``Generator(PCG64(SeedSequence(seed, spawn_key=(cell_key(params), rep))))`` for each ``rep``.
    Useful to reproduce one replicate outside the grid.
    """
    seed = check_int_range(seed, "seed", 0)
    key = cell_key(params)
    return [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(key, int(r)))) for r in reps
    ]


def replicate_index(rng: np.random.Generator, position: int) -> int:
    """The replicate index :func:`run_grid` keyed ``rng`` with (the last entry of its
    SeedSequence spawn key), else ``position`` (for generators made elsewhere)."""
    key = getattr(getattr(rng.bit_generator, "seed_seq", None), "spawn_key", ())
    return int(key[-1]) if key else position


# --------------------------------------------------------------------------------------------
# Grid
# --------------------------------------------------------------------------------------------
def _expand_grid(grid) -> list[dict]:
    if isinstance(grid, Mapping):
        if len(grid) == 0:
            raise ValueError("grid is empty: give a dict of lists or a list of dicts of parameters")
        axes = {}
        for key, values in grid.items():
            if not isinstance(key, str):
                raise TypeError(f"grid keys must be parameter names (str), got {key!r}")
            if isinstance(values, (list, tuple, np.ndarray, range, pd.Index, pd.Series)):
                values = list(values)
            else:  # a scalar (e.g. `-p epsilon 1` on the command line) is a one-value axis
                values = [values]
            if len(values) == 0:
                raise ValueError(f"grid[{key!r}] is an empty list; give at least one value")
            axes[key] = values
        cells = [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())]
    elif isinstance(grid, Sequence) and not isinstance(grid, str):
        if len(grid) == 0:
            raise ValueError("grid is empty: give a dict of lists or a list of dicts of parameters")
        cells = []
        for i, cell in enumerate(grid):
            if not isinstance(cell, Mapping):
                raise TypeError(
                    f"grid[{i}] must be a dict of parameters, got {type(cell).__name__} {cell!r}"
                )
            if not all(isinstance(k, str) for k in cell):
                raise TypeError(f"grid[{i}] keys must be parameter names (str), got {list(cell)}")
            cells.append(dict(cell))
    else:
        raise TypeError(
            f"grid must be a dict of lists (cartesian product) or a list of dicts (explicit "
            f"cells), got {type(grid).__name__}"
        )
    seen: dict[int, int] = {}
    for i, cell in enumerate(cells):
        key = cell_key(cell)
        if key in seen:
            raise ValueError(
                f"grid has duplicate cells: cell {seen[key]} and cell {i} are both {cell!r}"
            )
        seen[key] = i
    return cells


# --------------------------------------------------------------------------------------------
# Tasks
# --------------------------------------------------------------------------------------------
def _func_token(func) -> str:
    """Identify ``func`` for the cache: module, qualified name and a hash of its source."""
    if isinstance(func, functools.partial):
        extra = joblib.hash((func.args, func.keywords))
        return f"partial({_func_token(func.func)}, {extra})"
    target = func if inspect.isfunction(func) or inspect.ismethod(func) else type(func)
    module = getattr(target, "__module__", None) or "?"
    qualname = getattr(target, "__qualname__", None) or repr(target)
    try:
        source = inspect.getsource(target)
    except (OSError, TypeError):
        source = ""
    token = f"{module}.{qualname}#{hashlib.sha256(source.encode()).hexdigest()[:16]}"
    if target is not func:  # a callable object: its state matters too
        token += "#" + joblib.hash(func)
    return token


def tree_digest(root: Path) -> str:
    """SHA-256 (hex) of the files under ``root``: each file's path relative to ``root`` and its
    bytes, in sorted path order; ``__pycache__`` folders and ``.pyc`` files are left out.

    Raises
    ------
    NotADirectoryError
        If ``root`` is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise NotADirectoryError(f"root must be a folder, got {os.fspath(root)!r}")
    files = sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    )
    h = hashlib.sha256()
    for p in files:
        rel = p.relative_to(root).as_posix().encode()
        data = p.read_bytes()
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def package_digest() -> str:
    """:func:`tree_digest` of the installed synthtrust package (its code and data files), once
    per process: part of every task-cache key."""
    return tree_digest(Path(synthtrust.__file__).parent)


def _compute(func, params: dict, key: int, r0: int, r1: int, seed: int, task_id: int):
    """Run ``func`` on replicates ``[r0, r1)`` of one cell (executed in a worker)."""
    rngs = [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(key, r)))
        for r in range(r0, r1)
    ]
    try:
        # one BLAS/OpenMP thread per task in every backend (loky workers already run so): the
        # summation order of threaded BLAS changes the last bits of a result, and a rounding
        # downstream (e.g. the audit's extremal counts) can turn that into another dataset;
        # results must not depend on n_jobs
        with threadpool_limits(limits=1):
            out = func(dict(params), rngs)
    except Exception as exc:
        exc.add_note(f"run_grid: in func for cell {params!r}, replicates [{r0}, {r1})")
        raise
    finally:
        # before loky measures the worker: what the task freed is not counted as kept
        release_freed_memory()
    if not isinstance(out, pd.DataFrame):
        raise TypeError(
            f"func must return a pandas DataFrame (one row per replicate), got "
            f"{type(out).__name__} for cell {params!r}"
        )
    if "rep" in out.columns:
        reps = pd.to_numeric(out["rep"], errors="coerce")
        if reps.isna().any() or not ((reps >= r0) & (reps < r1)).all():
            raise ValueError(
                f"func returned a 'rep' column with values outside the task's replicates "
                f"[{r0}, {r1}) for cell {params!r}"
            )
        out = out.reset_index(drop=True)
    elif len(out) == r1 - r0:
        out = out.reset_index(drop=True)
        out.insert(0, "rep", np.arange(r0, r1, dtype=np.int64))
    else:
        raise ValueError(
            f"func returned {len(out)} rows for {r1 - r0} replicates and no 'rep' column "
            f"(cell {params!r}); return one row per replicate or set 'rep' yourself"
        )
    return task_id, out


#: Layout of a cache entry, part of the key: 2 = (digest, frame); 1 was the bare frame.
_CACHE_FORMAT = 2


def _cached_task(func_token, cell_json, r0, r1, seed, version, cache_format, compute):
    """The unit joblib.Memory stores: everything but ``compute`` is the cache key."""
    return compute()


def _sealed(frame: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """What a cache entry holds: the frame with its digest (``joblib.hash``)."""
    return joblib.hash(frame), frame


class _CacheMiss(Exception):
    pass


def _raise_miss():
    raise _CacheMiss


def _load_task(memorized, args, what: str) -> pd.DataFrame | None:
    """The cached result of one task; None if absent, unreadable or corrupt (then it is
    computed again and overwritten, with a warning naming the task)."""
    if not memorized.check_call_in_cache(*args, compute=_raise_miss):
        return None
    try:
        with warnings.catch_warnings():  # joblib warns with a traceback; one line below says it
            warnings.simplefilter("ignore")
            value = memorized(*args, compute=_raise_miss)
    except _CacheMiss:
        value = None
    if (
        isinstance(value, tuple)
        and len(value) == 2
        and isinstance(value[1], pd.DataFrame)
        and value[0] == joblib.hash(value[1])
    ):
        return value[1]
    warnings.warn(
        f"run_grid: the cache entry of {what} is unreadable or does not match its digest; "
        "computing it again",
        UserWarning,
        stacklevel=3,
    )
    return None


def _worker_env() -> dict[str, str | None]:
    """The variables of :data:`~synthtrust.run._environ.WORKER_ENV` as a Dask worker sees them."""
    return {key: os.environ.get(key) for key in WORKER_ENV}


def _check_workers(client) -> None:
    """Refuse a cluster whose workers run without :data:`~synthtrust.run._environ.WORKER_ENV`."""
    bad = {address: env for address, env in client.run(_worker_env).items() if env != WORKER_ENV}
    if bad:
        address, env = next(iter(sorted(bad.items())))
        need = " ".join(f"{k}={v}" for k, v in WORKER_ENV.items())
        raise ValueError(
            f"{len(bad)} Dask worker(s) run without {need} (e.g. {address}: {env}); results "
            f"would depend on the backend (Private-PGM's depend on the string-hash seed). "
            f"Start the workers with it: {need} dask worker <scheduler address>"
        )


def _dask_client(dask, n_jobs: int, stack: ExitStack):
    from synthtrust._optional import import_optional

    distributed = import_optional("distributed", "run_grid(..., dask=...)")
    if dask is None or dask == "local":
        cluster = stack.enter_context(
            distributed.LocalCluster(
                n_workers=n_jobs,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        )
        client = stack.enter_context(distributed.Client(cluster))
    elif isinstance(dask, distributed.Client):
        client = dask
    elif isinstance(dask, str):
        client = stack.enter_context(distributed.Client(dask))
    else:
        raise TypeError(
            f"dask must be None, 'local', a scheduler address such as 'tcp://host:8786' or a "
            f"distributed.Client, got {type(dask).__name__} {dask!r}"
        )
    _check_workers(client)
    return client


# --------------------------------------------------------------------------------------------
# run_grid
# --------------------------------------------------------------------------------------------
def run_grid(
    func: Callable[[dict, list[np.random.Generator]], pd.DataFrame],
    grid,
    n_reps: int | Callable[[dict], int],
    seed: int = 0,
    *,
    chunk_size: int = 100,
    n_jobs: int | None = None,
    backend: str | None = None,
    dask=None,
    cache_dir=None,
    progress: bool = True,
    warm_up: Callable[[], object] | None = None,
    warm_up_of: Callable[[dict], Callable[[], object] | None] | None = None,
) -> pd.DataFrame:
    """Run ``func`` on every grid cell × ``n_reps`` replicates; return one tidy frame.

    Parameters
    ----------
    func : callable ``func(params, rngs) -> DataFrame``
        ``params`` is the cell's dict of parameters; ``rngs`` is a list of independent
        ``numpy.random.Generator``, one per replicate of the task (``len(rngs) <= chunk_size``).
        Return one row per replicate (in the order of ``rngs``; the runner adds ``rep``), or any
        number of rows with a ``rep`` column you set yourself from the replicate indices (then
        the indices are ``r0 + i`` for ``rngs[i]``, which you cannot see: prefer one row per
        replicate, wide format). Must be picklable for ``n_jobs > 1`` (a module-level function
        or one defined in a notebook works; loky and Dask use cloudpickle).
    grid : dict of lists, or list of dicts
        ``{"epsilon": [0.1, 1], "n": [100, 1000]}`` is the cartesian product in key order (a
        scalar value is a one-value axis); ``[{"epsilon": 1, "n": 100}, ...]`` lists the cells.
        Values must be None, bool, int, float, str, or lists/dicts of these (they are hashed).
    n_reps : int >= 1, or callable ``n_reps(params) -> int >= 1``
        Replicates per cell, indexed ``0 .. n_reps - 1``; a callable gives each cell its own
        count (e.g. fewer replicates of the slowest cells). A replicate's seed depends on its
        cell and index only, so the first k replicates of a cell are the same whatever its count.
    seed : int >= 0
        Root of every replicate's ``SeedSequence(seed, spawn_key=(cell_key, rep))``.
    chunk_size : int >= 1
        Replicates per task (independent of ``n_jobs``; it only affects speed and cache units).
    n_jobs : int or None
        Parallel workers; ``None`` or ``-1`` = all cores, ``1`` = run in this process.
    backend : {"loky", "threading", "sequential", "dask"} or None
        ``None`` picks ``"dask"`` when ``dask`` is given and ``"loky"`` otherwise.
    dask : None, "local", "tcp://host:port" or a ``distributed.Client``
        ``"local"`` starts a ``distributed.LocalCluster`` of ``n_jobs`` single-threaded worker
        processes for this call; an address connects to a running scheduler.
    cache_dir : path or None
        ``joblib.Memory`` location; finished tasks are stored there and reloaded on rerun.
    progress : bool
        Show a tqdm bar over tasks (on stderr; cached tasks count as done; labelled
        ``chapter: function`` inside a chapter's run); the environment variable
        ``TQDM_DISABLE=1`` (set by ``synthtrust run --no-progress``) hides it too.
    warm_up : callable or None
        Called without arguments when a loky worker process starts, before its first task: load
        there what the tasks need once per process (heavy imports, lookup tables). loky takes a
        worker's memory after its first task as the reference and recycles a worker that grows
        by more than 300 MB beyond it — which repeats the imports and prints "A worker stopped
        while some jobs were given to the executor" — so one-time state loaded lazily by a
        later task would recycle the worker. A call with another ``warm_up`` than the previous
        call starts fresh workers. Other backends ignore it; results never depend on it.
    warm_up_of : callable ``warm_up_of(params) -> warm_up or None``, optional
        Instead of ``warm_up``, each cell's own: the tasks of the cells with equal warm-ups
        (``==``) run on loky workers of their own that load only that (e.g. no PyTorch in a
        worker whose cells fit no GAN), group after group in the order of their first cell. The
        frame is the one a single warm-up gives.

    Returns
    -------
    DataFrame
        The cell's parameter columns (in grid key order), then ``rep``, then ``func``'s columns;
        rows sorted by cell order, then ``rep`` (stable within a replicate). Identical whatever
        ``n_jobs``, ``backend``, ``chunk_size`` or resumption.

    Raises
    ------
    ValueError
        ``n_reps < 1`` (or a cell's count, naming the cell), ``chunk_size < 1``, an empty grid or empty axis, duplicate cells, an
        unknown ``backend``, ``func`` output whose columns clash with parameter names or that
        has the wrong number of rows.
    TypeError
        Non-callable ``func`` or ``warm_up_of``, ``warm_up`` and ``warm_up_of`` both given, a
        grid of the wrong shape, unhashable grid values, ``func`` not
        returning a DataFrame.
    """
    if not callable(func):
        raise TypeError(f"func must be callable as func(params, rngs), got {type(func).__name__}")
    from synthtrust._validation import check_n_jobs, check_positive_int

    if not callable(n_reps):
        n_reps = check_positive_int(n_reps, "n_reps")
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    seed = check_int_range(seed, "seed", 0)
    if backend is None:
        backend = "dask" if dask is not None else "loky"
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(_BACKENDS)}, got {backend!r}")
    if dask is not None and backend != "dask":
        raise ValueError(f"dask={dask!r} was given with backend={backend!r}; use backend='dask'")
    n_jobs = check_n_jobs(n_jobs)
    if warm_up_of is not None and not callable(warm_up_of):
        raise TypeError(
            f"warm_up_of must be callable as warm_up_of(params), got {type(warm_up_of).__name__}"
        )
    if warm_up_of is not None and warm_up is not None:
        raise TypeError("give warm_up (every cell's) or warm_up_of (each cell's), not both")
    cells = _expand_grid(grid)
    keys = [cell_key(c) for c in cells]
    jsons = [_cell_json(c) for c in cells]
    counts = [
        check_positive_int(n_reps(dict(c)), f"n_reps({c!r})") if callable(n_reps) else n_reps
        for c in cells
    ]

    tasks = [
        (i, r0, min(r0 + chunk_size, counts[i]))
        for i in range(len(cells))
        for r0 in range(0, counts[i], chunk_size)
    ]
    cell_warm_ups = [warm_up_of(dict(c)) if warm_up_of else warm_up for c in cells]
    record = estimate.active()
    if record is not None:
        return _calibrate(func, cells, keys, tasks, seed, cell_warm_ups, n_jobs, record)
    results: dict[int, pd.DataFrame] = {}

    memorized = None
    if cache_dir is not None:
        memory = joblib.Memory(location=os.fspath(cache_dir), verbose=0)
        memorized = memory.cache(_cached_task, ignore=["compute"])
        token = _func_token(func)
        version = f"{synthtrust.__version__}+{package_digest()}"

        def cache_args(t):
            i, r0, r1 = tasks[t]
            return (token, jsons[i], r0, r1, seed, version, _CACHE_FORMAT)

        for t, (i, r0, r1) in enumerate(tasks):
            what = f"cell {cells[i]!r}, replicates [{r0}, {r1})"
            out = _load_task(memorized, cache_args(t), what)
            if out is not None:
                results[t] = out

    pending = [t for t in range(len(tasks)) if t not in results]
    param_names = _param_names(cells)
    # the chapter's grids (those with a cache) keep their record: progress and profile
    grid_record = (
        record_grid(_bar_label(func), len(tasks), len(results)) if memorized is not None else None
    )
    from tqdm import tqdm

    bar = tqdm(
        total=len(tasks),
        initial=len(results),
        desc=_bar_label(func),
        unit="task",
        mininterval=0.5,
        dynamic_ncols=True,
        # when progress is on, leave `disable` unset so TQDM_DISABLE=1 (--no-progress) applies
        **({} if progress else {"disable": True}),
    )

    def collect(t, out, seconds, peak_mb):
        _check_columns(out, param_names)  # fail at the first result, not after the whole run
        if memorized is not None:  # stored even over an entry found corrupt
            memorized.call(*cache_args(t), compute=lambda: _sealed(out))
        results[t] = out
        if grid_record is not None:
            grid_record.task_done(seconds, peak_mb)
        bar.update(1)

    def calls(ts):
        return (
            joblib.delayed(_timed_task)(
                func, cells[tasks[t][0]], keys[tasks[t][0]], tasks[t][1], tasks[t][2], seed, t
            )
            for t in ts
        )

    try:
        if not pending:
            pass
        elif backend == "sequential" or (backend != "dask" and (n_jobs == 1 or len(pending) == 1)):
            for call in calls(pending):
                f, args, kwargs = call
                collect(*f(*args, **kwargs))
        else:
            # SIGTERM, like SIGINT, aborts the grid (workers killed, cluster closed) first
            with sigterm_unwinds(), ExitStack() as stack:
                batches = [({}, pending)]  # (parallel_config options, tasks)
                if backend == "dask":
                    _dask_client(dask, n_jobs, stack)
                    stack.enter_context(joblib.parallel_config(backend="dask"))
                elif backend == "loky":
                    # loky's children inherit this process's environment when spawned
                    stack.enter_context(environ(WORKER_ENV))
                    batches = [
                        ({"backend": "loky", "initializer": w}, group)
                        for w, group in _by_warm_up(pending, tasks, cell_warm_ups)
                    ]
                else:
                    stack.enter_context(joblib.parallel_config(backend=backend))
                for options, group in batches:
                    with joblib.parallel_config(**options):
                        par_jobs = -1 if backend == "dask" else min(n_jobs, len(group))
                        parallel = joblib.Parallel(n_jobs=par_jobs, return_as="generator_unordered")
                        # closed at once if collect raises: joblib then aborts the rest
                        with closing(parallel(calls(group))) as outputs:
                            for t, out, seconds, peak_mb in outputs:
                                collect(t, out, seconds, peak_mb)
    finally:
        bar.close()

    return _assemble(cells, tasks, results)


def _by_warm_up(task_ids, tasks, cell_warm_ups: list) -> list[tuple[object, list]]:
    """The tasks ``task_ids`` (indices into ``tasks``) grouped by their cell's warm-up (equal by
    ``==``), in the order of each group's first task, each group in the order of ``task_ids``:
    ``[(warm_up, [task id, ...]), ...]``."""
    groups: list[tuple[object, list]] = []
    for t in task_ids:
        w = cell_warm_ups[tasks[t][0]]
        for warm, group in groups:
            if warm == w:
                group.append(t)
                break
        else:
            groups.append((w, [t]))
    return groups


def _bar_label(func) -> str:
    """The progress bar's label: ``func``'s name, after the chapter's inside a chapter's run."""
    target = func.func if isinstance(func, functools.partial) else func
    name = getattr(target, "__name__", "run_grid")
    chapter = os.environ.get(CHAPTER_VAR)
    return f"{chapter}: {name}" if chapter else name


def _timed_task(func, params: dict, key: int, r0: int, r1: int, seed: int, task_id: int):
    """One task in full, timed: (task_id, frame, seconds, peak resident MB of the process
    running it), for the grid's record and estimate mode."""
    (_, out), seconds, peak = estimate.measure(
        functools.partial(_compute, func, params, key, r0, r1, seed, task_id)
    )
    return task_id, out, seconds, peak


def _calibrate(func, cells, keys, tasks, seed: int, warm_ups: list, n_jobs: int, record):
    """Estimate mode (:mod:`synthtrust.run.estimate`): run a seeded systematic sample of the tasks in
    loky workers, each on one core (``n_jobs`` at a time), each stopped after the time cap
    (counted as taking at least the cap); append the stage's record to ``record`` (a task that
    raised is recorded by its error, not timed) and return the rows of the tasks that
    finished. ``warm_ups`` holds each cell's warm-up: the sampled tasks of each warm-up run on
    an executor of their own, one group after the other."""
    from concurrent.futures import wait

    from joblib.executor import get_memmapping_executor

    size = estimate.n_sampled(len(cells), len(tasks))
    picked = estimate.systematic_sample(len(tasks), size, random_state=seed)
    workers = min(n_jobs, size)
    cap = estimate.task_timeout()
    futures, done, late = {}, set(), set()
    for warm_up, group in _by_warm_up(picked, tasks, warm_ups):
        with environ(WORKER_ENV):
            # joblib's reusable executor, not loky's bare one: a later joblib.Parallel in this
            # process reuses or replaces it (loky's own lacks the attributes joblib expects)
            executor = get_memmapping_executor(min(workers, len(group)), initializer=warm_up)
        with sigterm_unwinds():
            try:
                for t in group:
                    i, r0, r1 = tasks[t]
                    futures[t] = executor.submit(
                        _timed_task, func, cells[i], keys[i], r0, r1, seed, t
                    )
                ended, over = wait(
                    [futures[t] for t in group],
                    timeout=cap * math.ceil(len(group) / min(workers, len(group))),
                )
            except BaseException:  # interrupted or terminated: the tasks stop with their workers
                executor.shutdown(wait=True, kill_workers=True)  # killed before the process ends
                raise
        done |= ended
        late |= over
        if over:  # stop the tasks over the cap with their workers
            executor.shutdown(wait=False, kill_workers=True)
    seconds, peaks, errors, finished = [], [], [], []
    for t in picked:
        f = futures[t]
        if f not in done:
            seconds.append(float(cap))
        elif (exc := f.exception()) is not None:  # reported, left out of the figures
            errors.append(estimate.describe_error(exc))
        else:
            _, out, sec, peak = f.result()
            seconds.append(sec)
            peaks.append(peak)
            finished.append((t, out))
    target = func.func if isinstance(func, functools.partial) else func
    stage = estimate.Stage(
        name=getattr(target, "__name__", type(target).__name__),
        cells=len(cells),
        tasks=len(tasks),
        seconds=seconds,
        peak_mb=peaks,
        censored=len(late),
        errors=errors,
    )
    with open(record, "a", encoding="utf-8") as fh:
        fh.write(stage.to_json() + "\n")
    if not finished:
        return pd.DataFrame(columns=[*_param_names(cells), "rep"])
    results = {j: out for j, (_, out) in enumerate(finished)}
    return _assemble(cells, [tasks[t] for t, _ in finished], results)


def _param_names(cells: list[dict]) -> list[str]:
    names: list[str] = []
    for cell in cells:
        names.extend(k for k in cell if k not in names)
    return names


def _check_columns(out: pd.DataFrame, param_names: list[str]) -> None:
    clash = [c for c in out.columns if c in param_names]
    if clash:
        raise ValueError(
            f"func returned column(s) {clash} that are also grid parameter names; rename them"
        )


def _assemble(cells: list[dict], tasks, results: dict[int, pd.DataFrame]) -> pd.DataFrame:
    param_names = _param_names(cells)
    frames, cell_idx = [], []
    for t in range(len(tasks)):  # tasks are in (cell, r0) order already
        out = results[t]
        _check_columns(out, param_names)
        frames.append(out)
        cell_idx.append(np.full(len(out), tasks[t][0], dtype=np.int64))
    body = pd.concat(frames, ignore_index=True, sort=False)
    idx = np.concatenate(cell_idx)
    # stable sort by rep inside each cell (func may return several rows per replicate)
    order = np.lexsort((np.arange(len(body)), body["rep"].to_numpy(), idx))
    body = body.iloc[order].reset_index(drop=True)
    idx = idx[order]
    params = pd.DataFrame(cells, columns=param_names) if param_names else None
    if params is None:
        return body
    params = params.iloc[idx].reset_index(drop=True)
    return pd.concat([params, body], axis=1)
