"""Standalone, offline HTML pages of the package's results, one entry point per result kind:
:func:`render_holdout_html` (a :class:`synthtrust.fidelity.HoldoutReport`),
:func:`render_audit_html` (a :class:`synthtrust.audit.AuditResult`),
:func:`render_dp_audit_html` (a :class:`synthtrust.dp_audit.DPAuditResult`) and
:func:`render_replay_audit_html` (a :class:`synthtrust.dp_audit.ReplayAuditResult`). Each returns
the page as a string; results themselves only give ``to_dict`` and ``to_json``.

:func:`render_holdout_html` returns one self-contained page: the summary table (the synthetic
data's F1/F2/F3 and DCR figures beside the holdout's reference values, as the rows of Platzer &
Reutterer 2021, Figures 7 and 8), three Altair charts — per-column TVD bars against the holdout
reference, the worst per-pair TVD bars against the holdout reference, and the DCR distributions
to training vs to holdout — and the run's parameters.

Vega, Vega-Lite and Vega-Embed are inlined (:func:`synthtrust.presentation.charts.vega_bundle_js`), each
chart is drawn by :func:`synthtrust.presentation.charts.renderer_html`; the page loads nothing from the
network and contains no ``http(s)://`` URL at all (the few URL strings inside the bundle — SVG
namespaces, the unused editor link — are written with ``\\x3a`` for ":", the same string to
JavaScript).

The chart builders (:func:`tvd_bar_chart`, :func:`dcr_histogram_chart`) are public so that a
chapter can show the same charts.
"""

from __future__ import annotations

import copy
import functools
import html
import json as _json
import re
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from synthtrust._result import json_value
from synthtrust._validation import check_instance
from synthtrust.presentation import charts

__all__ = [
    "audit_box_chart",
    "dcr_histogram_chart",
    "dp_audit_chart",
    "render_audit_html",
    "render_dp_audit_html",
    "render_holdout_html",
    "render_one_run_audit_html",
    "render_replay_audit_html",
    "tvd_bar_chart",
]

SYNTHETIC_COLOR = "#0072B2"
HOLDOUT_COLOR = "#D55E00"
TRAIN_COLOR = "#0072B2"
_KIND = {1: "column", 2: "pair", 3: "triple"}


def _holdout_report_class() -> type:
    from synthtrust.fidelity import HoldoutReport  # lazy: the report is optional for fidelity

    return HoldoutReport


# ---------------------------------------------------------------------------------- charts
def tvd_bar_chart(report, k: int = 1, *, top: int | None = 30) -> alt.LayerChart:
    """Horizontal bars of the synthetic data's TVD per k-way combination (k = 1: per column,
    k = 2: per pair), with a black tick at the holdout's TVD of the same combination (what an
    independent sample scores). Sorted by the synthetic TVD, largest first; only the ``top``
    largest are drawn (None: all).

    Raises TypeError if ``report`` is not a HoldoutReport, ValueError for k ∉ {1, 2, 3} or
    ``top`` < 1.
    """
    check_instance(report, "report", _holdout_report_class())
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise ValueError(f"top must be an integer >= 1 or None, got {top!r}")
    table = report.tvd_table(k)
    n_all = len(table)
    if top is not None:
        table = table.head(top)
    data = table.loc[:, ["label", "synthetic", "holdout"]].copy()
    data["ratio"] = np.where(data["holdout"] > 0, data["synthetic"] / data["holdout"], np.nan)
    data["ratio"] = data["ratio"].astype(object).where(np.isfinite(data["ratio"]), None)
    order = list(data["label"])
    c = report.parameters.get("tvd_bins", {}).get(k, "")
    kind = _KIND[k]
    title = f"{k}-way TVD per {kind} (c = {c}): synthetic (bars) vs holdout (ticks)"
    subtitle = (
        f"all {n_all} {kind}s"
        if len(data) == n_all
        else f"the {len(data)} {kind}s with the largest synthetic TVD, of {n_all}"
    )
    y = alt.Y("label:N", sort=order, title=None, axis=alt.Axis(labelLimit=260))
    tooltip = [
        alt.Tooltip("label:N", title=kind),
        alt.Tooltip("synthetic:Q", title="TVD synthetic", format=".2%"),
        alt.Tooltip("holdout:Q", title="TVD holdout", format=".2%"),
        alt.Tooltip("ratio:Q", title="synthetic / holdout", format=".2f"),
    ]
    base = alt.Chart(data)
    bars = base.mark_bar(color=SYNTHETIC_COLOR, opacity=0.85).encode(
        y=y,
        x=alt.X("synthetic:Q", title="total variation distance", axis=alt.Axis(format="%")),
        tooltip=tooltip,
    )
    ticks = base.mark_tick(color="#000000", thickness=2.5, size=14).encode(
        y=y, x=alt.X("holdout:Q"), tooltip=tooltip
    )
    height = max(80, 18 * len(data))
    return alt.layer(bars, ticks).properties(
        width=420, height=height, title=alt.Title(title, subtitle=subtitle)
    )


