"""Exact marginals of integer-coded tables: counts over a clique of column positions (C order,
as mbi's ``Factor.datavector()`` [``mbi2026``]) and the mean total-variation distance between
the marginals of two tables (the workload error the reference mechanisms of Private-PGM
[``privatepgm2025``] print).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: a clique: a sorted tuple of column positions
Clique = tuple[int, ...]


def true_marginal(X: np.ndarray, sizes: Sequence[int], clique: Clique) -> np.ndarray:
    """Exact counts of the marginal over ``clique`` (positions), flat C order, float64.

    ``X`` is the (rows, d) int64 code matrix. One ``np.bincount`` of the raveled codes;
    ``clique = ()`` gives ``[rows]``.
    """
    n = X.shape[0]
    if len(clique) == 0:
        return np.array([float(n)])
    idx = np.zeros(n, dtype=np.int64)
    cells = 1
    for a in clique:
        idx *= sizes[a]
        idx += X[:, a]
        cells *= sizes[a]
    return np.bincount(idx, minlength=cells).astype(float)


def marginal_counts(codes: Mapping, domain: Mapping, columns: Sequence) -> np.ndarray:
    """Exact counts of the marginal of a coded table over ``columns`` (any order).

    Parameters
    ----------
    codes : mapping column -> integer array (rows,), or a DataFrame of codes
    domain : mapping column -> number of levels
    columns : sequence of column names

    Returns
    -------
    ndarray float64 of shape ``tuple(domain[c] for c in columns)``: entry ``[i, j, ...]`` counts the
    rows with ``codes[columns[0]] == i``, ``codes[columns[1]] == j``, ...

    Raises
    ------
    ValueError
        A column not in ``codes``/``domain``, a repeated column, or a code outside the domain.
    """
    columns = list(columns)
    if len(set(columns)) != len(columns):
        raise ValueError(f"columns must be distinct, got {columns}")
    for c in columns:
        if c not in domain or c not in codes:
            raise ValueError(f"column {c!r} is not in the codes/domain")
    X = (
        np.column_stack([np.asarray(codes[c], dtype=np.int64) for c in columns])
        if columns
        else None
    )
    sizes = [int(domain[c]) for c in columns]
    if X is None:
        n = len(next(iter(codes.values()))) if len(codes) else 0
        return np.array(float(n))
    if np.any(X < 0) or np.any(X >= np.asarray(sizes)):
        raise ValueError(f"codes outside the domain {dict(zip(columns, sizes, strict=True))}")
    return true_marginal(X, sizes, tuple(range(len(columns)))).reshape(sizes)


def mean_tvd(
    X: np.ndarray, Y: np.ndarray, sizes: Sequence[int], cliques: Sequence[Clique]
) -> float:
    """Mean over ``cliques`` of the total-variation distance ½‖p − q‖₁ between the normalised
    marginals of two code matrices ``X`` (rows, d) and ``Y`` (rows', d) (the workload error that
    the reference mechanisms of Private-PGM [``privatepgm2025``] print)."""
    out = []
    for cl in cliques:
        p = true_marginal(X, sizes, cl)
        q = true_marginal(Y, sizes, cl)
        out.append(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())
    return float(np.mean(out))
