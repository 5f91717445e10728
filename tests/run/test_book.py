"""Tests of ``synthtrust.run.book``, which builds the offline site: where the book root is found
(argument, ``$SYNTHTRUST_ROOT``, working directory, repository); the chapters ``_toc.yml``
lists and the toc restricted to some of them; the staged ``_config.yml`` with the offline
settings enforced; the stage (book files, executed notebooks with papermill's parameters cell
hidden, Vega bundle and MathJax, a notebook that loads charts from a CDN refused); and
``build`` (chapters checked before any run, each run to ``<out>/runs/<preset>/<chapter>``,
failures naming the chapter, a missing citation failing the strict ``jupyter-book`` build).
The ``synthtrust book`` command is tested in tests/test_cli.py and the built site in a browser
in tests/repo/test_site.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml
from _repo import ROOT

from synthtrust.presentation.charts import VEGA_BUNDLE_FILENAME, renderer_html, vega_bundle_js
from synthtrust.run.book import (
    ASSETS_DIR,
    BOOK_FILES,
    MATHJAX_ENTRY,
    MATHJAX_ES5,
    MATHJAX_PATH,
    BookBuildError,
    _filter_toc,
    _is_progress_output,
    _stage_notebook,
    _staged_config,
    build,
    find_root,
    mathjax_source,
    stage,
    toc_chapters,
)

#: The toc of the small book: chapters at two levels and a page that is no chapter.
SMALL_TOC = {
    "format": "jb-book",
    "root": "intro",
    "parts": [
        {
            "caption": "Chapters",
            "chapters": [
                {"file": "chapters/first"},
                {"file": "chapters/second.md"},
                {"file": "notes/page", "sections": [{"file": "chapters/third"}]},
            ],
        }
    ],
}


@pytest.fixture
def small_book(tmp_path) -> Path:
    """A book root with the repository's ``_config.yml``, :data:`SMALL_TOC`, an image folder
    and a stand-in for MathJax (``make assets``)."""
    root = tmp_path / "book"
    root.mkdir()
    shutil.copy2(ROOT / "_config.yml", root / "_config.yml")
    (root / "_toc.yml").write_text(yaml.safe_dump(SMALL_TOC, sort_keys=False), encoding="utf-8")
    (root / "intro.md").write_text("# A small book\n", encoding="utf-8")
    (root / "references.bib").write_text("", encoding="utf-8")
    (root / "images").mkdir()
    (root / "images" / "figure.svg").write_text("<svg/>", encoding="utf-8")
    (root / MATHJAX_ES5).mkdir(parents=True)
    (root / MATHJAX_ES5 / MATHJAX_ENTRY).write_text("// MathJax", encoding="utf-8")
    return root


def _notebook(path: Path, *cells) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells) or [nbformat.v4.new_markdown_cell("# A chapter")]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


# ------------------------------------------------------------------------------------ sources
def test_find_root_takes_the_argument_then_the_environment_then_the_working_directory(
    small_book, tmp_path, monkeypatch
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("SYNTHTRUST_ROOT", str(elsewhere))
    assert find_root(small_book) == small_book.resolve()  # the argument wins
    with pytest.raises(FileNotFoundError, match=f"no book found in {elsewhere}: a book root"):
        find_root()  # $SYNTHTRUST_ROOT without a book: no fallback
    monkeypatch.setenv("SYNTHTRUST_ROOT", str(small_book))
    assert find_root() == small_book.resolve()
    monkeypatch.delenv("SYNTHTRUST_ROOT")
    monkeypatch.chdir(small_book)
    assert find_root() == small_book.resolve()
    monkeypatch.chdir(elsewhere)
    assert find_root() == ROOT  # the repository this package is installed from


def test_find_root_names_the_missing_book_files(small_book):
    (small_book / "references.bib").unlink()
    (small_book / "intro.md").unlink()
    with pytest.raises(FileNotFoundError, match=r"lacks \['intro.md', 'references.bib'\]"):
        find_root(small_book)


def test_toc_lists_intro_and_chapter_one_and_filters():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    assert toc["root"] == "intro"
    assert toc_chapters(ROOT) == [
        "hypothesis_validity",
        "holdout_fidelity_privacy",
        "evaluation_protocols",
        "feature_importance",
        "auditing",
        "dp_auditing",
    ]
    nested = {
        "root": "intro",
        "parts": [
            {
                "caption": "A",
                "chapters": [
                    {"file": "chapters/a"},
                    {"file": "chapters/b.md"},
                    {"file": "other/page"},
                ],
            }
        ],
    }
    assert _filter_toc(nested, {"b"}) == {
        "root": "intro",
        "parts": [
            {"caption": "A", "chapters": [{"file": "chapters/b.md"}, {"file": "other/page"}]}
        ],
    }
    assert _filter_toc(nested, set())["parts"][0]["chapters"] == [{"file": "other/page"}]
    # a kept chapter nested under a dropped one moves up to its place, with its own sections
    under = [
        {"file": "chapters/a", "sections": [{"file": "chapters/b", "sections": [{"file": "x"}]}]},
        {"file": "chapters/c", "sections": [{"file": "chapters/d"}]},
    ]
    assert _filter_toc(under, {"b"}) == [{"file": "chapters/b", "sections": [{"file": "x"}]}]
    assert _filter_toc(under, {"a", "d"}) == [
        {"file": "chapters/a", "sections": [{"file": "x"}]},  # b's page moves up under a
        {"file": "chapters/d"},
    ]


def test_toc_chapters_at_every_level_and_a_part_left_empty_is_dropped(small_book):
    assert toc_chapters(small_book) == ["first", "second", "third"]
    only_first = {
        "format": "jb-book",
        "root": "intro",
        "parts": [{"caption": "Chapters", "chapters": [{"file": "chapters/first"}]}],
    }
    assert _filter_toc(SMALL_TOC, {"first"})["parts"][0]["chapters"] == [
        {"file": "chapters/first"},
        {"file": "notes/page", "sections": []},  # a page stays, the chapters under it go
    ]
    without_pages = {**SMALL_TOC, "parts": [*SMALL_TOC["parts"], only_first["parts"][0]]}
    assert _filter_toc(without_pages, {"second"})["parts"][1:] == []  # nothing left: dropped


def test_staged_config_enforces_offline_settings():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    staged = _staged_config(config)
    sphinx = staged["sphinx"]["config"]
    assert staged["execute"]["execute_notebooks"] == "off"
    assert sphinx["html_static_path"] == [ASSETS_DIR]
    assert ASSETS_DIR != "_static"
    assert VEGA_BUNDLE_FILENAME in sphinx["html_js_files"]
    assert sphinx["mathjax_path"] == "mathjax/tex-chtml.js"
    assert sphinx["html_context"]["default_mode"] == "light"
    assert "synthtrust._sphinx" in staged["sphinx"]["extra_extensions"]
    # The repository's _config.yml already holds the same values (it documents them).
    assert config["sphinx"]["config"]["html_static_path"] == [ASSETS_DIR]
    assert config["sphinx"]["config"]["mathjax_path"] == MATHJAX_PATH
    assert config["execute"]["execute_notebooks"] == "off"
    # A config that tried _static or forgot the settings gets them fixed.
    fixed = _staged_config({"sphinx": {"config": {"html_static_path": ["_static"]}}})
    assert fixed["sphinx"]["config"]["html_static_path"] == [ASSETS_DIR]
    assert fixed["execute"]["execute_notebooks"] == "off"


def test_missing_mathjax_is_named_with_the_fix(tmp_path):
    for name in BOOK_FILES:
        shutil.copy2(ROOT / name, tmp_path / name)
    with pytest.raises(FileNotFoundError, match="make assets"):
        mathjax_source(tmp_path)
    with pytest.raises(FileNotFoundError, match="make assets"):
        build(root=tmp_path, run_chapter=lambda *a, **k: None, progress=False)


# -------------------------------------------------------------------------------------- stage
def test_stage_writes_the_book_files_the_notebooks_and_the_assets(small_book, tmp_path):
    params = nbformat.v4.new_code_cell(
        '# Parameters\nepsilon = 1.0\nresults_dir = "/home/ci/_build/runs/smoke/second/results"\n'
        'cache_dir = "/home/ci/.cache/joblib"\nn_jobs = 2\ndask = None\n'
    )
    params.metadata["tags"] = ["injected-parameters"]
    hidden = nbformat.v4.new_code_cell("x = 1")
    hidden.metadata["tags"] = ["remove-input"]
    path = _notebook(tmp_path / "runs" / "second" / "second.ipynb", params, hidden)
    out = tmp_path / "_build"
    (out / "stage" / "chapters").mkdir(parents=True)
    (out / "stage" / "chapters" / "stale.ipynb").write_text("{}", encoding="utf-8")

    stage_dir = stage({"second": path}, root=small_book, out=out)

    assert stage_dir == out / "stage"
    assert sorted(p.relative_to(stage_dir).as_posix() for p in stage_dir.rglob("*.*")) == [
        "_config.yml",
        "_toc.yml",
        "chapters/second.ipynb",  # the stale notebook is gone: the stage is made anew
        "images/figure.svg",
        "intro.md",
        "references.bib",
        f"{ASSETS_DIR}/mathjax/{MATHJAX_ENTRY}",
        f"{ASSETS_DIR}/{VEGA_BUNDLE_FILENAME}",
    ]
    config = yaml.safe_load((small_book / "_config.yml").read_text(encoding="utf-8"))
    staged = yaml.safe_load((stage_dir / "_config.yml").read_text(encoding="utf-8"))
    assert staged == _staged_config(config)
    toc = yaml.safe_load((stage_dir / "_toc.yml").read_text(encoding="utf-8"))
    assert toc == _filter_toc(SMALL_TOC, {"second"})
    assert [c["file"] for c in toc["parts"][0]["chapters"]] == ["chapters/second.md", "notes/page"]
    cells = nbformat.read(stage_dir / "chapters" / "second.ipynb", as_version=4).cells
    assert [c["metadata"]["tags"] for c in cells] == [
        ["injected-parameters", "remove-cell"],  # papermill's cell is hidden
        ["remove-input"],  # other cells are left as they are
    ]
    # the downloadable notebook keeps the preset's values, not the build machine's folders
    assert [c["source"] for c in cells] == [
        "# Parameters\nepsilon = 1.0\n"
        "# runtime keys (results_dir, cache_dir, n_jobs, dask): the notebook's defaults\n",
        "x = 1",
    ]
    assets = stage_dir / ASSETS_DIR
    assert (assets / VEGA_BUNDLE_FILENAME).read_text(encoding="utf-8") == vega_bundle_js()
    assert (assets / "mathjax" / MATHJAX_ENTRY).read_text(encoding="utf-8") == "// MathJax"


def _tqdm_text(total: int, done: int, cached: bool) -> str:
    """What tqdm writes to a file for a bar like run_grid's (cached tasks: one final state)."""
    import io

    from tqdm.auto import tqdm

    buffer = io.StringIO()
    bar = tqdm(total=total, desc="chapter: score_cell", unit="task", file=buffer, ascii=False)
    bar.update(total if cached else done)
    if not cached:
        bar.update(total - done)
    bar.close()
    return buffer.getvalue()


