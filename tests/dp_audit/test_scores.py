import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.dp_audit.canary import worst_case
from synthtrust.dp_audit.scores import (
    canary_counts,
    canary_subsets,
    learned_score,
    marginal_likelihood_ratio,
    whitebox_score,
)
from synthtrust.privacy.mechanisms import discrete_laplace_pmf


def test_subsets_are_every_set_of_at_most_three_columns_and_the_record():
    assert len(canary_subsets(["a", "b", "c"])) == 7
    five = canary_subsets(list("abcde"))
    assert len(five) == 5 + 10 + 10 + 1
    assert five[-1] == tuple("abcde")
    assert len(set(five)) == len(five)


def test_canary_counts_equal_a_loop_over_the_records():
    rng = np.random.default_rng(3)
    y = pd.DataFrame(rng.integers(0, 3, size=(500, 4)), columns=list("abcd"))
    canary = {"a": 2, "b": 0, "c": 1, "d": 2}
    subsets = canary_subsets(list("abcd"))
    brute = [
        sum(all(row[c] == canary[c] for c in subset) for _, row in y.iterrows())
        for subset in subsets
    ]
    assert canary_counts(y, canary, subsets).tolist() == brute


def test_canary_counts_names_a_missing_column():
    with pytest.raises(ValueError, match=r"lacks the column\(s\) \['b'\]"):
        canary_counts(pd.DataFrame({"a": [1]}), {"a": 1, "b": 1}, [("a",)])


def test_marginal_ratio_is_the_poisson_log_likelihood_ratio():
    counts = np.array([[0, 3, 7], [2, 0, 1]])
    lam_in, lam_out = np.array([1.5, 2.0, 4.5]), np.array([0.5, 2.5, 3.0])
    expected = stats.poisson.logpmf(counts, lam_in).sum(1) - stats.poisson.logpmf(
        counts, lam_out
    ).sum(1)
    np.testing.assert_allclose(marginal_likelihood_ratio(counts, lam_in, lam_out), expected)


def _joint(values_by_cell, shape):
    arr = np.zeros(shape)
    for cell, v in values_by_cell.items():
        arr[cell] = v
    return arr


@pytest.mark.parametrize("neighbouring", ["replace_one", "add_remove"])
def test_whitebox_is_the_log_likelihood_ratio_of_the_noisy_histogram(neighbouring):
    """Brute force: log P(y | D') − log P(y | D) of every cell of a discrete-Laplace histogram."""
    w = worst_case(neighbouring)
    shape = (2, 2, 2)
    true = {
        world: np.histogramdd(frame.to_numpy(), bins=[2, 2, 2], range=[(0, 2)] * 3)[0]
        for world, frame in (("D", w.without), ("D1", w.with_canary))
    }
    rng = np.random.default_rng(0)
    for scale in (0.7, 2.0):
        y = true["D"] + rng.integers(-3, 4, size=shape)
        view = {("c0", "c1", "c2"): (y, "discrete_laplace", scale)}
        brute = (
            np.log(discrete_laplace_pmf(y - true["D1"], scale)).sum()
            - np.log(discrete_laplace_pmf(y - true["D"], scale)).sum()
        )
        assert whitebox_score(view, w) == pytest.approx(brute, abs=1e-12)


def test_whitebox_gaussian_terms_and_one_way_cliques():
    w = worst_case("replace_one")
    sigma = 1.3
    rng = np.random.default_rng(1)
    view, brute = {}, 0.0
    for c in w.columns:  # one-way marginals: D has 11 zeros; D' 10 zeros and 1 one
        a, a1 = np.array([11.0, 0.0]), np.array([10.0, 1.0])
        y = a + rng.normal(0, sigma, 2)
        view[(c,)] = (y, "gaussian", sigma)
        brute += (stats.norm.logpdf(y, a1, sigma) - stats.norm.logpdf(y, a, sigma)).sum()
    assert whitebox_score(view, w) == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize(
    ("view", "match"),
    [
        ({("c0",): (np.zeros(2), "cauchy", 1.0)}, "noise of clique"),
        ({("c0",): (np.zeros(2), "gaussian", 0.0)}, "scale of clique"),
        ({("zz",): (np.zeros(2), "gaussian", 1.0)}, "outside the game"),
    ],
)
def test_whitebox_rejects_a_bad_view(view, match):
    with pytest.raises(ValueError, match=match):
        whitebox_score(view, worst_case("add_remove"))


