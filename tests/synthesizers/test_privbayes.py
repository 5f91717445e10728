"""Tests of synthtrust.synthesizers.privbayes against oracles: scikit-learn's mutual information,
hand-computed θ-usefulness / sensitivity values (DataSynthesizer 0.1.13's formulas), brute-force
replacement of one record, chi-square checks of the sampler, and the ledger total."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import mutual_info_score

from synthtrust import datasets
from synthtrust.synthesizers.privbayes import (
    MAX_CELLS_LIMIT,
    PrivBayes,
    _entropy,
    _maximal_parent_sets,
    _parent_key,
    choose_degree,
    mi_sensitivity,
    mutual_information,
    theta_usefulness,
)

PAPER_EPSILONS = [0.01, 0.1, 1, 3, 5, 7, 9, 10, 15, 20, 50]  # Movahedi et al. 2024 (file 003)

# fixed, public bin edges for the Pima diabetes table (≤ 10 levels per column)
PIMA_EDGES = {
    "Pregnancies": [-np.inf, 0, 1, 2, 3, 5, 7, 10, np.inf],
    "Glucose": [-np.inf, 80, 100, 120, 140, 160, 180, np.inf],
    "BloodPressure": [-np.inf, 40, 60, 70, 80, 90, np.inf],
    "SkinThickness": [-np.inf, 0, 15, 25, 35, np.inf],
    "Insulin": [-np.inf, 0, 100, 200, np.inf],
    "BMI": [-np.inf, 0, 25, 30, 35, 40, np.inf],
    "DiabetesPedigreeFunction": [-np.inf, 0.25, 0.5, 0.75, 1.0, np.inf],
    "Age": [-np.inf, 25, 30, 40, 50, 60, np.inf],
}


@pytest.fixture(scope="module")
def pima():
    raw = datasets.load("pima_diabetes")
    out = {
        col: pd.cut(raw[col], edges, labels=False).astype("int64")
        for col, edges in PIMA_EDGES.items()
    }
    out["Outcome"] = raw["Outcome"].astype("int64")
    domain = {col: len(edges) - 1 for col, edges in PIMA_EDGES.items()} | {"Outcome": 2}
    return pd.DataFrame(out), domain


def _random_table(rng, n, levels, dependent=True):
    """Columns with random levels; each column after the first copies an earlier one half the time."""
    cols = {}
    names = [f"c{i}" for i in range(len(levels))]
    for i, (name, k) in enumerate(zip(names, levels, strict=True)):
        col = rng.integers(0, k, n)
        if dependent and i > 0:
            src = cols[names[rng.integers(0, i)]] % k
            col = np.where(rng.random(n) < 0.5, src, col)
        cols[name] = col
    return pd.DataFrame(cols), dict(zip(names, (int(k) for k in levels), strict=True))


def _joint_tvd(a, b, domain):
    cols = list(domain)
    dims = [domain[c] for c in cols]
    pa = np.bincount(
        np.ravel_multi_index([a[c].to_numpy() for c in cols], dims), minlength=math.prod(dims)
    )
    pb = np.bincount(
        np.ravel_multi_index([b[c].to_numpy() for c in cols], dims), minlength=math.prod(dims)
    )
    return 0.5 * np.abs(pa / pa.sum() - pb / pb.sum()).sum()


# ----------------------------------------------------------------------------------------------
# formulas
# ----------------------------------------------------------------------------------------------
def test_mutual_information_matches_sklearn():
    rng = np.random.default_rng(1)
    for _trial in range(20):
        n = int(rng.integers(5, 3000))
        kx, k1, k2 = (int(v) for v in rng.integers(1, 9, 3))
        p1 = rng.integers(0, k1, n)
        p2 = rng.integers(0, k2, n)
        x = np.where(rng.random(n) < rng.random(), (p1 + p2) % kx, rng.integers(0, kx, n))
        label = np.array([f"{a} {b}" for a, b in zip(p1, p2, strict=True)])
        oracle1 = mutual_info_score(x, p1)
        oracle2 = mutual_info_score(x, label)
        assert mutual_information(x, p1) == pytest.approx(oracle1, abs=1e-12)
        assert mutual_information(x, np.c_[p1, p2]) == pytest.approx(oracle2, abs=1e-12)
        # the fast kernel used inside fit (mixed-radix keys + bincount entropies)
        codes = [x.astype(np.int64), p1.astype(np.int64), p2.astype(np.int64)]
        sizes = np.array([kx, k1, k2])
        key = _parent_key(codes, sizes, (1, 2))
        fast = _entropy(codes[0]) + _entropy(key) - _entropy(key * kx + codes[0])
        assert fast == pytest.approx(oracle2, abs=1e-12)
        sparse = key * 10**6 + codes[0]  # the sort-based branch of the kernel
        assert _entropy(sparse) == pytest.approx(_entropy(key * kx + codes[0]), abs=1e-12)


def test_theta_usefulness_hand_values():
    # DataSynthesizer's calculate_k: d = 15, n = 30 000, ε = 0.1, k = 3 -> 3.906 < 4 (β = ½)
    u3 = theta_usefulness(30_000, 15, 3, 0.1)
    assert u3 == pytest.approx(30_000 * 0.1 / (12 * 2**6), rel=1e-14)
    assert round(u3, 3) == 3.906 and u3 < 4
    assert theta_usefulness(30_000, 15, 2, 0.1) == pytest.approx(3000 / (13 * 32))  # 7.21 ≥ 4
    assert choose_degree(30_000, 15, 0.1) == 2
    # adult (n = 48 842, d = 14) at ε = 1: usefulness(7) = 24421/(7·512) = 6.81, (8) = 3.97
    assert theta_usefulness(48_842, 14, 7, 1.0) == pytest.approx(24_421 / 3584)
    assert theta_usefulness(48_842, 14, 8, 1.0) == pytest.approx(24_421 / 6144)
    assert choose_degree(48_842, 14, 1.0) == 7
    # general β: n(1−β)ε/((d−k)2^{k+2}); hand loop for the degree
    # n = 2000, d = 9, ε = 1, β = 0.3: 1400/((9−k)·2^{k+2}) = 21.9, 12.5, 7.29, 4.375, 2.73, … -> 4
    n, d, eps, beta, theta = 2000, 9, 1.0, 0.3, 4.0
    hand = max(
        [k for k in range(1, d) if n * 0.7 * eps / ((d - k) * 2 ** (k + 2)) >= theta], default=0
    )
    assert choose_degree(n, d, eps, theta, beta) == hand == 4
    # the formula is flat between k = d−2 and d−1 ((d−k)·2^{k+2} equal), so "largest" picks d−1
    assert choose_degree(5000, 9, 2.0, 4.0, 0.3) == 8
    assert choose_degree(100, 10, 0.01) == 0  # nothing θ-useful: independent attributes


def test_mi_sensitivity_values():
    assert mi_sensitivity(1000, True) == pytest.approx(0.00791, abs=5e-6)
    assert mi_sensitivity(1000, False) == pytest.approx(0.01443, abs=5e-6)
    assert mi_sensitivity(30_000, True) == pytest.approx(0.000377, abs=5e-7)
    assert mi_sensitivity(30_000, False) == pytest.approx(0.000708, abs=5e-7)
    n = 1000
    assert mi_sensitivity(n, True) == pytest.approx(
        math.log(n) / n + (n - 1) / n * math.log(n / (n - 1))
    )


def test_mi_sensitivity_bounds_replace_one_brute_force():
    """Replacing one record never changes I(X;Y) by more than the lemma's bound (brute force)."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(40):
        n = int(rng.integers(3, 25))
        kx, ky = (int(v) for v in rng.integers(2, 5, 2))
        x = rng.integers(0, kx, n)
        y = np.where(rng.random(n) < 0.7, x % ky, rng.integers(0, ky, n))
        base = mutual_information(x, y)
        bound = mi_sensitivity(n, kx == 2 or ky == 2)
        for i in range(n):
            for a, b in itertools.product(range(kx), range(ky)):
                x2, y2 = x.copy(), y.copy()
                x2[i], y2[i] = a, b
                worst = max(worst, abs(mutual_information(x2, y2) - base) / bound)
    assert 0.3 < worst <= 1 + 1e-12