@pytest.mark.parametrize("cached", [True, False])
def test_stage_drops_the_progress_bars_and_keeps_every_other_output(tmp_path, cached):
    bars = _tqdm_text(55, 20, cached)
    assert "55/55" in bars and ("\r" in bars)
    run = nbformat.v4.new_code_cell("results = run_grid(...)")
    run.outputs = [
        nbformat.v4.new_output("stream", name="stderr", text=bars),
        nbformat.v4.new_output("stream", name="stdout", text=bars),  # not stderr: kept
        nbformat.v4.new_output("stream", name="stderr", text="UserWarning: 3 cells failed\n"),
        nbformat.v4.new_output("stream", name="stderr", text=bars + "a warning after\n"),
        nbformat.v4.new_output("display_data", data={"text/plain": "table"}),
    ]
    path = _notebook(tmp_path / "runs" / "ch" / "ch.ipynb", run)
    staged = tmp_path / "staged.ipynb"
    _stage_notebook(path, staged)
    kept = nbformat.read(staged, as_version=4).cells[0].outputs
    assert [(o.output_type, o.get("name")) for o in kept] == [
        ("stream", "stdout"),
        ("stream", "stderr"),
        ("stream", "stderr"),
        ("display_data", None),
    ]
    assert kept[1].text == "UserWarning: 3 cells failed\n"
    assert not _is_progress_output({"output_type": "stream", "name": "stderr", "text": ""})
    assert not _is_progress_output({"output_type": "stream", "name": "stderr", "text": "50%|x"})


