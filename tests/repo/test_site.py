"""The built site, opened offline in headless Chromium (docs/ARCHITECTURE.md, "Building the book
offline").

The site is built once per session on the ``smoke`` preset into a temporary ``_build`` folder
(``synthtrust.run.book.build``, the ``site`` fixture of tests/conftest.py, shared with the chapter
tests), or taken from ``$SYNTHTRUST_SITE`` (a site folder, or ``1`` for ``_build/html``).

Every page is opened from ``file://`` with every other request blocked (and recorded). A page
fails on: a console error, a page error, a failed or blocked request, a chart container
without a rendered ``<svg>``/``<canvas>`` of non-zero size, math not typeset by MathJax (or a
TeX error), or a broken image. The chapter pages are screenshotted (full page) to
``_build/screenshots/<chapter>.png``.

The first tests check the Sphinx extension (``synthtrust._sphinx``) without a browser; the
last one checks that the page checker catches a chart that falls back to Altair's CDN renderer.
The pieces of the build (``synthtrust.run.book``: toc, staged config, stage, build) are tested in
tests/test_book.py.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _repo import ROOT, site_chapters

from synthtrust import verdicts
from synthtrust.presentation import charts
from synthtrust.run import book

SCREENSHOTS = ROOT / "_build" / "screenshots"
TIMEOUT_MS = 20_000


# ------------------------------------------------------------------------------ which chapters
CHAPTERS = site_chapters()

# The site itself is built once per session by the `site` fixture of tests/conftest.py
# (smoke preset; shared with the chapter tests, which read its run folders).


@dataclass
class PageReport:
    url: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    blocked_requests: list[str] = field(default_factory=list)
    charts: list[dict] = field(default_factory=list)
    math: dict = field(default_factory=dict)
    broken_images: list[str] = field(default_factory=list)
    title: str = ""

    def problems(self) -> list[str]:
        out = [f"console error: {m}" for m in self.console_errors]
        out += [f"page error: {m}" for m in self.page_errors]
        out += [f"request tried to leave file://: {u}" for u in self.blocked_requests]
        out += [
            f"failed request: {u}"
            for u in self.failed_requests
            if not any(u.startswith(b) for b in self.blocked_requests)
        ]
        for chart in self.charts:
            if not chart["ok"]:
                out.append(f"blank chart #{chart['id']}: {chart}")
        if self.math.get("untypeset"):
            out.append(
                f"{self.math['untypeset']} of {self.math['nodes']} math nodes not "
                "typeset by MathJax"
            )
        if self.math.get("errors"):
            out.append(f"{self.math['errors']} MathJax errors (mjx-merror)")
        out += [f"broken image: {src}" for src in self.broken_images]
        return out


CHART_SELECTOR = ".synthtrust-chart, .vega-embed, [id^='altair-viz-']"

JS_CHARTS_SETTLED = """(sel) => Array.from(document.querySelectorAll(sel)).every(
    el => el.querySelector('svg, canvas, .error') || el.classList.contains('synthtrust-chart-error')
  )"""

JS_CHARTS = """(sel) => Array.from(document.querySelectorAll(sel))
  .filter(el => !el.parentElement || !el.parentElement.closest(sel))
  .map((el, i) => {
    const g = el.querySelector('svg, canvas');
    const r = g ? g.getBoundingClientRect() : {width: 0, height: 0};
    const marks = el.querySelectorAll('svg path, svg line, svg rect, svg text, svg circle').length;
    return {id: el.id || String(i), graphic: g ? g.tagName.toLowerCase() : null,
            width: r.width, height: r.height, marks: marks,
            ok: !!g && r.width > 0 && r.height > 0 && (g.tagName !== 'svg' || marks > 0),
            text: el.classList.contains('synthtrust-chart-error') ? el.textContent : ''};
  })"""

JS_MATH = """() => {
  const nodes = Array.from(document.querySelectorAll('span.math, div.math'));
  return {nodes: nodes.length,
          untypeset: nodes.filter(n => !n.querySelector('mjx-container')).length,
          containers: document.querySelectorAll('mjx-container').length,
          errors: document.querySelectorAll('mjx-merror').length};
}"""

JS_IMAGES = """() => Array.from(document.images)
  .filter(img => img.complete && img.naturalWidth === 0).map(img => img.src)"""


def check_page(browser, path: Path, screenshot: Path | None = None) -> PageReport:
    """Open ``path`` offline and collect everything that went wrong on it."""
    report = PageReport(url=path.resolve().as_uri())
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()

    def route(r):
        url = r.request.url
        if url.startswith(("file://", "data:", "blob:")):
            r.continue_()
        else:
            report.blocked_requests.append(url)
            r.abort("blockedbyclient")

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and report.console_errors.append(m.text))
    page.on("pageerror", lambda e: report.page_errors.append(str(e)))
    page.on("requestfailed", lambda r: report.failed_requests.append(f"{r.url} ({r.failure})"))
    try:
        page.goto(report.url, wait_until="load", timeout=TIMEOUT_MS)
        report.title = page.title()
        if page.evaluate("() => document.querySelectorAll('span.math, div.math').length"):
            try:
                page.wait_for_function(
                    "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                    timeout=TIMEOUT_MS,
                )
                page.evaluate("() => MathJax.startup.promise.then(() => true)")
            except Exception as err:  # reported below as untypeset math
                report.page_errors.append(f"MathJax did not start: {err}")
        try:
            page.wait_for_function(JS_CHARTS_SETTLED, arg=CHART_SELECTOR, timeout=TIMEOUT_MS)
        except Exception:
            pass  # blank charts are reported below
        page.wait_for_timeout(300)  # let vega finish its first render pass
        report.charts = page.evaluate(JS_CHARTS, CHART_SELECTOR)
        report.math = page.evaluate(JS_MATH)
        report.broken_images = page.evaluate(JS_IMAGES)
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
    finally:
        context.close()
    return report


def _fail_on(report: PageReport) -> None:
    problems = report.problems()
    assert not problems, f"{report.url}:\n" + "\n".join(problems)


# ------------------------------------------------------------------ Sphinx extension (fast)
def test_sphinx_extension_drops_duplicates_and_unused_vega_bundle():
    from types import SimpleNamespace

    from sphinx.builders.html._assets import _JavaScript

    from synthtrust import _sphinx

    thebe = "const THEBE_JS_URL = 'x'"
    scripts = [
        _JavaScript("_static/doctools.js"),
        _JavaScript(None, body=thebe),
        _JavaScript("", body=thebe),  # the duplicate Jupyter Book adds
        _JavaScript("_static/synthtrust-vega.js"),
        _JavaScript("_static/doctools.js", defer="defer"),  # different attributes: kept
    ]
    app = SimpleNamespace(config=SimpleNamespace(synthtrust_vega_bundle="synthtrust-vega.js"))
    context = {"script_files": list(scripts), "css_files": [], "body": "<p>text</p>"}
    _sphinx._page_context(app, "intro", "page.html", context, None)
    assert context["script_files"] == [scripts[0], scripts[1], scripts[4]]
    context = {"script_files": list(scripts), "css_files": [], "body": "vegaEmbed(spec)"}
    _sphinx._page_context(app, "chapters/x", "page.html", context, None)
    assert context["script_files"] == [scripts[0], scripts[1], scripts[3], scripts[4]]


def test_sphinx_extension_refuses_a_site_without_its_assets(tmp_path):
    from types import SimpleNamespace

    from sphinx.errors import ExtensionError

    from synthtrust import _sphinx

    # the Sphinx extension refuses to finish a build whose output lacks the assets
    (tmp_path / "out" / "_static" / "mathjax").mkdir(parents=True)
    app = SimpleNamespace(
        outdir=str(tmp_path / "out"),
        builder=SimpleNamespace(format="html"),
        config=SimpleNamespace(
            synthtrust_vega_bundle=charts.VEGA_BUNDLE_FILENAME, mathjax_path=book.MATHJAX_PATH
        ),
    )
    with pytest.raises(ExtensionError, match="Vega bundle.*MathJax"):
        _sphinx._check_assets(app, None)
    charts.write_vega_bundle(tmp_path / "out" / "_static")
    (tmp_path / "out" / "_static" / book.MATHJAX_PATH).write_text("//", encoding="utf-8")
    _sphinx._check_assets(app, None)  # all there: no error


# ------------------------------------------------------------------------------ the built site
@pytest.mark.site
def test_the_books_tests_share_one_worker(site, request):
    """``make test`` runs two pytest-xdist workers with ``--dist loadgroup``: every test of the
    session's book is in the group ``book`` (tests/conftest.py), so one worker builds it, once.
    xdist names the group in the test's id; a pytest that drops it (9.2) has both build it."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not an xdist worker with --dist loadgroup (make test runs one)")
    assert request.node.nodeid.endswith("@book")


