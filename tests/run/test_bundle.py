"""Tests of ``synthtrust.run.bundle``, the results bundle of a book build: what it holds (each run
folder and ``bundle.json``, read back with ``tarfile`` itself), extraction to the same bytes, the
atomic write, bad bundles refused with one line that names the file (by ``read_bundle``, by
``synthtrust book --from-results`` and by ``synthtrust compare``), a bundle's chapter compared with
a run folder, a real run of the small test book bundled and compared, a small site built from a
bundle (its page names the bundle's run, and no chapter runs), and the session's smoke bundle
rebuilt into the same chapter pages (tests/conftest.py)."""

from __future__ import annotations

import filecmp
import gzip
import html
import io
import json
import re
import shutil
import subprocess
import tarfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml
from _repo import ROOT
from _run_folder import make_run, toy_results

import synthtrust
from synthtrust.cli import app as cli
from synthtrust.run import book, bundle
from synthtrust.run.compare import compare_runs


def _head() -> str:
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def toy(tmp_path):
    """A run folder of chapter ``toy`` (tests/_run_folder.py) with what a bundle leaves out: a
    lock file, a failed notebook, a hidden file in ``results/``; and its bundle."""
    run = make_run(tmp_path / "runs" / "toy", toy_results(), {"headline": "0.5", "wall": "3 s"})
    (run / ".lock").write_text("pid 1", encoding="utf-8")
    (run / "toy.failed.ipynb").write_text("{}", encoding="utf-8")
    (run / "results" / ".partial.csv").write_text("a\n", encoding="utf-8")
    path = bundle.write_bundle(
        tmp_path / "out" / bundle.bundle_name(), {"toy": run}, preset="smoke", root=ROOT
    )
    return run, path


def _disk_files(run: Path, name: str) -> set[str]:
    """What a bundle keeps of a run folder, listed from the disk."""
    kept = {f"{name}/{name}.ipynb", f"{name}/manifest.json"}
    for path in (run / "results").rglob("*"):
        if path.is_file() and not any(p.startswith(".") for p in path.relative_to(run).parts):
            kept.add(f"{name}/{path.relative_to(run).as_posix()}")
    return kept


# ---------------------------------------------------------------------------------- writing
def test_the_bundle_holds_the_run_folder_and_its_description(toy):
    run, path = toy
    assert path.name == f"results-{synthtrust.__version__}.tar.gz"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    with tarfile.open(path, "r:gz") as tar:  # the standard library's own reading
        files = {m.name for m in tar.getmembers() if m.isfile()}
        info = json.loads(tar.extractfile("bundle.json").read())
        kinds = {m.name: m.type for m in tar.getmembers()}
    assert files == {"bundle.json"} | _disk_files(run, "toy")
    assert files - {"bundle.json"} == {
        "toy/toy.ipynb",
        "toy/manifest.json",
        "toy/results/rates.csv",
        "toy/results/card.json",
        "toy/results/sub/wide.parquet",
    }  # the lock, the failed notebook and the hidden file stayed behind
    assert set(kinds.values()) <= {tarfile.REGTYPE, tarfile.DIRTYPE}
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    created = datetime.fromisoformat(info.pop("created_at"))
    assert abs(datetime.now().astimezone() - created) < timedelta(minutes=5)
    assert info == {
        "version": synthtrust.__version__,
        "commit": _head(),
        "dirty": bool(dirty.strip()),
        "preset": "smoke",
        "chapters": ["toy"],
    }
    read = bundle.read_bundle(path)
    assert (read.version, read.commit, read.preset, read.chapters) == (
        synthtrust.__version__,
        _head(),
        "smoke",
        ("toy",),
    )
    assert set(read.files) == files


def test_a_bundle_extracts_to_the_same_bytes(toy, tmp_path):
    run, path = toy
    runs = bundle.extract_bundle(path, tmp_path / "x")
    assert runs == {"toy": tmp_path / "x" / "toy"}
    extracted = {p.relative_to(tmp_path / "x").as_posix() for p in runs["toy"].rglob("*")}
    assert {p for p in extracted if (tmp_path / "x" / p).is_file()} == _disk_files(run, "toy")
    for rel in _disk_files(run, "toy"):
        original = run / rel.partition("/")[2]
        assert filecmp.cmp(original, tmp_path / "x" / rel, shallow=False), rel
    assert not (tmp_path / "x" / "bundle.json").exists()


