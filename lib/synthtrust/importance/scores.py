"""Feature importance of a fitted model: impurity (MDI), permutation and mean ``|SHAP|``
importance as a pandas Series, the ranking they give, and the L2 distance, cosine similarity and
KL divergence of two importance vectors. Giles et al. (2022) [``giles2022``], App. A; SHAP values
of trees: Lundberg et al. (2020) [``lundberg2020``] (scikit-learn forests through
:mod:`synthtrust.importance.treeshap`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from synthtrust._optional import import_optional
from synthtrust._validation import (
    check_positive_int,
    check_random_state,
)
from synthtrust.run.blocks import in_dask_task, map_blocks

_IMPORTANCE_METHODS = ("mdi", "permutation", "shap")
_MULTICLASS = ("mean", "last")


# --------------------------------------------------------------------------------------------
# importance scores
# --------------------------------------------------------------------------------------------
def _abs_shap(model, X: pd.DataFrame, multiclass: str = "mean") -> np.ndarray:
    """``|φ|`` (rows, features) of the rows of ``X``; for per-class values (rows, features,
    classes) averaged over the classes ("mean") or taken for the last class ("last"). Row by row,
    so blocks of rows give the rows of the whole. scikit-learn trees and forests go through
    :func:`synthtrust.importance.treeshap.tree_shap_values` (shap's values to 1e-9, about 50 times faster on
    a fully grown forest), other models through ``shap.TreeExplainer(model).shap_values``."""
    shap = import_optional("shap", "SHAP importance")
    from synthtrust.importance.treeshap import fast_path_applies, tree_shap_values

    explainer = shap.TreeExplainer(model)
    if fast_path_applies(explainer, model):
        values = tree_shap_values(explainer.model, X)
        if values.shape[-1] == 1:
            values = values[..., 0]
    else:
        values = explainer.shap_values(X)
    if isinstance(values, list):  # shap < 0.45: one (rows, features) array per class
        values = np.stack(values, axis=-1)
    values = np.abs(np.asarray(values, dtype=float))
    if values.ndim == 3:
        values = values[..., -1] if multiclass == "last" else values.mean(axis=-1)
    return values


def _abs_shap_block(model_and_option: tuple, X: pd.DataFrame) -> np.ndarray:
    return _abs_shap(model_and_option[0], X, model_and_option[1])


def _shap_importance(model, X, multiclass: str = "mean", block_rows: int | None = None):
    """Mean over rows of ``|φ|``; with ``block_rows`` inside a Dask task, each block of rows is a
    task of its own (:func:`synthtrust.run.blocks.map_blocks`); the result is the same."""
    if block_rows is None or not in_dask_task():
        blocks = [X]
    else:
        blocks = [X.iloc[i : i + block_rows] for i in range(0, len(X), block_rows)]
    return np.concatenate(map_blocks(_abs_shap_block, (model, multiclass), blocks)).mean(axis=0)


def feature_importance(
    model,
    X: pd.DataFrame,
    y=None,
    method: str = "mdi",
    *,
    n_repeats: int = 10,
    multiclass: str = "mean",
    random_state=None,
    block_rows: int | None = None,
) -> pd.Series:
    """Importance of each feature of a fitted model.

    Parameters
    ----------
    model : fitted estimator
        ``"mdi"`` needs ``feature_importances_`` (tree ensembles); ``"shap"`` a tree model
        supported by ``shap.TreeExplainer``; ``"permutation"`` any estimator with ``score``.
    X : DataFrame (n_rows, n_features)
        Features (numeric: the columns the model was fitted on).
    y : array (n_rows,), required for ``"permutation"``
    method : {"mdi", "permutation", "shap"}
        Mean decrease in impurity (Breiman 2001); mean drop in ``model.score`` when a column is
        permuted (``sklearn.inspection.permutation_importance``, ``n_repeats`` times); mean
        ``|SHAP value|`` over the rows of ``X`` (path-dependent TreeSHAP, Lundberg et al. 2020
        [``lundberg2020``]: ``shap.TreeExplainer``'s values; for scikit-learn trees and forests
        computed by :mod:`synthtrust.importance.treeshap`, which agrees with shap to 1e-9).
    n_repeats : int ≥ 1
        Permutations per feature for ``"permutation"`` (sklearn's default and Giles et al.
        2022, App. A: 5; the default here is 10).
    multiclass : {"mean", "last"}, default "mean"
        ``"shap"`` on a model with one SHAP value per class (classifiers whose output is a
        probability, e.g. a random forest; shape (rows, features, classes)): "mean" averages
        ``|φ|`` over the classes, as Giles et al. (2022) [``giles2022``] do for the 4-class Household
        target; "last" keeps the last class only (the behaviour before this option). For a
        binary probability model ``|φ_0|`` = ``|φ_1|`` (the two outputs sum to 1), so both agree; models
        with a single output are not affected. The paper *sums* over the test rows where this
        takes the mean: rankings, RBO and cosine are unchanged by that factor.
    random_state : int, Generator or None (permutation only)
    block_rows : int ≥ 1 or None (SHAP only)
        Called inside a task on a Dask cluster, the SHAP values of each block of ``block_rows``
        rows are a cluster task of their own (:func:`synthtrust.run.blocks.map_blocks`), so one
        model's TreeSHAP on a large table spreads over the workers; elsewhere, and with None
        (default), all rows are explained in one call. The result is the same either way.

    Returns
    -------
    Series indexed by the columns of ``X``.

    Raises
    ------
    ValueError, TypeError
        Unknown ``method`` or ``multiclass``; ``X`` not a DataFrame; ``y`` missing for
        permutation; ``n_repeats`` or ``block_rows`` not an integer ≥ 1; a model without
        ``feature_importances_`` for ``"mdi"``.
    """
    if method not in _IMPORTANCE_METHODS:
        raise ValueError(f"method must be one of {_IMPORTANCE_METHODS}, got {method!r}")
    if multiclass not in _MULTICLASS:
        raise ValueError(f"multiclass must be one of {_MULTICLASS}, got {multiclass!r}")
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    if block_rows is not None:
        block_rows = check_positive_int(block_rows, "block_rows")
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame (named features), got {type(X).__name__}")
    if method == "mdi":
        if not hasattr(model, "feature_importances_"):
            raise ValueError(
                f"method='mdi' needs a fitted tree model with feature_importances_, "
                f"got {type(model).__name__}"
            )
        scores = np.asarray(model.feature_importances_, dtype=float)
    elif method == "permutation":
        if y is None:
            raise ValueError("method='permutation' needs y (the labels of X)")
        from sklearn.inspection import permutation_importance

        import synthtrust.importance.forest_score as forest_score

        seed = int(check_random_state(random_state).integers(2**31 - 1))
        scorer = forest_score.ForestAccuracy(model, X) if forest_score.applies(model) else None
        scores = permutation_importance(
            model, X, y, scoring=scorer, n_repeats=n_repeats, random_state=seed
        ).importances_mean
    else:
        scores = _shap_importance(model, X, multiclass, block_rows)
    return pd.Series(scores, index=list(X.columns), name=method)


def importance_ranking(scores) -> list:
    """Features by decreasing importance (ties keep the input order).

    ``scores`` is a Series (or a mapping feature → score).
    """
    scores = pd.Series(scores, dtype=float)
    if scores.isna().any():
        raise ValueError(f"scores has NaN for {list(scores.index[scores.isna()])}")
    order = np.argsort(-scores.to_numpy(), kind="stable")
    return [scores.index[i] for i in order]


def compare_importances(a, b) -> dict[str, float]:
    """L2 distance, cosine similarity and KL divergence of two importance vectors.

    Both are aligned on their features (the same set is required) and scaled to unit L2 norm;
    KL(a ‖ b) is ``scipy.stats.entropy`` of the absolute scaled scores plus 1e-20 (each then
    normalised to sum 1), as in the QUIPP pipeline's ``compare_features``.

    Raises
    ------
    ValueError
        Different feature sets, NaN, or an all-zero vector.
    """
    a, b = pd.Series(a, dtype=float), pd.Series(b, dtype=float)
    if set(a.index) != set(b.index):
        raise ValueError(
            f"a and b must score the same features; only in a: "
            f"{sorted(set(a.index) - set(b.index))}, only in b: "
            f"{sorted(set(b.index) - set(a.index))}"
        )
    b = b.loc[a.index]
    va, vb = a.to_numpy(), b.to_numpy()
    for name, v in (("a", va), ("b", vb)):
        if not np.all(np.isfinite(v)) or not np.any(v):
            raise ValueError(f"{name} must be finite and not all zero")
    ua, ub = va / np.linalg.norm(va), vb / np.linalg.norm(vb)
    return {
        "l2": float(np.linalg.norm(ua - ub)),
        "cosine": float(ua @ ub),
        "kl": float(stats.entropy(np.abs(ua) + 1e-20, np.abs(ub) + 1e-20)),
    }
