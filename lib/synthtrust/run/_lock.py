"""An exclusive lock on a run folder: two runs never write into the same folder at once.

The lock is an advisory ``flock`` on ``<folder>/.lock``, held while the run writes; the operating
system releases it when the process ends, however it ends, so a killed run leaves no stale lock
(its file may remain, unlocked, and is simply taken over). The file records who holds it (pid
and host) for the error message. On systems without
``fcntl`` (Windows) no lock is taken.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

__all__ = ["FolderLockedError", "folder_lock"]

LOCK_NAME = ".lock"


class FolderLockedError(RuntimeError):
    """Another process holds the folder's lock (the message names it and the folder)."""


def _acquire(path: Path) -> int:
    """Open and lock ``path``; return the descriptor. The lock file is removed at release, so
    a lock taken on a file that another process has just removed is retaken on the new one."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip()
            os.close(fd)
            raise FolderLockedError(
                f"{path.parent} is being written by another run "
                f"({holder or 'unknown process'}); wait for it to finish or choose another --out"
            ) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
            return fd
        os.close(fd)


@contextlib.contextmanager
def folder_lock(folder: str | os.PathLike) -> Iterator[Path]:
    """Hold the exclusive lock of ``folder`` (created if missing) for the ``with`` block.

    The lock file ``<folder>/.lock`` exists only while the lock is held.

    Raises
    ------
    FolderLockedError
        Another process holds the lock; it is not waited for.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if fcntl is None:  # pragma: no cover - Windows
        yield folder
        return
    path = folder / LOCK_NAME
    fd = _acquire(path)
    try:
        yield folder
    finally:
        path.unlink(missing_ok=True)  # while still locked: no one holds a lock on a lost file
        os.close(fd)
