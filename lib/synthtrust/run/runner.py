"""Run a chapter notebook with a parameter preset: jupytext → papermill → results + manifest.

Layout (relative to the repository root, see :func:`repo_root`)::

    chapters/<name>.md                          MyST-Markdown notebook (jupytext)
    chapters/params/<name>/{smoke,default,paper}.yaml   flat dicts of scientific parameters

A run writes ``<out>/<name>.ipynb`` (executed), ``<out>/results/`` (the chapter's tables) and
``<out>/manifest.json`` (with ``grids``, the record of each grid call:
:mod:`synthtrust.run._grid_records`); ``<out>`` defaults to ``_build/runs/<preset>/<name>/``.

The chapter's cell tagged ``parameters`` must define every key of its presets plus the runtime
keys :data:`RUNTIME_KEYS` (``results_dir``, ``cache_dir``, ``n_jobs``, ``dask``); papermill
injects the run's values in a cell right after it.

A run or estimate stopped by SIGTERM or SIGINT shuts its kernel down with the kernel's loky
workers and Dask processes (papermill's client, through jupyter_client) and raises
:class:`~synthtrust.run._stop.RunStopped`, whose message says how many tasks are in the cache;
a rerun resumes from there (:mod:`synthtrust.run._stop`).
"""

from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import yaml

from synthtrust._atomic import atomic_path
from synthtrust._optional import import_optional
from synthtrust._validation import check_folder, check_n_jobs, one_line
from synthtrust.run._environ import CHAPTER_VAR, WORKER_ENV, environ
from synthtrust.run._grid_records import RECORD_ENV, read_grids, read_progress
from synthtrust.run._lock import folder_lock
from synthtrust.run._stop import RunStopped, kill_only_kernel_manager, stop_on_signals

__all__ = [
    "RUNTIME_KEYS",
    "ChapterExecutionError",
    "chapters_dir",
    "check_runtime",
    "list_chapters",
    "load_params",
    "notebook_parameters",
    "parse_value",
    "presets",
    "repo_root",
    "run_chapter",
    "run_inputs_digest",
]

#: Keys the runner adds to every chapter's parameters (they must not appear in presets).
RUNTIME_KEYS = ("results_dir", "cache_dir", "n_jobs", "dask")
_PRESET_ORDER = ("smoke", "default", "paper")


class ChapterExecutionError(RuntimeError):
    """A chapter notebook raised while executing; the message names the cell and the error."""


# --------------------------------------------------------------------------------------------
# Where things are
# --------------------------------------------------------------------------------------------
def repo_root() -> Path:
    """The repository root: ``$SYNTHTRUST_ROOT`` if set, else ``lib/synthtrust/run/../../..``."""
    env = os.environ.get("SYNTHTRUST_ROOT")
    if env:
        return Path(env).expanduser().resolve()
    return Path(__file__).resolve().parents[3]


def chapters_dir() -> Path:
    """The chapters folder ``<root>/chapters``, ``<root>`` being :func:`repo_root`.

    It holds the chapter sources ``<name>.md`` and their presets under ``params/<name>/``;
    chapter notebooks are executed with it as the working directory.
    """
    return repo_root() / "chapters"


def _params_dir(name: str) -> Path:
    return chapters_dir() / "params" / name


def list_chapters() -> list[str]:
    """Names of the runnable chapters: ``chapters/<name>.md`` with a ``chapters/params/<name>/``."""
    root = chapters_dir()
    params = root / "params"
    if not params.is_dir():
        return []
    return sorted(
        p.name for p in params.iterdir() if p.is_dir() and (root / f"{p.name}.md").is_file()
    )


def _check_chapter(name) -> str:
    if not isinstance(name, str):
        raise TypeError(f"chapter must be a name (str), got {type(name).__name__} {name!r}")
    chapters = list_chapters()
    if name not in chapters:
        listing = ", ".join(chapters) if chapters else f"none found under {chapters_dir()}"
        raise ValueError(f"unknown chapter {name!r}; chapters: {listing}")
    return name


def presets(name: str) -> list[str]:
    """Presets of chapter ``name``: smoke, default, paper first, then any others by name.

    Raises
    ------
    ValueError
        Unknown chapter (the message lists the chapters).
    """
    _check_chapter(name)
    found = {p.stem for p in _params_dir(name).glob("*.yaml")}
    return [p for p in _PRESET_ORDER if p in found] + sorted(found - set(_PRESET_ORDER))


