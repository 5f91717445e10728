"""Candidate bins 𝒞: the undeclared marginal bins that probe Φ⊥.

Houssiau et al. (2022) [``houssiau2022``], §3.3 and footnote 5: the audit searches Φ⊥ along
the span of candidate bins, by default every bin of every (k+1)-subset of the columns of a
k-way card, or a random subset of them when there are too many (App. 3: 1000 of 17 799).
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence

import numpy as np

from .._validation import check_positive_int, check_random_state
from .bins import Bins

__all__ = ["candidate_bins"]


def card_parts(card):
    """A generator card's ``(columns, sizes, clique_indices)``, each as a tuple.

    Raises
    ------
    TypeError
        ``card`` lacks any of those attributes (it is not a GeneratorCard).
    """
    try:
        return tuple(card.columns), tuple(card.sizes), tuple(card.clique_indices)
    except AttributeError:
        raise TypeError(f"card must be a GeneratorCard, got {type(card).__name__}") from None


def candidate_bins(card, kind="next", *, n: int | None = None, random_state=None) -> Bins:
    """Candidate functions 𝒞 that probe Φ⊥ (``houssiau2022``, §3.3 and footnote 5).

    Parameters
    ----------
    card : GeneratorCard
    kind : "next", int or sequence of cliques
        ``"next"``: all bins of every (k+1)-subset of the columns, k the card's largest clique
        size (App. 1: all 3-way bins of a 2-way card); an int k: all bins of every k-subset;
        a sequence of cliques (tuples of column names): all bins of those cliques.
    n : int, optional
        Draw ``n`` of those bins uniformly at random without replacement (App. 3: 1000 of the
        17 799 3-way bins). Default: all of them.
    random_state : None, int or numpy Generator
        Used only with ``n``.

    Returns
    -------
    Bins
        Grouped by clique, cliques in ``itertools.combinations`` order.

    Raises
    ------
    ValueError
        ``kind`` not one of those forms, an order outside 1..d, an unknown column, or ``n``
        larger than the number of bins.
    """
    columns, sizes, cliques = card_parts(card)
    d = len(columns)
    if isinstance(kind, str):
        if kind != "next":
            raise ValueError(
                f"kind must be 'next', an int order or a list of cliques, got {kind!r}"
            )
        order = max((len(c) for c in cliques), default=0) + 1
        if order > d:
            raise ValueError(
                f"kind='next': the card declares a clique over all {d} columns, so span(Φ) is "
                "every function of a record and there is nothing to probe"
            )
        subsets = list(itertools.combinations(range(d), order))
    elif isinstance(kind, numbers.Integral) and not isinstance(kind, bool):
        if not 1 <= kind <= d:
            raise ValueError(f"kind (an order) must be in 1..{d}, got {kind!r}")
        subsets = list(itertools.combinations(range(d), int(kind)))
    elif isinstance(kind, Sequence):
        subsets = []
        for clique in kind:
            if isinstance(clique, str) or not isinstance(clique, Sequence):
                raise TypeError(
                    f"each candidate clique must be a sequence of column names, got {clique!r}"
                )
            unknown = [c for c in clique if c not in columns]
            if unknown:
                raise ValueError(
                    f"candidate clique {tuple(clique)!r} names unknown column(s) "
                    f"{unknown}; the card's columns are {list(columns)}"
                )
            subsets.append(tuple(sorted(columns.index(c) for c in clique)))
    else:
        raise TypeError(
            f"kind must be 'next', an int or a list of cliques, got {type(kind).__name__}"
        )
    if n is None:
        return Bins.from_cliques(subsets, sizes, columns)
    n = check_positive_int(n, "n")
    table = np.array([math.prod(sizes[a] for a in s) for s in subsets], dtype=np.int64)
    total = int(table.sum())
    if n > total:
        raise ValueError(f"n = {n} exceeds the {total} candidate bins of kind {kind!r}")
    rng = check_random_state(random_state)
    picked = np.sort(rng.choice(total, size=n, replace=False))
    offsets = np.concatenate([[0], np.cumsum(table)])
    which = np.searchsorted(offsets, picked, side="right") - 1
    vals = np.full((n, d), -1, dtype=np.int64)
    for c in np.unique(which):
        rows = np.flatnonzero(which == c)
        s = subsets[c]
        local = picked[rows] - offsets[c]
        vals[np.ix_(rows, list(s))] = np.stack(
            np.unravel_index(local, tuple(sizes[a] for a in s)), axis=1
        )
    return Bins(vals, sizes, columns)
