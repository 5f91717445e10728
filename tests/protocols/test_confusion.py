"""Tests of ``synthtrust.protocols.confusion``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn import metrics as skm

from synthtrust import protocols as P


# --------------------------------------------------------------------------------------------
# metrics from the confusion matrix
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_metrics_equal_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, 1 - y_true)
    cm = P.confusion_matrix(y_true, y_pred, positive=1)
    np.testing.assert_array_equal(cm, skm.confusion_matrix(y_true, y_pred, labels=[0, 1]))
    assert cm.dtype == np.int64
    assert P.accuracy_from_confusion(cm) == pytest.approx(
        skm.accuracy_score(y_true, y_pred), abs=1e-15
    )
    assert P.f1_from_confusion(cm) == pytest.approx(
        skm.f1_score(y_true, y_pred, pos_label=1, zero_division=0), abs=1e-15
    )


def test_metrics_string_labels_and_degenerate_cases():
    y_true = np.array(["no", "yes", "yes", "no", "no"])
    y_pred = np.array(["no", "yes", "no", "no", "yes"])
    cm = P.confusion_matrix(y_true, y_pred, positive="yes")
    np.testing.assert_array_equal(cm, skm.confusion_matrix(y_true, y_pred, labels=["no", "yes"]))
    assert P.f1_from_confusion(cm) == pytest.approx(skm.f1_score(y_true, y_pred, pos_label="yes"))
    # never predicting the positive class: F1 = 0 (sklearn zero_division=0)
    all_neg = np.array(["no"] * 5)
    cm0 = P.confusion_matrix(y_true, all_neg, positive="yes")
    assert (
        P.f1_from_confusion(cm0)
        == 0.0
        == skm.f1_score(y_true, all_neg, pos_label="yes", zero_division=0)
    )
    # no positive at all: denominator 0 -> F1 = 0; empty matrix -> accuracy NaN
    assert P.f1_from_confusion([[5, 0], [0, 0]]) == 0.0
    assert math.isnan(P.accuracy_from_confusion([[0, 0], [0, 0]]))
    assert P.classification_metrics([[3, 1], [1, 5]]) == {
        "accuracy": 0.8,
        "f1": pytest.approx(10 / 12),
    }


def test_metrics_vectorized_equal_loop():
    rng = np.random.default_rng(3)
    cms = rng.integers(0, 5, size=(4, 3, 2, 2))
    acc = P.accuracy_from_confusion(cms)
    f1 = P.f1_from_confusion(cms)
    assert acc.shape == f1.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            a = P.accuracy_from_confusion(cms[i, j])
            assert (math.isnan(a) and math.isnan(acc[i, j])) or a == acc[i, j]
            assert f1[i, j] == P.f1_from_confusion(cms[i, j])
    with pytest.raises(ValueError, match="shape"):
        P.accuracy_from_confusion(np.ones((3, 3)))
    with pytest.raises(ValueError, match=">= 0"):
        P.f1_from_confusion([[1, -1], [0, 2]])
