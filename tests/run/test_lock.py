"""Tests of ``synthtrust.run._lock``, the exclusive lock of a run folder: the lock file exists only
while the lock is held and names its holder; a second holder is refused at once with that name
(an open file description of the same process is refused like another process, as ``flock``
does); a lock file left unlocked is taken over; a lock taken on a file that was removed in the
meantime is retaken on the new one; an exception releases the lock. That a run of the CLI is
refused by a lock another process holds, and that a killed holder's lock goes with it, is tested
end to end in tests/test_cli.py."""

from __future__ import annotations

import fcntl
import os
import socket

import pytest

from synthtrust.run import _lock
from synthtrust.run._lock import LOCK_NAME, FolderLockedError, folder_lock

ME = f"pid {os.getpid()} on {socket.gethostname()}"


def test_the_lock_file_names_the_holder_and_exists_only_while_held(tmp_path):
    folder = tmp_path / "runs" / "a"  # parents are created
    with folder_lock(folder) as held:
        assert held == folder and folder.is_dir()
        assert (folder / LOCK_NAME).read_text() == ME
    assert not (folder / LOCK_NAME).exists()
    assert list(folder.iterdir()) == []


def test_a_second_holder_is_refused_with_the_first_ones_name(tmp_path):
    with folder_lock(str(tmp_path)):
        with pytest.raises(FolderLockedError) as info:
            with folder_lock(tmp_path):
                pass  # pragma: no cover - never entered
        assert str(info.value) == (
            f"{tmp_path} is being written by another run ({ME}); "
            "wait for it to finish or choose another --out"
        )
        assert (tmp_path / LOCK_NAME).read_text() == ME  # the refused one wrote nothing
    with folder_lock(tmp_path):  # released: free again
        pass


def test_a_holder_that_wrote_nothing_is_an_unknown_process(tmp_path):
    fd = os.open(tmp_path / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(FolderLockedError, match=r"another run \(unknown process\)"):
            with folder_lock(tmp_path):
                pass  # pragma: no cover - never entered
    finally:
        os.close(fd)


def test_an_unlocked_lock_file_is_taken_over_and_rewritten(tmp_path):
    stale = "pid 4194304 on a-host-with-a-much-longer-name-than-this-one.example.org"
    (tmp_path / LOCK_NAME).write_text(stale)  # a killed run's file: nobody holds a lock on it
    with folder_lock(tmp_path):
        assert (tmp_path / LOCK_NAME).read_text() == ME  # truncated, not overwritten in part
    assert not (tmp_path / LOCK_NAME).exists()


def test_an_exception_in_the_block_releases_the_lock(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with folder_lock(tmp_path):
            raise ZeroDivisionError("a failing run")
    assert not (tmp_path / LOCK_NAME).exists()
    with folder_lock(tmp_path):
        assert (tmp_path / LOCK_NAME).read_text() == ME


def test_a_lock_on_a_removed_file_is_retaken_on_the_new_one(tmp_path, monkeypatch):
    """Between our open and our flock, the previous holder released and removed the file:
    the lock we got is on a file nobody else can see, so it is retaken on a fresh file."""
    real_flock = fcntl.flock
    calls = []

    def flock_then_lose_the_file(fd, operation):
        real_flock(fd, operation)
        calls.append(os.fstat(fd).st_ino)
        if len(calls) == 1:
            (tmp_path / LOCK_NAME).unlink()  # the previous holder's release

    monkeypatch.setattr(_lock.fcntl, "flock", flock_then_lose_the_file)
    with folder_lock(tmp_path):
        assert len(calls) == 2
        assert os.stat(tmp_path / LOCK_NAME).st_ino == calls[1]  # locked: the visible file
        assert (tmp_path / LOCK_NAME).read_text() == ME
    assert not (tmp_path / LOCK_NAME).exists()