def test_built_site_layout(site):
    assert (site / "intro.html").is_file()
    assert (site / "_static" / charts.VEGA_BUNDLE_FILENAME).is_file()
    assert (site / "_static" / "mathjax" / "tex-chtml.js").is_file()
    for name in CHAPTERS:
        page = (site / "chapters" / f"{name}.html").read_text(encoding="utf-8")
        assert "vegaEmbed(" in page, f"chapter {name} draws no chart"
        assert charts.VEGA_BUNDLE_FILENAME in page
        # citations resolve to the chapter's own bibliography (same page)
        cited = re.findall(
            r'class="bibtex-citation"[^>]*>[^<]*<a class="reference internal" '
            r'href="([^"]+)"',
            page,
        )
        assert cited, f"chapter {name} cites nothing"
        assert all(href.startswith("#") for href in cited), cited
    intro = (site / "intro.html").read_text(encoding="utf-8")
    assert intro.count("THEBE_JS_URL") <= 1
    assert "cdn.jsdelivr.net" not in intro
    assert f'href="chapters/{CHAPTERS[0]}.html"' in intro or f"chapters/{CHAPTERS[0]}.html" in intro


@pytest.mark.site
def test_intro_page_offline(site, browser):
    report = check_page(browser, site / "intro.html")
    _fail_on(report)
    assert report.math["nodes"] > 0 and report.math["containers"] >= report.math["nodes"]
    assert "differentially private" in report.title.lower() or report.title