def test_stage_checks_every_notebook_before_it_touches_the_stage(small_book, tmp_path):
    out = tmp_path / "_build"
    good = _notebook(tmp_path / "first.ipynb")
    with pytest.raises(FileNotFoundError, match="chapter 'second': executed notebook .* found"):
        stage({"first": good, "second": tmp_path / "nope.ipynb"}, root=small_book, out=out)
    source = tmp_path / "second.md"
    source.write_text("# not executed", encoding="utf-8")
    with pytest.raises(ValueError, match=r"chapter 'second': expected an executed \.ipynb"):
        stage({"first": good, "second": source}, root=small_book, out=out)
    assert not out.exists()


def test_stage_refuses_notebook_whose_chart_loads_from_cdn(tmp_path):
    import altair as alt
    import pandas as pd

    spec = alt.Chart(pd.DataFrame({"a": [1, 2]})).mark_bar().encode(x="a:Q")
    html = spec.to_html()  # Altair's own HTML: <script src="https://cdn.jsdelivr.net/...">
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("chart")
    cell.outputs = [nbformat.v4.new_output("display_data", data={"text/html": html})]
    nb.cells = [cell]
    path = tmp_path / "hypothesis_validity.ipynb"
    nbformat.write(nb, path)
    with pytest.raises(BookBuildError, match="charts.enable"):
        stage({"hypothesis_validity": path}, root=ROOT, out=tmp_path / "_build")
    # The offline renderer's output passes.
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": renderer_html(spec.to_dict())})
    ]
    nbformat.write(nb, path)
    stage_dir = stage({"hypothesis_validity": path}, root=ROOT, out=tmp_path / "_build")
    assert (stage_dir / "chapters" / "hypothesis_validity.ipynb").is_file()
    # the chapters are staged as executed notebooks only (their MyST sources stay behind);
    # the Markdown pages are the intro, the scorecard (written from the runs), the guides and
    # the API reference
    staged = {p.relative_to(stage_dir).as_posix() for p in stage_dir.rglob("*.md")}
    pages = {
        f"{d}/{p.name}" for d in ("api", "guides", "exercises") for p in (ROOT / d).glob("*.md")
    }
    assert "guides/scale.md" in pages and "exercises/hypothesis_validity.md" in pages
    assert staged == {"intro.md", "scorecard.md"} | pages
    assert "no verdicts in this run" in (stage_dir / "scorecard.md").read_text(encoding="utf-8")
    assert (stage_dir / ASSETS_DIR / VEGA_BUNDLE_FILENAME).is_file()
    assert (stage_dir / ASSETS_DIR / "mathjax" / "tex-chtml.js").is_file()
    assert not (stage_dir / "_static").exists()


