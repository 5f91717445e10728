"""The k-way total variation distance (TVD) between the training table and another table."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numba
import numpy as np
import pandas as pd

from ._tables import TVD_BINS, check_bins, check_k, check_tables
from .binning import codes_matrix, fit_binning

# =============================================================================================
# k-way TVD
# =============================================================================================
#: Combinations counted between two updates of the progress bar.
_PROGRESS_COMBINATIONS = 512


#: Records counted together: a block of the code columns stays in the L2 cache while every
#: combination reads it (one pass over memory per block, not per combination).
_BLOCK_RECORDS = 8192


@numba.njit(parallel=True, cache=True)
def _count_cells(columns, n_codes, combos, offsets, out):
    """Add the k-way cell counts (k ≤ 3) of the records (``columns``: d × n codes) to ``out``:
    cell (c₁, …, c_k) of combination m is ``offsets[m]`` + the mixed-radix number c₁ … c_k."""
    n = columns.shape[1]
    k = combos.shape[1]
    for start in range(0, n, _BLOCK_RECORDS):
        stop = min(n, start + _BLOCK_RECORDS)
        for m in numba.prange(combos.shape[0]):
            # columns absent from a combination of k < 3 read column 0 with radix 1, code 0
            a = combos[m, 0]
            b = combos[m, 1] if k > 1 else 0
            c = combos[m, 2] if k > 2 else 0
            nb = n_codes[b] if k > 1 else 1
            nc = n_codes[c] if k > 2 else 1
            x = columns[a, start:stop]
            y = columns[b, start:stop]
            z = columns[c, start:stop]
            hist = out[offsets[m] : offsets[m + 1]]
            for r in range(stop - start):
                cell = np.int64(x[r])
                if k > 1:
                    cell = cell * nb + y[r]
                if k > 2:
                    cell = cell * nc + z[r]
                hist[cell] += 1


class KWayCells:
    """The k-way cells of every combination of k of ``d`` columns, in the order of
    ``itertools.combinations``: ``combos`` (m × k), and ``offsets`` (m + 1) of each
    combination's block of cells."""

    def __init__(self, n_codes: Sequence[int], k: int):
        self.n_codes = np.asarray(n_codes, dtype=np.int64)
        d = len(self.n_codes)
        self.combos = np.array(list(itertools.combinations(range(d), k)), dtype=np.int64)
        self.combos = self.combos.reshape(-1, k)
        sizes = np.prod(self.n_codes[self.combos], axis=1) if len(self.combos) else []
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def counts(self, codes: np.ndarray, progress=None) -> np.ndarray:
        """Cell counts (int64, one block per combination) of the records ``codes`` (n × d)."""
        small = codes.size == 0 or int(codes.max()) < 256
        columns = np.ascontiguousarray(codes.T, dtype=np.uint8 if small else np.int32)
        out = np.zeros(int(self.offsets[-1]), dtype=np.int64)
        for s in range(0, len(self.combos), _PROGRESS_COMBINATIONS):
            e = min(s + _PROGRESS_COMBINATIONS, len(self.combos))
            _count_cells(columns, self.n_codes, self.combos[s:e], self.offsets[s : e + 1], out)
            if progress is not None:
                progress.update(e - s)
        return out

    def tvd(self, counts_a: np.ndarray, n_a: int, counts_b: np.ndarray, n_b: int) -> np.ndarray:
        """½ Σ |p − q| per combination, p and q the cell frequencies of two tables."""
        if not len(self.combos):
            return np.zeros(0)
        diff = np.abs(counts_a / n_a - counts_b / n_b)
        return 0.5 * np.add.reduceat(diff, self.offsets[:-1])

    def labels(self) -> list[tuple[int, ...]]:
        return [tuple(int(j) for j in c) for c in self.combos]


def _tvd_codes(
    a: np.ndarray, b: np.ndarray, n_codes: Sequence[int], k: int
) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """TVD per k-combination of columns from integer codes ``a`` (n_a × d) and ``b`` (n_b × d).

    Every k-way cell is the tuple of its columns' codes, flattened to one integer (mixed radix):
    distinct cells never collide (the reference code concatenates labels without a separator).
    The cells are counted by a compiled loop over the records, one combination a thread.
    """
    cells = KWayCells(n_codes, k)
    values = cells.tvd(cells.counts(a), a.shape[0], cells.counts(b), b.shape[0])
    return cells.labels(), values


def tvd_series(
    columns: list, combos: list[tuple[int, ...]], values: np.ndarray, k: int
) -> pd.Series:
    """The k-way TVD values as the Series that :func:`tvd` returns.

    Parameters
    ----------
    columns : list
        Column names; ``combos`` index into it.
    combos : list of tuple of int
        The column indices of each combination, one tuple of length k per value.
    values : ndarray, shape (len(combos),)
        TVD of each combination.
    k : int
        Order of the marginals: the number of index levels.

    Returns
    -------
    pandas.Series
        Name ``"tvd"``, float, indexed by a MultiIndex of column-name tuples with levels
        ``column_1`` … ``column_k``, in the order of ``combos``.
    """
    index = pd.MultiIndex.from_tuples(
        [tuple(columns[j] for j in combo) for combo in combos],
        names=[f"column_{i + 1}" for i in range(k)],
    )
    return pd.Series(values, index=index, name="tvd", dtype=float)


def tvd(train: pd.DataFrame, other: pd.DataFrame, k: int, bins: int | None = None) -> pd.Series:
    """Total variation distance of every k-way marginal, training vs ``other`` (``platzer2021``, §2.1).

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
    k = check_k(k)
    bins = TVD_BINS[k] if bins is None else check_bins(bins)
    columns, aligned, kinds = check_tables({"train": train, "other": other})
    specs = fit_binning(aligned["train"], kinds, bins)
    a = codes_matrix(aligned["train"], specs)
    b = codes_matrix(aligned["other"], specs)
    combos, values = _tvd_codes(a, b, [s.n_codes for s in specs], k)
    return tvd_series(columns, combos, values, k)
