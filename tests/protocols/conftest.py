"""Fixtures shared by the test files of this folder and its sub-folders.

The oracles and the shared set-up are described in ``_protocol_data.py``.
"""

from __future__ import annotations

import pandas as pd
import pytest

from synthtrust import datasets
from synthtrust import protocols as P


# --------------------------------------------------------------------------------------------
# fixtures and stubs
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pima() -> pd.DataFrame:
    return datasets.load("pima_diabetes")


@pytest.fixture(scope="module")
def pima_split(pima):
    return P.split_train_test(pima, 0.2, random_state=0)
