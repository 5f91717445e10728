"""Generators audited in the auditing chapter (Houssiau et al. 2022, §4.4) and the census data:
IPF and noise-free Private-PGM on declared marginals (honest/dishonest), sequential CART,
the census loaders and the census public domain."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from synthtrust import datasets
from synthtrust.domain import Categorical, Domain, dataset_domain
from synthtrust.synthesizers import IPF, NotFittedError, PGMMarginals, SequentialCART
from synthtrust.synthesizers.ipf import MAX_IPF_CELLS

SIZES = {"a": 2, "b": 3, "c": 2}
CHAIN = [("a", "b"), ("b", "c")]
PAIRS = [("a", "b"), ("a", "c"), ("b", "c")]
ABC = ("a", "b", "c")


def _table(df, cols, sizes=SIZES):
    t = np.zeros([sizes[c] for c in cols])
    np.add.at(t, tuple(df[c].to_numpy() for c in cols), 1)
    return t


@pytest.fixture(scope="module")
def data():
    """2 000 rows with a strong 3-way interaction: c = (a + b) mod 2 with probability 0.8."""
    rng = np.random.default_rng(1)
    n = 2000
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 3, n)
    c = np.where(rng.random(n) < 0.8, (a + b) % 2, rng.integers(0, 2, n))
    return pd.DataFrame({"a": a, "b": b, "c": c})


@pytest.fixture(scope="module")
def maxent(data):
    """Exact maximum-entropy distribution (shape (2, 3, 2)) with the data's 2-way marginals:
    the dual log Σ exp(Aᵀλ) − λᵀb minimised by scipy (BFGS); its gradient A·p − b is ~1e-9."""
    cells = list(itertools.product(*(range(k) for k in SIZES.values())))
    p_emp = _table(data, ABC).ravel() / len(data)
    rows = []
    for i, j in itertools.combinations(range(3), 2):
        for vi, vj in itertools.product(
            range(list(SIZES.values())[i]), range(list(SIZES.values())[j])
        ):
            rows.append([float(x[i] == vi and x[j] == vj) for x in cells])
    A = np.array(rows)
    b = A @ p_emp

    def dual(lam):
        z = A.T @ lam
        m = z.max()
        w = np.exp(z - m)
        return np.log(w.sum()) + m - lam @ b, A @ (w / w.sum()) - b

    res = minimize(
        dual, np.zeros(len(b)), jac=True, method="BFGS", options={"gtol": 1e-13, "maxiter": 10_000}
    )
    z = A.T @ res.x
    p = np.exp(z - z.max())
    p /= p.sum()
    assert np.abs(A @ p - b).max() < 1e-7  # the oracle itself satisfies the constraints
    return p.reshape(tuple(SIZES.values()))


@pytest.fixture(scope="module")
def fitted(data):
    """Honest (2-way) and dishonest (+ the 3-way marginal) IPF and PGM, fitted once."""
    out = {}
    for cls in (IPF, PGMMarginals):
        out[cls.__name__, "honest"] = cls.honest(PAIRS, ABC, domain=SIZES, random_state=0).fit(data)
        out[cls.__name__, "dishonest"] = cls.dishonest(
            PAIRS, ABC, domain=SIZES, random_state=0
        ).fit(data)
    return out


# --------------------------------------------------------------------------------------------
# IPF
# --------------------------------------------------------------------------------------------
def test_ipf_chain_closed_form(data):
    """Decomposable a–b, b–c: the maximum-entropy table is n_ab·n_bc / n_b, reached in one sweep."""
    gen = IPF(CHAIN, domain=SIZES).fit(data)
    nab, nbc = _table(data, ("a", "b")), _table(data, ("b", "c"))
    expected = nab[:, :, None] * nbc[None, :, :] / nab.sum(axis=0)[None, :, None]
    np.testing.assert_allclose(gen.table_, expected, rtol=0, atol=1e-9)
    assert gen.table_.shape == (2, 3, 2)
    assert gen.n_iter_ == 1 and gen.converged_ and gen.gap_ <= 1e-9
    assert gen.table_.sum() == pytest.approx(len(data), abs=1e-9)


def test_ipf_matches_the_declared_marginals_to_tol(data):
    gen = IPF(PAIRS, domain=SIZES, tol=0.5).fit(data)
    gap = sum(
        np.abs(
            gen.table_.sum(axis=tuple(k for k in range(3) if ABC[k] not in cl)) - _table(data, cl)
        ).sum()
        for cl in PAIRS
    )
    assert gap <= 0.5
    assert gen.gap_ == pytest.approx(gap, abs=1e-9)
    assert gen.converged_ and gen.n_iter_ >= 2  # the triangle is not decomposable
    for cl in PAIRS:
        np.testing.assert_allclose(gen.marginals_[cl], _table(data, cl))
        np.testing.assert_allclose(gen.fitted_marginal(cl), _table(data, cl), atol=0.5)
    # fitted_marginal follows the requested column order
    np.testing.assert_allclose(gen.fitted_marginal(("c", "a")), gen.fitted_marginal(("a", "c")).T)


def test_ipf_is_the_maximum_entropy_distribution(data, maxent):
    gen = IPF(PAIRS, domain=SIZES, tol=1e-6).fit(data)
    np.testing.assert_allclose(gen.table_ / len(data), maxent, rtol=0, atol=1e-6)
    # and it is far from the data's own 3-way table (the interaction is not in the card)
    assert np.abs(gen.table_ - _table(data, ABC)).sum() > 0.1 * len(data)


def test_ipf_samples_iid_from_the_table(data):
    gen = IPF(PAIRS, domain=SIZES, random_state=3).fit(data)
    n = 50_000
    syn = gen.sample(n)
    assert list(syn.columns) == list(SIZES) and len(syn) == n
    assert all(syn[c].dtype == np.int64 for c in syn)
    p = gen.table_ / gen.table_.sum()
    counts = _table(syn, ABC)
    sd = np.sqrt(n * p * (1 - p))
    assert np.all(np.abs(counts - n * p) <= 5 * sd + 1e-9)
    assert len(gen.sample()) == len(data)  # default n = training rows


def test_ipf_determinism(data):
    g1 = IPF(PAIRS, domain=SIZES, random_state=7).fit(data)
    g2 = IPF(PAIRS, domain=SIZES, random_state=7).fit(data)
    np.testing.assert_array_equal(g1.table_, g2.table_)
    pd.testing.assert_frame_equal(g1.sample(500), g2.sample(500))
    g3 = IPF(PAIRS, domain=SIZES, random_state=8).fit(data)
    assert not g3.sample(500).equals(g1.sample(500))


def test_ipf_not_converged_warns(data):
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        gen = IPF(PAIRS, domain=SIZES, tol=1e-12, max_iter=1).fit(data)
    assert gen.n_iter_ == 1 and not gen.converged_ and gen.gap_ > 1e-12


def test_ipf_unobserved_levels_and_encoder_domain():
    """A level never seen gets probability 0; a Domain encodes and decodes."""
    df = pd.DataFrame({"s": ["x", "y", "y", "x", "y"], "t": [1, 2, 2, 1, 1]})
    dom = Domain({"s": Categorical(["x", "y", "z"]), "t": Categorical([1, 2])})
    gen = IPF([("s", "t")], domain=dom, random_state=0).fit(df)
    assert gen.domain_ == {"s": 3, "t": 2}
    np.testing.assert_allclose(gen.table_, [[2, 0], [1, 2], [0, 0]])
    syn = gen.sample(200)
    assert set(syn["s"]) <= {"x", "y"} and set(syn["t"]) <= {1, 2}
    assert not ((syn["s"] == "x") & (syn["t"] == 2)).any()


def test_ipf_bad_input(data):
    with pytest.raises(ValueError, match=r"marginal \('a', 'z'\) names column\(s\) \['z'\]"):
        IPF([("a", "z")], domain=SIZES).fit(data)
    with pytest.raises(ValueError, match="marginals is empty"):
        IPF([]).fit(data)
    with pytest.raises(TypeError, match="marginals must be a list"):
        IPF("ab").fit(data)
    with pytest.raises(ValueError, match="empty clique"):
        IPF([()]).fit(data)
    with pytest.raises(ValueError, match="repeats a column"):
        IPF([("a", "a")]).fit(data)
    with pytest.raises(ValueError, match=r"tol must be in \(0.0, inf\)"):
        IPF(PAIRS, tol=0).fit(data)
    with pytest.raises(TypeError, match="tol must be a real number"):
        IPF(PAIRS, tol="0.5").fit(data)
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        IPF(PAIRS, max_iter=0).fit(data)
    with pytest.raises(TypeError, match="random_state"):
        IPF(PAIRS, random_state=1.5).fit(data)
    with pytest.raises(NotFittedError):
        IPF(PAIRS).sample(3)
    with pytest.raises(ValueError, match="column 'b' has code 2, outside the domain 0..1"):
        IPF(PAIRS, domain={"a": 2, "b": 2, "c": 2}).fit(data)
    # the size limit: 8 columns of 10 levels = 10^8 cells
    wide = pd.DataFrame({f"x{i}": [0, 1] for i in range(8)})
    with pytest.raises(ValueError, match=r"100,000,000 cells.*limit of 50,000,000"):
        IPF([("x0", "x1")], domain={f"x{i}": 10 for i in range(8)}).fit(wide)
    assert MAX_IPF_CELLS == 50_000_000


def test_ipf_card_and_ledger(data):
    gen = IPF(CHAIN, domain=SIZES)
    assert gen.ledger_ is None
    card = gen.fit(data).card()
    assert card["synthesizer"] == "IPF"
    assert card["differentially_private"] is False and card["privacy"].startswith("not DP")
    assert card["marginals"] == [("a", "b"), ("b", "c")]
    assert card["params"]["tol"] == 0.5 and card["params"]["max_iter"] == 10_000
    assert card["n_records"] == len(data)


# --------------------------------------------------------------------------------------------
# noise-free Private-PGM
# --------------------------------------------------------------------------------------------
def test_pgm_chain_matches_data_marginals_and_ipf(data):
    gen = PGMMarginals(CHAIN, domain=SIZES, random_state=0).fit(data)
    assert gen.ledger_ is None
    for cl in CHAIN:
        np.testing.assert_allclose(gen.fitted_marginal(cl), _table(data, cl), rtol=0, atol=1e-6)
    ipf = IPF(CHAIN, domain=SIZES).fit(data)
    np.testing.assert_allclose(gen.fitted_marginal(ABC), ipf.table_, rtol=0, atol=1e-6)
    card = gen.card()
    assert card["differentially_private"] is False and card["marginals"] == list(CHAIN)


def test_pgm_is_the_maximum_entropy_distribution(data, maxent, fitted):
    gen = fitted["PGMMarginals", "honest"]
    np.testing.assert_allclose(gen.fitted_marginal(ABC) / len(data), maxent, rtol=0, atol=1e-6)


def test_pgm_sampling_is_deterministic_and_rounds(data):
    g1 = PGMMarginals(CHAIN, domain=SIZES, max_iter=200, random_state=4).fit(data)
    g2 = PGMMarginals(CHAIN, domain=SIZES, max_iter=200, random_state=4).fit(data)
    s1, s2 = g1.sample(), g2.sample()
    pd.testing.assert_frame_equal(s1, s2)
    assert len(s1) == len(data)
    # randomised rounding: the 1-way marginal of the first generated column is matched to < 1
    one_way = [np.abs(_table(s1, (c,)) - _table(data, (c,))).max() for c in SIZES]
    assert min(one_way) < 1.0
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        PGMMarginals(CHAIN, max_iter=0).fit(data)


# --------------------------------------------------------------------------------------------
# honest / dishonest
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [IPF, PGMMarginals])
def test_dishonest_reproduces_the_unsafe_marginal(cls, data, fitted):
    honest, dishonest = fitted[cls.__name__, "honest"], fitted[cls.__name__, "dishonest"]
    assert honest.marginals == PAIRS and dishonest.marginals == [*PAIRS, ABC]
    real = _table(data, ABC)
    # the models: the dishonest one holds the data's 3-way table, the honest one does not
    assert np.abs(dishonest.fitted_marginal(ABC) - real).sum() <= 0.5
    assert np.abs(honest.fitted_marginal(ABC) - real).sum() > 0.1 * len(data)
    # both keep the declared 2-way marginals
    for gen in (honest, dishonest):
        for cl in PAIRS:
            assert np.abs(gen.fitted_marginal(cl) - _table(data, cl)).sum() <= 0.5
    # and their samples show it (sampling error of 2 000 rows ≈ 0.03 N in L1)
    n = len(data)
    assert np.abs(_table(dishonest.sample(), ABC) - real).sum() < 0.06 * n
    assert np.abs(_table(honest.sample(), ABC) - real).sum() > 0.1 * n


def test_honest_dishonest_bad_input():
    with pytest.raises(ValueError, match="unsafe has an empty clique"):
        IPF.dishonest(PAIRS, [])
    with pytest.raises(TypeError, match="each clique of unsafe"):
        IPF.dishonest(PAIRS, 3)
    gen = IPF.dishonest(PAIRS, ABC, tol=0.1, random_state=2)
    assert gen.tol == 0.1 and gen.random_state == 2 and gen.marginals[-1] == ABC
    assert IPF.honest(PAIRS, ABC).marginals == PAIRS


# --------------------------------------------------------------------------------------------
# sequential CART
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cart_data():
    rng = np.random.default_rng(5)
    n = 3000
    a = rng.choice(4, n, p=[0.1, 0.2, 0.3, 0.4])
    b = rng.integers(0, 2, n)
    c = (a % 2) ^ b  # deterministic given (a, b)
    d = a.copy()  # copy of a
    e = np.where(rng.random(n) < 0.6, b, rng.integers(0, 3, n))  # noisy: impure leaves
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "e": e})


@pytest.fixture(scope="module")
def cart(cart_data):
    return SequentialCART(min_samples_leaf=20, random_state=0).fit(cart_data)


def test_cart_first_column_is_the_empirical_marginal(cart, cart_data):
    n = 40_000
    syn = cart.sample(n)
    p = cart_data["a"].value_counts(normalize=True).sort_index().to_numpy()
    counts = syn["a"].value_counts().reindex(range(4), fill_value=0).to_numpy()
    assert np.all(np.abs(counts - n * p) <= 5 * np.sqrt(n * p * (1 - p)))


def test_cart_reproduces_deterministic_relations(cart):
    syn = cart.sample(5000)
    np.testing.assert_array_equal(syn["c"], (syn["a"] % 2) ^ syn["b"])
    np.testing.assert_array_equal(syn["d"], syn["a"])


def test_cart_values_come_from_the_same_leaf(cart, cart_data):
    syn = cart.sample(5000)
    for j, col in enumerate(cart.columns_[1:], start=1):
        real = set(zip(cart.leaves(j, cart_data).tolist(), cart_data[col].tolist(), strict=True))
        synth = set(zip(cart.leaves(j, syn).tolist(), syn[col].tolist(), strict=True))
        assert synth <= real, col
    # column e has impure leaves (so the check above is not trivial) of >= 20 real rows
    leaf_e = cart.leaves(4, cart_data)
    per_leaf = pd.Series(cart_data["e"].to_numpy()).groupby(leaf_e).nunique()
    assert per_leaf.max() > 1
    assert np.bincount(leaf_e)[np.unique(leaf_e)].min() >= 20
    # within a leaf, the synthetic values follow the leaf's pool (pooled over leaves: the share
    # of e == b; real share = 0.6 + 0.4/3 ≈ 0.733, binomial band for 5 000 rows)
    share = float((syn["e"] == syn["b"]).mean())
    real_share = float((cart_data["e"] == cart_data["b"]).mean())
    assert abs(share - real_share) < 5 * np.sqrt(real_share * (1 - real_share) / 5000)


def test_cart_determinism(cart_data):
    s1 = SequentialCART(random_state=11).fit(cart_data).sample(1000)
    s2 = SequentialCART(random_state=11).fit(cart_data).sample(1000)
    pd.testing.assert_frame_equal(s1, s2)
    s3 = SequentialCART(random_state=12).fit(cart_data).sample(1000)
    assert not s1.equals(s3)


def test_cart_encoder_domain_and_single_column():
    df = pd.DataFrame({"s": ["x", "y", "y", "x", "y"] * 4, "t": [1, 2, 2, 1, 2] * 4})
    dom = Domain({"s": Categorical(["x", "y"]), "t": Categorical([1, 2])})
    syn = SequentialCART(min_samples_leaf=2, domain=dom, random_state=0).fit(df).sample(100)
    assert list(syn.columns) == ["s", "t"] and set(syn["s"]) <= {"x", "y"}
    np.testing.assert_array_equal(syn["t"], np.where(syn["s"] == "x", 1, 2))
    one = SequentialCART(random_state=0).fit(df[["t"]])
    assert one.trees_ == [None] and set(one.sample(50)["t"]) <= {1, 2}


def test_cart_bad_input(cart_data):
    with pytest.raises(ValueError, match="min_samples_leaf must be >= 1.*got 0"):
        SequentialCART(min_samples_leaf=0).fit(cart_data)
    with pytest.raises(TypeError, match="min_samples_leaf must be an integer"):
        SequentialCART(min_samples_leaf=2.5).fit(cart_data)
    with pytest.raises(TypeError, match="X must be a pandas DataFrame"):
        SequentialCART().fit(cart_data.to_numpy())
    with pytest.raises(ValueError, match="missing value"):
        SequentialCART().fit(cart_data.astype(float).assign(a=np.nan))
    with pytest.raises(ValueError, match="column 'a' has code 3, outside the domain 0..1"):
        SequentialCART(domain={"a": 2, "b": 2, "c": 2, "d": 4, "e": 3}).fit(cart_data)
    with pytest.raises(NotFittedError):
        SequentialCART().sample(3)
    gen = SequentialCART(random_state=0).fit(cart_data)
    with pytest.raises(ValueError, match=r"j must be an integer in 1..4"):
        gen.leaves(0, cart_data)
    with pytest.raises(ValueError, match="n must be >= 1"):
        gen.sample(0)
    assert gen.ledger_ is None
    card = gen.card()
    assert card["differentially_private"] is False and card["params"] == {"min_samples_leaf": 5}
    assert card["n_leaves"][0] == 1 and all(k >= 1 for k in card["n_leaves"])


# --------------------------------------------------------------------------------------------
# census data and its public domain
# --------------------------------------------------------------------------------------------
CENSUS_SIZES = {
    "Region": 10,
    "Residence Type": 2,
    "Family Composition": 7,
    "Population Base": 3,
    "Sex": 2,
    "Age": 8,
    "Marital Status": 5,
    "Student": 2,
    "Country of Birth": 3,
    "Health": 6,
    "Ethnic Group": 6,
    "Religion": 10,
    "Economic Activity": 10,
    "Occupation": 10,
    "Industry": 13,
    "Hours worked per week": 5,
    "Approximated Social Grade": 5,
}


@pytest.fixture(scope="module")
def census():
    return {n: datasets.load(n) for n in ("census2011_random10k", "census2011_first50k")}


def test_census_loaders(census):
    small, first = census["census2011_random10k"], census["census2011_first50k"]
    assert small.shape == (10_000, 18) and first.shape == (50_000, 18)
    assert list(small.columns) == list(first.columns) == ["Person ID", *CENSUS_SIZES]
    assert not any(str(c).startswith("Unnamed") for c in small.columns)
    pd.testing.assert_index_equal(small.index, pd.RangeIndex(10_000))
    assert small["Person ID"].is_unique
    assert small.iloc[0, :4].tolist() == [7529361, "E12000002", "H", 3]  # first data line


def test_census_domain_encodes_both_files(census):
    dom = dataset_domain("census2011")
    assert dom.sizes == CENSUS_SIZES
    assert dom.cells == int(np.prod(list(CENSUS_SIZES.values())))
    for name, df in census.items():
        attrs = df.drop(columns="Person ID")
        codes = dom.encode(attrs)
        for col, k in CENSUS_SIZES.items():
            assert codes[col].between(0, k - 1).all(), (name, col)
        pd.testing.assert_frame_equal(dom.decode(codes), attrs)  # values and dtypes
        # -9 ("no code required") is its own level, code 0, and decodes back
        for col in ("Health", "Economic Activity", "Occupation", "Industry"):
            nine = attrs[col] == -9
            assert nine.any(), (name, col)
            np.testing.assert_array_equal(codes[col] == 0, nine)
    assert dom["Health"].categories[0] == -9 and dom["Sex"].categories == (1, 2)
    assert "Person ID" not in dom
    with pytest.raises(ValueError, match="available: .*census2011"):
        dataset_domain("census")


def test_census_codes_feed_the_generators(census):
    """App. 1's columns (Economic Activity, Occupation, Sex): 200 cells, IPF honest vs dishonest."""
    cols = ["Economic Activity", "Occupation", "Sex"]
    dom = dataset_domain("census2011").select(cols)
    codes = dom.encode(census["census2011_random10k"][cols])
    pairs = list(itertools.combinations(cols, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gen = IPF.dishonest(pairs, tuple(cols), domain=dom.sizes).fit(codes)
    assert gen.table_.shape == (10, 10, 2)
    real = _table(codes, cols, dom.sizes)
    assert np.abs(gen.table_ - real).sum() <= 0.5
