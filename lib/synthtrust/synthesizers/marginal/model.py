"""A fitted graphical model (log-linear over cliques of column positions) and the warm start that
re-expresses its log-potentials over new cliques (as mbi's ``CliqueVector.expand`` [``mbi2026``]).

Source: McKenna, Sheldon & Miklau (ICML 2019) [``mckenna2019``] (Private-PGM's model).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from .counts import Clique
from .factors import align_factor


@dataclasses.dataclass(frozen=True, eq=False)
class FittedModel:
    """A fitted graphical model (log-linear over ``cliques``).

    Attributes
    ----------
    sizes : tuple of int
    cliques : tuple of cliques carrying potentials
    log_potentials : dict clique -> ndarray of shape ``tuple(sizes[a] for a in clique)``
    total : float
        The model's number of records N (the marginals sum to N).
    """

    sizes: tuple
    cliques: tuple
    log_potentials: dict
    total: float


def _cells(sizes, clique) -> int:
    return int(np.prod([sizes[a] for a in clique], dtype=np.int64))


def expand_potentials(model: FittedModel | None, cliques: Sequence[Clique]) -> dict:
    """Warm start: re-express the log-potentials of ``model`` over ``cliques`` (each old clique
    added to the smallest new clique containing it, as mbi's ``CliqueVector.expand``); zeros
    where nothing maps. The distribution is unchanged when ``cliques`` support the old cliques."""
    sizes = None if model is None else model.sizes
    out = {}
    for cl in cliques:
        out[cl] = None
    if model is not None:
        for old, pot in model.log_potentials.items():
            hosts = [cl for cl in cliques if set(old) <= set(cl)]
            if not hosts:
                continue
            host = min(hosts, key=lambda cl: _cells(sizes, cl))
            add = align_factor(np.asarray(pot, dtype=float), old, host)
            out[host] = add if out[host] is None else out[host] + add
    return out
