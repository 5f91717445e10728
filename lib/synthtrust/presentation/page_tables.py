"""A results table as a page shows it: a pandas Styler with the book's number formats.

The study packages select and compute the frame; this module alone decides how a table cell
looks on a page (the verdict tables are :mod:`.verdict_tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

__all__ = ["COMPACT", "page_table"]

#: Cell padding of a dense table (every cell on one line).
COMPACT = [{"selector": "td, th", "props": "padding: 0.1em 0.8em; white-space: nowrap;"}]

Format = str | Callable[[object], str]


def page_table(
    frame: pd.DataFrame,
    formats: Format | Mapping[str, Format] | None = None,
    *,
    index: bool = True,
    columns: Format | None = None,
    missing: str | None = None,
    compact: bool = False,
):
    """``frame`` as a table of a page.

    Parameters
    ----------
    frame : pandas.DataFrame
        The rows and columns to show, already selected and named.
    formats : str, callable or dict of them, optional
        Number formats: one for every cell (``"{:.3f}"``) or one per column name.
    index : bool, default True
        Show the row labels.
    columns : str or callable, optional
        Format of the column labels (``lambda e: f"ε = {e:g}"``).
    missing : str, optional
        Text of a missing value (``"—"``); by default pandas' ``nan``.
    compact : bool, default False
        Tight cells, each on one line (:data:`COMPACT`).

    Returns
    -------
    pandas.io.formats.style.Styler

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame.

    Examples
    --------
    >>> t = page_table(pd.DataFrame({"rate": [0.05, None]}), "{:.3f}", missing="—", index=False)
    >>> "0.050" in t.to_html() and "—" in t.to_html()
    True
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    styler = frame.style
    if formats is not None or missing is not None:
        styler = styler.format(formats, na_rep=missing)
    if columns is not None:
        styler = styler.format_index(columns, axis=1)
    if not index:
        styler = styler.hide(axis="index")
    if compact:
        styler = styler.set_table_styles(COMPACT)
    return styler
