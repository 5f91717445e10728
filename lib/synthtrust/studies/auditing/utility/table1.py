"""Chapter 5, utility part — Table 1 (Application 1): the 3-way table and the gender gap.

Houssiau et al. (2022) [``houssiau2022``], §4.3 and Table 1: the normalised 3-way table
Economic Activity × Occupation × Sex and the gender gap by occupation among the economically
active, each compared with the real data by its RMSE (:func:`app1_metrics`), beside the
paper's numbers (:func:`table1`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthtrust._validation import check_frame
from synthtrust.studies.auditing.applications import application
from synthtrust.studies.auditing.utility.census import census_codes, census_sizes
from synthtrust.studies.auditing.utility.summary import paper_vs_run

__all__ = [
    "APP1_COLUMNS",
    "PAPER_TABLE1",
    "app1_metrics",
    "gender_gap",
    "rmse",
    "table1",
    "three_way_table",
]

#: Application 1: (Economic Activity, Occupation, Sex), the reference's order.
APP1_COLUMNS: tuple = tuple(application(1).columns)

#: ONS Economic Activity codes of the economically active in work (1 employee, 2 self-employed)
_ACTIVE = (1, 2)
#: ONS Sex codes (1 male, 2 female)
_MALE, _FEMALE = 1, 2

#: Table 1 (App. 1): generator -> (RMSE of the 3-way table, RMSE of the gender gap).
PAPER_TABLE1: dict[str, tuple] = {
    "ipf": (5.39e-4, 4.77e-2),
    "pgm": (5.35e-4, 4.94e-2),
    "mst": (1.04e-3, 8.68e-2),
    "pategan": (1.29e-2, 0.570),
    "privbayes": (8.97e-3, 0.284),
    "ctgan": (3.62e-3, 0.170),
    "cart": (9.60e-5, 4.61e-3),
}


def three_way_table(codes: pd.DataFrame) -> np.ndarray:
    """Normalised 3-way table of Application 1: shares of the records in each cell of Economic
    Activity × Occupation × Sex, shape (10, 10, 2) (census codes; sums to 1).

    Parameters
    ----------
    codes : pandas.DataFrame
        Census codes (:func:`census_split`) with at least the three columns.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, a missing column, no rows, codes outside the domain.
    """
    check_frame(codes, "codes", APP1_COLUMNS)
    sizes = census_sizes()
    shape = tuple(sizes[c] for c in APP1_COLUMNS)
    idx = [codes[c].to_numpy(dtype=np.int64) for c in APP1_COLUMNS]
    for c, v, k in zip(APP1_COLUMNS, idx, shape, strict=True):
        if v.min() < 0 or v.max() >= k:
            raise ValueError(f"column {c!r} has codes outside 0..{k - 1}")
    counts = np.bincount(np.ravel_multi_index(idx, shape), minlength=math.prod(shape))
    return counts.reshape(shape) / len(codes)


def gender_gap(codes: pd.DataFrame) -> np.ndarray:
    """Gender gap by occupation (Application 1): for each of the 10 Occupation codes, the share
    of men minus the share of women among the records with Economic Activity 1 or 2 (ONS codes:
    employee, self-employed) in that occupation; 0 for an empty group (as the reference).

    Returns
    -------
    ndarray, shape (10,)
        Indexed by Occupation code (code 0 = ONS −9).

    Raises
    ------
    TypeError, ValueError
        As :func:`three_way_table`.
    """
    table = three_way_table(codes)  # checks
    ea, sex = census_codes()["Economic Activity"], census_codes()["Sex"]
    active = table[[ea[v] for v in _ACTIVE]].sum(axis=0)  # (occupation, sex)
    total = active.sum(axis=1)
    diff = active[:, sex[_MALE]] - active[:, sex[_FEMALE]]
    return np.divide(diff, total, out=np.zeros_like(diff), where=total > 0)


def rmse(a, b) -> float:
    """Root mean squared difference of two arrays of the same shape (flattened)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"rmse needs arrays of the same shape, got {a.shape} and {b.shape}")
    return float(np.sqrt(np.mean((a.ravel() - b.ravel()) ** 2)))


def app1_metrics(synthetic: pd.DataFrame, real: pd.DataFrame) -> dict:
    """Table 1's two numbers for one synthetic dataset: ``rmse_3way`` (RMSE over the 200 cells
    of the normalised 3-way table) and ``rmse_gender_gap`` (RMSE over the 10 occupations of the
    gender gap), synthetic against real (census codes)."""
    return {
        "rmse_3way": rmse(three_way_table(synthetic), three_way_table(real)),
        "rmse_gender_gap": rmse(gender_gap(synthetic), gender_gap(real)),
    }


def table1(results: pd.DataFrame, *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 1 (Application 1) beside this run: rows = generators (labels; ``real`` = the train
    split against the full sample, which the paper does not show), columns ("3-way marginal
    RMSE" | "Gender gap RMSE", "paper" | "this run"), means over the runs. ``paper_rows``: also
    list the paper's generators that were not run, with NaN for this run."""
    return paper_vs_run(
        results,
        PAPER_TABLE1,
        [("3-way marginal RMSE", "app1_rmse_3way"), ("Gender gap RMSE", "app1_rmse_gender_gap")],
        paper_rows,
    )
