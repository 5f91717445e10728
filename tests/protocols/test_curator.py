"""Tests of ``synthtrust.protocols.curator``.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from _protocol_data import TARGET

from synthtrust import protocols as P


def test_curator_refuses_pickles_and_objects(pima_split):
    train, test = pima_split
    model = P.fit_classifier("linear_svm", train, TARGET, 0)
    curator = P.Curator(test, TARGET)
    for bad in (pickle.dumps(model), bytearray(pickle.dumps(model)), memoryview(b"\x80\x04")):
        with pytest.raises(TypeError, match="pickle"):
            curator.evaluate(bad, 1.0)
    with pytest.raises(TypeError, match="export_model"):
        curator.evaluate(model, 1.0)  # a fitted estimator object is not JSON data
    with pytest.raises(TypeError, match="pickle"):
        P.predict_exported(pickle.dumps(P.export_model(model)), test)
    with pytest.raises(ValueError, match="not valid JSON"):
        curator.evaluate(pickle.dumps(model, protocol=0).decode("latin-1"), 1.0)
    with pytest.raises(ValueError, match="format"):
        curator.evaluate({"format": "pickle"}, 1.0)
    assert len(curator.ledger) == 0  # nothing was released


def test_curator_evaluate_json_callable_and_ledger(pima_split):
    train, test = pima_split
    model = P.fit_classifier("linear_svm", train, TARGET, 0)
    curator = P.Curator(test, TARGET)
    assert curator.positive == 1 and curator.labels == [0, 1]
    # add/remove (the default): the size is not released; replace-one: n public
    assert curator.n_test is None and not curator.n_public
    public = P.Curator(test, TARGET, neighbouring="replace_one")
    assert public.n_test == len(test) and public.n_public
    assert repr(public).startswith(f"Curator(n_test={len(test)} (replace-one: n public), ")
    with pytest.raises(ValueError, match=rf"shape \(3,\).*expected \({len(test)},\)"):
        public.evaluate(lambda X: np.zeros(3), 1.0)
    true_cm = P.confusion_matrix(test[TARGET].to_numpy(), model.predict(test.drop(columns=TARGET)))
    rel = curator.evaluate(json.dumps(P.export_model(model)), 1e6, random_state=0)
    np.testing.assert_array_equal(rel.matrix, true_cm)
    rel2 = curator.evaluate(model.predict, 1e6, random_state=0)  # callable inside the curator
    np.testing.assert_array_equal(rel2.matrix, true_cm)
    curator.evaluate(P.export_model(model), 0.3, random_state=1)
    assert len(curator.ledger) == 3
    assert curator.ledger.total_epsilon == pytest.approx(2e6 + 0.3)  # sequential composition
    with pytest.raises(ValueError, match=r"shape \(3,\), which does not match the test set"):
        curator.evaluate(lambda X: np.zeros(3), 1.0)
    with pytest.raises(ValueError, match=r"label\(s\) \[7\]"):
        curator.evaluate(lambda X: np.full(len(X), 7), 1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        curator.evaluate(model.predict, 0.0)


def test_curator_bad_test_sets(pima):
    with pytest.raises(ValueError, match="'label' is not in test"):
        P.Curator(pima, "label")
    three = pima.assign(Outcome=pima["Outcome"] + (pima["Age"] > 50))
    with pytest.raises(ValueError, match="exactly 2 classes.*got 3"):
        P.Curator(three, TARGET)
    with pytest.raises(ValueError, match="exactly 2 classes.*got 1"):
        P.Curator(pima[pima[TARGET] == 0], TARGET)
    shifted = pima.assign(Outcome=pima["Outcome"] + 1)  # labels {1, 2}: which is positive?
    with pytest.raises(ValueError, match=r"positive="):
        P.Curator(shifted, TARGET)
    assert P.Curator(shifted, TARGET, positive=2).positive == 2
    with pytest.raises(ValueError, match="positive=5"):
        P.Curator(shifted, TARGET, positive=5)