@pytest.mark.site
def test_the_scale_guide_page_offline(site, browser):
    page = site / "guides" / "scale.html"
    report = check_page(browser, page)
    _fail_on(report)
    words = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))
    words = re.sub(r"\s+", " ", words)
    assert "Running at the published scale" in words
    assert "--estimate" in words and "dask worker tcp://HEAD:8786" in words
    for chapter in CHAPTERS:  # a measured cost row per chapter: tasks, core-hours, memory
        assert re.search(rf"{chapter} [\d,]+ (≥ )?[\d.]+ [\d,]+ MB", words), chapter


@pytest.mark.site
def test_the_scorecard_page_offline(site, browser, book_build):
    """Every chapter's verdicts on one page: a counts row per chapter, a row per finding with
    its verdict, and links that lead to the chapters' sections."""
    page = site / "scorecard.html"
    _fail_on(check_page(browser, page))
    text = page.read_text(encoding="utf-8")
    words = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text)))
    assert "Scorecard: does each paper" in words and "finding hold?" in words
    shown = dict.fromkeys(verdicts.VERDICTS, 0)
    order = [name for name in book.toc_chapters(ROOT) if name in CHAPTERS]
    glance = text.index("At a glance")  # the counts table (the sidebar lists the pages too)
    links = [text.index(f'href="chapters/{name}.html"', glance) for name in order]
    assert links == sorted(links), "the chapters are not in the book's order"
    for name in CHAPTERS:
        assert f'href="chapters/{name}.html#' in text, f"no link into chapter {name}"
        if book_build.run_dir(name) is not None:
            table = verdicts.read_verdicts(book_build.run_dir(name) / "results")
            names = (r.finding.replace("_", "_<wbr>") for r in table.itertuples())
            assert all(f"<code>{name}</code>" in text for name in names)
            for verdict in verdicts.VERDICTS:
                shown[verdict] += int((table.verdict == verdict).sum())
    if book_build.runs is not None:
        for verdict, count in shown.items():
            links = text.count(f'std-ref">{verdict}</span>') + text.count(
                f'std-doc">{verdict}</span>'
            )
            assert links == count, verdict


@pytest.mark.site
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_page_offline(site, browser, name):
    report = check_page(
        browser, site / "chapters" / f"{name}.html", screenshot=SCREENSHOTS / f"{name}.png"
    )
    _fail_on(report)
    assert report.charts, f"chapter {name}: no chart on the page"
    assert all(c["graphic"] == "svg" for c in report.charts)
    assert (SCREENSHOTS / f"{name}.png").stat().st_size > 10_000


@pytest.mark.site
@pytest.mark.parametrize("name", CHAPTERS)
def test_chapter_pages_offer_their_notebook_for_download(site, name):
    page = (site / "chapters" / f"{name}.html").read_text(encoding="utf-8")
    links = re.findall(rf'href="([^"]*_downloads/[^"]*/{name}\.ipynb)"', page)
    assert links, f"chapter {name}: no download link of {name}.ipynb in the page"
    assert (site / "chapters" / links[0]).resolve().is_file()


@pytest.mark.site
@pytest.mark.slow
def test_a_downloaded_notebook_runs_on_its_own(site, tmp_path):
    """The notebook a reader downloads (here chapter 3's, on the smoke preset) runs outside the
    build: its injected parameters keep the preset's values but none of the build machine's
    folders, and it writes its results next to where it runs."""
    import nbformat
    from nbclient import NotebookClient

    name = "evaluation_protocols"
    nb = nbformat.read(site / "_sources" / "chapters" / f"{name}.ipynb", as_version=4)
    (injected,) = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert "n_reps = 2" in injected.source
    assert not re.search(r"^(results_dir|cache_dir|n_jobs|dask) = ", injected.source, re.M)
    work = tmp_path / "reader"
    work.mkdir()
    client = NotebookClient(nb, timeout=900, resources={"metadata": {"path": str(work)}})
    client.execute()
    results = tmp_path / "_build" / "runs" / "interactive" / name / "results"
    assert (results / "verdicts.csv").is_file()