def test_a_failed_write_leaves_the_old_bundle_as_it_was(toy, monkeypatch):
    run, path = toy
    before = path.read_bytes()

    def fail(self, name, *args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(tarfile.TarFile, "add", fail)
    with pytest.raises(OSError, match="disk full"):
        bundle.write_bundle(path, {"toy": run}, preset="default")
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_write_bundle_refuses_what_is_no_run(tmp_path):
    with pytest.raises(ValueError, match="runs must name at least one chapter run, got none"):
        bundle.write_bundle(tmp_path / "b.tar.gz", {}, preset="smoke")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"chapter 'ch': .*empty holds no ch\.ipynb"):
        bundle.write_bundle(tmp_path / "b.tar.gz", {"ch": tmp_path / "empty"}, preset="smoke")
    with pytest.raises(ValueError, match=r"chapter names must be folder names, got 'a/b'"):
        bundle.write_bundle(tmp_path / "b.tar.gz", {"a/b": tmp_path}, preset="smoke")
    assert not (tmp_path / "b.tar.gz").exists()


# ------------------------------------------------------------------------------ bad bundles
def _tar_gz(path: Path, members: dict, *, compress: bool = True) -> Path:
    """A tar (gzip-compressed unless told) of ``{name: bytes, or a TarInfo to add as is}``."""
    with tarfile.open(path, "w:gz" if compress else "w") as tar:
        for name, data in members.items():
            if isinstance(data, tarfile.TarInfo):
                tar.addfile(data)
                continue
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _description(**changes) -> bytes:
    info = {
        "version": "0.1.0",
        "commit": "0" * 40,
        "dirty": False,
        "preset": "smoke",
        "chapters": ["toy"],
        "created_at": "2026-01-01T00:00:00+00:00",
    }
    return json.dumps({k: v for k, v in {**info, **changes}.items() if v != "DROP"}).encode()


