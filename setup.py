"""Build hook: a built wheel carries the book's datasets.

The datasets stay where the book reads them, in the repository's ``data/`` folder (17 MB,
provenance in ``data/DATASETS.md``); git holds that one copy. A non-editable build
(``pip install .``, ``pip wheel .``, ``python -m build``) copies the folder into the built
package as ``synthtrust/_data/``, where ``synthtrust.datasets`` finds it when the package is
installed outside a clone. An editable install (``pip install -e .``) copies nothing: it reads
``data/`` in place. The sdist holds ``data/`` (``MANIFEST.in``), so a wheel built from it
carries the datasets too. Everything else is configured in ``pyproject.toml``.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: The repository's datasets, next to this file.
DATA = Path(__file__).resolve().parent / "data"
#: Where a built wheel holds them, relative to its root (``synthtrust.datasets.PACKAGE_DATA``).
TARGET = ("synthtrust", "_data")


class BuildPyWithData(build_py):
    """``build_py`` that also copies ``data/`` into the built package (not when editable)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not DATA.is_dir():
            raise FileNotFoundError(
                f"{DATA} is missing: a wheel of synthtrust carries the datasets of data/; build "
                "from a clone or from the sdist, which hold it"
            )
        self.copy_tree(str(DATA), str(Path(self.build_lib, *TARGET)))


setup(cmdclass={"build_py": BuildPyWithData})
