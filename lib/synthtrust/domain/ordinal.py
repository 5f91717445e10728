"""An already-discrete integer column ``lo..hi`` over public bounds: one code per value
(code = value − lo), decoded exactly.

Codes ``0..size-1`` as Private-PGM's mechanisms expect them [``privatepgm2025``].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._values import (
    as_series,
    check_codes,
    check_integer,
    check_token,
    column_label,
    float_values,
    missing_rows,
    numbers_out,
    show_values,
)


@dataclass(frozen=True)
class Ordinal:
    """An already-discrete integer column ``lo..hi``, one code per value (code = value - lo).

    Parameters
    ----------
    lo, hi : int
        Public bounds, ``lo <= hi``; ``size = hi - lo + 1 (+ 1 with a missing token)``.
    missing : str, int, float or None
        As for :class:`Numeric` (a numeric token must lie outside ``lo..hi``).

    Decoding is exact: int64 (float64 if a decoded value is missing).

    Raises
    ------
    TypeError
        ``lo``/``hi`` not integers.
    ValueError
        ``lo > hi``, or a numeric missing token inside ``lo..hi``.
    """

    lo: int
    hi: int
    missing: object = None

    def __post_init__(self):
        lo = check_integer(self.lo, "Ordinal: lo")
        hi = check_integer(self.hi, "Ordinal: hi")
        if lo > hi:
            raise ValueError(f"Ordinal: lo must be <= hi, got lo={lo}, hi={hi}")
        token = check_token(self.missing, "Ordinal")
        if isinstance(token, bool):
            raise TypeError("Ordinal: the missing token must be a str or a number, got a bool")
        if isinstance(token, (int, float)) and lo <= token <= hi:
            raise ValueError(
                f"Ordinal: missing token {token!r} lies inside {lo}..{hi}; choose one outside"
            )
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        object.__setattr__(self, "missing", token)

    @property
    def size(self) -> int:
        """Number of codes ``k``."""
        return self.hi - self.lo + 1 + (self.missing is not None)

    def labels(self) -> list[str]:
        """One label per code: the values, then the missing token."""
        out = [str(v) for v in range(self.lo, self.hi + 1)]
        return out + [str(self.missing)] if self.missing is not None else out

    def encode(self, values, column=None) -> np.ndarray:
        """Codes ``value - lo`` of ``values`` (1-D array-like of whole numbers): int64 (n,).

        Raises
        ------
        TypeError
            Non-numeric values.
        ValueError
            A value that is not a whole number or lies outside ``lo..hi``, or a missing value
            without a missing token (naming the column, the values and the bounds).
        """
        series = as_series(values, column)
        x = float_values(series, self.missing, column, "Ordinal")
        nan = missing_rows(x, self.missing, column, "Ordinal")
        bad = ~nan & ((x != np.round(x)) | (x < self.lo) | (x > self.hi))
        if bad.any():
            raise ValueError(
                f"{column_label(column)}: value(s) {show_values(pd.unique(x[bad]))} are not whole numbers in "
                f"the public range {self.lo}..{self.hi} ({int(bad.sum())} row(s))"
            )
        codes = (np.where(nan, self.lo, x) - self.lo).astype(np.int64)
        codes[nan] = self.size - 1
        return codes

    def decode(self, codes, random_state=None, column=None) -> pd.Series:
        """Values ``lo + code`` (exact); ``random_state`` unused."""
        codes = check_codes(codes, self.size, column)
        missing = (codes == self.size - 1) if self.missing is not None else codes < 0
        return pd.Series(numbers_out(codes + self.lo, missing, True), name=column)

    def to_dict(self) -> dict:
        """JSON-serialisable description (see :meth:`Domain.to_dict`)."""
        return {"type": "ordinal", "lo": self.lo, "hi": self.hi, "missing": self.missing}
