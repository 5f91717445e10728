"""Numbers as the pages, reports and summaries write them: the package's one percent and
number formatter (``presentation.charts``, ``presentation.verdict_tables``, the fidelity
report's summary and the chapters' tables use these)."""

from __future__ import annotations

import math
import numbers

__all__ = ["number", "percent"]


def _finite(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def percent(
    x, digits: int = 1, *, significant: bool = False, missing: str = "n/a", unit: str = " %"
) -> str:
    """A proportion as text in per cent: ``0.1234`` → ``"12.3 %"``.

    Parameters
    ----------
    x : float or None
        The proportion (1 = 100 %).
    digits : int, default 1
        Decimals of the percentage, or significant digits with ``significant``.
    significant : bool, default False
        ``digits`` counts significant digits (``0.01234, 3`` → ``"1.23 %"``).
    missing : str, default "n/a"
        The text for None, NaN and ±∞.
    unit : str, default " %"
        Appended to the number (``""`` for a table whose heading says "%").

    Examples
    --------
    >>> percent(0.1234), percent(0.5, 0), percent(0.01234, 3, significant=True)
    ('12.3 %', '50 %', '1.23 %')
    >>> percent(float("nan"), missing="—", unit="")
    '—'
    """
    if not _finite(x):
        return missing
    kind = "g" if significant else "f"
    return f"{100 * x:.{digits}{kind}}{unit}"


def number(x, digits: int = 3, *, missing: str = "n/a") -> str:
    """A number with ``digits`` decimals (``0.12345`` → ``"0.123"``); ``missing`` for None,
    NaN and ±∞.

    Examples
    --------
    >>> number(0.12345), number(2, digits=1), number(None)
    ('0.123', '2.0', 'n/a')
    """
    return f"{x:.{digits}f}" if _finite(x) else missing
