"""Tests of ``synthtrust.studies.auditing.utility.models``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import pandas as pd
import pytest

from synthtrust.studies.auditing.utility.models import fit_classifier


def test_a_single_class_training_split_gives_a_constant_model():
    # a synthetic training split can hold one class only: the model predicts it everywhere
    X = pd.DataFrame({"a": [0, 1, 2, 1], "b": [1, 1, 0, 0]})
    y = pd.Series([3, 3, 3, 3])
    model = fit_classifier(lambda: pytest.fail("no model is trained on one class"), X, y)
    assert model.predict(pd.DataFrame({"a": [5, 0], "b": [0, 9]})).tolist() == [3, 3]
