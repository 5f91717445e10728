"""Tests of ``synthtrust.protocols.estimates``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _protocol_data import TARGET

from synthtrust import protocols as P
from synthtrust.privacy import PrivacyLedger


# --------------------------------------------------------------------------------------------
# protocols
# --------------------------------------------------------------------------------------------
def test_protocol_a_and_b_and_truth(pima_split):
    train, test = pima_split
    syn = train.sample(len(train) + len(test), replace=True, random_state=1).reset_index(drop=True)
    res_a = P.protocol_a(syn, TARGET, "knn", 0.2, random_state=3)
    assert res_a.protocol == "A" and (res_a.n_train, res_a.n_test) == (614, 154)
    assert res_a.release is None
    assert res_a.accuracy == P.accuracy_from_confusion(res_a.confusion)
    assert res_a.confusion.sum() == 154

    ledger = PrivacyLedger()
    syn_b = syn.iloc[: len(train)]
    res_b = P.protocol_b(syn_b, test, TARGET, "knn", 1e6, random_state=4, ledger=ledger)
    # add/remove (the default): the test-set size is not released
    assert res_b.protocol == "B" and (res_b.n_train, res_b.n_test) == (614, None)
    assert ledger.total_epsilon == 1e6 and len(ledger) == 1
    assert res_b.release.noisy.sum() == pytest.approx(154, abs=1e-3)  # its DP estimate
    public = P.protocol_b(syn_b, test, TARGET, "knn", 1e6, 4, neighbouring="replace_one")
    assert public.n_test == 154  # replace-one: n public
    truth = P.true_performance(syn_b, test, TARGET, "knn", random_state=0)
    assert truth.protocol == "truth"
    np.testing.assert_array_equal(res_b.confusion, truth.confusion)  # no noise at ε = 1e6
    assert res_b.f1 == truth.f1 and res_b.accuracy == truth.accuracy


def test_protocols_bad_input(pima_split):
    train, test = pima_split
    with pytest.raises(ValueError, match="epsilon must be > 0, got 0.0"):
        P.protocol_b(train, test, TARGET, "knn", 0.0)
    with pytest.raises(ValueError, match="unknown classifier 'tree'"):
        P.protocol_a(train, TARGET, "tree")
    with pytest.raises(ValueError, match="'y' is not in synthetic"):
        P.protocol_a(train, "y", "knn")
    with pytest.raises(ValueError, match="test_size"):
        P.protocol_a(train, TARGET, "knn", test_size=1.0)
    bad = train.assign(Outcome=train["Outcome"] * 5)  # label 5 unknown to the real data
    with pytest.raises(ValueError, match=r"label\(s\) \[5\]"):
        P.protocol_b(bad, test, TARGET, "knn", 1.0)


@pytest.mark.parametrize("name", P.CLASSIFIERS)
def test_single_class_synthetic_data_gives_constant_classifier(pima_split, name):
    train, test = pima_split
    neg = train[train[TARGET] == 0].reset_index(drop=True)
    res_b = P.protocol_b(neg, test, TARGET, name, 1e6, random_state=0)
    assert res_b.f1 == 0.0  # never predicts the positive class
    assert res_b.accuracy == pytest.approx(float((test[TARGET] == 0).mean()))
    res_a = P.protocol_a(neg, TARGET, name, random_state=0)
    assert res_a.accuracy == 1.0 and res_a.f1 == 0.0  # no positives anywhere: F1 = 0
    spec = P.export_model(res_b.model)
    assert spec["estimator"] == {"kind": "constant", "label": 0}
