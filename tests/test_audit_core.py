"""Core maths of the audit of Houssiau et al. (2022): card, basis of Φ⊥, extremal datasets.

Oracles: dense M-vectors over every cell (brute force) on small domains, the dimensions the
paper and its code report (Examples 1–3, Applications 1–3), the ANOVA rank formula, and hand
computations.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from synthtrust.audit import (
    Bins,
    CellCounts,
    GeneratorCard,
    all_cells,
    candidate_bins,
    complement_basis,
    complement_basis_dense,
    extremal_pair,
    gram,
    sample_cells,
    span_dimension,
)

APP1 = {"econ": 10, "occ": 10, "sex": 2}
APP2 = {"eth": 6, "cob": 3, "fam": 7, "grade": 5}
APP2_MARGINALS = [("eth", "cob", "fam"), ("eth", "grade"), ("cob", "grade"), ("fam", "grade")]
APP3 = {"marital": 5, "occ": 10, "ind": 13, "region": 10, "hours": 5, "age": 8, "health": 6}
SMALL = {"a": 3, "b": 2, "c": 4, "d": 2}
SMALL_MARGINALS = [("a", "b"), ("c",), ("b", "d")]


def _u(f, h):
    """⟨f, h⟩_U for rows of dense M-vectors."""
    return f @ h.T / f.shape[-1]


def _projector(vectors):
    """Orthogonal projector (Euclidean) onto the row span of ``vectors``."""
    q, s, _ = np.linalg.svd(vectors.T, full_matrices=False)
    q = q[:, s > 1e-9 * s.max()]
    return q @ q.T


@pytest.fixture(scope="module")
def small_card():
    return GeneratorCard(SMALL, SMALL_MARGINALS, name="small")


@pytest.fixture(scope="module")
def small_basis(small_card):
    # a mix of orders: every 3-way bin of (a, c, d) and 15 random 2- and 3-way bins
    cand = (
        candidate_bins(small_card, [("a", "c", "d")])
        .concat(candidate_bins(small_card, 2, n=10, random_state=1))
        .concat(candidate_bins(small_card, 3, n=5, random_state=2))
    )
    return complement_basis(small_card, cand)


@pytest.fixture(scope="module")
def app1():
    card = GeneratorCard.two_way(APP1, name="App. 1")
    return card, complement_basis(card, "next")


@pytest.fixture(scope="module")
def app3():
    card = GeneratorCard.two_way(APP3, name="App. 3")
    cand = candidate_bins(card, 3, n=1000, random_state=0)
    return card, complement_basis(card, cand)


# --------------------------------------------------------------------------------------------
# card
# --------------------------------------------------------------------------------------------
def test_card_attributes_and_declared_bins():
    card = GeneratorCard(APP2, APP2_MARGINALS, name="App. 2")
    assert card.column_names == list(APP2)
    assert card.sizes == (6, 3, 7, 5)
    assert card.cells == 630
    assert card.clique_indices == ((0, 1, 2), (0, 3), (1, 3), (2, 3))
    bins = card.declared_bins()
    assert len(bins) == 126 + 30 + 15 + 35 == 206
    # the first clique's bins in C order, then (eth, grade) ...
    assert bins.to_list()[0] == ((0, 1, 2), (0, 0, 0))
    assert bins.to_list()[1] == ((0, 1, 2), (0, 0, 1))
    assert bins.to_list()[126] == ((0, 3), (0, 0))
    assert card.phi_dimension == 182
    assert card.complement_dimension == 448


def test_card_cells_is_an_exact_python_int():
    card = GeneratorCard({f"x{i}": 97 for i in range(12)}, [])
    assert card.cells == 97**12
    assert isinstance(card.cells, int)
    assert card.phi_dimension == 1  # an empty card declares only N


def test_card_convenience_constructors():
    card = GeneratorCard.two_way(APP3)
    assert len(card.marginals) == 21
    assert card.marginals[0] == ("marital", "occ")
    assert len(card.declared_bins()) == 1365
    three = GeneratorCard.k_way(APP3, 3)
    assert len(three.marginals) == 35
    with pytest.raises(ValueError, match=r"k must be an integer in 1\.\.7"):
        GeneratorCard.k_way(APP3, 8)
    with pytest.raises(ValueError, match="k must be"):
        GeneratorCard.k_way(APP3, 0)


@pytest.mark.parametrize(
    ("columns", "marginals", "exc", "match"),
    [
        ({"a": 2, "b": 3}, [("a", "z")], ValueError, r"unknown column\(s\) \['z'\]"),
        ({"a": 2, "b": 3}, [("a", "a")], ValueError, "repeats a column"),
        ({"a": 2, "b": 3}, [("a", "b"), ("b", "a")], ValueError, "repeats marginals"),
        ({"a": 2, "b": 3}, [()], ValueError, "is empty"),
        ({"a": 2, "b": 3}, ["ab"], TypeError, "sequence of column names"),
        ({"a": 2, "b": 3}, "a", TypeError, "marginals must be a list"),
        ({"a": 1, "b": 3}, [], ValueError, r"columns\['a'\] \(domain size\) must be >= 2"),
        ({"a": 2.0, "b": 3}, [], TypeError, "must be an integer"),
        ({"a": True, "b": 3}, [], TypeError, "must be an integer"),
        ({}, [], ValueError, "columns is empty"),
        ([("a", 2)], [], TypeError, "columns must be a mapping"),
    ],
)
def test_card_validation(columns, marginals, exc, match):
    with pytest.raises(exc, match=match):
        GeneratorCard(columns, marginals)


def test_card_round_trips(tmp_path):
    card = GeneratorCard(APP2, APP2_MARGINALS, name="App. 2", description="Φ of §4.1 — ψ")
    assert GeneratorCard.from_dict(card.to_dict()) == card
    assert GeneratorCard.from_json(card.to_json()) == card
    assert GeneratorCard.from_yaml(card.to_yaml()) == card
    for suffix in (".yaml", ".json"):
        card.save(tmp_path / f"card{suffix}")
        back = GeneratorCard.load(tmp_path / f"card{suffix}")
        assert back == card
        assert back.column_names == card.column_names  # order kept
        assert back.marginals == card.marginals
    assert hash(GeneratorCard.from_yaml(card.to_yaml())) == hash(card)
    assert card != GeneratorCard(APP2, APP2_MARGINALS[:2], name="App. 2")
    with pytest.raises(ValueError, match=r"unknown card key\(s\) \['cliques'\]"):
        GeneratorCard.from_dict({"columns": APP2, "cliques": []})
    with pytest.raises(ValueError, match=r"lacks the key\(s\) \['marginals'\]"):
        GeneratorCard.from_dict({"columns": APP2})
    with pytest.raises(ValueError, match="must end in"):
        card.save(tmp_path / "card.txt")
    with pytest.raises(AttributeError, match="immutable"):
        card.name = "other"
    cols = card.columns
    cols["eth"] = 99
    assert card.columns["eth"] == 6  # a copy


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


def test_bins_frequencies_and_pointwise_match_dense():
    sizes = (3, 2, 4, 2)
    rng = np.random.default_rng(1)
    bins = candidate_bins(GeneratorCard(dict(zip("abcd", sizes, strict=True)), []), 2).concat(
        Bins.constant(sizes)
    )
    codes = np.stack([rng.integers(0, n, 300) for n in sizes], axis=1)
    counts = rng.integers(0, 5, 300)
    dense = bins.dense()  # (B, M)
    flat = np.ravel_multi_index(tuple(codes.T), sizes)
    np.testing.assert_allclose(bins.frequencies(codes), dense[:, flat].mean(axis=1))
    np.testing.assert_allclose(
        bins.frequencies(codes, counts), dense[:, flat] @ counts / counts.sum()
    )
    coef = rng.normal(size=(3, len(bins)))
    np.testing.assert_allclose(bins.pointwise(coef, codes), (coef @ dense)[:, flat].T)
    np.testing.assert_allclose(bins.indicator(codes).toarray(), dense[:, flat].T)


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


def test_candidate_bins_kinds():
    card = GeneratorCard.two_way(APP1)
    nxt = candidate_bins(card, "next")
    assert len(nxt) == 200 and nxt.cliques == ((0, 1, 2),)
    assert len(candidate_bins(card, 1)) == 22
    assert len(candidate_bins(card, [("sex", "econ")])) == 20
    card3 = GeneratorCard.two_way(APP3)
    total = sum(math.prod(c) for c in itertools.combinations(APP3.values(), 3))
    assert total == 17_799  # footnote 5
    s1 = candidate_bins(card3, 3, n=1000, random_state=0)
    s2 = candidate_bins(card3, 3, n=1000, random_state=0)
    s3 = candidate_bins(card3, 3, n=1000, random_state=1)
    assert len(s1) == 1000
    assert np.array_equal(s1.values, s2.values)
    assert not np.array_equal(s1.values, s3.values)
    assert np.unique(s1.values, axis=0).shape[0] == 1000  # without replacement
    assert all(len(c) == 3 for c in s1.cliques)
    full = candidate_bins(card3, 3).values
    assert set(map(tuple, s1.values)) <= set(map(tuple, full))
    with pytest.raises(ValueError, match="exceeds the 17799 candidate bins"):
        candidate_bins(card3, 3, n=17_800, random_state=0)
    with pytest.raises(ValueError, match=r"order\) must be in 1\.\.3"):
        candidate_bins(card, 4)
    with pytest.raises(ValueError, match="kind must be 'next'"):
        candidate_bins(card, "all")
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['age'\]"):
        candidate_bins(card, [("age", "sex")])
    with pytest.raises(ValueError, match="nothing to probe"):
        candidate_bins(GeneratorCard.k_way(APP1, 3), "next")
    with pytest.raises(TypeError, match="GeneratorCard"):
        candidate_bins({"a": 2}, "next")


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


def test_full_clique_candidates_dimension_formula(small_card):
    cliques = small_card.clique_indices
    for cand in ([("a", "c")], [("a", "b", "c")], [("a", "c", "d"), ("b", "c")]):
        basis = complement_basis(small_card, cand)
        idx = [tuple(sorted(small_card.column_names.index(c) for c in q)) for q in cand]
        expected = span_dimension(list(cliques) + idx, small_card.sizes) - span_dimension(
            cliques, small_card.sizes
        )
        assert basis.dim == expected


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
