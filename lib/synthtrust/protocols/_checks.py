"""Validation shared by the protocols: DataFrames, the target column and its two classes
(the positive class F1 is computed for).

Spec: Movahedi et al. (2024) [``movahedi2024``], §IV.C; the choices (positive class, binary
targets) are the design decisions listed in :mod:`synthtrust.protocols`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._result import python_scalar


def check_target(data: pd.DataFrame, target, name: str) -> None:
    """Check that ``data`` has the target column, at least one feature and no missing target.

    Raises
    ------
    ValueError
        ``target`` is not a column of ``data``, it is the only column, or it has missing
        values; the message names the table as ``name``.
    """
    if target not in data.columns:
        raise ValueError(
            f"target column {target!r} is not in {name}; its columns are {list(data.columns)}"
        )
    if data.shape[1] < 2:
        raise ValueError(f"{name} has no feature column besides the target {target!r}")
    if data[target].isna().any():
        raise ValueError(f"target column {target!r} of {name} has missing values")


def labels_of(y: pd.Series) -> list:
    """The distinct labels of a target as plain Python scalars, sorted by ``repr``."""
    return sorted((python_scalar(v) for v in pd.unique(y)), key=repr)


def default_positive(labels: Sequence, name: str):
    """The positive class F1 is computed for when none is given: True or 1.

    ``True`` when every label is a bool; ``1`` when the labels are among 0 and 1 and none is a
    string.

    Raises
    ------
    ValueError
        Any other labels: the caller must pass ``positive=``.
    """
    labels_set = set(labels)
    if all(isinstance(v, (bool, np.bool_)) for v in labels):
        return True
    if labels_set <= {0, 1} and not any(isinstance(v, str) for v in labels):
        return 1
    raise ValueError(
        f"cannot tell the positive class of {name} with labels {sorted(labels, key=repr)}; "
        "pass positive= (the label F1 treats as positive)"
    )


def resolve_classes(y: pd.Series, positive, name: str, *, exact_two: bool) -> tuple:
    """Validate a binary target and return ``(positive, labels)``.

    ``exact_two``: the real data must have exactly 2 classes; synthetic data may have 1 (tiny ε).
    """
    labels = labels_of(y)
    if len(labels) > 2 or (exact_two and len(labels) != 2):
        raise ValueError(
            f"the target of {name} must have exactly 2 classes (binary classification), "
            f"got {len(labels)}: {labels[:10]}"
        )
    if positive is None:
        positive = default_positive(labels, name)
    elif exact_two and positive not in labels:
        raise ValueError(
            f"positive={positive!r} is not one of the target labels {labels} of {name}"
        )
    return python_scalar(positive), labels


def check_labels_subset(y: pd.Series, allowed: Sequence, name: str) -> None:
    """Check that every label of ``y`` is one of the real data's labels ``allowed``.

    Raises
    ------
    ValueError
        ``y`` has labels not in ``allowed``, listed in the message with the table ``name``.
    """
    extra = [v for v in labels_of(y) if v not in allowed]
    if extra:
        raise ValueError(
            f"the target of {name} has label(s) {extra} that the real data does not have "
            f"(real labels: {list(allowed)})"
        )
