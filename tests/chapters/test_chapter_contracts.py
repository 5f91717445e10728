"""The chapter contract (docs/ARCHITECTURE.md, "The chapter contract"), checked for every
chapter of the book: one
``parameters`` cell whose values equal ``params/<chapter>/default.yaml`` plus the runtime keys,
three presets with the same keys and no runtime keys, and a smoke run without error outputs
whose manifest records the smoke parameters."""

import json

import nbformat
import pytest
import yaml

from synthtrust import runner, verdicts

CHAPTERS = runner.list_chapters()
PRESETS = ("smoke", "default", "paper")


def test_every_chapter_of_the_toc_is_checked():
    from synthtrust import book

    assert set(book.toc_chapters(runner.chapters_dir().parent)) <= set(CHAPTERS)
    assert len(CHAPTERS) >= 3


@pytest.mark.parametrize("name", CHAPTERS)
def test_parameters_cell_equals_default_preset_and_has_runtime_keys(name):
    cell = runner.notebook_parameters(name)
    default = runner.load_params(name, "default")
    assert set(cell) == set(default) | set(runner.RUNTIME_KEYS)
    for key, value in default.items():
        assert cell[key] == value, f"parameters cell {key} = {cell[key]!r}, default.yaml {value!r}"
    # runtime keys: harmless defaults for an interactive session; `synthtrust run` sets them
    assert cell["n_jobs"] is None and cell["dask"] is None and cell["cache_dir"] is None
    assert isinstance(cell["results_dir"], str) and cell["results_dir"].endswith("results")


@pytest.mark.parametrize("name", CHAPTERS)
def test_presets_share_keys_and_hold_no_runtime_keys(name):
    assert runner.presets(name) == list(PRESETS)
    params = {}
    for preset in PRESETS:
        path = runner.chapters_dir() / "params" / name / f"{preset}.yaml"
        params[preset] = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert isinstance(params[preset], dict), path
        assert not set(params[preset]) & set(runner.RUNTIME_KEYS), path
        assert params[preset] == runner.load_params(name, preset)
    assert list(params["smoke"]) == list(params["default"]) == list(params["paper"])


@pytest.mark.parametrize("name", CHAPTERS)
def test_smoke_run_has_no_errors_and_records_its_parameters(name, smoke_run_of):
    run = smoke_run_of(name)
    nb = nbformat.read(run / f"{name}.ipynb", as_version=4)
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == []
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["parameters"] == runner.load_params(name, "smoke")
    assert (run / "results").is_dir() and any((run / "results").iterdir())


@pytest.mark.parametrize("name", CHAPTERS)
def test_smoke_run_writes_verdicts_that_follow_from_their_intervals(name, smoke_run_of):
    """results/verdicts.csv in the format of synthtrust.verdicts: its columns, lower ≤ estimate
    ≤ upper wherever replicates ran, each verdict equal to decide() on its interval, and every
    row linked to a section of the chapter."""
    run = smoke_run_of(name)
    table = verdicts.read_verdicts(run / "results")  # raises on a row that breaks the format
    assert len(table) > 0
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
        if row.n > 0:
            assert row.lower <= row.estimate <= row.upper, row.finding
        if row.verdict == "undetermined" and row.n > 0:
            assert row.replicates_to_decide > row.n, row.finding
        assert row.section, f"{name}: finding {row.finding} names no section"
    source = (runner.chapters_dir() / f"{name}.md").read_text(encoding="utf-8")
    for label in set(table.section):
        assert f"({label})=" in source, f"{name}: no MyST label ({label})= in the chapter"


# ------------------------------------------------------------------ a page a student can read
#: Longest chapter source, in lines of chapters/<name>.md: the model shown, the plumbing folded.
MAX_CHAPTER_LINES = 700


def code_cell_tags(text: str) -> list[list[str]]:
    """The tags of each code cell of a MyST-markdown notebook."""
    import jupytext

    notebook = jupytext.reads(text, fmt="md:myst")
    return [c.metadata.get("tags", []) for c in notebook.cells if c.cell_type == "code"]


def readability_problems(text: str, max_lines: int) -> list[str]:
    """What keeps a chapter source from reading as a lecture: a cell removed from the page
    (cells are folded, ``hide-input``/``hide-cell``, never removed), no code cell left open to
    show the library in use, or more than ``max_lines`` lines."""
    tags = code_cell_tags(text)
    problems = [
        f"code cell {i} is removed ({t})"
        for i, cell in enumerate(tags)
        for t in cell
        if t.startswith("remove-")
    ]
    if not any(not any(t.startswith(("hide-", "remove-")) for t in cell) for cell in tags):
        problems.append("no code cell is open")
    if len(text.splitlines()) > max_lines:
        problems.append(f"{len(text.splitlines())} lines (at most {max_lines})")
    return problems


def test_the_readability_rule_sees_removed_cells_closed_pages_and_length():
    def page(*tags):
        cells = "".join(
            f"```{{code-cell}} ipython3\n:tags: {list(t)}\n\nx = 1\n```\n\n" for t in tags
        )
        return "# A chapter\n\n" + cells.replace("'", "").replace(":tags: []\n", "")

    assert readability_problems(page(["hide-cell"], []), 100) == []
    assert readability_problems(page(["parameters", "remove-cell"], ["hide-input"]), 100) == [
        "code cell 0 is removed (remove-cell)",
        "no code cell is open",
    ]
    assert readability_problems(page([]), 5) == ["7 lines (at most 5)"]


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapters_fold_and_open_a_cell(name):
    text = (runner.chapters_dir() / f"{name}.md").read_text(encoding="utf-8")
    assert readability_problems(text, MAX_CHAPTER_LINES) == []
