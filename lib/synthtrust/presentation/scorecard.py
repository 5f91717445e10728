"""The book's scorecard: every chapter's verdicts on one page.

Each chapter's run writes ``results/verdicts.csv`` (:mod:`synthtrust.verdicts`); the book's
build gathers them into ``scorecard.md`` (:func:`write_scorecard`), a page with the counts per
chapter and, per chapter, every finding with this run's estimate, its 95 % interval, the
replicates behind it, the verdict and a link to the section of the chapter that shows it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from synthtrust import verdicts
from synthtrust._atomic import write_text
from synthtrust.presentation import verdict_tables

__all__ = ["PAGE", "scorecard_markdown", "write_scorecard"]

#: The page's name in ``_toc.yml`` (and its file, ``scorecard.md``, in the staged book).
PAGE = "scorecard"

_INTRO = """\
# Scorecard: does each paper's finding hold?

Every chapter re-runs one published study and checks the paper's findings on its own
replicates. This page gathers those checks. A finding is a claim that a quantity (an error
rate, a mean similarity, a difference between two methods on the same replicates) lies in a
region; this run estimates the quantity with a 95 % confidence interval, and the verdict follows
from the interval alone: **holds** when the interval lies inside the claimed region, **fails**
when it lies outside, **undetermined** when it straddles a boundary — then the last column says
how many replicates would decide it if the quantity and its spread are what this run saw (80 %
power). A decided verdict is wrong with probability at most 2.5 %, so a table of many decided
verdicts holds a few wrong ones by chance; the counts below say how many to expect.
The numbers come from the `{preset}` preset of each chapter (`synthtrust run CHAPTER --preset
{preset}`); the methods are in {{doc}}`api/verdicts`.
"""


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _counts_row(name: str, table: pd.DataFrame | None) -> str:
    if table is None:
        return f"| {{doc}}`chapters/{name}` | — | — | — | — | no verdicts in this run |"
    s = verdicts.summarize(table)
    return (
        f"| {{doc}}`chapters/{name}` | {s['holds']} | {s['fails']} | {s['undetermined']} "
        f"| {s['expected_false']:.2g} | {s['total']} |"
    )


def _finding_row(name: str, row) -> str:
    shown = verdict_tables.interval_text(row)
    target = row.section or f"chapters/{name}"
    role = "ref" if row.section else "doc"
    needed = verdict_tables.replicates_to_decide_text(row.replicates_to_decide)
    return (
        f"| {verdict_tables.finding_html(row.finding)}: {_cell(row.paper)} | {shown} | {row.n} "
        f"| {{{role}}}`{row.verdict} <{target}>` | {needed} |"
    )


def scorecard_markdown(
    tables: Mapping[str, pd.DataFrame | None],
    preset: str,
    titles: Mapping[str, str] | None = None,
) -> str:
    """The scorecard page (MyST Markdown) for the chapters' verdict tables.

    Parameters
    ----------
    tables : mapping
        Chapter name (its page is ``chapters/<name>``) -> its verdict table
        (:func:`synthtrust.verdicts.read_verdicts`), or None when the run wrote none; in the
        book's order.
    preset : str
        The preset the chapters ran with, named on the page.
    titles : mapping, optional
        Chapter name -> the heading of its section (default: the name).

    Returns
    -------
    str
        The page: the counts per chapter, then one table per chapter with a row per finding
        (the finding and the paper's claim, estimate [95 % interval], n, the verdict as a link to
        the chapter's section from the row's ``section`` label, replicates to decide).
    """
    titles = titles or {}
    lines = [_INTRO.format(preset=preset), "## At a glance", ""]
    lines += [
        "| chapter | holds | fails | undetermined | false verdicts to expect | verdicts |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [_counts_row(name, table) for name, table in tables.items()]
    for name, table in tables.items():
        if table is None:
            continue
        lines += ["", f"## {titles.get(name, name)}", "", f"{{doc}}`chapters/{name}`: "]
        lines[-1] += verdicts.summarize(table)["text"] + "."
        lines.append("")
        lines += [
            "| finding: the paper | this run: estimate [95 % interval] | n | verdict "
            "| n to decide |",
            "| --- | --- | ---: | --- | ---: |",
        ]
        lines += [_finding_row(name, row) for row in table.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _title(run_dir: Path, name: str) -> str:
    """The first level-1 heading of the executed notebook ``<run_dir>/<name>.ipynb``."""
    try:
        nb = json.loads((run_dir / f"{name}.ipynb").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return name
    for cell in nb.get("cells", []):
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if cell.get("cell_type") == "markdown":
            for line in source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return name


def _run_preset(run_dir: Path) -> str | None:
    try:
        return json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["preset"]
    except (OSError, ValueError, KeyError):
        return None


def write_scorecard(
    run_dirs: Mapping[str, str | os.PathLike], path: str | os.PathLike, preset: str = "default"
) -> Path:
    """Write the scorecard page from the chapters' run folders.

    Parameters
    ----------
    run_dirs : mapping
        Chapter name -> its run folder (holding ``results/verdicts.csv`` and
        ``manifest.json``), in the book's order.
    path : path
        The page to write (atomically), e.g. the staged book's ``scorecard.md``.
    preset : str
        Named on the page when the runs' manifests do not say.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        A ``verdicts.csv`` that fails :func:`synthtrust.verdicts.check_verdicts`.
    """
    tables: dict[str, pd.DataFrame | None] = {}
    titles, presets = {}, set()
    for name, run_dir in run_dirs.items():
        run_dir = Path(run_dir)
        titles[name] = _title(run_dir, name)
        csv = run_dir / "results" / "verdicts.csv"
        tables[name] = verdicts.read_verdicts(csv) if csv.is_file() else None
        presets.add(_run_preset(run_dir))
    presets.discard(None)
    shown = presets.pop() if len(presets) == 1 else preset
    write_text(path, scorecard_markdown(tables, shown, titles))
    return Path(path)
