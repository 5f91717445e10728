"""Tests of ``synthtrust.synthesizers.pate``.

The oracles and the shared set-up are described in ``tests/privacy/test_privacy_pate.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from synthtrust.synthesizers.base import NotFittedError
from synthtrust.synthesizers.pate import (
    PATECTGAN,
    PATEGAN,
    noisy_vote_labels,
    pate_epsilon,
    pate_moments,
    pate_noise_for_budget,
    pate_partitions,
)


def _table(n=400, levels=4, seed=0):
    a = np.random.default_rng(seed).integers(0, levels, n)
    return pd.DataFrame({"a": a, "b": a}), {"a": levels, "b": levels}


# tiny networks so that a fit takes a fraction of a second per 100 iterations
SMALL = dict(embedding_dim=16, generator_dim=(32,), discriminator_dim=(32,), batch_size=32)


def test_partitions_disjoint_covering_shuffled():
    parts = pate_partitions(2500, 1000, 3)
    assert len(parts) == 2 and sorted(len(p) for p in parts) == [1250, 1250]
    allidx = np.concatenate(parts)
    assert np.array_equal(np.sort(allidx), np.arange(2500))  # disjoint and covering
    contiguous = np.array_split(np.arange(2500), 2)
    assert not np.array_equal(parts[0], contiguous[0])
    assert abs(np.mean(parts[0]) - 1249.5) < 100  # a shuffle, not a block
    one = pate_partitions(50, 1000, 0)  # n < sample_per_teacher: one teacher holds everything
    assert len(one) == 1 and np.array_equal(np.sort(one[0]), np.arange(50))


# ----------------------------------------------------------------------------------------------
# synthesizer
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [PATECTGAN, PATEGAN])
def test_fit_partitions_and_teachers_depend_only_on_their_shard(cls):
    df, dom = _table(400)
    kw = dict(
        epsilon=1e6,
        noise_multiplier=1.0,
        sample_per_teacher=100,
        max_iter=1,
        domain=dom,
        random_state=5,
        **SMALL,
    )
    if cls is PATECTGAN:
        kw["cond_epsilon_fraction"] = 0.0
    s1 = cls(**kw)
    s1._keep_teachers = True  # the teachers are not DP and are dropped after fit by default
    s1.fit(df)
    assert cls(**kw).fit(df)._teachers is None
    assert s1.n_teachers_ == 4
    for p, q in zip(s1.partitions_, pate_partitions(400, 100, 5), strict=True):
        assert np.array_equal(p, q)
    # teachers differ from one another (independent initialisation and shards)
    w = s1._teachers.params[0].detach()
    assert all(not torch.equal(w[i], w[j]) for i in range(4) for j in range(i + 1, 4))
    # change the records of shard 2: after one iteration only teacher 2 differs
    rows = s1.partitions_[2]
    df2 = df.copy()
    df2.loc[rows, "a"] = (df2.loc[rows, "a"] + 1) % 4
    s2 = cls(**kw)
    s2._keep_teachers = True
    s2.fit(df2)
    for j in range(4):
        same = all(
            torch.equal(a[j], b[j])
            for a, b in zip(s1._teachers.params, s2._teachers.params, strict=True)
        )
        assert same == (j != 2)


@pytest.mark.parametrize(("cls", "pate_share"), [(PATECTGAN, 0.9), (PATEGAN, 1.0)])
def test_stops_before_exceeding_the_target(cls, pate_share):
    df, dom = _table(400)
    s = cls(
        epsilon=100.0,
        noise_multiplier=0.2,
        sample_per_teacher=100,
        max_iter=500,
        accountant="data_dependent",
        domain=dom,
        random_state=0,
        **SMALL,
    ).fit(df)
    target = pate_share * 100.0  # PATE-CTGAN spends f = 0.1 of ε on its marginals
    assert 0 < s.iterations_ < 500
    assert s.pate_epsilon_ == pytest.approx(pate_epsilon(s.alpha_, s.delta_), rel=1e-12)
    assert s.pate_epsilon_ <= target
    # the cheapest possible next iteration (all votes unanimous) would already exceed the target
    q = s.student_iters * s.batch_size
    cheapest = pate_moments(np.full(q, s.n_teachers_), s.n_teachers_, 0.2, s.moments_order)
    assert pate_epsilon(s.alpha_ + cheapest, s.delta_) > target
    assert s.delta_ == pytest.approx(1 / (400 * math.sqrt(400)))
    # ledger: Laplace marginals (f·ε, PATE-CTGAN only) + PATE; total = epsilon_spent_ ≤ ε
    *marginals, pate = s.ledger_.entries
    assert pate.mechanism == "pate_moments" and pate.draws == s.iterations_
    assert pate.delta == s.delta_ and pate.scale == pytest.approx(5.0)
    assert pate.epsilon == s.pate_epsilon_
    assert "themselves NOT private" in pate.note  # the data-dependent ε is said to leak
    assert (
        "NOT private"
        not in cls(**{**s.get_params(), "accountant": "data_independent"})
        .fit(df)
        .ledger_.entries[-1]
        .note
    )
    assert s.ledger_.total_epsilon == pytest.approx(s.epsilon_spent_) and s.epsilon_spent_ <= 100.0
    if cls is PATECTGAN:
        (lap,) = marginals
        assert lap.mechanism == "laplace" and lap.epsilon == pytest.approx(10.0)
        assert lap.scale == pytest.approx(2 * 2 / 10.0)
    else:  # no conditional vectors: no marginals, a generator that sees z only
        assert marginals == [] and "PATE-GAN" in pate.note
        assert s._gnet.lin[0][0].shape[0] == SMALL["embedding_dim"]
        assert not hasattr(s, "category_probabilities_")


def test_auto_noise_runs_max_iterations_within_budget():
    df, dom = _table(300)
    s = PATECTGAN(
        epsilon=1.0, sample_per_teacher=100, max_iter=20, domain=dom, random_state=0, **SMALL
    ).fit(df)
    assert s.accountant == "data_independent"  # the default: ε depends on public values only
    assert s.iterations_ == 20
    assert s.noise_multiplier_ == pytest.approx(
        pate_noise_for_budget(0.9, s.delta_, 20 * 5 * 32, 1000)
    )
    assert s.epsilon_spent_ <= 1.0


@pytest.mark.parametrize("cls", [PATECTGAN, PATEGAN])
def test_unaffordable_first_iteration_warns_and_spends_nothing(cls):
    df, dom = _table(200)
    with pytest.warns(UserWarning, match="no training iteration is run"):
        s = cls(
            epsilon=1.0,
            noise_multiplier=1.0,
            sample_per_teacher=100,
            domain=dom,
            random_state=0,
            **SMALL,
        ).fit(df)
    assert s.iterations_ == 0 and s.pate_epsilon_ == 0.0
    assert s.sample(7).shape == (7, 2)


@pytest.mark.parametrize("cls", [PATECTGAN, PATEGAN])
def test_determinism_and_global_torch_state(cls):
    df, dom = _table(300)
    threads = torch.get_num_threads()
    state = torch.get_rng_state()
    kw = dict(
        epsilon=1e6,
        noise_multiplier=1.0,
        sample_per_teacher=100,
        max_iter=5,
        domain=dom,
        **SMALL,
    )
    a = cls(random_state=11, **kw).fit(df).sample(200)
    b = cls(random_state=11, **kw).fit(df).sample(200)
    c = cls(random_state=12, **kw).fit(df).sample(200)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert torch.equal(torch.get_rng_state(), state)
    assert torch.get_num_threads() == threads
    assert list(a.columns) == ["a", "b"] and a.dtypes.tolist() == [np.int64, np.int64]
    assert a.min().min() >= 0 and a.max().max() <= 3


def test_learns_a_functional_dependence():
    # b = a on 1000 rows, 10 teachers, λ = 20 (labels ≈ the majority vote), large ε, 600 iterations.
    # Measured P(a = b) = 0.77 (seed 0) against ≈ 0.26 for independent columns with the same
    # marginals.
    df, dom = _table(1000)
    s = PATECTGAN(
        epsilon=1e9,
        noise_multiplier=20.0,
        sample_per_teacher=100,
        max_iter=600,
        generator_lr=1e-3,
        discriminator_lr=1e-3,
        domain=dom,
        random_state=0,
        **SMALL,
    ).fit(df)
    assert s.iterations_ == 600
    out = s.sample(4000)
    agree = float((out.a == out.b).mean())
    pa = out.a.value_counts(normalize=True).reindex(range(4), fill_value=0).to_numpy()
    pb = out.b.value_counts(normalize=True).reindex(range(4), fill_value=0).to_numpy()
    baseline = float(pa @ pb)
    assert baseline < 0.35
    assert agree > 0.6 and agree > baseline + 0.3


def test_uniform_conditional_vectors_and_sample_default_n():
    df, dom = _table(200)
    s = PATECTGAN(
        epsilon=1e6,
        noise_multiplier=1.0,
        sample_per_teacher=100,
        max_iter=2,
        cond_epsilon_fraction=0.0,
        domain=dom,
        random_state=0,
        **SMALL,
    ).fit(df)
    np.testing.assert_array_equal(s.category_probabilities_["a"], np.full(4, 0.25))
    assert len(s.ledger_) == 1 and s.sample().shape == (200, 2)
    assert s.n_teachers_ == 2


@pytest.mark.parametrize(
    ("kw", "exc", "msg"),
    [
        (dict(epsilon=0), ValueError, "epsilon must be > 0, got 0.0"),
        (dict(delta=1.5), ValueError, r"delta must be in the open interval \(0, 1\), got 1.5"),
        (
            dict(noise_multiplier=-1.0),
            ValueError,
            r"noise_multiplier must be in \(0.0, inf\), got -1.0",
        ),
        (dict(moments_order=0), ValueError, "moments_order must be >= 1, got 0"),
        (dict(sample_per_teacher=2.5), TypeError, "sample_per_teacher must be an integer"),
        (dict(generator_dim=()), ValueError, "generator_dim must be a non-empty sequence"),
        (dict(discriminator_dim=(8, 0)), ValueError, r"discriminator_dim\[1\] must be >= 1, got 0"),
        (
            dict(cond_epsilon_fraction=1.0),
            ValueError,
            r"cond_epsilon_fraction must be in \[0.0, 1.0\), got 1.0",
        ),
        (dict(accountant="rdp"), ValueError, "accountant must be one of"),
        (dict(tau=0), ValueError, r"tau must be in \(0.0, inf\), got 0.0"),
        (dict(random_state="x"), TypeError, "random_state must be"),
    ],
)
def test_bad_parameters(kw, exc, msg):
    model = PATECTGAN(**kw)  # __init__ only stores the parameters
    with pytest.raises(exc, match=msg):
        model.fit(pd.DataFrame({"a": [0, 1]}))


def test_bad_helper_input_and_unfitted():
    with pytest.raises(ValueError, match=r"^votes must be in 0\.\.3, got 4$"):
        pate_moments([4], 3, 1.0)
    with pytest.raises(ValueError, match=r"^votes must be in 0\.\.3, got -1$"):
        noisy_vote_labels([1, -1], 3, 1.0, 0)
    with pytest.raises(
        TypeError, match=r"^votes must be an integer or an integer array, got dtype"
    ):
        pate_moments([1.5], 3, 1.0)
    with pytest.raises(ValueError, match="noise_multiplier must be in"):
        noisy_vote_labels([1], 3, 0.0, 0)
    with pytest.raises(ValueError, match="sample_per_teacher must be >= 1, got 0"):
        pate_partitions(10, 0)
    with pytest.raises(ValueError, match=r"delta must be in the open interval"):
        pate_epsilon([1.0], 0.0)
    with pytest.raises(NotFittedError):
        PATECTGAN().sample(3)
    with pytest.raises(AttributeError, match="no rho_"):
        _ = PATECTGAN().rho_


# ------------------------------------------------------------------------------------ PATE-GAN
# That the unconditional generator learns; the machinery PATE-GAN shares with PATE-CTGAN (shards,
# teachers, accountant, budget, determinism) is tested above for both classes.
def _pair_tvd(out: pd.DataFrame, real: pd.DataFrame) -> tuple[float, float]:
    """(TVD of the (a, b) table from the real one, share of records with a = b)."""
    cells = dict(index=range(4), columns=range(4), fill_value=0)
    j = pd.crosstab(out.a, out.b, normalize=True).reindex(**cells).to_numpy()
    r = pd.crosstab(real.a, real.b, normalize=True).reindex(**cells).to_numpy()
    return 0.5 * float(np.abs(j - r).sum()), float(np.trace(j))


@pytest.mark.parametrize("seed", [0, 1])
def test_learns_a_functional_dependence_without_conditional_vectors(seed):
    # b = a on 1000 rows, 10 teachers, λ = 20 (labels ≈ the majority vote), large ε. Measured
    # after 600 iterations (seeds 0, 1, 2): (a, b) TVD 0.50, 0.51, 0.52 and P(a = b) 0.59, 0.60,
    # 0.49; after 1 iteration TVD 0.74-0.76 and P(a = b) 0.24-0.26 (independent columns). The
    # unconditional generator drops levels (mode collapse, against which CTGAN's conditional
    # vectors were made, Xu et al. 2019, §4.3): PATE-CTGAN reaches P(a = b) 0.77 here.
    df, dom = _table(1000)
    kw = dict(
        epsilon=1e9,
        noise_multiplier=20.0,
        sample_per_teacher=100,
        generator_lr=1e-3,
        discriminator_lr=1e-3,
        domain=dom,
        random_state=seed,
        **SMALL,
    )
    untrained = _pair_tvd(PATEGAN(max_iter=1, **kw).fit(df).sample(4000), df)
    s = PATEGAN(max_iter=600, **kw).fit(df)
    tvd, agree = _pair_tvd(s.sample(4000), df)
    assert s.iterations_ == 600
    assert untrained[0] > 0.7 and untrained[1] < 0.3
    assert tvd < 0.6 and agree > 0.45


def test_no_conditional_parameter():
    df, dom = _table(200)
    with pytest.raises(TypeError, match="cond_epsilon_fraction"):
        PATEGAN(cond_epsilon_fraction=0.1)
    assert "cond_epsilon_fraction" not in PATEGAN().get_params()
    with pytest.raises(ValueError, match="sample_per_teacher"):
        PATEGAN(sample_per_teacher=0, domain=dom).fit(df)
