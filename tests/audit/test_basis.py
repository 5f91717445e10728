"""Tests of ``synthtrust.audit.basis``.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _audit_data import APP2, APP2_MARGINALS, APP3, SMALL, _u

from synthtrust.audit import (
    Bins,
    CellCounts,
    GeneratorCard,
    all_cells,
    complement_basis,
    complement_basis_dense,
    gram,
)


def _projector(vectors):
    """Orthogonal projector (Euclidean) onto the row span of ``vectors``."""
    q, s, _ = np.linalg.svd(vectors.T, full_matrices=False)
    q = q[:, s > 1e-9 * s.max()]
    return q @ q.T


# --------------------------------------------------------------------------------------------
# the basis against the dense oracle
# --------------------------------------------------------------------------------------------
def test_basis_is_orthonormal_and_orthogonal_to_phi(small_card, small_basis):
    dense_b = small_basis.dense()
    m = small_card.cells
    assert dense_b.shape == (small_basis.dim, m)
    np.testing.assert_allclose(_u(dense_b, dense_b), np.eye(small_basis.dim), atol=1e-8)
    phi_dense = small_card.declared_bins().dense()
    assert np.abs(_u(dense_b, phi_dense)).max() < 1e-8
    assert np.abs(dense_b.mean(axis=1)).max() < 1e-8  # ⟨b_i, 1⟩_U = 0
    # coefficients alone: coef G coefᵀ = I from the analytic Gram matrix
    g = gram(small_basis.all_bins)
    np.testing.assert_allclose(
        small_basis.coef @ g @ small_basis.coef.T, np.eye(small_basis.dim), atol=1e-8
    )


def test_basis_spans_the_dense_complement(small_card, small_basis):
    phi_dense = small_card.declared_bins().dense()
    cand_dense = small_basis.bins.dense()
    oracle = complement_basis_dense(phi_dense, cand_dense)
    assert oracle.shape[0] == small_basis.dim
    # same subspace: same orthogonal projector
    np.testing.assert_allclose(_projector(small_basis.dense()), _projector(oracle), atol=1e-8)
    # and span(Φ ∪ 𝒞) ⊖ span(Φ) has dimension rank(Φ ∪ 𝒞) − rank(Φ)
    rank_phi = np.linalg.matrix_rank(np.vstack([phi_dense, np.ones(small_card.cells)]))
    rank_all = np.linalg.matrix_rank(np.vstack([phi_dense, np.ones(small_card.cells), cand_dense]))
    assert small_basis.phi_rank == rank_phi == small_card.phi_dimension == 11
    assert small_basis.dim == rank_all - rank_phi


def test_examples_1_and_3_of_the_paper():
    # Example 1: three binary attributes, Φ = 1-way marginals: dim Φ⊥ = 8 − 4 = 4
    card = GeneratorCard.k_way({"x1": 2, "x2": 2, "x3": 2}, 1)
    assert card.complement_dimension == 4
    basis = complement_basis(card, 3)  # every cell indicator: all of Φ⊥
    assert basis.dim == 4
    # the basis spans the pure 2- and 3-way interactions ±1 (x1 ⊕ x2, ..., x1 ⊕ x2 ⊕ x3)
    cells = all_cells(card.sizes)
    signs = 1 - 2 * cells
    inter = np.array(
        [
            signs[:, list(c)].prod(axis=1)
            for r in (2, 3)
            for c in itertools.combinations(range(3), r)
        ]
    )
    np.testing.assert_allclose(_projector(basis.dense()), _projector(inter), atol=1e-10)
    # Example 3: X ∈ {0..10}, Φ = span{1, x, x²}: dim Φ⊥ = 8 (moments, not marginals)
    x = np.arange(11.0)
    b = complement_basis_dense(np.vstack([x, x**2]))
    assert b.shape == (8, 11)
    np.testing.assert_allclose(_u(b, b), np.eye(8), atol=1e-10)
    assert np.abs(b @ np.vstack([np.ones(11), x, x**2]).T).max() < 1e-9


def test_applications_dimensions(app1):
    card, basis = app1
    assert (len(card.declared_bins()), basis.phi_rank, basis.dim, card.cells) == (140, 119, 81, 200)
    card2 = GeneratorCard(APP2, APP2_MARGINALS)
    basis2 = complement_basis(card2, "next")
    assert (len(card2.declared_bins()), basis2.phi_rank, basis2.dim, card2.cells) == (
        206,
        182,
        448,
        630,
    )
    assert len(basis2.bins) == 630


def test_application_3_basis(app3):
    card, basis = app3
    assert len(card.declared_bins()) == 1365
    assert basis.phi_rank == card.phi_dimension == 1095
    assert card.cells == 1_560_000
    assert card.complement_dimension == 1_558_905
    assert len(basis.bins) == 1000
    # each sampled 3-way bin is new modulo the 2-way card: k = 1000 here (and never > 1000)
    assert basis.dim == 1000
    np.testing.assert_allclose(
        basis.coef @ gram(basis.all_bins) @ basis.coef.T, np.eye(basis.dim), atol=1e-8
    )
    phi_part = basis.coef @ gram(basis.all_bins, basis.phi_bins)
    assert np.abs(phi_part).max() < 1e-9


# --------------------------------------------------------------------------------------------
# statistics of a dataset
# --------------------------------------------------------------------------------------------
def test_statistic_matches_dense_brute_force(small_card, small_basis):
    rng = np.random.default_rng(3)
    codes = np.stack([rng.integers(0, n, 400) for n in small_card.sizes], axis=1)
    flat = np.ravel_multi_index(tuple(codes.T), small_card.sizes)
    dense_b = small_basis.dense()
    # f(D) = (1/N) Σ_{x∈D} f(x) = ⟨f, p_D⟩ = M ⟨f, p_D⟩_U
    expected = dense_b[:, flat].mean(axis=1)
    p_d = np.bincount(flat, minlength=small_card.cells) / len(flat)
    np.testing.assert_allclose(expected, small_card.cells * _u(dense_b, p_d[None, :])[:, 0])
    np.testing.assert_allclose(small_basis.statistic(codes), expected, atol=1e-12)
    frame = pd.DataFrame(codes[:, ::-1], columns=small_card.column_names[::-1])
    np.testing.assert_allclose(small_basis.statistic(frame), expected, atol=1e-12)
    # a weighted set of cells gives the statistic of its expanded rows
    cells, counts = np.unique(codes, axis=0, return_counts=True)
    cc = CellCounts(cells, counts, tuple(small_card.column_names))
    np.testing.assert_allclose(small_basis.statistic(cells, counts), expected, atol=1e-12)
    np.testing.assert_allclose(small_basis.statistic(cc), expected, atol=1e-12)
    assert len(cc.to_frame()) == 400
    np.testing.assert_allclose(small_basis.function_values(codes), dense_b[:, flat].T, atol=1e-12)
    w = rng.normal(size=small_basis.dim)
    np.testing.assert_allclose(
        small_basis.function_values(codes, w), w @ dense_b[:, flat], atol=1e-12
    )
    with pytest.raises(ValueError, match="column 'c' has codes outside 0..3"):
        small_basis.statistic(np.where(codes == 3, 4, codes))
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['d'\]"):
        small_basis.statistic(frame.drop(columns="d"))
    with pytest.raises(ValueError, match=r"shape \(n, 4\)"):
        small_basis.statistic(codes[:, :3])


def test_uniform_data_has_zero_statistics(small_card, small_basis):
    g = small_basis.statistic(all_cells(small_card.sizes))
    np.testing.assert_allclose(g, 0.0, atol=1e-12)  # uniform data: b_i ⊥ 1


# --------------------------------------------------------------------------------------------
# energy by clique
# --------------------------------------------------------------------------------------------
def _dense_anova_energy(f, sizes, u):
    """‖P_U f‖²_U by inclusion–exclusion over conditional means (brute force)."""
    t = f.reshape(sizes)
    part = np.zeros_like(t)
    for r in range(len(u) + 1):
        for w in itertools.combinations(u, r):
            axes = tuple(a for a in range(len(sizes)) if a not in w)
            part += (-1) ** (len(u) - r) * t.mean(axis=axes, keepdims=True)
    return float(np.mean(part**2))


def test_energy_by_clique_matches_dense_anova(small_card, small_basis):
    w = np.random.default_rng(4).normal(size=small_basis.dim)
    energy = small_basis.energy_by_clique(w, normalize=False)
    f = w @ small_basis.dense()
    names = small_card.column_names
    for key, value in energy.items():
        u = tuple(names.index(c) for c in key)
        assert value == pytest.approx(_dense_anova_energy(f, small_card.sizes, u), abs=1e-12)
    # the parts are orthogonal and f ⊥ Φ: they add up to ‖f‖²_U = ‖w‖²
    assert energy.sum() == pytest.approx(float(w @ w), rel=1e-9)
    assert energy.min() >= 0
    # every undeclared subset of a candidate clique is listed; declared ones are not
    assert ("a", "c") in energy.index and ("a", "b") not in energy.index
    shares = small_basis.energy_by_clique(w)
    assert shares.sum() == pytest.approx(1.0)
    assert shares.index[0] == energy.idxmax()
    with pytest.raises(ValueError, match="all 0"):
        small_basis.energy_by_clique(np.zeros(small_basis.dim))
    with pytest.raises(ValueError, match=r"shape \(\d+,\)"):
        small_basis.energy_by_clique(np.ones(3))


def test_energy_locates_a_single_leak(app1):
    _, basis = app1
    shares = basis.energy_by_clique(np.ones(basis.dim))
    assert list(shares.index) == [("econ", "occ", "sex")]
    assert shares.iloc[0] == pytest.approx(1.0)
    # a 1-way card probed by 2-way bins: a direction made of (a, b) bins only lives on (a, b)
    card = GeneratorCard.k_way({"a": 3, "b": 2, "c": 4}, 1)
    basis2 = complement_basis(card, 2)
    target = Bins.from_cliques([(0, 1)], card.sizes).dense()[1]  # 1[a = 0, b = 1]
    w = basis2.dense() @ target / card.cells  # coordinates of its projection on the basis
    shares2 = basis2.energy_by_clique(w)
    assert shares2[("a", "b")] == pytest.approx(1.0)
    assert shares2.drop(("a", "b")).abs().max() < 1e-12


def test_complement_basis_arguments(app1):
    card, _ = app1
    with pytest.raises(ValueError, match=r"rtol must be a real number in \(0, 1\)"):
        complement_basis(card, "next", rtol=0)
    with pytest.raises(ValueError, match="candidates are over sizes"):
        complement_basis(card, Bins.constant((2, 2)))
    with pytest.raises(ValueError, match="candidates is empty"):
        complement_basis(card, Bins(np.empty((0, 3)), card.sizes))
    # candidates inside span(Φ) give an empty complement, not noise
    assert complement_basis(card, 2).dim == 0


def test_complement_basis_refuses_a_gram_step_beyond_max_bins():
    card = GeneratorCard.two_way(APP3)
    # all 17 799 3-way bins of App. 3 plus its 1 366 declared bins (with the constant)
    with pytest.raises(
        ValueError,
        match=r"1,366 declared and 17,799 candidate bins exceed "
        r"max_bins=8,192: the Gram step would need about 9\.4 GiB",
    ):
        complement_basis(card, "next")
    # raising the limit is allowed: the two-way card of SMALL with all its 3-way bins (exact)
    small = GeneratorCard.two_way(SMALL)
    with pytest.raises(ValueError, match="max_bins=10"):
        complement_basis(small, "next", max_bins=10)
    assert complement_basis(small, "next", max_bins=200).dim == complement_basis(small, "next").dim
