"""Holdout-based fidelity (k-way TVD) and privacy (DCR share) of mixed-type synthetic data.

Platzer & Reutterer (2021), "Holdout-based fidelity and privacy assessment of mixed-type
synthetic data" [``platzer2021``], Sec. 2, computed as the paper's public code does
(``mostly-ai/paper-fidelity-accuracy`` @ c31860c [``mostlyai2024``]: ``fidelity.ipynb``,
``privacy.ipynb``), with the fixes listed under "Deviations" below.

A table is split at random into a training half T, given to a synthesizer, and a holdout half H,
never shown to it. The synthetic table S is scored against T, and H is scored against T the same
way: H is what an independent sample of the same population scores, the target.

Fidelity ``F^k(T, S)`` (Sec. 2.1, Figure 7)
    Every column is discretized with statistics of T alone (:func:`discretize`), with at most
    c = 100 / 10 / 5 categories for k = 1 / 2 / 3; for each of the C(d, k) combinations of k
    columns the total variation distance ½ Σ ``|p − q|`` between the k-way relative frequencies of T
    and S is computed (:func:`tvd`), and ``F^k`` is the mean over the combinations.

Privacy: distance to closest record (Sec. 2.2, Figure 8)
    Every column is discretized once more (numeric: 100 quantile bins of the **pooled**
    T + H + S values), every synthetic record gets its Hamming distance (number of differing
    attributes) to the nearest record of T and to the nearest record of H, and the share of
    synthetic records closer to T than to H is reported, ties counted with weight
    n_T / (n_T + n_H) (:func:`dcr`). For an ideal synthesizer the share is ≈ 50 % with equal
    halves; a synthesizer that copies training records scores ≫ 50 %.

:func:`holdout_report` computes both for S and for H and returns a :class:`HoldoutReport`
(``to_dict``, ``to_json``, ``summary``; the HTML page: :func:`synthtrust.report.write_holdout_html`).

Reproduction
------------
With the paper's splits (``data/paper-fidelity-accuracy/splits``) and the holdout scored as
synthetic, :func:`holdout_report` gives the reference code's published holdout rows exactly
(``privacy_c100.csv``: n_closer / n_further / n_equal, share, mean DCRs; ``tradeoff.csv``: F3)
for adult, bank-marketing and credit-default, and for online-shoppers once its two boolean
columns are cast to int (see "Deviations"); adult: F1 1.0 %, F2 1.6 %, F3 2.1 %, share 50.0 %,
mean DCR 2.27 / 2.27 as in Figures 7 and 8 (``tests/test_fidelity.py``).

Deviations from the reference code (its traps, fixed here)
----------------------------------------------------------
* k-way cells are tuples of categories, not labels concatenated without a separator (which
  collide: ``"1" + "11" == "11" + "1"``).
* Missing values are the explicit category :data:`MISSING` in every column (the reference turns
  NaN into the string ``"nan"`` in numeric columns and fails on NaN in text columns).
* Ties in the top-c categories are broken by ``str(value)`` (reference: first appearance), so
  the result does not depend on the row order.
* Boolean columns are categorical. The reference treats them as numeric: its quantile bins of
  0/1 values merge False and True into one bin, so the column drops out of the DCR (and the TVD
  code fails on bool with current pandas). To reproduce its numbers, cast bool columns to int.
* A constant numeric column is one bin (reference: every value becomes "nan").
* Quantiles are ``numpy.quantile`` (linear), i.e. pandas ≥ 3's ``Series.quantile`` and
  ``pd.qcut`` (which rounds inexact probabilities i / c up); the reference ran an older pandas.
  The four datasets' published numbers are reproduced exactly either way (integer data).
* Combinations are enumerated in the training table's column order (reference: names sorted);
  the mean is the same. Values outside the training range are :data:`OTHER`, as in the
  reference.

Speed
-----
The nearest-neighbour search is exact and brute force but bit-sliced: for every column and
every category the set of target records holding that category is a bitset (one bit per
record, 64 records per machine word); a synthetic record's per-target match counts are the sum
of d such bitsets, added with carry-save adders on the bit planes, and the maximum count (the
minimum distance) is read off the planes from the top. Columns with few values are grouped and
their match counts tabulated once per combination; identical synthetic records are searched
once. 64 record pairs cost a few word operations. On adult (24 421 × 24 421 × 24 421, 15
columns) DCR and share take ≈ 0.3 s on 2 cores, ≈ 27× faster than one-hot encoding +
scikit-learn's brute-force 1-NN (``benchmarks/bench_fidelity.py``). Results do not depend on
``n_jobs``.
"""

from __future__ import annotations

import itertools
import json
import numbers
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from synthtrust._atomic import write_text
from synthtrust._validation import check_random_state

__all__ = [
    "DCRResult",
    "HoldoutReport",
    "MISSING",
    "OTHER",
    "TVD_BINS",
    "dcr",
    "discretize",
    "holdout_report",
    "tvd",
]

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

_ROLES = ("train", "holdout", "synthetic")
#: Memory above which a column's per-category bitsets are not tabulated but built per block.
_DENSE_TABLE_BYTES = 64 << 20
#: Memory budget of the tabulated match counts of column groups (see _plan_groups).
_GROUP_TABLE_BYTES = 48 << 20
_BLOCK_ROWS = 128
#: Target words per tile (64 records each): a block's work arrays stay in the L2 cache.
_TILE_WORDS = 1024


# =============================================================================================
# validation
# =============================================================================================
def _kind(series: pd.Series) -> str:
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


