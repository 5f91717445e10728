"""The trust boundary of Protocol B: a fitted classifier crosses it as JSON data, never as
code.  :func:`export_model` describes a fitted pipeline as JSON-serialisable data (analyst side);
:func:`predict_exported` validates such untrusted data (a dict or JSON text; bytes such as a
pickle are refused) and predicts with NumPy (curator side).

Spec: Movahedi et al. (2024) [``movahedi2024``], Fig. 1 and §VII ("the curator can not accept and
run arbitrary code ... one needs to standardize the types of models").
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._result import python_scalar
from .._validation import check_frame
from .classifiers import CLASSIFIERS

#: ``format`` tag of the JSON model description (:func:`export_model`). Version 2 sends the
#: large arrays (a forest's nodes, KNN's reference points) as encoded arrays; version 1 (lists of
#: numbers only) is still read.
MODEL_FORMAT = "synthtrust.protocols.model/2"
_READABLE = (MODEL_FORMAT, "synthtrust.protocols.model/1")
#: Element types an encoded array may declare (numpy type strings, little-endian).
ARRAY_DTYPES = ("<i4", "<i8", "<f4", "<f8")


def _json_scalar(value, name: str):
    value = python_scalar(value)
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

    A forest's node arrays and KNN's reference points are *encoded arrays*, JSON objects
    ``{"dtype": "<f8", "shape": [n, ...], "base64": "..."}``: the C-ordered little-endian bytes
    of the array in base64 (:data:`ARRAY_DTYPES` lists the types). A fully grown forest on
    Cardio's 56 000 training rows has about 2.9 M nodes: as lists of Python numbers its
    description took 416 MB, encoded about a third. :func:`predict_exported` also reads these
    fields as lists of numbers.

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
                    "feature": encode_array(t.feature, "<i4"),
                    "threshold": encode_array(t.threshold, "<f8"),
                    "left": encode_array(t.children_left, "<i4"),
                    "right": encode_array(t.children_right, "<i4"),
                    "value": encode_array(t.value[:, 0, :].ravel(), "<f8"),
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
            "X": encode_array(clf._fit_X, "<f8"),
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


def encode_array(values, dtype: str) -> dict:
    """An array as JSON data: ``{"dtype", "shape", "base64"}``, its C-ordered bytes as
    ``dtype`` (a key of :data:`ARRAY_DTYPES`) in base64 (RFC 4648). :func:`decode_array` reads
    it back, value for value.

    Raises
    ------
    ValueError
        ``dtype`` not in :data:`ARRAY_DTYPES`.

    Examples
    --------
    >>> encode_array([1, -2], "<i4")
    {'dtype': '<i4', 'shape': [2], 'base64': 'AQAAAP7///8='}
    """
    if dtype not in ARRAY_DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(ARRAY_DTYPES)}, got {dtype!r}")
    arr = np.ascontiguousarray(values, dtype=np.dtype(dtype))
    data = base64.b64encode(arr.tobytes()).decode("ascii")
    return {"dtype": dtype, "shape": list(arr.shape), "base64": data}


def decode_array(value: Mapping, name: str = "array") -> np.ndarray:
    """The array of an :func:`encode_array` object, validated as untrusted data.

    Raises
    ------
    ValueError
        A ``dtype`` not in :data:`ARRAY_DTYPES`, a ``shape`` that is not a list of integers
        >= 0, ``base64`` that is not base64 text, or bytes whose length does not match the
        shape (the message names the field ``name``).
    """
    dtype, shape, data = (value.get(k) for k in ("dtype", "shape", "base64"))
    if dtype not in ARRAY_DTYPES:
        raise ValueError(
            f"model field {name}: dtype must be one of {', '.join(ARRAY_DTYPES)}, got {dtype!r}"
        )
    if not isinstance(shape, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise ValueError(
            f"model field {name}: shape must be a list of integers >= 0, got {shape!r}"
        )
    try:
        raw = base64.b64decode(data, validate=True) if isinstance(data, str) else None
    except (binascii.Error, ValueError):
        raw = None
    if raw is None:
        raise ValueError(f"model field {name}: base64 must be base64 text")
    size = math.prod(shape) * np.dtype(dtype).itemsize
    if len(raw) != size:
        raise ValueError(
            f"model field {name}: {len(raw)} bytes for shape {shape} of {dtype} ({size} expected)"
        )
    return np.frombuffer(raw, dtype=np.dtype(dtype)).reshape(shape)


def _num_array(value, name: str, dtype, ndim: int) -> np.ndarray:
    """Strict conversion of JSON data (numbers, lists of numbers or an encoded array) to a
    numeric array (no objects, no strings)."""
    if isinstance(value, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"model field {name} must be a list of numbers, got {type(value).__name__}")
    arr = decode_array(value, name) if isinstance(value, Mapping) else np.asarray(value)
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
    X = check_frame(X, "X")
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
    if fmt not in _READABLE:
        raise ValueError(
            f"model description has format {fmt!r}; expected one of {', '.join(_READABLE)}"
        )
    return spec
