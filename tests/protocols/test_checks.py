"""Tests of ``synthtrust.protocols._checks``, the validation the protocols share: the target
column (present, not the only column, no missing values), the labels of a target as sorted
Python scalars, the default positive class of a binary target (True for booleans, 1 for 0/1
labels, else the caller must say), ``resolve_classes`` for the real data (exactly two classes)
and for synthetic data (one class allowed, a positive class it lacks accepted), and the labels
synthetic data may not add; each against hand-written values and messages. How the curator
and the protocols use them is tested in test_curator.py, test_estimates.py and
test_repetition.py.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthtrust.protocols._checks import (
    check_labels_subset,
    check_target,
    default_positive,
    labels_of,
    resolve_classes,
)


def test_check_target():
    data = pd.DataFrame({"x": [1.0, 2.0], "y": [0, 1]})
    assert check_target(data, "y", "train") is None
    with pytest.raises(ValueError) as info:
        check_target(data, "label", "train")
    assert str(info.value) == "target column 'label' is not in train; its columns are ['x', 'y']"
    with pytest.raises(ValueError, match="^test has no feature column besides the target 'y'$"):
        check_target(data[["y"]], "y", "test")
    with pytest.raises(ValueError, match="^target column 'y' of real has missing values$"):
        check_target(data.assign(y=[0, None]), "y", "real")


def test_labels_are_sorted_python_scalars():
    labels = labels_of(pd.Series(np.array([1, 0, 1, 1], dtype=np.int64)))
    assert labels == [0, 1] and all(type(v) is int for v in labels)
    assert labels_of(pd.Series(["yes", "no", "yes"])) == ["no", "yes"]
    assert labels_of(pd.Series([True, False])) == [False, True]
    assert labels_of(pd.Series([10, 9])) == [10, 9]  # by repr: '10' < '9'
    assert labels_of(pd.Series([1, "a"], dtype=object)) == ["a", 1]  # "'a'" < '1'


def test_the_default_positive_class():
    assert default_positive([False, True], "real") is True
    assert default_positive([np.True_], "synthetic") is True
    assert default_positive([0, 1], "real") == 1
    assert default_positive([0], "synthetic") == 1  # a class synthetic data may lack
    assert default_positive([0.0, 1.0], "real") == 1
    for labels in (["0", "1"], ["no", "yes"], [1, 2], [-1, 1]):
        with pytest.raises(ValueError) as info:
            default_positive(labels, "real")
        assert str(info.value).startswith(
            f"cannot tell the positive class of real with labels {sorted(labels, key=repr)}; "
            "pass positive="
        )


def test_resolve_classes_of_real_data_needs_exactly_two():
    y = pd.Series(["yes", "no", "no"])
    assert resolve_classes(y, "yes", "real", exact_two=True) == ("yes", ["no", "yes"])
    assert resolve_classes(pd.Series([1, 0]), None, "real", exact_two=True) == (1, [0, 1])
    positive, _ = resolve_classes(pd.Series([1, 0]), np.int64(0), "real", exact_two=True)
    assert positive == 0 and type(positive) is int
    with pytest.raises(ValueError) as info:
        resolve_classes(pd.Series([0, 1, 2]), None, "real", exact_two=True)
    assert str(info.value) == (
        "the target of real must have exactly 2 classes (binary classification), got 3: [0, 1, 2]"
    )
    with pytest.raises(ValueError, match="exactly 2 classes .*got 1: \\[0\\]"):
        resolve_classes(pd.Series([0, 0]), None, "real", exact_two=True)
    with pytest.raises(ValueError) as info:
        resolve_classes(y, "maybe", "real", exact_two=True)
    assert (
        str(info.value) == "positive='maybe' is not one of the target labels ['no', 'yes'] of real"
    )
    with pytest.raises(ValueError, match="pass positive="):
        resolve_classes(y, None, "real", exact_two=True)


def test_resolve_classes_of_synthetic_data_allows_one_class():
    assert resolve_classes(pd.Series([0, 0]), None, "synthetic", exact_two=False) == (1, [0])
    assert resolve_classes(pd.Series(["no"]), "yes", "synthetic", exact_two=False) == (
        "yes",
        ["no"],
    )
    with pytest.raises(ValueError, match="exactly 2 classes"):
        resolve_classes(pd.Series([0, 1, 2]), None, "synthetic", exact_two=False)


def test_synthetic_labels_must_be_real_labels():
    assert check_labels_subset(pd.Series([0, 0, 1]), [0, 1], "synthetic") is None
    assert check_labels_subset(pd.Series([1]), [0, 1], "synthetic") is None
    with pytest.raises(ValueError) as info:
        check_labels_subset(pd.Series([0, 5, 7, 5]), (0, 1), "train")
    assert str(info.value) == (
        "the target of train has label(s) [5, 7] that the real data does not have "
        "(real labels: [0, 1])"
    )
