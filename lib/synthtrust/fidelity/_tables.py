"""Constants and input validation of the fidelity tables."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

#: Category of values outside the retained ones: categories beyond the c most frequent training
#: categories, and numeric values below or above the training range (the paper's ``"_other_"``).
OTHER = "_other_"
#: Label of missing values, an explicit category of its own (the reference code turns NaN into
#: the string ``"nan"`` for numeric columns and fails for text columns).
MISSING = "_missing_"
#: The paper's maximum number of categories per column for k-way TVD (Figure 7: "univariate
#: c=100; bivariate c=10; three-way c=5").
TVD_BINS: dict[int, int] = {1: 100, 2: 10, 3: 5}
#: Quantile bins of numeric columns for the DCR (Figure 8: "c=100").
DCR_BINS = 100

ROLES = ("train", "holdout", "synthetic")


# =============================================================================================
# validation
# =============================================================================================
def column_kind(series: pd.Series) -> str:
    """Type class of a column: ``numeric``, ``datetime``, ``boolean`` or ``text``.

    Integers and floats are one class (a column with NaN or written as ``1e+05`` reads as float
    in one file and as int in another); an object column holding only booleans and missing
    values is boolean, as a bool column. Numeric and datetime/timedelta columns are binned on
    quantiles, boolean and text columns are categorical.
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return "boolean"
    if isinstance(dtype, pd.CategoricalDtype):
        return "text"
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        return "datetime"
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if pd.api.types.is_object_dtype(dtype):
        values = series.dropna().unique()
        if len(values) and all(isinstance(v, (bool, np.bool_)) for v in values):
            return "boolean"
    return "text"


def _first_non_numeric(series: pd.Series):
    """(data row number, value) of the first non-missing value of ``series`` that is not a
    number, or None."""
    values = series.dropna()
    bad = values[pd.to_numeric(values.astype(str), errors="coerce").isna()]
    if bad.empty:
        return None
    return int(series.index.get_loc(bad.index[0])) + 1, bad.iloc[0]


