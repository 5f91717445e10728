"""Tests of ``synthtrust.studies.auditing.power``.

The oracles and the shared set-up are described in ``tests/audit/test_audit_power.py``.
"""

import numpy as np
import pandas as pd
import pytest

from synthtrust.studies.auditing import audits as au


def test_power_grid_cell_and_curve():
    cells = au.power_grid(leaks=[0, 0.05], ks=[3, 10], copies=20)
    assert [(c["leak"], c["k"]) for c in cells] == [(0.0, 3), (0.0, 10), (0.05, 3), (0.05, 10)]
    assert cells[0] == {
        "app": 1,
        "generator": "ipf",
        "leak": 0.0,
        "k": 3,
        "copies": 20,
        "alpha": 0.01,
    }
    rows = au.power_cell(cells[3], [np.random.default_rng(1), np.random.default_rng(2)])
    assert list(rows.columns) == ["t", "p", "log10_p", "rejected", "seconds"] and len(rows) == 2
    results = pd.DataFrame(
        {
            "leak": [0.0, 0.0, 0.0, 0.05],
            "k": [3, 3, 3, 3],
            "rejected": [False, True, False, True],
            "t": [0.1, 5.0, -1.0, 9.0],
        }
    )
    curve = au.power_curve(results)
    assert curve[["leak", "k", "audits"]].values.tolist() == [[0.0, 3, 3], [0.05, 3, 1]]
    assert curve.rate.tolist() == pytest.approx([1 / 3, 1.0])
    assert curve.median_t.tolist() == [0.1, 9.0]
    with pytest.raises(ValueError, match="each leak must be in \\[0, 1\\], got -0.1"):
        au.power_grid(leaks=[-0.1], ks=[3])
    with pytest.raises(ValueError, match="each K in ks must be >= 2, got 1"):
        au.power_grid(leaks=[0.1], ks=[1])
    with pytest.raises(TypeError, match="each K in ks must be an integer, got float 3.5"):
        au.power_grid(leaks=[0.1], ks=[3.5])
    with pytest.raises(ValueError, match="generator must be 'ipf' or 'pgm'"):
        au.power_grid(leaks=[0.1], ks=[3], generator="cart")
    with pytest.raises(ValueError, match="results must have the columns"):
        au.power_curve(pd.DataFrame({"leak": [0.1]}))
