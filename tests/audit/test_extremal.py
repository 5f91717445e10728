"""Tests of ``synthtrust.audit.extremal``.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _audit_data import APP3

from synthtrust.audit import (
    Bins,
    GeneratorCard,
    all_cells,
    candidate_bins,
    complement_basis,
    extremal_pair,
    sample_cells,
)


# --------------------------------------------------------------------------------------------
# extremal datasets
# --------------------------------------------------------------------------------------------
def test_extremal_pair_by_hand():
    # two binary columns, 1-way card: Φ⊥ is spanned by b(x) = ±(−1)^(x1 + x2), ‖b‖_U = 1
    card = GeneratorCard.k_way({"x1": 2, "x2": 2}, 1)
    basis = complement_basis(card, 2)
    assert basis.dim == 1
    b = basis.dense()[0]
    np.testing.assert_allclose(np.abs(b), 1.0)
    np.testing.assert_allclose(b * b[0], [1, -1, -1, 1])
    pair = extremal_pair(card, basis, [1.0], copies=10)
    assert pair.alpha_plus == pytest.approx(10.0) and pair.alpha_minus == pytest.approx(-10.0)
    np.testing.assert_array_equal(pair.plus.counts, np.where(b > 0, 20, 0))
    np.testing.assert_array_equal(pair.minus.counts, np.where(b > 0, 0, 20))
    assert (pair.g_minus, pair.g_star, pair.g_plus) == pytest.approx((-1.0, 0.0, 1.0))
    frame = pair.plus.to_frame()
    assert list(frame.columns) == ["x1", "x2"] and len(frame) == 40
    assert frame.value_counts().to_dict() == {
        tuple(int(v) for v in c): 20 for c, k in zip(pair.support, b, strict=True) if k > 0
    }


def _marginal_deviation(card, pair, counts):
    z = card.declared_bins().concat(Bins.constant(card.sizes)).indicator(pair.support)
    return np.abs(z.T @ (counts - pair.star.counts)), np.asarray(z.sum(axis=0)).ravel()


def test_extremal_pair_residual_application_1(app1):
    card, basis = app1
    beta = np.ones(basis.dim)
    pair = extremal_pair(card, basis, beta, copies=1000)
    assert pair.star.n == 200_000 and pair.support.shape == (200, 3)
    # on every cell g is orthogonal to Φ already: the residual is g itself
    np.testing.assert_allclose(pair.g_perp, pair.g_values, atol=1e-10)
    assert pair.alpha_plus == pytest.approx(1000 / np.max(-pair.g_perp))
    assert pair.alpha_minus == pytest.approx(-1000 / np.max(pair.g_perp))
    for counts in (pair.minus.counts, pair.plus.counts):
        assert counts.min() == 0 and np.all(counts >= 0)
        dev, cells_per_bin = _marginal_deviation(card, pair, counts)
        assert np.all(dev <= 0.5 * cells_per_bin + 1e-9)  # only the rounding moves Φ
    assert pair.g_minus < pair.g_star < pair.g_plus
    assert pair.g_star == pytest.approx(0.0, abs=1e-12)
    # the table-based statistic agrees with the pointwise values
    assert basis.statistic(pair.plus) @ beta == pytest.approx(pair.g_plus, rel=1e-9)
    assert basis.statistic(pair.minus) @ beta == pytest.approx(pair.g_minus, rel=1e-9)


def test_extremal_pair_lp_is_exact_and_more_extreme():
    card = GeneratorCard.two_way({"a": 3, "b": 3, "c": 2})
    basis = complement_basis(card, "next")
    beta = np.random.default_rng(5).normal(size=basis.dim)
    res = extremal_pair(card, basis, beta, copies=100)
    lp = extremal_pair(card, basis, beta, copies=100, method="lp")
    for counts in (lp.minus.counts, lp.plus.counts):
        dev, _ = _marginal_deviation(card, lp, counts)
        assert dev.max() == 0  # exact marginals and N
        assert counts.min() == 0 and np.all(counts >= 0)
    assert lp.minus.n == lp.plus.n == lp.star.n == 1800
    assert lp.g_plus >= res.g_plus - 1e-12
    assert lp.g_minus <= res.g_minus + 1e-12
    # and at least as far as the unrounded residual move (a feasible point of the programme)
    c_plus = lp.star.counts + res.alpha_plus * res.g_perp
    assert lp.g_plus >= c_plus @ res.g_values / c_plus.sum() - 1e-9
    assert lp.alpha_minus < 0 < lp.alpha_plus


def test_extremal_pair_lp_falls_back_to_the_integer_programme(monkeypatch):
    import scipy.optimize

    card = GeneratorCard.two_way({"a": 3, "b": 3, "c": 2})
    basis = complement_basis(card, "next")
    beta = np.random.default_rng(5).normal(size=basis.dim)
    exact = extremal_pair(card, basis, beta, copies=100, method="lp")
    real_linprog = scipy.optimize.linprog

    def fractional(*args, **kwargs):  # a relaxation whose vertex is not integral
        res = real_linprog(*args, **kwargs)
        res.x = res.x + 0.25
        return res

    monkeypatch.setattr(scipy.optimize, "linprog", fractional)
    pair = extremal_pair(card, basis, beta, copies=100, method="lp")
    for counts in (pair.minus.counts, pair.plus.counts):
        dev, _ = _marginal_deviation(card, pair, counts)
        assert dev.max() == 0 and counts.min() >= 0
    assert pair.g_plus == pytest.approx(exact.g_plus, abs=1e-9)
    assert pair.g_minus == pytest.approx(exact.g_minus, abs=1e-9)


def test_extremal_pair_application_3_sampled_support(app3):
    card, basis = app3
    pair = extremal_pair(card, basis, np.ones(basis.dim), support=10_000, copies=10, random_state=0)
    assert pair.support.shape == (10_000, 7)
    assert np.unique(pair.support, axis=0).shape[0] == 10_000
    assert pair.star.n == 100_000
    for counts in (pair.minus.counts, pair.plus.counts):
        assert counts.min() == 0
        dev, cells_per_bin = _marginal_deviation(card, pair, counts)
        assert np.all(dev <= 0.5 * cells_per_bin + 1e-9)
    assert pair.g_minus < pair.g_star < pair.g_plus
    # g⊥ is the least-squares residual: orthogonal to every declared bin on the support
    z = card.declared_bins().concat(Bins.constant(card.sizes)).indicator(pair.support)
    assert np.abs(z.T @ pair.g_perp).max() < 1e-8 * np.abs(pair.g_values).sum()


def test_extremal_pair_starting_counts(app1):
    card, basis = app1
    rng = np.random.default_rng(6)
    start = rng.integers(1, 50, card.cells)
    pair = extremal_pair(card, basis, np.ones(basis.dim), copies=start)
    np.testing.assert_array_equal(pair.star.counts, start)
    r = pair.g_perp
    assert pair.alpha_plus == pytest.approx(np.min(start[r < 0] / -r[r < 0]))
    assert pair.plus.counts.min() == 0 and pair.minus.counts.min() == 0
    assert pair.g_minus < pair.g_star < pair.g_plus


def test_extremal_pair_errors(app1, small_card, small_basis):
    card, basis = app1
    beta = np.ones(basis.dim)
    with pytest.raises(ValueError, match="in the card's span"):
        extremal_pair(card, basis, beta, support=all_cells(card.sizes)[[0, 1, 3]])
    with pytest.raises(ValueError, match="not all 0"):
        extremal_pair(card, basis, np.zeros(basis.dim))
    with pytest.raises(ValueError, match=r"beta must have shape \(81,\)"):
        extremal_pair(card, basis, np.ones(3))
    with pytest.raises(ValueError, match="another card"):
        extremal_pair(small_card, basis, beta)
    with pytest.raises(TypeError, match="ComplementBasis"):
        extremal_pair(card, "basis", beta)
    with pytest.raises(ValueError, match="method must be one of"):
        extremal_pair(card, basis, beta, method="simplex")
    with pytest.raises(ValueError, match="repeated cells"):
        extremal_pair(card, basis, beta, support=np.zeros((2, 3), dtype=int))
    with pytest.raises(ValueError, match="copies must be"):
        extremal_pair(card, basis, beta, copies=np.ones(5, dtype=int))
    with pytest.raises(ValueError, match="copies must be >= 1"):
        extremal_pair(card, basis, beta, copies=0)
    with pytest.raises(ValueError, match="exceeds the 200 cells"):
        extremal_pair(card, basis, beta, support=201)
    big = GeneratorCard.two_way(APP3)
    with pytest.raises(ValueError, match="M = 1560000 cells"):
        extremal_pair(
            big, complement_basis(big, candidate_bins(big, 3, n=5, random_state=0)), np.ones(5)
        )


def test_sample_cells_distinct_and_reproducible():
    a = sample_cells((5, 10, 13), 300, random_state=7)
    b = sample_cells((5, 10, 13), 300, random_state=7)
    assert np.array_equal(a, b)
    assert np.unique(a, axis=0).shape[0] == 300
    assert a.min() >= 0 and np.all(a.max(axis=0) < [5, 10, 13])
    huge = sample_cells((2**20,) * 4, 50, random_state=0)  # M = 2^80: no flat index
    assert huge.shape == (50, 4) and np.unique(huge, axis=0).shape[0] == 50
