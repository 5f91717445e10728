"""A user's generator module written into a working directory, as the CLI is run from it (the
``workdir`` fixtures of the CLI and user-generator tests)."""

from __future__ import annotations

import contextlib
import sys


@contextlib.contextmanager
def user_module(directory, monkeypatch, name: str, source: str):
    """Write ``source`` to ``directory/name.py`` and work in ``directory``; afterwards forget the
    imported module and the directory on ``sys.path``."""
    (directory / f"{name}.py").write_text(source)
    monkeypatch.chdir(directory)
    try:
        yield directory
    finally:
        sys.modules.pop(name, None)
        while str(directory) in sys.path:
            sys.path.remove(str(directory))
