"""The fingerprint of a chapter run: the digest of its inputs, and whether a finished run is
up to date with them.

A chapter's numbers are a function of its notebook, its parameters, the package's code and data
files, the dataset folder and the versions of the libraries it runs on — not of ``n_jobs``, the
backend or the progress bars (:func:`synthtrust.run.experiment.run_grid` guarantees it). The
runner writes the digest of these inputs into the run's manifest (``inputs_digest``); a book
build reruns a chapter only when its digest changed or its run folder is incomplete, so a
second ``make book`` with nothing changed runs no chapter.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["INPUTS_KEY", "inputs", "inputs_digest", "up_to_date"]

#: The manifest key holding :func:`inputs_digest`.
INPUTS_KEY = "inputs_digest"


def inputs(source: str | os.PathLike, parameters: Mapping) -> dict:
    """What a run of the chapter notebook ``source`` with ``parameters`` depends on.

    Parameters
    ----------
    source : path
        The chapter's MyST notebook (``chapters/<name>.md``).
    parameters : mapping
        The run's final scientific parameters (preset and overrides; no runtime keys).

    Returns
    -------
    dict
        ``notebook`` (SHA-256 of the source's bytes), ``parameters`` (the parameters as canonical
        JSON), ``package`` (:func:`~synthtrust.run.experiment.package_digest`), ``data``
        (:func:`~synthtrust.run.experiment.tree_digest` of :data:`synthtrust.datasets.DATA_DIR`,
        or ``"absent"``), ``python`` and ``packages`` (versions of
        :data:`synthtrust.run.manifest.PACKAGES`).

    Raises
    ------
    FileNotFoundError
        ``source`` does not exist.
    """
    from synthtrust import datasets
    from synthtrust.run.experiment import package_digest, tree_digest
    from synthtrust.run.manifest import environment

    env = environment()
    data = Path(datasets.DATA_DIR)
    return {
        "notebook": hashlib.sha256(Path(source).read_bytes()).hexdigest(),
        "parameters": json.dumps(dict(parameters), sort_keys=True, default=repr),
        "package": package_digest(),
        "data": tree_digest(data) if data.is_dir() else "absent",
        "python": env["python"],
        "packages": env["packages"],
    }


def inputs_digest(source: str | os.PathLike, parameters: Mapping) -> str:
    """SHA-256 (hex) of :func:`inputs` (canonical JSON): equal digests, equal numbers."""
    text = json.dumps(inputs(source, parameters), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def up_to_date(out: str | os.PathLike, name: str, digest: str) -> bool:
    """Whether the run folder ``out`` holds a finished run of chapter ``name`` made from the
    inputs whose digest is ``digest``.

    True when ``out/manifest.json`` is readable, names chapter ``name``, records
    ``inputs_digest == digest``, and ``out/<name>.ipynb`` and every file of its ``results``
    list exist; False otherwise (a missing or unreadable manifest, a run of older code that
    recorded no digest, a deleted results file).
    """
    out = Path(out)
    try:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(manifest, dict) or manifest.get("chapter") != name:
        return False
    if manifest.get(INPUTS_KEY) != digest or not (out / f"{name}.ipynb").is_file():
        return False
    results = out / "results"
    return all((results / f).is_file() for f in manifest.get("results") or [])
