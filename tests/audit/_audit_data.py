"""Helpers shared by the test files of this folder (plain functions and constants).

Core maths of the audit of Houssiau et al. (2022): card, basis of Φ⊥, extremal datasets.

Oracles: dense M-vectors over every cell (brute force) on small domains, the dimensions the
paper and its code report (Examples 1–3, Applications 1–3), the ANOVA rank formula, and hand
computations.
"""

from __future__ import annotations

APP1 = {"econ": 10, "occ": 10, "sex": 2}
APP2 = {"eth": 6, "cob": 3, "fam": 7, "grade": 5}
APP2_MARGINALS = [("eth", "cob", "fam"), ("eth", "grade"), ("cob", "grade"), ("fam", "grade")]
APP3 = {"marital": 5, "occ": 10, "ind": 13, "region": 10, "hours": 5, "age": 8, "health": 6}
SMALL = {"a": 3, "b": 2, "c": 4, "d": 2}


def _u(f, h):
    """⟨f, h⟩_U for rows of dense M-vectors."""
    return f @ h.T / f.shape[-1]
