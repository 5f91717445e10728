"""Chapter 5, utility part — Table 3 (Application 3): the random forest of health status and the
order of its features.

Houssiau et al. (2022) [``houssiau2022``], §4.3 and Table 3: ``RandomForestClassifier(
random_state=0, class_weight="balanced_subsample")`` of Health on one-hot Marital Status /
Occupation / Industry / Region and standardised Hours worked per week / Age, trained on
synthetic data; its two accuracies and the Jaro similarity of its feature order by permutation
importance with the real model's (:func:`app3_metrics`), beside the paper's numbers
(:func:`table3`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthtrust.studies.auditing.utility.census import census_sizes
from synthtrust.studies.auditing.utility.jaro import feature_order, jaro_similarity
from synthtrust.studies.auditing.utility.models import one_hot, train_and_score
from synthtrust.studies.auditing.utility.summary import paper_vs_run

__all__ = [
    "APP3_CATEGORIC",
    "APP3_FEATURES",
    "APP3_NUMERIC",
    "APP3_TARGET",
    "PAPER_TABLE3",
    "app3_metrics",
    "permutation_ranking",
    "table3",
]

#: Application 3: the random forest's standardised features, its one-hot features (the
#: reference's ``numeric`` and ``categoric``), their order in the importance strings (numeric
#: first: character "0" = Hours worked per week, ..., "5" = Region) and the target, Health.
APP3_NUMERIC: tuple = ("Hours worked per week", "Age")
APP3_CATEGORIC: tuple = ("Marital Status", "Occupation", "Industry", "Region")
APP3_FEATURES: tuple = APP3_NUMERIC + APP3_CATEGORIC
APP3_TARGET: str = "Health"

#: Table 3 (App. 3): generator -> (accuracy on real data, accuracy estimated on synthetic data,
#: Jaro similarity of the feature-importance order).
PAPER_TABLE3: dict[str, tuple] = {
    "real": (0.441, 0.441, 1.0),
    "ipf": (0.434, 0.436, 0.98),
    "pgm": (0.438, 0.370, 1.0),
    "mst": (0.258, 0.266, 0.83),
    "ctgan": (0.329, 0.383, 0.89),
    "pategan": (0.210, 0.460, 0.49),
    "privbayes": (0.215, 0.222, 0.70),
    "cart": (0.437, 0.473, 0.98),
}


def _forest_pipeline(sizes, n_estimators: int = 100):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    pre = ColumnTransformer(
        [
            ("encode", one_hot(APP3_CATEGORIC, sizes), list(APP3_CATEGORIC)),
            ("rescale", StandardScaler(), list(APP3_NUMERIC)),
        ]
    )
    forest = RandomForestClassifier(
        n_estimators=n_estimators, random_state=0, n_jobs=1, class_weight="balanced_subsample"
    )
    return Pipeline([("preprocess", pre), ("model", forest)])


def permutation_ranking(model, X, y, n_repeats: int) -> np.ndarray:
    """Permutation importance of each column of ``X`` for ``model`` (mean drop in accuracy over
    ``n_repeats`` shuffles, scikit-learn's ``permutation_importance`` with ``random_state=0``),
    shape ``(n_features,)``; zeros for a constant model (a one-class training split), as the
    paper's Use Case 3 ranks features by it [``houssiau2022``, §4.3]."""
    from sklearn.dummy import DummyClassifier
    from sklearn.inspection import permutation_importance

    if isinstance(model, DummyClassifier):  # predicts one class: no feature matters
        return np.zeros(X.shape[1])
    res = permutation_importance(model, X, y, n_repeats=n_repeats, random_state=0, n_jobs=1)
    return np.asarray(res.importances_mean, dtype=float)


def app3_metrics(
    synthetic: pd.DataFrame | None,
    train: pd.DataFrame,
    test: pd.DataFrame,
    real_order: str | None = None,
    *,
    sizes: dict | None = None,
    n_repeats: int = 10,
    n_estimators: int = 100,
    real_test_importance: bool = True,
) -> dict:
    """Table 3's numbers: the random forest of Health (``RandomForestClassifier(random_state=0,
    class_weight="balanced_subsample")``, one-hot Marital Status / Occupation / Industry /
    Region, ``StandardScaler`` on Hours worked per week and Age) trained on 3/4 of
    ``synthetic``; permutation importance of the six features
    (``permutation_importance(n_repeats=10, random_state=0)``).

    Parameters
    ----------
    synthetic : DataFrame of census codes, or None
        None: the real model (trained on ``train``; its importances on ``test``).
    train, test : DataFrame
        The real split.
    real_order : str, optional
        The real model's feature order (``order`` of ``app3_metrics(None, ...)``); the Jaro
        similarities are NaN without it.
    sizes : dict, optional
    n_repeats, n_estimators : int
        The reference's 10 permutations and sklearn's default 100 trees.
    real_test_importance : bool
        Also compute the importances of the synthetic model on the real test split (the Table 3
        caption's wording).

    Returns
    -------
    dict
        ``acc_real``, ``acc_synthetic``, ``order`` (ascending argsort of the importances on the
        synthetic holdout, as the reference; on the test split for the real model), ``jaro``
        (its Jaro similarity with ``real_order``), ``order_real_test`` and ``jaro_real_test``
        (importances on the real test split; equal to the former for the real model, "" / NaN
        if not computed).
    """
    sizes = sizes or census_sizes()
    model, acc_real, acc_synth, X_ho, y_ho = train_and_score(
        lambda: _forest_pipeline(sizes, n_estimators),
        APP3_FEATURES,
        APP3_TARGET,
        synthetic,
        train,
        test,
    )
    order = feature_order(permutation_ranking(model, X_ho, y_ho, n_repeats))
    if synthetic is None:
        order_rt = order
    elif real_test_importance:
        order_rt = feature_order(
            permutation_ranking(model, test[list(APP3_FEATURES)], test[APP3_TARGET], n_repeats)
        )
    else:
        order_rt = ""
    ref = order if synthetic is None and real_order is None else real_order
    return {
        "acc_real": acc_real,
        "acc_synthetic": acc_synth,
        "order": order,
        "jaro": jaro_similarity(ref, order) if ref else math.nan,
        "order_real_test": order_rt,
        "jaro_real_test": jaro_similarity(ref, order_rt) if ref and order_rt else math.nan,
    }


def table3(results: pd.DataFrame, *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 3 (Application 3) beside this run: columns ("Accuracy on real data" | "Accuracy
    estimated on synthetic data" | "Similarity in feature ordering", "paper" | "this run"),
    means over the runs (the Jaro similarity is averaged over runs, as the reference's
    "average similarity"; importances on the synthetic holdout, as the reference code)."""
    return paper_vs_run(
        results,
        PAPER_TABLE3,
        [
            ("Accuracy on real data", "app3_acc_real"),
            ("Accuracy estimated on synthetic data", "app3_acc_synthetic"),
            ("Similarity in feature ordering", "app3_jaro"),
        ],
        paper_rows,
    )
