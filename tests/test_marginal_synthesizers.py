"""Tests of the marginal-based synthesizers MST, MWEM+PGM and AIM and their shared machinery.

Oracles: the noise scales of the reference mechanisms (Private-PGM, adult), pandas crosstab,
scipy's constrained least squares, brute-force joint distributions, hand-computed compression,
the privacy ledger vs. cdp_rho.
JAX compilation dominates: tiny domains, few iterations, fitted objects shared by fixtures.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.aim import AIM
from synthtrust.synthesizers.base import NotFittedError
from synthtrust.synthesizers.mst import MST, select_spanning_tree
from synthtrust.synthesizers.mwem_pgm import MWEMPGM

DOMAIN = {"a": 3, "b": 4, "c": 2, "e": 3}
COLS = list(DOMAIN)
SIZES = [DOMAIN[c] for c in COLS]
REL = 1e-9


def _chain_table(n: int, seed: int) -> pd.DataFrame:
    """A chain a → b → c plus an independent column e (tree-structured distribution)."""
    rng = np.random.default_rng(seed)
    a = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 4, n))
    c = np.where(rng.random(n) < 0.85, (b >= 2).astype(int), rng.integers(0, 2, n))
    e = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    return pd.DataFrame({"a": a, "b": b, "c": c, "e": e})


@pytest.fixture(scope="module")
def data() -> pd.DataFrame:
    return _chain_table(600, 0)


@pytest.fixture(scope="module")
def mst(data):
    return MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=3).fit(data)


@pytest.fixture(scope="module")
def mwem(data):
    return MWEMPGM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=4).fit(data)


@pytest.fixture(scope="module")
def aim(data):
    return AIM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=5).fit(data)


def _tvd(p, q) -> float:
    p, q = np.asarray(p, float).ravel(), np.asarray(q, float).ravel()
    return 0.5 * np.abs(p / p.sum() - q / q.sum()).sum()


def _codes(df) -> np.ndarray:
    return df[COLS].to_numpy(np.int64)


# --------------------------------------------------------------------------------------------
# parameter functions vs the reference mechanisms' noise scales on adult (d = 14)
# --------------------------------------------------------------------------------------------
def test_budget_functions_match_reference_vectors():
    rho = cdp_rho(1.0, 1e-9)
    b = mg.mst_budget(rho, 14)
    assert b["sigma"] == pytest.approx(10.01, abs=0.01)
    assert b["sigma_1way"] == pytest.approx(37.5, abs=0.05)
    assert b["sigma_2way"] == pytest.approx(36.1, abs=0.05)
    assert b["epsilon_edge"] == pytest.approx(0.055, abs=0.0005)
    sigma, eps = mg.aim_budget(rho, 16 * 14)
    assert sigma == pytest.approx(91.2, abs=0.05)
    assert eps == pytest.approx(0.0073, abs=0.00005)
    sigma, eps = mg.mwem_pgm_budget(rho, 14)
    assert sigma == pytest.approx(22.8, abs=0.05)
    assert eps == pytest.approx(0.029, abs=0.0005)
    # each split adds up to rho
    d = 14
    tot = (
        d / (2 * b["sigma_1way"] ** 2)
        + (d - 1) * b["epsilon_edge"] ** 2 / 8
        + (d - 1) / (2 * b["sigma_2way"] ** 2)
    )
    assert tot == pytest.approx(rho, rel=1e-12)
    one = mg.mst_budget(rho, 1)
    assert 1 / (2 * one["sigma_1way"] ** 2) == pytest.approx(rho, rel=1e-12)
    with pytest.raises(ValueError, match="rho"):
        mg.mst_budget(0.0, 3)


# --------------------------------------------------------------------------------------------
# shared machinery
# --------------------------------------------------------------------------------------------
def test_marginal_counts_equal_pandas_crosstab(data):
    got = mg.marginal_counts(data, DOMAIN, ["b", "a"])
    ct = pd.crosstab(data["b"], data["a"]).reindex(index=range(4), columns=range(3), fill_value=0)
    np.testing.assert_array_equal(got, ct.to_numpy())
    got3 = mg.marginal_counts(data, DOMAIN, ["a", "c", "e"])
    brute = np.zeros((3, 2, 3))
    for a, c, e in data[["a", "c", "e"]].itertuples(index=False):
        brute[a, c, e] += 1
    np.testing.assert_array_equal(got3, brute)
    with pytest.raises(ValueError, match="distinct"):
        mg.marginal_counts(data, DOMAIN, ["a", "a"])


def test_compress_domain_hand_example():
    m0 = mg.Measurement((0,), np.array([100.0, 2.0, 50.0, -1.0, 3.0]), 10.0)
    m1 = mg.Measurement((1,), np.array([40.0, 35.0, 31.0]), 10.0)
    m2 = mg.Measurement((2,), np.array([1.0, 2.0]), 10.0)  # nothing kept
    comp, meas = mg.compress_domain([m0, m1, m2], [5, 3, 2])
    assert comp.sizes == (3, 3, 1)
    np.testing.assert_array_equal(comp.mapping[0], [0, 2, 1, 2, 2])
    np.testing.assert_array_equal(comp.kept[0], [0, 2])
    np.testing.assert_array_equal(comp.merged[0], [1, 3, 4])
    np.testing.assert_allclose(meas[0].values, [100.0, 50.0, 4.0 / math.sqrt(3)])
    np.testing.assert_allclose(meas[0].weights, [1.0, 1.0, 1.0 / math.sqrt(3)])
    assert meas[0].stddev == 10.0
    assert meas[1] is m1 and comp.merged[1].size == 0
    np.testing.assert_allclose(meas[2].values, [3.0 / math.sqrt(2)])
    # the merged cell still estimates the total with the right variance: sum = 154, var = 5·100
    assert meas[0].total() == pytest.approx((154.0, 500.0))
    # codes round trip: kept codes exactly, merged codes uniformly over their members
    X = np.array([[0, 0, 0], [2, 1, 1], [1, 2, 0], [3, 0, 1], [4, 1, 0]] * 6000)
    Xc = mg.compress_codes(X, comp)
    np.testing.assert_array_equal(Xc[:5], [[0, 0, 0], [1, 1, 0], [2, 2, 0], [2, 0, 0], [2, 1, 0]])
    back = mg.decompress_codes(Xc, comp, np.random.default_rng(0))
    np.testing.assert_array_equal(back[:, 1], X[:, 1])
    kept_rows = np.isin(X[:, 0], [0, 2])
    np.testing.assert_array_equal(back[kept_rows, 0], X[kept_rows, 0])
    merged_vals = back[~kept_rows, 0]
    assert set(np.unique(merged_vals)) == {1, 3, 4}
    np.testing.assert_allclose(
        np.bincount(merged_vals)[[1, 3, 4]] / merged_vals.size, 1 / 3, atol=0.01
    )
    assert set(np.unique(back[:, 2])) == {0, 1}


def test_independent_estimate_matches_scipy():
    rng = np.random.default_rng(1)
    for _ in range(3):
        k = 6
        y = rng.normal(20, 30, k)
        w = np.where(rng.random(k) < 0.3, 1 / math.sqrt(3), 1.0)
        m = mg.Measurement((0,), y, 7.0, w)
        total = 150.0
        (mu,) = mg.independent_estimate([m], total)

        def loss(x, y=y, w=w):
            return 0.5 * np.sum((w * x - y) ** 2)

        res = minimize(
            loss,
            np.full(k, total / k),
            method="SLSQP",
            bounds=[(0, None)] * k,
            constraints={"type": "eq", "fun": lambda x, total=total: x.sum() - total},
            options={"ftol": 1e-12, "maxiter": 500},
        )
        assert mu.sum() == pytest.approx(total)
        assert loss(mu) <= res.fun + 1e-6
        np.testing.assert_allclose(mu, res.x, atol=1e-3)


def _brute_joint(model: mg.FittedModel) -> np.ndarray:
    sizes = model.sizes
    logp = np.zeros(sizes)
    for cl, pot in model.log_potentials.items():
        logp = logp + mg._align(pot, cl, list(range(len(sizes))))
    p = np.exp(logp - logp.max())
    return p / p.sum() * model.total


def _random_model(sizes, cliques, seed, total=500.0) -> mg.FittedModel:
    rng = np.random.default_rng(seed)
    pots = {cl: rng.normal(0, 1.0, [sizes[a] for a in cl]) for cl in cliques}
    return mg.FittedModel(tuple(sizes), tuple(cliques), pots, total)


def test_junction_tree_marginals_match_brute_force():
    sizes = (3, 2, 4, 2, 3)
    # a cycle 0-1-2-3-0 (needs triangulation), a pendant 4 on 2, and column-free parts
    model = _random_model(sizes, [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)], seed=2)
    jt = mg.JunctionTree(model)
    joint = _brute_joint(model)
    for q in [(0,), (4,), (1, 3), (3, 1), (0, 4), (4, 0, 1), (1, 3, 4), (0, 1, 2, 3, 4)]:
        rest = tuple(a for a in range(5) if a not in q)
        want = np.transpose(joint.sum(axis=rest), np.argsort(np.argsort(q)))
        np.testing.assert_allclose(jt.marginal(q), want, rtol=1e-9, atol=1e-9)
    # independent parts (forest) and an empty model
    model2 = _random_model(sizes, [(0, 1), (3, 4)], seed=3)
    jt2 = mg.JunctionTree(model2)
    joint2 = _brute_joint(model2)
    np.testing.assert_allclose(jt2.marginal((1, 4)), joint2.sum(axis=(0, 2, 3)), rtol=1e-9)
    empty = mg.JunctionTree(mg.FittedModel(sizes, (), {}, 1.0))
    np.testing.assert_allclose(empty.marginal((0, 2)), np.full((3, 4), 1 / 12))


def test_junction_tree_sample_matches_model():
    sizes = (3, 2, 4, 2, 3)
    model = _random_model(sizes, [(0, 1), (1, 2), (2, 3), (0, 3), (2, 4)], seed=4, total=1.0)
    jt = mg.JunctionTree(model)
    n = 40_000
    X = jt.sample(n, np.random.default_rng(0))
    assert X.shape == (n, 5) and X.dtype == np.int64
    # the first generated column is rounded: its counts are within one of n·p
    first = jt.order[0]
    np.testing.assert_array_less(
        np.abs(np.bincount(X[:, first], minlength=sizes[first]) - n * jt.marginal((first,))),
        1.0 + 1e-9,
    )
    for q in itertools.combinations(range(5), 2):
        emp = mg.true_marginal(X, sizes, q)
        assert _tvd(emp, jt.marginal(q)) < 0.012, q
    # the same generator state gives the same records
    np.testing.assert_array_equal(
        jt.sample(100, np.random.default_rng(7)), jt.sample(100, np.random.default_rng(7))
    )


def test_pgm_fitter_recovers_exact_marginals_and_merges():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 400), rng.integers(0, 2, 400), rng.integers(0, 2, 400)])
    X[:, 1] = (X[:, 0] + X[:, 1]) % 2
    sizes = (3, 2, 2)
    cl = [(0,), (0, 1), (1, 2)]
    exact = [mg.Measurement(c, mg.true_marginal(X, sizes, c), 1e-3) for c in cl]
    model = mg.PGMFitter(sizes).fit(exact, iters=1000)
    assert model.total == pytest.approx(400)
    jt = mg.JunctionTree(model)
    for c in cl:
        np.testing.assert_allclose(jt.marginal(c).ravel(), mg.true_marginal(X, sizes, c), atol=0.5)
    # two measurements of one clique = their inverse-variance average
    y1, y2 = np.array([1.0, 5.0]), np.array([3.0, 1.0])
    merged = mg._merge([mg.Measurement((0,), y1, 1.0), mg.Measurement((0,), y2, 2.0)])
    assert len(merged) == 1
    np.testing.assert_allclose(merged[0].values, (y1 + y2 / 4) / 1.25)
    assert merged[0].stddev == pytest.approx(1 / math.sqrt(1.25))


@pytest.mark.parametrize("backend", ["jax", "numpy"])
def test_fit_equals_mbi_mirror_descent(backend):
    """Both backends follow mbi MirrorDescent's iterates (the numpy one and our fused JAX program
    with one oracle call a step), including a weighted (compressed) measurement."""
    from synthtrust._jax import import_mbi

    mbi = import_mbi()
    rng = np.random.default_rng(3)
    sizes = (3, 2, 4)
    ms = [
        mg.Measurement((0,), rng.normal(30, 5, 3), 4.0),
        mg.Measurement((0, 1), rng.normal(15, 5, 6), 2.0),
        mg.Measurement((1, 2), rng.normal(10, 5, 8), 3.0),
        mg.Measurement((2,), rng.normal(20, 5, 4), 5.0, np.array([1.0, 1.0, 1.0, 0.5])),
    ]
    ours = mg.PGMFitter(sizes, backend=backend).fit(ms, iters=100)
    domain = mbi.Domain((0, 1, 2), sizes)
    lms = [mbi.LinearMeasurement(m.values, m.clique, stddev=m.stddev) for m in ms[:3]]
    lms.append(
        mbi.LinearMeasurement(
            ms[3].values, (2,), stddev=5.0, query=mbi.WeightedQuery(np.array([1.0, 1.0, 1.0, 0.5]))
        )
    )
    ref = mbi.estimation.MirrorDescent().estimate(domain, lms, known_total=ours.total, iters=100)
    jt = mg.JunctionTree(ours)
    for cl in [(0, 1), (1, 2), (0,), (2,)]:
        np.testing.assert_allclose(
            jt.marginal(cl).ravel(), np.asarray(ref.project(cl).datavector()), rtol=1e-6, atol=1e-8
        )
    with pytest.raises(ValueError, match="backend"):
        mg.PGMFitter(sizes, backend="gpu")


def test_choose_backend_cost_model():
    assert mg.choose_backend(cells=900, nodes=15, iters=1000) == "numpy"  # small model, AIM round
    assert mg.choose_backend(cells=28_000, nodes=14, iters=10_000) == "numpy"  # MST on adult
    assert mg.choose_backend(cells=6_000_000, nodes=8, iters=1000) == "numpy"  # AIM, ε = 10
    assert mg.choose_backend(cells=100, nodes=2, iters=1_000_000) == "jax"


def test_check_workload_errors():
    cols = ["x", "y", "z"]
    assert mg.check_workload(None, cols) == [((0, 1), 1.0), ((0, 2), 1.0), ((1, 2), 1.0)]
    assert mg.check_workload([("z", "x"), (("y",), 2.5)], cols) == [((0, 2), 1.0), ((1,), 2.5)]
    with pytest.raises(ValueError, match="'w'"):
        mg.check_workload([("x", "w")], cols)
    with pytest.raises(ValueError, match="empty"):
        mg.check_workload([], cols)
    with pytest.raises(ValueError, match="repeats"):
        mg.check_workload([("x", "x")], cols)
    with pytest.raises(ValueError, match="weight"):
        mg.check_workload([(("x",), -1.0)], cols)
    with pytest.raises(TypeError, match="workload"):
        mg.check_workload("xy", cols)


def test_model_size_is_mbi_junction_tree_size():
    from synthtrust._jax import import_mbi

    mbi = import_mbi()
    # chain 0-1-2 of sizes 10, 20, 30: junction tree {0,1}, {1,2} = 200 + 600 cells
    assert mg.model_size_mb([10, 20, 30], [(0, 1), (1, 2)]) == pytest.approx(800 * 8 / 2**20)
    # a triangle becomes one node of 6000 cells
    assert mg.model_size_mb([10, 20, 30], [(0, 1), (1, 2), (0, 2)]) == pytest.approx(
        6000 * 8 / 2**20
    )
    # our pure-Python junction tree equals mbi's on random structures
    rng = np.random.default_rng(0)
    for _ in range(60):
        d = int(rng.integers(2, 12))
        sizes = [int(k) for k in rng.integers(1, 20, d)]
        pairs = list(itertools.combinations(range(d), 2))
        k = int(rng.integers(0, min(len(pairs), 15) + 1))
        cl = [pairs[i] for i in rng.choice(len(pairs), k, replace=False)]
        cl += [(int(i),) for i in rng.choice(d, int(rng.integers(0, d + 1)), replace=False)]
        if d >= 3 and rng.random() < 0.3:
            cl.append(tuple(sorted(rng.choice(d, 3, replace=False).tolist())))
        want = mbi.junction_tree.hypothetical_model_size(
            mbi.Domain(tuple(range(d)), tuple(sizes)), cl
        )
        assert mg.model_size_mb(sizes, cl) == pytest.approx(want, rel=1e-12), (sizes, cl)


# --------------------------------------------------------------------------------------------
# MST
# --------------------------------------------------------------------------------------------
def test_mst_ledger_and_tree(mst, data):
    rho = cdp_rho(1.0, 1e-9)
    assert mst.ledger_.total_rho == pytest.approx(rho, rel=REL)
    b = mg.mst_budget(rho, 4)
    frame = mst.ledger_.to_frame()
    assert list(frame["mechanism"]) == ["gaussian"] * 4 + ["exponential"] * 3 + ["gaussian"] * 3
    np.testing.assert_allclose(frame["scale"].iloc[:4], b["sigma_1way"])
    np.testing.assert_allclose(frame["epsilon"].iloc[4:7], b["epsilon_edge"])
    np.testing.assert_allclose(frame["scale"].iloc[7:], b["sigma_2way"])
    # a spanning tree: d - 1 edges, connected, no repeated edge
    assert len(mst.tree_) == 3 and len(set(map(frozenset, mst.tree_))) == 3
    reach, frontier = {"a"}, ["a"]
    while frontier:
        v = frontier.pop()
        for e in mst.tree_:
            for u, w in (e, e[::-1]):
                if u == v and w not in reach:
                    reach.add(w)
                    frontier.append(w)
    assert reach == set(COLS)
    # the model total estimates n and the default sample size follows it
    s = mst.sample()
    assert abs(len(s) - len(data)) < 60
    assert list(s.columns) == COLS
    assert all(s[c].between(0, DOMAIN[c] - 1).all() for c in COLS)


def test_select_spanning_tree_is_a_tree_and_prefers_high_scores():
    rng = np.random.default_rng(0)
    d = 6
    scores = {e: 0.0 for e in itertools.combinations(range(d), 2)}
    for e in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]:
        scores[e] = 1e4
    edges = select_spanning_tree(scores, d, 1.0, rng)
    assert sorted(edges) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    edges = select_spanning_tree(scores, d, 1e-9, rng)  # ~uniform: still a spanning tree
    parent = list(range(d))

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    for a, b in edges:
        assert find(a) != find(b)
        parent[find(a)] = find(b)
    assert len(edges) == d - 1


def test_mst_same_seed_same_data_and_different_seed_differs(data):
    # fresh fits: sample() continues the generator of its fit, so compare like with like
    one = MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=3).fit(data)
    two = MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=3).fit(data)
    pd.testing.assert_frame_equal(one.sample(200), two.sample(200))
    pd.testing.assert_frame_equal(one.sample(), two.sample())
    other = MST(1.0, 1e-9, domain=DOMAIN, max_iter=300, random_state=4).fit(data)
    assert not other.sample(200).equals(two.sample(200))


def test_mst_with_jax_backend_matches_numpy_backend(data, monkeypatch):
    monkeypatch.setattr(mg.estimate, "choose_backend", lambda cells, nodes, iters: "jax")
    a = MST(3.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=9).fit(data)
    b = MST(3.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=9).fit(data)
    pd.testing.assert_frame_equal(a.sample(100), b.sample(100))
    monkeypatch.setattr(mg.estimate, "choose_backend", lambda cells, nodes, iters: "numpy")
    c = MST(3.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=9).fit(data)
    assert a.tree_ == c.tree_ and a.ledger_.total_rho == c.ledger_.total_rho
    # same iterates up to rounding until rounding flips an Armijo test; then both converge
    ja, jc = a._jtree, c._jtree
    for q in [(0, 1), (1, 2), (0, 3)]:
        np.testing.assert_allclose(ja.marginal(q), jc.marginal(q), rtol=1e-3, atol=0.05)


def test_mst_huge_epsilon_reproduces_marginals(data):
    m = MST(1e6, 1e-9, domain=DOMAIN, max_iter=1000, random_state=0).fit(data)
    s = m.sample()
    X, Y = _codes(data), _codes(s)
    assert len(s) == len(data)
    for i in range(4):
        assert _tvd(mg.true_marginal(X, SIZES, (i,)), mg.true_marginal(Y, SIZES, (i,))) < 0.02
    pos = {c: i for i, c in enumerate(COLS)}
    for a, b in m.tree_:
        q = tuple(sorted((pos[a], pos[b])))
        assert _tvd(mg.true_marginal(X, SIZES, q), mg.true_marginal(Y, SIZES, q)) < 0.02
    # the chain a-b-c is recovered (strongest dependencies)
    assert {frozenset(("a", "b")), frozenset(("b", "c"))} <= set(map(frozenset, m.tree_))


def test_mst_tiny_epsilon_compresses_everything(data):
    m = MST(0.01, 1e-9, domain=DOMAIN, max_iter=100, random_state=0).fit(data)
    assert m.ledger_.total_rho == pytest.approx(cdp_rho(0.01, 1e-9), rel=REL)
    s = m.sample(50)
    assert len(s) == 50 and not s.isna().any().any()
    assert np.isfinite(m.model_.total)


# --------------------------------------------------------------------------------------------
# MWEM+PGM and AIM
# --------------------------------------------------------------------------------------------
def test_mwem_pgm_ledger_and_rounds(mwem):
    rho = cdp_rho(2.0, 1e-6)
    assert mwem.ledger_.total_rho == pytest.approx(rho, rel=REL)
    sigma, eps = mg.mwem_pgm_budget(rho, 4)
    frame = mwem.ledger_.to_frame()
    assert list(frame["mechanism"]) == ["exponential", "gaussian"] * 4
    np.testing.assert_allclose(frame["epsilon"].iloc[::2], eps)
    np.testing.assert_allclose(frame["scale"].iloc[1::2], sigma)
    assert len(mwem.cliques_) == 4 and all(len(c) == 2 for c in mwem.cliques_)


def test_mwem_pgm_model_size_cap_restricts_candidates(data):
    # 4 rounds, cap 4·(size of the empty model + one 12-cell pair): round 1 allows only small pairs
    with pytest.raises(ValueError, match="max_model_size"):
        MWEMPGM(1.0, domain=DOMAIN, max_model_size=1e-6, max_iter=50).fit(data)


def test_aim_ledger_rounds_and_annealing(aim):
    rho = cdp_rho(2.0, 1e-6)
    assert aim.ledger_.total_rho == pytest.approx(rho, rel=REL)
    frame = aim.ledger_.to_frame()
    sigma0, eps0 = mg.aim_budget(rho, 16 * 4)
    np.testing.assert_allclose(frame["scale"].iloc[:4], sigma0)
    sel = frame[frame["mechanism"] == "exponential"]
    assert len(sel) == aim.rounds_ == len(aim.cliques_)
    meas = frame.iloc[4:][frame.iloc[4:]["mechanism"] == "gaussian"]
    assert len(meas) == aim.rounds_
    # σ only shrinks (annealing halves it; the last round uses the remainder)
    assert np.all(np.diff(meas["scale"].to_numpy()) <= 1e-12)
    ratios = meas["scale"].to_numpy()[:-1] / sigma0
    np.testing.assert_allclose(np.log2(ratios), np.round(np.log2(ratios)), atol=1e-9)


def test_aim_and_mwem_reproducible(data):
    one = AIM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=5).fit(data)
    two = AIM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=5).fit(data)
    assert one.cliques_ == two.cliques_
    pd.testing.assert_frame_equal(one.sample(300), two.sample(300))
    one = MWEMPGM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=4).fit(data)
    two = MWEMPGM(2.0, 1e-6, domain=DOMAIN, max_iter=200, random_state=4).fit(data)
    pd.testing.assert_frame_equal(one.sample(300), two.sample(300))


@pytest.mark.parametrize("cls,kw", [(MWEMPGM, {"max_iter": 300}), (AIM, {"max_iter": 300})])
def test_huge_epsilon_reproduces_workload_marginals(cls, kw, data):
    m = cls(1e6, 1e-9, domain=DOMAIN, random_state=1, **kw).fit(data)
    X, Y = _codes(data), _codes(m.sample())
    pos = {c: i for i, c in enumerate(COLS)}
    measured = {tuple(sorted(pos[c] for c in cl)) for cl in m.cliques_}
    assert measured
    for q in measured | {(i,) for i in range(4) if any(i in c for c in measured)}:
        assert _tvd(mg.true_marginal(X, SIZES, q), mg.true_marginal(Y, SIZES, q)) < 0.02, q


def test_aim_custom_workload_and_errors(data):
    m = AIM(
        5.0,
        1e-6,
        domain=DOMAIN,
        workload=[("a", "b"), (("b", "c"), 2.0)],
        rounds=8,
        max_iter=100,
        random_state=0,
    ).fit(data)
    assert m.ledger_.total_rho == pytest.approx(cdp_rho(5.0, 1e-6), rel=REL)
    assert all(set(c) <= {"a", "b", "c"} for c in m.cliques_)
    with pytest.raises(ValueError, match="'zz'"):
        AIM(domain=DOMAIN, workload=[("a", "zz")]).fit(data)
    with pytest.raises(ValueError, match="rounds"):
        AIM(domain=DOMAIN, rounds=3).fit(data)
    with pytest.raises(ValueError, match="max_cells"):
        AIM(domain=DOMAIN, max_cells=2).fit(data)


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [MST, MWEMPGM, AIM])
def test_bad_parameters_and_inputs(cls, data):
    with pytest.raises(ValueError, match="epsilon"):
        cls(0.0).fit(data)
    with pytest.raises(ValueError, match="epsilon"):
        cls(-1.0).fit(data)
    with pytest.raises(ValueError, match="delta"):
        cls(1.0, 0.0).fit(data)
    with pytest.raises(ValueError, match="delta"):
        cls(1.0, 1.0).fit(data)
    with pytest.raises(NotFittedError):
        cls(domain=DOMAIN).sample(5)
    bad = data.copy()
    bad.loc[0, "b"] = 4
    with pytest.raises(ValueError, match="'b'"):
        cls(domain=DOMAIN).fit(bad)
    nan = data.astype(float)
    nan.loc[1, "a"] = np.nan
    with pytest.raises(ValueError, match="'a'"):
        cls(domain=DOMAIN).fit(nan)


def test_bad_synthesizer_specific_parameters(data):
    with pytest.raises(ValueError, match="max_iter"):
        MST(max_iter=0).fit(data)
    with pytest.raises(TypeError, match="max_iter"):
        MST(max_iter=2.5).fit(data)
    with pytest.raises(ValueError, match="max_model_size"):
        AIM(max_model_size=0).fit(data)
    with pytest.raises(TypeError, match="max_model_size"):
        MWEMPGM(max_model_size="big").fit(data)
    with pytest.raises(ValueError, match="rounds"):
        MWEMPGM(rounds=0).fit(data)
    with pytest.raises(TypeError, match="workload"):
        AIM(workload="ab").fit(data)
    with pytest.raises(TypeError, match="workload"):
        MWEMPGM(workload=["a"]).fit(data)
    with pytest.raises(ValueError, match="max_cells"):
        AIM(max_cells=0).fit(data)


# --------------------------------------------------------------------------------------------
# property: the ledger always sums to cdp_rho(ε, δ)
# --------------------------------------------------------------------------------------------
def _stub_fit(self, measurements, *, iters, warm_start=None):
    """A fitter without JAX: random potentials on the measured cliques (any model is allowed)."""
    cliques = sorted({m.clique for m in measurements}, key=lambda c: (len(c), c))
    cliques = [c for c in cliques if not any(set(c) < set(o) for o in cliques)]
    seed = len(measurements) + 7 * sum(sum(c) for c in cliques)
    return _random_model(self.sizes, cliques, seed, total=mg.total_estimate(measurements))


def _ledger_cases(seed: int):
    rng = np.random.default_rng(seed)
    for case in range(10):
        eps = float(np.exp(rng.uniform(np.log(0.01), np.log(50))))
        delta = float(np.exp(rng.uniform(np.log(1e-9), np.log(1e-3))))
        d = int(rng.integers(1, 6))
        sizes = {f"v{i}": int(rng.integers(1, 6)) for i in range(d)}
        n = int(rng.integers(20, 80))
        df = pd.DataFrame({c: rng.integers(0, k, n) for c, k in sizes.items()})
        yield case, eps, delta, sizes, df


def test_ledger_property_random_budgets_and_domains():
    """Real fits (few iterations) on random budgets and domains: the ledger sums to cdp_rho."""
    for case, eps, delta, sizes, df in _ledger_cases(2024):
        rho = cdp_rho(eps, delta)
        for synth in (
            MST(eps, delta, domain=sizes, max_iter=50, random_state=case),
            MWEMPGM(eps, delta, domain=sizes, max_iter=50, random_state=case),
            AIM(eps, delta, domain=sizes, max_iter=50, random_state=case),
        ):
            synth.fit(df)
            assert synth.ledger_.total_rho == pytest.approx(rho, rel=REL), (
                case,
                type(synth).__name__,
            )
            out = synth.sample(10)
            assert out.shape == (10, len(sizes)) and not out.isna().any().any()
            assert all(out[c].between(0, k - 1).all() for c, k in sizes.items())


def test_ledger_property_with_arbitrary_models(monkeypatch):
    """The budget logic holds whatever model the fitter returns (random potentials drive AIM's
    annealing and selections through many different paths)."""
    monkeypatch.setattr(mg.PGMFitter, "fit", _stub_fit)
    for case, eps, delta, sizes, df in _ledger_cases(7):
        rho = cdp_rho(eps, delta)
        for synth in (
            MST(eps, delta, domain=sizes, random_state=case),
            MWEMPGM(eps, delta, domain=sizes, random_state=case),
            AIM(eps, delta, domain=sizes, random_state=case),
        ):
            synth.fit(df)
            assert synth.ledger_.total_rho == pytest.approx(rho, rel=REL), (
                case,
                type(synth).__name__,
            )