def test_maximal_parent_sets():
    sizes = np.array([2, 3, 5, 10, 2])
    # k = 2, limit 10: {0,1}=6, {0,2}=10, {0,4}=4, {1,4}=6, {2,4}=10; {3} alone (nothing fits with 10)
    got = set(_maximal_parent_sets([0, 1, 2, 3, 4], sizes, 2, 10))
    assert got == {(0, 1), (0, 2), (0, 4), (1, 4), (2, 4), (3,)}
    # {1,2}=15 > 10, so {1} and {2} are not maximal (0 or 4 can still be added) — nothing else
    assert _maximal_parent_sets([3], sizes, 2, 5) == [()]
    assert _maximal_parent_sets([0, 1], sizes, 1, 100) == [(0,), (1,)]


# ----------------------------------------------------------------------------------------------
# fitted model: network, ledger, noise scale
# ----------------------------------------------------------------------------------------------
def _check_network(pb, domain):
    names = [c for c, _ in pb.network_]
    assert sorted(names) == sorted(domain), "every column is a node exactly once"
    seen = set()
    for child, parents in pb.network_:
        assert set(parents) <= seen, f"parents of {child} must come earlier (DAG)"
        assert len(parents) <= pb.degree_
        assert len(set(parents)) == len(parents)
        if parents:
            assert math.prod(domain[p] for p in parents) * domain[child] <= pb.max_cells_
        cond = pb.conditionals_[child]
        assert cond.shape == tuple(domain[p] for p in parents) + (domain[child],)
        np.testing.assert_allclose(cond.sum(axis=-1), 1.0, atol=1e-12)
        assert np.all(cond >= 0)
        seen.add(child)
    assert pb.network_[0][1] == ()