def load_params(name: str, preset: str = "default") -> dict:
    """Read ``chapters/params/<name>/<preset>.yaml``: a flat dict of scientific parameters.

    Raises
    ------
    ValueError
        Unknown chapter or preset (the message lists the choices); a file that is not a
        mapping with string keys, or that sets a runtime key (:data:`RUNTIME_KEYS`).
    """
    available = presets(name)
    if preset not in available:
        raise ValueError(
            f"unknown preset {preset!r} for chapter {name!r}; presets: {', '.join(available)}"
        )
    path = _params_dir(name) / f"{preset}.yaml"
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ValueError(f"{path} is not valid YAML: {exc}") from None
    if params is None:
        params = {}
    if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
        raise ValueError(f"{path} must be a mapping of parameter names to values")
    runtime = [k for k in params if k in RUNTIME_KEYS]
    if runtime:
        raise ValueError(
            f"{path} sets runtime key(s) {runtime}; these come from `synthtrust run` options"
        )
    return params


def run_inputs_digest(name: str, preset: str = "default", overrides: Mapping | None = None) -> str:
    """The :func:`synthtrust.run.fingerprint.inputs_digest` that :func:`run_chapter` would write into
    the manifest of a run of chapter ``name`` with ``preset`` and ``overrides`` now.

    Raises
    ------
    ValueError
        Unknown chapter or preset (:func:`load_params`).
    """
    from synthtrust.run.fingerprint import inputs_digest

    final = {**load_params(name, preset), **dict(overrides or {})}
    return inputs_digest(chapters_dir() / f"{name}.md", final)


def parse_value(text: str):
    """Parse a command-line value as YAML: ``"200"`` → 200, ``"[0.1,1]"`` → [0.1, 1], ``"x"`` → "x".

    Raises
    ------
    ValueError
        If ``text`` is not valid YAML.
    """
    if not isinstance(text, str):
        return text
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"value {text!r} is not valid YAML: {one_line(exc)}") from None


def _parameters_cell(nb):
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.get("metadata", {}).get("tags", []):
            return cell
    return None


def notebook_parameters(name: str) -> dict:
    """Values assigned in chapter ``name``'s ``parameters`` cell (literal assignments only).

    Lets a test check that the cell equals ``default.yaml`` and defines :data:`RUNTIME_KEYS`.

    Raises
    ------
    ValueError
        Unknown chapter, no cell tagged ``parameters``, or a non-literal assignment in it.
    """
    jupytext = import_optional("jupytext", "reading a chapter")

    _check_chapter(name)
    path = chapters_dir() / f"{name}.md"
    cell = _parameters_cell(jupytext.read(path))
    if cell is None:
        raise ValueError(f"{path} has no code cell tagged 'parameters'")
    values = {}
    for node in ast.parse(cell.source).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        else:
            raise ValueError(
                f"{path}: the parameters cell may only hold `name = literal` lines, "
                f"found {ast.unparse(node)!r}"
            )
        try:
            values[target] = ast.literal_eval(value)
        except ValueError:
            raise ValueError(
                f"{path}: parameter {target!r} is not a literal: {ast.unparse(value)!r}"
            ) from None
    return values


