"""Run manifests: what ran, with which parameters, code and environment, how long, how big.

``synthtrust run`` writes one ``manifest.json`` beside each executed chapter notebook.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from synthtrust._atomic import write_text

__all__ = ["PACKAGES", "environment", "git_info", "peak_memory_mib", "write_manifest"]

#: Distributions whose versions every manifest records (``None`` when not installed).
PACKAGES = (
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "mbi",
    "jax",
    "torch",
    "joblib",
    "dask",
    "distributed",
    "papermill",
    "jupytext",
    "altair",
    "synthtrust",
)


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def environment() -> dict:
    """Python, package versions and platform of this process (no heavy imports)."""
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "executable": sys.executable,
        "packages": {name: _version(name) for name in PACKAGES},
        "platform": {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "platform": platform.platform(),
            "cpu_count": os.cpu_count(),
        },
    }


def git_info(path: str | os.PathLike | None = None) -> dict:
    """``{"commit": sha or "unknown", "dirty": bool or None}`` of the repository holding ``path``.

    ``dirty`` is True when tracked files differ from the commit (untracked files are ignored);
    both are unknown when ``path`` is not in a git work tree, the repository has no commit, or
    ``git`` is not installed.
    """
    cwd = os.fspath(path) if path is not None else None

    def git(*args):
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()

    try:
        commit = git("rev-parse", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return {"commit": "unknown", "dirty": None}
    try:
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        dirty = None
    return {"commit": commit, "dirty": dirty}


def peak_memory_mib() -> dict:
    """Peak resident memory in MiB of this process, of its waited-for children, and their sum.

    From ``resource.getrusage``: ``children`` is the largest peak among terminated children
    (e.g. the notebook kernel and the workers it waited for), so ``total`` is an upper bound
    of the true simultaneous peak. ``None`` values where ``resource`` is unavailable (Windows).
    """
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return {"self": None, "children": None, "total": None}
    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 1024**2  # KiB on Linux, bytes on macOS
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale
    return {
        "self": round(own, 1),
        "children": round(children, 1),
        "total": round(own + children, 1),
    }


def _iso(value):
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.astimezone()
        return value.isoformat(timespec="seconds")
    return value


def _default(value):
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    if hasattr(value, "tolist"):  # numpy array
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return repr(value)


def write_manifest(path: str | os.PathLike, **info) -> dict:
    """Write the run manifest ``path`` (JSON, atomically) and return it as a dict.

    Recognised keys of ``info`` (all optional; any other key is written as given):
    ``chapter``, ``preset``, ``parameters`` (the final scientific parameters),
    ``start_time`` / ``end_time`` (datetimes), ``wall_time_s`` (seconds; computed from the two
    times when missing), ``n_jobs``, ``dask``, ``root`` (where to look for the git repository;
    default: the manifest's folder).

    Filled in here: ``seed`` (``parameters.get("seed")``), ``git`` (``commit``, ``dirty``),
    ``python``, ``packages`` (versions of :data:`PACKAGES`), ``platform``,
    ``peak_memory_mib`` (:func:`peak_memory_mib`), ``manifest_version``.

    Raises
    ------
    TypeError
        If ``parameters`` is given and is not a dict.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    parameters = info.get("parameters", {})
    if not isinstance(parameters, dict):
        raise TypeError(f"parameters must be a dict, got {type(parameters).__name__}")
    start, end = info.get("start_time"), info.get("end_time")
    if (
        info.get("wall_time_s") is None
        and isinstance(start, _dt.datetime)
        and isinstance(end, _dt.datetime)
    ):
        info["wall_time_s"] = round((end - start).total_seconds(), 3)
    root = info.pop("root", None) or path.parent
    manifest = {
        "manifest_version": 1,
        "chapter": info.pop("chapter", None),
        "preset": info.pop("preset", None),
        "parameters": parameters,
        "seed": parameters.get("seed"),
        "n_jobs": info.pop("n_jobs", None),
        "dask": info.pop("dask", None),
        "start_time": _iso(info.pop("start_time", None)),
        "end_time": _iso(info.pop("end_time", None)),
        "wall_time_s": info.pop("wall_time_s", None),
        "peak_memory_mib": peak_memory_mib(),
        "git": git_info(root),
        **environment(),
    }
    info.pop("parameters", None)
    manifest.update(info)
    text = json.dumps(manifest, indent=2, default=_default, ensure_ascii=False) + "\n"
    write_text(path, text)
    return json.loads(text)
