"""synthtrust.presentation.charts: the offline renderer, the theme, the method colours, error_rate_chart."""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd
import pytest

from synthtrust.presentation import charts

URL = re.compile(r"https?://|//cdn|\bsrc\s*=", re.I)


@pytest.fixture(autouse=True)
def _restore_altair():
    """Leave Altair's active renderer and theme as they were."""
    renderer, theme = alt.renderers.active, alt.theme.active
    yield
    alt.renderers.enable(renderer)
    alt.theme.enable(theme)


def _results(with_interval: bool = True) -> pd.DataFrame:
    rows = []
    for n in (50, 500):
        for method in ("MWEM", "Private-PGM", "DP-MWU"):
            for eps in (0.01, 0.1, 1.0, 10.0):
                rate = 0.05 + 0.1 / (1 + eps * n / 50)
                row = {"method": method, "n": n, "epsilon": eps, "rate": rate}
                if with_interval:
                    row.update(lo=rate - 0.02, hi=rate + 0.02)
                rows.append(row)
    return pd.DataFrame(rows)


def _spec_from_html(html: str) -> dict:
    match = re.search(r"var spec = (.*);\n", html)
    assert match, html[:500]
    return json.loads(match.group(1))


def _layers(spec: dict) -> list[dict]:
    return spec["spec"]["layer"] if "spec" in spec else spec["layer"]


def _mark_type(layer: dict) -> str:
    mark = layer["mark"]
    return mark["type"] if isinstance(mark, dict) else mark


# ------------------------------------------------------------------------------------ renderer
def test_renderer_html_is_offline_and_calls_vega_embed():
    chart = alt.Chart(pd.DataFrame({"a": [1, 2, 3]})).mark_bar().encode(x="a:Q")
    spec = chart.to_dict()
    assert spec["$schema"].startswith("https://")  # Altair's spec carries a URL ...
    html = charts.renderer_html(spec)
    assert not URL.search(html), URL.search(html)  # ... the renderer's HTML has none
    assert "<script src" not in html
    div_id = re.search(r'<div id="([^"]+)" class="synthtrust-chart">', html).group(1)
    assert 'window.vegaEmbed("#" + id, spec, opt)' in html
    assert f'var id = "{div_id}";' in html
    # The embedded spec is the chart's spec without $schema (round trip through the HTML).
    expected = {k: v for k, v in spec.items() if k != "$schema"}
    assert _spec_from_html(html) == expected
    options = json.loads(re.search(r"var opt = (.*);\n", html).group(1))
    assert options["mode"] == "vega-lite"
    assert options["actions"]["editor"] is False  # the editor lives on the network


def test_renderer_escapes_script_breaking_text():
    evil = "</script><script>alert(1)</script><!--"
    spec = alt.Chart(pd.DataFrame({"a": [evil]})).mark_text().encode(text="a:N").to_dict()
    html = charts.renderer_html(spec)
    assert html.count("</script>") == 1  # only the renderer's own closing tag
    assert "<!--" not in html
    assert _spec_from_html(html)["datasets"] == spec["datasets"]


def test_renderer_ids_are_unique_and_validated():
    spec = alt.Chart(pd.DataFrame({"a": [1]})).mark_point().encode(x="a:Q").to_dict()
    ids = {re.search(r'id="([^"]+)"', charts.renderer_html(spec)).group(1) for _ in range(3)}
    assert len(ids) == 3
    assert 'id="my-chart"' in charts.renderer_html(spec, div_id="my-chart")
    with pytest.raises(ValueError, match="div_id"):
        charts.renderer_html(spec, div_id='x" onload="alert(1)')
    with pytest.raises(TypeError, match="spec"):
        charts.renderer_html("not a spec")
    with pytest.raises(ValueError, match="NaN"):
        charts.renderer_html({"data": {"values": [{"a": float("nan")}]}})


def test_enable_registers_renderer_and_theme_for_notebooks():
    charts.enable()
    assert alt.renderers.active == charts.RENDERER_NAME
    assert alt.theme.active == charts.THEME_NAME
    chart = alt.Chart(pd.DataFrame({"a": [1, 2]})).mark_bar().encode(x="a:Q")
    bundle = chart._repr_mimebundle_()
    html = bundle["text/html"]
    assert "vegaEmbed(" in html and not URL.search(html)
    # The theme is applied: its font and palette are in the spec's config.
    config = _spec_from_html(html)["config"]
    assert config["font"] == charts.FONT
    assert config["axis"]["labelFontSize"] == 12
    assert config["range"]["category"][0] == charts.METHOD_COLORS["dp_mwu"]
    # embed options given to alt.renderers.enable reach vegaEmbed
    alt.renderers.enable(charts.RENDERER_NAME, embed_options={"renderer": "canvas"})
    html = chart._repr_mimebundle_()["text/html"]
    assert json.loads(re.search(r"var opt = (.*);\n", html).group(1))["renderer"] == "canvas"


