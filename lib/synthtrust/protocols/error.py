"""The protocol error: mean error (ME), standard deviation (STD) and RMSE of a protocol's
estimates against the true performances, over repetitions.

Spec: Movahedi et al. (2024) [``movahedi2024``], §III.B, eq. (2)–(3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._result import ResultMixin


@dataclass(frozen=True)
class ProtocolErrorResult(ResultMixin):
    """Error of a protocol over repetitions (paper §III.B, eq. 2–3).

    Attributes
    ----------
    me : mean error μ = mean(p_i − y_i) (> 0: optimistic, < 0: pessimistic).
    std : σ, standard deviation of r_i with n − 1 in the denominator (NaN if n < 2).
    rmse : sqrt(μ² + σ²).
    n : repetitions used (pairs with a finite estimate and truth).
    n_undefined : repetitions left out (an undefined metric, e.g. accuracy of an all-zero
        noisy matrix).
    """

    me: float
    std: float
    rmse: float
    n: int
    n_undefined: int = 0


def protocol_error(estimates, truths) -> ProtocolErrorResult:
    """ME, STD and RMSE of a protocol's estimates p_i against the true performances y_i.

    r_i = p_i − y_i; ME = (1/n) Σ r_i (eq. 2); STD = sqrt(Σ (r_i − ME)² / (n − 1)) (eq. 3);
    RMSE = sqrt(ME² + STD²) (§III.B).  Pairs where either value is NaN are left out (counted
    in ``n_undefined``).  Note RMSE² = ME² + STD² uses STD with n − 1, so it is slightly larger
    than the root of the mean squared error (1/n) Σ r_i².

    Parameters
    ----------
    estimates, truths : array-like, shape (n,)
        In the metric's units (accuracy or F1, in [0, 1]).

    Returns
    -------
    ProtocolErrorResult (NaN fields when fewer than 1 or 2 pairs remain).

    Raises
    ------
    ValueError
        Shapes differ or are not 1-D; infinite values.

    Example: r = [1, 2, 3] → ME 2, STD 1, RMSE √5.
    """
    p = np.asarray(estimates, dtype=float)
    y = np.asarray(truths, dtype=float)
    if p.ndim != 1 or p.shape != y.shape:
        raise ValueError(
            f"estimates and truths must be 1-D of the same length, got shapes {p.shape} and {y.shape}"
        )
    if np.any(np.isinf(p)) or np.any(np.isinf(y)):
        raise ValueError("estimates and truths must not be infinite")
    r = p - y
    ok = ~np.isnan(r)
    r = r[ok]
    n = int(r.size)
    me = float(np.mean(r)) if n >= 1 else math.nan
    std = float(np.std(r, ddof=1)) if n >= 2 else math.nan
    rmse = math.sqrt(me**2 + std**2) if n >= 2 else math.nan
    return ProtocolErrorResult(me=me, std=std, rmse=rmse, n=n, n_undefined=int(ok.size - n))


def summarize_protocol_errors(
    df: pd.DataFrame, by=("protocol", "classifier", "metric")
) -> pd.DataFrame:
    """:func:`protocol_error` for every group of a tidy frame, vectorized with ``groupby``.

    Parameters
    ----------
    df : DataFrame
        Columns ``estimate``, ``truth`` (one row per repetition) and the grouping columns.
    by : str or list of str
        Grouping columns (e.g. ``["dataset", "generator", "epsilon", "protocol", "classifier",
        "metric"]``); empty for one overall row.

    Returns
    -------
    DataFrame with the ``by`` columns and ``me, std, rmse, n, n_undefined`` (one row per group,
    groups in order of first appearance; NaN-keyed groups kept).

    Raises
    ------
    ValueError
        A column of ``by``, ``estimate`` or ``truth`` is missing.
    TypeError
        ``df`` is not a DataFrame.
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    by = [by] if isinstance(by, str) else list(by)
    missing = [c for c in [*by, "estimate", "truth"] if c not in df.columns]
    if missing:
        raise ValueError(f"df lacks column(s) {missing}; its columns are {list(df.columns)}")
    r = pd.to_numeric(df["estimate"]).astype(float) - pd.to_numeric(df["truth"]).astype(float)
    if np.any(np.isinf(r.to_numpy())):
        raise ValueError("estimate and truth must not be infinite")
    work = df[by].copy()
    work["_r"] = r.to_numpy()
    work["_undef"] = np.isnan(r.to_numpy()).astype(np.int64)
    if not by:
        work["_all"] = 0
        keys = ["_all"]
    else:
        keys = by
    g = work.groupby(keys, sort=False, dropna=False)
    out = g["_r"].agg(me="mean", std=lambda s: s.std(ddof=1), n="count")
    out["n_undefined"] = g["_undef"].sum()
    out["rmse"] = np.sqrt(out["me"] ** 2 + out["std"] ** 2)
    out = out.reset_index()
    if not by:
        out = out.drop(columns=["_all"])
    out["n"] = out["n"].astype(np.int64)
    out["n_undefined"] = out["n_undefined"].astype(np.int64)
    return out[[*by, "me", "std", "rmse", "n", "n_undefined"]]
