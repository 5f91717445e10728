"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.protocols (Movahedi et al. 2024): classifiers, metrics against
scikit-learn, the DP confusion matrix against Laplace theory, the curator's trust boundary, the
protocol error (eq. 2–3) and one repetition of the experiment end to end on Pima diabetes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TARGET = "Outcome"


def mixed_frame(n=300, seed=0) -> pd.DataFrame:
    """Mixed-type table: numeric with NaN, a string column with NaN, a boolean, an int-coded
    nominal column, and a string binary target."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x1[rng.random(n) < 0.1] = np.nan
    colour = rng.choice(["red", "green", "blue"], size=n).astype(object)
    colour[rng.random(n) < 0.1] = None
    flag = rng.random(n) < 0.4
    code = rng.integers(0, 4, size=n)
    logit = np.nan_to_num(x1) + (colour == "red") - 0.5 * code + flag
    y = np.where(logit + rng.logistic(size=n) > 0, "sick", "healthy")
    return pd.DataFrame(
        {
            "x1": x1,
            "colour": pd.array(colour, dtype="str"),
            "flag": flag,
            "code": code,
            "y": y,
        }
    )
