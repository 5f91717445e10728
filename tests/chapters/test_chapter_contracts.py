"""The chapter contract (docs/ARCHITECTURE.md, "The chapter contract"), checked for every
chapter of the book: one
``parameters`` cell whose values equal ``params/<chapter>/default.yaml`` plus the runtime keys,
three presets (smoke, default, paper; a fourth, course, for a class where a rerun of the
default would take too long) with the same keys and no runtime keys, and a smoke run without error outputs
whose manifest records the smoke parameters."""

import json
import re

import nbformat
import pytest
import yaml

from synthtrust import verdicts
from synthtrust.run import runner

CHAPTERS = runner.list_chapters()
PRESETS = ("smoke", "default", "paper")


def test_every_chapter_of_the_toc_is_checked():
    from synthtrust.run import book

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
    found = runner.presets(name)
    assert found in (list(PRESETS), [*PRESETS, "course"]), found
    params = {}
    for preset in found:
        path = runner.chapters_dir() / "params" / name / f"{preset}.yaml"
        params[preset] = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert isinstance(params[preset], dict), path
        assert not set(params[preset]) & set(runner.RUNTIME_KEYS), path
        assert params[preset] == runner.load_params(name, preset)
    assert all(list(params[p]) == list(params["default"]) for p in found)


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


# ------------------------------------------------------------- a page a course can teach from
#: The method in visible code: at least this many open code cells a chapter, one in each
#: Method section at least, each at most this many lines.
MIN_VISIBLE_CELLS = 4
MAX_VISIBLE_LINES = 15
#: Plumbing that folds behind a study's call, never in an open cell.
PLUMBING = re.compile(r"\brun_grid\(|\bglue\(|\.to_csv\(")
#: Exercises a chapter asks, and how many of them have a code solution the smoke build runs.
MIN_EXERCISES, MIN_CODE_SOLUTIONS = 3, 2
#: A rerun an exercise asks for says how long it takes, at most five minutes on two cores.
MAX_RERUN_MINUTES = 5.0
_TIME = re.compile(r"(\d+(?:\.\d+)?)\s*(s|min|minutes?|seconds?)\b")


def _is_folded(tags) -> bool:
    return any(t.startswith(("hide-", "remove-")) for t in tags)


def notebook_cells(text: str) -> list[tuple[str, str, list[str], str]]:
    """``(section, cell_type, tags, source)`` of each cell of a MyST-markdown notebook, where
    ``section`` is the title of the last ``##`` heading above the cell."""
    import jupytext

    notebook = jupytext.reads(text, fmt="md:myst")
    section, out = "", []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            heads = re.findall(r"^## +(.+)$", cell.source, flags=re.M)
            section = heads[-1].strip() if heads else section
        out.append((section, cell.cell_type, cell.metadata.get("tags", []), cell.source))
    return out


def _exercise_blocks(text: str) -> list[str]:
    return re.findall(r"^```\{exercise\}.*?^```", text, flags=re.M | re.S)


def teaching_problems(text: str, exercises_page: str = "") -> list[str]:
    """What keeps a chapter from being taught from its page: a removed cell (plumbing is
    folded, never removed), fewer than :data:`MIN_VISIBLE_CELLS` open code cells, a Method
    section without one, an open cell longer than :data:`MAX_VISIBLE_LINES` lines or calling
    the plumbing (``run_grid``, ``glue``, ``to_csv``), fewer than :data:`MIN_EXERCISES`
    exercises (chapter and exercises page) or :data:`MIN_CODE_SOLUTIONS` code solutions in the
    chapter (gated ``solution-start``/``solution-end`` blocks holding a code cell), and an
    exercise that asks for a rerun without saying how long it takes, or one over
    :data:`MAX_RERUN_MINUTES`."""
    cells = notebook_cells(text)
    problems = [
        f"code cell {i} is removed ({t})"
        for i, (_, kind, tags, _) in enumerate(c for c in cells if c[1] == "code")
        for t in tags
        if t.startswith("remove-")
    ]
    visible = [
        (sec, src) for sec, kind, tags, src in cells if kind == "code" and not _is_folded(tags)
    ]
    if len(visible) < MIN_VISIBLE_CELLS:
        problems.append(f"{len(visible)} open code cells (at least {MIN_VISIBLE_CELLS})")
    for sec, src in visible:
        lines = len(src.strip().splitlines())
        if lines > MAX_VISIBLE_LINES:
            problems.append(f"open cell in {sec!r} has {lines} lines (at most {MAX_VISIBLE_LINES})")
        if PLUMBING.search(src):
            problems.append(f"open cell in {sec!r} calls {PLUMBING.search(src).group(0)}")
    methods = {sec for sec, *_ in cells if sec.lower().startswith("method")}
    problems += [
        f"Method section {m!r} has no open code cell"
        for m in sorted(methods)
        if not any(sec == m for sec, _ in visible)
    ]
    if not methods:
        problems.append("no Method section")
    exercises = _exercise_blocks(text) + _exercise_blocks(exercises_page)
    if len(exercises) < MIN_EXERCISES:
        problems.append(f"{len(exercises)} exercises (at least {MIN_EXERCISES})")
    gated = re.findall(r"^```\{solution-start\}.*?^```\{solution-end\}", text, flags=re.M | re.S)
    with_code = [g for g in gated if "```{code-cell}" in g]
    if len(with_code) < MIN_CODE_SOLUTIONS:
        problems.append(f"{len(with_code)} code solutions (at least {MIN_CODE_SOLUTIONS})")
    for block in exercises:
        if "synthtrust run" not in block and "-p " not in block:
            continue
        label = (re.findall(r":label: *(\S+)", block) or ["?"])[0]
        times = [float(v) / (60 if u.startswith("s") else 1) for v, u in _TIME.findall(block)]
        if not times:
            problems.append(f"exercise {label} asks for a rerun without its time")
        elif max(times) > MAX_RERUN_MINUTES:
            problems.append(f"exercise {label}: a rerun of {max(times):g} min (at most 5)")
    return problems


