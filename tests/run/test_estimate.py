"""Tests of synthtrust.run.estimate and run_grid's estimate mode (``synthtrust run --estimate``)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from synthtrust.run import estimate
from synthtrust.run.experiment import run_grid

GRID = {"mu": [0.0, 1.0, 2.0], "name": ["a", "b"]}


def draws(params, rngs):
    return pd.DataFrame({"x": [rng.normal(params["mu"]) for rng in rngs]})


def test_estimate_mode_times_a_seeded_sample_and_returns_its_rows(tmp_path, monkeypatch):
    record = tmp_path / "stages.jsonl"
    monkeypatch.setenv(estimate.ESTIMATE_ENV, str(record))
    monkeypatch.setenv(estimate.TASKS_ENV, "4")
    got = run_grid(draws, GRID, n_reps=10, seed=5, chunk_size=3, cache_dir=tmp_path / "c")
    again = run_grid(draws, GRID, n_reps=10, seed=5, chunk_size=3, n_jobs=1)  # in this process
    monkeypatch.delenv(estimate.ESTIMATE_ENV)
    full = run_grid(draws, GRID, n_reps=10, seed=5, chunk_size=3, n_jobs=1, progress=False)

    # 6 cells x 4 chunks = 24 tasks; 4 of them run, the same ones each time
    pd.testing.assert_frame_equal(got, again)
    assert 4 <= len(got) <= 12 and len(got.groupby(["mu", "name"])) <= 4
    merged = got.merge(full, on=["mu", "name", "rep"], suffixes=("", "_full"))
    assert len(merged) == len(got) and (merged["x"] == merged["x_full"]).all()
    assert not (tmp_path / "c").exists()  # the cache is neither read nor written

    first, second = estimate.read_stages(record)
    assert first == estimate.Stage("draws", 6, 24, first.seconds, first.peak_mb)
    assert len(first.seconds) == len(first.peak_mb) == 4 and min(first.peak_mb) > 10
    assert first.core_hours == pytest.approx(np.mean(first.seconds) * 24 / 3600)
    assert second.tasks == 24


def nested(params, rngs):
    """A task that runs a grid of its own (as an audit trains its generator copies)."""
    inner = run_grid(draws, {"mu": [params["mu"]]}, n_reps=6, chunk_size=1, progress=False)
    return pd.DataFrame({"n": [len(inner)] * len(rngs)})


def test_a_tasks_own_grids_run_in_full(tmp_path, monkeypatch):
    record = tmp_path / "stages.jsonl"
    monkeypatch.setenv(estimate.ESTIMATE_ENV, str(record))
    got = run_grid(nested, {"mu": [0.0, 1.0]}, n_reps=1)
    assert got["n"].tolist() == [6] * len(got)  # not the inner grid's sample
    assert [s.name for s in estimate.read_stages(record)] == ["nested"]


def test_measure_reads_the_peak_memory_of_the_call():
    base = estimate.measure(lambda: None)[2]
    out, seconds, peak = estimate.measure(lambda: np.ones(64 * 2**20).sum())  # 512 MB
    assert out == 64 * 2**20 and seconds > 0
    assert peak > base + 400


def test_report_totals_by_hand():
    stages = [
        estimate.Stage("simulate_cell", 10, 100, [1.0, 3.0], [300.0, 350.0]),
        estimate.Stage("gan_cell", 2, 720, [60.0], [900.0]),
    ]
    text = estimate.format_report("ch --preset paper", stages, 12.3)
    lines = text.splitlines()
    assert lines[0] == "ch --preset paper"
    sim = next(line for line in lines if line.startswith("simulate_cell"))
    assert "2.00 (1.00-3.00)" in sim and sim.split()[-2:] == ["0.06", "350"]  # 2 s x 100 tasks
    gan = next(line for line in lines if line.startswith("gan_cell"))
    assert gan.split()[-2:] == ["12.00", "900"]  # 60 s x 720 tasks
    total = next(line for line in lines if line.startswith("total"))
    assert total.split()[1:] == ["820", "12.06", "900"]
    assert lines[-1].startswith("about 12.1 h on one core, 6.0 h on 2, 11 min on 64")
    assert "calibration took 12 s" in lines[-1]
    assert estimate.read_stages("/nonexistent/stages.jsonl") == []


def sleepy(params, rngs):
    import time

    time.sleep(params["seconds"])
    return pd.DataFrame({"x": [rng.normal() for rng in rngs]})


def test_a_task_over_the_time_cap_is_stopped_and_counted_as_a_lower_bound(tmp_path, monkeypatch):
    record = tmp_path / "stages.jsonl"
    monkeypatch.setenv(estimate.ESTIMATE_ENV, str(record))
    monkeypatch.setenv(estimate.TASKS_ENV, "2")
    # a cap that leaves a fresh worker time to start on a busy machine (make test runs two
    # pytest workers)
    monkeypatch.setenv(estimate.TIMEOUT_ENV, "10")
    got = run_grid(sleepy, {"seconds": [0.0, 120.0]}, n_reps=1, n_jobs=2)
    assert got["seconds"].tolist() == [0.0]  # the quick task's row; the slow one was stopped
    (stage,) = estimate.read_stages(record)
    assert stage.censored == 1 and len(stage.peak_mb) == 1
    assert sorted(stage.seconds)[1] == 10.0 and sorted(stage.seconds)[0] < 10.0
    text = estimate.format_report("t", [stage], 10.2)
    assert "≥" in text.splitlines()[3] and "1 timed task(s) stopped at the time cap of 10 s" in text


def picky(params, rngs):
    if params["mu"] == 1.0:
        raise ValueError("mu = 1 is not allowed")
    return draws(params, rngs)


def test_a_task_that_raises_is_reported_and_left_out_of_the_figures(tmp_path, monkeypatch):
    """A sampled task that raises (chapter 4's paper preset once raised in PATE-CTGAN's
    accountant) is named by the report, not silently dropped with its whole grid."""
    record = tmp_path / "stages.jsonl"
    monkeypatch.setenv(estimate.ESTIMATE_ENV, str(record))
    monkeypatch.setenv(estimate.TASKS_ENV, "6")
    got = run_grid(picky, GRID, n_reps=2, seed=1, n_jobs=1)  # 6 tasks, all of them timed
    assert sorted(set(got["mu"])) == [0.0, 2.0] and len(got) == 8
    (stage,) = estimate.read_stages(record)
    assert len(stage.seconds) == len(stage.peak_mb) == 4 and len(stage.errors) == 2
    assert stage.errors[0].startswith("ValueError: mu = 1 is not allowed")
    assert "'mu': 1.0" in stage.errors[0]  # run_grid's note: the cell
    assert stage.core_hours == pytest.approx(np.mean(stage.seconds) * 6 / 3600)
    text = estimate.format_report("t", [stage], 1.0)
    assert "error: 2 of the 6 sampled task(s) of picky raised" in text
    assert text.splitlines()[-1].endswith(stage.errors[0])
    every = estimate.Stage("x", 1, 5, [], [], errors=["ValueError: no"])
    assert math.isnan(every.core_hours)
    row = estimate.format_report("t", [every], 1.0).splitlines()[3]
    assert "every task raised" in row and row.split()[-2:] == ["?", "?"]


def test_a_normal_run_after_an_estimate_in_the_same_process(tmp_path, monkeypatch):
    """The estimate's worker pool is joblib's: a later run_grid on loky workers in the same
    process reuses or replaces it (a bare loky pool made joblib fail with an AttributeError)."""
    monkeypatch.setenv(estimate.ESTIMATE_ENV, str(tmp_path / "stages.jsonl"))
    monkeypatch.setenv(estimate.TASKS_ENV, "2")
    run_grid(draws, GRID, n_reps=2, seed=3, n_jobs=1)
    monkeypatch.delenv(estimate.ESTIMATE_ENV)
    got = run_grid(draws, GRID, n_reps=2, seed=3, n_jobs=2, progress=False)  # loky resizes a pool
    assert len(got) == 12


@pytest.mark.parametrize(("n", "k"), [(10, 3), (7, 7), (28_600, 3), (5, 1), (12, 5)])
def test_systematic_sample_draws_every_index_with_probability_k_over_n(n, k):
    """Over a fine grid of starts u on [0, n/k) (the sampler's own draw replaced by the grid),
    each index is picked by a share k/n of the starts, and one draw has k distinct ascending
    indices, one in each stretch of n/k indices."""
    step = n / k
    starts = (np.arange(20_000) + 0.5) / 20_000 * step
    picks = np.floor(starts[:, None] + np.arange(k) * step).astype(int)
    shares = np.bincount(picks.ravel(), minlength=n) / len(starts)
    np.testing.assert_allclose(shares, k / n, atol=1 / len(starts) * k + 1e-12)

    got = estimate.systematic_sample(n, k, random_state=3)
    assert len(got) == len(set(got)) == k and got == sorted(got)
    u = np.random.default_rng(3).uniform(0.0, step)  # the same start as the sampler draws
    assert got == [int(np.floor(u + j * step)) for j in range(k)]
    assert all(math.floor(j * step) <= t < (j + 1) * step for j, t in enumerate(got))


def test_systematic_sample_is_unbiased_for_a_total():
    """Averaged over the start u (uniform on [0, n/k)), n × the mean of the sampled values is
    the total: exact rational arithmetic over the stretches of u where the picks stay fixed."""
    values = np.random.default_rng(0).gamma(0.3, 10.0, size=37)  # heavy-tailed costs
    n, k = len(values), 5
    step = Fraction(n, k)
    cuts = {t - j * step for t in range(n + 1) for j in range(k)}
    edges = sorted({Fraction(0), step} | {c for c in cuts if 0 < c < step})
    mean = Fraction(0)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        mid = (lo + hi) / 2
        picks = [math.floor(mid + j * step) for j in range(k)]
        mean += (hi - lo) / step * Fraction(n * float(values[picks].mean()))
    assert float(mean) == pytest.approx(values.sum(), rel=1e-12)


@pytest.mark.parametrize(("n", "k"), [(0, 1), (5, 0), (5, 6), (5.0, 2), (5, True)])
def test_systematic_sample_rejects_bad_sizes(n, k):
    with pytest.raises(ValueError, match="must be an integer"):
        estimate.systematic_sample(n, k)


@pytest.mark.parametrize(
    ("env", "cells", "tasks", "want"),
    [
        (None, 286, 28_600, 29),  # chapter 3's paper grid: one task per 10 cells
        (None, 22, 220, 10),  # the default floor
        (None, 5, 5, 5),  # no more than the tasks
        ("3", 286, 28_600, 29),
        ("40", 286, 28_600, 40),
        ("4", 6, 24, 4),
        ("0", 6, 24, 1),
    ],
)
def test_n_sampled_times_one_task_per_ten_cells_at_least(monkeypatch, env, cells, tasks, want):
    if env is None:
        monkeypatch.delenv(estimate.TASKS_ENV, raising=False)
    else:
        monkeypatch.setenv(estimate.TASKS_ENV, env)
    assert estimate.n_sampled(cells, tasks) == want