# --------------------------------------------------------------------------------------------
# Execution
# --------------------------------------------------------------------------------------------
@contextlib.contextmanager
def _kernel_environment(progress: bool, chapter: str):
    """Kernel ``python3`` = this interpreter, talking over local IPC sockets.

    A temporary kernelspec placed first on ``JUPYTER_PATH`` makes ``python3`` this interpreter
    (whatever user-level kernelspecs say); IPC sockets in the same temporary folder replace
    unencrypted TCP ports (and ipykernel's warning about them). The kernel is shut down at
    once (``NotebookClient.shutdown_kernel = "immediate"``), by SIGKILL alone
    (:func:`synthtrust.run._stop.kill_only_kernel_manager`). The kernel starts with
    the environment of run_grid's workers (:data:`synthtrust.run._environ.WORKER_ENV`: the fixed
    ``PYTHONHASHSEED``). tqdm is disabled in the kernel
    (``TQDM_DISABLE=1``) when ``progress`` is False; ``SYNTHTRUST_CHAPTER`` is the chapter's name
    (the label of its progress bars). Yields the traitlets ``Config`` for nbclient.
    """
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="synthtrust-kernel-") as tmp:
        spec_dir = Path(tmp) / "kernels" / "python3"
        spec_dir.mkdir(parents=True)
        spec = {
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "metadata": {"debugger": False},
            # the environment of run_grid's workers, so that a chapter's sequential tasks
            # compute as its parallel ones
            "env": dict(WORKER_ENV),
        }
        (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        previous = os.environ.get("JUPYTER_PATH")
        values = {
            "JUPYTER_PATH": os.pathsep.join([tmp] + ([previous] if previous else [])),
            CHAPTER_VAR: chapter,
        }
        if not progress:
            values["TQDM_DISABLE"] = "1"
        config = Config()
        # when the notebook has run, or the run is stopped (RunStopped unwinds papermill's
        # client): jupyter_client's shutdown_kernel(now=True), SIGKILL to the kernel's process
        # group, which holds its loky workers and Dask processes (without the SIGINT that
        # jupyter_client sends first, see kill_only_kernel_manager); the graceful default
        # waited up to 5 s and let the dying kernel log to the terminal
        config.NotebookClient.shutdown_kernel = "immediate"
        config.NotebookClient.kernel_manager_class = kill_only_kernel_manager()
        if os.name == "posix":
            config.KernelManager.transport = "ipc"
            config.KernelManager.ip = os.path.join(tmp, "kernel-ipc")
        with environ(values):
            yield config


#: Dask scheduler address schemes (distributed's comm protocols).
_DASK_SCHEMES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")


def check_runtime(n_jobs, dask) -> None:
    """Validate the runtime options of a run: ``n_jobs`` and the Dask address.

    Raises
    ------
    TypeError, ValueError
        A bad ``n_jobs``; ``dask`` not None, ``"local"`` or a scheduler address.
    """
    check_n_jobs(n_jobs)
    if dask is not None and not isinstance(dask, str):
        raise TypeError(
            f"dask must be None, 'local' or a scheduler address 'tcp://host:port', got "
            f"{type(dask).__name__} {dask!r}"
        )
    if isinstance(dask, str) and dask != "local" and not dask.startswith(_DASK_SCHEMES):
        raise ValueError(
            f"dask must be 'local' or a scheduler address such as 'tcp://host:8786' "
            f"({', '.join(_DASK_SCHEMES)}), got {dask!r}"
        )


#: Text a carriage return overwrites: what precedes it on its line, when more text follows.
_OVERWRITTEN = re.compile(r"[^\n]*\r(?=[^\n])")


def _settle_streams(nb) -> None:
    """Each code cell's consecutive stream outputs of one name merged into one, with the text
    carriage returns overwrite removed: the page shows a progress bar's last state, as a terminal
    does, not each of its hundreds of updates (the semantics of nbconvert's
    ``coalesce_streams``; myst-nb's ``nb_merge_streams`` merges the outputs but keeps every
    update on a line of its own)."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for out in cell.outputs:
            last = outputs[-1] if outputs else None
            if (
                out.output_type == "stream"
                and last is not None
                and last.output_type == "stream"
                and last.name == out.name
            ):
                last.text += out.text
            else:
                outputs.append(out)
        for out in outputs:
            if out.output_type == "stream":
                out.text = _OVERWRITTEN.sub("", out.text)
        cell.outputs = outputs


def _save_notebook(nb, path: Path, source: Path) -> None:
    """Write ``nb`` to ``path`` atomically (its streams settled: :func:`_settle_streams`),
    recording the MyST source as papermill's input."""
    import nbformat

    _settle_streams(nb)
    meta = nb.metadata.setdefault("papermill", {})
    meta["input_path"] = str(source)
    meta["output_path"] = str(path)
    with atomic_path(path) as tmp:
        nbformat.write(nb, os.fspath(tmp))


def _default_cache_dir(out: Path) -> Path:
    candidate = repo_root() / ".cache" / "joblib"
    try:
        candidate.mkdir(parents=True, exist_ok=True)
        if os.access(candidate, os.W_OK):
            return candidate
    except OSError:
        pass
    return out / ".cache" / "joblib"


def _kind(value) -> str:
    """The YAML kind of a parameter value, as the error messages name it."""
    for kind, types in (
        ("boolean", bool),
        ("integer", int),
        ("number", float),
        ("text", str),
        ("list", list),
        ("mapping", dict),
    ):
        if isinstance(value, types):
            return kind
    return "null" if value is None else type(value).__name__


def _check_override(name: str, key: str, value, all_presets: list[dict]) -> None:
    """An override must be of a kind the chapter's presets give ``key`` (an integer is also a
    number, a scalar a one-value list; null only where a preset has it), so a typo fails here,
    not in the notebook.

    ``all_presets``: the parameters of every preset of chapter ``name``.

    Raises
    ------
    ValueError
        The value's kind is none of the presets' kinds for ``key``.
    """
    kinds = {_kind(params[key]) for params in all_presets if key in params}
    kind = _kind(value)
    if kind in kinds or (kind == "integer" and "number" in kinds):
        return
    if "list" in kinds and kind in ("integer", "number", "text", "boolean"):
        return  # a scalar is a one-value axis (`-p epsilon 1`; experiment.run_grid)
    article = {"integer": "an integer", "text": "text", "null": "null"}
    allowed = " or ".join(article.get(k, f"a {k}") for k in sorted(kinds))
    raise ValueError(
        f"parameter {key!r} of chapter {name!r} must be {allowed} (as in its presets), got "
        f"{value!r}"
    )


def _prepare(name, preset, overrides, n_jobs, dask):
    """Check a run request; return (notebook, MyST source, final parameters, overrides)."""
    jupytext = import_optional("jupytext", "running a chapter")
    import_optional("papermill", "running a chapter")

    _check_chapter(name)
    params = load_params(name, preset)
    overrides = dict(overrides or {})
    unknown = [k for k in overrides if k not in params]
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(map(repr, unknown))} for chapter {name!r} "
            f"(preset {preset!r}); allowed: {', '.join(params) or 'none'}"
        )
    all_presets = [load_params(name, p) for p in presets(name)] if overrides else []
    for key, value in overrides.items():
        _check_override(name, key, value, all_presets)
    check_runtime(n_jobs, dask)
    final = {**params, **overrides}

    source = chapters_dir() / f"{name}.md"
    nb = jupytext.read(source)
    if _parameters_cell(nb) is None:
        raise ValueError(f"{source} has no code cell tagged 'parameters'; papermill needs one")
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
    }

    return nb, source, final, overrides


