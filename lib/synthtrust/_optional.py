"""Optional dependencies and the extra that installs each.

The core install (``pip install synthtrust``) is the library and the ``fidelity`` / ``audit``
command lines. Heavier parts live in extras: ``[gan]`` (PyTorch: :class:`~synthtrust.
synthesizers.GSWGAN`, :class:`~synthtrust.synthesizers.PATECTGAN`), ``[importance]`` (shap:
TreeSHAP importances), ``[dask]`` (``run_grid(..., dask=...)``), ``[book]`` (papermill,
jupytext, Jupyter Book: ``synthtrust run`` / ``synthtrust book``), ``[test]``; ``[all]`` is
everything (what ``make install`` selects).
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings
from types import ModuleType

__all__ = ["EXTRAS", "import_if_installed", "import_optional"]

#: Top-level module → the extra that installs it.
EXTRAS = {
    "torch": "gan",
    "shap": "importance",
    "distributed": "dask",
    "papermill": "book",
    "jupytext": "book",
    "nbformat": "book",
}


def import_optional(name: str, feature: str) -> ModuleType:
    """Import the optional module ``name`` (a key of :data:`EXTRAS`, or a submodule of one).

    Raises
    ------
    ImportError
        ``name`` is not installed; the message names ``feature`` (what needed it) and the
        command that installs the extra, e.g. ``pip install 'synthtrust[gan]'``.
    """
    try:
        with warnings.catch_warnings():
            # shap imports tqdm.auto, which warns "IProgress not found" in a Jupyter kernel
            # without ipywidgets (every chapter page printed it); the package draws no widget
            warnings.filterwarnings("ignore", message="IProgress not found")
            return importlib.import_module(name)
    except ImportError as exc:
        extra = EXTRAS[name.partition(".")[0]]
        raise ImportError(
            f"{feature} needs {name.partition('.')[0]!r}, which is not installed; install "
            f"the extra: pip install 'synthtrust[{extra}]'"
        ) from exc


def import_if_installed(name: str, feature: str) -> ModuleType | None:
    """:func:`import_optional` when ``name`` is installed, else None (no error): a worker's
    warm-up loads what the tasks will need, and a task that needs a missing module raises there.
    """
    if importlib.util.find_spec(name.partition(".")[0]) is None:
        return None
    return import_optional(name, feature)
