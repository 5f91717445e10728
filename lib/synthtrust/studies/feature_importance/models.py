"""The model of Giles et al. (2022), "Faking feature importance" (``giles2022``) App. A, and
the similarity of two importance vectors (§3.2): a 70/30 split, a random forest, its MDI,
permutation and mean-|SHAP| importances (:func:`fit_importances`), its ROC AUC, and the
paper's measures RBO, corrRBO, cosine, L2 and KL (:func:`compare_rankings`, :data:`MEASURES`).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from synthtrust.importance import (
    compare_importances,
    correlated_rank_similarity,
    feature_importance,
    importance_ranking,
    rank_biased_overlap,
)

#: The similarity measures of §3.2 / App. A (higher is closer for all but l2 and kl).
MEASURES = ("rbo", "corr_rbo", "cosine", "l2", "kl")


def scores_to_json(scores: pd.Series) -> str:
    """An importance vector as JSON ``{feature: score}``, every float exactly (Python's shortest
    round-trip repr; pandas' ``to_json`` keeps 10 digits)."""
    return json.dumps({str(k): float(v) for k, v in scores.items()})


def scores_from_json(text: str) -> pd.Series:
    """The inverse of :func:`scores_to_json` (an empty vector for ``"{}"``)."""
    return pd.Series(json.loads(text), dtype=float)


def split_table(X: pd.DataFrame, y: pd.Series, test_size: float, seed: int):
    """The train/test split of App. A (``giles2022``): ``(X_train, X_test, y_train, y_test)``.

    scikit-learn's shuffled, unstratified ``train_test_split`` with ``test_size`` (0.3 in the
    paper) and ``random_state=seed``.
    """
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=test_size, random_state=seed)


def make_forest(n_trees: int, seed: int):
    """The unfitted random forest of App. A (``giles2022``): scikit-learn's default settings.

    A ``RandomForestClassifier`` with ``n_trees`` trees, ``random_state=seed`` and one job.
    """
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=n_trees, random_state=seed, n_jobs=1)


def fit_importances(
    X: pd.DataFrame,
    y: pd.Series,
    *,
    methods,
    rf_n_estimators: int = 150,
    test_size: float = 0.3,
    pfi_repeats: int = 5,
    shap_rows: int | None = None,
    shap_block_rows: int | None = None,
    random_state: int = 0,
) -> dict:
    """The paper's App. A model: a 70/30 split, a random forest, and its importances.

    Parameters
    ----------
    X : DataFrame (rows, features), numeric
    y : Series (rows,), int class labels
    methods : sequence of {"mdi", "permutation", "shap"}
        SHAP is mean |φ| over the test rows (at most ``shap_rows`` of them, the first ones of the
        shuffled split), averaged over the classes of a multiclass target; permutation
        importance is sklearn's ``permutation_importance`` on the test split, ``pfi_repeats``
        repeats, accuracy.
    rf_n_estimators : int
        Trees of ``RandomForestClassifier`` (paper: 150).
    test_size : float
        Share of rows in the test split (paper: 0.3).
    shap_block_rows : int or None
        Inside a task on a Dask cluster, SHAP rows per cluster task
        (:func:`synthtrust.importance.feature_importance`'s ``block_rows``); no effect on the
        result.
    random_state : int
        Seed of the split, the forest and the permutations (one seed, as the QUIPP pipeline).

    Returns
    -------
    dict with ``model``, ``X_test``, ``y_test`` and ``importances`` ({method: Series indexed by
    the columns of ``X``}).

    Raises
    ------
    ValueError
        Fewer than two classes in the training split (no importance can be learned).
    """
    X_train, X_test, y_train, y_test = split_table(X, y, test_size, random_state)
    if y_train.nunique() < 2:
        raise ValueError(
            f"y has {y_train.nunique()} class in the training split; a classifier needs at least 2"
        )
    model = make_forest(rf_n_estimators, random_state).fit(X_train, y_train)
    imps = {}
    for method in methods:
        rows = X_test if (method != "shap" or shap_rows is None) else X_test.iloc[:shap_rows]
        imps[method] = feature_importance(
            model,
            rows,
            y_test.loc[rows.index] if method == "permutation" else None,
            method,
            n_repeats=pfi_repeats,
            random_state=random_state,
            multiclass="mean",
            block_rows=shap_block_rows if method == "shap" else None,
        )
    return {"model": model, "X_test": X_test, "y_test": y_test, "importances": imps}


def compare_rankings(
    real: pd.Series, synthetic: pd.Series, association: pd.DataFrame, p: float = 0.8
) -> dict[str, float]:
    """The paper's similarity measures of two importance vectors (§3.2, App. A).

    Parameters
    ----------
    real, synthetic : Series indexed by the same features
    association : DataFrame (features × features)
        |association| of the real training features (:func:`synthtrust.importance.association_matrix`);
        NaN entries (a constant column) count as 0.
    p : float
        RBO persistence (paper: 0.8).

    Returns
    -------
    dict: ``rbo`` (extrapolated RBO of the two rankings, ``webber2010`` Eq. 32), ``corr_rbo``
    (the correlated rank similarity, extrapolated), ``cosine``, ``l2`` and ``kl``
    (:func:`synthtrust.importance.compare_importances`).
    """
    s, t = importance_ranking(real), importance_ranking(synthetic)
    out = {
        "rbo": rank_biased_overlap(s, t, p).ext,
        "corr_rbo": correlated_rank_similarity(s, t, association.fillna(0.0), p, ext=True),
    }
    out.update(compare_importances(real, synthetic))
    return out


def forest_auc(model, X: pd.DataFrame, y: pd.Series, classes) -> float:
    """ROC AUC of ``model`` on (X, y): binary on P(last class), else one-vs-one (Hand & Till);
    NaN when ``y`` has a single class. Classes the model never saw get probability 0."""
    from sklearn.metrics import roc_auc_score

    if y.nunique() < 2:
        return float("nan")
    proba = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    proba = proba.reindex(columns=classes, fill_value=0.0).to_numpy()
    if len(classes) == 2:
        return float(roc_auc_score(y, proba[:, 1]))
    present = sorted(set(y))
    sub = proba[:, [list(classes).index(c) for c in present]]
    total = sub.sum(axis=1, keepdims=True)  # rows with no mass on the present classes: uniform
    sub = np.where(total > 0, sub / np.where(total > 0, total, 1.0), 1.0 / len(present))
    if len(present) == 2:
        return float(roc_auc_score(y, sub[:, 1]))
    return float(roc_auc_score(y, sub, multi_class="ovo", labels=present))
