"""A numeric column cut into public bins: code = bin (left-closed, the last one closed, as
``numpy.histogram``); decoding draws uniformly within the bin.

The bin edges are public input of a DP mechanism [``privatepgm2025``]: they come from
documentation or domain knowledge, never from the data's min/max.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_random_state
from ._values import (
    as_series,
    check_bool,
    check_codes,
    check_integer,
    check_token,
    column_label,
    float_values,
    format_number,
    json_scalar,
    missing_rows,
    numbers_out,
    show_values,
)


@dataclass(frozen=True, init=False)
class Numeric:
    """A numeric column cut into public bins.

    Bins are **left-closed, the last one closed**: with edges ``e_0 < e_1 < ... < e_m`` the
    code of ``x`` is ``i`` if ``e_i <= x < e_{i+1}`` and ``m-1`` if ``x == e_m`` (as in
    ``numpy.histogram``). E.g. edges ``[0, 10, 20]``: 0 → 0, 9.99 → 0, 10 → 1, 20 → 1.

    Parameters
    ----------
    bins : list/array of edges, or tuple ``(lo, hi, n_bins)``
        A list or array of at least two strictly increasing finite edges; or a *tuple*
        ``(lo, hi, n_bins)`` for ``n_bins`` equal-width bins over ``[lo, hi]``. The edges must
        be public (documentation, physical or clinical plausibility), not the data's min/max.
    missing : str, int, float or None
        ``None`` (default): missing values are an error. Otherwise NaN (and values equal to the
        token, which must lie outside ``[lo, hi]``) get the last code ``m``, decoded to NaN.
    integer : bool
        Decode to integers: a uniform integer of the bin's integer range
        ``{ceil(e_i), ..., ceil(e_{i+1}) - 1}`` (last bin: up to ``floor(e_m)``), dtype int64
        (float64 if a decoded value is missing). Every bin must contain an integer.
    clip : bool
        Values outside ``[lo, hi]`` (including ±inf) are clipped into the first/last bin
        instead of raising.

    Attributes
    ----------
    edges : tuple of float
        The ``m + 1`` bin edges; ``size = m + (missing is not None)``.

    Decoding draws, per row, uniformly within the bin ``[e_i, e_{i+1})`` (continuous) so that
    ``encode(decode(codes)) == codes``.

    Raises
    ------
    ValueError
        Fewer than two edges, edges not strictly increasing or not finite, ``lo >= hi``, an
        integer bin without integers, a numeric missing token inside ``[lo, hi]``.
    TypeError
        ``bins`` of another type, ``n_bins`` not an int, non-bool ``integer``/``clip``.
    """

    edges: tuple
    missing: object
    integer: bool
    clip: bool

    def __init__(self, bins, missing=None, integer: bool = False, clip: bool = False):
        if isinstance(bins, tuple):
            if len(bins) != 3:
                raise TypeError(
                    "Numeric: a tuple bins must be (lo, hi, n_bins); pass edges as a list or "
                    f"array, got {bins!r}"
                )
            lo, hi, n_bins = bins
            n_bins = check_integer(n_bins, "Numeric: n_bins")
            if n_bins < 1:
                raise ValueError(f"Numeric: n_bins must be >= 1, got {n_bins}")
            lo = json_scalar(lo, "Numeric: lo")
            hi = json_scalar(hi, "Numeric: hi")
            if isinstance(lo, (str, bool)) or isinstance(hi, (str, bool)):
                raise TypeError(f"Numeric: lo and hi must be numbers, got {lo!r}, {hi!r}")
            if not lo < hi:
                raise ValueError(f"Numeric: lo must be < hi, got lo={lo!r}, hi={hi!r}")
            edges = np.linspace(float(lo), float(hi), n_bins + 1)
        elif isinstance(bins, (list, np.ndarray, pd.Index, pd.Series)):
            try:
                edges = np.asarray(bins, dtype=float)
            except (TypeError, ValueError):
                raise TypeError(f"Numeric: bin edges must be numbers, got {bins!r}") from None
            if edges.ndim != 1 or edges.size < 2:
                raise ValueError(f"Numeric: need at least two bin edges, got {bins!r}")
            if not np.isfinite(edges).all():
                raise ValueError(f"Numeric: bin edges must be finite, got {bins!r}")
            if not (np.diff(edges) > 0).all():
                raise ValueError(f"Numeric: bin edges must be strictly increasing, got {bins!r}")
        else:
            raise TypeError(
                "Numeric: bins must be a list/array of edges or a tuple (lo, hi, n_bins), got "
                f"{type(bins).__name__} {bins!r}"
            )
        integer = check_bool(integer, "Numeric: integer")
        clip = check_bool(clip, "Numeric: clip")
        token = check_token(missing, "Numeric")
        if isinstance(token, bool):
            raise TypeError("Numeric: the missing token must be a str or a number, got a bool")
        if isinstance(token, (int, float)) and edges[0] <= token <= edges[-1]:
            raise ValueError(
                f"Numeric: missing token {token!r} lies inside the bins "
                f"[{format_number(edges[0])}, {format_number(edges[-1])}]; choose a token outside them"
            )
        object.__setattr__(self, "edges", tuple(float(e) for e in edges))
        object.__setattr__(self, "missing", token)
        object.__setattr__(self, "integer", integer)
        object.__setattr__(self, "clip", clip)
        if integer:
            lo_i, hi_i = self._integer_ranges()
            empty = np.flatnonzero(lo_i > hi_i)
            if empty.size:
                i = int(empty[0])
                raise ValueError(
                    f"Numeric: integer=True but bin {i} [{format_number(edges[i])}, {format_number(edges[i + 1])}"
                    f"{']' if i == len(edges) - 2 else ')'} contains no integer"
                )

    @property
    def n_bins(self) -> int:
        """Number of bins ``m`` (without the missing code)."""
        return len(self.edges) - 1

    @property
    def size(self) -> int:
        """Number of codes ``k``."""
        return self.n_bins + (self.missing is not None)

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lo, hi)``: the first and last edge."""
        return self.edges[0], self.edges[-1]

    def _integer_ranges(self) -> tuple[np.ndarray, np.ndarray]:
        e = np.asarray(self.edges)
        lo = np.ceil(e[:-1])
        hi = np.ceil(e[1:]) - 1
        hi[-1] = np.floor(e[-1])
        return lo, hi

    def labels(self) -> list[str]:
        """``['[0, 10)', '[10, 20]', 'NA']`` — one label per code."""
        e = self.edges
        out = [f"[{format_number(e[i])}, {format_number(e[i + 1])})" for i in range(self.n_bins)]
        out[-1] = out[-1][:-1] + "]"
        return out + [str(self.missing)] if self.missing is not None else out

    def encode(self, values, column=None) -> np.ndarray:
        """Bin codes of ``values`` (1-D numeric array-like, length n): int64 array (n,).

        Raises
        ------
        TypeError
            Non-numeric values (strings, booleans), naming the column.
        ValueError
            A value outside ``[lo, hi]`` (unless ``clip=True``), or a missing value without a
            missing token; the message names the column, the values and the bounds.
        """
        series = as_series(values, column)
        x = float_values(series, self.missing, column, "Numeric")
        nan = missing_rows(x, self.missing, column, "Numeric")
        lo, hi = self.bounds
        if self.clip:
            x = np.clip(x, lo, hi)
        else:
            out = ~nan & ((x < lo) | (x > hi))
            if out.any():
                raise ValueError(
                    f"{column_label(column)}: value(s) {show_values(pd.unique(x[out]))} outside the public "
                    f"bounds [{format_number(lo)}, {format_number(hi)}] ({int(out.sum())} row(s)); widen the bins "
                    "or pass clip=True"
                )
        codes = np.searchsorted(np.asarray(self.edges), np.where(nan, lo, x), side="right") - 1
        codes = np.minimum(codes, self.n_bins - 1).astype(np.int64)
        codes[nan] = self.n_bins
        return codes

    def decode(self, codes, random_state=None, column=None) -> pd.Series:
        """Values drawn uniformly within each code's bin.

        Parameters
        ----------
        codes : int array-like, shape (n,)
        random_state : int, numpy.random.Generator or None
            Source of the draws (one draw per row, missing rows included, so the stream does
            not depend on which rows are missing).

        Returns
        -------
        pandas.Series, shape (n,)
            float64; int64 with ``integer=True`` (float64 if a decoded value is missing).
        """
        codes = check_codes(codes, self.size, column)
        rng = check_random_state(random_state)
        missing = codes == self.n_bins
        b = np.where(missing, 0, codes)
        last = b == self.n_bins - 1
        if self.integer:
            lo_i, hi_i = self._integer_ranges()
            values = rng.integers(lo_i[b].astype(np.int64), hi_i[b].astype(np.int64), endpoint=True)
        else:
            e = np.asarray(self.edges)
            lo, hi = e[b], e[b + 1]
            values = lo + (hi - lo) * rng.random(len(b))
            # keep the draw inside [lo, hi) despite rounding (the last bin is closed)
            values = np.where(
                last, np.minimum(values, hi), np.minimum(values, np.nextafter(hi, -np.inf))
            )
        return pd.Series(numbers_out(values, missing, self.integer), name=column)

    def to_dict(self) -> dict:
        """JSON-serialisable description (see :meth:`Domain.to_dict`)."""
        return {
            "type": "numeric",
            "bins": list(self.edges),
            "missing": self.missing,
            "integer": self.integer,
            "clip": self.clip,
        }
