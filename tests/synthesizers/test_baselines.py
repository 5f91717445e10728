"""Tests of the non-private baselines Flip, IndependentMarginals and Bootstrap against
statistical oracles (binomial bands, chi-square and KS tests from scipy) on a mixed-type table
with missing values. All seeds are fixed, so the tests are deterministic."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.synthesizers import Bootstrap, Flip, IndependentMarginals, NotFittedError, Subsample

N_TRAIN = 4000
MISSING = "<NA>"


def make_table(n: int = N_TRAIN, seed: int = 0) -> pd.DataFrame:
    """Mixed types: text with NaN, a copy of it (perfect association), float with NaN and few
    values, bool, a continuous column and a near-copy of it, a pandas Categorical, an id."""
    rng = np.random.default_rng(seed)
    cat = rng.choice(
        np.array(["a", "b", "c", "d", None], dtype=object), size=n, p=[0.45, 0.25, 0.15, 0.05, 0.10]
    )
    num = rng.choice([1.0, 2.5, 4.0, np.nan], size=n, p=[0.5, 0.3, 0.15, 0.05])
    cont = rng.normal(size=n)
    return pd.DataFrame(
        {
            "cat": pd.Series(cat, dtype="str"),
            "copy": pd.Series(cat, dtype="str"),
            "num": num,
            "flag": rng.random(n) < 0.3,
            "cont": cont,
            "cont2": cont + 0.01 * rng.normal(size=n),
            "grade": pd.Categorical(rng.choice(["lo", "mid", "hi"], size=n), ["lo", "mid", "hi"]),
            "id": np.arange(n),
        }
    )


def labels(s: pd.Series) -> pd.Series:
    """Values as hashable labels with missing as its own label."""
    return s.astype(object).where(s.notna(), MISSING).astype(str)


def frequencies(s: pd.Series) -> pd.Series:
    return labels(s).value_counts(normalize=True)


def changed(a: pd.Series, b: pd.Series) -> np.ndarray:
    """Cell changed: values differ, NaN equal to NaN."""
    return labels(a).to_numpy() != labels(b).to_numpy()


def chi2_gof_pvalue(sample: pd.Series, reference: pd.Series) -> float:
    f = frequencies(reference)
    observed = labels(sample).value_counts().reindex(f.index, fill_value=0)
    assert observed.sum() == len(sample)  # no value outside the reference's values
    return stats.chisquare(observed.to_numpy(), f.to_numpy() * len(sample)).pvalue


def chi2_independence(a: pd.Series, b: pd.Series):
    table = pd.crosstab(labels(a), labels(b)).to_numpy()
    res = stats.chi2_contingency(table, correction=False)
    n = table.sum()
    cramers_v = np.sqrt(res.statistic / (n * (min(table.shape) - 1)))
    return res.pvalue, cramers_v


@pytest.fixture(scope="module")
def train() -> pd.DataFrame:
    return make_table()


# ---------------------------------------------------------------------------------------------
# Flip
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_flip_share_of_changed_cells_matches_p_times_one_minus_sum_f2(train, p):
    # a cell of value v changes with probability q = p (1 - f_v); over the n_train first rows
    # the expected share is p (1 - sum f_v^2) and the count is Poisson-binomial
    syn = Flip(p, random_state=12).fit(train).sample(N_TRAIN)
    for col in train.columns:
        f = frequencies(train[col])
        q = p * (1 - labels(train[col]).map(f).to_numpy())
        expected = p * (1 - float((f**2).sum()))
        assert q.mean() == pytest.approx(expected)
        sd = np.sqrt((q * (1 - q)).sum()) / N_TRAIN
        share = changed(syn[col], train[col]).mean()
        assert abs(share - expected) < 4.5 * sd, (col, share, expected, sd)


def test_flip_changed_cells_hold_training_values_and_unchanged_cells_the_first_rows(train):
    n = 1500
    syn = Flip(0.4, random_state=3).fit(train).sample(n)
    first = train.head(n)
    for col in train.columns:
        diff = changed(syn[col], first[col])
        assert set(labels(syn[col])[diff]) <= set(labels(train[col]))
        assert (labels(syn[col])[~diff].to_numpy() == labels(first[col])[~diff].to_numpy()).all()
    # different columns are flipped independently: the id column changed on ~40 % of rows,
    # and the rows where 'cat' and 'id' both changed are ~ p_cat * p_id of all rows
    q_id = 0.4 * (1 - 1 / N_TRAIN)
    f = frequencies(train["cat"])
    q_cat = 0.4 * (1 - labels(first["cat"]).map(f).to_numpy())
    both = changed(syn["cat"], first["cat"]) & changed(syn["id"], first["id"])
    expected = (q_cat * q_id).mean()
    sd = np.sqrt((q_cat * q_id * (1 - q_cat * q_id)).sum()) / n
    assert abs(both.mean() - expected) < 4.5 * sd


def test_flip_zero_returns_the_first_rows_exactly(train):
    model = Flip(0.0, random_state=1).fit(train)
    pd.testing.assert_frame_equal(model.sample(250), train.head(250))
    pd.testing.assert_frame_equal(model.sample(), train)


def test_flip_bootstraps_rows_when_n_exceeds_the_training_size(train):
    small = train.head(200)
    syn = Flip(0.0, random_state=5).fit(small).sample(3000)
    assert syn.shape == (3000, train.shape[1])
    pd.testing.assert_frame_equal(syn, small.iloc[syn["id"].to_numpy()].reset_index(drop=True))
    counts = np.bincount(syn["id"], minlength=200)
    assert stats.chisquare(counts).pvalue > 1e-3  # uniform with replacement
    assert (counts > 1).any()


def test_flip_one_draws_each_column_independently_from_its_marginal(train):
    syn = Flip(1.0, random_state=8).fit(train).sample(N_TRAIN)
    for col in ["cat", "num", "flag", "grade"]:
        assert chi2_gof_pvalue(syn[col], train[col]) > 1e-3, col
    # cat and copy are identical in training; after p = 1 they are independent
    assert chi2_independence(train["cat"], train["copy"])[1] == pytest.approx(1.0)
    pvalue, v = chi2_independence(syn["cat"], syn["copy"])
    assert pvalue > 1e-3 and v < 0.05
    # draws are uniform over all training rows: the id column is uniform on 0..n_train-1
    ids = syn["id"].to_numpy()
    assert abs(ids.mean() - (N_TRAIN - 1) / 2) < 4.5 * N_TRAIN / np.sqrt(12 * ids.size)
    assert stats.kstest(ids, stats.randint(0, N_TRAIN).cdf).pvalue > 1e-3
    agree = (labels(syn["cat"]) == labels(syn["copy"])).mean()
    expected = float((frequencies(train["cat"]) ** 2).sum())  # P(two independent draws agree)
    assert abs(agree - expected) < 4.5 * np.sqrt(expected * (1 - expected) / N_TRAIN)


def test_flip_keeps_dtypes_and_missing_values(train):
    syn = Flip(0.5, random_state=2).fit(train).sample(3000)
    pd.testing.assert_series_equal(syn.dtypes, train.dtypes)
    assert syn["grade"].cat.categories.tolist() == ["lo", "mid", "hi"]
    assert syn["cat"].isna().any() and syn["num"].isna().any()
    assert isinstance(syn.index, pd.RangeIndex)


def test_flip_is_deterministic_with_a_seed(train):
    a = Flip(0.3, random_state=7).fit(train).sample(800)
    b = Flip(0.3, random_state=7).fit(train).sample(800)
    c = Flip(0.3, random_state=8).fit(train).sample(800)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    g = Flip(0.3, random_state=np.random.default_rng(7)).fit(train).sample(800)
    pd.testing.assert_frame_equal(a, g)
    model = Flip(0.3, random_state=7).fit(train)
    first, second = model.sample(800), model.sample(800)
    pd.testing.assert_frame_equal(first, a)
    assert not first.equals(second)  # the stream continues between calls
    model.fit(train)  # refitting restarts the stream
    pd.testing.assert_frame_equal(model.sample(800), a)


def test_flip_does_not_see_later_changes_to_the_training_frame():
    df = make_table(50)
    model = Flip(0.0).fit(df)
    df.loc[0, "cat"] = "zzz"
    assert model.sample(1)["cat"].iloc[0] != "zzz"


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan"), float("inf")])
def test_flip_rejects_p_outside_unit_interval(bad):
    model = Flip(bad)  # stored as given: validated by fit
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\]"):
        model.fit(make_table(5))


@pytest.mark.parametrize("bad", ["0.5", None, True, [0.1]])
def test_flip_rejects_p_of_wrong_type(bad):
    with pytest.raises(TypeError, match="p must be a real number"):
        Flip(bad).fit(make_table(5))


def test_flip_set_params_validates():
    model = Flip(0.2)
    assert model.set_params(p=0.7).p == 0.7
    with pytest.raises(ValueError, match="p must be in"):
        model.set_params(p=2)
    with pytest.raises(ValueError, match="invalid parameter 'q'"):
        model.set_params(q=1)
    assert repr(Flip(0.25, random_state=3)) == "Flip(p=0.25, random_state=3)"
    assert Flip(0.25).get_params() == {"p": 0.25, "random_state": None}


# ---------------------------------------------------------------------------------------------
# IndependentMarginals
# ---------------------------------------------------------------------------------------------
def test_independent_marginals_match_the_training_marginals(train):
    n = 20000
    syn = IndependentMarginals(random_state=4).fit(train).sample(n)
    assert syn.shape == (n, train.shape[1])
    pd.testing.assert_series_equal(syn.dtypes, train.dtypes)
    for col in ["cat", "copy", "num", "flag", "grade"]:
        assert chi2_gof_pvalue(syn[col], train[col]) > 1e-3, col
    # continuous column: one-sample KS against the training ECDF (a step null: conservative)
    ref = np.sort(train["cont"].to_numpy())
    ks = stats.kstest(syn["cont"], lambda x: np.searchsorted(ref, x, side="right") / ref.size)
    assert ks.pvalue > 1e-3
    assert set(syn["cont"]) <= set(train["cont"])
    ids = syn["id"].to_numpy()
    assert stats.kstest(ids, stats.randint(0, N_TRAIN).cdf).pvalue > 1e-3


def test_independent_marginals_destroy_associations(train):
    n = 20000
    syn = IndependentMarginals(random_state=6).fit(train).sample(n)
    assert stats.pearsonr(train["cont"], train["cont2"]).statistic > 0.99
    r = stats.pearsonr(syn["cont"], syn["cont2"]).statistic
    assert abs(r) < 4.5 / np.sqrt(n)
    pvalue, v = chi2_independence(syn["cat"], syn["copy"])
    assert pvalue > 1e-3 and v < 0.03
    pvalue, _ = chi2_independence(syn["cat"], syn["grade"])
    assert pvalue > 1e-3
    # whole training records are not reproduced: id and cont come from different rows
    same_row = (syn["cont"].to_numpy() == train["cont"].to_numpy()[syn["id"].to_numpy()]).mean()
    assert same_row < 0.01


def test_independent_marginals_is_deterministic(train):
    a = IndependentMarginals(random_state=1).fit(train).sample(100)
    b = IndependentMarginals(random_state=1).fit(train).sample(100)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(IndependentMarginals(random_state=2).fit(train).sample(100))


# ---------------------------------------------------------------------------------------------
# Bootstrap
# ---------------------------------------------------------------------------------------------
def test_bootstrap_rows_all_come_from_training(train):
    n = 20000
    small = train.head(500)
    syn = Bootstrap(random_state=9).fit(small).sample(n)
    rows = syn["id"].to_numpy()
    pd.testing.assert_frame_equal(syn, small.iloc[rows].reset_index(drop=True))
    counts = np.bincount(rows, minlength=500)
    assert stats.chisquare(counts).pvalue > 1e-3  # uniform with replacement
    default = Bootstrap(random_state=9).fit(small).sample()
    assert len(default) == 500 and default["id"].duplicated().any()


# ---------------------------------------------------------------------------------------------
# Subsample (Giles et al. 2022, App. A)
# ---------------------------------------------------------------------------------------------
def test_subsample_rows_are_distinct_training_rows(train):
    syn = Subsample(0.1, random_state=3).fit(train).sample()
    assert len(syn) == 400 and list(syn.columns) == list(train.columns)
    assert syn["id"].is_unique and syn.index.equals(pd.RangeIndex(400))
    original = train.iloc[syn["id"].to_numpy()].reset_index(drop=True)
    pd.testing.assert_frame_equal(syn, original)  # whole records, dtypes and NaN kept
    full = Subsample(1.0, random_state=3).fit(train).sample()
    assert sorted(full["id"]) == list(range(N_TRAIN)) and not full["id"].is_monotonic_increasing
    assert Subsample(0.1, random_state=3).fit(train).sample(4000)["id"].nunique() == 4000


@pytest.mark.parametrize("fraction", [0.01, 0.1, 0.33333, 0.000375, 0.000625, 1.0])
def test_subsample_size_is_pandas_round_of_fraction_times_n(train, fraction):
    # pandas' DataFrame.sample(frac=) is the oracle (Python round: halves to even,
    # e.g. 0.000375·4000 = 1.5 -> 2 and 0.000625·4000 = 2.5 -> 2)
    model = Subsample(fraction, random_state=0).fit(train)
    expected = len(train.sample(frac=fraction, random_state=0))
    assert model.n_subsample_ == expected == len(model.sample())


def test_subsample_has_at_least_one_row(train):
    # 0.0001·4000 = 0.4 -> pandas returns 0 rows, the baseline 1
    assert len(train.sample(frac=0.0001, random_state=0)) == 0
    assert len(Subsample(0.0001, random_state=0).fit(train).sample()) == 1


def test_subsample_is_deterministic_with_a_seed(train):
    a = Subsample(0.05, random_state=11).fit(train)
    b = Subsample(0.05, random_state=11).fit(train)
    first = a.sample()
    pd.testing.assert_frame_equal(first, b.sample())
    pd.testing.assert_frame_equal(a.sample(), b.sample())  # the streams continue alike
    assert not first.equals(Subsample(0.05, random_state=12).fit(train).sample())
    assert not first.equals(a.sample())  # a new subsample per call


def test_subsample_includes_every_row_equally_often():
    # R subsamples of n = 5 of N = 20 rows: row i is included ~ Binomial(R, p = 1/4), and the
    # inclusion counts c have covariance R·p(1−p)·N/(N−1)·(I − 11ᵀ/N) (sampling without
    # replacement), so Σ (c − Rp)² / (R·p(1−p)·N/(N−1)) ~ χ²(N − 1) exactly in the limit
    n_rows, size, reps = 20, 5, 4000
    df = pd.DataFrame({"id": np.arange(n_rows)})
    model = Subsample(size / n_rows, random_state=5).fit(df)
    counts = np.zeros(n_rows)
    firsts = np.zeros(n_rows)
    for _ in range(reps):
        ids = model.sample()["id"].to_numpy()
        assert len(ids) == size and len(set(ids)) == size
        counts[ids] += 1
        firsts[ids[0]] += 1
    p = size / n_rows
    stat = np.sum((counts - reps * p) ** 2) / (reps * p * (1 - p) * n_rows / (n_rows - 1))
    assert stats.chi2.sf(stat, n_rows - 1) > 1e-3
    lo, hi = stats.binom.ppf([1e-4, 1 - 1e-4], reps, p)  # band for each row
    assert np.all((counts >= lo) & (counts <= hi))
    # and the order is random too: the first row of a subsample is uniform over the N rows
    assert stats.chisquare(firsts).pvalue > 1e-3


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.0001, 2, float("nan"), float("inf")])
def test_subsample_rejects_fraction_outside_zero_one(bad):
    with pytest.raises(
        ValueError, match=r"fraction must be in \(0, 1\].*got " + repr(bad).replace(".", r"\.")
    ):
        Subsample(bad).fit(make_table(5))


@pytest.mark.parametrize("bad", ["0.1", None, True])
def test_subsample_rejects_fraction_of_wrong_type(bad):
    with pytest.raises(TypeError, match="fraction must be a real number"):
        Subsample(bad).fit(make_table(5))


def test_subsample_rejects_n_above_the_training_rows(train):
    model = Subsample(0.5, random_state=0).fit(train)
    with pytest.raises(
        ValueError, match=r"n must be <= the number of training records \(4000\).*got 4001"
    ):
        model.sample(N_TRAIN + 1)
    with pytest.raises(ValueError, match="fraction"):
        model.set_params(fraction=0)


# ---------------------------------------------------------------------------------------------
# shared behaviour
# ---------------------------------------------------------------------------------------------
ALL = [
    lambda **kw: Flip(0.3, **kw),
    IndependentMarginals,
    Bootstrap,
    lambda **kw: Subsample(0.5, **kw),
]


@pytest.mark.parametrize("make", ALL)
def test_not_private_card_and_no_ledger(make, train):
    model = make(random_state=0)
    assert model.ledger_ is None and model.differentially_private is False
    card = model.card()
    assert card["differentially_private"] is False
    assert card["privacy"].startswith("not DP")
    fitted = model.fit(train).card()
    assert fitted["n_records"] == N_TRAIN and fitted["columns"] == list(train.columns)


@pytest.mark.parametrize("make", ALL)
def test_bad_data_and_sample_sizes(make):
    model = make(random_state=0)
    with pytest.raises(NotFittedError, match="not fitted"):
        model.sample(3)
    with pytest.raises(ValueError, match="X has no rows"):
        model.fit(pd.DataFrame({"a": []}))
    with pytest.raises(ValueError, match="X has no columns"):
        model.fit(pd.DataFrame(index=range(3)))
    with pytest.raises(TypeError, match="X must be a pandas DataFrame"):
        model.fit([1, 2, 3])
    model.fit(pd.DataFrame({"a": [1, 2]}))
    with pytest.raises(ValueError, match="n must be >= 1"):
        model.sample(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        model.sample(2.5)
    with pytest.raises(TypeError, match="random_state must be"):
        make(random_state="seed").fit(pd.DataFrame({"a": [1, 2]}))


def test_two_dimensional_array_is_accepted():
    syn = Bootstrap(random_state=0).fit(np.arange(6).reshape(3, 2)).sample(10)
    assert list(syn.columns) == [0, 1]
    assert ((syn[1] - syn[0]) == 1).all()


def test_all_missing_column_is_a_value_like_any_other():
    df = pd.DataFrame({"a": [1, 2, 3], "b": [np.nan] * 3})
    for model in (Flip(0.5, random_state=0), IndependentMarginals(random_state=0)):
        syn = model.fit(df).sample(50)
        assert syn["b"].isna().all() and set(syn["a"]) <= {1, 2, 3}