def test_network_is_valid_dag_and_ledger_is_itemised(pima):
    df, domain = pima
    pb = PrivBayes(epsilon=20.0, domain=domain, random_state=3).fit(df)
    d, n = len(domain), len(df)
    assert pb.n_records_ == n
    assert pb.degree_ == choose_degree(n, d, 20.0) > 0
    assert pb.max_cells_ == math.floor(n * 10.0 / (2 * d * 4.0))
    _check_network(pb, domain)
    assert any(parents for _, parents in pb.network_)
    entries = pb.ledger_.entries
    em = [e for e in entries if e.mechanism == "exponential"]
    lap = [e for e in entries if e.mechanism == "laplace"]
    assert len(em) == d - 1 and len(lap) == len(pb.tables_) and len(entries) == len(em) + len(lap)
    m = len(pb.tables_)
    for e in em:
        assert e.epsilon == pytest.approx(10.0 / (d - 1), rel=1e-14) and e.sensitivity == 1.0
    for e in lap:  # replace-one: L1 sensitivity 2 per table, scale 2m/ε_cond
        assert e.sensitivity == 2.0
        assert e.epsilon == pytest.approx(10.0 / m, rel=1e-14)
        assert e.scale == pytest.approx(2 * m / 10.0, rel=1e-14)
    assert pb.ledger_.total_epsilon == pytest.approx(20.0, abs=1e-12)
    # every family is inside one measured table; no table is inside a later one
    fams = [set(p) | {c} for c, p in pb.network_]
    tabs = [set(t) for t in pb.tables_]
    assert all(any(f <= t for t in tabs) for f in fams)
    assert not any(a < b for a, b in itertools.permutations(tabs, 2))
    assert pb.card()["total_epsilon"] == pytest.approx(20.0)


def test_ledger_total_equals_epsilon_property():
    rng = np.random.default_rng(2024)
    for trial in range(10):
        d = int(rng.integers(1, 6))
        levels = rng.integers(1, 7, d)
        n = int(rng.integers(1, 400))
        eps = float(np.exp(rng.uniform(np.log(0.01), np.log(50))))
        beta = float(rng.uniform(0.05, 0.95))
        degree = None if rng.random() < 0.5 else int(rng.integers(0, d))
        df, domain = _random_table(rng, n, levels)
        pb = PrivBayes(eps, degree=degree, beta=beta, domain=domain, random_state=trial).fit(df)
        assert abs(pb.ledger_.total_epsilon - eps) <= 1e-12, (trial, eps, pb.ledger_.to_frame())
        assert pb.ledger_.total_delta == 0.0
        _check_network(pb, domain)
        out = pb.sample(50)
        assert list(out.columns) == list(domain) and len(out) == 50
        for c in domain:
            assert out[c].between(0, domain[c] - 1).all()


