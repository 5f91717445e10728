"""χ² test of independence vectorized over replicates, equal to ``scipy.stats.chi2_contingency``.

Pearson's statistic with Yates' correction when dof = 1 (SciPy's defaults), on r × c tables,
on per-category counts of two groups and on raw category labels; Montoya Perez et al. 2024
[``montoyaperez2024``], §4.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ._inputs import check_counts, two_counts
from .results import Chi2Result, as_scalar


def chi2_from_table(obs, dof):
    """SciPy's ``chi2_contingency(obs, correction=True)`` (Pearson, ``lambda_=None``) on tables
    (..., r, c) with ``dof`` = (r − 1)(c − 1); a replicate with a zero expected frequency (SciPy
    raises) → nan."""
    obs = np.asarray(obs, dtype=float)
    row = obs.sum(axis=-1, keepdims=True)
    col = obs.sum(axis=-2, keepdims=True)
    total = obs.sum(axis=(-2, -1), keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = row * col / total
    bad = np.any(expected == 0, axis=(-2, -1))
    if dof == 0:  # SciPy: observed == expected, chi2 = 0, p = 1
        stat = np.zeros(obs.shape[:-2])
        p = np.ones(obs.shape[:-2])
    else:
        if dof == 1:
            # Yates (SciPy): O + min(0.5, |E − O|)·sign(E − O) == O + clip(E − O, −0.5, 0.5)
            obs = obs + np.clip(expected - obs, -0.5, 0.5)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = (obs - expected) ** 2 / expected
        stat = terms.reshape(terms.shape[:-2] + (-1,)).sum(axis=-1)
        p = special.chdtrc(dof, stat)
    stat = np.where(bad, np.nan, stat)
    p = np.where(bad, np.nan, p)
    return stat, p, expected


def chi2_contingency(table) -> Chi2Result:
    """χ² test of independence, equal to ``scipy.stats.chi2_contingency(table)`` per replicate.

    Parameters
    ----------
    table : array_like of nonnegative counts, shape (..., r, c) — one r × c table per replicate.

    Returns
    -------
    Chi2Result
        Pearson statistic with Yates' continuity correction when dof = (r−1)(c−1) = 1 (SciPy's
        ``correction=True``; each cell moved by min(0.5, ``|E − O|``) towards E), p = χ²_dof
        survival function, ``dof`` (int), ``expected_freq`` (..., r, c).  dof = 0 (r or c = 1):
        statistic 0, p = 1 as SciPy.  A replicate with a zero row/column sum (SciPy raises
        "expected frequencies has a zero element") gets ``nan``.

    Raises
    ------
    ValueError for negative, non-integer or NaN counts or fewer than 2 dimensions.
    """
    obs = check_counts(table, "table")
    if obs.ndim < 2:
        raise ValueError(f"table must have shape (..., r, c), got {obs.shape}")
    r, c = obs.shape[-2:]
    if r == 0:
        raise ValueError(f"table must have at least one row, got shape {obs.shape}")
    dof = (r - 1) * (c - 1)
    stat, p, expected = chi2_from_table(obs, dof)
    return Chi2Result(as_scalar(stat), as_scalar(p), dof, expected)


def chi2_counts(cx, cy) -> Chi2Result:
    """χ² test of independence of group (x / y) and category, from per-category counts.

    Parameters
    ----------
    cx, cy : array_like of nonnegative ints, shape (..., k) — counts of each category in group
        x and group y (e.g. a binary variable: k = 2).

    Returns
    -------
    Chi2Result
        Equal to ``scipy.stats.chi2_contingency(pandas.crosstab(group, value))`` on the expanded
        data of every replicate: the table is 2 × (categories present in the replicate), so
        absent categories are dropped, dof = k_present − 1 (per replicate, int array), Yates'
        correction when dof = 1.  One category present → statistic 0, p = 1 (SciPy's dof = 0).
        Empty group → nan.  ``expected_freq`` has shape (..., 2, k) with 0 for absent
        categories.
    """
    cx, cy, _ = two_counts(cx, cy)
    t = cx + cy
    n1 = cx.sum(axis=-1, keepdims=True).astype(float)
    n2 = cy.sum(axis=-1, keepdims=True).astype(float)
    big_n = n1 + n2
    present = t > 0
    dof = np.count_nonzero(present, axis=-1) - 1
    empty = (n1[..., 0] == 0) | (n2[..., 0] == 0)
    # 2 × k closed form: O_x − E_x = −(O_y − E_y) = d, 1/E_x + 1/E_y = N²/(n_x n_y t), so
    # χ² = N²/(n_x n_y) Σ_j d_j²/t_j; Yates (dof = 1) replaces |d| by max(|d| − 0.5, 0),
    # which is SciPy's O + min(0.5, |E − O|)·sign(E − O) applied to both cells of a column.
    with np.errstate(divide="ignore", invalid="ignore"):
        ex = n1 * t / big_n
        d = cx - ex
        yates = (dof == 1)[..., None]
        d = np.where(yates, np.maximum(np.abs(d) - 0.5, 0.0), d)
        terms = np.divide(d * d, t, out=np.zeros(d.shape), where=present)
        stat = terms.sum(axis=-1) * (big_n[..., 0] ** 2 / (n1[..., 0] * n2[..., 0]))
        p = special.chdtrc(dof, stat)
    stat = np.where(dof == 0, 0.0, stat)
    p = np.where(dof == 0, 1.0, p)
    stat = np.where(empty, np.nan, stat)
    p = np.where(empty, np.nan, p)
    expected = np.stack([ex, t - ex], axis=-2)
    return Chi2Result(as_scalar(stat), as_scalar(p), as_scalar(dof), expected)


def chi2_two_groups(x, y) -> Chi2Result:
    """χ² test of a categorical (e.g. binary) variable between two groups of raw values.

    Parameters
    ----------
    x : array_like, shape (..., n_x); y : array_like, shape (..., n_y) — category labels
        (numbers or strings); leading shapes broadcast.  NaN is rejected.

    Returns
    -------
    Chi2Result
        As :func:`chi2_counts` on the per-category counts (categories = sorted union of all
        labels), i.e. SciPy's ``chi2_contingency`` on the group × category crosstab.
    """
    xa = np.asarray(x)
    ya = np.asarray(y)
    for name, a in (("x", xa), ("y", ya)):
        if a.ndim < 1 or a.shape[-1] == 0:
            raise ValueError(f"{name} must have shape (..., n) with n >= 1, got {a.shape}")
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            raise ValueError(f"{name} contains NaN or infinite values; remove them first")
    try:
        lead = np.broadcast_shapes(xa.shape[:-1], ya.shape[:-1])
    except ValueError:
        raise ValueError(
            f"leading shapes of x {xa.shape[:-1]} and y {ya.shape[:-1]} do not broadcast"
        ) from None
    xa = np.broadcast_to(xa, lead + xa.shape[-1:]).reshape(-1, xa.shape[-1])
    ya = np.broadcast_to(ya, lead + ya.shape[-1:]).reshape(-1, ya.shape[-1])
    try:
        cats, inv = np.unique(np.concatenate([xa.ravel(), ya.ravel()]), return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"x and y labels must be mutually comparable: {exc}") from None
    inv = inv.reshape(-1)
    k = cats.size
    reps = xa.shape[0]
    ix = inv[: xa.size].reshape(xa.shape) + k * np.arange(reps)[:, None]
    iy = inv[xa.size :].reshape(ya.shape) + k * np.arange(reps)[:, None]
    cx = np.bincount(ix.ravel(), minlength=reps * k).reshape(lead + (k,))
    cy = np.bincount(iy.ravel(), minlength=reps * k).reshape(lead + (k,))
    return chi2_counts(cx, cy)
