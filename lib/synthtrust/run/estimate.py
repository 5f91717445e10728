"""What a run will cost before it runs: tasks, core-hours and memory per task, from a short
calibration.

``synthtrust run CHAPTER --preset P --estimate`` executes the chapter with the environment
variable :data:`ESTIMATE_ENV` naming a JSON-lines file. Every :func:`~synthtrust.run.experiment.run_grid`
call of the chapter (a *stage*) then counts its tasks, runs a few of them
(:func:`n_sampled`: :data:`TASKS_ENV`, default :data:`DEFAULT_TASKS`, and at least one per
:data:`CELLS_PER_TASK` cells; seeded, so the same tasks each time), each on one core (the
grid's ``n_jobs`` of them at a time, in loky workers), times each and reads the peak resident
memory of the process running it, appends
one record to the file, and returns the frame of the sampled tasks only — the chapter's later
cells see partial results and their errors are ignored in this mode. Nothing is read from or
written to the cache.

The sampled tasks are a systematic sample of the grid's task list (:func:`systematic_sample`):
the tasks at a random start and then every ``tasks / k``-th one. A grid lists its tasks cell by
cell, in the order of its parameters (dataset, then synthesizer, then ε, ...), so the sample
spreads over the grid instead of clustering where a simple random sample may; every task is
sampled with the same probability ``k / tasks``. The estimate of a stage is (mean seconds per
sampled task) × (number of tasks): unbiased over the random start, but with few samples of tasks
whose cost varies across the grid (synthesizer, ε, dataset) it is rough; the report gives the
spread of the sampled times, and more samples (``--estimate-tasks``) narrow it. The first task of a stage includes one-time costs
(imports, JIT compilation) that a long-running worker pays once; that makes the estimate err on
the high side.
"""

from __future__ import annotations

import json
import math
import os
import resource
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from synthtrust._validation import check_random_state

__all__ = [
    "CELLS_PER_TASK",
    "DEFAULT_TASKS",
    "ESTIMATE_ENV",
    "TASKS_ENV",
    "TIMEOUT_ENV",
    "Stage",
    "format_report",
    "measure",
    "read_stages",
    "systematic_sample",
    "task_timeout",
]

#: Path of the JSON-lines file that run_grid appends its stage records to (estimate mode).
ESTIMATE_ENV = "SYNTHTRUST_ESTIMATE"
#: Number of tasks timed per stage (default :data:`DEFAULT_TASKS`).
TASKS_ENV = "SYNTHTRUST_ESTIMATE_TASKS"
DEFAULT_TASKS = 10
#: A stage times at least one task per this many cells: a task's cost is set mostly by its cell
#: (synthesizer, ε, dataset), and a few cells can cost 20 times the typical one (chapter 3's
#: paper grid: AIM on Cardio at large ε, 140 s a task against 5 s). Ten tasks over its 286
#: cells said 45 core-hours, three random ones 443, twenty random ones 214.
CELLS_PER_TASK = 10
#: Seconds after which a timed task is stopped and counted as taking at least that long
#: (default :data:`DEFAULT_TIMEOUT`).
TIMEOUT_ENV = "SYNTHTRUST_ESTIMATE_TIMEOUT"
DEFAULT_TIMEOUT = 600.0


def active() -> Path | None:
    """The stage-record file when estimate mode is on (:data:`ESTIMATE_ENV` set), else None.

    :func:`~synthtrust.run.experiment.run_grid` checks it to time a sample of its tasks instead of
    running the whole grid; an empty value counts as unset.
    """
    path = os.environ.get(ESTIMATE_ENV)
    return Path(path) if path else None


def n_sampled(n_cells: int, n_tasks: int) -> int:
    """Tasks to time in a stage of ``n_cells`` cells and ``n_tasks`` tasks: :data:`TASKS_ENV`
    (default :data:`DEFAULT_TASKS`, at least 1), raised to one task per :data:`CELLS_PER_TASK`
    cells, at most ``n_tasks``."""
    floor = max(1, int(os.environ.get(TASKS_ENV, DEFAULT_TASKS)))
    return min(n_tasks, max(floor, math.ceil(n_cells / CELLS_PER_TASK)))


def systematic_sample(n: int, k: int, random_state=None) -> list[int]:
    """A systematic sample of ``k`` of the indices ``0 … n − 1``: ``⌊u + j·n/k⌋`` for
    ``j = 0 … k − 1``, with the start ``u`` uniform on ``[0, n/k)``.

    Each index is drawn with probability exactly ``k / n`` (the interval ``[t, t + 1)`` holds
    one point of the grid ``u + j·n/k`` for a fraction ``k / n`` of the starts), so the mean of
    the sampled values times ``n`` is an unbiased estimate of their total; the indices are
    distinct and ascending, one in each stretch of ``n / k`` consecutive indices.

    Parameters
    ----------
    n : int >= 1
        Size of the list sampled.
    k : int, 1 <= k <= n
        Size of the sample.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    list of int, length ``k``

    Raises
    ------
    ValueError
        ``n`` < 1 or ``k`` outside ``[1, n]``.

    References
    ----------
    Cochran (1977) [``cochran1977``], ch. 8 (systematic sampling, eq. 8.1–8.4).

    Examples
    --------
    >>> systematic_sample(10, 3, random_state=0)
    [2, 5, 8]
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer in [1, n = {n}], got {k!r}")
    step = n / k
    start = check_random_state(random_state).uniform(0.0, step)
    return [min(n - 1, math.floor(start + j * step)) for j in range(k)]


def task_timeout() -> float:
    """The time cap of a timed task in seconds (:data:`TIMEOUT_ENV`, > 0)."""
    return max(1e-3, float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT)))


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS counter of this process (Linux); False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _peak_mb() -> float:
    """Peak resident memory of this process in MB (VmHWM; else ``ru_maxrss``)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(call: Callable[[], object]) -> tuple[object, float, float]:
    """Run ``call()`` in full — estimate mode off inside it, so a task's own ``run_grid`` calls
    (e.g. an audit training its generator copies) compute everything — and return (its result,
    seconds, peak resident MB of this process during it; since the process started where the
    counter cannot be reset)."""
    saved = os.environ.pop(ESTIMATE_ENV, None)
    try:
        _reset_peak()
        t0 = time.perf_counter()
        out = call()
        return out, time.perf_counter() - t0, _peak_mb()
    finally:
        if saved is not None:
            os.environ[ESTIMATE_ENV] = saved


