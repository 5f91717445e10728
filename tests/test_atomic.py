"""synthtrust._atomic: the one atomic-write helper (reports, manifests, notebooks, CLI files)."""

from __future__ import annotations

import os
import stat

import pytest

from synthtrust._atomic import atomic_path, write_text


def test_write_text_creates_folders_and_leaves_only_the_file(tmp_path):
    target = tmp_path / "a" / "b" / "report.json"
    write_text(target, "ünïcode\n")
    assert target.read_text(encoding="utf-8") == "ünïcode\n"
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0o600


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "report.html"
    write_text(target, "old")
    with pytest.raises(RuntimeError, match="disk full"), atomic_path(target) as tmp:
        tmp.write_text("half a page", encoding="utf-8")
        raise RuntimeError("disk full")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_the_temporary_file_is_next_to_the_target_with_its_suffix(tmp_path):
    with atomic_path(tmp_path / "page.html") as tmp:
        assert (
            tmp.parent == tmp_path and tmp.suffix == ".html" and tmp.name.startswith(".page.html.")
        )
        tmp.write_text("x", encoding="utf-8")
    assert (tmp_path / "page.html").read_text(encoding="utf-8") == "x"
