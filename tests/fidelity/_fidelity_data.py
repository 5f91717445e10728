"""Helpers shared by the test files of this folder (plain functions and constants).

synthtrust.fidelity: k-way TVD and DCR (Platzer & Reutterer 2021) against oracles.

Oracles
-------
* TVD: the reference's ``bin_data``/``fidelity`` written out with plain pandas (``Series.quantile``
  + ``pd.cut(include_lowest=True)`` on the training data, ``value_counts`` top-c), with the
  fixes of synthtrust.fidelity's "Deviations" (explicit missing token, a separator in the cell
  labels, ties by str).
* DCR: the reference's ``priv`` with the faiss search replaced by a dense brute force: pooled
  ``pd.qcut(q=100, duplicates="drop")``, ``pd.get_dummies(dummy_na=True)``, Hamming distance =
  d − (one-hot dot product), the minimum (or, for the holdout scored as synthetic, the second
  smallest) per row.
* The paper's published holdout rows (``privacy_c100.csv`` and ``tradeoff.csv`` of
  mostly-ai/paper-fidelity-accuracy) for the exact splits in ``data/``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


# ------------------------------------------------------------------------------ test tables
def mixed_table(rng: np.random.Generator, n: int, *, outside: bool = False) -> pd.DataFrame:
    """Mixed-type table: integer ties, floats with NaN, a low-cardinality numeric column
    (duplicate quantiles), rare categories with NaN, a boolean, a numeric column of one value.
    With ``outside``: values below/above the usual range and unseen categories."""
    cities = [f"city{i:02d}" for i in range(25)]
    p = 1.0 / np.arange(1, 26) ** 1.3
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "income": np.round(rng.lognormal(3, 0.8, n), 1),
            "few": rng.choice([0, 1, 1, 2, 7], n),
            "color": rng.choice(list("abcdefg"), n, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.05, 0.05]),
            "city": rng.choice(cities, n, p=p / p.sum()),
            "flag": rng.random(n) < 0.3,
            "const": np.full(n, 3.0),
        }
    )
    df.loc[rng.random(n) < 0.1, "income"] = np.nan
    df["color"] = df["color"].astype(object)
    df.loc[rng.random(n) < 0.08, "color"] = np.nan
    if outside:
        k = max(1, n // 20)
        df.loc[df.index[:k], "age"] = 5  # below the training range
        df.loc[df.index[k : 2 * k], "income"] = 1e6  # above
        df.loc[df.index[2 * k : 3 * k], "city"] = "atlantis"  # unseen category
        df.loc[df.index[3 * k : 4 * k], "const"] = 4.0
    return df


def triple(seed: int, n_train=150, n_holdout=130, n_synthetic=170):
    rng = np.random.default_rng(seed)
    return (
        mixed_table(rng, n_train),
        mixed_table(rng, n_holdout),
        mixed_table(rng, n_synthetic, outside=True),
    )


# ------------------------------------------------------------------------------ TVD oracle
def _is_categorical(s: pd.Series) -> bool:
    return not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s)


# ------------------------------------------------------------------------------ DCR oracle
def oracle_distances(train, holdout, synthetic, *, second=False, bins=100):
    d = train.shape[1]
    pool = pd.concat([train, holdout, synthetic], ignore_index=True)
    for col in pool.columns:
        if _is_categorical(pool[col]):
            pool[col] = pd.Categorical(pool[col].astype(object))
        else:
            pool[col] = pd.qcut(pool[col].astype(float), q=bins, duplicates="drop")
    hot = pd.get_dummies(pool, dummy_na=True, dtype=float).to_numpy()
    assert np.allclose(hot.sum(axis=1), d)  # one category per attribute
    n_t, n_h = len(train), len(holdout)
    t, h, s = hot[:n_t], hot[n_t : n_t + n_h], hot[n_t + n_h :]
    dist_t = np.rint(d - s @ t.T).astype(int)
    dist_h = np.rint(d - s @ h.T).astype(int)
    d_t = dist_t.min(axis=1)
    d_h = np.sort(dist_h, axis=1)[:, 1] if second else dist_h.min(axis=1)
    return d_t, d_h
