"""Session fixtures shared by the test files.

``book_build`` builds the book once per pytest session on the ``smoke`` preset
(:func:`synthtrust.book.build` into a temporary ``_build`` folder): every chapter is run into
``<out>/runs/smoke/<chapter>/`` and the site goes to ``<out>/html``. ``site`` is that site
folder (used by tests/test_site.py); the chapter tests read the run folders
(``book_build.run_dir(name)``) instead of running their chapter a second time.

The chapter runs use a joblib cache inside the session's temporary folder, so the tests
always exercise the current code (never results cached in the repository's ``.cache``), and
run in the notebook's kernel without worker processes (``n_jobs=1``, faster on the smoke
preset; tests/test_study_hypothesis_validity.py checks that n_jobs does not change results).

Environment variables (as before in tests/test_site.py):

``SYNTHTRUST_SITE``
    Use an already built site instead (a site folder, or ``1`` for ``_build/html``); then
    there are no run folders of this session (``book_build.runs is None``).
``SYNTHTRUST_SITE_PLACEHOLDER=1``
    Build the site from a small placeholder notebook (never written to ``chapters/``)
    instead of the real chapters; no run folders either.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from synthtrust import book

ROOT = Path(__file__).resolve().parents[1]
SITE_PRESET = "smoke"
#: Workers of the chapter runs: on the smoke preset, starting loky workers (each importing and
#: compiling JAX for Private-PGM) costs more than it saves; results do not depend on n_jobs.
SITE_N_JOBS = 1


# ------------------------------------------------------------------------------ which chapters
def site_chapters() -> list[str]:
    """Chapters of the real book: runner.list_chapters() that are in _toc.yml (empty until
    synthtrust.runner exists, or with ``SYNTHTRUST_SITE_PLACEHOLDER``)."""
    if os.environ.get("SYNTHTRUST_SITE_PLACEHOLDER"):
        return []
    try:
        from synthtrust import runner
    except ImportError:
        return []
    listed = book.toc_chapters(ROOT)
    return [name for name in runner.list_chapters() if name in listed]


PLACEHOLDER_MARKDOWN = r"""# Hypothesis validity (placeholder)

A placeholder chapter for the site test: inline math $\alpha = 0.05$, a display equation

$$
\Pr[M(D) \in S] \le e^{\varepsilon} \Pr[M(D') \in S] + \delta ,
$$

and a citation {cite:p}`montoyaperez2024`, also cited on the front page.
"""

PLACEHOLDER_REFERENCES = """## References

```{bibliography}
:filter: docname in docnames
```
"""

PLACEHOLDER_CODE = """\
import altair as alt
import pandas as pd
from synthtrust import charts

charts.enable()
rows = []
for n in (50, 500):
    for method, base in (("MWEM", 0.30), ("Private-PGM", 0.08), ("DP-MWU", 0.05)):
        for eps in (0.1, 1.0, 10.0):
            rate = base / (1 + eps) + 0.04
            rows.append(dict(method=method, n=n, epsilon=eps, rate=rate,
                             lo=max(rate - 0.03, 0), hi=rate + 0.03))
results = pd.DataFrame(rows)
charts.error_rate_chart(results, alpha=0.05, title="Type I error (placeholder data)")
"""

PLACEHOLDER_CODE_2 = """\
alt.Chart(results).mark_bar().encode(x="method:N", y="mean(rate):Q", color="method:N")
"""


def _placeholder_runner(tmp: Path):
    """A stand-in for synthtrust.runner.run_chapter: executes a small notebook with a chart,
    math and a citation into ``tmp/<name>/<name>.ipynb``."""
    import nbformat
    from nbclient import NotebookClient

    def run_chapter(name, preset="default", out=None, n_jobs=None, dask=None, **_):
        nb = nbformat.v4.new_notebook()
        nb.cells = [
            nbformat.v4.new_markdown_cell(PLACEHOLDER_MARKDOWN),
            nbformat.v4.new_code_cell(PLACEHOLDER_CODE),
            nbformat.v4.new_code_cell(PLACEHOLDER_CODE_2),
            nbformat.v4.new_markdown_cell(PLACEHOLDER_REFERENCES),
        ]
        nb.metadata["kernelspec"] = {
            "name": "python3",
            "display_name": "Python 3",
            "language": "python",
        }
        run_dir = Path(out) if out is not None else tmp / name
        run_dir.mkdir(parents=True, exist_ok=True)
        NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(run_dir)}}
        ).execute()
        nbformat.write(nb, run_dir / f"{name}.ipynb")
        return run_dir

    return run_chapter


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
        The real chapters run in this session (empty for a placeholder or given site).
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
    if chapters:  # runs go to <out>/runs/smoke/<chapter>
        from synthtrust import runner

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
            html=html,
            preset=SITE_PRESET,
            chapters=tuple(chapters),
            runs=out / "runs" / SITE_PRESET,
        )
    placeholder = _placeholder_runner(tmp_path_factory.mktemp("runs"))
    html = book.build(
        preset=SITE_PRESET,
        out=out,
        chapters=["hypothesis_validity"],
        root=ROOT,
        progress=False,
        run_chapter=placeholder,
    )
    return BookBuild(html=html, preset=SITE_PRESET, chapters=(), runs=None)


@pytest.fixture(scope="session")
def site(book_build) -> Path:
    """The built site folder (``html/``)."""
    return book_build.html


@pytest.fixture(scope="session")
def smoke_run_of(book_build, tmp_path_factory):
    """``smoke_run_of(name)``: the chapter's smoke run folder from the session's book build, or
    (placeholder site / ``SYNTHTRUST_SITE``) a run made here once per session."""
    made: dict[str, Path] = {}

    def get(name: str) -> Path:
        run = book_build.run_dir(name)
        if run is not None:
            return run
        if name not in made:
            from synthtrust import runner

            out = tmp_path_factory.mktemp(f"smoke-{name}")
            made[name] = runner.run_chapter(name, preset="smoke", out=out / "run", n_jobs=1,
                                            progress=False, cache_dir=out / "cache")
        return made[name]

    return get