@dataclass(frozen=True)
class Stage:
    """One run_grid call of a chapter, as calibrated.

    Attributes
    ----------
    name : str
        The grid function's name.
    cells, tasks : int
        Grid cells and tasks (cells × replicate chunks).
    seconds : list of float
        Wall seconds of each sampled task (one core each); the time cap for a task stopped
        at the cap.
    peak_mb : list of float
        Peak resident memory (MB) of the process running each sampled task that finished.
    censored : int
        Sampled tasks stopped at the time cap: then the seconds and core-hours are lower
        bounds.
    errors : list of str
        One line (:func:`describe_error`) per sampled task that raised; such a task is not
        in ``seconds``: the grid as run would stop at it.
    """

    name: str
    cells: int
    tasks: int
    seconds: list[float]
    peak_mb: list[float]
    censored: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def core_hours(self) -> float:
        """Estimated core-hours of all tasks: mean sampled seconds × tasks / 3600 (a lower
        bound if some task was stopped at the cap; NaN if every sampled task raised)."""
        if not self.seconds:
            return math.nan
        return sum(self.seconds) / len(self.seconds) * self.tasks / 3600

    def to_json(self) -> str:
        return json.dumps(self.__dict__)


def describe_error(exc: BaseException) -> str:
    """One line for a task that raised: ``Type: message``, then its notes (run_grid notes the
    cell and replicates), newlines folded."""
    text = " ".join([f"{type(exc).__name__}: {exc}", *getattr(exc, "__notes__", ())])
    return " ".join(text.split())


def read_stages(path: str | os.PathLike) -> list[Stage]:
    """The stages recorded in a JSON-lines file (empty if it does not exist)."""
    path = Path(path)
    if not path.exists():
        return []
    return [Stage(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def _duration(hours: float) -> str:
    if hours < 1 / 60:
        return f"{hours * 3600:.0f} s"
    if hours < 1:
        return f"{hours * 60:.0f} min"
    return f"{hours:.1f} h"


def format_report(title: str, stages: Iterable[Stage], wall_seconds: float) -> str:
    """A plain-text table of the stages and their totals (what ``--estimate`` prints)."""
    stages = list(stages)
    head = f"{'stage':<24}{'cells':>8}{'tasks':>9}{'timed':>7}{'s/task (min-max)':>26}"
    head += f"{'core-hours':>12}{'peak MB/task':>14}"
    lines = [title, head, "-" * len(head)]
    for s in stages:
        peak = f"{max(s.peak_mb):,.0f}" if s.peak_mb else "?"
        at_least = "≥" if s.censored else ""
        if s.seconds:
            mean = sum(s.seconds) / len(s.seconds)
            spread = f"{at_least}{mean:.2f} ({min(s.seconds):.2f}-{max(s.seconds):.2f})"
            hours = at_least + format(s.core_hours, ".2f")
        else:
            spread, hours = "every task raised", "?"
        lines.append(
            f"{s.name:<24}{s.cells:>8,}{s.tasks:>9,}{len(s.seconds):>7}{spread:>26}"
            f"{hours:>12}{peak:>14}"
        )
    total = math.fsum(s.core_hours for s in stages if s.seconds)
    tasks = sum(s.tasks for s in stages)
    peak = max((max(s.peak_mb) for s in stages if s.peak_mb), default=0.0)
    censored = sum(s.censored for s in stages)
    at_least = "≥" if censored else ""
    lines.append("-" * len(head))
    lines.append(
        f"{'total':<24}{'':>8}{tasks:>9,}{'':>7}{'':>26}"
        f"{at_least + format(total, '.2f'):>12}{peak:>14,.0f}"
    )
    lines.append(
        f"about {at_least}{_duration(total)} on one core, {at_least}{_duration(total / 2)} on 2, "
        f"{at_least}{_duration(total / 64)} on 64 (tasks only); calibration took "
        f"{wall_seconds:.0f} s"
    )
    if censored:
        lines.append(
            f"≥: {censored} timed task(s) stopped at the time cap of {task_timeout():.0f} s "
            "(--estimate-timeout); their grids cost at least this much"
        )
    for s in stages:
        if s.errors:
            lines.append(
                f"error: {len(s.errors)} of the {len(s.errors) + len(s.seconds)} sampled task(s) "
                f"of {s.name} raised (the run would stop there; left out of the figures), "
                f"first: {s.errors[0]}"
            )
    return "\n".join(lines)
