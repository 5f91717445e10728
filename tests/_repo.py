"""Repository paths and the book's chapter list, shared by conftest.py and the test files.

The tests live in sub-folders of ``tests/`` (mirroring ``lib/synthtrust``), so no test file
computes the repository root from its own depth: they import :data:`ROOT` from here
(``tests/`` is on ``sys.path`` under pytest's default "prepend" import mode, as the folder of
the root ``conftest.py``).
"""

from __future__ import annotations

import os
from pathlib import Path


def _repository_root() -> Path:
    """The nearest folder above this file that holds ``pyproject.toml``."""
    here = Path(__file__).resolve()
    for folder in here.parents:
        if (folder / "pyproject.toml").is_file():
            return folder
    raise RuntimeError(f"no pyproject.toml above {here}")


#: The repository's root folder (holds pyproject.toml, lib/, tests/, _toc.yml).
ROOT = _repository_root()
#: Test data kept in the repository (``tests/fixtures``).
FIXTURES = ROOT / "tests" / "fixtures"
#: The small book of chapters ``tiny`` and ``broken`` that the CLI and runner tests run.
BOOK_FIXTURE = FIXTURES / "book"
#: Headless Chromium (Debian's package, ``make chromium``) and its flags for the browser tests.
CHROMIUM = os.environ.get("SYNTHTRUST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
#: A run's manifest as ``synthtrust.run.manifest.write_manifest`` writes it: the keys that a
#: page's provenance line reads (``synthtrust.presentation.provenance``).
SAMPLE_MANIFEST = {
    "chapter": "hypothesis_validity",
    "preset": "paper",
    "end_time": "2026-01-02T03:04:05+01:00",
    "git": {"commit": "feedface" * 5, "dirty": False},
    "packages": {"synthtrust": "9.9.9", "numpy": "2.3.0"},
}


def site_chapters() -> list[str]:
    """Chapters of the book: the registered chapters (``runner.list_chapters()``) that
    ``_toc.yml`` lists, in the runner's order."""
    from synthtrust.run import book, runner

    listed = book.toc_chapters(ROOT)
    return [name for name in runner.list_chapters() if name in listed]
