"""Evaluating a classifier trained on DP synthetic data: Protocol A (Syn-Only) and Protocol B
(Syn-Real, a DP confusion matrix released by the data curator), and the protocol-error metric.

Spec: Movahedi, Nieminen, Montoya Perez, Daafane, Sukhwal, Pahikkala, Airola (2024),
"Benchmarking evaluation protocols for classifiers trained on differentially private synthetic
data", IEEE Access 12 [``movahedi2024``], §III.A (protocols), §III.B eq. (2)–(3) (ME, STD,
RMSE), §IV.C (experimental setup). No code of the paper was found; the paper is the spec.

The pieces
----------
* :func:`make_classifier` / :func:`fit_classifier` — the paper's three scikit-learn classifiers
  (random forest, 100 trees; linear SVM, C = 1; KNN, k = 5) behind one preprocessing step.
* :func:`confusion_matrix`, :func:`accuracy_from_confusion`, :func:`f1_from_confusion` — the
  metrics, computed from a 2 × 2 confusion matrix so that the same code serves the true and the
  noisy matrix.
* :func:`privatize_confusion_matrix`, :func:`dp_confusion_matrix` — the Laplace release of the
  four cells (Protocol B, step 8).
* :func:`export_model`, :func:`predict_exported`, :class:`Curator` — the trust boundary of
  Protocol B: the model crosses it as JSON data, never as a pickle.
* :func:`protocol_a`, :func:`protocol_b`, :func:`true_performance`, :func:`evaluate_model`.
* :func:`protocol_error`, :func:`summarize_protocol_errors` — ME, STD, RMSE over repetitions.
* :func:`evaluate_repetition` — one repetition of the paper's experiment, as a tidy frame.

Design decisions (where the paper is silent, the choice is ours and stated here)
---------------------------------------------------------------------------------
* **Classifiers** (§IV.C: "default settings", SVM C = 1.0, RF 100 estimators, KNN k = 5):
  ``RandomForestClassifier(n_estimators=100)``, ``LinearSVC(C=1.0)`` (scikit-learn's linear SVM:
  squared hinge loss, L2 penalty; ``SVC(kernel="linear")`` is not the default kernel of ``SVC``
  and is quadratic in n, infeasible on Cardio's 56 000 training rows), ``KNeighborsClassifier(
  n_neighbors=5)`` (k is lowered to the number of training rows if there are fewer than 5).
* **Features.** The paper's tables are discretised (integer bin codes) before synthesis and it
  does not describe the classifiers' preprocessing.  Ours, identical for the three classifiers
  and fitted on the training data only: numeric columns (bin codes are ordinal, so they are used
  as numbers) → median imputation of missing values → standardisation (z-scores; needed by the
  SVM and KNN, harmless for the forest); categorical columns (non-numeric or boolean dtype, plus
  any listed in ``categorical=``) → one-hot encoding, missing values as their own category,
  categories unseen in training encoded as all zeros.  Every column except the target is a
  feature.
* **Positive class** (for F1): ``positive=``; by default 1 (or True) when the labels are
  {0, 1} (or {False, True}); other labels need an explicit ``positive`` (e.g. ILPD's
  ``Dataset == 1``, liver patient, 71 % in the paper's Table 1).
* **Confusion matrix layout**: ``[[TN, FP], [FN, TP]]`` — rows true class (negative, positive),
  columns predicted class — scikit-learn's layout with ``labels=[negative, positive]``.
* **Undefined metrics.** F1 = 2TP / (2TP + FP + FN) is 0 when its denominator is 0 (no
  positive label and no positive prediction; scikit-learn's ``zero_division`` value) and in
  particular 0 for a classifier that never predicts the positive class.  Accuracy is NaN when
  the matrix sums to 0 (possible only for a noisy release at tiny ε); :func:`protocol_error` and
  :func:`summarize_protocol_errors` leave such repetitions out and count them.
* **Neighbouring relation and noise** (Protocol B).  Every test record falls in exactly one cell
  of the confusion matrix, so the 4 cells are a histogram of disjoint parts (parallel
  composition, the paper's argument in §III.A).  Under *add/remove-one* neighbours (the default,
  as the paper's generators MST, AIM, MWEM-PGM, PrivBayes use) the 4-vector has L1 sensitivity 1
  and each cell gets Lap(1/ε) noise; under *replace-one* neighbours (n public; as the histogram
  synthesizers of this package) one record can move between two cells, L1 sensitivity 2, noise
  Lap(2/ε).  The paper says "Laplace mechanism with the ε" per cell without giving the scale;
  Lap(1/ε) is the reading of its parallel-composition argument.  The release is ε-DP for the
  test set; the training set is disjoint, so the whole protocol is ε-DP (parallel composition).
  Each further evaluation on the same test set spends another ε (the :class:`Curator`'s ledger
  adds them up; §VII).
* **Post-processing of the noisy matrix**: round each cell to the nearest integer and clip at 0;
  the total is *not* forced to the test-set size (under add/remove it is not public).  Metrics
  are computed from the post-processed matrix.  The raw Laplace output is part of the release too
  (``ConfusionRelease.noisy``).
* **Splits** (§IV.C: "divided randomly"): simple random 80/20 splits, not stratified;
  ``n_test = ceil(test_size · n)`` (scikit-learn's rule), the rest is training data.  The same
  rule splits the real data and, in Protocol A, the synthetic data.
* **Synthetic samples** (§IV.C): one generator is fitted per repetition; Protocol A gets a
  sample of ``|train|`` + ``|test|`` rows and Protocol B a separate, independent sample of ``|train|`` rows.
* **Degenerate synthetic data**: a synthetic training set with a single class gives a constant
  classifier that predicts that class (scikit-learn's classifiers refuse one class);
  ``LinearSVC`` convergence warnings are silenced (``max_iter=1000`` as in its default).
* **Trust boundary** (Fig. 1, §VII: "the curator can not accept and run arbitrary code ... one
  needs to standardize the types of models").  The :class:`Curator` holds the real test set and
  accepts a model only as data: the dict of :func:`export_model` (or its JSON text) — a
  preprocessing description, plus linear coefficients, the forest's tree arrays, or the KNN
  reference points (the synthetic training data, already public) — interpreted by
  :func:`predict_exported` with NumPy (and scikit-learn's KNN, rebuilt from the data).  Bytes
  (e.g. a pickle) and estimator objects are refused with ``TypeError``.  A Python callable is
  also accepted, as a simulation convenience for code the curator already trusts; a real curator
  would only take the JSON form.
* **Randomness**: every draw comes from ``numpy.random.Generator`` streams spawned from
  ``random_state`` (scikit-learn estimators get integer seeds drawn from them); nothing uses
  global state.
"""

