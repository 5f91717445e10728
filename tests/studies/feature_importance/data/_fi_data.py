"""Helpers shared by the test files of this folder (plain functions and constants).

Data preparation and feature engineering of chapter ``feature_importance`` (Giles et al. 2022,
``giles2022``): the paper's sizes (§4.2, App. A), engineered values against independent pandas
computations, fixed output columns for synthetic-like tables, the artificial sets' mutual
information (§5.1), public domains that round-trip the prepared tables, and bad input.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

REAL = ["adult", "household", "polish"]


@functools.lru_cache(maxsize=3)
def engineered(name: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """A real table and its engineered (X, y), computed once per test session (read only)."""
    from synthtrust.studies.feature_importance.data.engineering import engineer_features
    from synthtrust.studies.feature_importance.data.tables import load_table

    table = load_table(name)
    return (table, *engineer_features(name, table))


def column_shuffle(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Independent column-wise permutation (IndependentMarginals / synthpop 'sample')."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: table[c].to_numpy()[rng.permutation(len(table))] for c in table})