def test_vega_bundle_is_wrapped_and_exposes_vega_embed(tmp_path):
    js = charts.vega_bundle_js()
    body = js.split("\n", 1)[1]
    assert body.startswith("(function () {\n") and body.rstrip().endswith("})();")
    assert "window.vegaEmbed=" in js.replace(" ", "")
    assert not re.search(r"<script", js[:2000])
    path = charts.write_vega_bundle(tmp_path)
    assert path == tmp_path / charts.VEGA_BUNDLE_FILENAME
    assert path.read_text(encoding="utf-8") == js


# -------------------------------------------------------------------------------- method colours
def test_method_colors_are_stable_across_spellings():
    assert charts.method_key("Private-PGM") == charts.method_key("private_pgm") == "private_pgm"
    assert charts.method_key("DP Perturbed Histogram") == "perturbed_histogram"
    assert charts.method_key("GS-WGAN") == "gan"
    assert charts.method_color("MWEM") == charts.METHOD_COLORS["mwem"] == "#E69F00"
    assert charts.method_color("no such method") is None
    colours = list(charts.METHOD_COLORS.values())
    assert len(set(colours)) == len(colours)


def test_method_scale_orders_known_methods_and_colours_unknown_ones():
    scale = charts.method_scale(["zeta", "MWEM", "DP-MWU", "MWEM", "Private-PGM", "alpha"])
    d = scale.to_dict()
    assert d["domain"] == ["DP-MWU", "MWEM", "Private-PGM", "zeta", "alpha"]
    assert d["range"][:3] == ["#D55E00", "#E69F00", "#009E73"]
    assert d["range"][3:] == charts._FALLBACK_COLORS[:2]


# ----------------------------------------------------------------------------- error_rate_chart
def test_error_rate_chart_has_alpha_rule_log_scale_facets_and_interval():
    df = _results()
    spec = charts.error_rate_chart(df, alpha=0.05, title="Type I error", columns=None).to_dict()
    assert spec["facet"]["column"]["field"] == "n"
    assert "row" not in spec["facet"]
    wrapped = charts.error_rate_chart(df, alpha=0.05, columns=2).to_dict()
    assert wrapped["facet"]["field"] == "n"
    assert wrapped["columns"] == 2
    assert spec["title"] == "Type I error"
    layers = _layers(spec)
    marks = [_mark_type(layer) for layer in layers]
    assert marks == ["errorbar", "line", "point", "rule"]
    rule = layers[marks.index("rule")]
    assert rule["encoding"]["y"] == {"datum": 0.05}
    # one rule per facet cell: the rule layer aggregates its rows by the facet fields first
    assert rule["transform"][0]["aggregate"][0]["op"] == "count"
    assert rule["transform"][0]["groupby"] == ["n"]
    for layer in layers[:3]:
        assert layer["encoding"]["x"]["field"] == "epsilon"
        assert layer["encoding"]["x"]["scale"]["type"] == "log"
        assert layer["encoding"]["color"]["field"] == "method"
    assert sorted(layers[1]["encoding"]["x"]["axis"]["values"]) == [0.01, 0.1, 1.0, 10.0]
    bar = layers[0]["encoding"]
    assert bar["y"]["field"] == "lo" and bar["y2"]["field"] == "hi"
    tooltip_fields = [t["field"] for t in layers[2]["encoding"]["tooltip"]]
    assert tooltip_fields == ["method", "n", "epsilon", "rate", "lo", "hi"]
    # the data travel with the chart: every row of df, unchanged
    data = next(iter(spec["datasets"].values()))
    assert len(data) == len(df)
    assert pd.DataFrame(data)["rate"].tolist() == pytest.approx(df["rate"].tolist())
    # method colours are the book's
    colour = layers[1]["encoding"]["color"]["scale"]
    assert dict(zip(colour["domain"], colour["range"], strict=True)) == {
        "DP-MWU": "#D55E00",
        "MWEM": "#E69F00",
        "Private-PGM": "#009E73",
    }


