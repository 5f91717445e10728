"""The steps every feature-engineering recipe of ``giles2022`` App. A shares (QUIPP
``metrics/utility-metrics/feature_importance.py``, re-implemented in pandas): checks of the
input frame, numeric columns, label codes over a public category list, the group aggregates
Featuretools 0.x computed (MODE, SKEW), the target's values and QUIPP's final cleaning of ``X``
(columns derived from the label dropped, ±inf → NaN, incomplete rows dropped).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust.studies.feature_importance.data.specs import DATASETS


def numeric_column(frame: pd.DataFrame, col: str) -> pd.Series:
    """Column ``col`` of ``frame`` as float64; missing values stay NaN.

    Raises
    ------
    TypeError
        The column holds booleans, or values that are not numbers (up to five named).
    """
    s = frame[col]
    if pd.api.types.is_bool_dtype(s.dtype):
        raise TypeError(f"column {col!r} must be numeric, got booleans")
    try:
        return pd.to_numeric(s, errors="raise").astype(np.float64)
    except (TypeError, ValueError):
        bad = s[pd.to_numeric(s, errors="coerce").isna() & s.notna()].unique()[:5]
        raise TypeError(f"column {col!r} must be numeric, got value(s) {list(bad)!r}") from None


def nominal_codes(s: pd.Series, categories: list, col: str) -> np.ndarray:
    """Label codes of a column against a public category list: the position in the list
    (for the integer categories 0..k-1 of Household, the value itself). No missing rows."""
    if all(isinstance(c, (int, np.integer)) for c in categories):
        values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    else:
        values = s.to_numpy(dtype=object)
    codes = pd.Index(list(categories)).get_indexer(values)
    if (codes < 0).any():
        bad = pd.unique(s.to_numpy(dtype=object)[codes < 0])[:5]
        raise ValueError(
            f"column {col!r}: value(s) {list(bad)!r} not in the public categories "
            f"{list(categories)}"
        )
    return codes.astype(np.int64)


def group_mode(keys: np.ndarray, codes: np.ndarray) -> pd.Series:
    """Mode of ``codes`` per key; ties go to the smallest code (featuretools' ``Mode`` is
    ``Series.mode()[0]``, the smallest of the tied values, and codes follow the sorted public
    category order)."""
    counts = pd.DataFrame({"k": keys, "v": codes}).groupby(["k", "v"]).size()
    counts = counts.reset_index(name="n").sort_values(
        ["k", "n", "v"], ascending=[True, False, True]
    )
    return counts.drop_duplicates("k").set_index("k")["v"]


def group_skew(grouped) -> pd.Series:
    """Bias-corrected skewness per group as featuretools 0.x computed it with the pandas of its
    time: NaN for fewer than 3 values, 0 for a constant group (pandas 3 returns NaN there)."""
    skew = grouped.skew()
    n = grouped.count()
    spread = grouped.max() - grouped.min()
    return skew.where(~((n >= 3) & (spread == 0)), 0.0)


def finish(name: str, X: pd.DataFrame, y: pd.Series, columns: list[str]) -> tuple:
    """QUIPP's final cleaning of a recipe's output: ``(X, y)`` ready for the model.

    Keeps ``columns`` of ``X`` (in that order), drops those whose name contains the target
    column's name, turns ±inf into NaN, and drops every row with a missing feature or target;
    both are re-indexed 0..n−1 and ``y`` becomes int64. An ``AssertionError`` guards the
    number of features against :attr:`DataSpec.features`.

    Parameters
    ----------
    name : str
        Dataset name, a key of :data:`DATASETS`.
    X : pandas.DataFrame (rows, engineered features)
    y : pandas.Series (rows,), float target values
    columns : list of str
        The recipe's feature names.
    """
    spec = DATASETS[name]
    X = X[columns]
    # QUIPP: drop columns derived from the label (name contains the label column's name)
    X = X[[c for c in X.columns if spec.target not in c]]
    X = X.replace([np.inf, -np.inf], np.nan)
    keep = X.notna().all(axis=1).to_numpy() & y.notna().to_numpy()
    X = X.loc[keep].reset_index(drop=True)
    y = y.loc[keep].reset_index(drop=True).astype(np.int64)
    if X.shape[1] != spec.features:  # pragma: no cover - guards the recipe
        raise AssertionError(f"{name}: {X.shape[1]} features, expected {spec.features}")
    return X, y


def target_values(frame: pd.DataFrame, name: str) -> pd.Series:
    """The target column of dataset ``name`` as float64 class values; missing stays NaN.

    Polish maps ``"YES"``/``"NO"`` to 1/0; the other datasets must hold numbers among
    :attr:`DataSpec.classes`.

    Raises
    ------
    ValueError
        A non-missing value outside those classes (up to five named).
    """
    spec = DATASETS[name]
    col = spec.target
    s = frame[col]
    if name == "polish":
        mapped = s.map({"YES": 1, "NO": 0})
        bad = s.notna() & mapped.isna()
        if bad.any():
            raise ValueError(
                f"column {col!r}: value(s) {pd.unique(s[bad])[:5].tolist()!r} not in ['NO', 'YES']"
            )
        return mapped.astype(np.float64)
    num = pd.to_numeric(s, errors="coerce")
    bad = s.notna() & ~num.isin(list(spec.classes))
    if bad.any():
        raise ValueError(
            f"column {col!r}: value(s) {pd.unique(s[bad])[:5].tolist()!r} not in the "
            f"classes {list(spec.classes)}"
        )
    return num.astype(np.float64)