def test_cells_whose_changes_cancel_give_no_term():
    """Under replace-one, a clique on which the canary and the replaced record agree sees no
    change: its term is 0 whatever the noisy value."""
    w = worst_case("replace_one", n_levels=3)
    w2 = type(w)(
        w.without, w.with_canary, {**w.canary, "c0": 0}, w.removed, w.domain, w.neighbouring
    )
    for y in itertools.product(range(-2, 12), repeat=1):
        assert whitebox_score({("c0",): (np.array([y[0], 0, 0]), "laplace", 1.0)}, w2) == 0.0


def test_learned_score_is_the_classifier_trained_on_the_train_fits_only():
    """Oracle: scikit-learn's classifier fitted by hand on the same rows; rows outside the
    training part never change the scores' model."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(1)
    out, inn = rng.poisson(1.0, (120, 4)), rng.poisson(1.6, (120, 4))
    s0, s1 = learned_score(out, inn, slice(0, 48), random_state=3)
    oracle = HistGradientBoostingClassifier(random_state=3).fit(
        np.vstack([out[:48], inn[:48]]), np.repeat([0, 1], 48)
    )
    np.testing.assert_array_equal(s0, oracle.predict_proba(out)[:, 1])
    np.testing.assert_array_equal(s1, oracle.predict_proba(inn)[:, 1])
    changed = out.copy()
    changed[48:] = 0
    t0, _ = learned_score(changed, inn, slice(0, 48), random_state=3)
    np.testing.assert_array_equal(t0[:48], s0[:48])
    # features that tell the worlds apart give D' the higher scores on unseen fits
    assert s1[48:].mean() > s0[48:].mean() + 0.1


@pytest.mark.parametrize(
    "out, inn, train, match",
    [
        (np.zeros((10, 2)), np.zeros((10, 3)), slice(0, 5), "same features"),
        (np.zeros(10), np.zeros(10), slice(0, 5), "2-D"),
        (np.zeros((10, 2)), np.zeros((10, 2)), slice(0, 0), "train must select"),
    ],
)
def test_learned_score_rejects_bad_features(out, inn, train, match):
    with pytest.raises(ValueError, match=match):
        learned_score(out, inn, train)


@pytest.mark.parametrize("neighbouring", ["replace_one", "add_remove"])
def test_whitebox_scores_a_compressed_marginal_on_the_cell_that_holds_the_canary(neighbouring):
    """Brute force: the Gaussian log-likelihood ratio of a 2-way marginal measured on merged
    levels (MST's compression: codes 1 and 2 of c0 merged into one level, c1 all in one), the
    counts of D and D′ counted through the level maps; a clique measured twice (a sequence view)
    counts twice."""
    w = worst_case(neighbouring, n_levels=3)
    maps = (np.array([0, 1, 1]), np.array([0, 0, 0]))
    rng = np.random.default_rng(4)
    sigma = 0.8

    def compressed(frame):
        x = np.zeros((2, 1))
        for a, b in zip(maps[0][frame["c0"]], maps[1][frame["c1"]], strict=True):
            x[a, b] += 1
        return x

    x0, x1 = compressed(w.without), compressed(w.with_canary)
    y = x0 + rng.normal(0, sigma, x0.shape)
    brute = (stats.norm.logpdf(y, x1, sigma) - stats.norm.logpdf(y, x0, sigma)).sum()
    entry = (("c0", "c1"), y, "gaussian", sigma, maps)
    assert whitebox_score([entry], w) == pytest.approx(brute, abs=1e-12)
    assert whitebox_score([entry, entry], w) == pytest.approx(2 * brute, abs=1e-12)
    if neighbouring == "add_remove":
        assert brute != 0.0  # the merged cell (and only it) gains the canary


def test_a_view_entry_of_another_length_is_refused():
    with pytest.raises(ValueError, match=r"\(clique, values, noise, scale\[, levels\]\), got 3"):
        whitebox_score([(("c0",), np.zeros(2), "gaussian")], worst_case("add_remove"))