# -------------------------------------------------------------------------------------- build
def _fake_site(monkeypatch) -> dict:
    """Replace ``build_site`` (``jupyter-book build``) by a recorder of its arguments."""
    seen = {}

    def build_site(stage_dir, html_dir, *, strict, progress):
        seen.update(stage=stage_dir, html=html_dir, strict=strict, progress=progress)
        return html_dir

    monkeypatch.setattr("synthtrust.run.book.build_site", build_site)
    return seen


def test_build_runs_the_chapters_into_their_run_folders_then_stages_and_builds(
    small_book, tmp_path, monkeypatch
):
    site = _fake_site(monkeypatch)
    calls = []

    def run_chapter(name, **kwargs):
        calls.append((name, kwargs))
        if name == "first":  # a run may return the notebook itself
            return _notebook(kwargs["out"] / "first.ipynb")
        _notebook(kwargs["out"] / f"{name}.ipynb")
        return kwargs["out"]  # or the run folder holding <name>.ipynb

    out = tmp_path / "_build"
    html = build(
        "smoke",
        out=out,
        n_jobs=2,
        dask="local",
        chapters=["third", "first", "third"],  # repeated: run once, in the order given
        root=small_book,
        strict=False,
        progress=False,
        run_chapter=run_chapter,
    )
    assert html == out / "html"
    runs = out / "runs" / "smoke"
    assert calls == [
        (
            name,
            {
                "preset": "smoke",
                "out": runs / name,
                "n_jobs": 2,
                "dask": "local",
                "progress": False,
            },
        )
        for name in ("third", "first")
    ]
    assert site == {
        "stage": out / "stage",
        "html": out / "html",
        "strict": False,
        "progress": False,
    }
    assert sorted(p.name for p in (out / "stage" / "chapters").iterdir()) == [
        "first.ipynb",
        "third.ipynb",
    ]
    assert toc_chapters(out / "stage") == ["first", "third"]


