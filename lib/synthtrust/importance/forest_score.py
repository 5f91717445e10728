"""A random forest's accuracy on tables that differ from one reference table in a few cells, the
scorer of permutation importance: ``sklearn.inspection.permutation_importance`` permutes one
column at a time and scores the whole table again; a row whose path in a tree tests none of the
permuted columns reaches the same leaf, so only the other (tree, row) pairs are traversed again.

The scores are ``model.score`` bitwise: each tree's class probabilities come from the tree itself
(``predict_proba`` on the same float32 features), the forest sums them in tree order as
``RandomForestClassifier.predict_proba`` does, and the accuracy is ``accuracy_score`` of the
same predictions. sklearn keeps the permutations, their random stream and the importance
arithmetic. On chapter 4's Adult forest (150 fully grown trees, 141 columns, 9 769 rows) the
permutation importance takes about 6 times less CPU (``benchmarks/bench_permutation.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.metrics import accuracy_score


def applies(model) -> bool:
    """Whether :class:`ForestAccuracy` scores ``model``: a fitted scikit-learn
    ``RandomForestClassifier`` or ``ExtraTreesClassifier`` with one output."""
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    return (
        type(model) in (RandomForestClassifier, ExtraTreesClassifier)
        and hasattr(model, "estimators_")
        and model.n_outputs_ == 1
    )


def _features_on_paths(tree, X32: np.ndarray, n_features: int) -> np.ndarray:
    """(n_features, ceil(rows / 8)) uint8: bit i of row j is set when the path of row i in
    ``tree`` tests feature j (``np.packbits`` along the rows)."""
    paths = tree.decision_path(X32, check_input=False)  # CSR (rows, nodes)
    feature = tree.tree_.feature
    internal = np.flatnonzero(feature >= 0)
    tested = sp.csr_matrix(
        (np.ones(internal.size, dtype=np.int32), (internal, feature[internal])),
        shape=(feature.size, n_features),
    )
    used = (paths @ tested).toarray().T > 0
    return np.packbits(used, axis=1)


class ForestAccuracy:
    """``model.score(X_new, y)`` for a fitted forest and tables ``X_new`` with the index and
    columns of the reference ``X``, computed again only where ``X_new`` differs from ``X``.

    Parameters
    ----------
    model : RandomForestClassifier or ExtraTreesClassifier, fitted, one output (:func:`applies`)
    X : DataFrame (rows, features)
        The reference table (the test split whose columns permutation importance permutes).

    Raises
    ------
    TypeError
        ``model`` is not a fitted one-output random forest or extra-trees classifier.
    ValueError
        At scoring: a table whose index or columns differ from the reference's, or an
        estimator other than ``model``.

    Notes
    -----
    Memory: each tree's class probabilities of the reference rows (trees × rows × classes
    float64) and the features each row's path tests (trees × features × rows bits).

    References
    ----------
    Breiman 2001, "Random forests", Machine Learning 45 (permutation importance, §10);
    scikit-learn's ``permutation_importance`` and ``RandomForestClassifier.predict_proba``,
    whose arithmetic this reproduces.

    Examples
    --------
    >>> from sklearn.inspection import permutation_importance
    >>> scorer = ForestAccuracy(model, X_test)                      # doctest: +SKIP
    >>> permutation_importance(model, X_test, y_test, scoring=scorer)  # doctest: +SKIP
    """

    def __init__(self, model, X: pd.DataFrame):
        if not applies(model):
            raise TypeError(
                "model must be a fitted RandomForestClassifier or ExtraTreesClassifier with one "
                f"output, got {type(model).__name__}"
            )
        self.model = model
        self._index, self._columns = X.index, X.columns
        self._X = X.to_numpy()
        self._missing = pd.isna(self._X)
        X32 = self._float32(self._X)
        trees = model.estimators_
        self._proba = [t.predict_proba(X32, check_input=False) for t in trees]
        self._paths = [_features_on_paths(t, X32, X32.shape[1]) for t in trees]

    @staticmethod
    def _float32(values: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(values, dtype=np.float32)

    def _changed(self, X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        if not (X.index.equals(self._index) and X.columns.equals(self._columns)):
            raise ValueError("X must have the index and columns of the reference table")
        values = X.to_numpy()
        diff = (values != self._X) & ~(pd.isna(values) & self._missing)
        return values, diff

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """``model.predict_proba(X)``, bitwise: (rows, classes) float64."""
        values, diff = self._changed(X)
        cols = np.flatnonzero(diff.any(axis=0))
        rows = diff.any(axis=1)
        X32 = self._float32(values[rows])
        packed_rows = np.packbits(rows)
        total = np.zeros_like(self._proba[0])
        for tree, base, paths in zip(self.model.estimators_, self._proba, self._paths, strict=True):
            again = np.bitwise_or.reduce(paths[cols], axis=0) & packed_rows
            if not again.any():
                total += base
                continue
            again = np.unpackbits(again, count=len(rows)).view(bool)
            proba = base.copy()
            proba[again] = tree.predict_proba(X32[again[rows]], check_input=False)
            total += proba
        total /= len(self.model.estimators_)
        return total

    def __call__(self, estimator, X: pd.DataFrame, y) -> float:
        """The scorer interface of ``sklearn.metrics.check_scoring``: accuracy of ``estimator``
        (the model this scorer was built for) on ``(X, y)``."""
        if estimator is not self.model:
            raise ValueError("ForestAccuracy scores the model it was built for only")
        proba = self.predict_proba(X)
        return float(accuracy_score(y, self.model.classes_.take(np.argmax(proba, axis=1), axis=0)))
