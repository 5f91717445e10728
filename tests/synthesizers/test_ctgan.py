"""Tests of ``synthtrust.synthesizers.ctgan`` (CTGAN for discrete tables, not DP).

Oracles: hand-computed level distributions; the defining property of training-by-sampling (every
drawn record has the conditioned level, uniformly among those records: a chi-square test); a
functional dependence that the independent-marginals baseline cannot learn.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from synthtrust.synthesizers import CTGAN, IndependentMarginals
from synthtrust.synthesizers.ctgan import _LevelRows, level_probabilities

SMALL = dict(embedding_dim=16, generator_dim=(32,), discriminator_dim=(32,), batch_size=40, pac=4)


def _pairs(n=400, seed=0):
    a = np.random.default_rng(seed).integers(0, 4, n)
    return pd.DataFrame(
        {"a": a, "b": (a + 1) % 4, "c": np.random.default_rng(seed + 1).integers(0, 3, n)}
    )


def test_level_probabilities_by_hand():
    np.testing.assert_allclose(level_probabilities(np.array([3, 0, 1]), False), [0.75, 0, 0.25])
    w = np.log([4.0, 1.0, 2.0])  # log(1 + count)
    np.testing.assert_allclose(level_probabilities(np.array([3, 0, 1]), True), w / w.sum())
    assert level_probabilities(np.array([3, 0, 1]), True)[1] == 0.0  # an absent level: never


def test_training_by_sampling_draws_a_uniform_record_of_the_level():
    codes = {"a": np.array([0, 1, 1, 2, 1, 0, 1]), "b": np.array([1, 1, 0, 0, 1, 1, 1])}
    counts = {"a": np.bincount(codes["a"], minlength=3), "b": np.bincount(codes["b"], minlength=2)}
    rows = _LevelRows(codes, counts, ["a", "b"], torch)
    gen = torch.Generator().manual_seed(3)
    col = torch.tensor([0, 1] * 20_000)
    level = torch.tensor([1, 1] * 20_000)
    got = rows.draw(col, level, gen, torch).numpy()
    a_rows, b_rows = got[0::2], got[1::2]
    assert set(a_rows) == {1, 2, 4, 6} and set(b_rows) == {0, 1, 4, 5, 6}
    for drawn, k in ((a_rows, 4), (b_rows, 5)):  # uniform among the records with the level
        counts = np.unique(drawn, return_counts=True)[1]
        assert stats.chisquare(counts).pvalue > 0.001 and len(counts) == k


def test_reproducible_and_not_dp():
    df = _pairs()
    one = CTGAN(max_iter=20, random_state=4, **SMALL).fit(df)
    two = CTGAN(max_iter=20, random_state=4, **SMALL).fit(df)
    pd.testing.assert_frame_equal(one.sample(300), two.sample(300))
    other = CTGAN(max_iter=20, random_state=5, **SMALL).fit(df).sample(300)
    assert not one.sample(300).equals(other)
    assert one.ledger_ is None and one.iterations_ == 20 and one.wasserstein_.shape == (20,)
    card = one.card()
    assert card["differentially_private"] is False and card["iterations"] == 20
    assert one.sample().shape == (400, 3)  # n defaults to the training size


def test_default_iterations_are_the_packages_300_epochs():
    gan = CTGAN(batch_size=100, pac=10, embedding_dim=4, generator_dim=(4,), discriminator_dim=(4,))
    gan.fit(_pairs(250))  # 250 // 100 = 2 steps an epoch
    assert gan.iterations_ == 600
    assert gan.set_params(epochs=10).fit(_pairs(250)).iterations_ == 20
    assert gan.set_params(epochs=10, max_iter=7).fit(_pairs(250)).iterations_ == 7  # max_iter wins
    with pytest.raises(ValueError, match="epochs"):
        gan.set_params(epochs=0).fit(_pairs(250))


def test_condition_distributions_are_the_data_frequencies():
    df = _pairs()
    gan = CTGAN(max_iter=1, random_state=0, **SMALL).fit(df)
    freq = df["c"].value_counts(normalize=True).sort_index().to_numpy()
    np.testing.assert_allclose(gan.level_frequencies_["c"], freq)
    logw = np.log1p(df["c"].value_counts().sort_index().to_numpy())
    np.testing.assert_allclose(gan.condition_probabilities_["c"], logw / logw.sum())


def test_batch_size_must_be_a_multiple_of_pac():
    with pytest.raises(
        ValueError, match=r"batch_size must be a multiple of pac = 4.*got batch_size = 42"
    ):
        CTGAN(batch_size=42, pac=4).fit(_pairs())


def _tvd2(x: pd.DataFrame, y: pd.DataFrame, a: str, b: str) -> float:
    """½ Σ |p − q| over the cells of the (a, b) table, by hand."""
    p = x.groupby([a, b]).size() / len(x)
    q = y.groupby([a, b]).size() / len(y)
    return 0.5 * p.sub(q, fill_value=0.0).abs().sum()


def test_learns_a_functional_dependence_that_independent_marginals_cannot():
    """b = (a + 1) mod 4 and c independent: the (a, b) table of CTGAN's records is close to the
    data's, where independent marginals are 3/4 away from it (P(a)P(b) against a permutation).
    The authors' defaults and 1 000 steps (250 of their epochs at n = 2 000): measured 0.175 for
    (a, b) and 0.128 for (a, c); the reference package ``ctgan`` 0.12.1 at the same setting
    gave 0.182 and 0.096. Smaller networks do not learn the dependence in so few steps."""
    df = _pairs(2_000)
    syn = CTGAN(max_iter=1_000, random_state=0).fit(df).sample(4_000)
    independent = IndependentMarginals(random_state=0).fit(df).sample(4_000)
    assert _tvd2(df, independent, "a", "b") > 0.7
    assert _tvd2(df, syn, "a", "b") < 0.4, _tvd2(df, syn, "a", "b")
    assert _tvd2(df, syn, "a", "c") < 0.2 and _tvd2(df, syn, "b", "c") < 0.2
