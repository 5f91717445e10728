"""The record space of an audit: domain sizes, integer codes and weighted sets of cells.

Houssiau et al. (2022) [``houssiau2022``], §3.3, work on the finite record space
𝒳 = Π_j {0, …, n_j − 1} of a generator card (M = ``|𝒳|`` cells). This module validates domain
sizes, integer codes and row weights against it, holds a dataset given as distinct cells and
their counts (:class:`CellCounts`), and lists every cell of a small domain (:func:`all_cells`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["CellCounts", "all_cells"]

_DENSE_MAX_CELLS = 200_000  # largest domain for which dense M-vectors are formed


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def check_sizes(sizes, name: str = "sizes") -> tuple[int, ...]:
    """Validate domain sizes n_j and return them as a tuple of int.

    Parameters
    ----------
    sizes : sequence of int, ndarray or mapping
        One size per column; a mapping contributes its values, in order.
    name : str
        Argument name used in error messages.

    Raises
    ------
    TypeError
        ``sizes`` is a string or not a sequence, or a size is not an integer (bools rejected).
    ValueError
        A size is below 1, or there are no sizes at all.
    """
    if isinstance(sizes, Mapping):
        sizes = list(sizes.values())
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of domain sizes, got {type(sizes).__name__}")
    out = []
    for j, n in enumerate(sizes):
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
            raise TypeError(f"{name}[{j}] must be an integer domain size, got {n!r}")
        if n < 1:
            raise ValueError(f"{name}[{j}] must be >= 1, got {n!r}")
        out.append(int(n))
    if not out:
        raise ValueError(f"{name} is empty; at least one column is needed")
    return tuple(out)


def check_card_codes(
    codes, sizes: tuple[int, ...], columns: tuple[str, ...] | None, name: str = "codes"
) -> np.ndarray:
    """Integer codes (n, d): a DataFrame (columns selected by name) or a 2-D array."""
    if isinstance(codes, CellCounts):
        codes = codes.codes
    if isinstance(codes, pd.DataFrame):
        if columns is not None:
            missing = [c for c in columns if c not in codes.columns]
            if missing:
                raise ValueError(
                    f"{name} lacks the column(s) {missing}; the card's columns are {list(columns)}"
                )
            codes = codes.loc[:, list(columns)]
        codes = codes.to_numpy()
    arr = np.asarray(codes)
    if arr.ndim != 2 or arr.shape[1] != len(sizes):
        raise ValueError(
            f"{name} must have shape (n, {len(sizes)}) (one column per card column), "
            f"got shape {arr.shape}"
        )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold integer codes; got non-integral values")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer codes, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    for j, n in enumerate(sizes):
        bad = (arr[:, j] < 0) | (arr[:, j] >= n)
        if bad.any():
            col = columns[j] if columns is not None else j
            raise ValueError(
                f"{name}: column {col!r} has codes outside 0..{n - 1}, "
                f"e.g. {arr[bad, j][:5].tolist()}"
            )
    return arr


def check_cell_counts(counts, n: int, name: str = "counts") -> np.ndarray:
    """Validate per-row weights, shape (n,), as floats; ``None`` gives a weight of 1 per row.

    Raises
    ------
    ValueError
        Wrong shape, a negative or non-finite weight, or weights summing to 0.
    """
    if counts is None:
        return np.ones(n)
    arr = np.asarray(counts, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) (one weight per row), got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and >= 0")
    if arr.sum() <= 0:
        raise ValueError(f"{name} sum to 0: the dataset is empty")
    return arr


# --------------------------------------------------------------------------------------------
# a weighted set of cells
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellCounts:
    """A dataset given as distinct cells and their counts.

    Attributes
    ----------
    codes : ndarray of int, shape (m, d)
        One row per cell, integer codes per column.
    counts : ndarray of int, shape (m,)
        How many records each cell holds (zeros allowed).
    columns : tuple of str
        Column names (the card's order).
    """

    codes: np.ndarray
    counts: np.ndarray
    columns: tuple[str, ...]

    @property
    def n(self) -> int:
        """Number of records N = Σ counts."""
        return int(np.sum(self.counts))

    def to_frame(self) -> pd.DataFrame:
        """The records as rows: each cell repeated ``counts`` times; columns named, int64."""
        rows = np.repeat(self.codes, np.asarray(self.counts, dtype=np.int64), axis=0)
        return pd.DataFrame(rows, columns=list(self.columns))


# --------------------------------------------------------------------------------------------
# every cell of a small domain
# --------------------------------------------------------------------------------------------
def all_cells(sizes) -> np.ndarray:
    """Every cell of Π_j {0..n_j − 1} in C order, shape (M, d); only for small domains.

    Raises
    ------
    ValueError
        M larger than 200 000.
    """
    sizes = check_sizes(sizes)
    m = math.prod(sizes)
    if m > _DENSE_MAX_CELLS:
        raise ValueError(
            f"the domain has M = {m} cells; all_cells allows at most {_DENSE_MAX_CELLS}"
        )
    return np.stack(np.unravel_index(np.arange(m), sizes), axis=1).astype(np.int64)
