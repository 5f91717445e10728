"""Tests of ``synthtrust.audit.gram``.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _audit_data import _u

from synthtrust.audit import (
    Bins,
    complement_basis,
    gram,
    span_dimension,
)


# --------------------------------------------------------------------------------------------
# bins, Gram matrices, dimensions
# --------------------------------------------------------------------------------------------
def test_gram_matches_dense_inner_products(small_card):
    sizes = small_card.sizes
    rng = np.random.default_rng(0)
    every = Bins.from_cliques(
        [c for r in range(5) for c in itertools.combinations(range(4), r)], sizes
    )
    pick_a = rng.choice(len(every), 40, replace=False)
    pick_b = rng.choice(len(every), 25, replace=False)
    a = Bins(every.values[pick_a], sizes)
    b = Bins(every.values[pick_b], sizes)
    dense_a, dense_b = a.dense(), b.dense()
    assert dense_a.shape == (40, 48)
    np.testing.assert_allclose(gram(a, b), _u(dense_a, dense_b), atol=1e-15)
    # hand value: ⟨1[a=1, b=0], 1[b=0, c=2]⟩_U = 1/(3·2·4); clash on b gives 0
    x = Bins.from_list([((0, 1), (1, 0))], sizes)
    y = Bins.from_list([((1, 2), (0, 2)), ((1, 2), (1, 2)), ((), ())], sizes)
    np.testing.assert_allclose(gram(x, y), [[1 / 24, 0.0, 1 / 6]])
    with pytest.raises(ValueError, match="different domains"):
        gram(x, Bins.constant((3, 2, 4, 3)))


def test_span_dimension_matches_dense_rank():
    sizes = (3, 2, 4, 2)
    rng = np.random.default_rng(2)
    subsets = [c for r in range(1, 4) for c in itertools.combinations(range(4), r)]
    for _ in range(8):
        cliques = [subsets[i] for i in rng.choice(len(subsets), 3, replace=False)]
        dense = Bins.from_cliques(list(cliques) + [()], sizes).dense()
        assert span_dimension(cliques, sizes) == np.linalg.matrix_rank(dense)


@pytest.mark.parametrize("sizes", [(10, 10, 2), (5, 10, 13, 10, 5, 8, 6), (2, 3, 4, 5)])
def test_span_dimension_two_way_formula(sizes):
    d = len(sizes)
    formula = (
        1
        + sum(n - 1 for n in sizes)
        + sum((sizes[i] - 1) * (sizes[j] - 1) for i, j in itertools.combinations(range(d), 2))
    )
    assert span_dimension(list(itertools.combinations(range(d), 2)), sizes) == formula


def test_full_clique_candidates_dimension_formula(small_card):
    cliques = small_card.clique_indices
    for cand in ([("a", "c")], [("a", "b", "c")], [("a", "c", "d"), ("b", "c")]):
        basis = complement_basis(small_card, cand)
        idx = [tuple(sorted(small_card.column_names.index(c) for c in q)) for q in cand]
        expected = span_dimension(list(cliques) + idx, small_card.sizes) - span_dimension(
            cliques, small_card.sizes
        )
        assert basis.dim == expected