def dcr_histogram_chart(report) -> alt.Chart:
    """Distribution of the synthetic records' distance to the closest record (number of
    differing attributes): to training vs to holdout, as shares of the synthetic records.
    For a synthesizer that does not copy, the two distributions coincide.
    """
    check_instance(report, "report", _holdout_report_class())
    hist = report.dcr.histogram()
    n = max(report.dcr.n_synthetic, 1)
    rows = []
    for _, r in hist.iterrows():
        for target, col in (("to training", "train"), ("to holdout", "holdout")):
            rows.append(
                {
                    "distance": int(r["distance"]),
                    "target": target,
                    "records": int(r[col]),
                    "share": float(r[col]) / n,
                }
            )
    data = pd.DataFrame(rows)
    title = "Distance to closest record (DCR)"
    subtitle = (
        f"share closer to training {report.dcr.share:.1%}; mean DCR "
        f"{report.dcr.mean_train:.2f} to training, {report.dcr.mean_holdout:.2f} to holdout"
    )
    color = alt.Color(
        "target:N",
        title=None,
        scale=alt.Scale(domain=["to training", "to holdout"], range=[TRAIN_COLOR, HOLDOUT_COLOR]),
    )
    return (
        alt.Chart(data)
        .mark_bar()
        .encode(
            x=alt.X(
                "distance:O", title="number of differing attributes", axis=alt.Axis(labelAngle=0)
            ),
            xOffset=alt.XOffset("target:N", sort=["to training", "to holdout"]),
            y=alt.Y("share:Q", title="share of synthetic records", axis=alt.Axis(format="%")),
            color=color,
            tooltip=[
                alt.Tooltip("target:N", title="DCR"),
                alt.Tooltip("distance:O", title="distance"),
                alt.Tooltip("records:Q", title="records", format=","),
                alt.Tooltip("share:Q", title="share", format=".1%"),
            ],
        )
        .properties(width=420, height=220, title=alt.Title(title, subtitle=subtitle))
    )


# ------------------------------------------------------------------------------------- page
_URL = re.compile(r"(https?):(?=//)", re.IGNORECASE)


@functools.lru_cache(maxsize=1)
def _offline_bundle() -> str:
    """The Vega bundle, safe inside an inline ``<script>`` and free of literal URLs."""
    bundle = charts.vega_bundle_js()
    bundle = _URL.sub(lambda m: m.group(1) + "\\x3a", bundle)
    return re.sub(r"</(script)", r"<\\/\1", bundle, flags=re.IGNORECASE)


