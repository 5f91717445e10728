"""Chapter 5, utility part — Table 2 (Application 2): the logistic regression of social grade.

Houssiau et al. (2022) [``houssiau2022``], §4.3 and Table 2: ``LogisticRegression(random_state=0)``
of Approximated Social Grade on one-hot Ethnic Group, Country of Birth and Family Composition,
trained on synthetic data; its accuracy on the real test split and the accuracy estimated on a
synthetic holdout (:func:`app2_metrics`), beside the paper's numbers (:func:`table2`).
"""

from __future__ import annotations

import pandas as pd

from synthtrust.studies.auditing.applications import application
from synthtrust.studies.auditing.utility.census import census_sizes
from synthtrust.studies.auditing.utility.models import one_hot, train_and_score
from synthtrust.studies.auditing.utility.summary import paper_vs_run

__all__ = ["APP2_FEATURES", "APP2_TARGET", "PAPER_TABLE2", "app2_metrics", "table2"]

#: Application 2: the features of the logistic regression and its target.
APP2_FEATURES: tuple = tuple(application(2).columns[:3])
APP2_TARGET: str = application(2).columns[3]

#: Table 2 (App. 2): generator -> (accuracy on real data, accuracy estimated on synthetic data).
PAPER_TABLE2: dict[str, tuple] = {
    "real": (0.341, 0.341),
    "ipf": (0.341, 0.341),
    "pgm": (0.341, 0.340),
    "mst": (0.312, 0.297),
    "pategan": (0.205, 0.403),
    "privbayes": (0.312, 0.306),
    "ctgan": (0.288, 0.380),
    "cart": (0.341, 0.340),
}


def _logistic_pipeline(sizes):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    pre = ColumnTransformer([("encode", one_hot(APP2_FEATURES, sizes), list(APP2_FEATURES))])
    return Pipeline([("preprocess", pre), ("model", LogisticRegression(random_state=0))])


def app2_metrics(
    synthetic: pd.DataFrame | None,
    train: pd.DataFrame,
    test: pd.DataFrame,
    sizes: dict | None = None,
) -> dict:
    """Table 2's two numbers: the logistic regression of Approximated Social Grade on one-hot
    Ethnic Group, Country of Birth and Family Composition (``LogisticRegression(random_state=0)``,
    lbfgs, 100 iterations as the reference) trained on 3/4 of ``synthetic``.

    Parameters
    ----------
    synthetic : DataFrame of census codes, or None
        None: the real model, trained on ``train`` (both accuracies are its test accuracy).
    train, test : DataFrame
        The real split (:func:`census_split`).
    sizes : dict, optional
        {column: codes}; default the census domain's.

    Returns
    -------
    dict
        ``acc_real`` (on the real test split), ``acc_synthetic`` (on the synthetic 1/4 holdout).
    """
    sizes = sizes or census_sizes()
    _, acc_real, acc_synth, _, _ = train_and_score(
        lambda: _logistic_pipeline(sizes), APP2_FEATURES, APP2_TARGET, synthetic, train, test
    )
    return {"acc_real": acc_real, "acc_synthetic": acc_synth}


def table2(results: pd.DataFrame, *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 2 (Application 2) beside this run: columns ("Accuracy on real data" | "Accuracy
    estimated on synthetic data", "paper" | "this run"), means over the runs."""
    return paper_vs_run(
        results,
        PAPER_TABLE2,
        [
            ("Accuracy on real data", "app2_acc_real"),
            ("Accuracy estimated on synthetic data", "app2_acc_synthetic"),
        ],
        paper_rows,
    )
