"""The two neighbouring datasets of the distinguishing game and their canary record.

A DP claim is a statement about *every* pair of neighbouring datasets, so the auditor may choose
the pair that is easiest to tell apart: a small table whose records all sit in one cell, and a
canary that disagrees with them on every column, so every marginal cell that contains the canary
is empty without it (Annamalai, Ganev & De Cristofaro 2024 [``annamalai2024``], ``prep_exp``;
Ganev, Annamalai & Kulynych 2026 [``ganev2026``] use 10 × (0, 0, 0) and the target (1, 1, 1)).

The neighbouring relation is the one of the claim, never guessed:

- ``"add_remove"``: D = B and D′ = B ∪ {c};
- ``"replace_one"``: D = B ∪ {r} and D′ = B ∪ {c} (``|D| = |D′|``; r = x₀, the base record).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_choice, check_int_at_least, check_positive_int

__all__ = ["NEIGHBOURING", "Worlds", "worst_case"]

#: The neighbouring relations a claim can be made under.
NEIGHBOURING = ("add_remove", "replace_one")


@dataclass(frozen=True)
class Worlds:
    """The datasets of the game: D (``without``, world 0) and D′ (``with_canary``, world 1).

    Attributes
    ----------
    without, with_canary : DataFrame
        Integer-coded tables on ``domain``; they differ by the canary (and, under replace-one,
        by the record ``removed`` it replaces).
    canary : dict {column: code}
        The canary record c.
    removed : dict {column: code} or None
        The record r of D that D′ replaces by c (replace-one), None under add/remove.
    domain : dict {column: levels}
        The public domain both worlds are declared on.
    neighbouring : {"add_remove", "replace_one"}
    """

    without: pd.DataFrame
    with_canary: pd.DataFrame
    canary: dict
    removed: dict | None
    domain: dict
    neighbouring: str

    @property
    def columns(self) -> list[str]:
        return list(self.domain)

    @functools.cached_property
    def base_codes(self) -> np.ndarray:
        """D's records as an int64 array (rows, columns of ``domain``), computed once."""
        return self.without[self.columns].to_numpy(np.int64)


def worst_case(
    neighbouring: str, *, n_columns: int = 3, n_levels: int = 2, n_base: int = 10
) -> Worlds:
    """The tiny worst-case pair W0: ``n_base`` copies of x₀ = (0, …, 0) and the canary
    c = (k − 1, …, k − 1) on ``n_columns`` columns ``c0, c1, …`` of ``n_levels`` levels each.

    Parameters
    ----------
    neighbouring : {"add_remove", "replace_one"}
        The relation of the audited claim.
    n_columns : int >= 1
    n_levels : int >= 2
    n_base : int >= 1
        Records of the base table B.

    Returns
    -------
    Worlds
        D has ``n_base`` (add/remove) or ``n_base + 1`` (replace-one) records, all x₀; D′ adds c
        to B.

    Raises
    ------
    ValueError
        ``neighbouring`` not one of :data:`NEIGHBOURING`; a size out of range.

    References
    ----------
    ``annamalai2024`` (``utils/exp.py``); ``ganev2026``, §4.

    Examples
    --------
    >>> w = worst_case("replace_one")
    >>> len(w.without), len(w.with_canary), w.canary
    (11, 11, {'c0': 1, 'c1': 1, 'c2': 1})
    """
    neighbouring = check_choice(neighbouring, "neighbouring", NEIGHBOURING)
    n_columns = check_positive_int(n_columns, "n_columns")
    n_levels = check_int_at_least(n_levels, "n_levels", 2)
    n_base = check_positive_int(n_base, "n_base")
    domain = {f"c{j}": n_levels for j in range(n_columns)}
    base = dict.fromkeys(domain, 0)
    canary = dict.fromkeys(domain, n_levels - 1)
    removed = dict(base) if neighbouring == "replace_one" else None
    records = [base] * n_base
    without = pd.DataFrame(records + ([removed] if removed else []), columns=list(domain))
    with_canary = pd.DataFrame(records + [canary], columns=list(domain))
    return Worlds(without, with_canary, canary, removed, domain, neighbouring)