def _check_frames(frames: dict[str, Any]) -> tuple[list, dict[str, pd.DataFrame], list[str]]:
    """Validate named frames (the first is the reference) and align their columns.

    Returns ``(columns, aligned_frames, kinds)``; ``kinds[j]`` is the type class of column j.
    Raises TypeError for a non-DataFrame; ValueError for an empty frame, duplicate column
    names, different column sets (naming the differing columns), an all-missing column,
    a column whose type class differs between frames, or an infinite numeric value.
    """
    names = list(frames)
    for name in names:
        df = frames[name]
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
        if df.shape[0] == 0 or df.shape[1] == 0:
            raise ValueError(
                f"{name} is empty ({df.shape[0]} rows, {df.shape[1]} columns); "
                "at least one row and one column are needed"
            )
        dup = df.columns[df.columns.duplicated()]
        if len(dup):
            raise ValueError(f"{name} has duplicate column names: {list(dict.fromkeys(dup))}")
    ref = names[0]
    columns = list(frames[ref].columns)
    problems = []
    for name in names[1:]:
        have = list(frames[name].columns)
        missing = [c for c in columns if c not in set(have)]
        extra = [c for c in have if c not in set(columns)]
        if missing:
            problems.append(f"{name} lacks column(s) {missing}")
        if extra:
            problems.append(f"{name} has column(s) not in {ref}: {extra}")
    if problems:
        raise ValueError(f"all tables must have the columns of {ref}: " + "; ".join(problems))
    aligned = {
        name: frames[name] if name == ref else frames[name].loc[:, columns] for name in names
    }
    empty = [
        f"{col!r} in {name}"
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
        per = {name: _kind(aligned[name][col]) for name in names}
        if len(set(per.values())) > 1:
            text = ", ".join(f"{n}: {aligned[n][col].dtype} ({per[n]})" for n in names)
            problems.append(f"column {col!r} has different types ({text})")
        kinds.append(per[ref])
    if problems:
        raise ValueError(
            "each column must have the same type class (numeric, datetime, boolean, text) in "
            "all tables: " + "; ".join(problems)
        )
    for name in names:
        for col, kind in zip(columns, kinds, strict=True):
            if kind == "numeric":
                x = _as_float(aligned[name][col])
                if np.isinf(x).any():
                    raise ValueError(
                        f"column {col!r} of {name} holds an infinite value; replace it by a "
                        "finite value or NaN"
                    )
    return columns, aligned, kinds


def _check_bins(bins, name: str = "bins") -> int:
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= 1, got {type(bins).__name__} {bins!r}")
    if bins < 1:
        raise ValueError(f"{name} must be >= 1, got {bins!r}")
    return int(bins)


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k not in (1, 2, 3):
        raise ValueError(f"k must be 1, 2 or 3, got {k!r}")
    return int(k)


def _check_n_jobs(n_jobs) -> int:
    """None → all cores (the project's convention), -1 → all cores, k ≥ 1 → k threads."""
    if n_jobs is None:
        return os.cpu_count() or 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError(f"n_jobs must be an integer or None, got {type(n_jobs).__name__}")
    if n_jobs == 0:
        raise ValueError("n_jobs must be >= 1, or negative (-1 = all cores), or None; got 0")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


# =============================================================================================
# discretization for the TVD (statistics of the training data alone)
# =============================================================================================
def _as_float(series: pd.Series) -> np.ndarray:
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


def _quantile_breaks(values: np.ndarray, bins: int, *, round_up: bool = False) -> np.ndarray:
    """Unique quantiles at 0, 1/bins, …, 1 of the non-missing ``values`` (``numpy.quantile``,
    linear interpolation), as pandas' ``Series.quantile`` in ``bin_data`` (``fidelity.ipynb``).

    ``round_up``: as ``pd.qcut`` (``privacy.ipynb``) in pandas ≥ 3, a probability i / bins that
    is not exact in binary is replaced by the next larger float (so that a value sitting exactly
    on a quantile is not pushed into the upper bin by rounding).
    """
    values = values[~np.isnan(values)]
    probs = np.linspace(0, 1, bins + 1)
    if round_up:
        inexact = bins * probs != np.arange(bins + 1)
        probs = np.where(inexact, np.nextafter(probs, 1), probs)
    breaks = np.quantile(values, probs)
    return pd.unique(breaks)  # order-preserving, as pandas' .unique() in the reference


def _cut_codes(x: np.ndarray, breaks: np.ndarray) -> np.ndarray:
    """``pd.cut(x, breaks, include_lowest=True)`` as integer codes 0 … len(breaks) − 2,
    −1 outside [breaks[0], breaks[-1]] or missing. Intervals are right-closed (a, b], the first
    one also holds breaks[0]. A single break (a constant column) gives one bin {breaks[0]}."""
    if len(breaks) == 1:
        return np.where(x == breaks[0], 0, -1)
    ids = np.searchsorted(breaks, x, side="left")
    ids[x == breaks[0]] = 1
    bad = np.isnan(x) | (ids == 0) | (ids == len(breaks))
    return np.where(bad, -1, ids - 1)


def _number_label(x: float) -> str:
    return np.format_float_positional(float(x), trim="-")


def _interval_labels(breaks: np.ndarray) -> list[str]:
    if len(breaks) == 1:
        return [f"[{_number_label(breaks[0])}]"]
    labels = []
    for i in range(len(breaks) - 1):
        left = "[" if i == 0 else "("
        labels.append(f"{left}{_number_label(breaks[i])}, {_number_label(breaks[i + 1])}]")
    return labels


def _unique_labels(values: Sequence) -> list[str]:
    """String labels of distinct category values; ``repr`` where ``str`` would collide."""
    labels = [str(v) for v in values]
    if len(set(labels)) < len(labels):
        labels = [repr(v) for v in values]
    if len(set(labels)) < len(labels):  # pragma: no cover - distinct values, equal reprs
        labels = [f"{lab} #{i}" for i, lab in enumerate(labels)]
    return labels


def _token(base: str, taken: set[str]) -> str:
    """``base``, or ``base`` wrapped in more underscores until it is not a category label."""
    token = base
    while token in taken:
        token = f"_{token}_"
    return token


def _top_categories(values: pd.Series, c: int) -> list:
    """The ``c`` most frequent non-missing values of a training column.

    Order: count descending; ties broken by ``str(value)`` ascending (then the type's name),
    so the result does not depend on the row order. (The reference's
    ``value_counts().head(c)`` breaks ties by first appearance.)
    """
    counts = values.value_counts(dropna=True, sort=False)
    items = sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0]), type(kv[0]).__name__))
    return [value for value, _ in items[:c]]


@dataclass(frozen=True)
class _ColumnBinning:
    """How one column is discretized: codes 0 … m−1 for the m retained bins/categories,
    ``m`` for :data:`OTHER`, ``m + 1`` for :data:`MISSING`."""

    name: Any
    kind: str
    labels: tuple[str, ...]  # m + 2 labels, the last two OTHER and MISSING tokens
    breaks: np.ndarray | None = None  # numeric
    categories: pd.Index | None = None  # categorical

    @property
    def n_codes(self) -> int:
        return len(self.labels)

    def codes(self, series: pd.Series) -> np.ndarray:
        m = self.n_codes - 2
        if self.breaks is not None:
            x = _as_float(series)
            out = _cut_codes(x, self.breaks)
            out[out < 0] = m
            out[np.isnan(x)] = m + 1
            return out.astype(np.int64)
        missing = series.isna().to_numpy()
        values = series.astype(object).to_numpy()
        out = self.categories.get_indexer(values)
        out[out < 0] = m
        out[missing] = m + 1
        return out.astype(np.int64)


def _fit_binning(train: pd.DataFrame, kinds: list[str], bins: int) -> list[_ColumnBinning]:
    specs = []
    for col, kind in zip(train.columns, kinds, strict=True):
        if kind in ("numeric", "datetime"):
            breaks = _quantile_breaks(_as_float(train[col]), bins)
            labels = _interval_labels(breaks)
            other, missing = _token(OTHER, set(labels)), _token(MISSING, set(labels))
            specs.append(_ColumnBinning(col, kind, (*labels, other, missing), breaks=breaks))
        else:
            top = _top_categories(train[col].astype(object), bins)
            labels = _unique_labels(top)
            other = _token(OTHER, set(labels))
            missing = _token(MISSING, set(labels) | {other})
            specs.append(
                _ColumnBinning(
                    col, kind, (*labels, other, missing), categories=pd.Index(top, dtype=object)
                )
            )
    return specs


def _codes_matrix(df: pd.DataFrame, specs: list[_ColumnBinning]) -> np.ndarray:
    return np.column_stack([spec.codes(df[spec.name]) for spec in specs])


def discretize(
    train: pd.DataFrame, others: Sequence[pd.DataFrame], bins: int
) -> list[pd.DataFrame]:
    """Discretize ``train`` and ``others`` with statistics of ``train`` alone (paper Sec. 2.1).

    As ``bin_data`` of the reference's ``fidelity.ipynb`` [``mostlyai2024``], with the fixes of
    the module docstring:

    * numeric (and datetime, as nanoseconds) columns: breaks = the unique quantiles of the
      **training** column at 0, 1/c, …, 1 (pandas' linear interpolation, NaN ignored); bins
      are right-closed intervals, the first one closed on the left too (``pd.cut(...,
      include_lowest=True)``); values below or above the training range → :data:`OTHER`;
    * boolean and text columns: the c most frequent training values are kept (ties: by
      ``str(value)``, see :func:`_top_categories`), every other value → :data:`OTHER`;
    * missing values (NaN, None, NaT, pd.NA) → :data:`MISSING`, a category of its own, in
      every column (so a column has at most c + 2 categories).

    Labels: numeric bins ``"[17, 19]"``, ``"(19, 21]"`` …; categories ``str(value)``.
    ``OTHER``/``MISSING`` get extra underscores in the rare case that a real category has that
    label.

    Parameters
    ----------
    train : pandas.DataFrame
        The training table (n_T × d); it defines the bins.
    others : sequence of pandas.DataFrame
        Tables with the same columns (any order; aligned to ``train``'s), e.g. holdout and
        synthetic data.
    bins : int
        c ≥ 1, the maximum number of quantile bins / retained categories per column.

    Returns
    -------
    list of pandas.DataFrame
        ``[train_binned, *others_binned]``: same index and columns as the inputs (``train``'s
        column order), every column a pandas ``Categorical`` of string labels whose categories
        (the same in all returned frames) are the bins / retained categories in order, then
        ``OTHER``, then ``MISSING``.

    Raises
    ------
    TypeError
        If a table is not a DataFrame or ``bins`` is not an integer.
    ValueError
        Empty table, different columns (named), all-missing column, a column with different
        type classes across the tables, an infinite value, ``bins`` < 1.
    """
    if isinstance(others, pd.DataFrame):
        raise TypeError("others must be a list of DataFrames, got a single DataFrame")
    others = list(others)
    bins = _check_bins(bins)
    frames = {"train": train, **{f"others[{i}]": df for i, df in enumerate(others)}}
    _, aligned, kinds = _check_frames(frames)
    specs = _fit_binning(aligned["train"], kinds, bins)
    out = []
    for df in aligned.values():
        codes = _codes_matrix(df, specs)
        data = {
            spec.name: pd.Categorical.from_codes(codes[:, j], categories=list(spec.labels))
            for j, spec in enumerate(specs)
        }
        out.append(pd.DataFrame(data, index=df.index))
    return out


