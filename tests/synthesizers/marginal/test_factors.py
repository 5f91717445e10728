"""Tests of ``synthtrust.synthesizers.marginal.factors`` (the factor algebra of the numpy
junction tree, after mbi's ``Factor``). The oracles: explicit loops over every cell for aligning
a factor to a larger one, summing columns out and contracting a product of factors;
``scipy.special.logsumexp`` for the log-sum-exp over axes, on values far from 0 where the naive
formula overflows.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.special import logsumexp

from synthtrust.synthesizers.marginal.factors import (
    align_factor,
    contract_factors,
    logsumexp_keep,
    sum_to,
)


def test_align_factor_broadcasts_against_the_target():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(3, 4))  # over columns (2, 0): sizes 3 and 4
    got = align_factor(v, (2, 0), [0, 1, 2])
    assert got.shape == (4, 1, 3)
    full = got + np.zeros((4, 5, 3))  # broadcast over the missing column 1
    for i, j, k in itertools.product(range(4), range(5), range(3)):
        assert full[i, j, k] == v[k, i]
    # a factor already in the target's order only gains the size-1 axes
    w = rng.normal(size=(4, 3))
    np.testing.assert_array_equal(align_factor(w, [1, 3], [0, 1, 2, 3]), w.reshape(1, 4, 1, 3))
    np.testing.assert_array_equal(align_factor(v, (2, 0), (2, 0)), v)


def test_sum_to_sums_out_and_orders_like_keep():
    v = np.random.default_rng(1).normal(size=(2, 3, 4))  # over columns (3, 1, 4)
    got = sum_to(v, (3, 1, 4), (4, 3))
    assert got.shape == (4, 2)
    for k, i in itertools.product(range(4), range(2)):
        assert got[k, i] == pytest.approx(sum(v[i, j, k] for j in range(3)), rel=1e-12)
    np.testing.assert_allclose(sum_to(v, (3, 1, 4), ()), v.sum())
    np.testing.assert_array_equal(sum_to(v, (3, 1, 4), (1, 4, 3)), v.transpose(1, 2, 0))


def test_contract_factors_is_the_sum_of_products():
    rng = np.random.default_rng(2)
    A, B, C = rng.random((2, 3)), rng.random((3, 4)), rng.random(4)
    factors = [((0, 1), A), ((1, 2), B), ((2,), C)]
    got = contract_factors(factors, (2, 0))
    assert got.shape == (4, 2)
    for k, i in itertools.product(range(4), range(2)):
        want = sum(A[i, j] * B[j, k] * C[k] for j in range(3))
        assert got[k, i] == pytest.approx(want, rel=1e-12)
    total = sum(A[i, j] * B[j, k] * C[k] for i, j, k in itertools.product(*map(range, (2, 3, 4))))
    assert float(contract_factors(factors, ())) == pytest.approx(total, rel=1e-12)
    # einsum has 52 letters: a contraction over more columns is refused with a message
    wide = [((a,), np.ones(1)) for a in range(53)]
    with pytest.raises(ValueError, match="more than 52 columns"):
        contract_factors(wide, (0,))


def test_logsumexp_keep_is_stable_and_keeps_the_axes():
    v = np.random.default_rng(3).normal(size=(3, 4, 5)) * 50 + 1000  # exp overflows float64
    before = v.copy()
    got = logsumexp_keep(v, (0, 2))
    assert got.shape == (1, 4, 1)
    np.testing.assert_allclose(got, logsumexp(v, axis=(0, 2), keepdims=True), rtol=1e-13)
    np.testing.assert_array_equal(v, before)  # the input is not overwritten
    np.testing.assert_allclose(logsumexp_keep(-v, (1,)), logsumexp(-v, axis=1, keepdims=True))
    assert logsumexp_keep(v, ()) is v
