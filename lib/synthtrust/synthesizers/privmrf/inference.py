"""Marginals of a fitted mbi model by exact variable elimination in numpy (the model marginals of
PrivMRF's noisy L1 queries), without a JAX compilation per query.

Source: Cai et al. (PVLDB 2021) [``cai2021``], §5 (the L1 error queries); equal to mbi's
``model.project`` [``mbi2026``] to 1e-12.
"""

from __future__ import annotations

import math
import string

import numpy as np

_LETTERS = string.ascii_letters  # einsum subscripts (at most 52 attributes)


def _eliminate(factors: list, query: str, size: dict) -> np.ndarray:
    """Σ over the letters not in ``query`` of Π factors (variable elimination, min-size order).

    ``factors`` are (subscripts, non-negative array) pairs; every intermediate is divided by its
    maximum (only the normalised result is used). Returns an array over ``query``'s letters.
    """
    facs = list(factors)
    todo = {c for s, _ in facs for c in s} - set(query)
    while todo:
        scopes = [s for s, _ in facs]
        v = min(
            sorted(todo),
            key=lambda u: math.prod(size[c] for c in set("".join(s for s in scopes if u in s))),
        )
        inv = [f for f in facs if v in f[0]]
        scope = "".join(sorted(set("".join(s for s, _ in inv)) - {v}))
        arr = np.einsum(",".join(s for s, _ in inv) + "->" + scope, *[a for _, a in inv])
        top = arr.max()
        facs = [f for f in facs if v not in f[0]] + [(scope, arr / top if top > 0 else arr)]
        todo.discard(v)
    ops = [a for _, a in facs] + [
        np.ones(size[c]) for c in query
    ]  # ones: query letters with no factor
    return np.einsum(",".join([s for s, _ in facs] + list(query)) + "->" + query, *ops)


def _model_marginals(model, names, queries) -> list[np.ndarray]:
    """Marginals of an mbi model on ``queries`` (tuples of attribute names), each flattened in
    C order over the query's attribute order and scaled to ``model.total``.

    Exact inference in numpy: variable elimination on exp(potential − max) (one pass per query),
    the same values as ``model.project`` without a JAX compilation per query. Falls back to
    ``model.project`` beyond 52 attributes (einsum subscripts) or if the contraction underflows.
    """
    total = float(model.total)
    if len(names) > len(_LETTERS):
        return [np.ravel(np.asarray(model.project(q).datavector(), dtype=float)) for q in queries]
    letter = {a: _LETTERS[i] for i, a in enumerate(names)}
    size = {
        letter[a]: int(k) for a, k in zip(model.domain.attributes, model.domain.shape, strict=True)
    }
    factors = []
    for cl in model.potentials.cliques:
        f = model.potentials[cl]
        v = np.asarray(f.values, dtype=float)
        factors.append(("".join(letter[a] for a in f.domain.attributes), np.exp(v - v.max())))
    out = []
    for q in queries:
        res = _eliminate(factors, "".join(letter[a] for a in q), size)
        z = res.sum()
        if not (np.isfinite(z) and z > 0):
            res = np.asarray(model.project(q).datavector(), dtype=float)
            z = res.sum()
        out.append(np.ravel(res) * (total / z))
    return out