def check_tables(
    frames: dict[str, Any], where: dict[str, str] | None = None
) -> tuple[list, dict[str, pd.DataFrame], list[str]]:
    """Validate the tables of a fidelity report and align their columns on the first one's.

    Parameters
    ----------
    frames : dict of str to pandas.DataFrame
        Named tables, e.g. ``{"train": T, "holdout": H, "synthetic": S}``; the first is the
        reference whose column order the others take.
    where : dict of str to str, optional
        How each table is named in an error message (e.g. ``"the train file t.csv"``);
        default its key.

    Returns
    -------
    columns : list
        The reference's column labels.
    aligned : dict of str to pandas.DataFrame
        The tables with their columns in the reference's order.
    kinds : list of str
        Type class of each column: ``numeric``, ``datetime``, ``boolean`` or ``text``.

    Raises
    ------
    TypeError
        If a table is not a DataFrame.
    ValueError
        If a table is empty or has duplicate column names, if the column sets differ (the
        differing columns named), if a column holds only missing values, if a column's type
        class differs between tables (with the first non-numeric value where a numeric column
        turned into text), or if a numeric value is infinite.

    References
    ----------
    ``platzer2021``, Sec. 2 (the three tables of the holdout-based assessment).

    Examples
    --------
    >>> import pandas as pd
    >>> from synthtrust.fidelity import check_tables
    >>> t = pd.DataFrame({"age": [30, 41], "job": ["a", "b"]})
    >>> s = t[["job", "age"]]
    >>> columns, aligned, kinds = check_tables({"train": t, "synthetic": s})
    >>> columns, kinds
    (['age', 'job'], ['numeric', 'text'])
    """
    where = where or {}

    def label(name: str) -> str:
        return where.get(name, name)

    names = list(frames)
    for name in names:
        df = frames[name]
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
        if df.shape[0] == 0 or df.shape[1] == 0:
            raise ValueError(
                f"{label(name)} is empty ({df.shape[0]} rows, {df.shape[1]} columns); "
                "at least one row and one column are needed"
            )
        dup = df.columns[df.columns.duplicated()]
        if len(dup):
            raise ValueError(
                f"{label(name)} has duplicate column names: {list(dict.fromkeys(dup))}"
            )
    ref = names[0]
    columns = list(frames[ref].columns)
    problems = []
    for name in names[1:]:
        have = list(frames[name].columns)
        missing = [c for c in columns if c not in set(have)]
        extra = [c for c in have if c not in set(columns)]
        if missing:
            problems.append(f"{label(name)} lacks column(s) {missing}")
        if extra:
            problems.append(f"{label(name)} has column(s) not in {label(ref)}: {extra}")
    if problems:
        raise ValueError(
            f"all tables must have the same columns as {label(ref)}: " + "; ".join(problems)
        )
    aligned = {
        name: frames[name] if name == ref else frames[name].loc[:, columns] for name in names
    }
    empty = [
        f"{col!r} in {label(name)}"
        for name in names
        for col, all_na in aligned[name].isna().all().items()
        if all_na
    ]
    if empty:
        raise ValueError(
            f"column(s) with only missing values: {'; '.join(empty)}; drop the column from all "
            "tables or fill it"
        )
    kinds = []
    problems = []
    for col in columns:
        per = {name: column_kind(aligned[name][col]) for name in names}
        kinds.append(per[ref])
        if len(set(per.values())) == 1:
            continue
        text = ", ".join(f"{n} {aligned[n][col].dtype} ({per[n]})" for n in names)
        hint = ""
        if "numeric" in per.values():
            found = [(n, _first_non_numeric(aligned[n][col])) for n in names if per[n] == "text"]
            found = [(n, f) for n, f in found if f is not None]
            if found:
                n, (row, value) = found[0]
                hint = f"; e.g. data row {row} of {label(n)} holds {value!r}"
        problems.append(f"column {col!r} has different types ({text}){hint}")
    if problems:
        raise ValueError(
            "each column must have the same type class (numeric, datetime, boolean, text) in "
            "all tables: " + "; ".join(problems)
        )
    for name in names:
        for col, kind in zip(columns, kinds, strict=True):
            if kind == "numeric":
                x = as_float(aligned[name][col])
                if np.isinf(x).any():
                    raise ValueError(
                        f"column {col!r} of {label(name)} holds an infinite value; replace it "
                        "by a finite value or NaN"
                    )
    return columns, aligned, kinds


def check_bins(bins, name: str = "bins") -> int:
    """Validate c, the number of quantile bins / retained categories per column: an int ≥ 1.

    Raises
    ------
    TypeError
        ``bins`` is a bool or not an integer, naming ``name``.
    ValueError
        ``bins`` < 1.
    """
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {type(bins).__name__} {bins!r}")
    if bins < 1:
        raise ValueError(f"{name} must be >= 1, got {bins!r}")
    return int(bins)


def check_k(k) -> int:
    """Validate the order k of the k-way marginals: 1, 2 or 3 (the keys of :data:`TVD_BINS`).

    Raises
    ------
    ValueError
        ``k`` is not one of 1, 2, 3 (a bool or a non-integer included).
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k not in (1, 2, 3):
        raise ValueError(f"k must be 1, 2 or 3, got {k!r}")
    return int(k)


def as_float(series: pd.Series) -> np.ndarray:
    """Numeric or datetime column as float64 with NaN for missing values (datetimes and
    timedeltas as nanoseconds, as the paper prescribes a numeric representation)."""
    dtype = series.dtype
    if pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype):
        missing = series.isna().to_numpy()
        if isinstance(dtype, pd.DatetimeTZDtype):
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
        unit = "timedelta64[ns]" if pd.api.types.is_timedelta64_dtype(dtype) else "datetime64[ns]"
        out = series.to_numpy(dtype=unit).view(np.int64).astype(np.float64)
        out[missing] = np.nan
        return out
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
