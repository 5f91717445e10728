"""The book's Altair theme, its offline renderer, and the chart kinds the chapters use.

Why a renderer of our own
-------------------------
Altair's default HTML output loads Vega, Vega-Lite and Vega-Embed from a CDN, so a chart never
appears on a site read without network (``docs/ARCHITECTURE.md``, "Building the book offline"). The
``"synthtrust"`` renderer registered here emits a ``<div>`` and an inline script that only calls
``vegaEmbed(...)``; the site serves the libraries itself as one file (:func:`vega_bundle_js`,
the ``vl-convert`` bundle wrapped in an IIFE that exposes ``window.vegaEmbed``). The HTML contains
no URL at all (the spec's ``$schema`` is dropped; Vega-Embed gets ``mode="vega-lite"`` instead).

If the bundle is missing, the chart's ``<div>`` shows a message and the script writes a
``console.error`` (which the site test turns into a failure) instead of failing silently.

Typical use at the top of a chapter notebook::

    from synthtrust.presentation import charts
    charts.enable()                      # theme + offline renderer
    charts.error_rate_chart(results_df, alpha=0.05, title="Type I error of the MW U test")

In an interactive Jupyter session (where no bundle is loaded) call
``alt.renderers.enable("default")`` after :func:`enable` to see charts from the CDN.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import numbers
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from synthtrust._format import number, percent
from synthtrust._result import python_scalar
from synthtrust._validation import check_column

__all__ = [
    "METHOD_COLORS",
    "METHOD_LABELS",
    "RENDERER_NAME",
    "THEME_NAME",
    "VEGA_BUNDLE_FILENAME",
    "enable",
    "error_rate_chart",
    "method_color",
    "method_key",
    "method_scale",
    "number",
    "offline_renderer",
    "percent",
    "register",
    "renderer_html",
    "theme",
    "to_html",
    "vega_bundle_js",
    "write_vega_bundle",
]

THEME_NAME = "synthtrust"
RENDERER_NAME = "synthtrust"
#: File name under which the book serves :func:`vega_bundle_js` (in its static assets).
VEGA_BUNDLE_FILENAME = "synthtrust-vega.js"

FONT = "'Source Sans Pro', 'Segoe UI', 'Helvetica Neue', Helvetica, Arial, sans-serif"

#: One colour per DP method (and baseline), the same in every chapter. Keys are
#: :func:`method_key` forms; colours are from the Okabe-Ito and Paul Tol colour-blind-safe sets.
METHOD_COLORS: dict[str, str] = {
    "real": "#000000",  # the original data / non-private reference
    "dp_mwu": "#D55E00",  # DP Mann-Whitney U (Couch et al. 2019): a DP test, not a synthesizer
    "perturbed_histogram": "#0072B2",
    "smoothed_histogram": "#56B4E9",
    "mwem": "#E69F00",
    "private_pgm": "#009E73",
    "mst": "#117733",
    "aim": "#44AA99",
    "mwem_pgm": "#DDCC77",
    "privbayes": "#882255",
    "gan": "#CC79A7",
    "pategan": "#AA4499",
    "ipf": "#332288",
    "independent_marginals": "#999999",
    "column_resampling": "#B07AA1",
    "random_permutation": "#9C755F",
    "subsample": "#BAB0AC",
    "flip": "#6F6F6F",
}

# Other spellings of the same methods (after normalisation by `_normalise`).
_ALIASES: dict[str, str] = {
    "original": "real",
    "real_data": "real",
    "non_private": "real",
    "nonprivate": "real",
    "no_dp": "real",
    "dpmwu": "dp_mwu",
    "dp_mw": "dp_mwu",
    "dp_mw_u": "dp_mwu",
    "dp_mann_whitney_u": "dp_mwu",
    "dp_mann_whitney": "dp_mwu",
    "dp_mw_u_test": "dp_mwu",
    "real_data_non_dp": "real",
    "dp_perturbed_histogram": "perturbed_histogram",
    "perturbedhistogram": "perturbed_histogram",
    "perturbed_hist": "perturbed_histogram",
    "dp_smoothed_histogram": "smoothed_histogram",
    "smoothedhistogram": "smoothed_histogram",
    "smoothed_hist": "smoothed_histogram",
    "privatepgm": "private_pgm",
    "pgm": "private_pgm",
    "mwempgm": "mwem_pgm",
    "gswgan": "gan",
    "gs_wgan": "gan",
    "dp_gan": "gan",
    "dp_gan_gs_wgan": "gan",
    "dpgan": "gan",
    "pate_gan": "pategan",
    "independent": "independent_marginals",
    "independentmarginals": "independent_marginals",
    "columnresampling": "column_resampling",
    "randompermutation": "random_permutation",
}

#: How the chapters name the methods of their tables and legends (keys as in the results).
METHOD_LABELS: dict[str, str] = {
    "real": "Real data (non-DP)",
    "dp_mwu": "DP-MW U test",
    "perturbed_histogram": "DP perturbed histogram",
    "smoothed_histogram": "DP smoothed histogram",
    "private_pgm": "Private-PGM",
    "mwem": "MWEM",
    "dp_gan": "DP GAN (GS-WGAN)",
}


# Colours for methods that are not in METHOD_COLORS (cycled, in order of appearance).
_FALLBACK_COLORS = ["#4E79A7", "#F28E2B", "#E15759", "#76B7B2", "#59A14F", "#EDC948", "#FF9DA7"]

_ORDER = {key: i for i, key in enumerate(METHOD_COLORS)}


def _normalise(name: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", str(name).strip().lower()).strip("_")


def method_key(name: str) -> str:
    """Canonical key of a method name: ``"Private-PGM"``, ``"private_pgm"`` -> ``"private_pgm"``.

    Unknown names are returned normalised (lower case, runs of other characters as ``_``).
    """
    key = _normalise(name)
    return _ALIASES.get(key, key)


def method_color(name: str) -> str | None:
    """The book's colour (hex string) of a method, or ``None`` if the method has none."""
    return METHOD_COLORS.get(method_key(name))


