"""Tests of ``synthtrust.synthesizers.marginal.counts``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _marginal_data import DOMAIN

from synthtrust.synthesizers import marginal as mg


# --------------------------------------------------------------------------------------------
# shared machinery
# --------------------------------------------------------------------------------------------
def test_marginal_counts_equal_pandas_crosstab(data):
    got = mg.marginal_counts(data, DOMAIN, ["b", "a"])
    ct = pd.crosstab(data["b"], data["a"]).reindex(index=range(4), columns=range(3), fill_value=0)
    np.testing.assert_array_equal(got, ct.to_numpy())
    got3 = mg.marginal_counts(data, DOMAIN, ["a", "c", "e"])
    brute = np.zeros((3, 2, 3))
    for a, c, e in data[["a", "c", "e"]].itertuples(index=False):
        brute[a, c, e] += 1
    np.testing.assert_array_equal(got3, brute)
    with pytest.raises(ValueError, match="distinct"):
        mg.marginal_counts(data, DOMAIN, ["a", "a"])
