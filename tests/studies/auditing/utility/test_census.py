"""Tests of ``synthtrust.studies.auditing.utility.census``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from synthtrust.domain import dataset_domain
from synthtrust.studies.auditing.utility import experiment as U


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
def test_census_split_sizes_and_reference_split():
    s = U.census_split()
    assert (len(s.full), len(s.train), len(s.test)) == (10_000, 9_000, 1_000)
    dom = dataset_domain("census2011")
    assert list(s.full.columns) == dom.columns and "Person ID" not in s.full.columns
    for c, k in dom.sizes.items():
        assert s.full[c].between(0, k - 1).all()
    # the reference's split_data: train_test_split(test_size=0.1, random_state=1)
    idx_train, idx_test = train_test_split(np.arange(10_000), test_size=0.1, random_state=1)
    pd.testing.assert_frame_equal(s.train, s.full.iloc[idx_train].reset_index(drop=True))
    pd.testing.assert_frame_equal(s.test, s.full.iloc[idx_test].reset_index(drop=True))
    small = U.census_split(n_rows=2000)
    assert (len(small.train), len(small.test)) == (1800, 200)
    with pytest.raises(ValueError, match="dataset"):
        U.census_split("adult")
