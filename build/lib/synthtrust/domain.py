"""Reversible discrete encoding of mixed-type tables over a PUBLIC domain.

The marginal-based DP synthesizers (Private-PGM, MST, AIM, MWEM+PGM, PrivBayes, ...) work on
integer codes ``0..k-1`` per column plus the sizes ``{column: k}``; the reference code assumes
data already discretised this way (Private-PGM [``privatepgm2025``] ships adult integer-coded,
every column cut to at most 100 levels, and its mechanisms expect codes in ``0..size-1``). A
:class:`Domain` maps a pandas table to such codes and back.

The domain is part of the *public* input of a DP mechanism: bounds, bin edges and category
lists must come from documentation or domain knowledge, never from the private rows (otherwise
the observed minimum, maximum or the set of rare categories leak without any noise). The only
exception is :meth:`Domain.infer`, a convenience that reads the data and says so with a
``UserWarning``.

Column specifications (one concept each):

* :class:`Categorical` — a public list of categories (strings, ints, bools); code = position.
* :class:`Numeric` — public bin edges; code = bin; decoding draws uniformly within the bin.
* :class:`Ordinal` — integers ``lo..hi``, one code per value, decoded exactly.

Every spec may allow missing values (``missing=token``): NaN/None/``pd.NA``, and values equal
to the token (e.g. ``"?"``), get the spec's last code, which decodes to NaN.

:func:`dataset_domain` gives hand-written public domains for the small medical datasets of the
evaluation-protocols chapter (Movahedi et al. 2024) and for private-pgm's discretised adult.
"""

from __future__ import annotations

import json
import math
import numbers
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthtrust._validation import check_random_state

__all__ = [
    "DATASET_DOMAINS",
    "Categorical",
    "Domain",
    "Numeric",
    "Ordinal",
    "dataset_domain",
]

_MAX_SHOWN = 5  # offending values shown in an error message
_MAX_ALLOWED_SHOWN = 20  # allowed categories shown in an error message


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------
def _col(column) -> str:
    return "value" if column is None else f"column {column!r}"


