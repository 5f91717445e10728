"""Tests of ``synthtrust.run.runner``.

They run against a copy of tests/fixtures/book (chapters `tiny` and `broken`), selected with
SYNTHTRUST_ROOT, so nothing is written into the repository.
"""

from __future__ import annotations

import pytest
import yaml
from _repo import BOOK_FIXTURE

from synthtrust.run import runner


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
    assert (runner.repo_root() / "lib" / "synthtrust" / "run" / "runner.py").is_file()


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


def test_saved_notebooks_show_a_progress_bars_last_state_once():
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    def stream(name, text):
        return new_output("stream", name=name, text=text)

    bar = [
        stream("stderr", f"\rgrid: {p:3d}%|{'#' * (p // 50)}| {p // 50}/2") for p in (0, 50, 100)
    ]
    cell = new_code_cell(
        "run()",
        outputs=[
            *bar,
            stream("stderr", "\n"),
            stream("stdout", "done\r\n"),  # a Windows line end is not an overwrite
            stream("stdout", "ok\n"),
            new_output("display_data", data={"text/plain": "table"}),
            stream("stderr", "x\ry\n"),
        ],
    )
    nb = new_notebook(cells=[new_markdown_cell("text\rkept"), cell])
    runner._settle_streams(nb)
    got = [(o.output_type, o.get("name"), o.get("text")) for o in nb.cells[1].outputs]
    assert got == [
        ("stream", "stderr", "grid: 100%|##| 2/2\n"),
        ("stream", "stdout", "done\r\nok\n"),
        ("display_data", None, None),
        ("stream", "stderr", "y\n"),
    ]
    assert nb.cells[0].source == "text\rkept"  # markdown untouched
    nbformat.validate(nb)