def method_scale(methods: Iterable[str]) -> alt.Scale:
    """An ``alt.Scale`` mapping each method name (as spelled in the data) to its book colour.

    Known methods come first in the book's fixed order, unknown ones after, in order of
    appearance, with colours from a fallback palette.
    """
    names = list(dict.fromkeys(str(m) for m in methods))
    known = sorted((m for m in names if method_color(m)), key=lambda m: _ORDER[method_key(m)])
    unknown = [m for m in names if not method_color(m)]
    colors = [method_color(m) for m in known]
    colors += [_FALLBACK_COLORS[i % len(_FALLBACK_COLORS)] for i in range(len(unknown))]
    return alt.Scale(domain=known + unknown, range=colors)


# --------------------------------------------------------------------------------------- theme
def theme() -> dict[str, Any]:
    """The book's Altair theme: readable fonts and sizes, light grid, the method palette."""
    axis = {
        "labelFont": FONT,
        "titleFont": FONT,
        "labelFontSize": 12,
        "titleFontSize": 13,
        "titleFontWeight": "normal",
        "titleColor": "#333333",
        "labelColor": "#333333",
        "gridColor": "#E6E6E6",
        "domainColor": "#888888",
        "tickColor": "#888888",
    }
    return {
        "config": {
            "font": FONT,
            "background": "white",
            "padding": 8,
            "view": {"continuousWidth": 260, "continuousHeight": 200, "stroke": "#DDDDDD"},
            "axis": axis,
            "legend": {
                "labelFont": FONT,
                "titleFont": FONT,
                "labelFontSize": 12,
                "titleFontSize": 13,
                "titleFontWeight": "normal",
                "symbolSize": 90,
                "orient": "bottom",  # below the panels: faceted charts then fit a book page
                "direction": "horizontal",
                "columns": 3,
            },
            "header": {
                "labelFont": FONT,
                "titleFont": FONT,
                "labelFontSize": 13,
                "titleFontSize": 13,
                "titleFontWeight": "normal",
            },
            "title": {
                "font": FONT,
                "fontSize": 16,
                "fontWeight": "normal",
                "anchor": "start",
                "subtitleFont": FONT,
                "subtitleFontSize": 13,
                "subtitleColor": "#555555",
            },
            "range": {"category": list(METHOD_COLORS.values())[1:] + _FALLBACK_COLORS},
            "line": {"strokeWidth": 2},
            "point": {"size": 45, "filled": True},
            "rule": {"color": "#444444"},
            "text": {"font": FONT, "fontSize": 12},
        }
    }


# ------------------------------------------------------------------------------------ renderer
_counter = itertools.count()

_DEFAULT_EMBED_OPTIONS: dict[str, Any] = {
    "mode": "vega-lite",
    "renderer": "svg",
    # The editor/source actions open vega.github.io: not available offline.
    "actions": {"export": True, "source": False, "compiled": False, "editor": False},
}