def test_the_teaching_rule_sees_what_it_should():
    def code(tags=(), body="x = 1"):
        head = f":tags: [{', '.join(tags)}]\n" if tags else ""
        return f"```{{code-cell}} ipython3\n{head}\n{body}\n```\n\n"

    def exercise(label, body):
        return f"```{{exercise}}\n:label: {label}\n\n{body}\n```\n\n"

    solution = (
        "```{solution-start} a\n:class: dropdown\n```\n\n" + code() + "```{solution-end}\n```\n\n"
    )
    good = (
        "# A chapter\n\n"
        + code(["parameters", "hide-cell"])
        + "## Method\n\n"
        + code() * 4
        + "## Exercises\n\n"
        + exercise("a", "Rerun with `-p n_reps 50` (about 2 min).")
        + exercise("b", "Why?")
        + exercise("c", "How?")
        + solution * 2
    )
    assert teaching_problems(good) == []
    bad = (
        "# A chapter\n\n"
        + code(["remove-cell"])
        + "## Method\n\n"
        + code(["hide-input"])
        + "## Results\n\n"
        + code(body="\n".join(["x = 1"] * 16))
        + code(body="glue('x', 1)")
        + exercise("slow", "Rerun with `synthtrust run c -p n_reps 1000` (about 40 min).")
        + exercise("untimed", "Rerun with `-p n_reps 10`.")
    )
    assert teaching_problems(bad) == [
        "code cell 0 is removed (remove-cell)",
        "2 open code cells (at least 4)",
        "open cell in 'Results' has 16 lines (at most 15)",
        "open cell in 'Results' calls glue(",
        "Method section 'Method' has no open code cell",
        "2 exercises (at least 3)",
        "0 code solutions (at least 2)",
        "exercise slow: a rerun of 40 min (at most 5)",
        "exercise untimed asks for a rerun without its time",
    ]


@pytest.mark.parametrize("name", CHAPTERS)
def test_chapters_show_their_method_and_teach(name):
    text = (runner.chapters_dir() / f"{name}.md").read_text(encoding="utf-8")
    page = runner.chapters_dir().parent / "exercises" / f"{name}.md"
    extra = page.read_text(encoding="utf-8") if page.is_file() else ""
    assert teaching_problems(text, extra) == []


#: Seconds an open cell may take in the smoke run (the default preset's are in the closing
#: notes: the open cells run one replicate, whatever the preset).
MAX_VISIBLE_SECONDS = 30.0


@pytest.mark.parametrize("name", CHAPTERS)
def test_open_cells_run_in_seconds(name, smoke_run_of):
    nb = nbformat.read(smoke_run_of(name) / f"{name}.ipynb", as_version=4)
    slow = [
        (c.source.splitlines()[0][:60], round(c.metadata["papermill"]["duration"], 1))
        for c in nb.cells
        if c.cell_type == "code"
        and not _is_folded(c.metadata.get("tags", []))
        and "injected-parameters" not in c.metadata.get("tags", [])
        and (c.metadata.get("papermill", {}).get("duration") or 0) > MAX_VISIBLE_SECONDS
    ]
    assert slow == []
