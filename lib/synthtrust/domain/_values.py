"""Checking and converting the values of one column, shared by the column specifications
(:class:`~synthtrust.domain.Categorical`, :class:`~synthtrust.domain.Numeric`,
:class:`~synthtrust.domain.Ordinal`): JSON scalars, missing tokens, numeric values, codes, and
the few offending values an error message names.

Codes ``0..size-1`` per column as Private-PGM's mechanisms expect them [``privatepgm2025``].
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._result import python_scalar

MAX_SHOWN = 5  # offending values shown in an error message
MAX_ALLOWED_SHOWN = 20  # allowed categories shown in an error message


def column_label(column) -> str:
    """How an error message names a column: ``"column 'age'"``, or ``"value"`` for ``None``."""
    return "value" if column is None else f"column {column!r}"


def json_scalar(value, what: str):
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


def check_token(missing, what: str):
    """Validate a missing-value token: ``None`` (no token) or a JSON scalar (:func:`json_scalar`).

    Raises
    ------
    TypeError, ValueError
        As :func:`json_scalar`: not a str, int, float or bool, or a non-finite float.
    """
    if missing is None:
        return None
    return json_scalar(missing, f"{what}: missing token")


def check_bool(value, name: str) -> bool:
    """Validate a flag: a Python or NumPy bool, returned as ``bool``.

    Raises
    ------
    TypeError
        ``value`` is not a bool (0 and 1 included), naming ``name``.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_integer(value, name: str) -> int:
    """Validate an integer of any sign (booleans rejected), returned as ``int``.

    Raises
    ------
    TypeError
        ``value`` is a bool or not an integral number, naming ``name``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)


def show_values(values) -> str:
    """``'a', 'b' (and 3 more)`` — a few offending values for a message."""
    values = list(values)
    shown = ", ".join(repr(python_scalar(v)) for v in values[:MAX_SHOWN])
    if len(values) > MAX_SHOWN:
        shown += f" (and {len(values) - MAX_SHOWN} more)"
    return shown


def as_series(values, column) -> pd.Series:
    """A column's values as a pandas Series (a Series is returned as it is, not copied).

    Raises
    ------
    TypeError
        ``values`` is a DataFrame, a mapping or not one-dimensional.
    """
    if isinstance(values, pd.Series):
        return values
    if isinstance(values, (pd.DataFrame, Mapping)) or np.ndim(values) != 1:
        raise TypeError(f"{column_label(column)}: expected a 1-D array-like of values")
    return pd.Series(values)


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def bool_safe_keys(values) -> pd.Series:
    """``values`` as a Series of hash keys in which booleans stay apart from numbers: pandas'
    hashing (``factorize``, ``Index.get_indexer``) takes True for 1 and False for 0 in an
    object column; here each boolean (of a bool or an object column) becomes the tuple
    ``("bool", value)``, so two columns' keys match exactly where their values do."""
    series = values if isinstance(values, pd.Series) else pd.Series(list(values), dtype=object)
    if not (series.dtype == object or pd.api.types.is_bool_dtype(series.dtype)):
        return series
    is_bool = series.map(_is_bool, na_action="ignore").fillna(False).to_numpy(dtype=bool)
    if not is_bool.any():
        return series
    keys = series.astype(object)
    keys[is_bool] = [("bool", bool(v)) for v in series[is_bool]]
    return keys


def token_mask(series: pd.Series, token) -> np.ndarray:
    """Boolean mask of the values equal to ``token`` (bool and int never conflated)."""
    if token is None:
        return np.zeros(len(series), dtype=bool)
    dtype = series.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        if isinstance(token, (str, bool)):
            return np.zeros(len(series), dtype=bool)
        return series.to_numpy(dtype=float, na_value=np.nan) == token
    if series.dtype == object:
        same_kind = series.map(_is_bool).to_numpy(dtype=bool) == _is_bool(token)
        return same_kind & (pd.Index([token]).get_indexer(series) == 0)
    return pd.Index([token]).get_indexer(series) == 0


def float_values(series: pd.Series, token, column, spec: str) -> np.ndarray:
    """Float values of a numeric column, NaN where missing or equal to the missing token.

    Raises
    ------
    TypeError
        If the column holds booleans, strings or other non-numbers.
    """
    is_token = token_mask(series, token)
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise TypeError(
            f"{column_label(column)}: {spec} expects numbers, got a boolean column; "
            "use Categorical([False, True]) for booleans"
        )
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        x = series.to_numpy(dtype=float, na_value=np.nan)
    else:
        rest = series[~(is_token | series.isna().to_numpy())]
        kind = "empty" if rest.empty else pd.api.types.infer_dtype(rest, skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "empty"):
            bad = [
                v
                for v in pd.unique(rest.to_numpy(dtype=object))
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
            ]
            what = f"non-numeric value(s) {show_values(bad)}" if bad else "non-numeric values"
            raise TypeError(
                f"{column_label(column)}: {spec} expects numbers, got {what} (dtype {dtype})"
            )
        x = np.full(len(series), np.nan)
        keep = ~(is_token | series.isna().to_numpy())
        x[keep] = rest.to_numpy(dtype=float)
    if is_token.any():
        x = x.copy()
        x[is_token] = np.nan
    return x


def missing_rows(x: np.ndarray, token, column, spec: str) -> np.ndarray:
    """Boolean mask, shape (n,), of the missing rows: the NaNs of :func:`float_values` output.

    Raises
    ------
    ValueError
        Some value is missing but the specification ``spec`` has no missing ``token``.
    """
    nan = np.isnan(x)
    if nan.any() and token is None:
        raise ValueError(
            f"{column_label(column)}: {int(nan.sum())} missing value(s) (NaN/None) but {spec} has no "
            "missing token; pass missing=<token> (e.g. 'NA') to give missing values their own code"
        )
    return nan


def check_codes(codes, size: int, column) -> np.ndarray:
    """Validate a column of codes: integer values in ``0..size-1``, returned as int64.

    Float values are accepted when integral (e.g. ``2.0``).

    Raises
    ------
    TypeError
        ``codes`` is not 1-D (:func:`as_series`), or its dtype is boolean or not numeric.
    ValueError
        A code is missing, non-integral or outside ``0..size-1``.
    """
    series = as_series(codes, column)
    if pd.api.types.is_bool_dtype(series.dtype) or not pd.api.types.is_numeric_dtype(series.dtype):
        raise TypeError(f"{column_label(column)}: codes must be integers, got dtype {series.dtype}")
    x = series.to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(x) | (x != np.round(x)) | (x < 0) | (x > size - 1)
    if bad.any():
        raise ValueError(
            f"{column_label(column)}: code(s) {show_values(pd.unique(x[bad]))} are not integers in "
            f"0..{size - 1} (the column has {size} codes)"
        )
    return x.astype(np.int64)


def numbers_out(values: np.ndarray, missing: np.ndarray, integer: bool) -> np.ndarray:
    """Decoded numbers: int64 when ``integer`` and nothing missing, else float64 with NaN."""
    if integer and not missing.any():
        return values.astype(np.int64)
    out = values.astype(float)
    out[missing] = np.nan
    return out


def format_number(x: float) -> str:
    """A number for a message or a bin label, in ``%g`` form (``0.5``, ``1e+06``)."""
    return f"{x:g}"
