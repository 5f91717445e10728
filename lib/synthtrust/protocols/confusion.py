"""Classification metrics (accuracy, F1) computed from a 2 × 2 confusion matrix
``[[TN, FP], [FN, TP]]``, so that the same code serves the true and the noisy matrix.

Spec: Movahedi et al. (2024) [``movahedi2024``], §IV.C (metrics); undefined values as in the
"Undefined metrics" design decision of :mod:`synthtrust.protocols`.
"""

from __future__ import annotations

import numpy as np

#: Metrics reported by the protocols (paper §IV.C).
METRICS: tuple[str, ...] = ("accuracy", "f1")


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


def check_confusion(cm) -> np.ndarray:
    """Validate confusion matrices ``[[TN, FP], [FN, TP]]``, shape (..., 2, 2), as floats.

    Raises
    ------
    TypeError
        ``cm`` cannot be converted to a float array.
    ValueError
        Another shape, or a cell that is negative or not finite.
    """
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
    arr = check_confusion(cm)
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
    arr = check_confusion(cm)
    tp = arr[..., 1, 1]
    denom = 2 * tp + arr[..., 0, 1] + arr[..., 1, 0]
    f1 = np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1), 0.0)
    return float(f1) if f1.ndim == 0 else f1


def classification_metrics(cm) -> dict:
    """``{"accuracy": ..., "f1": ...}`` of one 2 × 2 confusion matrix (see the two functions)."""
    return {"accuracy": accuracy_from_confusion(cm), "f1": f1_from_confusion(cm)}