# =============================================================================================
# k-way TVD
# =============================================================================================
def _tvd_codes(
    a: np.ndarray, b: np.ndarray, n_codes: Sequence[int], k: int
) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """TVD per k-combination of columns from integer codes ``a`` (n_a × d) and ``b`` (n_b × d).

    Every k-way cell is the tuple of its columns' codes, flattened to one integer (mixed radix):
    distinct cells never collide (the reference code concatenates labels without a separator).
    Combinations are vectorized over the last column: one ``bincount`` per (k − 1)-prefix.
    """
    d = a.shape[1]
    n_codes = np.asarray(n_codes, dtype=np.int64)
    combos: list[tuple[int, ...]] = []
    values: list[np.ndarray] = []

    def batch(prefix: tuple[int, ...], pa: np.ndarray, pb: np.ndarray, radix: int) -> None:
        last = np.arange(prefix[-1] + 1 if prefix else 0, d)
        if len(last) == 0:
            return
        sizes = radix * n_codes[last]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        total = int(offsets[-1])
        ia = (pa[:, None] * n_codes[last] + a[:, last] + offsets[:-1]).ravel()
        ib = (pb[:, None] * n_codes[last] + b[:, last] + offsets[:-1]).ravel()
        p = np.bincount(ia, minlength=total) / a.shape[0]
        q = np.bincount(ib, minlength=total) / b.shape[0]
        diff = np.abs(p - q)
        tv = 0.5 * np.add.reduceat(diff, offsets[:-1])
        combos.extend(prefix + (int(j),) for j in last)
        values.append(tv)

    zero_a = np.zeros(a.shape[0], dtype=np.int64)
    zero_b = np.zeros(b.shape[0], dtype=np.int64)
    if k == 1:
        batch((), zero_a, zero_b, 1)
    elif k == 2:
        for i in range(d - 1):
            batch((i,), a[:, i], b[:, i], int(n_codes[i]))
    else:
        for i, j in itertools.combinations(range(d - 1), 2):
            pa = a[:, i] * n_codes[j] + a[:, j]
            pb = b[:, i] * n_codes[j] + b[:, j]
            batch((i, j), pa, pb, int(n_codes[i] * n_codes[j]))
    tv = np.concatenate(values) if values else np.zeros(0)
    return combos, tv


def _tvd_series(
    columns: list, combos: list[tuple[int, ...]], values: np.ndarray, k: int
) -> pd.Series:
    index = pd.MultiIndex.from_tuples(
        [tuple(columns[j] for j in combo) for combo in combos],
        names=[f"column_{i + 1}" for i in range(k)],
    )
    return pd.Series(values, index=index, name="tvd", dtype=float)


def tvd(train: pd.DataFrame, other: pd.DataFrame, k: int, bins: int | None = None) -> pd.Series:
    """Total variation distance of every k-way marginal, training vs ``other`` (paper Sec. 2.1).

    Both tables are discretized with :func:`discretize` (statistics of ``train``, at most
    ``bins`` = c categories per column, plus ``OTHER`` and ``MISSING``). For every combination
    of k distinct columns, p and q are the relative frequencies of the k-way cells in ``train``
    and ``other``, and TVD = ½ Σ_cells ``|p − q|`` ∈ [0, 1]. The paper's ``F^k(T, S)`` is the mean of
    the returned Series (Figure 7 uses c = 100 / 10 / 5 for k = 1 / 2 / 3, :data:`TVD_BINS`).

    Cells are identified by the tuple of their per-column categories, never by concatenated
    labels (in the reference code, which concatenates them, ``"1" + "11"`` equals ``"11" + "1"``).

    Parameters
    ----------
    train, other : pandas.DataFrame
        Training table (n_T × d) and the table to score (n × d, same columns).
    k : int
        1, 2 or 3.
    bins : int, optional
        c; default :data:`TVD_BINS`\\ [k].

    Returns
    -------
    pandas.Series
        Name ``"tvd"``, one value per combination, indexed by a MultiIndex of column-name
        tuples (levels ``column_1`` … ``column_k``) in the order of
        ``itertools.combinations(train.columns, k)``. Empty when d < k.

    Raises
    ------
    TypeError, ValueError
        As :func:`discretize`; ValueError if k is not 1, 2 or 3.
    """
    k = _check_k(k)
    bins = TVD_BINS[k] if bins is None else _check_bins(bins)
    columns, aligned, kinds = _check_frames({"train": train, "other": other})
    specs = _fit_binning(aligned["train"], kinds, bins)
    a = _codes_matrix(aligned["train"], specs)
    b = _codes_matrix(aligned["other"], specs)
    combos, values = _tvd_codes(a, b, [s.n_codes for s in specs], k)
    return _tvd_series(columns, combos, values, k)


# =============================================================================================
# DCR: pooled discretization, bit-sliced exact Hamming 1-NN
# =============================================================================================
def _dcr_codes(frames: list[pd.DataFrame], kinds: list[str], bins: int) -> list[np.ndarray]:
    """Integer codes (int32, one row per record) of the tables for the DCR, as
    ``privacy.ipynb`` discretizes them.

    Numeric/datetime columns: ``pd.qcut(pooled, q=bins, duplicates="drop")`` on the pooled
    values of all tables (so the bins depend on the synthetic data too, as in the paper), NaN a
    category of its own. Boolean and text columns: the values as they are, missing a category
    (``pd.get_dummies(dummy_na=True)``). Equal codes ⇔ equal one-hot rows, so the Hamming
    distance of the codes is the reference's squared L2 distance of one-hot rows / 2.
    """
    d = frames[0].shape[1]
    out = [np.empty((len(df), d), dtype=np.int32) for df in frames]
    for j in range(d):
        if kinds[j] in ("numeric", "datetime"):
            xs = [_as_float(df.iloc[:, j]) for df in frames]
            breaks = _quantile_breaks(np.concatenate(xs), bins, round_up=True)
            n_bins = max(len(breaks) - 1, 1)
            for x, o in zip(xs, out, strict=True):
                codes = _cut_codes(x, breaks)
                codes[np.isnan(x)] = n_bins
                o[:, j] = codes
        else:
            # factorize each table in its own dtype (fast for Arrow strings), then unify
            parts = [pd.factorize(df.iloc[:, j], use_na_sentinel=True) for df in frames]
            pooled = pd.Index(
                np.concatenate([np.asarray(u, dtype=object) for _, u in parts]), dtype=object
            )
            ucodes, uniques = pd.factorize(pooled, use_na_sentinel=True)
            offset = 0
            for (codes, u), o in zip(parts, out, strict=True):
                lookup = np.append(ucodes[offset : offset + len(u)], len(uniques))
                o[:, j] = lookup[codes]  # code -1 (missing) → the last entry
                offset += len(u)
    return out