def test_build_runs_every_chapter_of_the_toc_by_default_and_one_given_by_name(
    small_book, tmp_path, monkeypatch
):
    _fake_site(monkeypatch)
    names = []

    def run_chapter(name, **kwargs):
        names.append(name)
        return _notebook(kwargs["out"] / f"{name}.ipynb")

    build(root=small_book, out=tmp_path / "a", progress=False, run_chapter=run_chapter)
    assert names == ["first", "second", "third"]  # the toc's order
    names.clear()
    build(
        chapters="second",
        root=small_book,
        out=tmp_path / "b",
        progress=False,
        run_chapter=run_chapter,
    )
    assert names == ["second"]
    assert (tmp_path / "a" / "runs" / "default" / "first" / "first.ipynb").is_file()


def test_build_ends_by_printing_each_chapters_wall_time_and_grids(
    small_book, tmp_path, monkeypatch, capsys
):
    _fake_site(monkeypatch)
    walls = {"first": 61.5, "second": 2.25}

    def run_chapter(name, **kwargs):
        _notebook(kwargs["out"] / f"{name}.ipynb")
        if name in walls:  # "third" ran without a manifest: left out of the table
            grid = {"name": f"{name}: fit", "started": 0.0, "tasks": 4, "cached": 4}
            grid |= {"from_cache": 1, "computed": 3, "wall_s": 60.0, "task_s": 119.0}
            manifest = {"wall_time_s": walls[name], "grids": [grid | {"peak_mb": 512.4}]}
            (kwargs["out"] / "manifest.json").write_text(json.dumps(manifest))
        return kwargs["out"]

    build(root=small_book, out=tmp_path / "_build", progress=True, run_chapter=run_chapter)
    err = capsys.readouterr().err
    table = err[err.index("| chapter / grid") :].splitlines()
    assert table[2:5] == [
        "| first | 61.5 | 1 | 3 / 4 | 119 | 512 |",
        "| second | 2.2 | 1 | 3 / 4 | 119 | 512 |",
        "| **total** | 63.8 | 2 | 6 / 8 | 238 | 512 |",
    ]
    assert "book done in" in table[5]


