"""synthtrust.run.blocks: a long task's blocks, run in order here and as tasks of their own on a Dask
cluster (tests/repo/test_cluster.py); and the TreeSHAP importance computed in row blocks."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthtrust import importance
from synthtrust.importance import scores
from synthtrust.run.blocks import in_dask_task, map_blocks


def test_outside_a_dask_task_the_blocks_run_here_in_order():
    calls = []

    def record(shared, block):
        calls.append(block)
        return shared * block

    assert not in_dask_task()
    assert map_blocks(record, 10, iter([3, 1, 2])) == [30, 10, 20]
    assert calls == [3, 1, 2]
    assert map_blocks(record, 10, []) == []


@pytest.fixture(scope="module")
def forest():
    pytest.importorskip("shap")
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    X, y = make_classification(
        n_samples=240, n_features=6, n_informative=4, n_classes=3, random_state=1
    )
    X = pd.DataFrame(X, columns=[f"f{i}" for i in range(6)])
    return RandomForestClassifier(n_estimators=8, random_state=0).fit(X, y), X


def test_shap_of_row_blocks_are_the_rows_of_the_whole(forest):
    """TreeSHAP explains each row on its own: blocks of rows, stacked in order, are bit for bit
    the values of one call over all rows, so the blocked importance is the same number."""
    model, X = forest
    whole = scores._abs_shap(model, X)
    assert whole.shape == (240, 6)
    blocks = [X.iloc[i : i + 70] for i in range(0, 240, 70)]  # 70, 70, 70, 30 rows
    parts = map_blocks(scores._abs_shap_block, (model, "mean"), blocks)
    assert [len(p) for p in parts] == [70, 70, 70, 30]
    assert np.array_equal(np.concatenate(parts), whole)
    got = importance.feature_importance(model, X, method="shap", block_rows=70)
    assert np.array_equal(got.to_numpy(), whole.mean(axis=0))


def test_block_rows_is_checked(forest):
    model, X = forest
    with pytest.raises(ValueError, match="block_rows"):
        importance.feature_importance(model, X, method="shap", block_rows=0)