def _pack_positions(n: int) -> np.ndarray:
    """Valid-record mask of ``n`` bits in ceil(n / 64) little-endian uint64 words."""
    words = (n + 63) // 64
    bits = np.zeros(words * 64, dtype=bool)
    bits[:n] = True
    return np.packbits(bits.reshape(words, 64), axis=1, bitorder="little").view(np.uint64)[:, 0]


def _one_bits(positions: np.ndarray) -> np.ndarray:
    return np.left_shift(np.uint64(1), (positions & 63).astype(np.uint64))


def _factorize_rows(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Id of each distinct row of an integer matrix (0, 1, … in order of first appearance),
    by hashing the columns in one at a time; returns (ids, number of distinct rows)."""
    ids = np.zeros(len(codes), dtype=np.int64)
    n_ids = 1 if len(codes) else 0
    for j in range(codes.shape[1]):
        col = codes[:, j].astype(np.int64)
        ids, uniques = pd.factorize(ids * (int(col.max()) + 1) + col)
        n_ids = len(uniques)
    return ids, n_ids


def _first_rows(ids: np.ndarray, n_ids: int) -> np.ndarray:
    first = np.full(n_ids, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first


def _plan_groups(
    q_rows: np.ndarray, dense: list[bool], budget: int
) -> list[tuple[list[int], np.ndarray]]:
    """Partition the columns into groups whose match counts are tabulated once per distinct
    combination of the group's query values: a group of g columns then costs ⌊log2 g⌋ + 1
    bitset lookups per query instead of g lookups and g − 1 additions.

    Greedy, columns by increasing number of distinct query values: a column joins the current
    group while the group has < 7 columns (3 bit planes) and its distinct combinations stay
    ≤ ``budget``; sparse (many-valued) columns stay alone. Returns [(columns, lookup row of
    each query)]: for a single column its table row, for a group the combination's id.
    """
    n_q, d = q_rows.shape
    card = [len(np.unique(q_rows[:, j])) for j in range(d)]
    order = sorted(range(d), key=lambda j: (card[j], j))
    groups: list[tuple[list[int], np.ndarray]] = []
    cols: list[int] = []
    ids = np.zeros(n_q, dtype=np.int64)

    def flush() -> None:
        if len(cols) == 1:
            groups.append((list(cols), q_rows[:, cols[0]]))
        elif cols:
            groups.append((list(cols), ids))

    for j in order:
        col = q_rows[:, j]
        if dense[j] and cols and len(cols) < 7:
            new_ids, uniques = pd.factorize(ids * (int(col.max()) + 1) + col)
            if len(uniques) <= budget:
                cols.append(j)
                ids = new_ids
                continue
        flush()
        cols = [j]
        ids = pd.factorize(col)[0] if dense[j] else col
        if not dense[j]:
            flush()
            cols = []
    flush()
    return groups


@dataclass
class _Tile:
    """A range of target words (train words first, then holdout words) with its lookup tables:
    ``lookups[g]`` is a list of (weight, table) — the bitsets of bit 2^weight of the match
    count of group g, one row per value (combination) — or [(0, None)] for a sparse column.
    ``segments`` lists (role, slice of the tile's words, first word within the role)."""

    start: int  # first global word
    valid: np.ndarray  # (words,) uint64: which bits are records
    segments: list
    lookups: list

    @property
    def words(self) -> int:
        return len(self.valid)


class _Buffers:
    """Free lists of uint64 work arrays by shape, reused across the blocks of one thread (fresh
    large allocations cost page faults at every block)."""

    def __init__(self):
        self.free: dict[tuple[int, int], list[np.ndarray]] = {}

    def get(self, shape: tuple[int, int]) -> np.ndarray:
        stack = self.free.get(shape)
        return stack.pop() if stack else np.empty(shape, dtype=np.uint64)

    def put(self, *arrays: np.ndarray) -> None:
        for a in arrays:
            self.free.setdefault(a.shape, []).append(a)


def _add_bits(inputs, shape: tuple[int, int], buf: _Buffers) -> list[np.ndarray]:
    """Sum bit-sliced numbers: ``inputs`` yields (weight w, array) pairs, each array one bit of
    weight 2^w for every (row, record) pair; returns the planes of the sum, planes[w] = bit 2^w
    (length ⌊log2 total⌋ + 1).

    Carry-save (full) adders: three bits of one weight become a sum bit of that weight and a
    carry of twice the weight, 5 word operations per 64 pairs; pairs left over get half adders.
    Input arrays are consumed (overwritten or returned to ``buf``).
    """
    levels: list[list[np.ndarray]] = []

    def push(w: int, arr: np.ndarray) -> None:
        while True:
            while len(levels) <= w:
                levels.append([])
            level = levels[w]
            level.append(arr)
            if len(level) < 3:
                return
            x, y, z = level
            carry = buf.get(shape)
            np.bitwise_and(x, y, out=carry)
            np.bitwise_xor(x, y, out=x)
            np.bitwise_and(x, z, out=y)
            np.bitwise_or(carry, y, out=carry)
            np.bitwise_xor(x, z, out=x)
            buf.put(y, z)
            levels[w] = [x]
            w, arr = w + 1, carry

    for w, arr in inputs:
        push(w, arr)
    w = 0
    while w < len(levels):  # resolve the pairs left with half adders
        if len(levels[w]) == 2:
            x, y = levels[w]
            carry = buf.get(shape)
            np.bitwise_and(x, y, out=carry)
            np.bitwise_xor(x, y, out=x)
            buf.put(y)
            levels[w] = [x]
            push(w + 1, carry)
        w += 1
    planes = []
    for level in levels:
        if level:
            planes.append(level[0])
        else:  # pragma: no cover - every level keeps one array
            zero = buf.get(shape)
            zero[...] = 0
            planes.append(zero)
    return planes


class _TargetBits:
    """Bitsets of the target records, cut into tiles of words, and the queries' lookup rows.

    Record i of a target table is bit i % 64 of word i // 64 of that table's bitsets. For column
    j, a code that some query uses and some target holds gets a table row 1, 2, …; every other
    code the all-zero row 0. Columns are grouped (:func:`_plan_groups`); for a group, the
    match-count planes of every distinct combination of the queries' values are tabulated per
    tile, so a query needs one lookup per plane. A column whose table would exceed
    ``_DENSE_TABLE_BYTES`` (e.g. an identifier) stays sparse: the records of each code, from
    which a block's bitsets are built on the fly.
    """

    def __init__(self, targets: list[np.ndarray], queries: np.ndarray, tile_words: int):
        self.d = queries.shape[1]
        self.n = [len(t) for t in targets]
        words = [(n + 63) // 64 for n in self.n]
        n_q = len(queries)
        q_rows = np.empty(queries.shape, dtype=np.int64)
        t_rows = [np.empty(t.shape, dtype=np.int64) for t in targets]
        n_rows = []
        dense = []
        for j in range(self.d):
            n_codes = int(max(max(t[:, j].max() for t in targets), queries[:, j].max())) + 1
            used = np.zeros(n_codes, dtype=bool)
            used[queries[:, j]] = True
            held = np.zeros(n_codes, dtype=bool)
            for t in targets:
                held[t[:, j]] = True
            keep = np.flatnonzero(used & held)
            remap = np.zeros(n_codes, dtype=np.int64)
            remap[keep] = np.arange(1, len(keep) + 1)
            q_rows[:, j] = remap[queries[:, j]]
            for r, t in enumerate(targets):
                t_rows[r][:, j] = remap[t[:, j]]
            n_rows.append(len(keep) + 1)
            dense.append(n_rows[-1] * sum(words) * 8 <= _DENSE_TABLE_BYTES)
        total_words = sum(words)
        budget = min(max(64, n_q // 16), _GROUP_TABLE_BYTES // (total_words * 8 * 3))
        planned = _plan_groups(q_rows, dense, budget)
        self.groups = [g for g, _ in planned]
        # query-side: the lookup row of each query in each group's table
        self.query_rows: list[np.ndarray] = []
        combos: list[np.ndarray | None] = []
        for g, ids in planned:
            self.query_rows.append(ids)
            if len(g) == 1:
                combos.append(None)
            else:
                combos.append(q_rows[_first_rows(ids, int(ids.max()) + 1)][:, g])
        # queries sorted by their lookup rows: a block's lookups hit few table rows
        self.order = np.lexsort(self.query_rows[::-1])
        self.sparse: list[dict[int, tuple[np.ndarray, np.ndarray]]] = []
        for r in range(len(targets)):
            sp = {}
            for j in range(self.d):
                if not dense[j]:
                    rows = t_rows[r][:, j]
                    order = np.argsort(rows, kind="stable")
                    sp[j] = (order, np.searchsorted(rows[order], np.arange(n_rows[j] + 1)))
            self.sparse.append(sp)
        self.tiles: list[_Tile] = []
        offsets = np.concatenate([[0], np.cumsum(words)])
        valid_all = np.concatenate([_pack_positions(n) for n in self.n])
        self.word_offsets = offsets
        for g0 in range(0, int(offsets[-1]), tile_words):
            g1 = min(g0 + tile_words, int(offsets[-1]))
            segments = []
            tables = {
                j: np.zeros((n_rows[j], g1 - g0), dtype=np.uint64)
                for j in range(self.d)
                if dense[j]
            }
            for r in range(len(targets)):
                a, b = max(g0, offsets[r]), min(g1, offsets[r + 1])
                if a >= b:
                    continue
                w0 = int(a - offsets[r])
                segments.append((r, slice(int(a - g0), int(b - g0)), w0))
                lo, hi = 64 * w0, min(64 * int(b - offsets[r]), self.n[r])
                pos = np.arange(hi - lo) + 64 * int(a - g0)
                for j, table in tables.items():
                    rows = t_rows[r][lo:hi, j]
                    sel = rows > 0
                    np.bitwise_or.at(table, (rows[sel], pos[sel] >> 6), _one_bits(pos[sel]))
            lookups = []
            for g, combo in zip(self.groups, combos, strict=True):
                if len(g) == 1:
                    lookups.append([(0, tables.get(g[0]))])
                else:
                    lookups.append(_group_planes(g, combo, tables, g1 - g0))
            self.tiles.append(_Tile(g0, valid_all[g0:g1].copy(), segments, lookups))
        self.n_queries = n_q

    def inputs(self, tile: _Tile, sl: slice, buf: _Buffers):
        """(weight, bitset array) inputs of the match count of the queries ``sl`` in ``tile``."""
        shape = (sl.stop - sl.start, tile.words)
        queries = self.order[sl]
        for g, lookup, q_all in zip(self.groups, tile.lookups, self.query_rows, strict=True):
            q = q_all[queries]
            for w, table in lookup:
                out = buf.get(shape)
                if table is not None:
                    yield w, np.take(table, q, axis=0, out=out)
                else:
                    yield w, self._sparse_bits(tile, g[0], q, out)

    def _sparse_bits(self, tile: _Tile, j: int, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
        out[...] = 0
        for r, sl, _ in tile.segments:
            order, starts = self.sparse[r][j]
            lo = np.where(rows > 0, starts[rows], 0)
            hi = np.where(rows > 0, starts[np.minimum(rows + 1, len(starts) - 1)], 0)
            cnt = hi - lo
            total = int(cnt.sum())
            if not total:
                continue
            which = np.repeat(np.arange(len(rows)), cnt)
            first = np.repeat(lo - (np.cumsum(cnt) - cnt), cnt)
            # global bit position of each record, relative to the tile
            pos = order[first + np.arange(total)] + 64 * (int(self.word_offsets[r]) - tile.start)
            inside = (pos >= 64 * sl.start) & (pos < 64 * sl.stop)
            pos, which = pos[inside], which[inside]
            np.bitwise_or.at(out, (which, pos >> 6), _one_bits(pos))
        return out


def _group_planes(group: list[int], combo: np.ndarray, tables: dict, words: int) -> list:
    """Match-count planes of every combination ``combo`` (rows × |group| table rows) of the
    group's values against one tile: [(weight, (n_combos, words) array), …]."""
    n = len(combo)
    planes_out: list[np.ndarray] | None = None
    buf = _Buffers()
    for s in range(0, n, _BLOCK_ROWS):
        e = min(s + _BLOCK_ROWS, n)
        shape = (e - s, words)
        inputs = (
            (0, np.take(tables[j], combo[s:e, i], axis=0, out=buf.get(shape)))
            for i, j in enumerate(group)
        )
        planes = _add_bits(inputs, shape, buf)
        if planes_out is None:
            planes_out = [np.empty((n, words), dtype=np.uint64) for _ in planes]
        for p, arr in zip(planes_out, planes, strict=True):
            p[s:e] = arr
        buf.put(*planes)
    return list(enumerate(planes_out))


def _max_count(
    planes: list[np.ndarray], cand: np.ndarray, tmp: np.ndarray, *, check: bool = False
) -> np.ndarray:
    """Maximum count per query row over the target bits set in ``cand`` (overwritten with the
    mask of the maximizers), read off the bit planes from the most significant one. With
    ``check``, rows of ``cand`` without any bit get −1 (otherwise every row must have one)."""
    best = np.where(cand.any(axis=1), 0, -1) if check else np.zeros(len(cand), dtype=np.int64)
    for w in range(len(planes) - 1, -1, -1):
        np.bitwise_and(cand, planes[w], out=tmp)
        has = tmp.any(axis=1)
        if has.all():
            cand[...] = tmp
        elif has.any():
            np.copyto(cand, tmp, where=has[:, None])
        best |= has.astype(np.int64) << w
    return best


def _block_distances(
    bits: _TargetBits, sl: slice, second_holdout: bool, buf: _Buffers
) -> tuple[np.ndarray, np.ndarray]:
    """Minimum Hamming distance of the queries ``sl`` to the train and to the holdout records
    (with ``second_holdout``: the second smallest holdout distance, i.e. the second largest
    match count of the multiset, as faiss' k = 2 search)."""
    b = sl.stop - sl.start
    best = [np.full(b, -1, dtype=np.int64), np.full(b, -1, dtype=np.int64)]
    second = np.full(b, -1, dtype=np.int64)
    for tile in bits.tiles:
        shape = (b, tile.words)
        planes = _add_bits(bits.inputs(tile, sl, buf), shape, buf)
        cand_all, tmp_all = buf.get(shape), buf.get(shape)
        cand_all[...] = tile.valid
        for role, seg, _ in tile.segments:
            cand, tmp = cand_all[:, seg], tmp_all[:, seg]
            seg_planes = [p[:, seg] for p in planes]
            m = _max_count(seg_planes, cand, tmp)
            if second_holdout and role == 1:
                # top two counts of this segment: the best twice if it is attained twice, else
                # the best among the segment's other records; merged into the running top two
                mult = np.bitwise_count(cand).sum(axis=1, dtype=np.int64)
                m2 = np.where(mult >= 2, m, -1)
                once = np.flatnonzero(mult == 1)
                if len(once):
                    rest = np.bitwise_and(tile.valid[seg], np.bitwise_not(cand[once]))
                    m2[once] = _max_count(
                        [p[once] for p in seg_planes], rest, np.empty_like(rest), check=True
                    )
                top = best[1]
                second = np.maximum(np.minimum(top, m), np.maximum(second, m2))
                best[1] = np.maximum(top, m)
            else:
                np.maximum(best[role], m, out=best[role])
        buf.put(cand_all, tmp_all, *planes)
    d = bits.d
    return d - best[0], d - (second if second_holdout else best[1])


def _nearest_distances(
    train: np.ndarray,
    holdout: np.ndarray,
    queries: np.ndarray,
    *,
    second_holdout: bool,
    n_jobs: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact Hamming 1-NN distances of ``queries`` to ``train`` and to ``holdout`` (codes)."""
    # identical query rows have identical answers (also for the 2nd-neighbour rule)
    inverse, n_uniq = _factorize_rows(queries)
    uniq = queries[_first_rows(inverse, n_uniq)]
    bits = _TargetBits([train, holdout], uniq, _TILE_WORDS)
    starts = list(range(0, n_uniq, _BLOCK_ROWS))
    d_t = np.empty(n_uniq, dtype=np.int64)
    d_h = np.empty(n_uniq, dtype=np.int64)

    def run(chunk: list[int]) -> None:
        buf = _Buffers()
        for s in chunk:
            sl = slice(s, min(s + _BLOCK_ROWS, n_uniq))
            rows = bits.order[sl]
            d_t[rows], d_h[rows] = _block_distances(bits, sl, second_holdout, buf)

    n_jobs = min(n_jobs, len(starts))
    if n_jobs <= 1:
        run(starts)
    else:
        from joblib import Parallel, delayed

        n_chunks = min(len(starts), 8 * n_jobs)
        chunks = [starts[i::n_chunks] for i in range(n_chunks)]
        Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(c) for c in chunks)
    return d_t[inverse], d_h[inverse]


@dataclass(frozen=True, eq=False)
class DCRResult:
    """Distances to closest records and the share closer to training (paper Sec. 2.2, Fig. 8).

    Attributes
    ----------
    d_train, d_holdout : numpy.ndarray of int64, shape (n_synthetic,)
        Hamming distance (number of differing attributes of the discretized records) of each
        synthetic record to its nearest training / holdout record (with
        ``synthetic_is_holdout``: the second nearest holdout record, i.e. itself excluded).
    share : float
        mean[d_train < d_holdout] + n_train / (n_train + n_holdout) · mean[d_train = d_holdout].
    n_closer, n_further, n_equal : int
        Synthetic records with d_train < d_holdout, >, =.
    mean_train, mean_holdout : float
        Mean of d_train and of d_holdout ("Avg DCR Train / Holdout").
    n_train, n_holdout : int
        Sizes of the training and holdout tables.
    synthetic_is_holdout : bool
        Whether the leave-self-out rule was used.
    bins : int
        Quantile bins of numeric columns.
    """

    d_train: np.ndarray
    d_holdout: np.ndarray
    share: float
    n_closer: int
    n_further: int
    n_equal: int
    mean_train: float
    mean_holdout: float
    n_train: int = 0
    n_holdout: int = 0
    synthetic_is_holdout: bool = False
    bins: int = DCR_BINS

    @property
    def n_synthetic(self) -> int:
        return len(self.d_train)

    def histogram(self) -> pd.DataFrame:
        """Counts of synthetic records by distance: columns ``distance``, ``train``,
        ``holdout`` (one row per distance 0 … max)."""
        top = int(max(self.d_train.max(initial=0), self.d_holdout.max(initial=0)))
        return pd.DataFrame(
            {
                "distance": np.arange(top + 1),
                "train": np.bincount(self.d_train, minlength=top + 1),
                "holdout": np.bincount(self.d_holdout, minlength=top + 1),
            }
        )


def _check_flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def dcr(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    synthetic: pd.DataFrame,
    *,
    bins: int = DCR_BINS,
    synthetic_is_holdout: bool = False,
    n_jobs: int | None = None,
) -> DCRResult:
    """Distance to closest record: synthetic vs training and vs holdout (paper Sec. 2.2).

    As ``priv()`` in the paper's ``privacy.ipynb`` [``mostlyai2024``]:

    1. numeric (and datetime) columns are cut into ``bins`` quantile bins of the **pooled**
       train + holdout + synthetic values (``pd.qcut(duplicates="drop")``: equal quantiles
       merge, so a column with few distinct values gets fewer bins), boolean and text columns
       are taken as they are; a missing value is a category of its own (the reference treats
       bool as numeric, see the module docstring);
    2. the distance of two records is the Hamming distance: the number of attributes whose
       categories differ (the reference's squared L2 distance of one-hot rows / 2);
    3. ``d_train[i]`` = distance of synthetic record i to its nearest training record,
       ``d_holdout[i]`` to its nearest holdout record — with ``synthetic_is_holdout`` the
       **second** smallest holdout distance, so that a holdout record scored as synthetic does
       not find itself (the reference's ``is_val``, faiss k = 2);
    4. share = mean[d_train < d_holdout] + n_train / (n_train + n_holdout) · mean[d_train =
       d_holdout] (ties are split in proportion to the table sizes; ≈ 50 % is ideal with equal
       halves).

    The search is exact (brute force, bit-sliced; see the module docstring), run in
    ``n_jobs`` threads over blocks of synthetic records; results do not depend on ``n_jobs``.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Tables with the same columns (any order; aligned to ``train``'s).
    bins : int, default 100
        Quantile bins of numeric columns (Figure 8: c = 100).
    synthetic_is_holdout : bool, default False
        Score the holdout itself: use the second nearest holdout record (needs ≥ 2 holdout
        rows). :func:`holdout_report` detects this case.
    n_jobs : int or None
        Threads; None or −1 = all cores.

    Returns
    -------
    DCRResult

    Raises
    ------
    TypeError
        Non-DataFrame input, non-integer ``bins`` or ``n_jobs``, non-bool flag.
    ValueError
        Empty table, different columns (named), all-missing column, different type classes of
        a column, infinite value, ``bins`` < 1, fewer than 2 holdout rows with
        ``synthetic_is_holdout``.
    """
    bins = _check_bins(bins)
    synthetic_is_holdout = _check_flag(synthetic_is_holdout, "synthetic_is_holdout")
    n_jobs = _check_n_jobs(n_jobs)
    _, aligned, kinds = _check_frames({"train": train, "holdout": holdout, "synthetic": synthetic})
    frames = [aligned[r] for r in _ROLES]
    if synthetic_is_holdout and len(frames[1]) < 2:
        raise ValueError(
            "synthetic_is_holdout=True needs at least 2 holdout rows (the nearest holdout "
            f"record other than the record itself), got {len(frames[1])}"
        )
    t_codes, h_codes, s_codes = _dcr_codes(frames, kinds, bins)
    d_t, d_h = _nearest_distances(
        t_codes, h_codes, s_codes, second_holdout=synthetic_is_holdout, n_jobs=n_jobs
    )
    return _dcr_result(d_t, d_h, len(t_codes), len(h_codes), synthetic_is_holdout, bins)


def _dcr_result(d_t, d_h, n_t, n_h, is_holdout, bins) -> DCRResult:
    closer = d_t < d_h
    equal = d_t == d_h
    share = float(np.mean(closer) + n_t / (n_t + n_h) * np.mean(equal))
    return DCRResult(
        d_train=d_t,
        d_holdout=d_h,
        share=share,
        n_closer=int(closer.sum()),
        n_further=int((d_t > d_h).sum()),
        n_equal=int(equal.sum()),
        mean_train=float(d_t.mean()),
        mean_holdout=float(d_h.mean()),
        n_train=int(n_t),
        n_holdout=int(n_h),
        synthetic_is_holdout=bool(is_holdout),
        bins=int(bins),
    )


# =============================================================================================
# the report
# =============================================================================================
def _same_rows(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """True if ``a`` and ``b`` hold the same rows in the same order (index ignored)."""
    if a is b:
        return True
    if a.shape != b.shape or list(a.columns) != list(b.columns):
        return False
    return a.reset_index(drop=True).equals(b.reset_index(drop=True))


def _json_value(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _json_value(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_value(v) for v in x]
    if isinstance(x, np.ndarray):
        return [_json_value(v) for v in x.tolist()]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


def _pct(x: float | None) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.1f} %"


@dataclass(frozen=True, eq=False)
class HoldoutReport:
    """Fidelity and privacy of one synthetic table against training and holdout data.

    Attributes
    ----------
    tvd_1, tvd_2, tvd_3 : float
        ``F^k(T, S)``: mean k-way TVD of the synthetic data vs training, fractions in [0, 1]
        (c = 100 / 10 / 5; paper Figure 7 prints them in %).
    holdout_tvd_1, holdout_tvd_2, holdout_tvd_3 : float
        ``F^k(T, H)``: the holdout scored against training the same way (the reference).
    tvd_per_combination, holdout_tvd_per_combination : dict[int, pandas.Series]
        k → the Series of :func:`tvd` (one value per column combination).
    dcr : DCRResult
        Distances of the synthetic records (Figure 8).
    holdout_dcr : DCRResult or None
        The holdout scored as synthetic (leave-self-out), the reference row of Figure 8;
        None when the synthetic table is the holdout (then ``dcr`` is that row).
    n_train, n_holdout, n_synthetic : int
        Rows used (after ``max_rows``).
    columns : tuple
        Column names, in the training table's order.
    parameters : dict
        Settings of the run (bins, subsampling, detection of the holdout-as-synthetic case).
    """

    tvd_1: float
    tvd_2: float
    tvd_3: float
    holdout_tvd_1: float
    holdout_tvd_2: float
    holdout_tvd_3: float
    tvd_per_combination: dict[int, pd.Series]
    holdout_tvd_per_combination: dict[int, pd.Series]
    dcr: DCRResult
    holdout_dcr: DCRResult | None
    n_train: int
    n_holdout: int
    n_synthetic: int
    columns: tuple
    parameters: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ derived tables
    def tvd_table(self, k: int) -> pd.DataFrame:
        """Per-combination TVD of the synthetic and of the holdout data for one k: columns
        ``columns`` (tuple of names), ``label`` (names joined by " × "), ``synthetic``,
        ``holdout``; sorted by ``synthetic`` descending."""
        k = _check_k(k)
        s = self.tvd_per_combination[k]
        h = self.holdout_tvd_per_combination[k]
        combos = [idx if isinstance(idx, tuple) else (idx,) for idx in s.index]
        out = pd.DataFrame(
            {
                "columns": combos,
                "label": [" × ".join(map(str, c)) for c in combos],
                "synthetic": s.to_numpy(),
                "holdout": h.to_numpy(),
            }
        )
        return out.sort_values(
            ["synthetic", "label"], ascending=[False, True], kind="stable"
        ).reset_index(drop=True)

    def to_dict(self) -> dict:
        """JSON-serialisable summary.

        Keys: ``tvd_1`` … ``tvd_3``, ``holdout_tvd_1`` … ``holdout_tvd_3`` (fractions in
        [0, 1]); ``tvd_3_ratio`` = tvd_3 / holdout_tvd_3 (Figure 9's x-axis; None if the holdout
        scores 0); ``dcr_share``, ``dcr_train_mean``, ``dcr_holdout_mean``, ``n_closer``,
        ``n_further``, ``n_equal`` (distances in number of differing attributes);
        ``holdout_dcr_share``, ``holdout_dcr_train_mean``, ``holdout_dcr_holdout_mean`` (the
        holdout's reference row); ``dcr_histogram`` ({"distance", "train", "holdout"} lists);
        ``n_train``, ``n_holdout``, ``n_synthetic``, ``columns``, ``synthetic_is_holdout``,
        ``parameters``; ``tvd_per_column`` / ``tvd_per_pair`` / ``tvd_per_triple`` (lists of
        {"columns", "synthetic", "holdout"}).
        """
        ref = self._reference_dcr()
        hist = self.dcr.histogram()
        out = {
            "tvd_1": self.tvd_1,
            "tvd_2": self.tvd_2,
            "tvd_3": self.tvd_3,
            "holdout_tvd_1": self.holdout_tvd_1,
            "holdout_tvd_2": self.holdout_tvd_2,
            "holdout_tvd_3": self.holdout_tvd_3,
            "tvd_3_ratio": (self.tvd_3 / self.holdout_tvd_3 if self.holdout_tvd_3 > 0 else None),
            "dcr_share": self.dcr.share,
            "dcr_train_mean": self.dcr.mean_train,
            "dcr_holdout_mean": self.dcr.mean_holdout,
            "n_closer": self.dcr.n_closer,
            "n_further": self.dcr.n_further,
            "n_equal": self.dcr.n_equal,
            "holdout_dcr_share": ref.share if ref else None,
            "holdout_dcr_train_mean": ref.mean_train if ref else None,
            "holdout_dcr_holdout_mean": ref.mean_holdout if ref else None,
            "dcr_histogram": {c: hist[c].tolist() for c in hist.columns},
            "n_train": self.n_train,
            "n_holdout": self.n_holdout,
            "n_synthetic": self.n_synthetic,
            "columns": [str(c) for c in self.columns],
            "synthetic_is_holdout": self.dcr.synthetic_is_holdout,
            "parameters": self.parameters,
        }
        for k, key in ((1, "tvd_per_column"), (2, "tvd_per_pair"), (3, "tvd_per_triple")):
            s = self.tvd_per_combination[k]
            h = self.holdout_tvd_per_combination[k]
            out[key] = [
                {
                    "columns": [str(c) for c in (idx if isinstance(idx, tuple) else (idx,))],
                    "synthetic": float(sv),
                    "holdout": float(hv),
                }
                for idx, sv, hv in zip(s.index, s.to_numpy(), h.to_numpy(), strict=True)
            ]
        return _json_value(out)

    def to_json(self, path) -> None:
        """Write :meth:`to_dict` as JSON to ``path`` (temporary file + rename)."""
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)
        write_text(path, text + "\n")

    def _reference_dcr(self) -> DCRResult | None:
        if self.holdout_dcr is not None:
            return self.holdout_dcr
        return self.dcr if self.dcr.synthetic_is_holdout else None

    def summary_rows(self) -> list[tuple[str, str, str]]:
        """(measure, synthetic, holdout reference) rows of :meth:`summary`."""
        ref = self._reference_dcr()
        bins = self.parameters.get("tvd_bins", TVD_BINS)
        rows = [
            (
                f"F{k}: {k}-way TVD (c={bins.get(k, bins.get(str(k)))})",
                _pct(getattr(self, f"tvd_{k}")),
                _pct(getattr(self, f"holdout_tvd_{k}")),
            )
            for k in (1, 2, 3)
        ]
        dash = "n/a"
        rows += [
            (
                "DCR share closer to training",
                _pct(self.dcr.share),
                _pct(ref.share) if ref else dash,
            ),
            (
                "mean DCR to training",
                f"{self.dcr.mean_train:.2f}",
                f"{ref.mean_train:.2f}" if ref else dash,
            ),
            (
                "mean DCR to holdout",
                f"{self.dcr.mean_holdout:.2f}",
                f"{ref.mean_holdout:.2f}" if ref else dash,
            ),
            (
                "closer / further / equal",
                f"{self.dcr.n_closer:,} / {self.dcr.n_further:,} / {self.dcr.n_equal:,}",
                f"{ref.n_closer:,} / {ref.n_further:,} / {ref.n_equal:,}" if ref else dash,
            ),
        ]
        return rows

    def summary(self) -> str:
        """A printable table: the synthetic data's F1/F2/F3 (in %, as the paper's Figure 7),
        DCR share and mean DCRs (Figure 8) beside the holdout's reference values."""
        rows = self.summary_rows()
        head = ("measure", "synthetic", "holdout (reference)")
        w0 = max(len(head[0]), *(len(r[0]) for r in rows))
        w1 = max(len(head[1]), *(len(r[1]) for r in rows))
        w2 = max(len(head[2]), *(len(r[2]) for r in rows))
        lines = [
            "Holdout-based fidelity and privacy (Platzer & Reutterer 2021)",
            f"train {self.n_train:,} rows, holdout {self.n_holdout:,}, synthetic "
            f"{self.n_synthetic:,}; {len(self.columns)} columns"
            + (" (synthetic = holdout)" if self.dcr.synthetic_is_holdout else ""),
            "",
            f"{head[0]:<{w0}}  {head[1]:>{w1}}  {head[2]:>{w2}}",
            f"{'-' * w0}  {'-' * w1}  {'-' * w2}",
        ]
        lines += [f"{a:<{w0}}  {b:>{w1}}  {c:>{w2}}" for a, b, c in rows]
        lines += [
            "",
            "TVD: lower is better, the holdout's value is what an independent sample scores.",
            "Share: ~50 % means the synthetic records are no closer to training than to holdout.",
        ]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"HoldoutReport(tvd_1={self.tvd_1:.4f}, tvd_2={self.tvd_2:.4f}, "
            f"tvd_3={self.tvd_3:.4f}, holdout_tvd=({self.holdout_tvd_1:.4f}, "
            f"{self.holdout_tvd_2:.4f}, {self.holdout_tvd_3:.4f}), dcr_share={self.dcr.share:.4f}, "
            f"n_train={self.n_train}, n_holdout={self.n_holdout}, n_synthetic={self.n_synthetic})"
        )


def _subsample(df: pd.DataFrame, max_rows: int | None, rng: np.random.Generator) -> pd.DataFrame:
    if max_rows is None or len(df) <= max_rows:
        return df
    idx = np.sort(rng.choice(len(df), size=max_rows, replace=False))
    return df.iloc[idx]


def holdout_report(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    synthetic: pd.DataFrame,
    *,
    max_rows: int | None = None,
    n_jobs: int | None = None,
    random_state=None,
    synthetic_is_holdout: bool | None = None,
) -> HoldoutReport:
    """Fidelity (F1, F2, F3) and privacy (DCR share, mean DCRs) of ``synthetic``, with the
    holdout's reference values (Platzer & Reutterer 2021, Figures 7 and 8).

    * ``tvd_k`` = mean of :func:`tvd` (``train``, ``synthetic``, k, c) and ``holdout_tvd_k`` =
      the same for ``holdout``, c = 100 / 10 / 5 for k = 1 / 2 / 3;
    * ``dcr`` = :func:`dcr` (``train``, ``holdout``, ``synthetic``), 100 pooled quantile bins;
    * ``holdout_dcr`` = :func:`dcr` (``train``, ``holdout``, ``holdout``,
      ``synthetic_is_holdout=True``): the holdout's own row, the target a synthesizer should
      match.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Same columns (any order). Numeric/datetime columns are binned on quantiles,
        boolean/text columns are categorical, missing values are a category.
    max_rows : int, optional
        Use at most this many rows of each table (a random subsample without replacement,
        drawn with ``random_state``; the synthetic table, if it is the holdout, is subsampled
        as the holdout). None: all rows, and nothing random.
    n_jobs : int or None
        Threads for the nearest-neighbour search; None or −1 = all cores. Results do not
        depend on it.
    random_state : int, numpy Generator or None
        Seed of the subsampling (used only with ``max_rows``).
    synthetic_is_holdout : bool or None
        None: detect it (``synthetic`` holds the same rows as ``holdout`` in the same order,
        index ignored, same dtypes); then the DCR uses the paper's leave-self-out rule (second
        nearest holdout record). True/False force the rule on/off.

    Returns
    -------
    HoldoutReport

    Raises
    ------
    TypeError, ValueError
        As :func:`dcr`; ``max_rows`` not an integer ≥ 1 (≥ 2 when the synthetic table is the
        holdout).
    """
    columns, aligned, _ = _check_frames(
        {"train": train, "holdout": holdout, "synthetic": synthetic}
    )
    train, holdout, synthetic = (aligned[r] for r in _ROLES)
    if max_rows is not None:
        if isinstance(max_rows, bool) or not isinstance(max_rows, numbers.Integral):
            raise TypeError(f"max_rows must be an integer >= 1 or None, got {max_rows!r}")
        if max_rows < 1:
            raise ValueError(f"max_rows must be >= 1 or None, got {max_rows!r}")
        max_rows = int(max_rows)
    detected = _same_rows(holdout, synthetic)
    if synthetic_is_holdout is None:
        is_holdout = detected
    else:
        is_holdout = _check_flag(synthetic_is_holdout, "synthetic_is_holdout")
    n_jobs_ = _check_n_jobs(n_jobs)

    rng = check_random_state(random_state) if max_rows is not None else None
    if max_rows is not None:
        train = _subsample(train, max_rows, rng)
        same = detected
        holdout = _subsample(holdout, max_rows, rng)
        synthetic = holdout if same else _subsample(synthetic, max_rows, rng)

    kinds = [_kind(train[c]) for c in columns]
    tvd_s: dict[int, pd.Series] = {}
    tvd_h: dict[int, pd.Series] = {}
    for k, c in TVD_BINS.items():
        specs = _fit_binning(train, kinds, c)
        n_codes = [s.n_codes for s in specs]
        a = _codes_matrix(train, specs)
        for target, store in ((synthetic, tvd_s), (holdout, tvd_h)):
            combos, values = _tvd_codes(a, _codes_matrix(target, specs), n_codes, k)
            store[k] = _tvd_series(columns, combos, values, k)

    frames = [train, holdout, synthetic]
    t_codes, h_codes, s_codes = _dcr_codes(frames, kinds, DCR_BINS)
    if is_holdout and len(h_codes) < 2:
        raise ValueError("the synthetic table is the holdout: at least 2 holdout rows are needed")
    d_t, d_h = _nearest_distances(
        t_codes, h_codes, s_codes, second_holdout=is_holdout, n_jobs=n_jobs_
    )
    main = _dcr_result(d_t, d_h, len(t_codes), len(h_codes), is_holdout, DCR_BINS)
    reference = None
    if not is_holdout and len(holdout) >= 2:
        t2, h2, s2 = _dcr_codes([train, holdout, holdout], kinds, DCR_BINS)
        r_t, r_h = _nearest_distances(t2, h2, s2, second_holdout=True, n_jobs=n_jobs_)
        reference = _dcr_result(r_t, r_h, len(t2), len(h2), True, DCR_BINS)

    def mean(s: pd.Series) -> float:
        return float(s.mean()) if len(s) else float("nan")

    parameters = {
        "tvd_bins": dict(TVD_BINS),
        "dcr_bins": DCR_BINS,
        "max_rows": max_rows,
        "random_state": (
            int(random_state)
            if isinstance(random_state, numbers.Integral)
            else None
            if random_state is None
            else type(random_state).__name__
        ),
        "synthetic_is_holdout": bool(is_holdout),
        "synthetic_is_holdout_detected": bool(detected),
        "other_token": OTHER,
        "missing_token": MISSING,
        "source": "Platzer & Reutterer (2021), Figures 7 and 8; mostly-ai/paper-fidelity-accuracy",
    }
    return HoldoutReport(
        tvd_1=mean(tvd_s[1]),
        tvd_2=mean(tvd_s[2]),
        tvd_3=mean(tvd_s[3]),
        holdout_tvd_1=mean(tvd_h[1]),
        holdout_tvd_2=mean(tvd_h[2]),
        holdout_tvd_3=mean(tvd_h[3]),
        tvd_per_combination=tvd_s,
        holdout_tvd_per_combination=tvd_h,
        dcr=main,
        holdout_dcr=reference,
        n_train=len(train),
        n_holdout=len(holdout),
        n_synthetic=len(synthetic),
        columns=tuple(columns),
        parameters=parameters,
    )