_SCRIPT = """<div id="{div_id}" class="synthtrust-chart"></div>
<script type="text/javascript">
(function () {{
  var id = "{div_id}";
  var spec = {spec};
  var opt = {options};
  function fail(msg) {{
    var el = document.getElementById(id);
    if (el) {{
      el.textContent = "Chart not shown: " + msg;
      el.className += " synthtrust-chart-error";
    }}
    console.error("synthtrust chart " + id + ": " + msg);
  }}
  function draw() {{
    if (typeof window.vegaEmbed !== "function") {{
      fail("vegaEmbed is not defined (the site must serve {bundle})");
      return;
    }}
    window.vegaEmbed("#" + id, spec, opt).catch(function (err) {{ fail(String(err)); }});
  }}
  if (typeof window.vegaEmbed === "function" || document.readyState === "complete") {{
    draw();
  }} else {{
    window.addEventListener("load", draw);
  }}
}})();
</script>"""


def _script_json(obj: Any) -> str:
    """JSON safe to place inside an HTML ``<script>`` element."""
    text = json.dumps(obj, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c")  # no "</script>" or "<!--" inside the script


def renderer_html(
    spec: Mapping[str, Any],
    *,
    embed_options: Mapping[str, Any] | None = None,
    div_id: str | None = None,
) -> str:
    """HTML (a ``<div>`` and an inline ``<script>``) that draws a Vega-Lite ``spec`` offline.

    The script only calls ``window.vegaEmbed``; the page must load :func:`vega_bundle_js`.
    The spec's ``$schema`` URL is dropped so that the HTML contains no URL.

    Parameters
    ----------
    spec : mapping
        A Vega-Lite specification (``chart.to_dict()``).
    embed_options : mapping, optional
        Vega-Embed options merged over the defaults (``renderer="svg"``, offline actions only).
    div_id : str, optional
        Id of the chart's ``<div>``; by default derived from the spec and a counter (unique
        within one Python process).

    Raises
    ------
    TypeError
        If ``spec`` is not a mapping.
    ValueError
        If ``spec`` contains NaN or infinity (not valid JSON), or ``div_id`` is not a valid id.
    """
    if not isinstance(spec, Mapping):
        raise TypeError(f"spec must be a mapping (a Vega-Lite dict), got {type(spec).__name__}")
    spec = {k: v for k, v in spec.items() if k != "$schema"}
    options = dict(_DEFAULT_EMBED_OPTIONS)
    usermeta = spec.pop("usermeta", None)
    if isinstance(usermeta, Mapping):  # Altair's chart.display(...) puts embed options here
        options.update(usermeta.get("embedOptions", {}))
    options.update(embed_options or {})
    options["mode"] = "vega-lite"
    try:
        spec_json = _script_json(spec)
    except ValueError as err:
        raise ValueError(f"spec is not valid JSON (NaN or infinity in the data?): {err}") from err
    if div_id is None:
        digest = hashlib.sha1(spec_json.encode()).hexdigest()[:10]
        div_id = f"synthtrust-chart-{digest}-{next(_counter)}"
    elif not re.fullmatch(r"[A-Za-z][-A-Za-z0-9_]*", div_id):
        raise ValueError(f"div_id must be a letter followed by [-A-Za-z0-9_], got {div_id!r}")
    return _SCRIPT.format(
        div_id=div_id,
        spec=spec_json,
        options=_script_json(options),
        bundle=VEGA_BUNDLE_FILENAME,
    )


def offline_renderer(spec: dict, **metadata: Any) -> dict[str, str]:
    """Altair renderer ``"synthtrust"``: a MIME bundle with the offline HTML and a text form.

    ``metadata`` may hold ``embed_options`` (as passed to ``alt.renderers.enable``).
    """
    html = renderer_html(spec, embed_options=metadata.get("embed_options"))
    return {"text/html": html, "text/plain": "<Vega-Lite chart (synthtrust offline renderer)>"}


def to_html(chart: alt.TopLevelMixin, **embed_options: Any) -> str:
    """The offline HTML of one chart (what the renderer puts into a notebook output)."""
    return renderer_html(chart.to_dict(), embed_options=embed_options or None)


def _vl_version() -> str | None:
    match = re.match(r"v?(\d+)\.(\d+)", alt.SCHEMA_VERSION)
    return f"v{match.group(1)}.{match.group(2)}" if match else None


def vega_bundle_js() -> str:
    """Vega, Vega-Lite and Vega-Embed in one script, as the site serves them.

    This is ``vl_convert.javascript_bundle()`` for Altair's Vega-Lite version, wrapped in an
    IIFE: unwrapped, its top-level ``const _`` clashes with Sphinx's global ``_`` and the whole
    script fails (``tests/repo/test_site.py`` checks both with node). The bundle itself assigns
    ``window.vegaEmbed``, ``window.vegaLite`` and ``window.vega``.
    """
    import vl_convert

    try:
        bundle = vl_convert.javascript_bundle(vl_version=_vl_version())
    except ValueError:  # Altair newer than vl-convert: take vl-convert's latest
        bundle = vl_convert.javascript_bundle()
    return (
        f"/* Vega {vl_convert.get_vega_version()}, Vega-Lite {alt.SCHEMA_VERSION}, Vega-Embed:"
        " bundled by vl-convert-python, wrapped for synthtrust */\n"
        "(function () {\n" + bundle + "\n})();\n"
    )


def write_vega_bundle(path: str | Path) -> Path:
    """Write :func:`vega_bundle_js` to ``path`` (a file, or a directory to hold
    :data:`VEGA_BUNDLE_FILENAME`) and return the file's path."""
    path = Path(path)
    if path.is_dir():
        path = path / VEGA_BUNDLE_FILENAME
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(vega_bundle_js(), encoding="utf-8")
    return path


def register() -> None:
    """Register (without enabling) the ``"synthtrust"`` theme and renderer. Idempotent."""
    if THEME_NAME not in alt.theme.names():
        alt.theme.register(THEME_NAME, enable=False)(theme)
    if RENDERER_NAME not in alt.renderers.names():
        alt.renderers.register(RENDERER_NAME, offline_renderer)


def enable(*, renderer: bool = True, theme: bool = True) -> None:
    """Use the book's theme and offline renderer in this Python session.

    Call it at the top of every chapter notebook (papermill and the book both run the
    notebook's kernel with the package installed; the renderer lives in the package, not in a
    file beside the notebook, because the kernel's working directory differs between papermill
    and the book build).
    """
    register()
    if theme:
        alt.theme.enable(THEME_NAME)
    if renderer:
        alt.renderers.enable(RENDERER_NAME)


register()


# -------------------------------------------------------------------------------- chart kinds
_TITLES = {
    "epsilon": "privacy budget ε",
    "eps": "privacy budget ε",
    "n": "original size n",
    "m": "synthetic size m",
    "method": "method",
    "rate": "proportion",
}


def _title(column: str) -> str:
    return _TITLES.get(column, column.replace("_", " "))


def error_rate_chart(
    df: pd.DataFrame,
    x: str = "epsilon",
    y: str = "rate",
    color: str = "method",
    facet_col: str | None = "n",
    facet_row: str | None = None,
    alpha: float | None = 0.05,
    title: str | None = None,
    *,
    lo: str = "lo",
    hi: str = "hi",
    y_title: str = "error proportion",
    width: int = 170,
    height: int = 150,
    columns: int | None = 3,
) -> alt.TopLevelMixin:
    """Line + point chart of an error proportion against ε (log axis), faceted.

    One row of ``df`` is one (method, facet cell, ε) with its proportion, e.g. the Type I error
    of a test over the replicates (Montoya Perez et al. 2024, Figs. 4-8). If ``df`` has the
    columns ``lo`` and ``hi`` (a 95 % binomial interval of the proportion), each point gets an
    error bar and the tooltip shows the interval. A dashed rule marks the significance level
    ``alpha``. Clicking a legend entry highlights one method.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy results; columns ``x`` (> 0), ``y`` (in [0, 1]), ``color`` and the facet columns.
    x, y, color : str
        Column names of ε, of the proportion, and of the method.
    facet_col, facet_row : str or None
        Columns to facet by (ordinal). ``None``: no faceting along that direction.
    alpha : float or None
        Significance level drawn as a horizontal rule (``None``: no rule).
    title : str, optional
        Chart title.
    lo, hi : str
        Names of the interval columns (used only if both exist).
    y_title : str
        Title of the y axis.
    width, height : int
        Size of one facet cell in pixels.
    columns : int or None
        Without ``facet_row``, wrap the ``facet_col`` panels after this many columns so wide
        grids fit the page (``None``: one row).

    Returns
    -------
    altair.FacetChart or altair.LayerChart (without facets)

    Raises
    ------
    TypeError
        If ``df`` is not a DataFrame or a column name is not a string.
    ValueError
        If a column is missing, ``df`` is empty, ``x`` is not > 0 and finite (log scale),
        ``y`` is outside [0, 1], or ``alpha`` is not in (0, 1).
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    if df.empty:
        raise ValueError("df is empty: nothing to plot")
    for param, column in (("x", x), ("y", y), ("color", color)):
        check_column(df, column, param)
    facets = [c for c in (facet_col, facet_row) if c is not None]
    for param, column in (("facet_col", facet_col), ("facet_row", facet_row)):
        if column is not None:
            check_column(df, column, param)
    if alpha is not None:
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise TypeError(f"alpha must be a real number or None, got {type(alpha).__name__}")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be in the open interval (0, 1), got {alpha!r}")
    xs = pd.to_numeric(df[x], errors="coerce").astype(float)
    bad_x = ~(np.isfinite(xs) & (xs > 0))
    if bad_x.any():
        raise ValueError(
            f"column {x!r} must hold finite numbers > 0 (log scale), got {python_scalar(df[x][bad_x].iloc[0])!r}"
        )
    ys = pd.to_numeric(df[y], errors="coerce").astype(float)
    bad_y = ~(np.isfinite(ys) & (ys >= 0) & (ys <= 1))
    if bad_y.any():
        raise ValueError(
            f"column {y!r} must hold proportions in [0, 1], got {python_scalar(df[y][bad_y].iloc[0])!r}"
        )
    has_interval = lo in df.columns and hi in df.columns

    used = [color, x, y, *facets] + ([lo, hi] if has_interval else [])
    data = df.loc[:, list(dict.fromkeys(used))].copy()
    data[x] = xs
    data[y] = ys
    data[color] = data[color].astype(str)

    eps_values = sorted(data[x].unique())
    logs = np.log10(np.asarray(eps_values, dtype=float))
    span = logs[-1] - logs[0] if len(logs) > 1 else 0.0
    # ticks closer than 12 % of the axis (e.g. 5 and 10 on 0.01..10) would print as "510"
    crowded = span > 0 and float(np.min(np.diff(logs))) < 0.12 * span
    x_axis = (
        alt.Axis(
            format="~g", values=eps_values, labelAngle=-45 if crowded else 0, labelOverlap=False
        )
        if len(eps_values) <= 12
        else alt.Axis(format="~g")
    )
    x_enc = alt.X(f"{x}:Q", scale=alt.Scale(type="log"), axis=x_axis, title=_title(x))
    y_enc = alt.Y(f"{y}:Q", title=y_title, scale=alt.Scale(zero=True))
    legend_pick = alt.selection_point(fields=[color], bind="legend", name="method_pick")
    color_enc = alt.Color(
        f"{color}:N", scale=method_scale(data[color]), title=_title(color), legend=alt.Legend()
    )
    opacity = alt.condition(legend_pick, alt.value(1.0), alt.value(0.15))

    tooltip = [alt.Tooltip(f"{color}:N", title=_title(color))]
    tooltip += [alt.Tooltip(f"{c}:O", title=_title(c)) for c in facets]
    tooltip += [
        alt.Tooltip(f"{x}:Q", title="ε" if x in ("epsilon", "eps") else _title(x), format="~g"),
        alt.Tooltip(f"{y}:Q", title=_title(y), format=".3f"),
    ]
    if has_interval:
        tooltip += [
            alt.Tooltip(f"{lo}:Q", title="95% CI low", format=".3f"),
            alt.Tooltip(f"{hi}:Q", title="95% CI high", format=".3f"),
        ]

    base = alt.Chart().encode(x=x_enc, color=color_enc, opacity=opacity)
    line = base.mark_line().encode(y=y_enc).add_params(legend_pick)
    points = base.mark_point().encode(y=y_enc, tooltip=tooltip)
    layers = [line, points]
    if has_interval:
        bars = base.mark_errorbar(ticks=True).encode(
            y=alt.Y(f"{lo}:Q", title=y_title), y2=alt.Y2(f"{hi}:Q"), tooltip=tooltip
        )
        layers.insert(0, bars)
    if alpha is not None:
        # One rule per facet cell: aggregate the cell's rows to a single datum first.
        rule = (
            alt.Chart()
            .transform_aggregate(rows="count()", groupby=facets)
            .mark_rule(strokeDash=[5, 4], color="#444444", strokeWidth=1.2)
            .encode(y=alt.datum(float(alpha)), tooltip=alt.value(f"α = {alpha:g}"))
        )
        layers.append(rule)

    layer = alt.layer(*layers, data=data).properties(width=width, height=height)
    if not facets:
        chart = layer
    else:
        facet_kwargs = {}
        if facet_col is not None and facet_row is None and columns is not None:
            facet_kwargs["facet"] = alt.Facet(f"{facet_col}:O", title=_title(facet_col))
            facet_kwargs["columns"] = columns
        elif facet_col is not None:
            facet_kwargs["column"] = alt.Column(f"{facet_col}:O", title=_title(facet_col))
        if facet_row is not None:
            facet_kwargs["row"] = alt.Row(f"{facet_row}:O", title=_title(facet_row))
        chart = layer.facet(**facet_kwargs)
    if title is not None:
        chart = chart.properties(title=title)
    return chart
