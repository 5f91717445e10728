"""Gram matrices of bins under the uniform inner product, and the dimension of their span.

Houssiau et al. (2022) [``houssiau2022``], §3.3, with ⟨f, h⟩_U = (1/M) Σ_{x∈𝒳} f(x) h(x):

    ⟨1[x_S = v], 1[x_T = w]⟩_U = [v, w agree on S ∩ T] · Π_{a∈S∪T} 1/n_a  (:func:`gram`),

and, by the ANOVA (Hoeffding) decomposition under the uniform distribution, the bins of the
cliques 𝒮 span ⊕_{U ∈ ↓𝒮} V_U with dim V_U = Π_{a∈U} (n_a − 1) (:func:`span_dimension`).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .bins import Bins
from .cells import check_sizes

__all__ = ["gram", "span_dimension"]


def gram(bins_a: Bins, bins_b: Bins | None = None) -> np.ndarray:
    """Gram matrix ⟨1[x_S = v], 1[x_T = w]⟩_U of two sets of bins, analytically.

    ⟨1[x_S = v], 1[x_T = w]⟩_U = [v and w agree on S ∩ T] · Π_{a∈S∪T} 1/n_a
    (``houssiau2022``, §3.3 with the uniform inner product).

    Parameters
    ----------
    bins_a : Bins, B_a bins
    bins_b : Bins, optional, B_b bins over the same sizes (default ``bins_a``)

    Returns
    -------
    ndarray, shape (B_a, B_b)

    Raises
    ------
    ValueError
        The two sets of bins live on different domains.
    """
    if bins_b is None:
        bins_b = bins_a
    if not isinstance(bins_a, Bins) or not isinstance(bins_b, Bins):
        raise TypeError("bins_a and bins_b must be Bins")
    if bins_a.sizes != bins_b.sizes:
        raise ValueError(f"bins over different domains: sizes {bins_a.sizes} vs {bins_b.sizes}")
    a, b = bins_a.values, bins_b.values
    out = np.ones((a.shape[0], b.shape[0]))
    for j, n in enumerate(bins_a.sizes):
        ua, ub = a[:, j] >= 0, b[:, j] >= 0
        either = ua[:, None] | ub[None, :]
        out *= np.where(either, 1.0 / n, 1.0)
        clash = ua[:, None] & ub[None, :] & (a[:, j][:, None] != b[:, j][None, :])
        out[clash] = 0.0
    return out


def downward_closure_masks(cliques) -> set[frozenset]:
    """Every subset of every clique, the empty set included: the downward closure ↓cliques.

    Returns
    -------
    set of frozenset
        Each subset U as a frozenset of the column indices in it.
    """
    out: set[frozenset] = {frozenset()}
    for clique in cliques:
        s = tuple(clique)
        for r in range(1, len(s) + 1):
            out.update(frozenset(c) for c in itertools.combinations(s, r))
    return out


def span_dimension(cliques, sizes) -> int:
    """Dimension of the span of the constant and all bins of ``cliques``.

    Σ_{U ∈ ↓cliques} Π_{a∈U} (n_a − 1), ↓ the set of all subsets (empty set included): the
    ANOVA decomposition under the uniform distribution. For all 2-way cliques this is
    1 + Σ_j (n_j − 1) + Σ_{i<j} (n_i − 1)(n_j − 1) (``houssiau2022``, App. 1: 119).

    Parameters
    ----------
    cliques : iterable of tuples of column indices
    sizes : sequence of int

    Returns
    -------
    int
    """
    sizes = check_sizes(sizes)
    return sum(math.prod(sizes[a] - 1 for a in u) for u in downward_closure_masks(cliques))
