"""The ε-DP release of a confusion matrix (Protocol B, step 8): Laplace noise on each of the
four disjoint cells, then rounding and clipping at 0.

Spec: Movahedi et al. (2024) [``movahedi2024``], §III.A; Dwork & Roth (2014) [``dwork2014``],
Thm. 3.6. The noise scale and the post-processing are design decisions of
:mod:`synthtrust.protocols`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_epsilon
from ..privacy.ledger import PrivacyLedger
from ..privacy.mechanisms import laplace
from .confusion import (
    accuracy_from_confusion,
    check_confusion,
    confusion_matrix,
    f1_from_confusion,
)

#: Neighbouring relations accepted by the DP confusion matrix and their L1 sensitivity.
NEIGHBOURING: dict[str, float] = {"add_remove": 1.0, "replace_one": 2.0}

#: What each relation says about the test-set size, written into the ledger entry's note.
_SIZE_NOTE = {"add_remove": "add/remove: n not public", "replace_one": "replace-one: n public"}


def check_neighbouring(neighbouring) -> float:
    """The L1 sensitivity of the confusion-matrix cells under a neighbouring relation.

    1 for ``"add_remove"``, 2 for ``"replace_one"`` (:data:`NEIGHBOURING`; ``dwork2014``,
    Thm. 3.6 sets the Laplace scale to sensitivity / ε).

    Raises
    ------
    ValueError
        ``neighbouring`` is not one of those names.
    """
    if not isinstance(neighbouring, str) or neighbouring not in NEIGHBOURING:
        raise ValueError(
            f"unknown neighbouring relation {neighbouring!r}; allowed: {', '.join(NEIGHBOURING)}"
        )
    return NEIGHBOURING[neighbouring]


@dataclass(frozen=True, eq=False)
class ConfusionRelease:
    """The DP release of a confusion matrix (Protocol B, step 8).

    Attributes
    ----------
    matrix : int64 array (2, 2)
        Post-processed noisy counts ``[[TN, FP], [FN, TP]]``: rounded, clipped at 0.
    noisy : float array (2, 2)
        The Laplace mechanism's output before post-processing (also DP).  Its total is an
        unbiased DP estimate of the test-set size (variance 8b², post-processing of this
        release): the only size a curator releases under add/remove neighbours.
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
        measurement of L1 sensitivity 1 or 2, so their parallel composition costs ε once); its
        note names the relation and whether n is public ("add/remove: n not public",
        "replace-one: n public").
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
    sensitivity = check_neighbouring(neighbouring)
    arr = check_confusion(cm)
    if arr.shape != (2, 2) or np.any(arr != np.rint(arr)):
        raise ValueError(f"cm must be a (2, 2) matrix of integer counts, got {np.asarray(cm)!r}")
    noisy = laplace(
        arr,
        sensitivity=sensitivity,
        epsilon=epsilon,
        random_state=random_state,
        ledger=ledger,
        note=f"confusion matrix, 4 disjoint cells ({_SIZE_NOTE[neighbouring]})",
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
    check_neighbouring(neighbouring)
    cm = confusion_matrix(y_true, y_pred, positive=positive)
    return privatize_confusion_matrix(cm, epsilon, random_state, ledger, neighbouring=neighbouring)
