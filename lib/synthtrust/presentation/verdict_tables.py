"""Verdict tables as the pages show them: a row's estimate and interval as text, the HTML of a
table cell and of a finding's name, and the verdict table of a chapter (a pandas Styler). The
verdicts themselves, their intervals and ``verdicts.csv`` are :mod:`synthtrust.verdicts`."""

from __future__ import annotations

import html
import math

import pandas as pd

from synthtrust import _format

__all__ = [
    "display_table",
    "estimate_html",
    "finding_html",
    "interval_text",
    "replicates_to_decide_text",
]


def _number(x: float, percent: bool) -> str:
    """3 significant digits (a percentage with ``percent``), ±∞ as "∞" and "−∞"."""
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return _format.percent(x, 3, significant=True) if percent else f"{x:.3g}"


def interval_text(row, percent: bool = False) -> str:
    """A verdict row's estimate and 95 % interval as text, ``"0.2 [0.147, 0.262]"`` (3
    significant digits; percentages with ``percent``); ``"not run"`` where ``row.n`` is 0."""
    if row.n == 0:
        return "not run"
    ends = (_number(v, percent) for v in (row.estimate, row.lower, row.upper))
    return "{} [{}, {}]".format(*ends)


def estimate_html(estimate: str, interval: str) -> str:
    """An estimate with its interval under it in small type, for a table cell of a page:
    ``estimate_html("0.0497", "0.0408–0.056")`` is
    ``'0.0497<br><small style="white-space: nowrap">0.0408–0.056</small>'`` (the interval never
    broken across lines); the estimate alone where ``interval`` is ``""`` or ``"—"`` (none).
    Two short lines keep a table of several estimates within a page's width."""
    if interval in ("", "—"):
        return estimate
    return f'{estimate}<br><small style="white-space: nowrap">{interval}</small>'


def finding_html(finding: str) -> str:
    """A finding's name as inline HTML code that may wrap after each underscore (``<wbr>``):
    the long names would otherwise set a verdict table wider than the page; copying the name
    adds nothing to it.

    Examples
    --------
    >>> finding_html("a2_rbo")
    '<code>a2_<wbr>rbo</code>'
    """
    return "<code>" + html.escape(finding).replace("_", "_<wbr>") + "</code>"


def replicates_to_decide_text(value: float) -> str:
    """A row's ``replicates_to_decide`` as text: blank when decided (NaN), "∞" when no size is
    expected to decide it, else the count with thousands separators ("1,234")."""
    if math.isnan(value):
        return ""
    return _number(value, False) if math.isinf(value) else f"{value:,.0f}"


def display_table(
    table: pd.DataFrame, *, percent: bool = False, paper: str = "the paper", names: bool = False
):
    """A verdict table as the book shows it: one row per finding, left-aligned, HTML-escaped.

    Parameters
    ----------
    table : pandas.DataFrame
        A checked verdict table (:func:`synthtrust.verdicts.read_verdicts`).
    percent : bool, default False
        Show the estimates and intervals as percentages (rates and shares).
    paper : str, default "the paper"
        The heading of the paper's column (e.g. the paper's authors).
    names : bool, default False
        Start with the ``finding`` column (where several rows share the paper's words).

    Returns
    -------
    pandas.io.formats.style.Styler
        Columns: ``paper``, "this run: estimate [95 % interval]" (3 significant digits; "not
        run" where n = 0), "n", "verdict", "replicates to decide" (blank when decided, "∞"
        when no size is expected to decide it) and "note" (left out when no row has one). The
        paper's column is at least 22 em wide, so that its words are not squeezed into a
        narrow column beside the numbers.
    """
    shown = [interval_text(r, percent) for r in table.itertuples()]
    needed = [replicates_to_decide_text(v) for v in table.replicates_to_decide]
    notes = table.note.fillna("").astype(str)
    frame = pd.DataFrame(
        {
            **({"finding": table.finding} if names else {}),
            paper: table.paper,
            "this run: estimate [95 % interval]": shown,
            "n": table.n.map("{:,}".format),
            "verdict": table.verdict,
            "replicates to decide": needed,
            **({"note": notes} if notes.str.strip().ne("").any() else {}),
        }
    )
    styler = frame.style.hide(axis="index").format(escape="html")
    if names:
        styler = styler.format(finding_html, subset=["finding"])
    styler = styler.set_properties(subset=[paper], **{"min-width": "22em"})
    return styler.set_properties(
        **{"text-align": "left", "vertical-align": "top", "padding": "0.15em 0.5em"}
    )
