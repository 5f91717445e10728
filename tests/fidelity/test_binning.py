"""Tests of ``synthtrust.fidelity.binning``.

The oracles and the shared set-up are described in ``_fidelity_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust import fidelity as F


# ================================================================================ discretize
def test_discretize_labels_other_and_missing():
    train = pd.DataFrame({"n": [1.0, 2.0, 3.0, 4.0, np.nan], "c": ["a", "a", "b", "c", None]})
    other = pd.DataFrame({"c": ["a", "z", None], "n": [0.5, 4.0, 9.0]})  # other column order
    bt, bo = F.discretize(train, [other], bins=2)
    assert list(bo.columns) == ["n", "c"] and list(bo.index) == [0, 1, 2]
    assert list(bt["n"].cat.categories) == ["[1, 2.5]", "(2.5, 4]", F.OTHER, F.MISSING]
    assert list(bt["n"]) == ["[1, 2.5]", "[1, 2.5]", "(2.5, 4]", "(2.5, 4]", F.MISSING]
    assert list(bo["n"]) == [F.OTHER, "(2.5, 4]", F.OTHER]
    # top-2 categories: a (2), then b and c tie at 1 -> "b" by str order
    assert list(bt["c"].cat.categories) == ["a", "b", F.OTHER, F.MISSING]
    assert list(bt["c"]) == ["a", "a", "b", F.OTHER, F.MISSING]
    assert list(bo["c"]) == ["a", F.OTHER, F.MISSING]


def test_discretize_tie_order_does_not_depend_on_row_order():
    train = pd.DataFrame({"c": list("zyxxyz") + ["w"]})
    a = F.discretize(train, [], bins=2)[0]
    b = F.discretize(train.iloc[::-1], [], bins=2)[0]
    assert (
        list(a["c"].cat.categories) == list(b["c"].cat.categories) == ["x", "y", F.OTHER, F.MISSING]
    )


def test_discretize_token_collision():
    train = pd.DataFrame({"c": ["_other_", "_other_", "a", "b"]})
    (bt,) = F.discretize(train, [], bins=2)
    cats = list(bt["c"].cat.categories)
    assert cats[0] == "_other_" and cats[2] != "_other_" and len(set(cats)) == 4
    assert list(bt["c"]) == ["_other_", "_other_", "a", cats[2]]
