"""The two neighbouring datasets of the distinguishing game and their canary record.

A DP claim is a statement about *every* pair of neighbouring datasets, so the auditor may choose
the pair that is easiest to tell apart: a small table whose records all sit in one cell, and a
canary that disagrees with them on every column, so every marginal cell that contains the canary
is empty without it (Annamalai, Ganev & De Cristofaro 2024 [``annamalai2024``], ``prep_exp``;
Ganev, Annamalai & Kulynych 2026 [``ganev2026``] use 10 × (0, 0, 0) and the target (1, 1, 1)).

The neighbouring relation is the one of the claim, never guessed:

- ``"add_remove"``: D = B and D′ = B ∪ {c};
- ``"replace_one"``: D = B ∪ {r} and D′ = B ∪ {c} (``|D| = |D′|``; r = x₀, the base record).

:func:`worst_case` builds the tiny pair (W0); :func:`from_data` builds the pair on a user's own
table (W1, W2 when it has 1 000 records or more), with the canary :func:`rare_cell` chooses.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from .._validation import (
    check_choice,
    check_codes,
    check_int_at_least,
    check_positive_int,
    check_random_state,
)

__all__ = ["NEIGHBOURING", "Worlds", "from_data", "rare_cell", "vulnerability", "worst_case"]

#: Random candidate canaries :func:`rare_cell` ranks the greedy one against.
_CANDIDATES = 64

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


def _infer_domain(data: pd.DataFrame, domain) -> dict:
    if domain is not None:
        if not isinstance(domain, dict) or not domain:
            raise TypeError(f"domain must be a non-empty dict {{column: levels}}, got {domain!r}")
        return {c: check_int_at_least(k, f"domain[{c!r}]", 1) for c, k in domain.items()}
    if not isinstance(data, pd.DataFrame) or data.shape[1] == 0:
        raise TypeError("data must be a pandas DataFrame with at least one column")
    domain = {}
    for col in data.columns:
        top = data[col].max() if data[col].dtype.kind in "iuf" else np.nan
        domain[col] = int(top) + 1 if np.isfinite(top) and top >= 0 else 1  # check_codes says why
    return domain


def vulnerability(codes: np.ndarray, candidates: np.ndarray, levels) -> np.ndarray:
    """V(x) = Σ_{|C| ≤ 2} 1 / (1 + count_C(x_C)) of each candidate record x: large when the
    record's 1- and 2-way cells are rare in the table.

    Parameters
    ----------
    codes : int array, shape (rows, columns)
        The table.
    candidates : int array, shape (candidates, columns)
    levels : sequence of int
        Levels of each column.

    Returns
    -------
    ndarray, shape (candidates,)

    References
    ----------
    The vulnerability ranking of ``annamalai2024`` (outlier targets).
    """
    total = np.zeros(len(candidates))
    for subset in (c for k in (1, 2) for c in combinations(range(codes.shape[1]), k)):
        shape = [levels[j] for j in subset]
        cells = np.ravel_multi_index(codes[:, subset].T, shape)
        counts = np.bincount(cells, minlength=int(np.prod(shape)))
        total += 1.0 / (1.0 + counts[np.ravel_multi_index(candidates[:, subset].T, shape)])
    return total


def rare_cell(data: pd.DataFrame, domain: dict | None = None, *, random_state=0) -> dict:
    """The canary for a user's table: a record whose exact cell is empty and whose 1- and 2-way
    cells are as rare as can be found.

    The greedy candidate takes in each column its rarest declared level (unseen levels first,
    ties to the highest code); it is ranked by :func:`vulnerability` against 64 records drawn
    uniformly from the domain, and the most vulnerable record that does not occur in the table
    is the canary.

    Parameters
    ----------
    data : DataFrame
        Integer codes 0..levels − 1 in every column of ``domain``.
    domain : dict {column: levels} or None
        The public domain; None: ``max + 1`` of each column of ``data``. Declare levels the
        table lacks: a canary on an unseen level is the easiest to detect.
    random_state : int, Generator or None
        Draws the random candidates.

    Returns
    -------
    dict {column: code}

    Raises
    ------
    TypeError, ValueError
        A bad table or domain (the column and value named); every candidate occurs in the
        table (a domain too small for an unseen record).

    References
    ----------
    ``annamalai2024`` (vulnerable targets); ``ganev2026`` (a canary outside the data).

    Examples
    --------
    >>> data = pd.DataFrame({"a": [0, 0, 1, 2], "b": [0, 1, 0, 0]})
    >>> rare_cell(data, {"a": 3, "b": 2})
    {'a': 2, 'b': 1}
    """
    domain = _infer_domain(data, domain)
    return _rare_record(check_codes(data, domain, "data"), domain, random_state)


def _rare_record(codes: np.ndarray, domain: dict, random_state) -> dict:
    """:func:`rare_cell` on the table's checked codes (rows, columns of ``domain``)."""
    levels = list(domain.values())
    greedy = [
        int(np.flatnonzero(c == c.min())[-1])
        for c in (np.bincount(codes[:, j], minlength=k) for j, k in enumerate(levels))
    ]
    rng = check_random_state(random_state)
    drawn = np.column_stack([rng.integers(k, size=_CANDIDATES) for k in levels])
    candidates = np.vstack([greedy, drawn])
    seen = set(map(tuple, codes.tolist()))
    unseen = np.array([tuple(c) not in seen for c in candidates.tolist()])
    if not unseen.any():
        raise ValueError(
            "data: every candidate canary occurs in the table; declare a domain with levels "
            "the table lacks"
        )
    score = np.where(unseen, vulnerability(codes, candidates, levels), -np.inf)
    return dict(zip(domain, map(int, candidates[int(np.argmax(score))]), strict=True))


