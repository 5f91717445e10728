"""Workloads of the marginal-based synthesizers (AIM, MWEM+PGM): validation of a workload of
cliques of column names (with weights) and the downward closure of a set of cliques.

Source: McKenna et al. (VLDB 2022) [``mckenna2022``] (workloads and their downward closure);
the reference ``mechanisms/aim.py`` of Private-PGM [``privatepgm2025``].
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence

from .counts import Clique


def downward_closure(cliques: Sequence[Clique]) -> list[Clique]:
    """All non-empty subsets of the given cliques, sorted by (size, clique)."""
    out = set()
    for cl in cliques:
        for r in range(1, len(cl) + 1):
            out.update(itertools.combinations(cl, r))
    return sorted(out, key=lambda c: (len(c), c))


def check_workload(
    workload, columns: Sequence, name: str = "workload"
) -> list[tuple[Clique, float]]:
    """Validate a workload and return ``[(clique of positions, weight), ...]``.

    ``workload`` is None (every pair of columns, weight 1; the single column if d = 1) or a
    non-empty list whose items are cliques (tuples/lists of column names) or ``(clique, weight)``
    pairs with a finite weight > 0.

    Raises
    ------
    TypeError
        Not a list/tuple; an item that is not a tuple/list; a non-numeric weight.
    ValueError
        Empty workload or clique, a column not in ``columns``, a repeated column in a clique, a
        weight ≤ 0 or not finite.
    """
    columns = list(columns)
    pos = {c: i for i, c in enumerate(columns)}
    d = len(columns)
    if workload is None:
        if d == 1:
            return [((0,), 1.0)]
        return [(pair, 1.0) for pair in itertools.combinations(range(d), 2)]
    out = []
    for item in _workload_items(workload, name):
        if (
            isinstance(item, (tuple, list))
            and len(item) == 2
            and isinstance(item[0], (tuple, list))
            and not isinstance(item[1], (tuple, list))
        ):
            cl, wt = item
            if isinstance(wt, bool) or not isinstance(wt, numbers.Real):
                raise TypeError(f"{name} weight must be a real number, got {wt!r} in {item!r}")
            wt = float(wt)
            if not (math.isfinite(wt) and wt > 0):
                raise ValueError(f"{name} weight must be finite and > 0, got {wt!r} in {item!r}")
        else:
            cl, wt = item, 1.0
        if not isinstance(cl, (tuple, list)):
            raise TypeError(
                f"each {name} item must be a tuple of column names or (clique, weight), "
                f"got {type(cl).__name__} {cl!r}"
            )
        if len(cl) == 0:
            raise ValueError(f"{name} has an empty clique; each clique needs at least one column")
        unknown = [c for c in cl if c not in pos]
        if unknown:
            raise ValueError(
                f"{name} clique {tuple(cl)!r} has column(s) {unknown} not in the data "
                f"columns {columns}"
            )
        if len(set(cl)) != len(cl):
            raise ValueError(f"{name} clique {tuple(cl)!r} repeats a column")
        out.append((tuple(sorted(pos[c] for c in cl)), wt))
    return out


def _workload_items(workload, name):
    if isinstance(workload, (str, bytes)) or not isinstance(workload, (list, tuple)):
        raise TypeError(
            f"{name} must be None or a list of cliques (tuples of column names), "
            f"got {type(workload).__name__}"
        )
    if len(workload) == 0:
        raise ValueError(f"{name} is empty; give None (all pairs) or at least one clique")
    return workload


def check_workload_param(workload, name: str = "workload") -> None:
    """Constructor-time structural check of a workload (column names are checked at fit)."""
    if workload is None:
        return
    for item in _workload_items(workload, name):
        if not isinstance(item, (tuple, list)):
            raise TypeError(
                f"each {name} item must be a tuple of column names or (clique, weight), "
                f"got {type(item).__name__} {item!r}"
            )
