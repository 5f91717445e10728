"""Tests of ``synthtrust.synthesizers.ipf``.

The oracles and the shared set-up are described in ``tests/_generator_data.py``.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from _generator_data import SIZES, _table
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from synthtrust.domain import Categorical, Domain
from synthtrust.synthesizers import IPF, NotFittedError, PGMMarginals
from synthtrust.synthesizers.ipf import MAX_IPF_CELLS

CHAIN = [("a", "b"), ("b", "c")]
PAIRS = [("a", "b"), ("a", "c"), ("b", "c")]
ABC = ("a", "b", "c")


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
