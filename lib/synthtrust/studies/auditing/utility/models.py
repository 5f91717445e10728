"""Chapter 5, utility part — the models of Applications 2 and 3 trained on synthetic data.

Houssiau et al. (2022) [``houssiau2022``], §4.2, as the reference notebooks: a model trained on
synthetic data is fitted on 3/4 of it and its "estimated" accuracy is measured on the remaining
1/4 (``train_test_split(random_state=0, stratify=y)``); its accuracy on real data is measured on
the real test split. The real model is trained on the real train split.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from synthtrust._validation import check_frame

__all__: list[str] = []


def one_hot(columns, sizes):
    """An unfitted scikit-learn ``OneHotEncoder`` over the full census codes of ``columns``.

    Each column's categories are fixed to ``0 .. sizes[column] − 1``, so a code missing from
    a (synthetic) training set still gets its own indicator.
    """
    from sklearn.preprocessing import OneHotEncoder

    return OneHotEncoder(categories=[list(range(sizes[c])) for c in columns])


def _synthetic_split(X: pd.DataFrame, y: pd.Series):
    """3/4 – 1/4 split of a synthetic dataset (``random_state=0``), stratified by the target
    as the reference; plain when a class has fewer than 2 records (stratification impossible)."""
    from sklearn.model_selection import train_test_split

    stratify = y if y.value_counts().min() >= 2 else None
    return train_test_split(X, y, random_state=0, stratify=stratify)


def fit_classifier(make, X, y):
    """``make()`` fitted on ``(X, y)``, or a constant classifier if ``y`` has a single class.

    A synthetic training split can hold one class only; it then gets scikit-learn's
    ``DummyClassifier`` that predicts that class. ``ConvergenceWarning`` is silenced (lbfgs
    stops at 100 iterations on some synthetic sets, as in the reference notebooks).
    """
    if y.nunique() < 2:  # a synthetic training split with a single class
        from sklearn.dummy import DummyClassifier

        return DummyClassifier(strategy="constant", constant=y.iloc[0]).fit(X, y)
    with warnings.catch_warnings():
        # lbfgs stops at 100 iterations on some synthetic sets, as in the reference notebooks
        from sklearn.exceptions import ConvergenceWarning

        warnings.simplefilter("ignore", ConvergenceWarning)
        return make().fit(X, y)


def _accuracy(model, X, y) -> float:
    return float(np.mean(np.asarray(model.predict(X)) == y.to_numpy()))


def train_and_score(make, features, target, synthetic, train, test):
    """(model, acc on the real test split, acc estimated on the synthetic holdout, holdout X, y).
    ``synthetic=None``: the real model (trained on ``train``; both accuracies on ``test``)."""
    if synthetic is None:
        model = fit_classifier(make, train[list(features)], train[target])
        acc = _accuracy(model, test[list(features)], test[target])
        return model, acc, acc, test[list(features)], test[target]
    check_frame(synthetic, "synthetic", (*features, target))
    X_tr, X_ho, y_tr, y_ho = _synthetic_split(synthetic[list(features)], synthetic[target])
    model = fit_classifier(make, X_tr, y_tr)
    return (
        model,
        _accuracy(model, test[list(features)], test[target]),
        _accuracy(model, X_ho, y_ho),
        X_ho,
        y_ho,
    )