def test_empty_network_spends_everything_on_marginals(pima):
    df, domain = pima
    # ε = 1, n = 768: the θ-useful cap (768·0.5/(2·9·4) = 5 cells) fits no family with a parent
    pb = PrivBayes(1.0, domain=domain, random_state=0).fit(df)
    assert pb.degree_ == 0 and all(p == () for _, p in pb.network_)
    assert len(pb.tables_) == len(domain)
    assert all(e.mechanism == "laplace" for e in pb.ledger_)
    assert pb.ledger_.total_epsilon == pytest.approx(1.0, abs=1e-12)
    assert PrivBayes(1.0, degree=0, domain=domain, random_state=0).fit(df).degree_ == 0


# ----------------------------------------------------------------------------------------------
# limiting behaviour
# ----------------------------------------------------------------------------------------------
def test_huge_epsilon_full_degree_recovers_joint():
    rng = np.random.default_rng(11)
    n = 3000
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    e = (a + c + (rng.random(n) < 0.1)) % 2
    df = pd.DataFrame({"a": a, "b": b, "c": c, "e": e})
    domain = {"a": 3, "b": 3, "c": 2, "e": 2}
    pb = PrivBayes(1e6, degree=3, domain=domain, random_state=5).fit(df)
    assert pb.degree_ == 3 and len(pb.tables_) == 1  # one table: the full joint
    syn = pb.sample(200_000)
    assert _joint_tvd(df, syn, domain) < 0.01
    # and the fitted conditionals equal the empirical ones (noise ~1e-6)
    child, parents = pb.network_[-1]
    emp = pd.crosstab([df[p] for p in parents], df[child], normalize="index").to_numpy()
    np.testing.assert_allclose(pb.conditionals_[child].reshape(emp.shape), emp, atol=1e-4)


def test_huge_epsilon_network_finds_the_copy():
    rng = np.random.default_rng(3)
    n = 2000
    df = pd.DataFrame(
        {"x": rng.integers(0, 4, n), "y": rng.integers(0, 3, n), "z": rng.integers(0, 2, n)}
    )
    df["copy"] = df["x"]
    domain = {"x": 4, "y": 3, "z": 2, "copy": 4}
    for seed in range(6):
        pb = PrivBayes(1e6, degree=1, domain=domain, random_state=seed).fit(df)
        edges = {(c, p[0]) for c, p in pb.network_ if p}
        assert ("copy", "x") in edges or ("x", "copy") in edges, pb.network_
        syn = pb.sample(5000)
        assert (syn["x"] == syn["copy"]).mean() > 0.999


# ----------------------------------------------------------------------------------------------
# sampling
# ----------------------------------------------------------------------------------------------
def test_sampling_matches_noisy_conditionals(pima):
    df, domain = pima
    pb = PrivBayes(10.0, domain=domain, random_state=8).fit(df)
    assert any(p for _, p in pb.network_)
    syn = pb.sample(200_000)
    for child, parents in pb.network_:
        cond = pb.conditionals_[child]
        levels = cond.shape[-1]
        cond2 = cond.reshape(-1, levels)
        cfg = (
            np.ravel_multi_index([syn[p].to_numpy() for p in parents], cond.shape[:-1])
            if parents
            else np.zeros(len(syn), int)
        )
        obs = np.bincount(cfg * levels + syn[child].to_numpy(), minlength=cond2.size).reshape(
            cond2.shape
        )
        n_cfg = obs.sum(axis=1, keepdims=True)
        expected = n_cfg * cond2
        assert np.all(obs[cond2 == 0] == 0), f"{child}: drew a category of probability 0"
        rows = n_cfg[:, 0] >= 50
        pos = expected[rows] > 0
        stat = float((((obs[rows] - expected[rows]) ** 2)[pos] / expected[rows][pos]).sum())
        dof = int(pos.sum() - rows.sum())
        if dof > 0:
            assert stats.chi2.sf(stat, dof) > 1e-4, (child, parents, stat, dof)
    # the root's marginal, directly
    root = pb.network_[0][0]
    freq = np.bincount(syn[root], minlength=domain[root]) / len(syn)
    np.testing.assert_allclose(freq, pb.conditionals_[root], atol=0.005)


def test_determinism_and_default_n(pima):
    df, domain = pima
    a = PrivBayes(5.0, domain=domain, random_state=42).fit(df).sample()
    b = PrivBayes(5.0, domain=domain, random_state=42).fit(df).sample()
    c = PrivBayes(5.0, domain=domain, random_state=43).fit(df).sample()
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert len(a) == len(df)  # n is public under replace-one: no budget for it
    gen = np.random.default_rng(0)
    pb = PrivBayes(5.0, domain=domain, random_state=gen).fit(df)
    assert pb.sample(10).shape == (10, len(domain))


