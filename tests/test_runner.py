"""Tests of ``synthtrust.runner``.

They run against a copy of tests/fixtures/book (chapters `tiny` and `broken`), selected with
SYNTHTRUST_ROOT, so nothing is written into the repository.
"""

from __future__ import annotations

import pytest
import yaml
from _repo import BOOK_FIXTURE

from synthtrust import runner


# ---------------------------------------------------------------------------------------------
# Discovery and parameters
# ---------------------------------------------------------------------------------------------
def test_root_is_overridable(book):
    assert runner.repo_root() == book.resolve()
    assert runner.list_chapters() == ["broken", "tiny"]
    assert runner.presets("tiny") == ["smoke", "default"]
    assert runner.load_params("tiny", "smoke") == {
        "epsilon": [1.0],
        "n_reps": 2,
        "seed": 0,
        "label": "tiny-smoke",
    }


def test_default_root_is_the_repository(monkeypatch):
    monkeypatch.delenv("SYNTHTRUST_ROOT", raising=False)
    assert (runner.repo_root() / "lib" / "synthtrust" / "runner.py").is_file()


def test_parameters_cell_matches_default_preset_and_has_runtime_keys(book):
    cell = runner.notebook_parameters("tiny")
    scientific = {k: v for k, v in cell.items() if k not in runner.RUNTIME_KEYS}
    assert scientific == yaml.safe_load(
        (BOOK_FIXTURE / "chapters/params/tiny/default.yaml").read_text()
    )
    assert set(runner.RUNTIME_KEYS) <= set(cell)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("200", 200),
        ("0.5", 0.5),
        ("[0.1,1]", [0.1, 1]),
        ("hello", "hello"),
        ("true", True),
        ("null", None),
        ("{a: 1}", {"a": 1}),
    ],
)
def test_parse_value_is_yaml(text, value):
    assert runner.parse_value(text) == value


def test_preset_with_runtime_key_is_rejected(book):
    (book / "chapters/params/tiny/bad.yaml").write_text("n_reps: 2\nn_jobs: 4\n")
    with pytest.raises(ValueError, match=r"runtime key\(s\) \['n_jobs'\]"):
        runner.load_params("tiny", "bad")