from __future__ import annotations

import json
import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._validation import check_epsilon, check_random_state, check_unit_interval
from .privacy.ledger import PrivacyLedger
from .privacy.mechanisms import laplace

__all__ = [
    "CLASSIFIERS",
    "METRICS",
    "MODEL_FORMAT",
    "NEIGHBOURING",
    "ConfusionRelease",
    "Curator",
    "ProtocolErrorResult",
    "ProtocolResult",
    "accuracy_from_confusion",
    "classification_metrics",
    "confusion_matrix",
    "dp_confusion_matrix",
    "evaluate_model",
    "evaluate_repetition",
    "export_model",
    "f1_from_confusion",
    "fit_classifier",
    "make_classifier",
    "predict_exported",
    "privatize_confusion_matrix",
    "protocol_a",
    "protocol_b",
    "protocol_error",
    "split_train_test",
    "summarize_protocol_errors",
    "true_performance",
]

#: Classifier names accepted by :func:`make_classifier` (paper §IV.C).
CLASSIFIERS: tuple[str, ...] = ("random_forest", "linear_svm", "knn")
#: Metrics reported by the protocols (paper §IV.C).
METRICS: tuple[str, ...] = ("accuracy", "f1")
#: Neighbouring relations accepted by the DP confusion matrix and their L1 sensitivity.
NEIGHBOURING: dict[str, float] = {"add_remove": 1.0, "replace_one": 2.0}
#: ``format`` tag of the JSON model description (:func:`export_model`).
MODEL_FORMAT = "synthtrust.protocols.model/1"

_SEED_HIGH = 2**31 - 1  # scikit-learn seeds must fit in 32 bits


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _check_frame(data, name: str) -> pd.DataFrame:
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(data).__name__}")
    if data.shape[0] == 0:
        raise ValueError(f"{name} has no rows (columns {list(data.columns)})")
    return data


def _check_target(data: pd.DataFrame, target, name: str) -> None:
    if target not in data.columns:
        raise ValueError(
            f"target column {target!r} is not in {name}; its columns are {list(data.columns)}"
        )
    if data.shape[1] < 2:
        raise ValueError(f"{name} has no feature column besides the target {target!r}")
    if data[target].isna().any():
        raise ValueError(f"target column {target!r} of {name} has missing values")


def _check_classifier_name(name) -> str:
    if not isinstance(name, str) or name not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {name!r}; allowed: {', '.join(CLASSIFIERS)}")
    return name


def _check_neighbouring(neighbouring) -> float:
    if not isinstance(neighbouring, str) or neighbouring not in NEIGHBOURING:
        raise ValueError(
            f"unknown neighbouring relation {neighbouring!r}; allowed: {', '.join(NEIGHBOURING)}"
        )
    return NEIGHBOURING[neighbouring]