@pytest.mark.parametrize("eps", PAPER_EPSILONS)
def test_paper_epsilons_on_pima(pima, eps):
    df, domain = pima
    pb = PrivBayes(eps, domain=domain, random_state=int(eps * 100)).fit(df)
    syn = pb.sample(len(df))
    assert syn.shape == df.shape and not syn.isna().any().any()
    for c in domain:
        assert syn[c].between(0, domain[c] - 1).all()
    for cond in pb.conditionals_.values():
        assert np.all(np.isfinite(cond))
    assert pb.ledger_.total_epsilon == pytest.approx(eps, abs=1e-12)


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------
def test_bad_parameters():
    df = pd.DataFrame({"a": [0, 1]})
    for eps in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="epsilon"):
            PrivBayes(eps).fit(df)
    with pytest.raises(TypeError, match="epsilon"):
        PrivBayes("1").fit(df)
    with pytest.raises(ValueError, match="degree"):
        PrivBayes(1.0, degree=-1).fit(df)
    with pytest.raises(TypeError, match="degree"):
        PrivBayes(1.0, degree=1.5).fit(df)
    for beta in (0, 1, 1.2, -0.1):
        with pytest.raises(ValueError, match="beta"):
            PrivBayes(1.0, beta=beta).fit(df)
    with pytest.raises(ValueError, match="theta"):
        PrivBayes(1.0, theta=0).fit(df)
    with pytest.raises(ValueError, match="max_cells"):
        PrivBayes(1.0, max_cells=MAX_CELLS_LIMIT + 1).fit(df)
    with pytest.raises(ValueError, match="max_cells"):
        PrivBayes(1.0, max_cells=0).fit(df)
    with pytest.raises(TypeError, match="random_state"):
        PrivBayes(1.0, random_state="seed").fit(df)
    with pytest.raises(ValueError, match="beta"):
        PrivBayes(1.0).set_params(beta=2.0)
    with pytest.raises(ValueError, match="n"):
        theta_usefulness(0, 5, 1, 1.0)
    with pytest.raises(ValueError, match="k must be < d"):
        theta_usefulness(10, 5, 5, 1.0)


def test_bad_data():
    df = pd.DataFrame({"a": [0, 1, 2, 1], "b": [1, 0, 1, 1]})
    dom = {"a": 3, "b": 2}
    with pytest.raises(ValueError, match=r"degree must be < the number of columns d = 2.*got 2"):
        PrivBayes(1.0, degree=2, domain=dom).fit(df)
    with pytest.raises(ValueError, match=r"'a'.*code 2.*0\.\.1"):
        PrivBayes(1.0, domain={"a": 2, "b": 2}).fit(df)
    with pytest.raises(ValueError, match=r"'b'.*NaN"):
        PrivBayes(1.0, domain=dom).fit(df.assign(b=[1.0, np.nan, 0.0, 1.0]))
    with pytest.raises(ValueError, match=r"'a'.*code -1"):
        PrivBayes(1.0, domain=dom).fit(df.assign(a=[0, -1, 1, 1]))
    with pytest.raises(ValueError, match="not in the domain"):
        PrivBayes(1.0, domain={"a": 3}).fit(df)
    # C(40, ≤12) parent sets of binary attributes: a clear error instead of hours of enumeration
    with pytest.raises(ValueError, match="candidates in one greedy step.*degree"):
        _maximal_parent_sets(list(range(40)), np.full(41, 2), 12, 2**20)
    pb = PrivBayes(1.0, domain=dom, random_state=0)
    with pytest.raises(ValueError, match="not fitted"):
        pb.sample(3)
    pb.fit(df)
    with pytest.raises(ValueError, match="n"):
        pb.sample(0)


# ----------------------------------------------------------------------------------------------
# noise="datasynthesizer-0.1.3": the n-times-too-small count noise of Giles et al. (2022)
# ----------------------------------------------------------------------------------------------
COMPAT = "datasynthesizer-0.1.3"