@pytest.mark.site
def test_checker_catches_cdn_chart_and_missing_bundle(browser, tmp_path):
    """The page checker is not blind: a chart from Altair's CDN renderer is blank offline, and
    an offline chart without the bundle shows an error."""
    import altair as alt
    import pandas as pd

    chart = alt.Chart(pd.DataFrame({"a": [1, 2, 3]})).mark_bar().encode(x="a:Q")
    with alt.renderers.enable("html"):  # what a notebook gets without charts.enable()
        html = chart._repr_mimebundle_()["text/html"]
    page = tmp_path / "cdn.html"
    page.write_text(f"<html><body>{html}</body></html>", encoding="utf-8")
    report = check_page(browser, page)
    assert any("cdn.jsdelivr.net" in u for u in report.blocked_requests)
    assert report.charts and not report.charts[0]["ok"]

    page = tmp_path / "nobundle.html"
    page.write_text("<html><body>" + charts.to_html(chart) + "</body></html>", encoding="utf-8")
    report = check_page(browser, page)
    assert any("vegaEmbed is not defined" in m for m in report.console_errors)
    assert report.charts and not report.charts[0]["ok"]

    bundle = tmp_path / charts.VEGA_BUNDLE_FILENAME
    charts.write_vega_bundle(bundle)
    page = tmp_path / "ok.html"
    page.write_text(
        f'<html><head><script src="{bundle.name}"></script></head><body>'
        + charts.to_html(chart)
        + "</body></html>",
        encoding="utf-8",
    )
    report = check_page(browser, page)
    _fail_on(report)
    assert report.charts and report.charts[0]["ok"] and report.charts[0]["marks"] > 3


def test_vega_bundle_survives_sphinx_global_underscore(tmp_path):
    """The Vega bundle's IIFE wrapper, checked with node: after a script that declares a global
    ``const _`` (as Sphinx's pages do), the wrapped bundle still defines vegaEmbed; the raw one
    fails."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not installed")
    harness = tmp_path / "harness.js"
    harness.write_text(
        "const vm = require('vm'); const fs = require('fs');\n"
        "globalThis.window = globalThis; globalThis.self = globalThis;\n"
        "vm.runInThisContext('const _ = 1;');\n"
        "try { vm.runInThisContext(fs.readFileSync(process.argv[2], 'utf8'));\n"
        "  console.log(JSON.stringify({ok: true, vegaEmbed: typeof vegaEmbed}));\n"
        "} catch (e) { console.log(JSON.stringify({ok: false, error: String(e)})); }\n",
        encoding="utf-8",
    )
    import vl_convert

    wrapped = charts.write_vega_bundle(tmp_path / "wrapped.js")
    raw = tmp_path / "raw.js"
    raw.write_text(vl_convert.javascript_bundle(), encoding="utf-8")

    def run(path):
        out = subprocess.run(
            [node, str(harness), str(path)], capture_output=True, text=True, timeout=60
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert run(wrapped) == {"ok": True, "vegaEmbed": "function"}
    result = run(raw)
    assert result["ok"] is False and "'_' has already been declared" in result["error"]


#: The API reference pages (api/*.md) and a name each must document (autodoc, numpydoc).
API_PAGES = {
    "privacy": "synthtrust.privacy.mechanisms.laplace",
    "synthesizers": "synthtrust.synthesizers.PrivatePGM",
    "hypothesis": "synthtrust.hypothesis.dp_mannwhitneyu",
    "fidelity": "synthtrust.fidelity.holdout_report",
    "report": "synthtrust.presentation.report.render_holdout_html",
    "audit": "synthtrust.audit.GeneratorCard",
    "dp_audit": "synthtrust.dp_audit.dp_audit",
    "importance": "synthtrust.importance.rank_biased_overlap",
    "protocols": "synthtrust.protocols.protocol_b",
    "experiment": "synthtrust.run.experiment.run_grid",
    "verdicts": "synthtrust.verdicts.finding",
    "binomial": "synthtrust.binomial.clopper_pearson",
    "datasets": "synthtrust.datasets.load",
    "domain": "synthtrust.domain.Domain",
    "charts": "synthtrust.presentation.charts.error_rate_chart",
}


@pytest.mark.site
def test_api_reference_pages_document_the_public_modules(site):
    names = sorted(p.stem for p in (ROOT / "api").glob("*.md") if p.stem != "index")
    assert names == sorted(API_PAGES)
    for page, name in API_PAGES.items():
        html = (site / "api" / f"{page}.html").read_text(encoding="utf-8")
        assert f'id="{name}"' in html, f"api/{page}: {name} is not documented"
        # numpydoc sections became fields (Parameters / Returns), not literal text
        assert "Parameters" in html and "----------" not in html, page
