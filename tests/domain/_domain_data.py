"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.domain: hand-computed codes, round trips, every error path, determinism,
serialisation, the non-private ``infer`` and the hand-written dataset domains.
"""

from __future__ import annotations

from synthtrust.domain import (
    Categorical,
    Domain,
    Numeric,
    Ordinal,
)


# --------------------------------------------------------------------------------------------
# A small hand-made table and its hand-computed codes
# --------------------------------------------------------------------------------------------
def small_domain() -> Domain:
    return Domain(
        {
            "color": Categorical(["red", "green", "blue"], missing="NA"),
            "flag": Categorical([False, True]),
            "grade": Categorical([1, 2, 3]),
            "count": Ordinal(0, 10),
            "weight": Numeric([0, 10, 20]),
            "height": Numeric((100, 200, 4), missing="NA"),  # edges 100, 125, 150, 175, 200
            "kids": Numeric([0, 1, 3, 10], integer=True),
        }
    )
