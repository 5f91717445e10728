"""Tests of ``synthtrust.studies.feature_importance.data.artificial``.

The oracles and the shared set-up are described in ``_fi_data.py``.
"""

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

from synthtrust.studies.feature_importance import data as fid


# ----------------------------------------------------------------------- artificial data
def _mi(k: int) -> dict:
    d = fid.make_artificial(k)
    return {c: mutual_info_score(d["label"], d[c]) for c in d.columns if c != "label"}


def test_artificial_shapes_and_engineering():
    widths = {1: 5, 2: 5, 3: 15, 4: 15, 5: 3}
    for k, w in widths.items():
        d = fid.make_artificial(k)
        assert d.shape == (10_000, w + 1) and d.columns[-1] == "label"
        assert abs(d["label"].mean() - 0.5) < 0.01
        if k != 4:
            assert all(d[c].dtype == np.int64 and d[c].between(0, 4).all() for c in d)
        X, y = fid.engineer_features(f"artificial_{k}", d)
        assert X.equals(d.drop(columns="label")) and y.equals(d["label"])
    assert list(fid.make_artificial(5).columns) == ["X0", "X9", "X10", "label"]
    assert (fid.make_artificial(4).dtypes.iloc[:-1] == np.float64).all()


def test_artificial_1_has_two_high_mi_features():
    mi = _mi(1)  # §5.1: two features with high importance
    assert mi["X0"] == pytest.approx(0.17, abs=0.01)
    assert mi["X1"] == pytest.approx(0.14, abs=0.01)
    assert max(mi[c] for c in ("X2", "X3", "X4")) <= 0.02


def test_artificial_2_columns_are_copies_of_one_feature():
    d = fid.make_artificial(2)
    for c in ("X1", "X2", "X3", "X4"):
        same = (d[c] == d["X0"]).all()
        mirrored = (d[c] == 4 - d["X0"]).all()
        assert same or mirrored, c
    mi = _mi(2)
    assert max(mi.values()) - min(mi.values()) < 1e-12


def test_artificial_5_mi_is_strictly_ordered():
    mi = _mi(5)
    assert mi["X0"] == pytest.approx(0.169, abs=0.001)
    assert mi["X9"] == pytest.approx(0.099, abs=0.001)
    assert mi["X10"] == pytest.approx(0.0002, abs=0.0002)
    assert mi["X0"] > mi["X9"] > mi["X10"]