def _dependent_pair(n, levels, seed, copy=0.9):
    """Columns a, b (b = a with probability ``copy``) and an independent c."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, levels, n)
    b = np.where(rng.random(n) < copy, a, rng.integers(0, levels, n))
    df = pd.DataFrame({"a": a, "b": b, "c": rng.integers(0, 3, n)})
    return df, {"a": levels, "b": levels, "c": 3}


def test_compat_ledger_records_the_true_epsilon_by_hand():
    # d = 3, degree 2, no cap: one table (a, b, c) = DataSynthesizer's d − k = 1 joint.
    # n = 5000, ε = 1e-4, β = ½: ε_net = 5e-5, ε_cond = 5e-5.
    # fork scale 2(d−k)/(n·ε_cond) = 2/(5000·5e-5) = 8 counts; true ε = 2/8 = 0.25 = n·ε_cond;
    # total = 5e-5 + 0.25 = 0.25005 (correct DP: scale 2/5e-5 = 40 000, total 1e-4).
    df, dom = _dependent_pair(5000, 4, 0)
    pb = PrivBayes(1e-4, degree=2, max_cells=2**24, noise=COMPAT, domain=dom, random_state=1).fit(
        df
    )
    led = pb.ledger_.to_frame()
    lap = led[led["mechanism"] == "laplace"]
    assert len(pb.tables_) == 1 and len(lap) == 1
    assert lap["scale"].iloc[0] == pytest.approx(8.0, rel=1e-12)
    assert lap["sensitivity"].iloc[0] == 2.0
    assert lap["epsilon"].iloc[0] == pytest.approx(0.25, rel=1e-12)
    em = led[led["mechanism"] == "exponential"]
    assert len(em) == 2 and np.allclose(em["epsilon"], 2.5e-5, rtol=1e-12)  # network unchanged
    assert pb.ledger_.total_epsilon == pytest.approx(0.25005, rel=1e-12)
    assert pb.epsilon_actual_ == pytest.approx(0.25005, rel=1e-12)
    assert pb.differentially_private_ is False
    dp = PrivBayes(1e-4, degree=2, max_cells=2**24, domain=dom, random_state=1).fit(df)
    assert dp.ledger_.to_frame()["scale"].iloc[-1] == pytest.approx(40_000.0, rel=1e-12)
    assert dp.differentially_private_ is True and dp.epsilon_actual_ == pytest.approx(1e-4)
    assert dp.network_ == pb.network_  # same seed: only the noise of the tables differs


def test_compat_scale_is_the_fork_formula_and_matches_the_empirical_spread(monkeypatch):
    """Scale 2(d−k)/(n·ε_cond) from the ledger and from the spread of the noise actually added."""
    import synthtrust.synthesizers.privbayes as pbmod

    noise = []
    real_laplace = pbmod.laplace

    def spy(value, *args, **kwargs):
        out = real_laplace(value, *args, **kwargs)
        noise.append(np.asarray(out) - np.asarray(value))
        return out

    monkeypatch.setattr(pbmod, "laplace", spy)
    rng = np.random.default_rng(4)
    n, eps, beta = 2000, 2.0, 0.3
    df = pd.DataFrame({f"x{i}": rng.integers(0, 6, n) for i in range(4)})
    dom = {c: 6 for c in df}
    d, k = 4, 2
    hand = 2 * (d - k) / (n * (1 - beta) * eps)  # 4 / 2800 counts
    for seed in range(20):
        pb = PrivBayes(
            eps, degree=k, beta=beta, max_cells=2**24, noise=COMPAT, domain=dom, random_state=seed
        ).fit(df)
        assert len(pb.tables_) == d - k  # nested families: our tables are the fork's joints
        lap = pb.ledger_.to_frame().query("mechanism == 'laplace'")
        np.testing.assert_allclose(lap["scale"], hand, rtol=1e-12)
        np.testing.assert_allclose(lap["epsilon"], 2 / hand, rtol=1e-12)  # = n·ε_cond/(d−k)
        assert pb.ledger_.total_epsilon == pytest.approx(
            beta * eps + n * (1 - beta) * eps, rel=1e-12
        )
    draws = np.concatenate([z.ravel() for z in noise])
    assert draws.size == 20 * (d - k) * 6**3
    # MLE of a Laplace scale = mean |x|, standard error b/√N
    b_hat = np.mean(np.abs(draws))
    assert abs(b_hat - hand) < 4 * hand / np.sqrt(draws.size)
    assert stats.kstest(draws, stats.laplace(scale=hand).cdf).pvalue > 1e-3


def test_compat_total_is_eps_net_plus_n_eps_cond_property():
    """Any table, degree, cap and β (including cut parent sets and the empty network)."""
    rng = np.random.default_rng(77)
    for trial in range(12):
        d = int(rng.integers(1, 6))
        levels = rng.integers(1, 7, d)
        n = int(rng.integers(1, 400))
        eps = float(np.exp(rng.uniform(np.log(1e-4), np.log(20))))
        beta = float(rng.uniform(0.1, 0.9))
        max_cells = None if rng.random() < 0.5 else int(rng.integers(1, 60))
        df, domain = _random_table(rng, n, levels)
        pb = PrivBayes(
            eps, beta=beta, max_cells=max_cells, noise=COMPAT, domain=domain, random_state=trial
        ).fit(df)
        eps_net = beta * eps if pb.degree_ > 0 else 0.0
        m = len(pb.tables_)
        lap = pb.ledger_.to_frame().query("mechanism == 'laplace'")
        np.testing.assert_allclose(lap["scale"], 2 * m / (n * (eps - eps_net)), rtol=1e-12)
        assert pb.ledger_.total_epsilon == pytest.approx(eps_net + n * (eps - eps_net), rel=1e-12)
        _check_network(pb, domain)


def test_compat_card_says_not_dp():
    df, dom = _dependent_pair(5000, 4, 0)
    pb = PrivBayes(1e-4, degree=2, max_cells=2**24, noise=COMPAT, domain=dom, random_state=1)
    card = pb.card()
    assert card["differentially_private"] is False and card["params"]["noise"] == COMPAT
    assert card["privacy"].startswith(
        "not ε-DP at the nominal ε=0.0001; actual guarantee ε = ε_net + n·ε_cond"
    )
    assert "NOT epsilon-DP at the nominal epsilon" in card["description"]
    pb.fit(df)
    card = pb.card()
    assert card["privacy"].startswith(
        "not ε-DP at the nominal ε=0.0001; actual guarantee ε = 0.25005"
    )
    assert card["privacy"] == pb.privacy_
    assert card["actual_epsilon"] == card["total_epsilon"] == pytest.approx(0.25005)
    assert card["nominal_epsilon"] == 1e-4
    assert all("NOT DP" in e.note for e in pb.ledger_ if e.mechanism == "laplace")
    dp_card = PrivBayes(1e-4, degree=2, domain=dom, random_state=1).fit(df).card()
    assert dp_card["differentially_private"] is True
    assert dp_card["privacy"] == "ε-DP (replace-one) at ε = 0.0001"
    assert "pure epsilon-DP" in dp_card["description"]


def test_tiny_epsilon_compat_keeps_the_dependence_correct_dp_does_not():
    """The chapter's point: at nominal ε = 1e-4 on 5 000 rows the fork's noise (8 counts) leaves a
    strong 2-way dependence intact; correct DP noise (40 000 counts) destroys it."""
    agree = {"dp": [], COMPAT: []}
    tvd = {"dp": [], COMPAT: []}
    for seed in range(5):
        df, dom = _dependent_pair(5000, 8, seed)
        for noise in agree:
            pb = PrivBayes(
                1e-4, degree=2, max_cells=2**24, noise=noise, domain=dom, random_state=seed
            ).fit(df)
            syn = pb.sample(20_000)
            agree[noise].append(float((syn["a"] == syn["b"]).mean()))
            tvd[noise].append(_joint_tvd(df[["a", "b"]], syn[["a", "b"]], {"a": 8, "b": 8}))
    # real: P(a = b) = 0.9 + 0.1/8 = 0.9125; independence would give 1/8. The fork's noise, clipped
    # at 0, adds E[max(Lap(8), 0)] = 4 counts to each of the 192 cells of (a, b, c): ≈ 0.8 is left.
    assert min(agree[COMPAT]) > 0.7 and max(tvd[COMPAT]) < 0.2
    assert np.mean(agree["dp"]) < 0.3 and min(tvd["dp"]) > 0.6


def test_noise_parameter_validation():
    for bad in ("DP", "datasynthesizer", None, 1):
        with pytest.raises(
            ValueError, match=r"noise must be one of \('dp', 'datasynthesizer-0.1.3'\)"
        ):
            PrivBayes(1.0, noise=bad).fit(pd.DataFrame({"a": [0, 1]}))
    with pytest.raises(ValueError, match="noise"):
        PrivBayes(1.0).set_params(noise="laplace")
    assert PrivBayes(1.0).noise == "dp"