def _scalar(value, what: str):
    """A JSON-serialisable Python scalar (str, bool, int, finite float) or a TypeError/ValueError."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (str, bool)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"{what} must be finite, got {value!r}")
        return value
    raise TypeError(
        f"{what} must be a str, int, float or bool (JSON-serialisable), "
        f"got {type(value).__name__} {value!r}"
    )


def _check_token(missing, what: str):
    if missing is None:
        return None
    return _scalar(missing, f"{what}: missing token")


def _check_bool(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def _check_int(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)


def _show(values) -> str:
    """``'a', 'b' (and 3 more)`` — a few offending values for a message."""
    values = list(values)
    shown = ", ".join(repr(_py(v)) for v in values[:_MAX_SHOWN])
    if len(values) > _MAX_SHOWN:
        shown += f" (and {len(values) - _MAX_SHOWN} more)"
    return shown


def _py(value):
    return value.item() if isinstance(value, np.generic) else value


def _as_series(values, column) -> pd.Series:
    if isinstance(values, pd.Series):
        return values
    if isinstance(values, (pd.DataFrame, Mapping)) or np.ndim(values) != 1:
        raise TypeError(f"{_col(column)}: expected a 1-D array-like of values")
    return pd.Series(values)


def _token_mask(series: pd.Series, token) -> np.ndarray:
    """Boolean mask of the values equal to ``token`` (bool and int never conflated)."""
    if token is None:
        return np.zeros(len(series), dtype=bool)
    dtype = series.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        if isinstance(token, (str, bool)):
            return np.zeros(len(series), dtype=bool)
        return series.to_numpy(dtype=float, na_value=np.nan) == token
    return pd.Index([token]).get_indexer(series) == 0


def _float_values(series: pd.Series, token, column, spec: str) -> np.ndarray:
    """Float values of a numeric column, NaN where missing or equal to the missing token.

    Raises
    ------
    TypeError
        If the column holds booleans, strings or other non-numbers.
    """
    is_token = _token_mask(series, token)
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise TypeError(
            f"{_col(column)}: {spec} expects numbers, got a boolean column; "
            "use Categorical([False, True]) for booleans"
        )
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        x = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        rest = series[~(is_token | series.isna().to_numpy())]
        kind = pd.api.types.infer_dtype(rest, skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "empty"):
            bad = [
                v
                for v in pd.unique(rest.to_numpy(dtype=object))
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
            ]
            what = f"non-numeric value(s) {_show(bad)}" if bad else "non-numeric values"
            raise TypeError(f"{_col(column)}: {spec} expects numbers, got {what} (dtype {dtype})")
        x = np.full(len(series), np.nan)
        keep = ~(is_token | series.isna().to_numpy())
        x[keep] = rest.to_numpy(dtype=float)
    if is_token.any():
        x = x.copy()
        x[is_token] = np.nan
    return x


def _missing_rows(x: np.ndarray, token, column, spec: str) -> np.ndarray:
    nan = np.isnan(x)
    if nan.any() and token is None:
        raise ValueError(
            f"{_col(column)}: {int(nan.sum())} missing value(s) (NaN/None) but {spec} has no "
            "missing token; pass missing=<token> (e.g. 'NA') to give missing values their own code"
        )
    return nan


def _check_codes(codes, size: int, column) -> np.ndarray:
    """Integer codes in ``0..size-1`` as int64, or a clear error."""
    series = _as_series(codes, column)
    if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(series.dtype):
        raise TypeError(f"{_col(column)}: codes must be integers, got dtype {series.dtype}")
    x = series.to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(x) | (x != np.round(x)) | (x < 0) | (x > size - 1)
    if bad.any():
        raise ValueError(
            f"{_col(column)}: code(s) {_show(pd.unique(x[bad]))} are not integers in "
            f"0..{size - 1} (the column has {size} codes)"
        )
    return x.astype(np.int64)


def _numbers_out(values: np.ndarray, missing: np.ndarray, integer: bool) -> np.ndarray:
    """Decoded numbers: int64 when ``integer`` and nothing missing, else float64 with NaN."""
    if integer and not missing.any():
        return values.astype(np.int64)
    out = values.astype(float)
    out[missing] = np.nan
    return out


def _fmt(x: float) -> str:
    return f"{x:g}"


# --------------------------------------------------------------------------------------------
# Column specifications
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Categorical:
    """A categorical column with a public list of categories.

    Parameters
    ----------
    categories : sequence of str, int, float or bool
        The allowed values, unique; code ``i`` is ``categories[i]``. ``True`` and ``1`` are
        different categories (a bool column needs ``[False, True]``).
    missing : str, int, float, bool or None
        ``None`` (default): missing values are an error. Otherwise a token (e.g. ``"NA"`` or
        ``"?"``): NaN/None/``pd.NA`` and values equal to the token get the last code
        ``len(categories)``, which decodes to NaN. The token must not be a category.

    Codes: ``size = len(categories) + (missing is not None)``. Decoding is exact; the dtype is
    what pandas gives the category values (``str``, ``int64``, ``bool``; ``float64`` or
    ``object`` if a decoded value is missing).

    Raises
    ------
    ValueError
        Duplicate categories, NaN among them, no categories and no missing token, or a token
        that is also a category.
    TypeError
        A category or token that is not a JSON scalar.
    """

    categories: tuple
    missing: object = None

    def __post_init__(self):
        if isinstance(self.categories, (str, bytes)) or not isinstance(
            self.categories, (Sequence, np.ndarray, pd.Index, pd.Series)
        ):
            raise TypeError(
                "Categorical: categories must be a list of values, got "
                f"{type(self.categories).__name__} {self.categories!r}"
            )
        cats = []
        for i, c in enumerate(self.categories):
            if c is None or c is pd.NA or (isinstance(c, float) and math.isnan(c)):
                raise ValueError(
                    f"Categorical: categories[{i}] is missing ({c!r}); "
                    "use missing=<token> for missing values"
                )
            cats.append(_scalar(c, f"Categorical: categories[{i}]"))
        token = _check_token(self.missing, "Categorical")
        index = pd.Index(cats)
        if not index.is_unique:
            dup = index[index.duplicated()].tolist()
            raise ValueError(f"Categorical: duplicate categories {_show(dup)}")
        if not cats and token is None:
            raise ValueError("Categorical: needs at least one category or a missing token")
        if token is not None and (index.get_indexer([token]) >= 0).any():
            raise ValueError(f"Categorical: missing token {token!r} is also a category")
        object.__setattr__(self, "categories", tuple(cats))
        object.__setattr__(self, "missing", token)

    @property
    def size(self) -> int:
        """Number of codes ``k``."""
        return len(self.categories) + (self.missing is not None)

    def labels(self) -> list[str]:
        """One human-readable label per code (for tables and charts)."""
        out = [str(c) for c in self.categories]
        return out + [str(self.missing)] if self.missing is not None else out

    def encode(self, values, column=None) -> np.ndarray:
        """Codes of ``values`` (1-D array-like, length n) as an int64 array of shape (n,).

        Raises
        ------
        ValueError
            A value not in ``categories`` ("unseen category", naming the column, the value and
            the allowed categories), or a missing value without a missing token.
        """
        series = _as_series(values, column)
        # factorize once (fast), then look the few distinct values up in the categories
        row_codes, uniques = pd.factorize(series, use_na_sentinel=True)
        unique_codes = pd.Index(list(self.categories)).get_indexer(uniques).astype(np.int64)
        unique_codes[_token_mask(pd.Series(uniques), self.missing)] = self.size - 1
        codes = np.append(unique_codes, -1)[row_codes]  # NA rows (row code -1) -> -1
        unknown = codes < 0
        if unknown.any():
            isna = series.isna().to_numpy()
            na = unknown & isna
            if na.any():
                if self.missing is None:
                    raise ValueError(
                        f"{_col(column)}: {int(na.sum())} missing value(s) (NaN/None) but the "
                        "Categorical has no missing token; pass missing=<token> (e.g. 'NA') to "
                        "give missing values their own code"
                    )
                codes[na] = self.size - 1
            unseen = unknown & ~isna
            if unseen.any():
                bad = pd.unique(series[unseen].to_numpy(dtype=object))
                allowed = list(self.categories)
                shown = repr(allowed[:_MAX_ALLOWED_SHOWN])
                if len(allowed) > _MAX_ALLOWED_SHOWN:
                    shown = shown[:-1] + f", ... ({len(allowed)} in all)]"
                token = f"; missing token {self.missing!r}" if self.missing is not None else ""
                raise ValueError(
                    f"{_col(column)}: unseen category {_show(bad)} "
                    f"({int(unseen.sum())} row(s)); allowed categories: {shown}{token}"
                )
        return codes

    def decode(self, codes, random_state=None, column=None) -> pd.Series:
        """Values of ``codes`` (int array-like, shape (n,)), exactly; ``random_state`` unused."""
        codes = _check_codes(codes, self.size, column)
        if self.missing is not None:
            codes = np.where(codes == self.size - 1, -1, codes)
        index = pd.Index(list(self.categories))
        return pd.Series(index.take(codes, allow_fill=True, fill_value=np.nan), name=column)

    def to_dict(self) -> dict:
        """JSON-serialisable description (see :meth:`Domain.to_dict`)."""
        return {"type": "categorical", "categories": list(self.categories), "missing": self.missing}


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
            n_bins = _check_int(n_bins, "Numeric: n_bins")
            if n_bins < 1:
                raise ValueError(f"Numeric: n_bins must be >= 1, got {n_bins}")
            lo = _scalar(lo, "Numeric: lo")
            hi = _scalar(hi, "Numeric: hi")
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
        integer = _check_bool(integer, "Numeric: integer")
        clip = _check_bool(clip, "Numeric: clip")
        token = _check_token(missing, "Numeric")
        if isinstance(token, bool):
            raise TypeError("Numeric: the missing token must be a str or a number, got a bool")
        if isinstance(token, (int, float)) and edges[0] <= token <= edges[-1]:
            raise ValueError(
                f"Numeric: missing token {token!r} lies inside the bins "
                f"[{_fmt(edges[0])}, {_fmt(edges[-1])}]; choose a token outside them"
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
                    f"Numeric: integer=True but bin {i} [{_fmt(edges[i])}, {_fmt(edges[i + 1])}"
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
        out = [f"[{_fmt(e[i])}, {_fmt(e[i + 1])})" for i in range(self.n_bins)]
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
        series = _as_series(values, column)
        x = _float_values(series, self.missing, column, "Numeric")
        nan = _missing_rows(x, self.missing, column, "Numeric")
        lo, hi = self.bounds
        if self.clip:
            x = np.clip(x, lo, hi)
        else:
            out = ~nan & ((x < lo) | (x > hi))
            if out.any():
                raise ValueError(
                    f"{_col(column)}: value(s) {_show(pd.unique(x[out]))} outside the public "
                    f"bounds [{_fmt(lo)}, {_fmt(hi)}] ({int(out.sum())} row(s)); widen the bins "
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
        codes = _check_codes(codes, self.size, column)
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
        return pd.Series(_numbers_out(values, missing, self.integer), name=column)

    def to_dict(self) -> dict:
        """JSON-serialisable description (see :meth:`Domain.to_dict`)."""
        return {
            "type": "numeric",
            "bins": list(self.edges),
            "missing": self.missing,
            "integer": self.integer,
            "clip": self.clip,
        }


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
        lo = _check_int(self.lo, "Ordinal: lo")
        hi = _check_int(self.hi, "Ordinal: hi")
        if lo > hi:
            raise ValueError(f"Ordinal: lo must be <= hi, got lo={lo}, hi={hi}")
        token = _check_token(self.missing, "Ordinal")
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
        series = _as_series(values, column)
        x = _float_values(series, self.missing, column, "Ordinal")
        nan = _missing_rows(x, self.missing, column, "Ordinal")
        bad = ~nan & ((x != np.round(x)) | (x < self.lo) | (x > self.hi))
        if bad.any():
            raise ValueError(
                f"{_col(column)}: value(s) {_show(pd.unique(x[bad]))} are not whole numbers in "
                f"the public range {self.lo}..{self.hi} ({int(bad.sum())} row(s))"
            )
        codes = (np.where(nan, self.lo, x) - self.lo).astype(np.int64)
        codes[nan] = self.size - 1
        return codes

    def decode(self, codes, random_state=None, column=None) -> pd.Series:
        """Values ``lo + code`` (exact); ``random_state`` unused."""
        codes = _check_codes(codes, self.size, column)
        missing = (codes == self.size - 1) if self.missing is not None else codes < 0
        return pd.Series(_numbers_out(codes + self.lo, missing, True), name=column)

    def to_dict(self) -> dict:
        """JSON-serialisable description (see :meth:`Domain.to_dict`)."""
        return {"type": "ordinal", "lo": self.lo, "hi": self.hi, "missing": self.missing}


_SPEC_TYPES = (Categorical, Numeric, Ordinal)
_SPEC_KEYS = {
    "categorical": (Categorical, {"categories"}, {"missing"}),
    "numeric": (Numeric, {"bins"}, {"missing", "integer", "clip"}),
    "ordinal": (Ordinal, {"lo", "hi"}, {"missing"}),
}


def _spec_from_dict(column: str, d) -> Categorical | Numeric | Ordinal:
    if not isinstance(d, Mapping):
        raise TypeError(f"column {column!r}: spec must be a mapping, got {type(d).__name__} {d!r}")
    kind = d.get("type")
    if kind not in _SPEC_KEYS:
        raise ValueError(
            f"column {column!r}: unknown spec type {kind!r}; allowed: {', '.join(_SPEC_KEYS)}"
        )
    cls, required, optional = _SPEC_KEYS[kind]
    keys = set(d) - {"type", "name"}
    if required - keys or keys - required - optional:
        raise ValueError(
            f"column {column!r}: a {kind} spec needs keys {sorted(required)} and may have "
            f"{sorted(optional)}, got {sorted(keys)}"
        )
    kwargs = {k: d[k] for k in keys}
    if kind == "numeric":
        kwargs["bins"] = list(kwargs["bins"])  # JSON/YAML lists are edges
    return cls(**kwargs)


# --------------------------------------------------------------------------------------------
# The domain of a table
# --------------------------------------------------------------------------------------------
class Domain:
    """The public domain of a table: one spec per column, and the encoding it defines.

    Parameters
    ----------
    specs : mapping {column name (str): Categorical | Numeric | Ordinal}
        In column order.

    The properties ``columns``, ``sizes`` and ``cells`` describe the coded table.

    Examples
    --------
    ::

        dom = Domain({"sex": Categorical(["F", "M"]), "age": Numeric([0, 50, 120], integer=True)})
        codes = dom.encode(df)                   # int64 codes, columns ["sex", "age"]
        synth = dom.decode(codes, random_state=0)  # same types as df; ages uniform in their bin

    Raises
    ------
    TypeError
        ``specs`` not a mapping, a column name that is not a str, a spec of another type.
    ValueError
        No columns.
    """

    def __init__(self, specs: Mapping):
        if not isinstance(specs, Mapping):
            raise TypeError(
                f"Domain: specs must be a mapping {{column: spec}}, got {type(specs).__name__}"
            )
        if not specs:
            raise ValueError("Domain: needs at least one column")
        for name, spec in specs.items():
            if not isinstance(name, str):
                raise TypeError(f"Domain: column names must be str, got {name!r}")
            if not isinstance(spec, _SPEC_TYPES):
                raise TypeError(
                    f"column {name!r}: spec must be Categorical, Numeric or Ordinal, got "
                    f"{type(spec).__name__} {spec!r}"
                )
        self._specs: dict[str, Categorical | Numeric | Ordinal] = dict(specs)

    # ---------------------------------------------------------------- introspection
    @property
    def columns(self) -> list[str]:
        """Column names in order (a new list)."""
        return list(self._specs)

    @property
    def sizes(self) -> dict[str, int]:
        """``{column: number of codes}`` in column order (a new dict): the input the marginal
        synthesizers take, as ``mbi.Domain`` / private-pgm's ``*-domain.json``."""
        return {name: spec.size for name, spec in self._specs.items()}

    @property
    def specs(self) -> dict:
        """``{column: spec}`` in column order (a new dict; specs are immutable)."""
        return dict(self._specs)

    @property
    def cells(self) -> int:
        """``prod(sizes)``, the size of the full contingency table (Python int, no overflow)."""
        return math.prod(self.sizes.values())

    def __getitem__(self, column: str):
        try:
            return self._specs[column]
        except KeyError:
            raise KeyError(
                f"column {column!r} is not in the domain; columns: {self.columns}"
            ) from None

    def __contains__(self, column) -> bool:
        return column in self._specs

    def __len__(self) -> int:
        return len(self._specs)

    def __iter__(self):
        return iter(self._specs)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Domain):
            return NotImplemented
        return list(self._specs.items()) == list(other._specs.items())

    __hash__ = None

    def __repr__(self) -> str:
        cells = self.cells
        shown = str(cells) if cells < 10**9 else f"{cells:.3g}"
        return f"Domain(columns={len(self)}, cells={shown}, sizes={self.sizes})"

    def labels(self, column: str) -> list[str]:
        """Human-readable label of each code of ``column`` (e.g. ``'[0, 10)'``, ``'F'``)."""
        return self[column].labels()

    def select(self, columns: Sequence[str]) -> Domain:
        """The domain of a subset of the columns, in the given order.

        Raises
        ------
        ValueError
            A column not in the domain, or a repeated column.
        """
        columns = list(columns)
        unknown = [c for c in columns if c not in self._specs]
        if unknown:
            raise ValueError(f"columns {unknown} are not in the domain; columns: {self.columns}")
        if len(set(columns)) != len(columns):
            raise ValueError(f"repeated columns in {columns}")
        return Domain({c: self._specs[c] for c in columns})

    # ---------------------------------------------------------------- encode / decode
    def _check_frame(self, df, what: str) -> None:
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
        if df.columns.has_duplicates:
            dup = df.columns[df.columns.duplicated()].tolist()
            raise ValueError(f"{what} has duplicated columns {dup}")
        missing = [c for c in self._specs if c not in df.columns]
        extra = [c for c in df.columns if c not in self._specs]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"columns of the domain missing from {what}: {missing}")
            if extra:
                parts.append(f"columns of {what} not in the domain: {extra}")
            raise ValueError(
                "; ".join(parts) + " (use Domain.select(...) or df[domain.columns] to align)"
            )

    def encode(self, df: pd.DataFrame) -> pd.DataFrame:
        """Integer codes of a table.

        Parameters
        ----------
        df : pandas.DataFrame, shape (n, d)
            Exactly the domain's columns (any order).

        Returns
        -------
        pandas.DataFrame, shape (n, d)
            int64 codes ``0..k-1`` per column, columns in ``self.columns`` order, ``df``'s index.

        Raises
        ------
        ValueError
            Columns missing or extra (named), an unseen category, a value outside the public
            bounds, a missing value in a column without a missing token.
        TypeError
            ``df`` not a DataFrame; non-numeric values in a Numeric/Ordinal column.
        """
        self._check_frame(df, "df")
        out = {name: spec.encode(df[name], column=name) for name, spec in self._specs.items()}
        return pd.DataFrame(out, index=df.index, columns=self.columns)

    def decode(self, codes, random_state=None) -> pd.DataFrame:
        """Values of a table of codes (the inverse of :meth:`encode`, up to within-bin position).

        Parameters
        ----------
        codes : pandas.DataFrame (n, d) with the domain's columns, or array (n, d) in
            ``self.columns`` order
            Integer codes ``0..k-1`` (integer-valued floats are accepted).
        random_state : int, numpy.random.Generator or None
            For the within-bin draws of Numeric columns (columns consume the stream in
            ``self.columns`` order). Same seed → same frame.

        Returns
        -------
        pandas.DataFrame, shape (n, d)
            Columns in ``self.columns`` order, the original types: categories exactly, ordinal
            values exactly, numeric values uniform within their bin; missing codes → NaN.

        Raises
        ------
        ValueError
            Columns missing/extra, wrong array shape, codes outside ``0..k-1``.
        TypeError
            Non-integer codes dtype, a bad ``random_state``.
        """
        if isinstance(codes, np.ndarray):
            if codes.ndim != 2 or codes.shape[1] != len(self):
                raise ValueError(
                    f"codes array must have shape (n, {len(self)}) (columns {self.columns}), "
                    f"got {codes.shape}"
                )
            codes = pd.DataFrame(codes, columns=self.columns)
        self._check_frame(codes, "codes")
        rng = check_random_state(random_state)
        out = {}
        for name, spec in self._specs.items():
            values = spec.decode(codes[name], random_state=rng, column=name)
            values.index = codes.index
            out[name] = values
        return pd.DataFrame(out, index=codes.index, columns=self.columns)

    # ---------------------------------------------------------------- (de)serialisation
    def to_dict(self) -> dict:
        """JSON/YAML-serialisable description, round-tripped by :meth:`from_dict`.

        Returns
        -------
        dict
            ``{"columns": [{"name": col, "type": "categorical"|"numeric"|"ordinal", ...}]}``
            (a list, so the column order survives YAML dumpers that sort keys).
        """
        return {"columns": [{"name": name, **spec.to_dict()} for name, spec in self._specs.items()]}

    @classmethod
    def from_dict(cls, d: Mapping) -> Domain:
        """Domain from :meth:`to_dict`'s output, or from a mapping ``{column: spec dict}``.

        A spec dict is ``{"type": "categorical", "categories": [...], "missing": None}``,
        ``{"type": "numeric", "bins": [edges...], "missing": None, "integer": False,
        "clip": False}`` or ``{"type": "ordinal", "lo": 0, "hi": 9, "missing": None}``
        (optional keys may be left out).

        Raises
        ------
        ValueError
            Unknown spec type or keys, repeated column names, invalid spec values.
        TypeError
            Not a mapping; a column entry that is not a mapping.
        """
        if not isinstance(d, Mapping):
            raise TypeError(f"Domain.from_dict: expected a mapping, got {type(d).__name__}")
        if set(d) == {"columns"} and isinstance(d["columns"], list):
            specs = {}
            for i, entry in enumerate(d["columns"]):
                if not isinstance(entry, Mapping) or "name" not in entry:
                    raise ValueError(
                        f"Domain.from_dict: columns[{i}] needs a 'name', got {entry!r}"
                    )
                name = entry["name"]
                if name in specs:
                    raise ValueError(f"Domain.from_dict: column {name!r} appears twice")
                specs[name] = _spec_from_dict(name, entry)
            return cls(specs)
        return cls({name: _spec_from_dict(name, spec) for name, spec in d.items()})

    @classmethod
    def from_sizes(cls, sizes: Mapping[str, int]) -> Domain:
        """Domain of already integer-coded data: column ``c`` holds codes ``0..sizes[c]-1``.

        Encoding and decoding are the identity (each column is ``Ordinal(0, k - 1)``). This is
        the format of private-pgm's ``data/*-domain.json`` (e.g.
        ``data/adult_pgm_discretized_domain.json``).

        Raises
        ------
        TypeError
            A size that is not an int.
        ValueError
            A size < 1.
        """
        if not isinstance(sizes, Mapping):
            raise TypeError(f"Domain.from_sizes: expected a mapping, got {type(sizes).__name__}")
        specs = {}
        for name, k in sizes.items():
            k = _check_int(k, f"size of column {name!r}")
            if k < 1:
                raise ValueError(f"size of column {name!r} must be >= 1, got {k}")
            specs[name] = Ordinal(0, k - 1)
        return cls(specs)

    @classmethod
    def infer(
        cls,
        df: pd.DataFrame,
        n_bins: int = 10,
        max_categories: int = 10,
        missing: str = "NA",
    ) -> Domain:
        """NON-PRIVATE convenience: a domain read off the data itself (warns).

        Columns of dtype object/str/bool/category, and numeric columns with at most
        ``max_categories`` distinct values, become :class:`Categorical` (sorted observed
        values, or the dtype's categories); other numeric columns become :class:`Numeric` with
        ``n_bins`` equal-width bins over the observed ``[min, max]`` (``integer=True`` if all
        values are whole numbers; fewer bins if the integer range is shorter). Columns with
        missing values get the token ``missing``.

        The observed categories and min/max are functions of the private rows, so a DP
        mechanism run on this domain is **not** differentially private. Use public specs.

        Warns
        -----
        UserWarning
            Always: "Domain.infer reads the domain from the data; it is not differentially
            private".

        Raises
        ------
        TypeError
            ``df`` not a DataFrame; a column of an unsupported dtype (e.g. datetime).
        ValueError
            Empty ``df``.
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"Domain.infer: df must be a pandas DataFrame, got {type(df).__name__}")
        n_bins = _check_int(n_bins, "n_bins")
        max_categories = _check_int(max_categories, "max_categories")
        if n_bins < 1 or max_categories < 1:
            raise ValueError(
                f"n_bins and max_categories must be >= 1, got {n_bins}, {max_categories}"
            )
        if df.shape[1] == 0 or df.shape[0] == 0:
            raise ValueError(f"Domain.infer: df is empty (shape {df.shape})")
        warnings.warn(
            "Domain.infer reads the domain (categories, min/max) from the data; it is not "
            "differentially private. Use public bounds (Categorical/Numeric/Ordinal) for a DP "
            "release.",
            UserWarning,
            stacklevel=2,
        )
        specs = {}
        for name in df.columns:
            s = df[name]
            token = missing if s.isna().any() else None
            observed = s.dropna()
            dtype = s.dtype
            if isinstance(dtype, pd.CategoricalDtype):
                specs[name] = Categorical(list(dtype.categories), missing=token)
                continue
            numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
            if not numeric and not (
                pd.api.types.is_bool_dtype(dtype)
                or pd.api.types.is_object_dtype(dtype)
                or pd.api.types.is_string_dtype(dtype)
            ):
                raise TypeError(
                    f"column {name!r}: Domain.infer cannot handle dtype {dtype}; "
                    "convert it to numbers or strings first"
                )
            uniques = pd.unique(observed.to_numpy(dtype=object)).tolist()
            if not numeric or len(uniques) <= max_categories:
                try:
                    uniques = sorted(uniques)
                except TypeError:
                    pass  # mixed types: keep order of appearance
                specs[name] = Categorical(uniques, missing=token)
                continue
            x = observed.to_numpy(dtype=float)
            lo, hi = float(x.min()), float(x.max())
            integer = bool(np.all(x == np.round(x)))
            n = min(n_bins, int(hi - lo)) if integer else n_bins
            specs[name] = Numeric((lo, hi, max(n, 1)), missing=token, integer=integer)
        return cls(specs)


# --------------------------------------------------------------------------------------------
# Hand-written public domains of the datasets in data/
# --------------------------------------------------------------------------------------------
_FT = ("f", "t")  # UCI thyroid names file: every flag is "f, t."


def _pima_diabetes() -> Domain:
    """Pima Indians Diabetes (NIDDK; Kaggle header). Units from the UCI documentation.

    Zeros mean "missing" in Glucose, BloodPressure, SkinThickness, Insulin and BMI
    (data/DATASETS.md §4). They are kept as values: the integer columns get a first bin
    [0, 1) that decodes exactly to 0; BMI's first bin [0, 10) holds no possible adult BMI, only
    the 0 marker (decoded uniformly in [0, 10)).
    """
    return Domain(
        {
            # number of times pregnant: 0..20 covers the dataset's documented maximum of 17
            # (Kaggle data card) with room for the plausible range of recorded pregnancies
            "Pregnancies": Ordinal(0, 20),
            # 2-h OGTT plasma glucose (mg/dL). ADA cut-offs 140 (impaired) and 200 (diabetes);
            # upper bound 400 mg/dL covers severe hyperglycaemia
            "Glucose": Numeric([0, 1, 60, 80, 100, 120, 140, 160, 180, 200, 400], integer=True),
            # diastolic blood pressure (mm Hg); AHA cut-offs 80 / 90 / 120 (crisis); bound 140
            "BloodPressure": Numeric([0, 1, 40, 50, 60, 70, 80, 90, 100, 140], integer=True),
            # triceps skinfold thickness (mm); 100 mm covers the file's implausible 99 (kept)
            "SkinThickness": Numeric([0, 1, 10, 20, 30, 40, 50, 100], integer=True),
            # 2-h serum insulin (mu U/mL); hyperinsulinaemia reaches several hundred; bound 900
            "Insulin": Numeric([0, 1, 50, 100, 150, 200, 300, 400, 600, 900], integer=True),
            # body mass index (kg/m^2), WHO classes 18.5/25/30/35/40; bound 70 (extreme obesity)
            "BMI": Numeric([0, 10, 18.5, 25, 30, 35, 40, 50, 70]),
            # diabetes pedigree function (Smith et al. 1988), a score >= 0; no published upper
            # bound: 2.5 covers the range reported for the dataset (max 2.42)
            "DiabetesPedigreeFunction": Numeric([0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.5]),
            # "all patients here are females at least 21 years old" (UCI); bound 100 years
            "Age": Numeric([21, 25, 30, 35, 40, 50, 60, 70, 100], integer=True),
            # class variable: 1 = tested positive for diabetes
            "Outcome": Categorical([0, 1]),
        }
    )


def _ilpd() -> Domain:
    """UCI Indian Liver Patient Dataset (Kaggle column names). Clinical reference ranges from
    standard laboratory references (normal ranges in the comments); upper bounds are
    plausible extremes, chosen to cover the recorded values where those are extreme."""
    return Domain(
        {
            # UCI: "Any patient whose age exceeded 89 is listed as being of age 90"
            "Age": Numeric([0, 20, 30, 40, 50, 60, 70, 90], integer=True),
            "Gender": Categorical(["Female", "Male"]),
            # total bilirubin (mg/dL), normal 0.1-1.2; severe jaundice up to ~80 (file max 75)
            "Total_Bilirubin": Numeric([0, 0.6, 0.9, 1.2, 2, 3, 5, 10, 20, 80]),
            # direct bilirubin (mg/dL), normal < 0.3; bound 30 (file max 19.7)
            "Direct_Bilirubin": Numeric([0, 0.2, 0.3, 0.5, 1, 2, 5, 10, 30]),
            # alkaline phosphatase (IU/L), normal ~44-147; bound 2500 (file max 2110)
            "Alkaline_Phosphotase": Numeric(
                [0, 120, 150, 200, 250, 300, 400, 600, 1000, 2500], integer=True
            ),
            # ALT/SGPT (IU/L), normal ~7-56; acute hepatitis reaches thousands; bound 5000
            "Alamine_Aminotransferase": Numeric(
                [0, 20, 30, 40, 60, 100, 200, 500, 1000, 5000], integer=True
            ),
            # AST/SGOT (IU/L), normal ~10-40; bound 5000 covers the file's 4929 (acute necrosis)
            "Aspartate_Aminotransferase": Numeric(
                [0, 20, 30, 40, 60, 100, 200, 500, 1000, 5000], integer=True
            ),
            # total proteins (g/dL), normal 6.0-8.3
            "Total_Protiens": Numeric([2, 5, 6, 6.5, 7, 7.5, 8, 8.5, 10]),
            # albumin (g/dL), normal 3.5-5.5
            "Albumin": Numeric([0.5, 2, 2.5, 3, 3.5, 4, 4.5, 6]),
            # albumin/globulin ratio, normal ~1.1-2.5; 4 rows empty in the file
            "Albumin_and_Globulin_Ratio": Numeric(
                [0, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 2, 3], missing="NA"
            ),
            # class ("Selector"): 1 = liver patient, 2 = not
            "Dataset": Categorical([1, 2]),
        }
    )


def _hypothyroid_allhypo() -> Domain:
    """UCI Thyroid Disease, Garvan "allhypo" (names file: flags "f, t", sex "M, F",
    referral source "WEST, STMW, SVHC, SVI, SVHD, other"; hormone units as in the Garvan
    records: TSH mU/L, T3 and TT4 nmol/L, T4U ratio, FTI = TT4/T4U). Missing values ("?")
    get the token "NA". Movahedi et al. (2024, Table 1) use 16 categorical + 6 numeric
    features, i.e. without the six *_measured flags and TBG; use ``Domain.select`` for that.
    """
    flags = [
        "on_thyroxine",
        "query_on_thyroxine",
        "on_antithyroid_medication",
        "sick",
        "pregnant",
        "thyroid_surgery",
        "I131_treatment",
        "query_hypothyroid",
        "query_hyperthyroid",
        "lithium",
        "goitre",
        "tumor",
        "hypopituitary",
        "psych",
    ]
    specs = {
        # years; one record has age 455 (a data-entry error in the UCI file): rather than
        # stretching the top bin to 455, clip=True puts it in the top bin [80, 100]
        "age": Numeric([0, 20, 30, 40, 50, 60, 70, 80, 100], integer=True, clip=True, missing="NA"),
        "sex": Categorical(["F", "M"], missing="NA"),
    }
    specs.update({f: Categorical(_FT) for f in flags})
    hormones = {
        # TSH (mU/L), normal ~0.4-4; primary hypothyroidism reaches hundreds (file max 530)
        "TSH": Numeric([0, 0.4, 1, 2, 4, 6, 10, 20, 50, 100, 600], missing="NA"),
        # T3 (nmol/L), normal ~1.2-2.8 (file max 10.6)
        "T3": Numeric([0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 6, 12], missing="NA"),
        # total T4 (nmol/L), normal ~60-150 (file max 430)
        "TT4": Numeric([0, 30, 60, 80, 100, 120, 150, 200, 300, 500], missing="NA"),
        # T4 uptake (ratio), normal ~0.7-1.2
        "T4U": Numeric([0, 0.6, 0.8, 0.9, 1.0, 1.1, 1.2, 1.5, 2.5], missing="NA"),
        # free thyroxine index = TT4/T4U, same scale as TT4 (file max 395)
        "FTI": Numeric([0, 30, 60, 80, 100, 120, 150, 200, 300, 500], missing="NA"),
        # thyroxine-binding globulin: never measured in allhypo (all missing); coarse bins
        "TBG": Numeric([0, 15, 30, 200], missing="NA"),
    }
    for h in ("TSH", "T3", "TT4", "T4U", "FTI", "TBG"):
        specs[f"{h}_measured"] = Categorical(_FT)
        specs[h] = hormones[h]
    specs["referral_source"] = Categorical(["WEST", "STMW", "SVHC", "SVI", "SVHD", "other"])
    # the four allhypo classes of data/DATASETS.md (the names file also lists a plain
    # "hypothyroid" class, which allhypo never uses)
    specs["Target"] = Categorical(
        ["negative", "compensated_hypothyroid", "primary_hypothyroid", "secondary_hypothyroid"]
    )
    return Domain(specs)


def _adult_pgm_discretized() -> Domain:
    """private-pgm's integer-coded adult: sizes from data/adult_pgm_discretized_domain.json
    (ryan112358/private-pgm data/adult-domain.json); the label is Categorical([0, 1])."""
    from synthtrust.datasets import DATA_DIR

    file = DATA_DIR / "adult_pgm_discretized_domain.json"
    if not file.exists():
        raise FileNotFoundError(f"domain file {file} is missing; data/ must hold {file.name}")
    sizes = json.loads(file.read_text())
    specs = Domain.from_sizes(sizes).specs
    specs["income>50K"] = Categorical([0, 1])
    return Domain(specs)


def _cardio() -> Domain:
    """Kaggle Cardiovascular Disease dataset (cardio_train; data/DATASETS.md). The record ``id``
    is not an attribute and is not in the domain (select the other columns before encoding).

    Numeric attributes (5, the paper's Table 1) are binned at clinical cut-offs; blood
    pressures and body measures are clipped to physiologically possible ranges, because the
    file holds data-entry errors (negative pressures, ap_hi = 16 020) that a public domain must
    not be stretched to."""
    return Domain(
        {
            # age in days; 30..65 years in the file's documentation (bins of 5 years, 29..66 y)
            "age": Numeric(
                [29 * 365, 40 * 365, 45 * 365, 50 * 365, 55 * 365, 60 * 365, 66 * 365],
                integer=True,
                clip=True,
            ),
            "gender": Categorical([1, 2]),
            # height (cm); adult range 120..220 clipped
            "height": Numeric([120, 150, 160, 170, 180, 220], integer=True, clip=True),
            # weight (kg); 30..200 clipped; WHO-like steps
            "weight": Numeric([30, 60, 70, 80, 90, 100, 200], clip=True),
            # systolic pressure (mm Hg), AHA categories 120/130/140/180; clipped to 60..250
            "ap_hi": Numeric([60, 120, 130, 140, 160, 180, 250], integer=True, clip=True),
            # diastolic pressure (mm Hg), AHA categories 80/90/120; clipped to 30..180
            "ap_lo": Numeric([30, 70, 80, 90, 100, 120, 180], integer=True, clip=True),
            "cholesterol": Categorical([1, 2, 3]),  # normal / above normal / well above normal
            "gluc": Categorical([1, 2, 3]),
            "smoke": Categorical([0, 1]),
            "alco": Categorical([0, 1]),
            "active": Categorical([0, 1]),
            "cardio": Categorical([0, 1]),  # class: cardiovascular disease present
        }
    )


def _census2011() -> Domain:
    """ONS 2011 Census Microdata Teaching File (England and Wales), its 17 attributes.

    Code lists of the ONS teaching-file variable list (all published, none read from the
    rows); ``-9`` ("no code required": e.g. residents of communal establishments, people aged
    under 16 for the labour-market variables) is a level of its own and comes first, so it
    gets code 0. ``Person ID`` is a record identifier, not an attribute: it is not in the
    domain (select the other columns before encoding, as the reference drops it). Used for
    ``census2011_first50k`` and ``census2011_random10k`` of :func:`synthtrust.datasets.load`;
    the sizes are those of Houssiau et al. (2022) [``houssiau2022``].
    """
    nine = [-9]
    return Domain(
        {
            # E12000001..E12000009: NE, NW, Yorkshire and the Humber, East Midlands, West
            # Midlands, East of England, London, South East, South West; W92000004: Wales
            "Region": Categorical([f"E1200000{i}" for i in range(1, 10)] + ["W92000004"]),
            # C: communal establishment, H: household
            "Residence Type": Categorical(["C", "H"]),
            # 1 not in a family, 2 married/civil-partnership couple, 3 cohabiting couple,
            # 4 lone parent (male head), 5 lone parent (female head), 6 other related family
            "Family Composition": Categorical(nine + list(range(1, 7))),
            # 1 usual resident, 2 student living away from home in term time, 3 short-term resident
            "Population Base": Categorical([1, 2, 3]),
            "Sex": Categorical([1, 2]),  # 1 male, 2 female
            # 1 0-15, 2 16-24, 3 25-34, 4 35-44, 5 45-54, 6 55-64, 7 65-74, 8 75 and over
            "Age": Categorical(list(range(1, 9))),
            # 1 single, 2 married/civil partnership, 3 separated, 4 divorced, 5 widowed
            "Marital Status": Categorical([1, 2, 3, 4, 5]),
            "Student": Categorical([1, 2]),  # schoolchild or student in full-time education: yes/no
            "Country of Birth": Categorical(nine + [1, 2]),  # 1 UK, 2 outside the UK
            "Health": Categorical(nine + [1, 2, 3, 4, 5]),  # 1 very good .. 5 very bad
            # 1 White, 2 Mixed, 3 Asian, 4 Black, 5 Chinese or other
            "Ethnic Group": Categorical(nine + [1, 2, 3, 4, 5]),
            # 1 none, 2 Christian, 3 Buddhist, 4 Hindu, 5 Jewish, 6 Muslim, 7 Sikh, 8 other,
            # 9 not stated
            "Religion": Categorical(nine + list(range(1, 10))),
            # 1 employee, 2 self-employed, 3 unemployed, 4 full-time student (active), 5 retired,
            # 6 student (inactive), 7 looking after home, 8 long-term sick, 9 other inactive
            "Economic Activity": Categorical(nine + list(range(1, 10))),
            "Occupation": Categorical(nine + list(range(1, 10))),  # SOC 2010 major groups 1..9
            "Industry": Categorical(nine + list(range(1, 13))),  # 12 grouped SIC 2007 sections
            # 1 part-time <= 15 h, 2 part-time 16-30 h, 3 full-time 31-48 h, 4 full-time >= 49 h
            "Hours worked per week": Categorical(nine + [1, 2, 3, 4]),
            # 1 AB, 2 C1, 3 C2, 4 DE
            "Approximated Social Grade": Categorical(nine + [1, 2, 3, 4]),
        }
    )


_BUILDERS = {
    "pima_diabetes": _pima_diabetes,
    "ilpd": _ilpd,
    "hypothyroid_allhypo": _hypothyroid_allhypo,
    "adult_pgm_discretized": _adult_pgm_discretized,
    "cardio": _cardio,
}

#: Public domains shared by several files of ``data/`` (so not names of
#: :func:`synthtrust.datasets.load`): census2011 -> census2011_first50k, census2011_random10k.
_SHARED_DOMAINS = {"census2011": _census2011}

#: Datasets (names of :func:`synthtrust.datasets.load`) with a hand-written public domain.
DATASET_DOMAINS: tuple[str, ...] = tuple(_BUILDERS)


def dataset_domain(name: str) -> Domain:
    """The hand-written PUBLIC domain of a dataset of ``data/``.

    Bounds and bin edges come from clinical reference ranges, physical plausibility or the
    dataset documentation (data/DATASETS.md, the UCI names files, the ONS code lists), never
    from the data's min/max; each choice is commented in the source. Numeric columns have ≤ 10
    bins (+ a missing code), small enough for the marginal synthesizers (Movahedi et al. 2024,
    Sec. III-C: "discretized into number of bins based on literature and the curator's
    knowledge"). The label column is :class:`Categorical`, so it decodes to its labels.

    Parameters
    ----------
    name : str
        One of :data:`DATASET_DOMAINS`: ``"pima_diabetes"`` (label ``Outcome``), ``"ilpd"``
        (``Dataset``), ``"hypothyroid_allhypo"`` (``Target``), ``"adult_pgm_discretized"``
        (``income>50K``; sizes from ``data/adult_pgm_discretized_domain.json``), ``"cardio"``
        (``cardio``; every column but ``id``); or ``"census2011"``, the 17 attributes of the
        ONS 2011 census teaching file shared by ``census2011_first50k`` and
        ``census2011_random10k`` (every column but ``Person ID``; all Categorical, code
        lists with ``-9`` "no code required" first; sizes Region 10, Residence Type 2, Family
        Composition 7, Population Base 3, Sex 2, Age 8, Marital Status 5, Student 2, Country
        of Birth 3, Health 6, Ethnic Group 6, Religion 10, Economic Activity 10, Occupation
        10, Industry 13, Hours worked per week 5, Approximated Social Grade 5).

    Returns
    -------
    Domain
        Covers every column of ``synthtrust.datasets.load(name)`` (cardio: but ``id``; census:
        but ``Person ID``), in the file's order.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    """
    if isinstance(name, str) and name in _SHARED_DOMAINS:
        return _SHARED_DOMAINS[name]()
    if not isinstance(name, str) or name not in _BUILDERS:
        known = ", ".join((*DATASET_DOMAINS, *_SHARED_DOMAINS))
        raise ValueError(f"no public domain for dataset {name!r}; available: {known}")
    return _BUILDERS[name]()
