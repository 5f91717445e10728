"""The correlated rank similarity of the QUIPP pipeline used by Giles et al. (2022)
[``giles2022``]: an RBO whose overlap at depth d counts two different features as partly the same
when they are associated in the real data (Cramér's V, the correlation ratio, Pearson's r).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import linear_sum_assignment

from synthtrust._validation import (
    check_unique_items,
)
from synthtrust.importance.rbo import PERSISTENCE_OR_ONE


# --------------------------------------------------------------------------------------------
# correlated rank similarity (QUIPP pipeline, Giles et al. 2022)
# --------------------------------------------------------------------------------------------
def _cramers_v(a: pd.Series, b: pd.Series) -> float:
    """Bias-corrected Cramér's V (Bergsma & Wicher 2013) from SciPy's χ² (Yates for 2 × 2)."""
    table = pd.crosstab(a, b).to_numpy()
    r, k = table.shape
    n = table.sum()
    if min(r, k) < 2:
        return 0.0
    phi2 = stats.chi2_contingency(table)[0] / n
    phi2c = max(0.0, phi2 - (k - 1) * (r - 1) / (n - 1))
    rc = r - (r - 1) ** 2 / (n - 1)
    kc = k - (k - 1) ** 2 / (n - 1)
    denom = min(kc - 1, rc - 1)
    return float(np.sqrt(phi2c / denom)) if denom > 0 else float("nan")


def _correlation_ratio(categories: pd.Series, values: pd.Series) -> float:
    """Correlation ratio η: √(between-group sum of squares / total sum of squares)."""
    v = values.to_numpy(dtype=float)
    codes = pd.factorize(categories)[0]
    counts = np.bincount(codes)
    means = np.bincount(codes, weights=v) / counts
    total = v.mean()
    num = float(np.sum(counts * (means - total) ** 2))
    den = float(np.sum((v - total) ** 2))
    return 0.0 if num == 0.0 else float(np.sqrt(num / den))


def association_matrix(data: pd.DataFrame, categorical=None) -> pd.DataFrame:
    """Absolute association between every pair of columns, as the QUIPP pipeline computes it
    with ``dython.nominal.associations(...)["corr"].abs()`` (dython's defaults):
    ``|Pearson r|`` for numeric–numeric, the correlation ratio η for categorical–numeric and
    bias-corrected Cramér's V for categorical–categorical pairs; 1 on the diagonal.

    Parameters
    ----------
    data : DataFrame (n_rows, n_columns), no missing values
    categorical : list of column names, optional
        Default: the columns that are not numeric (object, string, category, bool).

    Returns
    -------
    DataFrame (n_columns, n_columns), symmetric, values in [0, 1] (NaN where a measure is
    undefined, e.g. Pearson r of a constant column).

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame; missing values; an unknown categorical column.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if data.isna().any().any():
        bad = [c for c in data.columns if data[c].isna().any()]
        raise ValueError(f"data has missing values in column(s) {bad}; impute or drop them first")
    if categorical is None:
        categorical = [
            c
            for c in data.columns
            if not pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c])
        ]
    unknown = [c for c in categorical if c not in data.columns]
    if unknown:
        raise ValueError(f"categorical column(s) {unknown} are not columns of data")
    cat = set(categorical)
    cols = list(data.columns)
    out = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            if a in cat and b in cat:
                v = _cramers_v(data[a], data[b])
            elif a in cat:
                v = _correlation_ratio(data[a], data[b])
            elif b in cat:
                v = _correlation_ratio(data[b], data[a])
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    v = abs(
                        float(np.corrcoef(data[a].to_numpy(float), data[b].to_numpy(float))[0, 1])
                    )
            out.loc[a, b] = out.loc[b, a] = v
    # rounding can put a perfect association a few ulps above 1 (e.g. η of a column that is a
    # function of the category): the measures are bounded by 1
    return out.clip(upper=1.0)