def run_chapter(
    name: str,
    preset: str = "default",
    overrides: Mapping | None = None,
    out: str | os.PathLike | None = None,
    n_jobs: int | None = None,
    dask: str | None = None,
    progress: bool = True,
    *,
    cache_dir: str | os.PathLike | None = None,
) -> Path:
    """Execute chapter ``name`` with a preset (and overrides); return the run folder ``out``.

    Parameters
    ----------
    name : str
        A chapter of :func:`list_chapters`.
    preset : str
        A preset of :func:`presets` (``smoke``, ``default``, ``paper``).
    overrides : dict or None
        Replacement values for keys of the preset (values as Python objects; the CLI parses
        strings with :func:`parse_value`).
    out : path or None
        Run folder; default ``<root>/_build/runs/<preset>/<name>/``.
    n_jobs, dask
        Passed to the notebook as runtime parameters (for ``experiment.run_grid``).
    progress : bool
        Stream the kernel's stderr (the chapter's tqdm bars) to this process's stderr; when
        False, tqdm is disabled in the kernel (``TQDM_DISABLE=1``).
    cache_dir : path or None
        ``joblib.Memory`` location passed to the notebook; default ``<root>/.cache/joblib``
        (``<out>/.cache/joblib`` if the root is not writable).

    Returns
    -------
    Path
        ``out``, holding ``<name>.ipynb``, ``results/`` and ``manifest.json``.

    Raises
    ------
    ValueError
        Unknown chapter / preset / override key (the message lists what is allowed); a chapter
        without a ``parameters`` cell.
    TypeError
        ``n_jobs`` not an int or None, ``dask`` not a str or None.
    ChapterExecutionError
        A cell raised; the partly executed notebook is kept as ``<out>/<name>.failed.ipynb``.
    synthtrust.run._lock.FolderLockedError
        Another run is writing to ``out`` (its pid and host are named); two runs never
        interleave their files.
    synthtrust.run._stop.RunStopped
        SIGTERM or SIGINT arrived (in the main thread, with those signals at their default
        handlers): the kernel was shut down with its workers, no notebook or manifest is
        written, and the message says how many of the tasks of the grids started so far are in
        the cache (``"stopped by SIGTERM; 3 of 8 tasks cached, rerun to resume"``).
    """
    nb, source, final, overrides = _prepare(name, preset, overrides, n_jobs, dask)
    out = Path(out) if out is not None else repo_root() / "_build" / "runs" / preset / name
    out = out.expanduser().resolve()
    check_folder(out, "out")
    if cache_dir is not None:
        check_folder(cache_dir, "cache_dir")
    args = (name, preset, nb, source, final, overrides, out, cache_dir, n_jobs, dask, progress)
    with stop_on_signals(), folder_lock(out), tempfile.TemporaryDirectory() as record:
        try:
            with environ({RECORD_ENV: record}):  # run_grid's grid records
                _execute(*args, record)
        except RunStopped as stop:
            raise RunStopped(stop.signum, _resume_detail(record)) from None
    return out


