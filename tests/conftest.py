"""Session fixtures shared by the test files.

``book_build`` builds the book once per pytest session on the ``smoke`` preset
(:func:`synthtrust.run.book.build` into a temporary ``_build`` folder): every chapter is run into
``<out>/runs/smoke/<chapter>/`` and the site goes to ``<out>/html``. ``site`` is that site
folder (used by tests/repo/test_site.py); the chapter tests read the run folders
(``book_build.run_dir(name)``) instead of running their chapter a second time.

The chapter runs use a joblib cache inside the session's temporary folder, so the tests
always exercise the current code (never results cached in the repository's ``.cache``), and
run in the notebook's kernel without worker processes (``n_jobs=1``, faster on the smoke
preset; tests/studies/test_hypothesis_validity.py checks that n_jobs does not change results).

Environment variable: ``SYNTHTRUST_SITE`` uses an already built site instead (a site folder,
or ``1`` for ``_build/html``); then there are no run folders of this session
(``book_build.runs is None``) and the chapter tests make their own smoke runs.
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from _repo import BOOK_FIXTURE, CHROMIUM, CHROMIUM_ARGS, ROOT, site_chapters

from synthtrust.run import book

SITE_PRESET = "smoke"
#: Workers of the chapter runs: on the smoke preset, starting loky workers (each importing and
#: compiling JAX for Private-PGM) costs more than it saves; results do not depend on n_jobs.
SITE_N_JOBS = 1


#: Session fixtures that build the book or drive the browser. `make test` runs pytest on two
#: workers (pytest-xdist, ``--dist loadgroup``): every test that uses one of them goes to the
#: same worker, so the book is built and the browser opened once per session.
BOOK_FIXTURES = frozenset({"book_build", "site", "smoke_run_of", "browser"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Put the tests of the session's book build in one xdist group (see BOOK_FIXTURES).

    Runs first: xdist's own hook turns the ``xdist_group`` marks into the node ids its
    ``loadgroup`` scheduler reads (``...::test_x@book``), and sees only marks made before it."""
    for item in items:
        if BOOK_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("book"))


# --------------------------------------------------------------------------------- the build
@dataclass(frozen=True)
class BookBuild:
    """What the session's book build produced.

    Attributes
    ----------
    html : Path
        The site folder (holds ``intro.html``).
    preset : str or None
        Preset the chapters ran with (None for a site given by ``SYNTHTRUST_SITE``).
    chapters : tuple of str
        The chapters run in this session (empty for a given site).
    runs : Path or None
        ``<out>/runs/<preset>`` holding one run folder per chapter, when this session ran
        the real chapters; else None.
    """

    html: Path
    preset: str | None
    chapters: tuple[str, ...]
    runs: Path | None

    def run_dir(self, name: str) -> Path | None:
        """The run folder of chapter ``name`` from this session's build, or None."""
        if self.runs is None or name not in self.chapters:
            return None
        return self.runs / name


@pytest.fixture(scope="session")
def book_build(tmp_path_factory) -> BookBuild:
    """The book, built once per session on the smoke preset (see the module docstring)."""
    env = os.environ.get("SYNTHTRUST_SITE")
    if env:
        html = ROOT / "_build" / "html" if env.lower() in ("1", "true", "yes") else Path(env)
        if not (html / "intro.html").is_file():
            pytest.fail(f"SYNTHTRUST_SITE={env!r}: no built site at {html} (run make book)")
        return BookBuild(html=html, preset=None, chapters=(), runs=None)
    out = tmp_path_factory.mktemp("_build")
    try:
        book.mathjax_source(ROOT)
    except FileNotFoundError as err:
        pytest.fail(str(err))
    chapters = site_chapters()
    if not chapters:
        pytest.fail("no chapter of runner.list_chapters() is listed in _toc.yml")
    from synthtrust.run import runner

    run_chapter = functools.partial(
        runner.run_chapter, cache_dir=tmp_path_factory.mktemp("joblib-cache")
    )
    html = book.build(
        preset=SITE_PRESET,
        out=out,
        chapters=chapters,
        n_jobs=SITE_N_JOBS,
        root=ROOT,
        progress=False,
        run_chapter=run_chapter,
    )
    return BookBuild(
        html=html, preset=SITE_PRESET, chapters=tuple(chapters), runs=out / "runs" / SITE_PRESET
    )


@pytest.fixture(scope="session")
def site(book_build) -> Path:
    """The built site folder (``html/``)."""
    return book_build.html


@pytest.fixture(scope="session")
def smoke_run_of(book_build, tmp_path_factory):
    """``smoke_run_of(name)``: the chapter's smoke run folder from the session's book build, or
    (with ``SYNTHTRUST_SITE``) a run made here once per session."""
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        run = book_build.run_dir(name)
        if run is not None:
            return run
        if name not in made:
            from synthtrust.run import runner

            out = tmp_path_factory.mktemp(f"smoke-{name}")
            made[name] = runner.run_chapter(
                name,
                preset="smoke",
                out=out / "run",
                n_jobs=1,
                progress=False,
                cache_dir=out / "cache",
            )
        return made[name]

    return get


# ------------------------------------------------------------------------- the small test book
@pytest.fixture(name="book")
def book_fixture_copy(tmp_path, monkeypatch):
    """A copy of tests/fixtures/book selected with ``SYNTHTRUST_ROOT`` (tests of the CLI and of
    the runner); named ``book`` for the tests, ``book_fixture_copy`` here so that it does not
    hide the :mod:`synthtrust.run.book` module imported above."""
    root = tmp_path / "book"
    shutil.copytree(BOOK_FIXTURE, root)
    monkeypatch.setenv("SYNTHTRUST_ROOT", str(root))
    return root


# ------------------------------------------------------------------------------- the browser
@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session (Playwright's sync API allows one instance of
    ``sync_playwright`` at a time in a process: a second one, opened while a session fixture
    holds the first, fails with "using Playwright Sync API inside the asyncio loop")."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