def from_data(
    data: pd.DataFrame, neighbouring: str, *, domain: dict | None = None, random_state=0
) -> Worlds:
    """The pair of datasets on a user's own table (W1; W2 from 1 000 records).

    D is the table itself. Add/remove: D′ = D ∪ {c}. Replace-one: D′ is D with the record r
    that disagrees with c on the most columns (the first such) replaced by c. The canary c is
    :func:`rare_cell`'s.

    Parameters
    ----------
    data : DataFrame
        Integer codes 0..levels − 1 (only the columns of ``domain`` are used).
    neighbouring : {"add_remove", "replace_one"}
    domain : dict {column: levels} or None
        As :func:`rare_cell`.
    random_state : int, Generator or None
        As :func:`rare_cell`.

    Returns
    -------
    Worlds

    Raises
    ------
    TypeError, ValueError
        As :func:`rare_cell`; ``neighbouring`` not one of :data:`NEIGHBOURING`.

    References
    ----------
    ``annamalai2024`` (``utils/exp.py``: records that disagree with the target); ``ganev2026``.

    Examples
    --------
    >>> data = pd.DataFrame({"a": [0, 0, 1, 2], "b": [0, 1, 0, 0]})
    >>> w = from_data(data, "replace_one", domain={"a": 3, "b": 2})
    >>> w.canary, w.removed, len(w.with_canary)
    ({'a': 2, 'b': 1}, {'a': 0, 'b': 0}, 4)
    """
    neighbouring = check_choice(neighbouring, "neighbouring", NEIGHBOURING)
    domain = _infer_domain(data, domain)
    codes = check_codes(data, domain, "data")
    canary = _rare_record(codes, domain, random_state)
    without = pd.DataFrame(codes, columns=list(domain))
    row = pd.DataFrame([canary], columns=list(domain))
    if neighbouring == "add_remove":
        return Worlds(
            without,
            pd.concat([without, row], ignore_index=True),
            canary,
            None,
            domain,
            neighbouring,
        )
    r = int(np.argmax((codes != np.array(list(canary.values()))).sum(axis=1)))
    removed = dict(zip(domain, map(int, codes[r]), strict=True))
    with_canary = pd.concat([without.drop(index=r), row], ignore_index=True)
    return Worlds(without, with_canary, canary, removed, domain, neighbouring)