def test_a_second_build_runs_only_the_chapters_whose_inputs_changed(
    small_book, tmp_path, monkeypatch, capsys
):
    """A run folder whose manifest records the inputs digest a run would have now is reused;
    a changed notebook, preset, package file or a deleted results file reruns that chapter, and
    ``rerun=True`` every one. The fake runner writes what :func:`runner.run_chapter` writes."""
    from synthtrust.run import experiment, runner

    _fake_site(monkeypatch)
    monkeypatch.setenv("SYNTHTRUST_ROOT", str(small_book))
    for name in ("first", "second", "third"):
        (small_book / "chapters" / "params" / name).mkdir(parents=True)
        (small_book / "chapters" / "params" / name / "default.yaml").write_text("n_reps: 3\n")
        (small_book / "chapters" / f"{name}.md").write_text(f"# {name}\n")
    ran = []

    def run_chapter(name, **kwargs):
        ran.append(name)
        out = kwargs["out"]
        _notebook(out / f"{name}.ipynb")
        (out / "results").mkdir(exist_ok=True)
        (out / "results" / "table.csv").write_text("x\n1\n")
        manifest = {"chapter": name, "results": ["table.csv"]}
        manifest["inputs_digest"] = runner.run_inputs_digest(name, kwargs["preset"])
        (out / "manifest.json").write_text(json.dumps(manifest))
        return out

    def book():
        ran.clear()
        build(root=small_book, out=tmp_path / "_build", run_chapter=run_chapter, progress=True)
        return list(ran)

    assert book() == ["first", "second", "third"]
    assert book() == []
    assert "chapter 'second' is up to date, not run" in capsys.readouterr().err
    (small_book / "chapters" / "second.md").write_text("# second, edited\n")
    (small_book / "chapters" / "params" / "third" / "default.yaml").write_text("n_reps: 4\n")
    assert book() == ["second", "third"]
    (tmp_path / "_build" / "runs" / "default" / "first" / "results" / "table.csv").unlink()
    assert book() == ["first"]
    ran.clear()
    build(root=small_book, out=tmp_path / "_build", run_chapter=run_chapter, progress=False,
          rerun=True)  # fmt: skip
    assert ran == ["first", "second", "third"]
    # the package's code is an input: another digest reruns every chapter
    monkeypatch.setattr(experiment, "package_digest", lambda: "another package")
    assert book() == ["first", "second", "third"]


def test_build_refuses_a_run_without_a_notebook_and_an_empty_selection(small_book, tmp_path):
    with pytest.raises(ValueError, match=r"no chapter selected; _toc.yml lists \['first'"):
        build(chapters=[], root=small_book, run_chapter=lambda *a, **k: None, progress=False)

    def run_chapter(name, **kwargs):
        kwargs["out"].mkdir(parents=True)
        return kwargs["out"]

    with pytest.raises(FileNotFoundError, match=r"chapter 'first': the run returned .*first"):
        build(root=small_book, out=tmp_path, run_chapter=run_chapter, progress=False)


def test_build_rejects_unknown_chapter_before_running_anything():
    calls = []
    with pytest.raises(ValueError, match="not_a_chapter"):
        build(chapters=["not_a_chapter"], root=ROOT, run_chapter=calls.append, progress=False)
    assert calls == []


def test_build_names_the_chapter_whose_run_failed(tmp_path):
    def run_chapter(name, **kwargs):
        raise RuntimeError("cell 3 raised ZeroDivisionError")

    with pytest.raises(BookBuildError, match="hypothesis_validity.*ZeroDivisionError"):
        build(root=ROOT, out=tmp_path, run_chapter=run_chapter, progress=False)


def test_build_fails_loudly_on_a_missing_citation(tmp_path):
    """Strict builds turn Sphinx warnings into a BookBuildError that quotes them."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A chapter\n\nSee {cite:p}`nosuchkey2099`.")]
    (tmp_path / "run").mkdir()
    nbformat.write(nb, tmp_path / "run" / "hypothesis_validity.ipynb")
    with pytest.raises(BookBuildError, match="nosuchkey2099") as info:
        build(
            root=ROOT,
            out=tmp_path / "_build",
            run_chapter=lambda name, **kw: tmp_path / "run",
            progress=False,
            chapters=["hypothesis_validity"],
        )
    assert "jupyter-book build failed" in str(info.value)
    # Non-strict: the same book builds, with the warning only printed.
    html = build(
        root=ROOT,
        out=tmp_path / "_build",
        run_chapter=lambda name, **kw: tmp_path / "run",
        progress=False,
        strict=False,
        chapters=["hypothesis_validity"],
    )
    assert (html / "chapters" / "hypothesis_validity.html").is_file()