def _merge(base: dict, extra: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _chart_html(chart: alt.TopLevelMixin) -> str:
    spec = chart.to_dict()
    spec["config"] = _merge(charts.theme()["config"], spec.get("config", {}))
    return charts.renderer_html(spec)


_CSS = """
body { font-family: 'Source Sans Pro', 'Segoe UI', 'Helvetica Neue', Helvetica, Arial, sans-serif;
       color: #222; max-width: 980px; margin: 2em auto; padding: 0 1em; line-height: 1.45; }
h1 { font-weight: normal; font-size: 1.7em; margin-bottom: 0.2em; }
h2 { font-weight: normal; font-size: 1.3em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }
p.meta { color: #555; margin-top: 0; }
table { border-collapse: collapse; margin: 0.8em 0; }
th, td { padding: 0.3em 0.9em; border-bottom: 1px solid #e3e3e3; }
th { text-align: left; font-weight: 600; background: #f6f6f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: 0.93em; }
.synthtrust-chart { margin: 1em 0 1.5em 0; }
.synthtrust-chart-error { color: #b00; }
"""


def _table(header: list[str], rows: list[list[Any]], numeric_from: int = 1) -> str:
    out = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="num"' if i >= numeric_from else ""
            cells.append(f"<td{cls}>{html.escape(str(cell))}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def render_holdout_html(report, *, title: str | None = None) -> str:
    """The report as one standalone HTML page (a string), readable offline.

    Contents: the summary table (synthetic vs holdout reference; TVD in %, DCR in number of
    differing attributes), per-column TVD bars and per-pair TVD bars (the 30 largest) with the
    holdout's values as ticks, the DCR distributions to training and to holdout, counts, and
    the parameters. The Vega libraries are inlined; there is no external resource and no
    ``http(s)://`` URL in the page.

    Raises
    ------
    TypeError
        If ``report`` is not a :class:`synthtrust.fidelity.HoldoutReport`.
    """
    check_instance(report, "report", _holdout_report_class())
    title = title or "Holdout-based fidelity and privacy report"
    ref_is_self = report.holdout_dcr is None
    meta = (
        f"train {report.n_train:,} rows · holdout {report.n_holdout:,} · synthetic "
        f"{report.n_synthetic:,} · {len(report.columns)} columns"
        + (" · the synthetic table is the holdout (leave-self-out DCR)" if ref_is_self else "")
    )
    summary = _table(
        ["measure", "synthetic", "holdout (reference)"],
        [list(r) for r in report.summary_rows()],
    )
    ratio = report.to_dict().get("tvd_3_ratio")
    notes = [
        "F<sub>k</sub> is the mean total variation distance of all k-way marginals between the "
        "training data and the scored data, after discretizing every column with the training "
        "data's statistics (c = 100 / 10 / 5 categories for k = 1 / 2 / 3, rare categories "
        "lumped into <code>_other_</code>, missing values a category). The holdout's value is "
        "what an independent sample of the same population scores: a synthesizer cannot be "
        "expected to do better.",
        "DCR: the number of attributes in which a synthetic record differs from its closest "
        "training (holdout) record, numeric columns cut into 100 quantile bins of the pooled "
        "data. The share of synthetic records closer to training than to holdout (ties counted "
        "n<sub>train</sub> / (n<sub>train</sub> + n<sub>holdout</sub>)) is ≈ 50 % when the "
        "synthetic data are no closer to the training records than to unseen records; clearly "
        "above 50 % means training records are reproduced. A share near 50 % is evidence, not "
        "a proof, of privacy: it is no differential-privacy guarantee.",
    ]
    if ratio is not None:
        notes.insert(
            1,
            f"F<sub>3</sub>(synthetic) / F<sub>3</sub>(holdout) = {ratio:.2f} (1 is the "
            "holdout's level; Figure 9 of the paper plots this ratio against the share).",
        )
    chart_blocks = [
        ("Fidelity per column (k = 1)", tvd_bar_chart(report, 1, top=None)),
        ("Fidelity per pair of columns (k = 2)", tvd_bar_chart(report, 2, top=30)),
        ("Privacy: distances to closest records", dcr_histogram_chart(report)),
    ]
    params = report.parameters
    param_rows = [[key, str(value)] for key, value in params.items()]
    hist = report.dcr.histogram()
    hist_rows = [
        [int(r["distance"]), f"{int(r['train']):,}", f"{int(r['holdout']):,}"]
        for _, r in hist.iterrows()
    ]

    parts = [
        "<h2>Summary</h2>",
        summary,
        "\n".join(f'<p class="note">{n}</p>' for n in notes),
    ]
    for heading, chart in chart_blocks:
        parts += [f"<h2>{html.escape(heading)}</h2>", _chart_html(chart)]
    parts += [
        "<h2>DCR counts by distance</h2>",
        _table(["distance", "synthetic → training", "synthetic → holdout"], hist_rows),
        "<h2>Parameters</h2>",
        _table(["parameter", "value"], param_rows, numeric_from=2),
        '<p class="note">Method: Platzer &amp; Reutterer (2021), "Holdout-based fidelity and '
        'privacy assessment of mixed-type synthetic data" (Figures 7 and 8), computed by '
        "synthtrust.fidelity.</p>",
    ]
    return _page(title, meta, parts)


def _page(title: str, meta: str, body: list[str]) -> str:
    """A standalone HTML page (offline: the Vega bundle inlined) around ``body``."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{_CSS}</style>",
        f'<script type="text/javascript">\n{_offline_bundle()}\n</script>',
        "</head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">{html.escape(meta)}</p>',
        *body,
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"


def audit_box_chart(result) -> alt.LayerChart:
    """The paper's Figure 1 for one audit: the selected statistic β* on the K₂ synthetic
    samples trained on D⁻ and on D⁺ (box plots with the points), and its value on the training
    sets themselves (ticks). A decomposable generator gives two overlapping boxes."""
    rows = [
        {"training set": side, "g*": float(v)}
        for side, values in (("D−", result.y_minus), ("D+", result.y_plus))
        for v in values
    ]
    data = pd.DataFrame(rows)
    ref = pd.DataFrame({"training set": ["D−", "D+"], "g*": [result.g_minus, result.g_plus]})
    x = alt.X(
        "training set:N",
        sort=["D−", "D+"],
        title="generator trained on",
        axis=alt.Axis(labelAngle=0),
    )
    y = alt.Y("g*:Q", title="β*(synthetic sample)", scale=alt.Scale(zero=False))
    box = alt.Chart(data).mark_boxplot(extent="min-max", size=40).encode(x=x, y=y)
    points = (
        alt.Chart(data)
        .mark_circle(size=30, opacity=0.6, color="#333")
        .encode(x=x, y=y, tooltip=["training set", alt.Tooltip("g*:Q", format=".4g")])
    )
    ticks = (
        alt.Chart(ref)
        .mark_tick(color="#E15759", thickness=2, size=50)
        .encode(x=x, y="g*:Q", tooltip=["training set", alt.Tooltip("g*:Q", format=".4g")])
    )
    return alt.layer(box, points, ticks).properties(width=260, height=240)


def render_audit_html(result, *, title: str | None = None) -> str:
    """An audit (:class:`synthtrust.audit.AuditResult`) as one standalone offline HTML page:
    the verdict, the test, Figure 1's box plot, where the leak is, the card."""
    title = title or f"Audit of {result.generator or 'a generator'} against its card"
    c = result.card
    meta = (
        f"{len(c.column_names)} columns, |X| = {c.cells:,} · {len(c.marginals)} declared "
        f"marginals (dim Φ = {result.phi_rank}) · {result.dim} probed directions · "
        f"{2 * (result.k_select + result.k_audit)} trainings · seed {result.seed}"
    )
    p = (
        f"{result.pvalue:.3g}"
        if result.pvalue > 0
        else f"below 1e-300 (log10 p = {result.log10_pvalue:.1f})"
    )
    test = _table(
        ["quantity", "value"],
        [
            ["Student t", f"{result.statistic:.4g}"],
            ["degrees of freedom", result.df],
            ["p-value (two-sided)", p],
            ["log10 p", f"{result.log10_pvalue:.2f}"],
            ["α", f"{result.alpha:g}"],
            ["β* on D−, D*, D+", f"{result.g_minus:.4g}, {result.g_star:.4g}, {result.g_plus:.4g}"],
            ["rows of D−, D+", f"{result.n_rows[0]:,}, {result.n_rows[1]:,}"],
        ],
    )
    leak = _table(
        ["undeclared interaction", "share of ‖β*‖²"],
        [[", ".join(k), f"{v:.1%}"] for k, v in result.leak.head(15).items()],
    )
    card = _table(["declared marginal"], [[", ".join(m)] for m in c.marginals], numeric_from=1)
    body = [
        "<h2>Verdict</h2>",
        f"<p><strong>{html.escape(result.verdict)}</strong></p>",
        test,
        "<h2>The statistic on synthetic data (Figure 1)</h2>",
        _chart_html(audit_box_chart(result)),
        '<p class="note">Both training sets have the same declared marginals and size. A '
        "generator that uses only the card's statistics gives synthetic data whose β* does not "
        "depend on which of the two it was trained on.</p>",
        "<h2>Where the leak is</h2>",
        leak,
        "<h2>The card</h2>",
        card,
        '<p class="note">Method: Houssiau et al. (2022), "A framework for auditable synthetic '
        'data generation", Eqs. 4–7, computed by synthtrust.audit. Not rejecting is not a '
        "proof (their Remark 1).</p>",
    ]
    return _page(title, meta, body)


def dp_audit_chart(result) -> alt.LayerChart:
    """An empirical DP audit on the ε axis: the claim, the lower bound the fits give and the
    ceiling the budget of fits could reach (:class:`synthtrust.dp_audit.DPAuditResult`)."""
    marks = pd.DataFrame(
        [
            {"what": "claimed ε", "epsilon": result.epsilon},
            {"what": f"{1 - result.alpha:.0%} lower bound", "epsilon": result.epsilon_lb},
            {"what": "ceiling of the budget", "epsilon": result.ceiling},
        ]
    )
    order = list(marks.what)
    y = alt.Y("what:N", sort=order, title=None)
    x = alt.X("epsilon:Q", title="ε (nats)", scale=alt.Scale(zero=True))
    color = alt.Color(
        "what:N",
        sort=order,
        legend=None,
        scale=alt.Scale(range=["#333333", HOLDOUT_COLOR, SYNTHETIC_COLOR]),
    )
    bars = alt.Chart(marks).mark_bar(height=14).encode(x=x, y=y, color=color)
    text = (
        alt.Chart(marks)
        .mark_text(align="left", dx=4)
        .encode(x=x, y=y, text=alt.Text("epsilon:Q", format=".3f"))
    )
    return alt.layer(bars, text).properties(width=420, height=90)


def render_dp_audit_html(result, *, title: str | None = None) -> str:
    """An empirical DP audit (:class:`synthtrust.dp_audit.DPAuditResult`) as one standalone
    offline HTML page: the verdict, the bound against the claim (and its zCDP ρ and Gaussian-DP
    μ, for a zCDP claim) and the ceiling, the counts, and what was audited (the command line's
    ``setting``: generator, parameters, worlds, canary)."""
    title = title or f"Does the generator keep ε = {result.epsilon:g}?"
    meta = (
        f"{result.n_fits:,} fits · {result.neighbouring.replace('_', '-')} neighbours · score "
        f"{result.score} ({result.statistic}) · α = {result.alpha:g} · seed {result.random_state}"
    )
    mu = getattr(result, "mu", float("nan"))
    zcdp = (
        [
            ["claimed zCDP ρ", _number(getattr(result, "rho", float("nan")))],
            ["Gaussian-DP μ of the claim (√(2ρ))", f"{mu:.4f}"],
        ]
        if np.isfinite(mu)
        else []
    )
    counts = _table(
        ["quantity", "value"],
        [
            ["claim (ε, δ)", f"({result.epsilon:g}, {result.delta:g})"],
            *zcdp,
            [f"{1 - result.alpha:.0%} lower bound on ε", f"{result.epsilon_lb:.4f}"],
            ["lower bound on Gaussian-DP μ", f"{result.mu_lb:.4f}"],
            ["ceiling (a perfect separation)", f"{result.ceiling:.4f}"],
            ["threshold", f"{result.threshold:.4g}"],
            ["eval fits without / with the canary", f"{result.n0:,} / {result.n1:,}"],
            ["false positives / false negatives", f"{result.fp:,} / {result.fn:,}"],
        ],
    )
    audited = ""
    if setting := getattr(result, "setting", None):  # the command line's: what was audited

        def dumps(x) -> str:
            return _json.dumps(json_value(x), default=str)

        source = setting.get("worlds") or {}
        origin = (
            f"your table {source.get('file')}"
            if source.get("source") == "data"
            else f"worst case, {source.get('base_records')} base records"
        )
        canary = dumps(setting.get("canary"))
        if setting.get("removed") is not None:
            canary += f" (replaces {dumps(setting['removed'])})"
        rows = [
            ["generator", setting.get("generator", "")],
            ["parameters (--params)", dumps(setting.get("params", {}))],
            ["constructed with (besides random_state)", dumps(setting.get("constructor", {}))],
            [
                "worlds",
                f"{origin}: D {setting.get('records_without')} records, D′ "
                f"{setting.get('records_with')} ({setting.get('neighbouring')})",
            ],
            ["canary (in D′)", canary],
        ]
        audited = "<h2>What was audited</h2>\n" + _table(["", "value"], rows, numeric_from=2)
    body = [
        "<h2>Verdict</h2>",
        f"<p><strong>{html.escape(result.verdict)}</strong></p>",
        *(
            [f'<p class="note">{html.escape(result.note)}</p>']
            if getattr(result, "note", "")
            else []
        ),
        _chart_html(dp_audit_chart(result)),
        counts,
        audited,
        '<p class="note">"violation": the lower bound exceeds the claim, which a generator '
        'that keeps its claim shows with probability at most α. "underpowered": no result '
        'of this many fits could exceed the claim. "no violation detected" is no proof of '
        "differential privacy. Method: the distinguishing game with a Clopper–Pearson bound "
        "(Jagielski et al. 2020; Nasr et al. 2023), computed by synthtrust.dp_audit.</p>",
    ]
    return _page(title, meta, body)


def render_one_run_audit_html(result, *, title: str | None = None) -> str:
    """A one-run DP audit (:class:`synthtrust.dp_audit.OneRunResult`) as one standalone offline
    HTML page: the verdict, the bound against the claim and the ceiling (the chart of
    :func:`dp_audit_chart`), and the canaries, guesses and right guesses behind them."""
    title = title or f"One-run audit: does the generator keep ε = {result.epsilon:g}?"
    meta = (
        f"one fit · {result.n_canaries:,} canaries · {result.neighbouring.replace('_', '-')} "
        f"neighbours · score {result.score} · α = {result.alpha:g} · seed {result.random_state}"
    )
    counts = _table(
        ["quantity", "value"],
        [
            ["claim (ε, δ)", f"({result.epsilon:g}, {result.delta:g})"],
            [f"{1 - result.alpha:.0%} lower bound on ε", f"{result.epsilon_lb:.4f}"],
            ["ceiling (every guess right)", f"{result.ceiling:.4f}"],
            [
                "canaries / in the data by their coin",
                f"{result.n_canaries:,} / {result.included:,}",
            ],
            ["guesses (the highest scores) / right", f"{result.guesses:,} / {result.correct:,}"],
        ],
    )
    body = [
        "<h2>Verdict</h2>",
        f"<p><strong>{html.escape(result.verdict)}</strong></p>",
        _chart_html(dp_audit_chart(result)),
        counts,
        '<p class="note">Each canary is put in the data by a fair coin; the auditor guesses '
        '"in" for the highest scores, and under ε-DP each guess is right with probability at '
        'most e^ε/(1 + e^ε). "violation": the lower bound exceeds the claim; '
        '"underpowered": no count of right guesses could. Method: Steinke, Nasr & Jagielski '
        "(2023), computed by synthtrust.dp_audit.</p>",
    ]
    return _page(title, meta, body)


def _number(x, fmt: str = ".4g") -> str:
    """A float for a table cell: "–" for None or NaN (nothing declared or accounted)."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return "–"
    return format(x, fmt)


def _replay_chart(result) -> alt.LayerChart | None:
    """The claim beside the ε the recorded calls imply (None when that ε is not finite)."""
    if not np.isfinite(result.implied_epsilon):
        return None
    marks = pd.DataFrame(
        [
            {"what": "claimed ε", "epsilon": result.epsilon},
            {"what": "implied by the observed Δ", "epsilon": result.implied_epsilon},
        ]
    )
    order = list(marks.what)
    y = alt.Y("what:N", sort=order, title=None)
    x = alt.X("epsilon:Q", title="ε (nats)", scale=alt.Scale(zero=True))
    color = alt.Color(
        "what:N", sort=order, legend=None, scale=alt.Scale(range=["#333333", HOLDOUT_COLOR])
    )
    bars = alt.Chart(marks).mark_bar(height=14).encode(x=x, y=y, color=color)
    text = (
        alt.Chart(marks)
        .mark_text(align="left", dx=4)
        .encode(x=x, y=y, text=alt.Text("epsilon:Q", format=".3f"))
    )
    return alt.layer(bars, text).properties(width=420, height=60)


def render_replay_audit_html(result, *, title: str | None = None) -> str:
    """A replay audit (:class:`synthtrust.dp_audit.ReplayAuditResult`) as one standalone offline
    HTML page: the verdict and its reasons, the generator, its parameters, the relation and the
    two datasets, the implied privacy loss, and every recorded call of the run on D against the
    same call on D′."""
    title = title or f"Replay audit: does {result.generator} keep ε = {result.epsilon:g}?"
    data = result.datasets
    meta = (
        f"{result.generator} · {result.neighbouring.replace('_', '-')} neighbours · D: "
        f"{data['records_d']:,} records, D′: {data['records_d_prime']:,} ({data['source']}) · "
        f"seed {result.random_state}"
    )
    reasons = "".join(f"<li>{html.escape(r)}</li>" for r in result.reasons)
    quantities = _table(
        ["quantity", "value"],
        [
            ["claim (ε, δ)", f"({result.epsilon:g}, {result.delta:g})"],
            ["ε implied by the observed sensitivities", _number(result.implied_epsilon)],
            ["of which pure ε (Laplace, exponential)", _number(result.epsilon_pure)],
            ["ρ of the Gaussian calls (zCDP)", _number(result.rho_gaussian)],
            ["largest observed / declared sensitivity", _number(result.statistic)],
            ["recorded calls on D / D′", f"{result.n_calls:,} / {result.n_calls_prime:,}"],
            ["same sequence of calls", "yes" if result.sequences_match else result.mismatch],
        ],
    )
    setting = _table(
        ["", "value"],
        [
            ["generator", result.generator],
            *[
                [f"parameter {k}", _json.dumps(json_value(v), default=str)]
                for k, v in result.params.items()
            ],
            ["neighbouring relation", result.neighbouring.replace("_", "-")],
            ["D", f"{data['records_d']:,} records ({data['source']})"],
            ["D′", f"{data['records_d_prime']:,} records"],
            ["canary (in D′)", _json.dumps(data["canary"])],
            [
                "record of D it replaces",
                "none (add/remove)" if data["removed"] is None else _json.dumps(data["removed"]),
            ],
            ["domain (levels)", _json.dumps(data["domain"])],
            ["rows sampled after each fit", result.n_synthetic],
        ],
        numeric_from=2,
    )
    rows = [
        [
            r["call"],
            r["phase"],
            r["mechanism"],
            r["caller"],
            r["norm"],
            tuple(r["shape"]),
            *(_number(r[k]) for k in ("scale", "declared", "observed", "ratio", "epsilon", "rho")),
            "violation" if r["violation"] else "",
        ]
        for r in result.table.to_dict(orient="records")
    ]
    calls = _table(
        [
            "call",
            "phase",
            "mechanism",
            "caller",
            "norm",
            "shape",
            "scale",
            "declared Δ",
            "observed Δ",
            "observed / declared",
            "ε",
            "ρ",
            "",
        ],
        rows,
        5,
    )
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in result.notes)
    chart = _replay_chart(result)
    body = [
        "<h2>Verdict</h2>",
        f"<p><strong>{html.escape(result.verdict)}</strong></p>",
        f"<ul>{reasons}</ul>" if reasons else "",
        quantities,
        "" if chart is None else _chart_html(chart),
        "<h2>Generator and datasets</h2>",
        setting,
        "<h2>The recorded calls</h2>",
        calls if rows else "<p>No call was recorded.</p>",
        f'<ul class="note">{notes}</ul>' if notes else "",
        '<p class="note">The generator was fitted (and sampled) on D and on its neighbour D′ '
        "with the same random_state; the run on D′ got D's noisy outputs back, so only "
        "data-dependent control flow can make the calls differ. Observed Δ is the distance of "
        "the two query values in the call's norm; a numpy draw declares none, so the ε it "
        'implies is the check. "no violation detected" is no proof of differential privacy: '
        "one pair of neighbours can refute a claim, never prove it. Method: Re:cord-play "
        "(Cebere et al. 2026), computed by synthtrust.dp_audit.replay.</p>",
    ]
    return _page(title, meta, body)
