"""Every chapter page names the synthtrust version, the commit and the preset that made its
numbers: ``synthtrust.run.book`` writes the line from the run's ``manifest.json``
(``synthtrust.presentation.provenance``, whose own tests are tests/presentation/test_provenance.py), the
stage hands it to the ``synthtrust._sphinx`` extension in the staged ``_config.yml``, and the
extension ends the page with it.

The first tests check the pieces without a build; the last ones read the session's smoke site
(tests/conftest.py). A site rebuilt from a results bundle names the bundle's runs:
tests/run/test_bundle.py.
"""

from __future__ import annotations

import html
import json
import re
from types import SimpleNamespace

import nbformat
import pytest
import yaml
from _repo import ROOT, site_chapters
from _repo import SAMPLE_MANIFEST as MANIFEST

import synthtrust
from synthtrust import _sphinx
from synthtrust.presentation.provenance import PROVENANCE_CLASS, provenance_line
from synthtrust.run import book

CHAPTERS = site_chapters()
LINE = re.compile(rf'<p class="{PROVENANCE_CLASS}">(.*?)</p>', re.S)


def provenance_lines(page: str) -> list[str]:
    """The provenance paragraphs of a page's HTML, as text."""
    return [html.unescape(text) for text in LINE.findall(page)]


# ---------------------------------------------------------------------------- without a build
def _app(lines: dict) -> SimpleNamespace:
    return SimpleNamespace(
        config=SimpleNamespace(synthtrust_vega_bundle="", synthtrust_provenance=lines)
    )


def test_the_extension_ends_the_named_pages_with_their_line_escaped():
    app = _app({"chapters/x": "Numbers on this page: <b>&</b> preset smoke."})
    context = {"body": "<section>the chapter</section>", "script_files": [], "css_files": []}
    _sphinx._page_context(app, "chapters/x", "page.html", context, None)
    assert context["body"] == (
        "<section>the chapter</section>\n"
        '<p class="synthtrust-provenance">Numbers on this page: &lt;b&gt;&amp;&lt;/b&gt; '
        "preset smoke.</p>\n"
    )
    assert provenance_lines(context["body"]) == ["Numbers on this page: <b>&</b> preset smoke."]
    other = {"body": "<p>intro</p>", "script_files": [], "css_files": []}
    _sphinx._page_context(app, "intro", "page.html", other, None)
    assert other["body"] == "<p>intro</p>"  # a page without a line is left alone
    no_setting = SimpleNamespace(config=SimpleNamespace(synthtrust_vega_bundle=""))
    _sphinx._page_context(no_setting, "chapters/x", "page.html", other, None)
    assert other["body"] == "<p>intro</p>"


def _chapter_run(folder, manifest) -> str:
    """A run folder with an empty executed notebook and, unless None, ``manifest``."""
    folder.mkdir(parents=True)
    notebook = folder / "hypothesis_validity.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), notebook)
    if manifest is not None:
        text = manifest if isinstance(manifest, str) else json.dumps(manifest)
        (folder / "manifest.json").write_text(text, encoding="utf-8")
    return notebook


def test_the_stage_hands_each_runs_line_to_the_extension(tmp_path):
    notebook = _chapter_run(tmp_path / "run", MANIFEST)
    stage_dir = book.stage({"hypothesis_validity": notebook}, root=ROOT, out=tmp_path / "_build")
    config = yaml.safe_load((stage_dir / "_config.yml").read_text(encoding="utf-8"))
    assert config["sphinx"]["config"][book.PROVENANCE_CONFIG] == {
        "chapters/hypothesis_validity": provenance_line(MANIFEST)
    }
    assert "synthtrust._sphinx" in config["sphinx"]["extra_extensions"]
    # a notebook without a manifest beside it gets no line; an unreadable manifest stops
    bare = _chapter_run(tmp_path / "bare", None)
    stage_dir = book.stage({"hypothesis_validity": bare}, root=ROOT, out=tmp_path / "_b2")
    config = yaml.safe_load((stage_dir / "_config.yml").read_text(encoding="utf-8"))
    assert book.PROVENANCE_CONFIG not in config["sphinx"]["config"]
    broken = _chapter_run(tmp_path / "broken", "{not json")
    with pytest.raises(book.BookBuildError, match="chapter 'hypothesis_validity': cannot read"):
        book.stage({"hypothesis_validity": broken}, root=ROOT, out=tmp_path / "_b3")


# ------------------------------------------------------------------------ the session's site
@pytest.mark.site
@pytest.mark.parametrize("name", CHAPTERS)
def test_each_chapter_page_names_the_version_commit_and_preset_of_its_run(site, book_build, name):
    page = (site / "chapters" / f"{name}.html").read_text(encoding="utf-8")
    (line,) = provenance_lines(page)
    run = book_build.run_dir(name)
    if run is None:  # SYNTHTRUST_SITE: a site built elsewhere, its runs unknown here
        assert re.fullmatch(r"Numbers on this page: synthtrust \S+, commit [0-9a-f]{7}.*", line)
        return
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    commit = manifest["git"]["commit"]
    assert re.fullmatch(r"[0-9a-f]{40}", commit), commit
    assert manifest["preset"] == "smoke" == book_build.preset
    dirty = " with uncommitted changes" if manifest["git"]["dirty"] else ""
    assert line.startswith(
        f"Numbers on this page: synthtrust {synthtrust.__version__}, commit {commit[:7]}{dirty}, "
        "preset smoke, run on "
    )
    # the line ends the page's text: after the chapter's bibliography
    assert page.index('id="references"') < page.index(PROVENANCE_CLASS)


@pytest.mark.site
def test_pages_that_are_no_chapter_carry_no_line(site):
    for page in ("intro.html", "scorecard.html", "guides/scale.html"):
        assert provenance_lines((site / page).read_text(encoding="utf-8")) == [], page
