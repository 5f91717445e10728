"""Tests of synthtrust.synthesizers.GaussianCopula against a known Gaussian copula.

Oracles: data drawn from a Gaussian copula with a known correlation matrix and known
``scipy.stats`` marginals; the fitted correlation is compared with the truth within a few
standard errors of the normal-scores correlation ((1 − ρ²)/√n); marginals with Kolmogorov–
Smirnov and χ² goodness-of-fit tests at fixed seeds; the Spearman correlation of samples with
6/π·arcsin(ρ/2); the attenuation of a continuous–discrete correlation under jittered scores
with its closed form ρ·Σ_k (φ(a_k) − φ(b_k))²/p_k. All seeds are fixed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.synthesizers import GaussianCopula, NotFittedError
from synthtrust.synthesizers.copula import FAMILIES

RHO = np.array(
    [
        [1.0, 0.6, -0.3, 0.4],
        [0.6, 1.0, 0.2, 0.0],
        [-0.3, 0.2, 1.0, -0.5],
        [0.4, 0.0, -0.5, 1.0],
    ]
)
NORMAL = stats.norm(50.0, 7.0)
BETA = stats.beta(2.0, 5.0, loc=10.0, scale=40.0)
LEVELS = np.array([1, 2, 3])
LEVEL_P = np.array([0.6, 0.25, 0.15])
BINARY_P = 0.3  # P(flag = 1)


def latent(n: int, seed: int, rho: np.ndarray = RHO) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.multivariate_normal(np.zeros(len(rho)), rho, size=n)


def continuous_table(n: int, seed: int = 0) -> pd.DataFrame:
    """Three continuous margins (normal, beta, a second beta) of the first 3 latent axes."""
    u = stats.norm.cdf(latent(n, seed)[:, :3])
    return pd.DataFrame(
        {"age": NORMAL.ppf(u[:, 0]), "psa": BETA.ppf(u[:, 1]), "vol": stats.beta(3, 3).ppf(u[:, 2])}
    )


def mixed_table(n: int, seed: int = 0) -> pd.DataFrame:
    """age (normal), psa (beta), grade (ordinal 1-3) and flag (binary) from the latent copula."""
    u = stats.norm.cdf(latent(n, seed))
    cum = np.cumsum(LEVEL_P)
    return pd.DataFrame(
        {
            "age": NORMAL.ppf(u[:, 0]),
            "psa": BETA.ppf(u[:, 1]),
            "grade": LEVELS[np.searchsorted(cum, u[:, 2])],
            "flag": (u[:, 3] > 1 - BINARY_P).astype(np.int64),
        }
    )


FAMS = {"age": "normal", "psa": "beta", "vol": "beta"}


@pytest.fixture(scope="module")
def fitted_continuous():
    return GaussianCopula(FAMS, random_state=0).fit(continuous_table(20_000))


# ------------------------------------------------------------------------ known copula oracles
def test_fitted_correlation_is_the_true_one_within_sampling_error(fitted_continuous):
    n = 20_000
    est = fitted_continuous.correlation_.to_numpy()
    true = RHO[:3, :3]
    se = (1 - true**2) / np.sqrt(n)
    assert np.all(np.abs(est - true) <= 4 * se + 0.005)
    assert np.allclose(np.diag(est), 1.0)
    assert list(fitted_continuous.correlation_.columns) == ["age", "psa", "vol"]


def test_fitted_marginal_parameters(fitted_continuous):
    d = fitted_continuous.describe()
    assert d.loc["age", "family"] == "normal"
    assert d.loc["age", "loc"] == pytest.approx(50.0, abs=4 * 7 / np.sqrt(20_000))
    assert d.loc["age", "scale"] == pytest.approx(7.0, rel=0.02)
    # beta on the observed range widened by range/n on each side
    x = continuous_table(20_000)["psa"]
    pad = (x.max() - x.min()) / 20_000
    assert d.loc["psa", "loc"] == pytest.approx(x.min() - pad)
    assert d.loc["psa", "scale"] == pytest.approx(x.max() - x.min() + 2 * pad)
    # the observed range is a little inside the true [10, 50], so a, b move a little
    assert d.loc["psa", "a"] == pytest.approx(2.0, rel=0.1)
    assert d.loc["psa", "b"] == pytest.approx(5.0, rel=0.25)


def test_samples_have_the_true_marginals_ks(fitted_continuous):
    s = fitted_continuous.sample(2000, random_state=1)
    assert stats.kstest(s["age"], NORMAL.cdf).pvalue > 0.01
    assert stats.kstest(s["psa"], BETA.cdf).pvalue > 0.01
    assert stats.kstest(s["vol"], stats.beta(3, 3).cdf).pvalue > 0.01


def test_a_wrong_family_fails_the_ks_test():
    data = continuous_table(20_000)
    wrong = GaussianCopula({"age": "normal", "psa": "normal", "vol": "beta"}, random_state=0)
    s = wrong.fit(data).sample(5000, random_state=1)
    assert stats.kstest(s["psa"], BETA.cdf).pvalue < 1e-6
    # the right family on the same data passes at the same size and seed
    right = GaussianCopula(FAMS, random_state=0).fit(data).sample(5000, random_state=1)
    assert stats.kstest(right["psa"], BETA.cdf).pvalue > 0.01


def test_spearman_of_samples_is_the_gaussian_copula_value(fitted_continuous):
    s = fitted_continuous.sample(20_000, random_state=2)
    rho_s = stats.spearmanr(s.to_numpy()).statistic
    theory = 6 / np.pi * np.arcsin(RHO[:3, :3] / 2)
    assert np.all(np.abs(rho_s - theory) <= 0.025)


def test_normal_scores_of_training_data_give_the_fitted_correlation():
    data = continuous_table(5000, seed=3)
    g = GaussianCopula(FAMS, random_state=0).fit(data)
    z = g.normal_scores(data)
    assert z.shape == (5000, 3)
    assert np.allclose(np.corrcoef(z, rowvar=False), g.correlation_.to_numpy())
    # continuous scores are Φ⁻¹(F(x)): for the normal column (x − μ)/σ
    d = g.describe()
    assert np.allclose(z[:, 0], (data["age"] - d.loc["age", "loc"]) / d.loc["age", "scale"])


# ----------------------------------------------------------------------------- discrete margins
@pytest.fixture(scope="module")
def mixed():
    data = mixed_table(40_000, seed=5)
    g = GaussianCopula({"age": "normal", "psa": "beta"}, random_state=0).fit(data)
    return data, g


def test_discrete_levels_and_frequencies(mixed):
    data, g = mixed
    d = g.describe()
    assert g.families_ == {"age": "normal", "psa": "beta", "grade": "discrete", "flag": "discrete"}
    assert d.loc["grade", "levels"] == [1, 2, 3]
    assert np.allclose(
        d.loc["grade", "probabilities"], data["grade"].value_counts(normalize=True).sort_index()
    )
    s = g.sample(20_000, random_state=4)
    assert s["grade"].dtype == data["grade"].dtype and s["flag"].dtype == data["flag"].dtype
    assert set(s["grade"]) <= {1, 2, 3} and set(s["flag"]) <= {0, 1}
    observed = s["grade"].value_counts().reindex(LEVELS).to_numpy()
    fitted = np.asarray(d.loc["grade", "probabilities"]) * len(s)
    assert stats.chisquare(observed, fitted).pvalue > 0.01
    assert (
        stats.binomtest(int(s["flag"].sum()), len(s), d.loc["flag", "probabilities"][1]).pvalue
        > 0.01
    )


def test_jittered_scores_are_standard_normal(mixed):
    data, g = mixed
    z = g.normal_scores(data, random_state=0)
    for j in (2, 3):  # the discrete columns
        assert stats.kstest(z[:, j], "norm").pvalue > 0.01


def attenuation(p: np.ndarray) -> float:
    """Σ_k (φ(a_k) − φ(b_k))²/p_k: corr(jittered score, latent) for level probabilities p."""
    edges = stats.norm.ppf(np.concatenate([[0.0], np.cumsum(p)]).clip(0, 1))
    dens = stats.norm.pdf(edges)
    return float(np.sum((dens[:-1] - dens[1:]) ** 2 / p))


def test_continuous_discrete_correlation_is_attenuated_by_the_closed_form(mixed):
    _, g = mixed
    r = g.correlation_
    n = 40_000
    for col, p in (("grade", LEVEL_P), ("flag", np.array([1 - BINARY_P, BINARY_P]))):
        j = {"grade": 2, "flag": 3}[col]
        for other, i in (("age", 0), ("psa", 1)):
            expected = RHO[i, j] * attenuation(p)
            assert r.loc[other, col] == pytest.approx(expected, abs=4 / np.sqrt(n) + 0.005)
    # the binary p = 1/2 case is the classical 2/π
    assert attenuation(np.array([0.5, 0.5])) == pytest.approx(2 / np.pi)


def test_midrank_scores_are_deterministic_and_differ_from_jitter(mixed):
    data, _ = mixed
    a = GaussianCopula(
        {"age": "normal", "psa": "beta"}, discrete_scores="midrank", random_state=0
    ).fit(data)
    b = GaussianCopula(
        {"age": "normal", "psa": "beta"}, discrete_scores="midrank", random_state=99
    ).fit(data)
    pd.testing.assert_frame_equal(a.correlation_, b.correlation_)
    z = a.normal_scores(data)
    # one score per level: Φ⁻¹ of the level's mid-CDF
    mids = stats.norm.ppf(np.cumsum(LEVEL_P) - LEVEL_P / 2)
    assert np.allclose(np.unique(z[:, 2]), np.sort(mids), atol=0.02)


def test_text_and_categorical_levels_round_trip():
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.normal(size=n)
    grade = pd.Categorical(
        np.where(x < -0.5, "lo", np.where(x < 0.5, "mid", "hi")),
        categories=["lo", "mid", "hi"],
        ordered=True,
    )
    df = pd.DataFrame({"x": x, "grade": grade, "label": np.where(x > 0, "yes", "no")})
    g = GaussianCopula({"x": "normal"}, random_state=0).fit(df)
    assert list(g.levels_["grade"]) == ["lo", "mid", "hi"]  # category order, not alphabetical
    assert g.correlation_.loc["x", "grade"] > 0.7
    s = g.sample(500, random_state=1)
    assert isinstance(s["grade"].dtype, pd.CategoricalDtype)
    assert set(s["label"]) <= {"no", "yes"}
    # the latent order is kept: x is larger for "hi" than for "lo"
    assert s.loc[s["grade"] == "hi", "x"].mean() > s.loc[s["grade"] == "lo", "x"].mean()


# -------------------------------------------------------------------------- conditional draws
def test_conditional_sampling_is_the_copula_conditional(mixed):
    _, g = mixed
    s = g.sample(4000, conditions={"flag": 1}, random_state=3)
    assert (s["flag"] == 1).all() and len(s) == 4000
    # E[z_age | flag = 1] = r · E[Z | Z > Φ⁻¹(1 − p)] under the fitted correlation r
    p1 = g.describe().loc["flag", "probabilities"][1]
    a = stats.norm.ppf(1 - p1)
    m = stats.norm.pdf(a) / p1
    r = g.correlation_.loc["age", "flag"]
    d = g.describe()
    z_age = (s["age"] - d.loc["age", "loc"]) / d.loc["age", "scale"]
    sd = np.sqrt(1 - r**2 * (m * (m - a)))  # conditional sd of z_age
    assert z_age.mean() == pytest.approx(r * m, abs=4 * sd / np.sqrt(4000))


def test_conditional_sampling_matches_filtering_unconditional_draws(mixed):
    _, g = mixed
    cond = g.sample(3000, conditions={"grade": 3, "flag": 0}, random_state=5)
    assert ((cond["grade"] == 3) & (cond["flag"] == 0)).all()
    big = g.sample(60_000, random_state=6)
    ref = big[(big["grade"] == 3) & (big["flag"] == 0)]
    assert stats.ks_2samp(cond["age"], ref["age"]).pvalue > 0.01
    assert stats.ks_2samp(cond["psa"], ref["psa"]).pvalue > 0.01


# -------------------------------------------------------------------------------- reproducible
def test_same_seed_same_fit_and_samples():
    data = mixed_table(2000, seed=1)
    a = GaussianCopula({"age": "normal"}, random_state=7).fit(data)
    b = GaussianCopula({"age": "normal"}, random_state=7).fit(data)
    pd.testing.assert_frame_equal(a.correlation_, b.correlation_)
    pd.testing.assert_frame_equal(a.sample(100), b.sample(100))
    pd.testing.assert_frame_equal(a.sample(50, random_state=3), b.sample(50, random_state=3))
    # the jitter depends on the seed
    c = GaussianCopula({"age": "normal"}, random_state=8).fit(data)
    assert not np.allclose(a.correlation_, c.correlation_)


def test_sample_defaults_and_index():
    data = mixed_table(300, seed=2)
    g = GaussianCopula({"age": "normal", "psa": "beta"}, random_state=0).fit(data)
    s = g.sample()
    assert s.shape == (300, 4) and list(s.columns) == list(data.columns)
    assert s.index.equals(pd.RangeIndex(300))
    assert s["age"].dtype == np.float64
    # beta samples stay inside the fitted support
    d = g.describe()
    assert s["psa"].between(d.loc["psa", "loc"], d.loc["psa", "loc"] + d.loc["psa", "scale"]).all()


def test_single_column_and_constant_discrete_column():
    df = pd.DataFrame({"x": np.arange(10.0)})
    g = GaussianCopula({"x": "normal"}, random_state=0).fit(df)
    assert g.correlation_.shape == (1, 1) and len(g.sample(5)) == 5
    df2 = pd.DataFrame({"x": np.arange(10.0), "k": 1})
    s = GaussianCopula({"x": "normal"}, random_state=0).fit(df2).sample(20)
    assert (s["k"] == 1).all()


def test_not_dp_card_and_params():
    g = GaussianCopula({"a": "normal"}, random_state=0)
    assert g.ledger_ is None and g.differentially_private is False
    assert "not DP" in g.card()["privacy"]
    assert g.get_params()["distributions"] == {"a": "normal"}
    assert repr(g).startswith("GaussianCopula(distributions=")
    g.set_params(discrete_scores="midrank")
    assert g.discrete_scores == "midrank"
    assert FAMILIES == ("normal", "beta", "discrete")


# ------------------------------------------------------------------------------------- errors
def test_bad_parameters_name_the_parameter_or_column():
    data = mixed_table(20)
    with pytest.raises(ValueError, match=r"distributions\['age'\].*'gamma'"):
        GaussianCopula({"age": "gamma"}).fit(data)
    with pytest.raises(TypeError, match="distributions must be a dict"):
        GaussianCopula(["age"]).fit(data)
    with pytest.raises(TypeError, match=r"distributions\['age'\]"):
        GaussianCopula({"age": 3}).fit(data)
    with pytest.raises(ValueError, match="default_distribution"):
        GaussianCopula(default_distribution="uniform").fit(data)
    with pytest.raises(ValueError, match="discrete_scores"):
        GaussianCopula(discrete_scores="random").fit(data)
    with pytest.raises(TypeError, match="random_state"):
        GaussianCopula(random_state=1.5).fit(data)
    with pytest.raises(ValueError, match="discrete_scores"):
        GaussianCopula().set_params(discrete_scores="x")


def test_bad_input_names_the_column():
    data = mixed_table(100)
    with pytest.raises(ValueError, match=r"\['weight'\]"):
        GaussianCopula({"weight": "normal"}).fit(data)
    with pytest.raises(TypeError, match="DataFrame"):
        GaussianCopula().fit(data.to_numpy())
    with pytest.raises(ValueError, match="at least 2"):
        GaussianCopula().fit(data.iloc[:1])
    bad = data.assign(age=data["age"].where(data.index != 3))
    with pytest.raises(ValueError, match="column 'age' has 1 missing"):
        GaussianCopula({"age": "normal"}).fit(bad)
    text = data.assign(psa="x")
    with pytest.raises(TypeError, match="column 'psa' is declared 'beta'"):
        GaussianCopula({"psa": "beta"}).fit(text)
    const = data.assign(age=3.0)
    with pytest.raises(ValueError, match="column 'age' is constant"):
        GaussianCopula({"age": "normal"}).fit(const)


def test_sampling_errors():
    data = mixed_table(500)
    with pytest.raises(NotFittedError):
        GaussianCopula().sample(3)
    g = GaussianCopula({"age": "normal", "psa": "beta"}, random_state=0).fit(data)
    with pytest.raises(ValueError, match="n must be >= 1"):
        g.sample(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        g.sample(2.5)
    with pytest.raises(ValueError, match="column 'age'.*discrete"):
        g.sample(3, conditions={"age": 50.0})
    with pytest.raises(ValueError, match="column 'nope'"):
        g.sample(3, conditions={"nope": 1})
    with pytest.raises(ValueError, match=r"conditions\['grade'\] = 7"):
        g.sample(3, conditions={"grade": 7})
    with pytest.raises(TypeError, match="conditions must be a dict"):
        g.sample(3, conditions=[("grade", 1)])
    with pytest.raises(ValueError, match="column 'grade' has value 9"):
        g.normal_scores(data.assign(grade=9))
