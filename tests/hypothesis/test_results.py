"""Tests of ``synthtrust.hypothesis.results``, the result records of the two-sample tests:
each unpacks as ``statistic, pvalue`` like SciPy's result tuples (exactly two values, whatever
else it records), is frozen, compares by identity (``eq=False``, so results holding arrays
never compare element-wise) and gives its fields as JSON values; ``as_scalar`` turns 0-d
arrays into NumPy scalars (SciPy's type for 1-D input) and leaves arrays alone. The protocol
shared by every result of the package is tested in tests/test_result.py.

The oracles and the shared set-up are described in ``_hypothesis_data.py``.
"""

import dataclasses
import json

import numpy as np
import pytest

from synthtrust.hypothesis.results import (
    Chi2Result,
    DPMannWhitneyUResult,
    MannWhitneyUResult,
    MedianTestResult,
    TTestResult,
    as_scalar,
)

TABLE = np.array([[0, 4], [4, 0]])
RESULTS = {
    "mwu": MannWhitneyUResult(np.float64(3.0), np.float64(0.2), np.True_),
    "t": TTestResult(np.array([1.5, -2.0]), np.array([0.2, 0.06]), np.array([8.0, 8.0])),
    "median": MedianTestResult(np.float64(4.5), np.float64(0.034), np.float64(4.5), TABLE),
    "chi2": Chi2Result(np.float64(4.5), np.float64(0.034), 1, np.full((2, 2), 2.0)),
    "dp": DPMannWhitneyUResult(
        statistic=np.float64(41.3),
        pvalue=np.float64(0.01),
        reject=np.True_,
        m_noisy=np.float64(9.6),
        m_lower=np.float64(6.2),
        m_hat=np.int64(10),
        n=np.int64(30),
        epsilon_size=0.1,
        epsilon_u=0.9,
        delta=1e-6,
        alpha=0.05,
        n_sim=1000,
    ),
}


@pytest.mark.parametrize("name", RESULTS)
def test_results_unpack_as_statistic_and_pvalue(name):
    result = RESULTS[name]
    stat, p = result
    assert stat is result.statistic and p is result.pvalue
    assert len(list(result)) == 2  # the other fields stay attributes
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.pvalue = 1.0


@pytest.mark.parametrize("name", RESULTS)
def test_results_compare_by_identity_and_give_json_values(name):
    result = RESULTS[name]
    twin = dataclasses.replace(result)
    assert result == result and (result == twin) is False  # no element-wise array comparison
    data = result.to_dict()
    assert list(data) == [f.name for f in dataclasses.fields(result)]
    assert json.loads(result.to_json()) == data


def test_json_values_by_hand():
    assert RESULTS["median"].to_dict() == {
        "statistic": 4.5,
        "pvalue": 0.034,
        "median": 4.5,
        "table": [[0, 4], [4, 0]],
    }
    assert RESULTS["mwu"].to_dict() == {"statistic": 3.0, "pvalue": 0.2, "exact": True}
    assert RESULTS["t"].to_dict()["statistic"] == [1.5, -2.0]
    assert RESULTS["dp"].to_dict()["m_hat"] == 10 and RESULTS["dp"].to_dict()["n_sim"] == 1000


def test_as_scalar_turns_0d_arrays_into_numpy_scalars():
    out = as_scalar(np.array(2.5))
    assert type(out) is np.float64 and out == 2.5
    assert type(as_scalar(np.array(True))) is np.bool_
    assert type(as_scalar(3)) is np.int64  # a Python scalar: as NumPy gives it
    arr = np.array([1.0, 2.0])
    assert as_scalar(arr) is arr  # arrays are returned as they are
    out = as_scalar([[1, 2]])
    assert isinstance(out, np.ndarray) and out.shape == (1, 2)
    assert isinstance(as_scalar(np.zeros((0,))), np.ndarray)
