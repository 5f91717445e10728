"""The k-way total variation distance (TVD) between the training table and another table."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ._tables import TVD_BINS, _check_bins, _check_frames, _check_k
from .binning import _codes_matrix, _fit_binning


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