def _resume_detail(record) -> str:
    """What a stopped run kept: the tasks in the cache, from run_grid's progress records."""
    grids, cached, tasks = read_progress(record)
    if not grids:
        return "no grid had started its tasks"
    return f"{cached} of {tasks} tasks cached, rerun to resume"


def _execute(
    name, preset, nb, source, final, overrides, out, cache_dir, n_jobs, dask, progress, record
):
    """Run the chapter notebook into ``out`` (held locked by the caller) and write the manifest,
    with the grid records its kernel left in the folder ``record`` (``grids``)."""
    import nbformat
    from papermill.exceptions import PapermillExecutionError

    from synthtrust.run.fingerprint import inputs_digest
    from synthtrust.run.manifest import write_manifest

    results = out / "results"
    notebook = out / f"{name}.ipynb"
    failed = out / f"{name}.failed.ipynb"
    partial = out / f".{name}.partial.ipynb"
    manifest_path = out / "manifest.json"
    if any(p.exists() for p in (manifest_path, notebook, failed)):
        # a previous run of this chapter: clear it so the folder never mixes two runs
        # (only the files a run writes; folders inside results/ and other files are kept)
        if results.is_dir():
            for item in results.iterdir():
                if item.is_file() or item.is_symlink():
                    item.unlink()
        for item in (manifest_path, notebook, failed):
            item.unlink(missing_ok=True)
    results.mkdir(parents=True, exist_ok=True)
    cache = Path(cache_dir).expanduser().resolve() if cache_dir else _default_cache_dir(out)
    runtime = {
        "results_dir": str(results),
        "cache_dir": str(cache),
        "n_jobs": n_jobs,
        "dask": dask,
    }

    digest = inputs_digest(source, final)  # what this run is made from, read before it runs
    start, t0 = _dt.datetime.now().astimezone(), time.perf_counter()
    try:
        with _kernel_environment(progress, name) as config, tempfile.TemporaryDirectory() as tmp:
            # papermill records its input in the notebook: give it a path, not the whole notebook
            converted = Path(tmp) / f"{name}.ipynb"
            nbformat.write(nb, converted)
            executed = _papermill(converted, partial, {**final, **runtime}, config, progress)
    except PapermillExecutionError as exc:
        if partial.exists():
            _save_notebook(nbformat.read(partial, as_version=4), failed, source)
            partial.unlink()
        raise ChapterExecutionError(
            f"chapter {name!r} failed in cell [{exc.exec_count}]: {exc.ename}: {exc.evalue}\n"
            f"the partly executed notebook is {failed}"
        ) from None
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    end, wall = _dt.datetime.now().astimezone(), time.perf_counter() - t0
    _save_notebook(executed, notebook, source)
    with contextlib.suppress(OSError):
        partial.unlink()
    with contextlib.suppress(OSError):
        failed.unlink()

    write_manifest(
        manifest_path,
        chapter=name,
        inputs_digest=digest,
        preset=preset,
        parameters=final,
        overrides=overrides,
        start_time=start,
        end_time=end,
        wall_time_s=round(wall, 3),
        n_jobs=n_jobs,
        dask=dask,
        root=repo_root(),
        notebook=str(notebook),
        results_dir=str(results),
        results=sorted(p.name for p in results.iterdir() if p.is_file()),
        cache_dir=str(cache),
        grids=read_grids(record),
    )