def association_weights(s: list, t: list, association) -> np.ndarray:
    """√C(s_i, t_j) as a (len(s), len(t)) array, with C = 1 for a feature and itself; validates
    ``association`` (type, coverage of every feature, values in [0, 1])."""
    if not isinstance(association, (pd.DataFrame, Mapping)):
        raise TypeError(
            f"association must be a DataFrame or a mapping, got {type(association).__name__}"
        )
    assoc = association if isinstance(association, pd.DataFrame) else pd.DataFrame(association)
    missing = [f for f in dict.fromkeys(s + t) if f not in assoc.index or f not in assoc.columns]
    if missing:
        raise ValueError(f"association has no row/column for feature(s) {missing}")
    c = assoc.loc[s, t].to_numpy(dtype=float).copy()
    position = {b: j for j, b in enumerate(t)}
    for i, a in enumerate(s):
        if a in position:
            c[i, position[a]] = 1.0
    if not np.all((c >= 0) & (c <= 1)):
        raise ValueError("association values must lie in [0, 1] (absolute associations), not NaN")
    return np.sqrt(c)


def soft_overlaps(s: list, t: list, weight: np.ndarray, depth: int) -> np.ndarray:
    """X_d = max over doubly stochastic W of Σ W_ij·weight_ij on the depth-d prefixes (shorter
    prefix padded with zeros): an assignment problem (Birkhoff–von Neumann: a permutation is
    optimal), solved exactly by ``scipy.optimize.linear_sum_assignment``."""
    out = np.empty(depth)
    for d in range(1, depth + 1):
        block = np.zeros((d, d))
        rs, rt = min(d, len(s)), min(d, len(t))
        block[:rs, :rt] = weight[:rs, :rt]
        rows, cols = linear_sum_assignment(block, maximize=True)
        out[d - 1] = block[rows, cols].sum()
    return out


def correlated_rank_similarity(
    s, t, association, p: float = 0.9, *, depth: int | None = None, ext: bool = False
) -> float:
    """RBO with a soft overlap: two different features count as the same in proportion to the
    square root of their association (QUIPP pipeline's ``correlated_rank_similarity``, used by
    Giles et al. 2022 for the "corr_rank" scores).

    At depth d, X_d = max_W Σ_ij W_ij·√C(s_i, t_j) over doubly stochastic W on the d × d
    prefixes (C = ``association``, 1 for a feature with itself); with C the identity this is the
    ordinary overlap. Then A_d = X_d/d and the value is the truncated sum
    (1 − p)·Σ_{d=1}^{k} p^{d−1}·A_d, plus A_k·p^k with ``ext=True`` (k = ``depth``, default the
    shorter length). p = 1 gives the average of A_d (the reference code's default).

    Parameters
    ----------
    s, t : sequence of feature names (rankings, best first, no duplicates)
    association : DataFrame (features × features) or mapping of mappings
        Association between features in [0, 1], e.g. :func:`association_matrix` of the real
        training data; must cover every feature of ``s`` and ``t``.
    p : float in (0, 1]
    depth : int, optional
    ext : bool

    Raises
    ------
    TypeError, ValueError
        Bad rankings or ``p``; a feature missing from ``association``; an association outside
        [0, 1] or NaN; ``depth`` < 1 or beyond the shorter ranking.
    """
    s = check_unique_items(s, "s")
    t = check_unique_items(t, "t")
    p = PERSISTENCE_OR_ONE(p, "p")
    weight = association_weights(s, t, association)
    k = min(len(s), len(t)) if depth is None else depth
    if (
        isinstance(k, bool)
        or not isinstance(k, numbers.Integral)
        or k < 1
        or k > min(len(s), len(t))
    ):
        raise ValueError(f"depth must be an integer in [1, {min(len(s), len(t))}], got {k!r}")
    x = soft_overlaps(s, t, weight, int(k))
    a_d = x / np.arange(1, k + 1)
    if p == 1.0:
        value = float(np.mean(a_d))
    else:
        value = (1.0 - p) * float(np.sum(p ** np.arange(k) * a_d))
    return value + (float(a_d[-1]) * p**k if ext else 0.0)
