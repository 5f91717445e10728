"""Tests of ``synthtrust.synthesizers.gan.estimator``.

The oracles and the shared set-up are described in ``_gan_data.py``.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pandas as pd
import pytest
import torch
from _gan_data import NOMINAL, SMALL, _table
from _repo import ROOT

from synthtrust.privacy.rdp import (
    gswgan_epsilon,
    gswgan_epsilon_lower_bound,
    gswgan_max_iterations,
)
from synthtrust.synthesizers import gan as gan_module
from synthtrust.synthesizers.base import NotFittedError
from synthtrust.synthesizers.gan import (
    GSWGAN,
)


# ----------------------------------------------------------------------------------------------
# the synthesizer
# ----------------------------------------------------------------------------------------------
def test_fit_spends_at_most_epsilon_and_records_ledger():
    df, dom = _table()
    g = GSWGAN(epsilon=8.0, domain=dom, random_state=0, **(SMALL | {"max_iter": 20000}))
    g.fit(df)
    k = g.n_discriminators_
    assert k == 20 and g.n_records_ == 400
    kw = dict(n_discriminators=k, batch_size=32, noise_multiplier=1.07, delta=1e-5, **NOMINAL)
    assert g.iterations_ == gswgan_max_iterations(8.0, **kw, max_iter=20000) > 0
    assert g.epsilon_spent_ == gswgan_epsilon(g.iterations_, **kw) <= 8.0
    assert gswgan_epsilon(g.iterations_ + 1, **kw) > 8.0
    assert g.epsilon_at(g.iterations_) == g.epsilon_spent_
    # the ledger holds the standard analysis's ε of those iterations, the note the nominal one
    standard = {**kw, "composition": "per_iteration", "conversion": "pld"}
    assert len(g.ledger_) == 1 and g.ledger_.total_epsilon == g.epsilon_guarantee_
    assert g.epsilon_guarantee_ == gswgan_epsilon(g.iterations_, **standard) > 5 * 8.0
    entry = g.ledger_.entries[0]
    assert "not an (epsilon, delta) guarantee" in entry.note
    assert entry.delta == 1e-5 and entry.sensitivity == pytest.approx(2 / 32)
    assert entry.scale == pytest.approx(2 * 1.07 / 32)
    assert f"K={k}" in entry.note and f"{g.iterations_} iterations" in entry.note
    assert g.wasserstein_.shape == (g.iterations_,) and np.all(np.isfinite(g.wasserstein_))
    s = g.sample()
    assert s.shape == (400, 2) and list(s.columns) == ["a", "b"]
    assert s["a"].between(0, 3).all() and s["b"].dtype == np.int64


def test_default_accounting_is_the_standard_analysis():
    # issue 47, acceptance 1: with default accounting the run spends at most ε under the
    # standard analysis (one subsampled release of B gradients per iteration, PLD), and the
    # ledger total is that analysis's ε of the iterations run, above the worst case's floor
    df, dom = _table()
    base = dict(subset_size=20, pretrain_iterations=3, hidden=16, max_iter=20000)
    g = GSWGAN(epsilon=60.0, domain=dom, random_state=0, **base).fit(df)
    kw = dict(n_discriminators=20, batch_size=32, noise_multiplier=1.07, delta=1e-5)
    t = g.iterations_
    assert t == gswgan_max_iterations(60.0, **kw, max_iter=20000) > 0
    assert g.epsilon_spent_ == g.epsilon_guarantee_ == gswgan_epsilon(t, **kw) <= 60.0
    assert gswgan_epsilon(t + 1, **kw) > 60.0
    assert g.ledger_.total_epsilon == g.epsilon_guarantee_
    assert g.ledger_.total_epsilon >= gswgan_epsilon_lower_bound(t, **kw)
    assert g.differentially_private_ and "not an (epsilon, delta)" not in repr(g)
    card = g.card()
    assert card["differentially_private"] and card["epsilon_guarantee"] == g.epsilon_guarantee_
    assert card["epsilon_lower_bound"] <= card["epsilon_guarantee"]
    # the unnoised critic statistic is not kept unless asked for
    assert not hasattr(g, "wasserstein_")


def test_default_accounting_at_epsilon_one_trains_nothing():
    # one iteration costs ε ≈ 20.6 at K = 500 (tests/privacy/test_pld.py); at K = 20 more: at
    # ε = 1 the honest default affords no private iteration, and says so
    df, dom = _table()
    with pytest.warns(UserWarning, match="no training iteration"):
        g = GSWGAN(epsilon=1.0, domain=dom, random_state=0, **{"subset_size": 20}).fit(df)
    assert g.iterations_ == 0 and g.ledger_.total_epsilon == 0.0


def test_reference_accounting_says_it_is_not_a_guarantee():
    # issue 47, acceptance 1: the reference's accounting at the chapter's K = 500 (n = 20 000,
    # subsets of 40): nominal ε = 1 is 15 iterations, whose true ε is at least 29 (card)
    rng = np.random.default_rng(1)
    a = rng.integers(0, 2, 20000)
    df, dom = pd.DataFrame({"a": a, "b": a}), {"a": 2, "b": 2}
    g = GSWGAN(
        epsilon=1.0, domain=dom, random_state=0, pretrain_iterations=0, hidden=8, **NOMINAL
    ).fit(df)
    assert g.n_discriminators_ == 500 and g.iterations_ == 15
    card = g.card()
    assert card["differentially_private"] is False and not g.differentially_private_
    assert (
        "nominal epsilon of the reference code, not an (epsilon, delta) guarantee"
        in (card["privacy"])
    )
    assert card["epsilon_lower_bound"] >= 5 and card["epsilon_lower_bound"] > 29
    assert g.epsilon_spent_ <= 1.0 < card["epsilon_lower_bound"] <= g.ledger_.total_epsilon
    assert repr(g).endswith(
        "# nominal epsilon of the reference code, not an (epsilon, delta) guarantee"
    )
    assert "nominal" in GSWGAN(**NOMINAL).card()["privacy"]
    assert GSWGAN().card()["privacy"].startswith("(epsilon, delta)-DP")


def test_determinism_and_global_torch_state_untouched():
    df, dom = _table()
    torch_state = torch.random.get_rng_state()
    threads = torch.get_num_threads()
    fits = [GSWGAN(epsilon=30.0, domain=dom, random_state=r, **SMALL).fit(df) for r in (5, 5, 6)]
    s5a, s5b, s6 = (f.sample(300) for f in fits)
    pd.testing.assert_frame_equal(s5a, s5b)
    assert not s5a.equals(s6)
    np.testing.assert_array_equal(fits[0].wasserstein_, fits[1].wasserstein_)
    assert torch.equal(torch.random.get_rng_state(), torch_state)
    assert torch.get_num_threads() == threads


def test_learns_dependence_non_private_and_with_small_noise():
    # b == a on 4 levels: independent columns would agree 1/4 of the time. Measured agreement
    # of 4000 synthetic rows over seeds 0–2: 0.90–0.91 (non-private, K = 1) and 0.75–0.82
    # (private path, σ = 0.3, K = 8); thresholds leave a wide margin.
    df, dom = _table(n=800)
    common = dict(domain=dom, lr=2e-3, ema_decay=0.9, max_iter=1000, random_state=0)
    nonpriv = GSWGAN(noise_multiplier=0.0, subset_size=800, pretrain_iterations=0, **common).fit(df)
    assert nonpriv.epsilon_spent_ == math.inf and nonpriv.ledger_.total_epsilon == math.inf
    s = nonpriv.sample(4000)
    assert (s["a"] == s["b"]).mean() > 0.7
    noisy = GSWGAN(
        epsilon=1e6,
        noise_multiplier=0.3,
        subset_size=100,
        pretrain_iterations=100,
        **common,
        **NOMINAL,  # RDP: instant at any ε (the PLD of μ = √32/0.3 over 1 000 steps takes minutes)
    ).fit(df)
    assert noisy.iterations_ == 1000 and noisy.epsilon_spent_ <= 1e6
    s = noisy.sample(4000)
    assert (s["a"] == s["b"]).mean() > 0.5
    # every level of a is produced
    assert np.bincount(s["a"], minlength=4).min() > 0.05 * 4000


def test_numeric_column_learns_the_conditional_mean():
    # (a, v) with v ≈ N(10 + 10a, 1.5) rounded on 31 levels, v seen by the networks as one number
    # (numeric_columns). Measured over seeds 0–2 (non-private, K = 1, 1 000 iterations): group
    # means 9.95–10.28 and 19.72–19.92, sd 1.3–1.8; the untrained generator puts both groups
    # at the same mean (14.1–17.3), so the test fails if the numeric slot does not learn.
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 800)
    v = np.clip(np.rint(10 + 10 * a + rng.normal(0, 1.5, 800)), 0, 30).astype(int)
    df, dom = pd.DataFrame({"a": a, "v": v}), {"a": 2, "v": 31}
    g = GSWGAN(
        noise_multiplier=0.0,
        subset_size=800,
        pretrain_iterations=0,
        domain=dom,
        lr=2e-3,
        ema_decay=0.9,
        max_iter=1000,
        numeric_columns=["v"],
        random_state=0,
    ).fit(df)
    s = g.sample(4000)
    assert s["v"].between(0, 30).all() and s["v"].dtype == np.int64
    stats = s.groupby("a")["v"].agg(["mean", "std"])
    np.testing.assert_allclose(stats["mean"], [10.0, 20.0], atol=1.0)
    assert stats["std"].between(0.8, 3.0).all()
    probs = g.category_probabilities(20000, random_state=1)
    assert probs["v"].shape == (31,) and math.isclose(probs["v"].sum(), 1.0)
    assert probs["v"][:5].sum() == 0 and probs["v"][8:23].sum() > 0.95


def test_plain_wgan_gp_control_bypasses_the_sanitiser(monkeypatch):
    # clip_bound=None (non-private only) passes the critic's gradients to the generator as they
    # are: the sanitiser is never called, while σ = 0 with a clip bound calls it every iteration
    def refuse(*args, **kwargs):
        raise AssertionError("sanitiser called")

    monkeypatch.setattr(gan_module.training, "sanitize_gradients", refuse)
    df, dom = _table()
    params = dict(domain=dom, noise_multiplier=0.0, random_state=0, **SMALL)
    g = GSWGAN(clip_bound=None, **params).fit(df)
    assert g.iterations_ == SMALL["max_iter"] and g.ledger_.total_epsilon == math.inf
    with pytest.raises(AssertionError, match="sanitiser called"):
        GSWGAN(clip_bound=1.0, **params).fit(df)


def test_checkpoints_match_fresh_fits():
    df, dom = _table()
    params = dict(domain=dom, random_state=3, **SMALL | {"max_iter": 20000})
    g = GSWGAN(epsilon=12.0, checkpoints=[6.0, 9.0, 12.0], **params).fit(df)
    its = [g.checkpoints_[c][0] for c in (6.0, 9.0, 12.0)]
    spent = [g.checkpoints_[c][1] for c in (6.0, 9.0, 12.0)]
    assert its == sorted(its) and its[0] > 0 and its[-1] == g.iterations_
    assert spent == sorted(spent) and all(
        e <= c for e, c in zip(spent, (6.0, 9.0, 12.0), strict=True)
    )
    # the snapshot at ε = 6 is the generator of a fresh fit with epsilon = 6
    fresh = GSWGAN(epsilon=6.0, **params).fit(df)
    snap = g.at_epsilon(6.0)
    assert snap.iterations_ == fresh.iterations_ == its[0]
    for a, b in zip(snap._ema, fresh._ema, strict=True):
        assert torch.equal(a, b)
    assert snap.epsilon_spent_ == spent[0] == fresh.epsilon_spent_
    assert snap.ledger_.total_epsilon == fresh.epsilon_guarantee_ == snap.epsilon_guarantee_
    assert snap.epsilon == 6.0 and snap.checkpoints is None
    # the last checkpoint equals the final model; at_epsilon is reproducible
    last = g.at_epsilon(12.0)
    assert all(torch.equal(a, b) for a, b in zip(last._ema, g._ema, strict=True))
    pd.testing.assert_frame_equal(g.at_epsilon(9.0).sample(50), g.at_epsilon(9.0).sample(50))
    with pytest.raises(
        ValueError,
        match=r"epsilon must be one of the fitted checkpoints \[6.0, 9.0, 12.0\], got 7.0",
    ):
        g.at_epsilon(7.0)


def test_same_numbers_and_accounting_as_the_previous_implementation(monkeypatch):
    # benchmarks/bench_gan.py keeps the previous training loop (dense one-hot matmuls, autograd
    # for the generator, unfused Adam) as its baseline: for a fixed seed the accounting (the
    # iterations, checkpoint schedule and ledger) is identical and the released generator equal
    # up to float rounding (3 pretraining and 74 private iterations)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench = importlib.import_module("bench_gan")
    df, dom = _table()
    kw = dict(
        epsilon=40.0,
        checkpoints=[12.0, 40.0],
        domain=dom,
        random_state=3,
        **(SMALL | {"max_iter": 20000}),
    )
    old, new = bench.BaselineGSWGAN(**kw).fit(df), GSWGAN(**kw).fit(df)
    assert new.iterations_ == old.iterations_ == 74
    assert new.checkpoints_ == old.checkpoints_ and new.epsilon_spent_ == old.epsilon_spent_
    assert new.ledger_.entries == old.ledger_.entries
    for eps in (12.0, 40.0):
        for a, b in zip(old.at_epsilon(eps)._ema, new.at_epsilon(eps)._ema, strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=1e-5)  # measured 3e-8
    np.testing.assert_allclose(new.wasserstein_, old.wasserstein_, rtol=0, atol=1e-5)


def test_budget_too_small_warns_and_releases_initial_generator():
    df, dom = _table()
    with pytest.warns(UserWarning, match="no training iteration"):
        g = GSWGAN(epsilon=0.05, domain=dom, random_state=0, **SMALL).fit(df)
    assert g.iterations_ == 0 and g.epsilon_spent_ == 0.0 and g.ledger_.total_epsilon == 0.0
    assert g.sample(10).shape == (10, 2)


@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        (dict(epsilon=0.0), ValueError, r"epsilon must be > 0, got 0.0"),
        (dict(delta=1.0), ValueError, r"delta must be in the open interval \(0, 1\), got 1.0"),
        (dict(subset_size=0), ValueError, r"subset_size must be >= 1, got 0"),
        (dict(batch_size=2.5), TypeError, r"batch_size must be an integer, got float 2.5"),
        (dict(pretrain_iterations=-1), ValueError, r"pretrain_iterations must be >= 0, got -1"),
        (
            dict(noise_multiplier=-0.1),
            ValueError,
            r"noise_multiplier must be in \[0.0, inf\), got -0.1",
        ),
        (dict(clip_bound=0), ValueError, r"clip_bound must be in \(0.0, inf\), got 0.0"),
        (dict(ema_decay=1.0), ValueError, r"ema_decay must be in \[0.0, 1.0\), got 1.0"),
        (dict(tau=-1), ValueError, r"tau must be in \(0.0, inf\), got -1.0"),
        (dict(betas=(0.5,)), ValueError, r"betas must be a pair"),
        (dict(betas=(0.5, 1.0)), ValueError, r"betas\[1\] must be in \[0.0, 1.0\), got 1.0"),
        (dict(checkpoints=[2.0, 1.0]), ValueError, r"checkpoints must be strictly increasing"),
        (
            dict(checkpoints=[1.0, 20.0]),
            ValueError,
            r"checkpoints must be <= epsilon = 10.0, got 20.0",
        ),
        (
            dict(checkpoints=[1.0], noise_multiplier=0),
            ValueError,
            r"checkpoints need a private run",
        ),
        (
            dict(clip_bound=None),
            ValueError,
            r"clip_bound=None \(no sanitiser\) is the non-private control: it needs "
            r"noise_multiplier=0, got noise_multiplier=1.07",
        ),
        (dict(numeric_columns="a"), ValueError, r"numeric_columns must be a list of column names"),
        (dict(composition="joint"), ValueError, r"composition must be one of"),
        (dict(conversion="exact"), ValueError, r"conversion must be one of"),
        (dict(random_state="x"), TypeError, r"random_state must be"),
    ],
)
def test_bad_parameters(kwargs, exc, message):
    model = GSWGAN(**kwargs)  # __init__ only stores the parameters
    with pytest.raises(exc, match=message):
        model.fit(pd.DataFrame({"a": [0, 1]}))


def test_fit_errors_and_not_fitted():
    df, dom = _table(n=100)
    with pytest.raises(
        ValueError, match="subset_size must be <= the number of records n = 100, got 200"
    ):
        GSWGAN(domain=dom, subset_size=200).fit(df)
    bad = df.assign(a=df["a"] + 4)
    with pytest.raises(ValueError):
        GSWGAN(domain=dom, **SMALL).fit(bad)
    with pytest.raises(
        ValueError, match=r"numeric_columns must be columns of the data \['a', 'b'\], got \['zz'\]"
    ):
        GSWGAN(domain=dom, numeric_columns=["zz"], **SMALL).fit(df)
    with pytest.raises(ValueError, match=r"numeric_columns need >= 2 levels, got \['c'\]"):
        GSWGAN(domain={**dom, "c": 1}, numeric_columns=["c"], **SMALL).fit(df.assign(c=0))
    with pytest.raises(NotFittedError):
        GSWGAN(domain=dom).sample(3)
    with pytest.raises(NotFittedError):
        GSWGAN(domain=dom).at_epsilon(1.0)
    with pytest.raises(ValueError, match="invalid parameter 'sigma'"):
        GSWGAN(domain=dom).set_params(sigma=1.0)
