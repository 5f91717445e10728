"""Discretization of the tables for the k-way TVD: statistics of the training data alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ._tables import MISSING, OTHER, as_float, check_bins, check_tables

# =============================================================================================
# discretization for the TVD (statistics of the training data alone)
# =============================================================================================


def quantile_breaks(values: np.ndarray, bins: int, *, round_up: bool = False) -> np.ndarray:
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


def cut_codes(x: np.ndarray, breaks: np.ndarray) -> np.ndarray:
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
            x = as_float(series)
            out = cut_codes(x, self.breaks)
            out[out < 0] = m
            out[np.isnan(x)] = m + 1
            return out.astype(np.int64)
        # factorize in the column's own dtype (fast for Arrow strings), then look the few
        # distinct values up among the categories: code −1 (missing) → the last entry
        ids, uniques = pd.factorize(series, use_na_sentinel=True)
        lookup = self.categories.get_indexer(np.asarray(uniques, dtype=object))
        lookup[lookup < 0] = m
        return np.append(lookup, m + 1).astype(np.int64)[ids]


def fit_binning(train: pd.DataFrame, kinds: list[str], bins: int) -> list[_ColumnBinning]:
    """How to discretize each column, fitted on the training table alone (``platzer2021``, §2.1).

    Numeric and datetime columns get the :func:`quantile_breaks` of the training column; other
    columns keep their ``bins`` most frequent training values (:func:`_top_categories`). Every
    column then gets an :data:`OTHER` and a :data:`MISSING` label, in that order, last.

    Parameters
    ----------
    train : pandas.DataFrame
        The aligned training table (n_T × d), as returned by :func:`check_tables`.
    kinds : list of str
        Type class of each column (:func:`column_kind`), in ``train``'s column order.
    bins : int
        c, the maximum number of quantile bins / retained categories per column.

    Returns
    -------
    list of _ColumnBinning
        One per column, in ``train``'s column order.
    """
    specs = []
    for col, kind in zip(train.columns, kinds, strict=True):
        if kind in ("numeric", "datetime"):
            breaks = quantile_breaks(as_float(train[col]), bins)
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


def codes_matrix(df: pd.DataFrame, specs: list[_ColumnBinning]) -> np.ndarray:
    """Integer bin codes of a table, shape (n, d), one column per entry of ``specs``.

    Codes 0 … m−1 are a column's m retained bins / categories, m its :data:`OTHER` and
    m + 1 its :data:`MISSING` code (:class:`_ColumnBinning`); ``df`` is looked up by column
    name.
    """
    return np.column_stack([spec.codes(df[spec.name]) for spec in specs])


def discretize(
    train: pd.DataFrame, others: Sequence[pd.DataFrame], bins: int
) -> list[pd.DataFrame]:
    """Discretize ``train`` and ``others`` with statistics of ``train`` alone (``platzer2021``, §2.1).

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
    bins = check_bins(bins)
    frames = {"train": train, **{f"others[{i}]": df for i, df in enumerate(others)}}
    _, aligned, kinds = check_tables(frames)
    specs = fit_binning(aligned["train"], kinds, bins)
    out = []
    for df in aligned.values():
        codes = codes_matrix(df, specs)
        data = {
            spec.name: pd.Categorical.from_codes(codes[:, j], categories=list(spec.labels))
            for j, spec in enumerate(specs)
        }
        out.append(pd.DataFrame(data, index=df.index))
    return out