def _py(value):
    """NumPy scalar → Python scalar (for JSON and for clean messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _labels_of(y: pd.Series) -> list:
    return sorted((_py(v) for v in pd.unique(y)), key=repr)


def _default_positive(labels: Sequence, name: str):
    labels_set = set(labels)
    if all(isinstance(v, (bool, np.bool_)) for v in labels):
        return True
    if labels_set <= {0, 1} and not any(isinstance(v, str) for v in labels):
        return 1
    raise ValueError(
        f"cannot tell the positive class of {name} with labels {sorted(labels, key=repr)}; "
        "pass positive= (the label F1 treats as positive)"
    )


def _resolve_classes(y: pd.Series, positive, name: str, *, exact_two: bool) -> tuple:
    """Validate a binary target and return ``(positive, labels)``.

    ``exact_two``: the real data must have exactly 2 classes; synthetic data may have 1 (tiny ε).
    """
    labels = _labels_of(y)
    if len(labels) > 2 or (exact_two and len(labels) != 2):
        raise ValueError(
            f"the target of {name} must have exactly 2 classes (binary classification), "
            f"got {len(labels)}: {labels[:10]}"
        )
    if positive is None:
        positive = _default_positive(labels, name)
    elif exact_two and positive not in labels:
        raise ValueError(
            f"positive={positive!r} is not one of the target labels {labels} of {name}"
        )
    return _py(positive), labels


def _check_labels_subset(y: pd.Series, allowed: Sequence, name: str) -> None:
    extra = [v for v in _labels_of(y) if v not in allowed]
    if extra:
        raise ValueError(
            f"the target of {name} has label(s) {extra} that the real data does not have "
            f"(real labels: {list(allowed)})"
        )


# --------------------------------------------------------------------------------------------
# classifiers
# --------------------------------------------------------------------------------------------
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


def _check_categorical(categorical) -> tuple:
    if categorical is None:
        return ()
    if isinstance(categorical, str) or not isinstance(categorical, Iterable):
        raise TypeError(f"categorical must be a list of column names or None, got {categorical!r}")
    return tuple(categorical)


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

    Source: Movahedi et al. (2024), §IV.C; preprocessing: module docstring.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sklearn.svm import LinearSVC

    _check_classifier_name(name)
    cats = _check_categorical(categorical)
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

    _check_classifier_name(name)
    _check_frame(data, "data")
    _check_target(data, target, "data")
    y = data[target]
    labels = _labels_of(y)
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


# --------------------------------------------------------------------------------------------
# metrics from a 2 × 2 confusion matrix
# --------------------------------------------------------------------------------------------
def confusion_matrix(y_true, y_pred, positive=1) -> np.ndarray:
    """Binary confusion matrix ``[[TN, FP], [FN, TP]]`` (rows: true negative/positive class,
    columns: predicted), int64, shape (2, 2).

    Every label other than ``positive`` counts as negative (the protocols check beforehand
    that there are only two).  Equals ``sklearn.metrics.confusion_matrix(y_true, y_pred,
    labels=[negative, positive])``.

    Raises
    ------
    ValueError
        ``y_true`` and ``y_pred`` of different lengths or not 1-D.
    """
    yt = np.asarray(y_true)
    yp = np.asarray(y_pred)
    if yt.ndim != 1 or yp.ndim != 1 or yt.shape != yp.shape:
        raise ValueError(
            f"y_true and y_pred must be 1-D of the same length, got shapes {yt.shape} and {yp.shape}"
        )
    t = yt == positive
    p = yp == positive
    tp = int(np.count_nonzero(t & p))
    fn = int(np.count_nonzero(t & ~p))
    fp = int(np.count_nonzero(~t & p))
    tn = int(t.size - tp - fn - fp)
    return np.array([[tn, fp], [fn, tp]], dtype=np.int64)


def _check_confusion(cm) -> np.ndarray:
    try:
        arr = np.asarray(cm, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"confusion matrix must be numeric: {exc}") from None
    if arr.ndim < 2 or arr.shape[-2:] != (2, 2):
        raise ValueError(f"confusion matrix must have shape (..., 2, 2), got {arr.shape}")
    if np.any(~np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("confusion matrix cells must be finite and >= 0")
    return arr


def accuracy_from_confusion(cm):
    """Accuracy (TP + TN) / N of ``[[TN, FP], [FN, TP]]``; NaN where N = 0.

    ``cm`` : array-like, shape (..., 2, 2) of non-negative counts (vectorized over leading axes).
    Returns a float (shape () input) or an array of shape ``cm.shape[:-2]``.

    Raises ValueError for another shape or negative / non-finite cells.
    """
    arr = _check_confusion(cm)
    n = arr.sum(axis=(-2, -1))
    correct = arr[..., 0, 0] + arr[..., 1, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(n > 0, correct / np.where(n > 0, n, 1), np.nan)
    return float(acc) if acc.ndim == 0 else acc


def f1_from_confusion(cm):
    """F1 score 2TP / (2TP + FP + FN) of ``[[TN, FP], [FN, TP]]`` for the positive class;
    0 where the denominator is 0 (scikit-learn's ``zero_division=0``).

    ``cm`` : array-like, shape (..., 2, 2); returns float or array of shape ``cm.shape[:-2]``.
    """
    arr = _check_confusion(cm)
    tp = arr[..., 1, 1]
    denom = 2 * tp + arr[..., 0, 1] + arr[..., 1, 0]
    f1 = np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)
    return float(f1) if f1.ndim == 0 else f1


def classification_metrics(cm) -> dict:
    """``{"accuracy": ..., "f1": ...}`` of one 2 × 2 confusion matrix (see the two functions)."""
    return {"accuracy": accuracy_from_confusion(cm), "f1": f1_from_confusion(cm)}


# --------------------------------------------------------------------------------------------
# DP confusion matrix
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ConfusionRelease:
    """The DP release of a confusion matrix (Protocol B, step 8).

    Attributes
    ----------
    matrix : int64 array (2, 2)
        Post-processed noisy counts ``[[TN, FP], [FN, TP]]``: rounded, clipped at 0.
    noisy : float array (2, 2)
        The Laplace mechanism's output before post-processing (also DP).
    accuracy, f1 : float
        Metrics of ``matrix`` (accuracy NaN if ``matrix`` sums to 0).
    epsilon : float
        ε of the release (pure DP, δ = 0).
    scale : float
        Laplace scale b = sensitivity / ε of each cell (noise variance 2b²).
    sensitivity : float
        L1 sensitivity of the 4-vector of cells (1 add/remove, 2 replace-one).
    neighbouring : str
    """

    matrix: np.ndarray
    noisy: np.ndarray
    accuracy: float
    f1: float
    epsilon: float
    scale: float
    sensitivity: float
    neighbouring: str

    def metrics(self) -> dict:
        return {"accuracy": self.accuracy, "f1": self.f1}


def privatize_confusion_matrix(
    cm,
    epsilon: float,
    random_state=None,
    ledger: PrivacyLedger | None = None,
    *,
    neighbouring: str = "add_remove",
) -> ConfusionRelease:
    """Release a true confusion matrix with ε-DP: Laplace noise on each of the 4 cells, then
    round to the nearest integer and clip at 0.

    Parameters
    ----------
    cm : array-like of non-negative integers, shape (2, 2)
        The true matrix ``[[TN, FP], [FN, TP]]`` of one test set.
    epsilon : float
        ε > 0 of the release.
    random_state : int, numpy.random.Generator or None
    ledger : PrivacyLedger, optional
        Receives one ``"laplace"`` entry with ε = ``epsilon`` (the 4 disjoint cells form one
        measurement of L1 sensitivity 1 or 2, so their parallel composition costs ε once).
    neighbouring : {"add_remove", "replace_one"}
        Sensitivity 1 (scale 1/ε, the default; paper §III.A) or 2 (scale 2/ε).

    Returns
    -------
    ConfusionRelease

    Raises
    ------
    ValueError
        ε ≤ 0 or not finite; ``cm`` not (2, 2) non-negative integers; unknown ``neighbouring``.

    Source: Movahedi et al. (2024), §III.A ("Noise is added to each component of the confusion
    matrix using Laplace mechanism"); Dwork & Roth (2014), Thm. 3.6 and parallel composition
    (McSherry 2009).
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = _check_neighbouring(neighbouring)
    arr = _check_confusion(cm)
    if arr.shape != (2, 2) or np.any(arr != np.rint(arr)):
        raise ValueError(f"cm must be a (2, 2) matrix of integer counts, got {np.asarray(cm)!r}")
    noisy = laplace(
        arr,
        sensitivity=sensitivity,
        epsilon=epsilon,
        random_state=random_state,
        ledger=ledger,
        note=f"confusion matrix, 4 disjoint cells ({neighbouring})",
    )
    released = np.clip(np.rint(noisy), 0, None).astype(np.int64)
    return ConfusionRelease(
        matrix=released,
        noisy=noisy,
        accuracy=accuracy_from_confusion(released),
        f1=f1_from_confusion(released),
        epsilon=epsilon,
        scale=sensitivity / epsilon,
        sensitivity=sensitivity,
        neighbouring=neighbouring,
    )


def dp_confusion_matrix(
    y_true,
    y_pred,
    epsilon: float,
    random_state=None,
    ledger: PrivacyLedger | None = None,
    *,
    positive=1,
    neighbouring: str = "add_remove",
) -> ConfusionRelease:
    """The curator's release in Protocol B: :func:`confusion_matrix` of ``(y_true, y_pred)``
    privatised by :func:`privatize_confusion_matrix` (Laplace on each cell, round, clip at 0).

    ``y_true``, ``y_pred`` : 1-D arrays of labels of the same length (the real test set's classes
    and the model's predictions).  Other parameters, return value and errors as in
    :func:`privatize_confusion_matrix` (plus ValueError for mismatched lengths).
    """
    epsilon = check_epsilon(epsilon)
    _check_neighbouring(neighbouring)
    cm = confusion_matrix(y_true, y_pred, positive=positive)
    return privatize_confusion_matrix(cm, epsilon, random_state, ledger, neighbouring=neighbouring)


# --------------------------------------------------------------------------------------------
# models as JSON data (the trust boundary of Protocol B)
# --------------------------------------------------------------------------------------------
def _json_scalar(value, name: str):
    value = _py(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    raise TypeError(f"{name} must be a JSON scalar (str, int, float, bool, None), got {value!r}")


def export_model(model) -> dict:
    """Describe a fitted :func:`fit_classifier` pipeline as JSON-serialisable data.

    The analyst sends this dict (or ``json.dumps`` of it) to the :class:`Curator`; nothing in it
    is code.  Layout (``format`` = :data:`MODEL_FORMAT`)::

        {"format": ..., "features": [column names],
         "numeric": [{"name", "fill", "mean", "scale"}, ...],   # z = (x or fill − mean) / scale
         "categorical": [{"name", "categories": [...]}, ...],   # one-hot, null = missing
         "estimator": {"kind": "linear", "classes": [c0, c1], "coef": [...], "intercept": b}
                    | {"kind": "forest", "classes": [...], "trees": [{"feature", "threshold",
                       "left", "right", "value"}, ...]}   # value: n_nodes × n_classes, row-major
                    | {"kind": "knn", "classes": [...], "n_neighbors": k, "X": [[...]], "y": [...]}
                    | {"kind": "constant", "label": c}}

    The design matrix is the numeric z-scores followed by the one-hot blocks, in this order.  A
    linear model predicts ``classes[1]`` where ``X @ coef + intercept > 0``; a forest averages
    its trees' leaf class proportions (X cast to float32, ``x <= threshold`` goes left), as
    scikit-learn does; KNN's reference points are the (public) synthetic training rows.

    Raises
    ------
    TypeError
        ``model`` is not a fitted pipeline of :func:`make_classifier` / :func:`fit_classifier`.
    """
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.svm import LinearSVC

    if not isinstance(model, Pipeline) or "preprocess" not in model.named_steps:
        raise TypeError(
            f"model must be a fitted pipeline from make_classifier/fit_classifier, got {type(model).__name__}"
        )
    pre = model.named_steps["preprocess"]
    clf = model.named_steps["classifier"]
    if not hasattr(pre, "transformers_"):
        raise TypeError("model is not fitted; call fit_classifier first")
    numeric: list[dict] = []
    categorical: list[dict] = []
    for tname, trans, cols in pre.transformers_:
        if isinstance(trans, str) or len(cols) == 0:
            continue
        if tname == "numeric":
            imp, sc = trans.named_steps["impute"], trans.named_steps["scale"]
            for j, col in enumerate(cols):
                numeric.append(
                    {
                        "name": _json_scalar(col, "column name"),
                        "fill": float(imp.statistics_[j]),
                        "mean": float(sc.mean_[j]),
                        "scale": float(sc.scale_[j]),
                    }
                )
        elif tname == "categorical":
            for col, cats in zip(cols, trans.categories_, strict=True):
                categorical.append(
                    {
                        "name": _json_scalar(col, "column name"),
                        "categories": [_json_scalar(c, f"category of {col!r}") for c in cats],
                    }
                )
    features = [_json_scalar(c, "column name") for c in pre.feature_names_in_]
    if isinstance(clf, DummyClassifier):
        estimator = {"kind": "constant", "label": _json_scalar(clf.classes_[0], "label")}
    elif isinstance(clf, LinearSVC):
        estimator = {
            "kind": "linear",
            "classes": [_json_scalar(c, "label") for c in clf.classes_],
            "coef": [float(v) for v in clf.coef_.ravel()],
            "intercept": float(clf.intercept_.ravel()[0]),
        }
    elif isinstance(clf, RandomForestClassifier):
        trees = []
        for est in clf.estimators_:
            t = est.tree_
            trees.append(
                {
                    "feature": t.feature.tolist(),
                    "threshold": t.threshold.tolist(),
                    "left": t.children_left.tolist(),
                    "right": t.children_right.tolist(),
                    "value": t.value[:, 0, :].ravel().tolist(),
                }
            )
        estimator = {
            "kind": "forest",
            "classes": [_json_scalar(c, "label") for c in clf.classes_],
            "trees": trees,
        }
    elif isinstance(clf, KNeighborsClassifier):
        estimator = {
            "kind": "knn",
            "classes": [_json_scalar(c, "label") for c in clf.classes_],
            "n_neighbors": int(clf.n_neighbors),
            "X": np.asarray(clf._fit_X, dtype=float).tolist(),
            "y": [_json_scalar(c, "label") for c in clf.classes_[clf._y]],
        }
    else:
        raise TypeError(f"cannot export a {type(clf).__name__}; allowed: {', '.join(CLASSIFIERS)}")
    return {
        "format": MODEL_FORMAT,
        "features": features,
        "numeric": numeric,
        "categorical": categorical,
        "estimator": estimator,
    }


def _num_array(value, name: str, dtype, ndim: int) -> np.ndarray:
    """Strict conversion of JSON data to a numeric array (no objects, no strings)."""
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"model field {name} must be a list of numbers, got {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf" or arr.ndim != ndim:
        raise ValueError(
            f"model field {name} must be a {ndim}-D list of numbers, got dtype {arr.dtype} shape {arr.shape}"
        )
    return arr.astype(dtype)


def _field(spec: Mapping, key: str, where: str):
    if not isinstance(spec, Mapping) or key not in spec:
        raise ValueError(f"model description lacks {where}[{key!r}]")
    return spec[key]


def _design_matrix(spec: Mapping, X: pd.DataFrame) -> np.ndarray:
    blocks = []
    for k, item in enumerate(_field(spec, "numeric", "model")):
        col = _field(item, "name", f"numeric[{k}]")
        if col not in X.columns:
            raise ValueError(f"the model needs feature column {col!r}, which the test set lacks")
        try:
            x = pd.to_numeric(X[col]).to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise ValueError(f"feature column {col!r} of the test set is not numeric") from None
        fill, mean, scale = (
            float(_num_array(_field(item, key, f"numeric[{k}]"), key, float, 0))
            for key in ("fill", "mean", "scale")
        )
        x = np.where(np.isnan(x), fill, x)
        x -= mean
        x /= scale
        blocks.append(x[:, None])
    for k, item in enumerate(_field(spec, "categorical", "model")):
        col = _field(item, "name", f"categorical[{k}]")
        if col not in X.columns:
            raise ValueError(f"the model needs feature column {col!r}, which the test set lacks")
        cats = _field(item, "categories", f"categorical[{k}]")
        if not isinstance(cats, list):
            raise ValueError(f"categorical[{k}]['categories'] must be a list")
        values = X[col]
        missing = values.isna().to_numpy()
        obj = values.astype(object).to_numpy()
        onehot = np.zeros((len(X), len(cats)))
        for j, c in enumerate(cats):
            c = _json_scalar(c, f"category of {col!r}")
            if c is None:
                onehot[:, j] = missing
            else:
                onehot[:, j] = (obj == c) & ~missing
        blocks.append(onehot)
    if not blocks:
        raise ValueError("model description has no feature (numeric and categorical are empty)")
    return np.hstack(blocks)


def _labels_array(labels, name: str) -> np.ndarray:
    if not isinstance(labels, list) or not labels:
        raise ValueError(f"model field {name} must be a non-empty list of labels")
    return np.array([_json_scalar(v, name) for v in labels], dtype=object)


def _predict_forest(est: Mapping, Z: np.ndarray) -> np.ndarray:
    classes = _labels_array(_field(est, "classes", "estimator"), "classes")
    trees = _field(est, "trees", "estimator")
    if not isinstance(trees, list) or not trees:
        raise ValueError("a forest needs a non-empty list of trees")
    Z32 = Z.astype(np.float32).astype(np.float64)  # scikit-learn trees compare float32 features
    n = Z.shape[0]
    rows = np.arange(n)
    proba = np.zeros((n, len(classes)))
    for i, tree in enumerate(trees):
        feat = _num_array(_field(tree, "feature", f"trees[{i}]"), "feature", np.int64, 1)
        thr = _num_array(_field(tree, "threshold", f"trees[{i}]"), "threshold", float, 1)
        left = _num_array(_field(tree, "left", f"trees[{i}]"), "left", np.int64, 1)
        right = _num_array(_field(tree, "right", f"trees[{i}]"), "right", np.int64, 1)
        value = _num_array(_field(tree, "value", f"trees[{i}]"), "value", float, 1)
        n_nodes = feat.size
        if not (thr.size == left.size == right.size == n_nodes) or (
            value.size != n_nodes * len(classes)
        ):
            raise ValueError(f"trees[{i}] has arrays of inconsistent lengths")
        value = value.reshape(n_nodes, len(classes))
        inner = left >= 0
        if np.any(feat[inner] >= Z.shape[1]) or np.any(feat[inner] < 0):
            raise ValueError(f"trees[{i}] uses a feature index outside 0..{Z.shape[1] - 1}")
        if (
            np.any(left[inner] >= n_nodes)
            or np.any(right[inner] >= n_nodes)
            or np.any(right[inner] < 0)
        ):
            raise ValueError(f"trees[{i}] has a child index outside 0..{n_nodes - 1}")
        node = np.zeros(n, dtype=np.int64)
        for _ in range(n_nodes):  # a path visits at most n_nodes nodes
            active = inner[node]
            if not active.any():
                break
            idx = rows[active]
            nd = node[idx]
            go_left = Z32[idx, feat[nd]] <= thr[nd]
            node[idx] = np.where(go_left, left[nd], right[nd])
        else:
            if inner[node].any():
                raise ValueError(f"trees[{i}] has a cycle")
        p = value[node]
        norm = p.sum(axis=1)
        norm[norm == 0.0] = 1.0
        proba += p / norm[:, None]
    proba /= len(trees)
    return classes[np.argmax(proba, axis=1)]


def predict_exported(spec, X: pd.DataFrame) -> np.ndarray:
    """Curator-side predictions of an exported model (:func:`export_model`) on ``X``.

    Parameters
    ----------
    spec : dict or str
        The JSON model description (a dict, or its JSON text).  Only numbers, strings, lists and
        dicts are read; nothing is executed.
    X : DataFrame, shape (n_rows, ...)
        Must contain the model's feature columns (extra columns are ignored).

    Returns
    -------
    ndarray of labels (object dtype), shape (n_rows,) — equal to the exported pipeline's
    ``predict(X)``.

    Raises
    ------
    TypeError
        ``spec`` is bytes (e.g. a pickle) or not a dict/str.
    ValueError
        Invalid JSON, wrong ``format``, malformed fields, missing or non-numeric feature columns.
    """
    spec = _load_spec(spec)
    X = _check_frame(X, "X")
    est = _field(spec, "estimator", "model")
    kind = _field(est, "kind", "estimator")
    if kind == "constant":
        label = _json_scalar(_field(est, "label", "estimator"), "label")
        out = np.empty(len(X), dtype=object)
        out[:] = [label] * len(X)
        return out
    Z = _design_matrix(spec, X)
    if kind == "linear":
        classes = _labels_array(_field(est, "classes", "estimator"), "classes")
        coef = _num_array(_field(est, "coef", "estimator"), "coef", float, 1)
        intercept = float(_num_array(_field(est, "intercept", "estimator"), "intercept", float, 0))
        if coef.size != Z.shape[1] or classes.size != 2:
            raise ValueError(
                f"linear model has {coef.size} coefficients and {classes.size} classes for "
                f"{Z.shape[1]} design columns; expected {Z.shape[1]} and 2"
            )
        score = Z @ coef + intercept
        return classes[(score > 0).astype(np.int64)]
    if kind == "forest":
        return _predict_forest(est, Z)
    if kind == "knn":
        from sklearn.neighbors import KNeighborsClassifier

        ref = _num_array(_field(est, "X", "estimator"), "X", float, 2)
        y = _labels_array(_field(est, "y", "estimator"), "y")
        k = _field(est, "n_neighbors", "estimator")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(y):
            raise ValueError(f"n_neighbors must be an int in 1..{len(y)}, got {k!r}")
        if ref.shape != (len(y), Z.shape[1]):
            raise ValueError(
                f"KNN reference points have shape {ref.shape}; expected ({len(y)}, {Z.shape[1]})"
            )
        knn = KNeighborsClassifier(n_neighbors=k).fit(ref, y.tolist())
        return np.asarray(knn.predict(Z), dtype=object)
    raise ValueError(
        f"unknown estimator kind {kind!r}; allowed: 'linear', 'forest', 'knn', 'constant'"
    )


def _load_spec(spec) -> Mapping:
    if isinstance(spec, (bytes, bytearray, memoryview)):
        raise TypeError(
            "the curator does not accept bytes (e.g. a pickled model) across the trust boundary; "
            "send export_model(model) (JSON data) instead"
        )
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except json.JSONDecodeError as exc:
            raise ValueError(f"model is not valid JSON text: {exc}") from None
    if not isinstance(spec, Mapping):
        raise TypeError(f"model description must be a dict or JSON text, got {type(spec).__name__}")
    fmt = spec.get("format")
    if fmt != MODEL_FORMAT:
        raise ValueError(f"model description has format {fmt!r}; expected {MODEL_FORMAT!r}")
    return spec


# --------------------------------------------------------------------------------------------
# the curator of Protocol B
# --------------------------------------------------------------------------------------------
class Curator:
    """The data curator of Protocol B: holds the real test set behind the privacy barrier.

    The analyst never sees the test features or labels; the only output is
    :meth:`evaluate`'s DP confusion-matrix release.  Every evaluation spends ``epsilon`` on
    the test set and is recorded in :attr:`ledger` (sequential composition: k evaluations cost
    kε; paper §VII).

    Parameters
    ----------
    test : DataFrame, shape (n_test, n_features + 1)
        The real test set (features and target).
    target : column label of the class
    positive : label, optional
        The positive class (default: 1 / True for {0, 1} / {False, True} labels).
    neighbouring : {"add_remove", "replace_one"}
        Sensitivity of the release (see :func:`privatize_confusion_matrix`).
    ledger : PrivacyLedger, optional
        Where the releases are recorded (a new one by default).

    Raises
    ------
    ValueError
        ``target`` not a column; the target does not have exactly 2 classes; ``positive`` not one
        of them; unknown ``neighbouring``.
    TypeError
        ``test`` not a DataFrame; ``ledger`` not a PrivacyLedger.
    """

    def __init__(
        self,
        test: pd.DataFrame,
        target,
        *,
        positive=None,
        neighbouring: str = "add_remove",
        ledger: PrivacyLedger | None = None,
    ):
        _check_frame(test, "test")
        _check_target(test, target, "test")
        _check_neighbouring(neighbouring)
        if ledger is not None and not isinstance(ledger, PrivacyLedger):
            raise TypeError(f"ledger must be a PrivacyLedger or None, got {type(ledger).__name__}")
        self.positive, self.labels = _resolve_classes(
            test[target], positive, "test", exact_two=True
        )
        self.target = target
        self.neighbouring = neighbouring
        self.ledger = PrivacyLedger() if ledger is None else ledger
        self._features = test.drop(columns=[target]).reset_index(drop=True)
        self._y = test[target].to_numpy()

    @property
    def n_test(self) -> int:
        """Number of test records (public under replace-one; the analyst knows it anyway in
        the paper's setup, where the split sizes are fixed)."""
        return len(self._y)

    def _predict(self, model) -> np.ndarray:
        if isinstance(model, (bytes, bytearray, memoryview)):
            raise TypeError(
                "the curator does not accept bytes (e.g. a pickled model) across the trust "
                "boundary; send export_model(model) (JSON data) instead"
            )
        if isinstance(model, (str, Mapping)):
            pred = predict_exported(model, self._features)
        elif callable(model):
            pred = model(self._features.copy())
        else:
            raise TypeError(
                f"the curator accepts a model as JSON data (export_model(model), a dict or JSON "
                f"text) or a callable, not a {type(model).__name__}"
            )
        pred = np.asarray(pred)
        if pred.shape != (self.n_test,):
            raise ValueError(
                f"the model returned predictions of shape {pred.shape}; expected ({self.n_test},)"
            )
        extra = [v for v in _labels_of(pd.Series(pred)) if v not in self.labels]
        if extra:
            raise ValueError(f"the model predicts label(s) {extra}, not among {self.labels}")
        return pred

    def evaluate(self, model, epsilon: float, random_state=None) -> ConfusionRelease:
        """Apply ``model`` to the real test set and release its confusion matrix with ε-DP.

        Parameters
        ----------
        model : dict, str or callable
            :func:`export_model` output (or its JSON text), or a callable ``f(features) ->
            labels`` (features: DataFrame of the test set without the target; labels: array of
            shape (n_test,)) — the callable runs inside the curator, see the module docstring.
        epsilon : float
            ε > 0 of this release.
        random_state : int, numpy.random.Generator or None

        Returns
        -------
        ConfusionRelease

        Raises
        ------
        TypeError
            ``model`` is bytes / bytearray / memoryview (a pickle) or another non-JSON object
            such as a fitted estimator.
        ValueError
            ε ≤ 0; malformed model description; predictions of the wrong shape or with labels
            the test set does not have.
        """
        epsilon = check_epsilon(epsilon)
        pred = self._predict(model)
        return dp_confusion_matrix(
            self._y,
            pred,
            epsilon,
            random_state,
            self.ledger,
            positive=self.positive,
            neighbouring=self.neighbouring,
        )

    def __repr__(self) -> str:
        return (
            f"Curator(n_test={self.n_test}, target={self.target!r}, positive={self.positive!r}, "
            f"neighbouring={self.neighbouring!r}, spent epsilon={self.ledger.total_epsilon:g})"
        )


# --------------------------------------------------------------------------------------------
# protocols
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ProtocolResult:
    """Performance of one classifier as seen by one protocol.

    Attributes
    ----------
    protocol : {"A", "B", "truth", "reference"}
        A = Syn-Only estimate, B = Syn-Real (DP) estimate, truth = the same kind of model trained
        on synthetic data and tested on the real test set without DP, reference = trained on
        real training data, tested on the real test set.
    classifier : str
    accuracy, f1 : float
    confusion : int64 array (2, 2) ``[[TN, FP], [FN, TP]]`` — for B the released (noisy) matrix.
    n_train, n_test : int
        Rows used to train and to test.
    model : the fitted pipeline (analyst side).
    release : ConfusionRelease or None (B only).
    """

    protocol: str
    classifier: str
    accuracy: float
    f1: float
    confusion: np.ndarray
    n_train: int
    n_test: int
    model: object = field(repr=False, default=None)
    release: ConfusionRelease | None = field(repr=False, default=None)

    def metrics(self) -> dict:
        """``{"accuracy": ..., "f1": ...}``."""
        return {"accuracy": self.accuracy, "f1": self.f1}


def split_train_test(data: pd.DataFrame, test_size: float = 0.2, random_state=None):
    """Simple random split (not stratified; paper §IV.C "divided randomly").

    ``n_test = ceil(test_size · n)``, ``n_train = n − n_test`` (both ≥ 1).  Returns
    ``(train, test)`` DataFrames with fresh RangeIndex, rows in random order.

    Raises ValueError for ``test_size`` outside (0, 1) or a split with an empty part.
    """
    _check_frame(data, "data")
    test_size = check_unit_interval(test_size, "test_size")
    n = len(data)
    n_test = math.ceil(test_size * n)
    if n_test < 1 or n_test >= n:
        raise ValueError(
            f"test_size={test_size} of {n} rows leaves an empty training or test set "
            f"(n_test={n_test})"
        )
    perm = check_random_state(random_state).permutation(n)
    test = data.iloc[perm[:n_test]].reset_index(drop=True)
    train = data.iloc[perm[n_test:]].reset_index(drop=True)
    return train, test


def evaluate_model(model, data: pd.DataFrame, target, *, positive=1) -> dict:
    """Non-private metrics of a fitted pipeline on ``data``: ``{"accuracy", "f1", "confusion"}``.

    Raises ValueError if ``target`` is missing from ``data``.
    """
    _check_frame(data, "data")
    _check_target(data, target, "data")
    pred = model.predict(data.drop(columns=[target]))
    cm = confusion_matrix(data[target].to_numpy(), np.asarray(pred), positive=positive)
    return {"accuracy": accuracy_from_confusion(cm), "f1": f1_from_confusion(cm), "confusion": cm}


def _result(protocol, classifier, scores, n_train, n_test, model, release=None) -> ProtocolResult:
    return ProtocolResult(
        protocol=protocol,
        classifier=classifier,
        accuracy=scores["accuracy"],
        f1=scores["f1"],
        confusion=scores["confusion"],
        n_train=int(n_train),
        n_test=int(n_test),
        model=model,
        release=release,
    )


def protocol_a(
    synthetic: pd.DataFrame,
    target,
    classifier: str,
    test_size: float = 0.2,
    random_state=None,
    *,
    positive=None,
    categorical=None,
) -> ProtocolResult:
    """Protocol A (Syn-Only): split the released synthetic data, train on one part and test on
    the other; everything happens on the analyst's side, no further privacy cost.

    Parameters
    ----------
    synthetic : DataFrame, shape (n_train + n_test, n_features + 1)
        The released synthetic data (the paper samples ``|train|`` + ``|test|`` rows).
    target : column label of the class
    classifier : {"random_forest", "linear_svm", "knn"}
    test_size : float in (0, 1)
        Share of the synthetic rows used for testing (0.2 in the paper).
    random_state : int, numpy.random.Generator or None
        Drives the split and the classifier.
    positive, categorical
        See :class:`Curator` and :func:`make_classifier`.

    Returns
    -------
    ProtocolResult (protocol ``"A"``); ``model`` is trained on the synthetic training part.

    Raises
    ------
    ValueError
        Unknown classifier; ``target`` missing; more than 2 classes; bad ``test_size``.

    Source: Movahedi et al. (2024), §III.A, Protocol A steps 3–6; Fig. 1 (top).
    """
    _check_classifier_name(classifier)
    _check_frame(synthetic, "synthetic")
    _check_target(synthetic, target, "synthetic")
    positive, _ = _resolve_classes(synthetic[target], positive, "synthetic", exact_two=False)
    rng = check_random_state(random_state)
    split_rng, clf_rng = rng.spawn(2)
    train, test = split_train_test(synthetic, test_size, split_rng)
    model = fit_classifier(classifier, train, target, clf_rng, categorical=categorical)
    scores = evaluate_model(model, test, target, positive=positive)
    return _result("A", classifier, scores, len(train), len(test), model)


def protocol_b(
    synthetic: pd.DataFrame,
    real_test,
    target,
    classifier: str,
    epsilon: float,
    random_state=None,
    *,
    positive=None,
    categorical=None,
    neighbouring: str = "add_remove",
    ledger: PrivacyLedger | None = None,
) -> ProtocolResult:
    """Protocol B (Syn-Real): train on all of the synthetic data, send the model as JSON data
    (:func:`export_model`) to the curator, receive the ε-DP confusion matrix of the real test set.

    Parameters
    ----------
    synthetic : DataFrame, shape (n_train, n_features + 1)
        The released synthetic data (the paper samples ``|train|`` rows).
    real_test : DataFrame or Curator
        The real test set (a :class:`Curator` is built around it) or an existing curator.
    target, classifier, positive, categorical
        As in :func:`protocol_a`.  ``positive`` defaults to the curator's.
    epsilon : float
        ε > 0 of the confusion-matrix release (the paper uses the generator's ε: train and test
        sets are disjoint, parallel composition).
    random_state : int, numpy.random.Generator or None
        Drives the classifier and the curator's Laplace noise.
    neighbouring : {"add_remove", "replace_one"}
        Used when a curator is built here.
    ledger : PrivacyLedger, optional
        Used when a curator is built here; receives the release's entry.

    Returns
    -------
    ProtocolResult (protocol ``"B"``): metrics of the released matrix; ``release`` holds it.

    Raises
    ------
    ValueError
        ε ≤ 0; unknown classifier; ``target`` missing; the real test target not binary; a
        synthetic label the real data does not have.

    Source: Movahedi et al. (2024), §III.A, Protocol B steps 3–8; Fig. 1 (bottom).
    """
    _check_classifier_name(classifier)
    epsilon = check_epsilon(epsilon)
    _check_frame(synthetic, "synthetic")
    _check_target(synthetic, target, "synthetic")
    if isinstance(real_test, Curator):
        curator = real_test
        if curator.target != target:
            raise ValueError(f"the curator's target is {curator.target!r}, not {target!r}")
        if positive is not None and positive != curator.positive:
            raise ValueError(
                f"positive={positive!r} differs from the curator's {curator.positive!r}"
            )
    else:
        curator = Curator(
            real_test, target, positive=positive, neighbouring=neighbouring, ledger=ledger
        )
    _check_labels_subset(synthetic[target], curator.labels, "synthetic")
    rng = check_random_state(random_state)
    clf_rng, noise_rng = rng.spawn(2)
    model = fit_classifier(classifier, synthetic, target, clf_rng, categorical=categorical)
    release = curator.evaluate(export_model(model), epsilon, noise_rng)
    scores = {"accuracy": release.accuracy, "f1": release.f1, "confusion": release.matrix}
    return _result("B", classifier, scores, len(synthetic), curator.n_test, model, release)


def true_performance(
    train: pd.DataFrame,
    real_test: pd.DataFrame,
    target,
    classifier: str,
    random_state=None,
    *,
    positive=None,
    categorical=None,
    protocol: str = "truth",
) -> ProtocolResult:
    """Train on ``train`` and test on the real test set without DP (the oracle).

    With synthetic ``train`` this is the true performance a protocol estimates; with the real
    training data it is the paper's reference (pass ``protocol="reference"`` for the label).
    Deterministic given ``random_state``: the same training data and seed as a protocol's give
    the protocol's model.

    Raises
    ------
    ValueError
        Unknown classifier; ``target`` missing; the real target not binary; labels of ``train``
        not among the real ones.
    """
    _check_classifier_name(classifier)
    _check_frame(train, "train")
    _check_frame(real_test, "real_test")
    _check_target(train, target, "train")
    _check_target(real_test, target, "real_test")
    positive, labels = _resolve_classes(real_test[target], positive, "real_test", exact_two=True)
    _check_labels_subset(train[target], labels, "train")
    model = fit_classifier(classifier, train, target, random_state, categorical=categorical)
    scores = evaluate_model(model, real_test, target, positive=positive)
    return _result(protocol, classifier, scores, len(train), len(real_test), model)


# --------------------------------------------------------------------------------------------
# protocol error
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ProtocolErrorResult:
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

    def to_dict(self) -> dict:
        return {
            "me": self.me,
            "std": self.std,
            "rmse": self.rmse,
            "n": self.n,
            "n_undefined": self.n_undefined,
        }


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


# --------------------------------------------------------------------------------------------
# one repetition of the experiment
# --------------------------------------------------------------------------------------------
_FRAME_COLUMNS = ["protocol", "classifier", "metric", "estimate", "truth", "reference"]


def _check_classifiers(classifiers) -> list[str]:
    if isinstance(classifiers, str):
        classifiers = [classifiers]
    classifiers = list(classifiers)
    if not classifiers:
        raise ValueError(f"classifiers is empty; allowed: {', '.join(CLASSIFIERS)}")
    for c in classifiers:
        _check_classifier_name(c)
    if len(set(classifiers)) != len(classifiers):
        raise ValueError(f"classifiers has duplicates: {classifiers}")
    return classifiers


def _check_sample(sample, n: int, real: pd.DataFrame, target, labels, name: str) -> pd.DataFrame:
    if not isinstance(sample, pd.DataFrame):
        raise TypeError(
            f"the synthesizer's sample({n}) must return a DataFrame, got {type(sample).__name__}"
        )
    if len(sample) != n:
        raise ValueError(f"the synthesizer's sample({n}) returned {len(sample)} rows")
    missing = [c for c in real.columns if c not in sample.columns]
    if missing:
        raise ValueError(f"the {name} sample lacks the real data's column(s) {missing}")
    sample = sample[list(real.columns)]
    _check_labels_subset(sample[target], labels, name)
    return sample


def evaluate_repetition(
    real: pd.DataFrame,
    target,
    make_synthesizer: Callable,
    epsilon: float,
    classifiers: Sequence[str] = CLASSIFIERS,
    random_state=None,
    *,
    test_size: float = 0.2,
    positive=None,
    categorical=None,
    neighbouring: str = "add_remove",
    ledger: PrivacyLedger | None = None,
) -> pd.DataFrame:
    """One repetition of the paper's experiment (§IV.C) for one generator and one ε.

    1. Split ``real`` at random into train (80 %) and test (20 %).
    2. ``synth = make_synthesizer(epsilon, generator)``; ``synth.fit(train)``.
    3. Sample ``|train|`` + ``|test|`` rows for Protocol A and, independently, ``|train|`` rows for B.
    4. For each classifier: Protocol A estimate and its truth (the A-model on the real test
       set); Protocol B estimate (ε-DP release by a :class:`Curator` holding the real test set,
       the same ε as the generator) and its truth (the B-model on the real test set); the
       reference (trained on the real train set, tested on the real test set).

    Parameters
    ----------
    real : DataFrame, shape (n, n_features + 1)
        The private data (features already in the form the generator takes, e.g. bin codes).
    target : column label of the binary class
    make_synthesizer : callable (epsilon, random_state) -> synthesizer
        Returns an unfitted object with ``fit(train)`` and ``sample(n) -> DataFrame`` (the
        package's synthesizers fit this).  ``random_state`` is a numpy Generator.
    epsilon : float
        ε > 0 of the generator and of Protocol B's release.
    classifiers : sequence of names from :data:`CLASSIFIERS`
    random_state : int, numpy.random.Generator or None
        Root of every random draw (split, generator, classifiers, noise); each classifier has its
        own stream, so its rows do not depend on which other classifiers are run.
    test_size, positive, categorical, neighbouring
        See :func:`split_train_test`, :class:`Curator`, :func:`make_classifier`.
    ledger : PrivacyLedger, optional
        Receives Protocol B's releases, one entry of ε per classifier (each classifier is a
        separate evaluation of the same test set).

    Returns
    -------
    DataFrame, 2 · len(classifiers) · 2 rows, columns ``protocol`` ("A", "B"), ``classifier``,
    ``metric`` ("accuracy", "f1"), ``estimate`` (the protocol's estimate), ``truth`` (the same
    model on the real test set, non-private), ``reference`` (real-train model on the real test
    set).

    Raises
    ------
    ValueError
        ε ≤ 0; unknown classifier; ``target`` missing; the real target not binary; a sample
        with the wrong size, missing columns or unknown labels.
    TypeError
        ``real`` not a DataFrame; ``make_synthesizer`` not callable.

    Source: Movahedi et al. (2024), §IV.C; Fig. 2–4 (rows a, b, c).
    """
    _check_frame(real, "real")
    _check_target(real, target, "real")
    epsilon = check_epsilon(epsilon)
    classifiers = _check_classifiers(classifiers)
    _check_neighbouring(neighbouring)
    if not callable(make_synthesizer):
        raise TypeError(f"make_synthesizer must be callable, got {type(make_synthesizer).__name__}")
    positive, labels = _resolve_classes(real[target], positive, "real", exact_two=True)

    rng = check_random_state(random_state)
    split_rng, synth_rng, clf_root = rng.spawn(3)
    train, test = split_train_test(real, test_size, split_rng)
    n_train, n_test = len(train), len(test)

    synth = make_synthesizer(epsilon, synth_rng)
    synth.fit(train)
    syn_a = _check_sample(
        synth.sample(n_train + n_test), n_train + n_test, real, target, labels, "Protocol A"
    )
    syn_b = _check_sample(synth.sample(n_train), n_train, real, target, labels, "Protocol B")

    curator = Curator(test, target, positive=positive, neighbouring=neighbouring, ledger=ledger)
    streams = dict(zip(CLASSIFIERS, clf_root.spawn(len(CLASSIFIERS)), strict=True))
    rows = []
    for name in classifiers:
        a_rng, b_rng, ref_rng = streams[name].spawn(3)
        res_a = protocol_a(
            syn_a, target, name, test_size, a_rng, positive=positive, categorical=categorical
        )
        truth_a = evaluate_model(res_a.model, test, target, positive=positive)
        res_b = protocol_b(syn_b, curator, target, name, epsilon, b_rng, categorical=categorical)
        truth_b = evaluate_model(res_b.model, test, target, positive=positive)
        ref = true_performance(
            train,
            test,
            target,
            name,
            ref_rng,
            positive=positive,
            categorical=categorical,
            protocol="reference",
        )
        for prot, res, truth in (("A", res_a, truth_a), ("B", res_b, truth_b)):
            for metric in METRICS:
                rows.append(
                    {
                        "protocol": prot,
                        "classifier": name,
                        "metric": metric,
                        "estimate": float(getattr(res, metric)),
                        "truth": float(truth[metric]),
                        "reference": float(getattr(ref, metric)),
                    }
                )
    return pd.DataFrame(rows, columns=_FRAME_COLUMNS)
