"""Tests of ``synthtrust.synthesizers.marginal.workload``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import pytest

from synthtrust.synthesizers import marginal as mg


def test_check_workload_errors():
    cols = ["x", "y", "z"]
    assert mg.check_workload(None, cols) == [((0, 1), 1.0), ((0, 2), 1.0), ((1, 2), 1.0)]
    assert mg.check_workload([("z", "x"), (("y",), 2.5)], cols) == [((0, 2), 1.0), ((1,), 2.5)]
    with pytest.raises(ValueError, match="'w'"):
        mg.check_workload([("x", "w")], cols)
    with pytest.raises(ValueError, match="empty"):
        mg.check_workload([], cols)
    with pytest.raises(ValueError, match="repeats"):
        mg.check_workload([("x", "x")], cols)
    with pytest.raises(ValueError, match="weight"):
        mg.check_workload([(("x",), -1.0)], cols)
    with pytest.raises(TypeError, match="workload"):
        mg.check_workload("xy", cols)
