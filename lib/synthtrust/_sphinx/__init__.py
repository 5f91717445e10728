"""A small Sphinx extension used by the book build (``sphinx: extra_extensions`` in _config.yml).

On every HTML page (event ``html-page-context``, run late):

* drops duplicate ``<script>``/``<link>`` entries. Jupyter Book 1 adds sphinx-thebe's config
  script twice (once with filename ``None``, once with ``""``), which logs
  ``Identifier 'THEBE_JS_URL' has already been declared`` on every page;
* drops the Vega bundle (config ``synthtrust_vega_bundle``, listed in ``html_js_files``) from
  pages that draw no chart, so text-only pages do not load ~0.9 MB of JavaScript;
* ends a chapter page with its provenance line (config ``synthtrust_provenance``: page name ->
  the line ``synthtrust.run.book`` wrote from the run's manifest, naming the version, commit
  and preset that made the page's numbers) as :mod:`synthtrust.presentation.provenance`
  shows it.

At the end of an HTML build it checks that the Vega bundle and the MathJax file named by
``mathjax_path`` exist in the output when they are local, so a missing asset fails the build
instead of producing blank charts or raw TeX.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sphinx.errors import ExtensionError

from synthtrust import __version__
from synthtrust.presentation.provenance import provenance_html

#: Marker that a page body draws a chart (written by ``synthtrust.presentation.charts.renderer_html``).
CHART_MARKER = "vegaEmbed("


def _filename(asset: Any) -> str:
    name = getattr(asset, "filename", asset)
    return os.fspath(name) if name else ""


def _asset_key(asset: Any) -> tuple:
    attributes = getattr(asset, "attributes", {}) or {}
    return (_filename(asset), tuple(sorted((k, str(v)) for k, v in attributes.items())))


def _dedupe(assets: list) -> list:
    seen: set[tuple] = set()
    kept = []
    for asset in assets:
        key = _asset_key(asset)
        if key in seen:
            continue
        seen.add(key)
        kept.append(asset)
    return kept


def _page_context(app, pagename: str, templatename: str, context: dict, doctree) -> None:
    bundle = app.config.synthtrust_vega_bundle
    draws_chart = CHART_MARKER in (context.get("body") or "")
    line = (getattr(app.config, "synthtrust_provenance", None) or {}).get(pagename)
    if line and "body" in context:
        context["body"] += f"\n{provenance_html(line)}\n"
    for key in ("script_files", "css_files"):
        assets = context.get(key)
        if not isinstance(assets, list):
            continue
        kept = _dedupe(assets)
        if key == "script_files" and bundle and not draws_chart:
            kept = [a for a in kept if not _filename(a).endswith(bundle)]
        # In place: Sphinx restores the list after the page (page-specific assets).
        assets[:] = kept


def _check_assets(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static = Path(app.outdir) / "_static"
    missing = []
    bundle = app.config.synthtrust_vega_bundle
    if bundle and not (static / bundle).is_file():
        missing.append(f"Vega bundle _static/{bundle}")
    mathjax = app.config.mathjax_path or ""
    if mathjax and "://" not in mathjax and not mathjax.startswith("/"):
        if not (static / mathjax).is_file():
            missing.append(f"MathJax _static/{mathjax}")
    if missing:
        raise ExtensionError(
            "synthtrust: site assets missing from the build output: "
            + ", ".join(missing)
            + " (build the book with `synthtrust book` / `make book`, which stages them)"
        )


def setup(app) -> dict[str, Any]:
    """Register the extension with Sphinx: the config value and the two event handlers.

    Adds the HTML config values ``synthtrust_vega_bundle`` (default ``"synthtrust-vega.js"``)
    and ``synthtrust_provenance`` (default ``{}``), connects the page clean-up and provenance
    line to ``html-page-context`` (priority 900, after other handlers) and the asset check to
    ``build-finished``.

    Returns
    -------
    dict
        Extension metadata: the synthtrust version, parallel read and write safe.
    """
    app.add_config_value("synthtrust_vega_bundle", "synthtrust-vega.js", "html", types=[str])
    app.add_config_value("synthtrust_provenance", {}, "html", types=[dict])
    app.connect("html-page-context", _page_context, priority=900)
    app.connect("build-finished", _check_assets)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
