"""Tests of ``synthtrust.presentation.verdict_tables``: a verdict table as the page shows it, its
text and HTML cells, by hand."""

import re

import numpy as np
from test_verdicts import INF, _rows

from synthtrust import verdicts as v
from synthtrust.presentation import verdict_tables as vt


def test_display_table_and_interval_text():
    table = v.verdict_table(_rows())
    ci = v.rate_interval(30, 100)
    assert vt.interval_text(table.iloc[0]) == f"0.3 [{ci.lower:.3g}, {ci.upper:.3g}]"
    assert vt.interval_text(table.iloc[0], percent=True) == (
        f"30 % [{100 * ci.lower:.3g} %, {100 * ci.upper:.3g} %]"
    )
    assert vt.interval_text(table.iloc[2]) == "0.125 [−∞, ∞]"  # 4 replicates: no interval
    assert vt.interval_text(table.iloc[3]) == "not run"
    shown = vt.display_table(table, names=True).data
    assert list(shown.columns) == [
        "finding",
        "the paper",
        "this run: estimate [95 % interval]",
        "n",
        "verdict",
        "replicates to decide",
        "note",
    ]
    needed = table.replicates_to_decide
    assert list(shown["replicates to decide"]) == [
        "",
        f"{needed[1]:,.0f}",
        f"{needed[2]:,.0f}",
        "",
    ]
    assert shown.loc[3, "note"] == "needs Adult" and shown.loc[0, "n"] == "100"
    assert [vt.replicates_to_decide_text(x) for x in (np.nan, INF, 1234.0)] == ["", "∞", "1,234"]
    html = vt.display_table(table.assign(note="<b>"), paper="Authors").to_html()
    assert "&lt;b&gt;" in html and "Authors" in html
    named = vt.display_table(table.assign(finding="a_b<"), names=True).to_html()
    assert "<code>a_<wbr>b&lt;</code>" in named  # may wrap after "_", still escaped
    # no row has a note: no note column; the paper's words get room
    plain = vt.display_table(table.assign(note=["", None, " ", ""]))
    assert "note" not in plain.data.columns
    cells = plain.to_html()
    col = list(plain.data.columns).index("the paper")
    assert re.search(rf"#T_\w+_row0_col{col}[^}}]*min-width: 22em", cells)


def test_estimate_html_puts_the_interval_under_the_estimate_unbroken():
    assert vt.estimate_html("0.0497", "0.0408–0.056") == (
        '0.0497<br><small style="white-space: nowrap">0.0408–0.056</small>'
    )
    assert vt.estimate_html("0.0497", "—") == "0.0497"
    assert vt.estimate_html("—", "") == "—"
