"""The repository's house rules that a reviewer would otherwise check by hand: small modules,
and nothing that points outside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 800
#: References to the development machine or to notes that are not part of the repository.
FOREIGN = re.compile(r"\.\./shared|/work/|REFERENCE\.md|DESIGN\.md|[Ss]ession [0-9]")


def test_no_module_is_longer_than_800_lines():
    lengths = {
        p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in (ROOT / "lib").rglob("*.py")
    }
    assert len(lengths) > 50
    assert {p: n for p, n in lengths.items() if n > MAX_LINES} == {}


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_nothing_points_outside_the_repository():
    hits = []
    for path in _tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary data
        for number, line in enumerate(text.splitlines(), 1):
            if FOREIGN.search(line) and path.name != "test_layout.py":
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert hits == []


def test_the_pattern_catches_what_it_should():
    for text in ("see ../shared/papers", "/work/main/lib", "REFERENCE.md", "in session 3"):
        assert FOREIGN.search(text), text
    assert not FOREIGN.search("the PrivacyLedger records each session of noise")