def test_error_rate_chart_tilts_crowded_epsilon_labels():
    # decades only: upright labels; 5 next to 10 on a 0.01..10 axis (0.3 of 3 decades apart)
    # would print as "510", so the labels are tilted
    spread = charts.error_rate_chart(_results(), alpha=None).to_dict()
    assert _layers(spread)[1]["encoding"]["x"]["axis"]["labelAngle"] == 0
    df = pd.concat([_results(), _results().query("epsilon == 10").assign(epsilon=5.0)])
    crowded = charts.error_rate_chart(df, alpha=None).to_dict()
    axis = _layers(crowded)[1]["encoding"]["x"]["axis"]
    assert axis["labelAngle"] == -45
    assert axis["labelOverlap"] is False  # Vega's default would hide the "10" next to the "5"
    assert sorted(axis["values"]) == [0.01, 0.1, 1.0, 5.0, 10.0]


def test_error_rate_chart_without_interval_rule_or_facets():
    df = _results(with_interval=False)
    spec = charts.error_rate_chart(df, alpha=None, facet_col=None).to_dict()
    assert "facet" not in spec
    marks = [_mark_type(layer) for layer in spec["layer"]]
    assert marks == ["line", "point"]
    tooltip_fields = [t["field"] for t in spec["layer"][1]["encoding"]["tooltip"]]
    assert tooltip_fields == ["method", "epsilon", "rate"]


def test_error_rate_chart_row_facet_and_alpha_rule_groups_by_both():
    df = _results().assign(test=lambda d: ["t" if i % 2 else "MWU" for i in range(len(d))])
    spec = charts.error_rate_chart(df, facet_row="test", alpha=0.1).to_dict()
    assert spec["facet"]["row"]["field"] == "test"
    rule = _layers(spec)[-1]
    assert rule["encoding"]["y"] == {"datum": 0.1}
    assert rule["transform"][0]["groupby"] == ["n", "test"]


@pytest.mark.parametrize(
    ("kwargs", "frame", "error", "match"),
    [
        ({"x": "eps"}, None, ValueError, "x='eps' is not a column"),
        ({"facet_col": "size"}, None, ValueError, "facet_col='size'"),
        ({"alpha": 1.5}, None, ValueError, "alpha must be in the open interval"),
        ({"alpha": "0.05"}, None, TypeError, "alpha must be a real number"),
        ({}, lambda d: d.assign(epsilon=0.0), ValueError, "'epsilon' must hold finite numbers > 0"),
        ({}, lambda d: d.assign(rate=1.2), ValueError, "'rate' must hold proportions"),
        ({}, lambda d: d.iloc[:0], ValueError, "df is empty"),
        ({"color": 3}, None, TypeError, "color must be a column name"),
    ],
)
def test_error_rate_chart_rejects_bad_input(kwargs, frame, error, match):
    df = _results()
    if frame is not None:
        df = frame(df)
    with pytest.raises(error, match=match):
        charts.error_rate_chart(df, **kwargs)
    with pytest.raises(TypeError, match="DataFrame"):
        charts.error_rate_chart(df.to_dict("records"))


def test_error_rate_chart_renders_one_alpha_rule_per_cell():
    """Render with vl-convert (the Vega of the site): the dashed α rule is drawn exactly once in
    each of the two facet cells, at the same height, inside the 160-px cell."""
    import vl_convert

    chart = charts.error_rate_chart(_results(), alpha=0.05, height=160)
    svg = vl_convert.vegalite_to_svg(chart.to_dict(), vl_version=charts._vl_version())
    rules = re.findall(
        r'<line transform="translate\(([-\d.]+),([-\d.]+)\)"[^>]*'
        r'stroke-dasharray="5,4"',
        svg,
    )
    assert len(rules) == 2
    heights = {float(y) for _, y in rules}
    assert len(heights) == 1 and 0 < heights.pop() < 160
    # without the rule there is no dashed line at all
    svg = vl_convert.vegalite_to_svg(
        charts.error_rate_chart(_results(), alpha=None).to_dict(), vl_version=charts._vl_version()
    )
    assert "stroke-dasharray" not in svg


def test_percent_and_number_formats():
    assert charts.percent(0.1234) == "12.3 %" and charts.percent(0.5, digits=0) == "50 %"
    assert charts.number(0.12345) == "0.123" and charts.number(2, digits=1) == "2.0"
    for missing in (None, float("nan"), float("inf")):
        assert charts.percent(missing) == "n/a" and charts.number(missing) == "n/a"


def test_every_labelled_method_has_its_colour():
    for key, label in charts.METHOD_LABELS.items():
        assert charts.method_color(key) == charts.method_color(label) is not None, (key, label)
