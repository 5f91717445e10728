"""Tests of ``synthtrust.synthesizers.cart``.

The oracles and the shared set-up are described in ``tests/_generator_data.py``.
"""

import numpy as np
import pandas as pd
import pytest

from synthtrust.domain import Categorical, Domain
from synthtrust.synthesizers import NotFittedError, SequentialCART


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
