"""The paper's three scikit-learn classifiers (random forest, linear SVM, KNN) behind one
preprocessing step (numeric: median imputation + z-scores; categorical: one-hot).

Spec: Movahedi et al. (2024) [``movahedi2024``], §IV.C ("default settings"); the preprocessing
is the "Features" design decision of :mod:`synthtrust.protocols`.
"""

from __future__ import annotations

import numbers
import warnings

import pandas as pd

from .._validation import check_frame, check_names, check_random_state
from ._checks import check_target, labels_of

#: Classifier names accepted by :func:`make_classifier` (paper §IV.C).
CLASSIFIERS: tuple[str, ...] = ("random_forest", "linear_svm", "knn")

_SEED_HIGH = 2**31 - 1  # scikit-learn seeds must fit in 32 bits


def check_classifier_name(name) -> str:
    """Validate a classifier name: one of :data:`CLASSIFIERS` (paper §IV.C), returned as is.

    Raises
    ------
    ValueError
        ``name`` is not one of those strings.
    """
    if not isinstance(name, str) or name not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {name!r}; allowed: {', '.join(CLASSIFIERS)}")
    return name


class _ColumnPicker:
    """ColumnTransformer column selector: categorical (non-numeric, boolean or listed) or numeric."""

    def __init__(self, categorical: tuple, want_categorical: bool):
        self.categorical = categorical
        self.want_categorical = want_categorical

    def __call__(self, X: pd.DataFrame) -> list:
        out = []
        for col in X.columns:
            dtype = X[col].dtype
            is_cat = (
                col in self.categorical
                or pd.api.types.is_bool_dtype(dtype)
                or not pd.api.types.is_numeric_dtype(dtype)
            )
            if is_cat == self.want_categorical:
                out.append(col)
        return out


def _int_seed(random_state) -> int | None:
    """A 31-bit int seed for scikit-learn from an int / Generator / None (None stays None)."""
    if random_state is None:
        return None
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(random_state) % (_SEED_HIGH + 1)
    return int(check_random_state(random_state).integers(0, _SEED_HIGH))


def make_classifier(name: str, random_state=None, *, categorical=None):
    """One of the paper's classifiers, unfitted, behind the package's preprocessing.

    Parameters
    ----------
    name : {"random_forest", "linear_svm", "knn"}
        ``RandomForestClassifier(n_estimators=100)``, ``LinearSVC(C=1.0)``,
        ``KNeighborsClassifier(n_neighbors=5)`` (paper §IV.C; otherwise scikit-learn defaults).
    random_state : int, numpy.random.Generator or None
        Seed of the forest's bootstrap/feature draws and of LinearSVC's coordinate descent (KNN is
        deterministic).  A Generator is turned into an int seed by one draw.
    categorical : list of column names, optional
        Columns to one-hot encode besides the non-numeric and boolean ones (e.g. integer-coded
        nominal columns).  Other numeric columns are imputed (median) and standardised.

    Returns
    -------
    sklearn.pipeline.Pipeline
        Steps ``"preprocess"`` (ColumnTransformer: ``"numeric"`` then ``"categorical"``) and
        ``"classifier"``.  Fit it on the feature columns (the target removed); see
        :func:`fit_classifier`, which also handles a single-class training set.

    Raises
    ------
    ValueError
        Unknown ``name`` (the message lists the allowed ones).
    TypeError
        ``categorical`` not a list of names; bad ``random_state``.

    Source: Movahedi et al. (2024), §IV.C; preprocessing: docstring of :mod:`synthtrust.protocols`.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sklearn.svm import LinearSVC

    check_classifier_name(name)
    cats = check_names(categorical, "categorical")
    seed = _int_seed(random_state)
    if name == "random_forest":
        clf = RandomForestClassifier(n_estimators=100, random_state=seed)
    elif name == "linear_svm":
        clf = LinearSVC(C=1.0, random_state=seed)
    else:
        clf = KNeighborsClassifier(n_neighbors=5)
    numeric = Pipeline(
        [
            ("impute", SimpleImputer(strategy="median", keep_empty_features=True)),
            ("scale", StandardScaler()),
        ]
    )
    onehot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    pre = ColumnTransformer(
        [
            ("numeric", numeric, _ColumnPicker(cats, want_categorical=False)),
            ("categorical", onehot, _ColumnPicker(cats, want_categorical=True)),
        ],
        remainder="drop",
        sparse_threshold=0.0,
    )
    return Pipeline([("preprocess", pre), ("classifier", clf)])


def fit_classifier(name: str, data: pd.DataFrame, target, random_state=None, *, categorical=None):
    """Fit :func:`make_classifier` ``(name)`` on ``data`` (features = every column but ``target``).

    A training set with a single class gives a constant classifier (the pipeline's last step is
    ``DummyClassifier(strategy="constant")``) instead of scikit-learn's error; LinearSVC
    convergence warnings are silenced.  With fewer than 5 rows, KNN uses k = number of rows.

    Parameters
    ----------
    data : DataFrame, shape (n_rows, n_features + 1)
    target : column label of the class
    random_state, categorical
        As in :func:`make_classifier`.

    Returns
    -------
    sklearn.pipeline.Pipeline, fitted.  ``classifier_name_`` attribute = ``name``.

    Raises
    ------
    ValueError
        Unknown classifier; ``target`` not a column; a target with more than 2 classes or
        missing values; no rows or no feature column.
    TypeError
        ``data`` not a DataFrame.
    """
    from sklearn.dummy import DummyClassifier
    from sklearn.exceptions import ConvergenceWarning

    check_classifier_name(name)
    check_frame(data, "data")
    check_target(data, target, "data")
    y = data[target]
    labels = labels_of(y)
    if len(labels) > 2:
        raise ValueError(
            f"the target {target!r} must have at most 2 classes, got {len(labels)}: {labels[:10]}"
        )
    X = data.drop(columns=[target])
    model = make_classifier(name, random_state, categorical=categorical)
    if len(labels) == 1:
        model.set_params(classifier=DummyClassifier(strategy="constant", constant=y.iloc[0]))
    elif name == "knn" and len(X) < 5:
        model.set_params(classifier__n_neighbors=len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    model.classifier_name_ = name
    return model