def _link(name: str, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = tarfile.SYMTYPE, target
    return info


NOTEBOOK = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
GOOD = {"bundle.json": _description(), "toy/toy.ipynb": NOTEBOOK}

#: ``name -> (how to make the file in a folder, what the one-line refusal says)``.
BAD = {
    "missing": (lambda d: d / "nope.tar.gz", "no such file"),
    "a folder": (lambda d: (d / "dir.tar.gz").mkdir() or d / "dir.tar.gz", "is not a file"),
    "text": (
        lambda d: (d / "t.tar.gz").write_text("hello") and d / "t.tar.gz",
        "not a tar.gz file",
    ),
    "plain tar": (lambda d: _tar_gz(d / "p.tar.gz", GOOD, compress=False), "not a tar.gz file"),
    "gzip of no tar": (
        lambda d: (d / "g.tar.gz").write_bytes(gzip.compress(b"x" * 600)) and d / "g.tar.gz",
        "not a tar.gz file",
    ),
    "no bundle.json": (
        lambda d: _tar_gz(d / "n.tar.gz", {"toy/toy.ipynb": NOTEBOOK}),
        "no bundle.json: not a bundle that `synthtrust book` wrote",
    ),
    "bundle.json not JSON": (
        lambda d: _tar_gz(d / "j.tar.gz", {**GOOD, "bundle.json": b"{oops"}),
        "bundle.json is not JSON",
    ),
    "bundle.json lacks keys": (
        lambda d: _tar_gz(d / "k.tar.gz", {**GOOD, "bundle.json": _description(commit="DROP")}),
        "bundle.json lacks commit",
    ),
    "no chapters": (
        lambda d: _tar_gz(d / "c.tar.gz", {"bundle.json": _description(chapters=[])}),
        "bundle.json lists no chapters (chapters: [])",
    ),
    "a chapter without its notebook": (
        lambda d: _tar_gz(
            d / "m.tar.gz",
            {"bundle.json": _description(chapters=["toy", "x"]), "toy/toy.ipynb": NOTEBOOK},
        ),
        "chapter 'x' has no x/x.ipynb",
    ),
    "a file outside the chapters": (
        lambda d: _tar_gz(d / "o.tar.gz", {**GOOD, "other/evil.sh": b"rm"}),
        "other/evil.sh is outside the chapters it lists (toy)",
    ),
    "a path that climbs out": (
        lambda d: _tar_gz(d / "u.tar.gz", {**GOOD, "toy/../../evil.sh": b"rm"}),
        "toy/../../evil.sh is outside the chapters it lists (toy)",
    ),
    "a link": (
        lambda d: _tar_gz(d / "l.tar.gz", {**GOOD, "toy/results/x": _link("toy/results/x", "/")}),
        "toy/results/x is not a regular file or folder",
    ),
}


def _truncated(folder: Path, good: Path) -> Path:
    data = good.read_bytes()
    (folder / "cut.tar.gz").write_bytes(data[: len(data) // 2])
    return folder / "cut.tar.gz"


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_bundle_is_refused_with_one_line_naming_it(case, tmp_path, capsys):
    make, problem = BAD[case]
    path = make(tmp_path)
    with pytest.raises(ValueError) as info:
        bundle.read_bundle(path)
    message = str(info.value)
    assert message.startswith(f"bundle {path}: {problem}") and "\n" not in message
    # the command line says the same in one line, exit status 2, before any work
    code = cli.main(["book", "--from-results", str(path), "--out", str(tmp_path / "site")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"synthtrust: error: bundle {path}: {problem}")
    assert err.count("\n") == 1
    assert not (tmp_path / "site").exists()


def test_a_truncated_bundle_is_refused(toy, tmp_path):
    _, good = toy
    cut = _truncated(tmp_path, good)
    with pytest.raises(ValueError, match=rf"^bundle {re.escape(str(cut))}: not a tar.gz file"):
        bundle.read_bundle(cut)
    absolute = _tar_gz(tmp_path / "a.tar.gz", {**GOOD, "/etc/evil": b"x"})
    with pytest.raises(ValueError, match="/etc/evil is outside the chapters"):
        bundle.extract_bundle(absolute, tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_the_data_filter_is_the_second_guard(tmp_path, monkeypatch):
    """With the member checks switched off, tarfile's ``data`` filter still refuses a path that
    climbs out of the destination, and the refusal is the same one line."""
    climbing = _tar_gz(tmp_path / "c.tar.gz", {**GOOD, "toy/../../evil.sh": b"rm"})
    monkeypatch.setattr(
        "synthtrust.run.bundle._check_members",
        lambda tar, chapters: [m.name for m in tar.getmembers() if m.isfile()],
    )
    with pytest.raises(ValueError) as info:
        bundle.extract_bundle(climbing, tmp_path / "x" / "y")
    assert str(info.value).startswith(f"bundle {climbing}: unsafe member (")
    assert "evil.sh" in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "evil.sh").exists() and not (tmp_path / "x" / "evil.sh").exists()


def test_a_chapter_the_toc_does_not_list_is_refused(toy, tmp_path):
    _, path = toy
    root = _small_root(tmp_path / "root")
    with pytest.raises(ValueError) as info:
        book.build_from_results(path, out=tmp_path / "site", root=root, progress=False)
    assert str(info.value) == (
        f"bundle {path}: chapter 'toy' is not in {root.resolve() / '_toc.yml'}, which lists first"
    )
    assert not (tmp_path / "site").exists()


def test_from_results_refuses_the_options_of_a_run(toy, capsys):
    _, path = toy
    code = cli.main(["book", "--from-results", str(path), "--n-jobs", "2"])
    assert code == 2
    assert capsys.readouterr().err == (
        "synthtrust: error: --from-results runs no chapter: --n-jobs, --dask and --rerun do "
        "not apply\n"
    )
    assert cli.main(["book", "--from-results", str(path), "--rerun"]) == 2
    assert "--rerun do not apply" in capsys.readouterr().err
    code = cli.main(["book", "--from-results", str(path), "--preset", "smoke"])
    assert code == 2 and "not allowed with argument" in capsys.readouterr().err


# ---------------------------------------------------------------------------------- compare
def test_a_chapter_of_a_bundle_compares_with_its_run(toy, capsys, tmp_path, monkeypatch):
    run, path = toy
    (run / "results" / ".partial.csv").unlink()  # the fixture's hidden file: not in the bundle
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    result = compare_runs(f"{path}#toy", run)
    assert result.identical
    assert result.before == f"{path}#toy (toy, smoke, 0000000)"
    assert result.equal_files == ["card.json", "rates.csv", "sub/wide.parquet"]
    assert result.equal_glued == ["headline"]
    code = cli.main(["compare", f"{path}#toy", str(run)])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[-1] == "identical"
    # a changed table: named, with its column and the rows that differ
    table = pd.read_csv(run / "results" / "rates.csv")
    table.loc[3, "rate"] = 0.5
    table.to_csv(run / "results" / "rates.csv", index=False)
    code = cli.main(["compare", f"{path}#toy", str(run)])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "  differs: rates.csv: values differ in 1 of 5 rows, columns rate" in out
    assert out.splitlines()[-1] == "NOT identical"
    assert list((tmp_path / "tmp").iterdir()) == []  # the extracted chapters are gone


def test_compare_names_what_is_wrong_with_a_bundle_argument(toy, capsys):
    run, path = toy
    with pytest.raises(ValueError) as info:
        compare_runs(path, run)
    assert str(info.value) == (
        f"before: {path} is a results bundle; name one of its chapters (toy) as {path}#CHAPTER"
    )
    with pytest.raises(ValueError, match=rf"^bundle {re.escape(str(path))}: no chapter 'nope' "):
        compare_runs(run, f"{path}#nope")
    code = cli.main(["compare", f"{path}#nope", str(run)])
    assert code == 2
    assert capsys.readouterr().err == (
        f"synthtrust: error: bundle {path}: no chapter 'nope' (it holds toy)\n"
    )


def test_a_real_run_of_the_test_book_round_trips(book, tmp_path):
    """The small test book's chapter run by the runner, bundled, compared with itself (the
    comparison reads the bundle's notebook, results and manifest)."""
    from synthtrust.run import runner

    run = runner.run_chapter(
        "tiny",
        preset="smoke",
        out=tmp_path / "run",
        n_jobs=1,
        progress=False,
        cache_dir=tmp_path / "cache",
    )
    path = bundle.write_bundle(tmp_path / "r.tar.gz", {"tiny": run}, preset="smoke", root=ROOT)
    assert set(bundle.read_bundle(path).files) == {"bundle.json"} | _disk_files(run, "tiny")
    assert {"tiny/results/draws.csv", "tiny/results/verdicts.csv"} <= set(
        bundle.read_bundle(path).files
    )
    result = compare_runs(f"{path}#tiny", run)
    assert result.identical and result.equal_files == ["draws.csv", "seen.json", "verdicts.csv"]
    commit = json.loads((run / "manifest.json").read_text())["git"]["commit"]
    assert result.before == f"{path}#tiny (tiny, smoke, {commit[:7]})"


# ------------------------------------------------------------------------ the site from one
def _small_root(root: Path) -> Path:
    """A book root of one chapter, ``first``, with a stand-in for MathJax (``make assets``)."""
    root.mkdir(parents=True)
    shutil.copy2(ROOT / "_config.yml", root / "_config.yml")
    toc = {"format": "jb-book", "root": "intro", "chapters": [{"file": "chapters/first"}]}
    (root / "_toc.yml").write_text(yaml.safe_dump(toc), encoding="utf-8")
    (root / "intro.md").write_text("# A small book\n", encoding="utf-8")
    (root / "references.bib").write_text("", encoding="utf-8")
    (root / book.MATHJAX_ES5).mkdir(parents=True)
    (root / book.MATHJAX_ES5 / book.MATHJAX_ENTRY).write_text("// MathJax", encoding="utf-8")
    return root


def _no_chapter_runs(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a chapter ran")

    monkeypatch.setattr("synthtrust.run.runner.run_chapter", refuse)
    monkeypatch.setattr("synthtrust.run.book._default_run_chapter", refuse)
    monkeypatch.setattr("papermill.execute_notebook", refuse)


def page_text(page: Path) -> str:
    """The words of an HTML page: scripts and styles dropped, tags removed, entities decoded."""
    text = page.read_text(encoding="utf-8")
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S | re.I)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def test_a_site_from_a_bundle_names_the_bundles_run_not_this_checkout(tmp_path, monkeypatch):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# First chapter\n\nThe rate is 0.05.")]
    run = tmp_path / "runs" / "first"
    (run / "results").mkdir(parents=True)
    nbformat.write(nb, run / "first.ipynb")
    (run / "results" / "table.csv").write_text("rate\n0.05\n", encoding="utf-8")
    manifest = {
        "preset": "paper",
        "git": {"commit": "feedface" * 5, "dirty": False},
        "packages": {"synthtrust": "9.9.9"},
        "end_time": "2026-01-02T03:04:05+00:00",
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    path = bundle.write_bundle(tmp_path / "r.tar.gz", {"first": run}, preset="paper", root=ROOT)
    root = _small_root(tmp_path / "root")
    _no_chapter_runs(monkeypatch)
    (tmp_path / "out" / "from-results" / "stale").mkdir(parents=True)

    html_dir = book.build_from_results(path, out=tmp_path / "out", root=root, progress=False)

    assert html_dir == tmp_path / "out" / "html"
    page = (html_dir / "chapters" / "first.html").read_text(encoding="utf-8")
    line = (
        '<p class="synthtrust-provenance">Numbers on this page: synthtrust 9.9.9, commit '
        "feedfac, preset paper, run on 2026-01-02.</p>"
    )
    assert page.count(line) == 1 and page.index("The rate is 0.05.") < page.index(line)
    assert _head()[:7] not in page_text(html_dir / "chapters" / "first.html")
    assert sorted(p.name for p in (tmp_path / "out" / "from-results").iterdir()) == ["first"]


@pytest.mark.site
@pytest.mark.slow
def test_the_smoke_bundle_rebuilds_the_same_chapter_pages(
    book_build, tmp_path, monkeypatch, capsys
):
    """The session's smoke build wrote its bundle; ``synthtrust book --from-results`` makes a
    site from it, running no chapter, whose chapter and scorecard pages say word for word what
    the session's pages say (the provenance line included: the bundle's runs)."""
    if book_build.runs is None:
        pytest.skip("SYNTHTRUST_SITE: the session built no book, so it wrote no bundle")
    path = book_build.html.parent / bundle.bundle_name()
    held = bundle.read_bundle(path)
    assert (held.preset, held.chapters) == ("smoke", book_build.chapters)
    with tarfile.open(path, "r:gz") as tar:
        for name in book_build.chapters:
            run = book_build.run_dir(name)
            files = {f for f in held.files if f.startswith(f"{name}/")}
            assert files == _disk_files(run, name), name
            for rel in files:
                data = tar.extractfile(rel).read()
                assert data == (run / rel.partition("/")[2]).read_bytes(), rel
    first = book_build.chapters[0]
    assert compare_runs(f"{path}#{first}", book_build.run_dir(first)).identical

    _no_chapter_runs(monkeypatch)
    started = time.perf_counter()
    code = cli.main(["book", "--from-results", str(path), "--out", str(tmp_path / "out")])
    seconds = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert code == 0, err[-3000:]
    site = tmp_path / "out" / "html"
    assert out == f"book: {site}\n"
    assert seconds < 600  # loosely: a site build, no chapter (about a minute here)
    for page in [f"chapters/{name}.html" for name in book_build.chapters] + ["scorecard.html"]:
        assert page_text(site / page) == page_text(book_build.html / page), page
