"""Tests of ``synthtrust.synthesizers.tabular``.

The oracles and the shared set-up are described in ``_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _marginal_data import DOMAIN

from synthtrust.synthesizers.aim import AIM
from synthtrust.synthesizers.base import NotFittedError
from synthtrust.synthesizers.mst import MST
from synthtrust.synthesizers.mwem_pgm import MWEMPGM


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [MST, MWEMPGM, AIM])
def test_bad_parameters_and_inputs(cls, data):
    with pytest.raises(ValueError, match="epsilon"):
        cls(0.0).fit(data)
    with pytest.raises(ValueError, match="epsilon"):
        cls(-1.0).fit(data)
    with pytest.raises(ValueError, match="delta"):
        cls(1.0, 0.0).fit(data)
    with pytest.raises(ValueError, match="delta"):
        cls(1.0, 1.0).fit(data)
    with pytest.raises(NotFittedError):
        cls(domain=DOMAIN).sample(5)
    bad = data.copy()
    bad.loc[0, "b"] = 4
    with pytest.raises(ValueError, match="'b'"):
        cls(domain=DOMAIN).fit(bad)
    nan = data.astype(float)
    nan.loc[1, "a"] = np.nan
    with pytest.raises(ValueError, match="'a'"):
        cls(domain=DOMAIN).fit(nan)


def test_bad_synthesizer_specific_parameters(data):
    with pytest.raises(ValueError, match="max_iter"):
        MST(max_iter=0).fit(data)
    with pytest.raises(TypeError, match="max_iter"):
        MST(max_iter=2.5).fit(data)
    with pytest.raises(ValueError, match="max_model_size"):
        AIM(max_model_size=0).fit(data)
    with pytest.raises(TypeError, match="max_model_size"):
        MWEMPGM(max_model_size="big").fit(data)
    with pytest.raises(ValueError, match="rounds"):
        MWEMPGM(rounds=0).fit(data)
    with pytest.raises(TypeError, match="workload"):
        AIM(workload="ab").fit(data)
    with pytest.raises(TypeError, match="workload"):
        MWEMPGM(workload=["a"]).fit(data)
    with pytest.raises(ValueError, match="max_cells"):
        AIM(max_cells=0).fit(data)
