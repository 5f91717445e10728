"""Tests of synthtrust.run.experiment.run_grid: seeds, parallel backends, caching/resumption, errors."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import uuid
import warnings
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest

import synthtrust
from synthtrust.run import experiment
from synthtrust.run._environ import environ
from synthtrust.run.experiment import cell_key, replicate_rngs, run_grid, tree_digest

GRID = {"mu": [0.0, 2.5], "name": ["a", "b", "c"]}


def normal_draws(params, rngs):
    """Two draws per replicate from N(mu, 1) and an integer; one row per replicate."""
    return pd.DataFrame(
        {
            "x": [rng.normal(params["mu"]) for rng in rngs],
            "k": [int(rng.integers(0, 1_000_000)) for rng in rngs],
        }
    )


def oracle_key(params: dict) -> int:
    # documented canonical form: integral floats are written as integers (1.0 -> 1)
    params = {
        k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in params.items()
    }
    text = json.dumps(params, sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def oracle_frame(cells, n_reps, seed):
    """Brute-force loop: the frame run_grid must return for `normal_draws`."""
    rows = []
    for cell in cells:
        for rep in range(n_reps):
            rng = np.random.default_rng(
                np.random.SeedSequence(seed, spawn_key=(oracle_key(cell), rep))
            )
            rows.append(
                {
                    **cell,
                    "rep": rep,
                    "x": rng.normal(cell["mu"]),
                    "k": int(rng.integers(0, 1_000_000)),
                }
            )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# Seeds and layout
# ---------------------------------------------------------------------------------------------
def test_cell_key_is_sha256_of_canonical_json():
    assert cell_key({"b": 2, "a": "x"}) == oracle_key({"a": "x", "b": 2})
    # numpy scalars and integral floats hash like Python ints
    assert cell_key({"n": np.int64(5), "eps": 1.0}) == oracle_key({"eps": 1, "n": 5})
    assert cell_key({"eps": 0.5}) != cell_key({"eps": 0.25})


def test_sequential_matches_brute_force_oracle():
    got = run_grid(normal_draws, GRID, n_reps=9, seed=11, n_jobs=1, chunk_size=4, progress=False)
    cells = [{"mu": m, "name": n} for m in GRID["mu"] for n in GRID["name"]]
    want = oracle_frame(cells, 9, 11)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert list(got.columns) == ["mu", "name", "rep", "x", "k"]
    assert got["rep"].dtype == np.int64


def test_replicate_rngs_reproduces_one_replicate():
    got = run_grid(normal_draws, {"mu": [1.0]}, n_reps=5, seed=3, n_jobs=1, progress=False)
    rng = replicate_rngs({"mu": 1.0}, [4], seed=3)[0]
    assert got.loc[4, "x"] == rng.normal(1.0)


def test_loky_two_jobs_equals_one_job():
    one = run_grid(normal_draws, GRID, n_reps=23, seed=5, n_jobs=1, chunk_size=5, progress=False)
    two = run_grid(normal_draws, GRID, n_reps=23, seed=5, n_jobs=2, chunk_size=5, progress=False)
    pd.testing.assert_frame_equal(one, two)


def blas_threads(params, rngs):
    """The BLAS threads a task runs with (threadpoolctl's view of the loaded libraries)."""
    from threadpoolctl import threadpool_info

    np.ones((2, 2)) @ np.ones((2, 2))  # make sure a BLAS is loaded
    n = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
    return pd.DataFrame({"threads": [n] * len(rngs)})


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_tasks_run_with_one_blas_thread(n_jobs):
    """Threaded BLAS sums in another order than a single thread; a task sees one thread in every
    backend, so results cannot depend on n_jobs through it (the audit's rounded extremal counts
    did, before)."""
    from threadpoolctl import threadpool_info

    out = run_grid(blas_threads, {"a": [1, 2]}, n_reps=2, seed=0, n_jobs=n_jobs, progress=False)
    assert (out.threads == 1).all()
    assert max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas") >= 1


def test_chunk_size_does_not_change_results():
    a = run_grid(normal_draws, GRID, n_reps=23, seed=5, n_jobs=2, chunk_size=7, progress=False)
    b = run_grid(normal_draws, GRID, n_reps=23, seed=5, n_jobs=1, chunk_size=100, progress=False)
    pd.testing.assert_frame_equal(a, b)


def test_threading_backend_equals_sequential():
    a = run_grid(
        normal_draws,
        GRID,
        n_reps=6,
        seed=1,
        n_jobs=2,
        backend="threading",
        chunk_size=2,
        progress=False,
    )
    b = run_grid(normal_draws, GRID, n_reps=6, seed=1, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(a, b)


def test_dask_local_cluster_equals_sequential():
    pytest.importorskip("distributed")
    a = run_grid(
        normal_draws, GRID, n_reps=7, seed=2, n_jobs=2, dask="local", chunk_size=3, progress=False
    )
    b = run_grid(normal_draws, GRID, n_reps=7, seed=2, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(a, b)


def _local_cluster(distributed, hash_seed: str | None = None, **kwargs):
    """A LocalCluster; its nannies start the workers with PYTHONHASHSEED=hash_seed if given.

    (A nanny reads the variable from this process's environment before its configuration, and
    writes it back into this environment: both are set here and restored afterwards.)"""
    import dask

    if hash_seed is None:
        return distributed.LocalCluster(
            processes=True, dashboard_address=None, silence_logs=logging.ERROR, **kwargs
        )
    env = {"PYTHONHASHSEED": hash_seed}
    with dask.config.set({"distributed.nanny.pre-spawn-environ": env}), environ(env):
        return _local_cluster(distributed, None, **kwargs)


def test_dask_scheduler_address_and_client_equal_sequential():
    distributed = pytest.importorskip("distributed")
    b = run_grid(normal_draws, GRID, n_reps=5, seed=9, n_jobs=1, progress=False)
    with _local_cluster(distributed, n_workers=1, threads_per_worker=2) as cluster:
        by_address = run_grid(
            normal_draws,
            GRID,
            n_reps=5,
            seed=9,
            dask=cluster.scheduler_address,
            chunk_size=2,
            progress=False,
        )
        with distributed.Client(cluster) as client:
            by_client = run_grid(
                normal_draws, GRID, n_reps=5, seed=9, dask=client, chunk_size=4, progress=False
            )
            assert client.status == "running"  # a client we did not create is left open
    pd.testing.assert_frame_equal(by_address, b)
    pd.testing.assert_frame_equal(by_client, b)


def test_dask_workers_without_the_fixed_hash_seed_are_refused():
    distributed = pytest.importorskip("distributed")
    with _local_cluster(distributed, "7", n_workers=1, threads_per_worker=1) as cluster:
        with pytest.raises(
            ValueError, match=r"1 Dask worker\(s\) run without PYTHONHASHSEED=6640"
        ) as info:
            run_grid(normal_draws, GRID, n_reps=2, dask=cluster.scheduler_address, progress=False)
    assert "{'PYTHONHASHSEED': '7'}" in str(info.value)
    assert "PYTHONHASHSEED=6640 dask worker <scheduler address>" in str(info.value)


def test_adding_a_grid_value_keeps_other_cells():
    small = run_grid(normal_draws, {"mu": [0.0, 1.0]}, n_reps=4, seed=0, n_jobs=1, progress=False)
    big = run_grid(
        normal_draws, {"mu": [0.0, 0.5, 1.0]}, n_reps=4, seed=0, n_jobs=1, progress=False
    )
    kept = big[big["mu"] != 0.5].reset_index(drop=True)
    pd.testing.assert_frame_equal(small, kept)
    # and the explicit-cells form gives the same rows as the product form
    explicit = run_grid(
        normal_draws, [{"mu": 1.0}, {"mu": 0.0}], n_reps=4, seed=0, n_jobs=1, progress=False
    )
    pd.testing.assert_frame_equal(explicit.sort_values(["mu", "rep"]).reset_index(drop=True), small)
    assert explicit["mu"].tolist()[:4] == [1.0] * 4  # cell order is kept


def test_replicates_per_cell_are_the_first_replicates_of_the_larger_grid(tmp_path):
    """n_reps as a callable: each cell its own count, its replicates those of the brute-force
    loop; its cached tasks are the ones a run with an int n_reps finds again."""
    cells = [{"mu": m, "name": n} for m in GRID["mu"] for n in GRID["name"]]
    markers, cache = tmp_path / "markers", tmp_path / "cache"
    markers.mkdir()
    func = functools.partial(flaky, str(markers))  # one marker file per computed task

    def count(params):
        return 2 if params["name"] == "b" else 5

    got = run_grid(func, GRID, count, seed=3, n_jobs=1, chunk_size=2, cache_dir=cache,
                   progress=False)  # fmt: skip
    full = oracle_frame(cells, 5, 3)
    want = full[(full["name"] != "b") | (full["rep"] < 2)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    assert got.groupby("name").rep.max().to_dict() == {"a": 4, "b": 1, "c": 4}
    assert len(calls(markers)) == 2 * (3 + 1 + 3)  # tasks of [0, 2), [2, 4), [4, 5) or [0, 2)
    two = run_grid(normal_draws, GRID, count, seed=3, n_jobs=2, chunk_size=2, progress=False)
    pd.testing.assert_frame_equal(two, got)
    b_cells = run_grid(func, {"mu": GRID["mu"], "name": ["b"]}, 2, seed=3, n_jobs=1,
                       chunk_size=2, cache_dir=cache, progress=False)  # fmt: skip
    assert len(calls(markers)) == 14  # all cached
    pd.testing.assert_frame_equal(b_cells, got[got["name"] == "b"].reset_index(drop=True))


@pytest.mark.parametrize(
    ("count", "error", "match"),
    [
        (lambda p: 0, ValueError, r"n_reps\(\{'mu': 0.0\}\) must be >= 1, got 0"),
        (lambda p: 1.5, TypeError, r"n_reps\(\{'mu': 0.0\}\) must be an integer"),
    ],
)
def test_a_bad_count_of_a_cell_names_the_cell(count, error, match):
    with pytest.raises(error, match=match):
        run_grid(normal_draws, {"mu": [0.0]}, count, n_jobs=1, progress=False)


def test_seed_changes_results():
    a = run_grid(normal_draws, {"mu": [0.0]}, n_reps=3, seed=0, n_jobs=1, progress=False)
    b = run_grid(normal_draws, {"mu": [0.0]}, n_reps=3, seed=1, n_jobs=1, progress=False)
    assert not np.any(a["x"].to_numpy() == b["x"].to_numpy())


def test_scalar_axis_is_a_single_value():
    a = run_grid(normal_draws, {"mu": 1.0, "name": ["a"]}, n_reps=2, n_jobs=1, progress=False)
    b = run_grid(normal_draws, {"mu": [1.0], "name": ["a"]}, n_reps=2, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(a, b)


def long_format(params, rngs):
    """Several rows per replicate, with the replicate index read from the generator's key."""
    rows = []
    for rng in reversed(rngs):  # deliberately out of order
        rep = rng.bit_generator.seed_seq.spawn_key[1]
        rows += [{"rep": rep, "stat": s, "value": rng.random()} for s in ("b", "a")]
    return pd.DataFrame(rows)


def test_long_format_with_rep_column_is_sorted_stably():
    got = run_grid(
        long_format, {"eps": [1, 2]}, n_reps=5, seed=0, n_jobs=1, chunk_size=2, progress=False
    )
    assert len(got) == 2 * 5 * 2
    assert got["rep"].tolist() == [r for _ in range(2) for r in range(5) for _ in range(2)]
    assert got["stat"].tolist() == ["b", "a"] * 10  # func's order within a replicate kept
    assert got["eps"].tolist() == [1] * 10 + [2] * 10


def test_progress_bar_reports_tasks(capsys):
    run_grid(normal_draws, {"mu": [0.0]}, n_reps=4, chunk_size=2, n_jobs=1, progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err and "task" in err


# ---------------------------------------------------------------------------------------------
# Caching and resumption
# ---------------------------------------------------------------------------------------------
def flaky(marker_dir, params, rngs):
    """Fails on the chunk starting at replicate 6 of mu=2.5 while `marker_dir/fail` exists;
    otherwise writes one marker file per successful call (chunk = cell + first replicate)."""
    marker_dir = Path(marker_dir)
    r0 = rngs[0].bit_generator.seed_seq.spawn_key[1]
    if (marker_dir / "fail").exists() and params["mu"] == 2.5 and r0 == 6:
        raise RuntimeError("simulated crash")
    (marker_dir / f"call-{params['mu']}-{params['name']}-{r0}-{uuid.uuid4().hex}").touch()
    return normal_draws(params, rngs)


def calls(marker_dir: Path) -> list[str]:
    return sorted("-".join(p.name.split("-")[1:4]) for p in marker_dir.glob("call-*"))


def test_killed_run_resumes_from_cache(tmp_path):
    markers, cache = tmp_path / "markers", tmp_path / "cache"
    markers.mkdir()
    func = functools.partial(flaky, str(markers))
    (markers / "fail").touch()
    with pytest.raises(RuntimeError, match="simulated crash") as info:
        run_grid(
            func, GRID, n_reps=8, seed=4, chunk_size=3, n_jobs=1, cache_dir=cache, progress=False
        )
    assert "replicates [6, 8)" in "".join(getattr(info.value, "__notes__", []))
    # sequential order: the 3 cells of mu=0 (3 chunks each) and 2 chunks of mu=2.5, name=a
    first = calls(markers)
    assert len(first) == 3 * 3 + 2

    (markers / "fail").unlink()
    resumed = run_grid(
        func, GRID, n_reps=8, seed=4, chunk_size=3, n_jobs=2, cache_dir=cache, progress=False
    )
    after = calls(markers)
    assert len(after) == 6 * 3  # every chunk computed exactly once over both runs
    assert len(set(after)) == len(after)

    fresh = run_grid(normal_draws, GRID, n_reps=8, seed=4, chunk_size=3, n_jobs=1, progress=False)
    pd.testing.assert_frame_equal(resumed, fresh)

    again = run_grid(
        func, GRID, n_reps=8, seed=4, chunk_size=3, n_jobs=1, cache_dir=cache, progress=False
    )
    assert len(calls(markers)) == 6 * 3  # fully cached: nothing recomputed
    pd.testing.assert_frame_equal(again, fresh)

    # the seed is part of the key: a new seed recomputes
    run_grid(
        func,
        {"mu": [0.0], "name": ["a"]},
        n_reps=3,
        seed=5,
        chunk_size=3,
        n_jobs=1,
        cache_dir=cache,
        progress=False,
    )
    assert len(calls(markers)) == 6 * 3 + 1


def test_a_corrupt_cache_entry_is_computed_again_not_loaded(tmp_path):
    markers, cache = tmp_path / "markers", tmp_path / "cache"
    markers.mkdir()
    func = functools.partial(flaky, str(markers))
    grid = {"mu": [0.0], "name": ["a"]}

    def run():
        return run_grid(
            func, grid, n_reps=9, seed=4, chunk_size=3, n_jobs=1, cache_dir=cache, progress=False
        )

    first = run()
    entries = sorted(cache.rglob("output.pkl"))
    assert len(entries) == 3 and len(calls(markers)) == 3
    # silent corruption: one value changed, the stored digest not
    digest, frame = joblib.load(entries[0])
    frame.loc[0, "x"] += 1.0
    joblib.dump((digest, frame), entries[0])
    # a file cut short (a write interrupted by a crash)
    entries[1].write_bytes(entries[1].read_bytes()[:40])
    with pytest.warns(UserWarning, match="does not match its digest") as record:
        again = run()
    assert len(record) == 2
    assert len(calls(markers)) == 5  # the two bad tasks were computed again, the third loaded
    pd.testing.assert_frame_equal(again, first)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pd.testing.assert_frame_equal(run(), first)  # the entries were rewritten sound
    assert len(calls(markers)) == 5


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"grid": {}}, ValueError, "grid is empty"),
        ({"grid": []}, ValueError, "grid is empty"),
        ({"grid": {"mu": []}}, ValueError, r"grid\['mu'\] is an empty list"),
        ({"grid": "mu"}, TypeError, "grid must be a dict of lists"),
        ({"grid": [{"mu": 1}, 3]}, TypeError, r"grid\[1\] must be a dict"),
        ({"grid": [{"mu": 1}, {"mu": 1.0}]}, ValueError, "duplicate cells"),
        ({"grid": {"mu": [object()]}}, TypeError, "cannot be hashed"),
        ({"grid": {"mu": [float("nan")]}}, ValueError, "finite"),
        ({"n_reps": 0}, ValueError, "n_reps must be >= 1"),
        ({"n_reps": 2.5}, TypeError, "n_reps must be an integer"),
        ({"chunk_size": 0}, ValueError, "chunk_size must be >= 1"),
        ({"seed": -1}, ValueError, "seed must be an integer >= 0, got -1"),
        ({"seed": None}, TypeError, "seed must be an integer >= 0, got NoneType None"),
        ({"backend": "spark"}, ValueError, "backend must be one of loky, threading"),
        ({"backend": "loky", "dask": "local"}, ValueError, "use backend='dask'"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be >= 1"),
        ({"func": 3}, TypeError, "func must be callable"),
    ],
)
def test_validation_errors(kwargs, error, match):
    args = {
        "func": normal_draws,
        "grid": {"mu": [0.0]},
        "n_reps": 2,
        "n_jobs": 1,
        "progress": False,
    }
    args.update(kwargs)
    with pytest.raises(error, match=match):
        run_grid(**args)


def test_bad_func_outputs():
    def not_a_frame(params, rngs):
        return [1] * len(rngs)

    def wrong_rows(params, rngs):
        return pd.DataFrame({"x": [0.0] * (len(rngs) + 1)})

    def clash(params, rngs):
        return pd.DataFrame({"mu": [0.0] * len(rngs)})

    def bad_rep(params, rngs):
        return pd.DataFrame({"rep": [99] * len(rngs)})

    common = {"grid": {"mu": [0.0]}, "n_reps": 2, "n_jobs": 1, "progress": False}
    with pytest.raises(TypeError, match="must return a pandas DataFrame"):
        run_grid(not_a_frame, **common)
    with pytest.raises(ValueError, match="3 rows for 2 replicates"):
        run_grid(wrong_rows, **common)
    with pytest.raises(ValueError, match=r"column\(s\) \['mu'\]"):
        run_grid(clash, **common)
    with pytest.raises(ValueError, match=r"outside the task's replicates \[0, 2\)"):
        run_grid(bad_rep, **common)


# ---------------------------------------------------------------------------------------------
# Worker warm-up (loky recycles a worker that grows by > 300 MB after its first task)
# ---------------------------------------------------------------------------------------------
_STATE: dict = {}


def _load_state():
    """A one-time per-process state of 400 MB (as JAX + lookup tables are)."""
    if "table" not in _STATE:
        _STATE["table"] = np.ones(50_000_000)  # 400 MB, touched
    return _STATE["table"]


def lazy_state_draws(params, rngs):
    """Tasks after the first load the state lazily, as a cell that needs JAX would."""
    import os
    import time

    if params["mu"] > 0:
        _load_state()
    time.sleep(0.6)  # longer than loky's 1 s between memory checks over two tasks
    return normal_draws(params, rngs).assign(pid=os.getpid(), loaded="table" in _STATE)


@pytest.mark.parametrize("warm_up", [None, _load_state])
def test_warm_up_runs_before_the_first_task_so_loky_keeps_its_workers(warm_up, recwarn):
    grid = {"mu": [0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "name": list("abcdefgh")}
    cells = [{"mu": m, "name": n} for m, n in zip(grid["mu"], grid["name"], strict=True)]
    out = run_grid(
        lazy_state_draws,
        cells,
        n_reps=1,
        seed=3,
        n_jobs=2,
        chunk_size=1,
        progress=False,
        warm_up=warm_up,
    )
    # the draws do not depend on warm_up
    expected = oracle_frame(cells, 1, 3)
    pd.testing.assert_frame_equal(out[expected.columns], expected)
    stopped = [w for w in recwarn if "worker stopped" in str(w.message)]
    if warm_up is None:
        # the lazily loaded 400 MB recycle the workers: new processes and loky's warning
        assert stopped and out["pid"].nunique() > 2
    else:
        # loaded in every worker before its first task: two workers, no warning
        assert not stopped and out["pid"].nunique() <= 2 and out["loaded"].all()


_LOADED: list = []


class Loads:
    """A warm-up that records its name in the worker's ``_LOADED`` (equal by name)."""

    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Loads) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __call__(self):
        _LOADED.append(self.name)


def loaded_draws(params, rngs):
    """The draws of ``normal_draws`` and what the worker's warm-ups loaded."""
    return normal_draws(params, rngs).assign(loaded=",".join(sorted(set(_LOADED))))


@pytest.mark.parametrize("estimate_mode", [False, True])
def test_warm_up_of_gives_each_group_of_cells_workers_that_load_only_theirs(
    estimate_mode, tmp_path, monkeypatch
):
    from synthtrust.run import estimate

    needs = {"a": "torch", "b": "mbi", "c": "torch", "d": None}
    cells = [{"mu": float(i), "name": n} for i, n in enumerate(needs)]

    def warm_up_of(params):
        need = needs[params["name"]]
        return Loads(need) if need else None

    if estimate_mode:  # a sample of the tasks, timed in workers of each warm-up
        monkeypatch.setenv(estimate.ESTIMATE_ENV, str(tmp_path / "stages.jsonl"))
        monkeypatch.setenv(estimate.TASKS_ENV, "8")
    out = run_grid(loaded_draws, cells, n_reps=4, seed=5, n_jobs=2, chunk_size=1,
                   progress=False, warm_up_of=warm_up_of)  # fmt: skip
    if estimate_mode:
        monkeypatch.delenv(estimate.ESTIMATE_ENV)
        assert set(out["name"]) == set(needs)  # the sample reaches every group
    # each cell's workers loaded its warm-up and nothing else; the draws are the oracle's
    loaded = out.groupby("name").loaded.agg(set).to_dict()
    assert all(loaded[n] == {needs[n] or ""} for n in loaded)
    expected = oracle_frame(cells, 4, 5)
    if estimate_mode:  # a sample of the tasks: their rows are the oracle's
        expected = expected.merge(out[["mu", "rep"]], on=["mu", "rep"])
    else:
        assert len(out) == 16
    pd.testing.assert_frame_equal(out[expected.columns], expected, check_dtype=False)
    sequential = run_grid(normal_draws, cells, n_reps=4, seed=5, n_jobs=1, progress=False,
                          warm_up_of=warm_up_of)  # fmt: skip
    pd.testing.assert_frame_equal(sequential, oracle_frame(cells, 4, 5), check_dtype=False)


def test_warm_up_of_is_checked():
    with pytest.raises(TypeError, match="warm_up_of must be callable"):
        run_grid(normal_draws, GRID, 1, n_jobs=1, progress=False, warm_up_of=3)
    with pytest.raises(TypeError, match="not both"):
        run_grid(normal_draws, GRID, 1, n_jobs=1, progress=False, warm_up=_load_state,
                 warm_up_of=lambda p: None)  # fmt: skip


_PINNED: list = []


def fragmenting_draws(params, rngs):
    """A task allocates ``params["blocks"]`` × 96 KB (glibc's heap, below its mmap threshold) and
    keeps every 100th block: its freed blocks lie between live ones, where no trim threshold
    returns them; with ``params["leak"]`` it keeps all of them (a real leak)."""
    import os
    import time

    blocks = [np.ones(12_000) for _ in range(params["blocks"])]
    _PINNED.extend(blocks if params["leak"] else blocks[::100])
    del blocks
    time.sleep(1.05)  # longer than loky's 1 s between memory checks: one check a task
    return normal_draws(params, rngs).assign(pid=os.getpid())


@pytest.mark.parametrize("leak", [False, True])
def test_loky_keeps_workers_whose_tasks_only_fragment_the_heap(leak, recwarn):
    from joblib.externals.loky import get_reusable_executor

    # fresh workers, whose first task is small (loky's reference size); later tasks grow the
    # heap by 375 MB (a worker of an earlier test may hold that much in free blocks to reuse)
    get_reusable_executor().shutdown(wait=True)
    sizes = [0, 0, 4_000, 4_000, 4_000, 4_000]
    cells = [{"mu": 0.0, "leak": leak, "blocks": b, "task": i} for i, b in enumerate(sizes)]
    out = run_grid(
        fragmenting_draws, cells, n_reps=1, seed=4, n_jobs=2, chunk_size=1, progress=False
    )
    stopped = [w for w in recwarn if "worker stopped" in str(w.message)]
    if leak:  # the check works here: a worker that keeps 375 MB a task is recycled
        assert stopped and out["pid"].nunique() > 2
    else:  # released after each task (without it: the same warning and new workers)
        assert not stopped and out["pid"].nunique() <= 2


_PGM_SCRIPT = """
import numpy as np
import pandas as pd
from synthtrust.run.experiment import run_grid
from synthtrust.synthesizers import private_pgm

def cell(params, rngs):
    counts = np.stack([r.multinomial(300, np.full(12, 1 / 12)) for r in rngs])
    out = private_pgm(counts, params["epsilon"], (2, 3, 2), max_iter=50, random_state=rngs)
    return pd.DataFrame({"counts": [" ".join(map(str, row)) for row in out]})

out = run_grid(cell, {"epsilon": [0.5, 1.0, 2.0]}, 4, 1, chunk_size=2, n_jobs=2, progress=False)
print(out["counts"].tolist())
"""


def test_loky_results_do_not_depend_on_the_parents_hash_seed():
    # mbi orders a clique's variables by iterating Python sets of names; with per-process hash
    # randomisation Private-PGM's counts changed from run to run. The workers get a fixed seed.
    import os
    import subprocess
    import sys

    outs = []
    for seed in ("1", "2", "3", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-c", _PGM_SCRIPT],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append(proc.stdout)
    assert len(set(outs)) == 1  # (without the fixed seed: two different outputs of four)


def process_env(params, rngs):
    """The worker's values of WORKER_ENV, one row per replicate."""
    import os

    from synthtrust.run._environ import WORKER_ENV

    return pd.DataFrame([{k: os.environ.get(k) for k in WORKER_ENV} for _ in rngs])


def test_loky_workers_start_with_the_process_environment(monkeypatch):
    from synthtrust.run._environ import WORKER_ENV

    for key in WORKER_ENV:
        monkeypatch.delenv(key, raising=False)
    out = run_grid(process_env, {"cell": [0, 1, 2, 3]}, n_reps=2, seed=0, progress=False)
    assert (out[list(WORKER_ENV)] == pd.Series(WORKER_ENV)).all().all()


# ---------------------------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------------------------
def test_the_progress_bar_names_the_grid_and_inside_a_chapter_the_chapter(capsys, monkeypatch):
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    monkeypatch.delenv("SYNTHTRUST_CHAPTER", raising=False)
    run_grid(normal_draws, GRID, n_reps=2, seed=0, n_jobs=1)
    err = capsys.readouterr().err
    assert "normal_draws: 100%" in err and "6/6" in err and "SYNTHTRUST" not in err
    with environ({"SYNTHTRUST_CHAPTER": "auditing"}):
        run_grid(normal_draws, GRID, n_reps=2, seed=0, n_jobs=1)
    assert "auditing: normal_draws: 100%" in capsys.readouterr().err
    run_grid(normal_draws, GRID, n_reps=2, seed=0, n_jobs=1, progress=False)
    assert capsys.readouterr().err == ""


def test_tree_digest_covers_paths_and_bytes_not_bytecode(tmp_path):
    """The digest of a folder against hashlib over the same records by hand; it changes with a
    file's bytes or name, not with ``__pycache__``."""
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_bytes(b"x = 1\n")
    (root / "sub" / "d.json").write_bytes(b"{}")
    h = hashlib.sha256()
    for rel, data in ((b"a.py", b"x = 1\n"), (b"sub/d.json", b"{}")):
        h.update(len(rel).to_bytes(8, "little") + rel + len(data).to_bytes(8, "little") + data)
    first = tree_digest(root)
    assert first == h.hexdigest()
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert tree_digest(root) == first
    (root / "a.py").write_bytes(b"x = 2\n")
    assert tree_digest(root) != first
    (root / "a.py").write_bytes(b"x = 1\n")
    (root / "sub" / "d.json").rename(root / "sub" / "e.json")
    assert tree_digest(root) != first
    with pytest.raises(NotADirectoryError, match="root must be a folder"):
        tree_digest(root / "a.py")


def test_a_change_to_the_package_recomputes_cached_tasks(tmp_path, monkeypatch):
    """The package's digest is part of every cache key: the same call after a change anywhere in
    synthtrust (here: its digest patched) computes every task again, with the same results."""
    markers, cache = tmp_path / "markers", tmp_path / "cache"
    markers.mkdir()
    func = functools.partial(flaky, str(markers))
    kw = dict(n_reps=4, seed=4, chunk_size=2, n_jobs=1, cache_dir=cache, progress=False)
    first = run_grid(func, GRID, **kw)
    assert len(calls(markers)) == 6 * 2
    run_grid(func, GRID, **kw)
    assert len(calls(markers)) == 6 * 2  # unchanged package: served from the cache
    assert experiment.package_digest() == tree_digest(Path(synthtrust.__file__).parent)
    monkeypatch.setattr(experiment, "package_digest", lambda: "0" * 64)
    again = run_grid(func, GRID, **kw)
    assert len(calls(markers)) == 2 * 6 * 2
    pd.testing.assert_frame_equal(again, first)


def test_a_renamed_grid_key_keeps_the_seeds_of_its_frozen_name():
    from synthtrust.run.experiment import FROZEN_NAMES

    for new, old in FROZEN_NAMES.items():
        cell = {"seed": 3, "dataset": "adult", new: 200}
        frozen = {"seed": 3, "dataset": "adult", old: 200}
        assert cell_key(cell) == cell_key(frozen)
        a = [g.random() for g in replicate_rngs(cell, range(3), seed=7)]
        b = [g.random() for g in replicate_rngs(frozen, range(3), seed=7)]
        assert a == b
        assert cell_key({**cell, new: 201}) != cell_key(frozen)
        with pytest.raises(ValueError, match=f"both {new!r} and {old!r}"):
            cell_key({**cell, old: 200})
    # the table is a rename: no frozen name is a name of today, no two names share one
    assert not set(FROZEN_NAMES) & set(FROZEN_NAMES.values())
    assert len(set(FROZEN_NAMES.values())) == len(FROZEN_NAMES)
    # the frozen key is the hash of the frozen JSON (the seed of every run made before)
    import hashlib

    digest = hashlib.sha256(b'{"pgm_iters":200,"seed":3}').digest()
    assert cell_key({"seed": 3, "pgm_max_iter": 200}) == int.from_bytes(digest[:8], "big")
