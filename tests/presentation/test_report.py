"""synthtrust.presentation.report: the standalone offline HTML page of a HoldoutReport."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _repo import CHROMIUM

from synthtrust import fidelity as F
from synthtrust.presentation import report as R

URL = re.compile(r"https?://|//cdn", re.IGNORECASE)
#: An external resource in the HTML (outside the inlined scripts' JavaScript).
EXTERNAL = re.compile(r"\bsrc\s*=|\bhref\s*=|<link\b|@import|<iframe\b|<img\b", re.IGNORECASE)
SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.DOTALL | re.IGNORECASE)
SPEC = re.compile(r"var spec = (\{.*?\});\n")


def _table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 80, n),
            "hours": rng.choice([20, 35, 40, 40, 40, 50, 60], n),
            "score": np.round(rng.normal(50, 10, n), 2),
            "job": rng.choice([f"job{i}" for i in range(14)], n),
            "sex": rng.choice(["F", "M"], n),
            "city": rng.choice(["Graz", "Linz", "Wien", "Wels", "Steyr"], n),
        }
    )
    df.loc[rng.random(n) < 0.05, "score"] = np.nan
    return df


@pytest.fixture(scope="module")
def rep():
    rng = np.random.default_rng(1)
    train, holdout = _table(rng, 400), _table(rng, 380)
    synthetic = pd.concat([train.iloc[:150], _table(rng, 200)], ignore_index=True)  # copies
    return F.holdout_report(train, holdout, synthetic, n_jobs=1)


@pytest.fixture(scope="module")
def page(rep):
    return R.render_holdout_html(rep, title="Report <of> 'test'")


def _specs(page: str) -> list[dict]:
    return [json.loads(m) for m in SPEC.findall(page)]


def test_page_is_standalone_and_offline(page):
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert URL.search(page) is None  # no URL anywhere, the inlined Vega bundle included
    assert EXTERNAL.search(SCRIPT.sub("", page)) is None  # no external script/style/image
    assert all(tag.startswith('<script type="text/javascript">') for tag in SCRIPT.findall(page))
    assert "bundled by vl-convert-python" in page  # Vega, Vega-Lite, Vega-Embed inlined
    scripts = SCRIPT.findall(page)
    assert len(scripts) == 4  # the bundle, then one per chart
    assert "bundled by vl-convert-python" in scripts[0] and "vegaEmbed" in scripts[0]
    assert page.lower().count("</script") == 4  # nothing inside a script ends it early
    assert page.count('class="synthtrust-chart"') == 3
    assert page.count("window.vegaEmbed(") >= 3
    assert "Report &lt;of&gt; &#x27;test&#x27;" in page  # the title is escaped


def test_summary_table_in_page(rep, page):
    for measure, synthetic, holdout in rep.summary_rows():
        row = f'<td>{measure}</td><td class="num">{synthetic}</td><td class="num">{holdout}</td>'
        assert row.replace("&", "&amp;") in page or row in page
    assert f"{100 * rep.dcr.share:.1f} %" in page


def test_charts_hold_the_reports_numbers(rep, page):
    specs = _specs(page)
    assert len(specs) == 3
    datasets = [next(iter(s["datasets"].values())) for s in specs]
    per_column, per_pair, dcr = datasets
    # per column: every column, the synthetic bars and the holdout ticks
    t1 = rep.tvd_table(1)
    assert [d["label"] for d in per_column] == t1["label"].tolist()
    np.testing.assert_allclose([d["synthetic"] for d in per_column], t1["synthetic"], atol=1e-15)
    np.testing.assert_allclose([d["holdout"] for d in per_column], t1["holdout"], atol=1e-15)
    marks = {layer["mark"]["type"] for layer in specs[0]["layer"]}
    assert marks == {"bar", "tick"}
    # per pair: the 15 pairs (fewer than 30), largest synthetic TVD first
    t2 = rep.tvd_table(2)
    assert len(per_pair) == 15 and [d["label"] for d in per_pair] == t2["label"].tolist()
    assert all(
        a["synthetic"] >= b["synthetic"] for a, b in zip(per_pair, per_pair[1:], strict=False)
    )
    # DCR distributions: counts per distance for both targets, shares sum to 1
    for target, d_arr in (("to training", rep.dcr.d_train), ("to holdout", rep.dcr.d_holdout)):
        rows = [d for d in dcr if d["target"] == target]
        counts = np.bincount(d_arr, minlength=len(rows))
        assert [r["records"] for r in rows] == counts.tolist()
        assert sum(r["share"] for r in rows) == pytest.approx(1.0)
    # the copies show up: more records at distance 0 to training than to holdout
    assert dcr[0]["target"] == "to training" and dcr[0]["records"] >= 150 > dcr[1]["records"]
    for s in specs:
        assert "$schema" not in s and s["config"]["font"]  # the book's theme, no URL


def test_pair_chart_top_n(rep):
    chart = R.tvd_bar_chart(rep, 2, top=5)
    data = next(iter(chart.to_dict()["datasets"].values()))
    assert [d["label"] for d in data] == rep.tvd_table(2)["label"].head(5).tolist()
    assert "5 pairs with the largest synthetic TVD, of 15" in json.dumps(chart.to_dict())
    with pytest.raises(ValueError, match="top must be"):
        R.tvd_bar_chart(rep, 1, top=0)
    with pytest.raises(ValueError, match="k must be"):
        R.tvd_bar_chart(rep, 4)


def test_bad_report_type():
    with pytest.raises(TypeError, match="HoldoutReport"):
        R.render_holdout_html({"tvd_1": 0.1})
    with pytest.raises(TypeError, match="HoldoutReport"):
        R.dcr_histogram_chart(None)


def test_holdout_as_synthetic_page(rep):
    rng = np.random.default_rng(2)
    train, holdout = _table(rng, 200), _table(rng, 200)
    r = F.holdout_report(train, holdout, holdout)
    page = R.render_holdout_html(r)
    assert "leave-self-out" in page and URL.search(page) is None
    assert EXTERNAL.search(SCRIPT.sub("", page)) is None


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM}")
def test_page_draws_its_charts_offline_in_chromium(page, tmp_path, browser):
    file = tmp_path / "report.html"
    file.write_text(page, encoding="utf-8")
    tab = browser.new_page()
    try:
        errors, requests = [], []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on("request", lambda r: requests.append(r.url))
        tab.goto(file.as_uri())
        tab.wait_for_function(
            "document.querySelectorAll('.synthtrust-chart svg').length >= 3", timeout=20_000
        )
        n_marks = tab.locator(".synthtrust-chart svg path, .synthtrust-chart svg rect").count()
    finally:
        tab.close()
    assert errors == []
    assert [u for u in requests if not u.startswith("file:")] == []
    assert n_marks > 20


def test_the_dp_audit_page_shows_the_bound_against_the_claim_and_the_ceiling():
    from synthtrust.dp_audit import dp_audit
    from synthtrust.presentation.report import dp_audit_chart, render_dp_audit_html
    from synthtrust.synthesizers import PerturbedHistogram

    result = dp_audit(
        PerturbedHistogram(epsilon=10.0),
        1.0,
        neighbouring="replace_one",
        n_fits=200,
        n_jobs=1,
        progress=False,
    )
    assert result.verdict == "violation"  # true epsilon 10 against a claim of 1
    (values,) = dp_audit_chart(result).to_dict()["datasets"].values()
    assert [v["epsilon"] for v in values] == [1.0, result.epsilon_lb, result.ceiling]
    page = render_dp_audit_html(result)
    assert "<strong>violation</strong>" in page and f"{result.epsilon_lb:.4f}" in page
    assert "https://" not in page.split("<body>")[1]  # offline: the Vega bundle is inlined