def _papermill(source: Path, output: Path, parameters: dict, config, progress: bool, **options):
    """Execute the converted notebook ``source`` into ``output`` with papermill as every chapter
    run and estimate does (the python3 kernel, in the chapters' folder, the kernel's traitlets
    ``config``, its stderr shown when ``progress``); ``options`` go to papermill as given.
    Returns the executed notebook."""
    import papermill

    return papermill.execute_notebook(
        str(source),
        # papermill formats output paths with str.format: escape braces
        str(output).replace("{", "{{").replace("}", "}}"),
        parameters=parameters,
        kernel_name="python3",
        language="python",
        cwd=str(chapters_dir()),
        progress_bar=False,
        stderr_file=sys.stderr if progress else None,
        config=config,
        **options,
    )


def estimate_chapter(
    name: str,
    preset: str = "paper",
    overrides: Mapping | None = None,
    *,
    n_tasks: int | None = None,
    timeout: float = 600.0,
    progress: bool = False,
) -> str:
    """What running chapter ``name`` would cost: its tasks, core-hours and memory per task.

    Executes the chapter in estimate mode (:mod:`synthtrust.run.estimate`): every ``run_grid`` call
    times a systematic sample of its tasks (:func:`synthtrust.run.estimate.n_sampled`: ``n_tasks``
    and at least one per ten cells), each on one core (as many at a time as there are cores),
    and the chapter's
    later cells run on those partial results (their errors are ignored). Nothing is written
    outside a temporary folder; the cache is neither read nor written.

    Parameters
    ----------
    name, preset, overrides
        As :func:`run_chapter`.
    n_tasks : int ≥ 1, optional
        Tasks timed per ``run_grid`` call at least (default
        :data:`synthtrust.run.estimate.DEFAULT_TASKS`).
    timeout : float > 0
        Seconds after which a timed task is stopped; it then counts as taking at least that
        long, and the report marks its grid's figures as lower bounds (≥).
    progress : bool
        Stream the kernel's stderr.

    Returns
    -------
    str
        The report (:func:`synthtrust.run.estimate.format_report`): per grid, cells, tasks, the
        sampled seconds per task, estimated core-hours and peak memory per task; totals.

    Raises
    ------
    ValueError
        As :func:`run_chapter`; ``n_tasks`` < 1; ``timeout`` not > 0; a chapter that calls
        ``run_grid`` nowhere.
    synthtrust.run._stop.RunStopped
        SIGTERM or SIGINT arrived: as :func:`run_chapter`; the message says how many grids
        were timed.
    """
    import nbformat
    from papermill.exceptions import PapermillExecutionError

    from synthtrust._validation import check_positive_int, check_real_range
    from synthtrust.run import estimate

    n_tasks = check_positive_int(estimate.DEFAULT_TASKS if n_tasks is None else n_tasks, "n_tasks")
    timeout = check_real_range(timeout, "timeout", 0.0)
    nb, _, final, overrides = _prepare(name, preset, overrides, None, None)
    t0 = time.perf_counter()
    with (
        stop_on_signals(),
        _kernel_environment(progress, name) as config,
        tempfile.TemporaryDirectory() as tmp,
    ):
        tmp = Path(tmp)
        record, results = tmp / "stages.jsonl", tmp / "results"
        results.mkdir()
        converted = tmp / f"{name}.ipynb"
        nbformat.write(nb, converted)
        runtime = {"results_dir": str(results), "cache_dir": None, "n_jobs": None, "dask": None}
        mode = {
            estimate.ESTIMATE_ENV: str(record),
            estimate.TASKS_ENV: str(n_tasks),
            estimate.TIMEOUT_ENV: repr(timeout),
        }
        try:
            with environ(mode), contextlib.suppress(PapermillExecutionError):
                _papermill(
                    converted,
                    tmp / "estimated.ipynb",
                    {**final, **runtime},
                    config,
                    progress,
                    allow_errors=True,  # later cells see the sampled tasks only
                )
        except RunStopped as stop:
            timed = len(estimate.read_stages(record))
            raise RunStopped(
                stop.signum, f"no estimate ({timed} grid(s) timed), nothing was written"
            ) from None
        stages = estimate.read_stages(record)
    if not stages:
        raise ValueError(f"chapter {name!r} calls run_grid nowhere: there is nothing to estimate")
    shown = "".join(f", {k}={v!r}" for k, v in overrides.items())
    title = f"{name} --preset {preset}{shown}: at least {n_tasks} task(s) timed per grid"
    return estimate.format_report(title, stages, time.perf_counter() - t0)
