"""Tests of synthtrust.synthesizers.gan (GS-WGAN) and synthtrust.privacy.rdp against oracles:
the reference's published ε (GS-WGAN's accountant on autodp 0.2.3.1), the closed-form RDP of
the plain Gaussian mechanism, brute-force monotonicity, hand computations of the sanitiser, a
chi-square band for its noise, autograd for the hand-written critic gradients, and a fresh fit
for each checkpoint."""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from synthtrust.privacy.rdp import (
    DEFAULT_ORDERS,
    gswgan_epsilon,
    gswgan_max_iterations,
    rdp_to_epsilon,
    sampled_gaussian_rdp,
)
from synthtrust.synthesizers import gan as gan_module
from synthtrust.synthesizers._torch_tables import code_shards, onehot_shards
from synthtrust.synthesizers.base import NotFittedError
from synthtrust.synthesizers.gan import (
    _LEAK,
    GSWGAN,
    _Adam,
    _critic_grads,
    _critic_input_grad,
    _FlatMLP,
    _gen_backward,
    _gen_forward,
    _row_index,
    partition_shards,
    sanitize_gradients,
)

REF = dict(n_discriminators=1000, batch_size=32, noise_multiplier=1.07, delta=1e-5)


def _table(n=400, levels=4, seed=0):
    a = np.random.default_rng(seed).integers(0, levels, n)
    return pd.DataFrame({"a": a, "b": a}), {"a": levels, "b": levels}


# small, fast configuration: n = 400, K = 20 shards of 20, a few pretraining iterations
SMALL = dict(subset_size=20, pretrain_iterations=3, hidden=16, max_iter=40)


# ----------------------------------------------------------------------------------------------
# accountant
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("iterations", "batch", "expected"),
    [(20000, 32, 9.99), (10000, 32, 6.73), (20000, 64, 14.97)],
)
def test_accountant_reproduces_reference_vectors(iterations, batch, expected):
    # GS-WGAN's evaluation/privacy_analysis.py on autodp 0.2.3.1 gives these ε (2 decimals): with
    # the same (classic) RDP → DP conversion the dp-accounting curve must agree to that rounding,
    # ±0.005.
    kw = REF | {"batch_size": batch}
    eps = gswgan_epsilon(iterations, **kw)
    assert abs(eps - expected) <= 0.005
    # the improved conversion (Canonne, Kamath & Steinke 2020) is a valid, tighter bound:
    # measured 9.243 / 6.107 / 14.017, i.e. 6–10 % below the classic value
    improved = gswgan_epsilon(iterations, **kw, conversion="improved")
    assert 0.90 * eps < improved < 0.95 * eps


def test_rdp_without_subsampling_is_the_gaussian_closed_form():
    # q = 1 (1 of 1): RDP of the Gaussian mechanism α / (2σ²) (Mironov 2017, Prop. 7)
    sigma = 1.3
    rdp = sampled_gaussian_rdp(1, 1, sigma)
    orders = np.array(DEFAULT_ORDERS)
    np.testing.assert_allclose(rdp, orders / (2 * sigma**2), rtol=1e-12)
    # classic conversion by hand at δ
    delta = 1e-6
    by_hand = min(a / (2 * sigma**2) + math.log(1 / delta) / (a - 1) for a in DEFAULT_ORDERS)
    assert rdp_to_epsilon(rdp, delta) == pytest.approx(by_hand, rel=1e-12)


def test_subsampling_amplifies_and_per_iteration_composition_costs_more():
    full = sampled_gaussian_rdp(1, 1, 1.07)
    sub = sampled_gaussian_rdp(100, 1, 1.07)
    assert np.all(sub <= full)
    # one batch released as one Gaussian of multiplier σ/√B, subsampled once per iteration
    per_sample = gswgan_epsilon(100, **REF)
    per_iteration = gswgan_epsilon(100, **REF, composition="per_iteration")
    assert per_iteration > 5 * per_sample


def test_epsilon_monotone_and_binary_search_is_exact():
    kw = dict(n_discriminators=500, batch_size=32, noise_multiplier=1.07, delta=1e-5)
    grid = [0, 1, 2, 5, 15, 16, 100, 249, 250, 1000, 4987, 4988]
    eps = [gswgan_epsilon(t, **kw) for t in grid]
    assert eps[0] == 0.0
    assert all(b >= a for a, b in zip(eps[:-1], eps[1:], strict=True))
    for target in (1.0, 2.0, 10.0):
        t = gswgan_max_iterations(target, **kw, max_iterations=20000)
        assert gswgan_epsilon(t, **kw) <= target < gswgan_epsilon(t + 1, **kw)
    # measured: ε = 1 → 15, 2 → 249, 10 → 4987 iterations (K = 500, the chapter's setting)
    assert gswgan_max_iterations(10.0, **kw, max_iterations=20000) == 4987
    assert gswgan_max_iterations(10.0, **kw, max_iterations=300) == 300  # the cap
    assert gswgan_max_iterations(0.01, **kw, max_iterations=300) == 0


def test_accountant_errors():
    with pytest.raises(ValueError, match=r"delta must be in the open interval \(0, 1\), got 1.5"):
        gswgan_epsilon(10, **(REF | {"delta": 1.5}))
    with pytest.raises(ValueError, match="conversion must be one of"):
        gswgan_epsilon(10, **REF, conversion="exact")
    with pytest.raises(ValueError, match="iterations must be >= 0, got -1"):
        gswgan_epsilon(-1, **REF)
    with pytest.raises(ValueError, match="sample_size must be <= population = 3, got 4"):
        sampled_gaussian_rdp(3, 4, 1.0)
    with pytest.raises(TypeError, match="n_discriminators must be an integer"):
        gswgan_epsilon(10, **(REF | {"n_discriminators": 2.5}))


# ----------------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------------
def test_sanitizer_clips_each_row_to_c_over_b():
    grad = torch.tensor([[3.0, 4.0], [0.03, 0.04], [0.0, 0.0], [-6.0, 8.0]], dtype=torch.float64)
    c, b = 2.0, 4  # bound C/B = 0.5
    # same seed ⇒ same noise draw, so the difference is the clipped gradient alone
    out = sanitize_gradients(grad, c, 1.07, torch.Generator().manual_seed(7))
    noise = sanitize_gradients(torch.zeros_like(grad), c, 1.07, torch.Generator().manual_seed(7))
    by_hand = torch.tensor([[0.3, 0.4], [0.03, 0.04], [0.0, 0.0], [-0.3, 0.4]], dtype=torch.float64)
    torch.testing.assert_close(out - noise, by_hand, rtol=0, atol=1e-9)
    assert c / b == 0.5 and grad.shape[0] == b
    # non-private mode (σ = 0): every non-zero row rescaled to norm exactly C/B, no noise
    out0 = sanitize_gradients(grad, c, 0.0)
    np.testing.assert_allclose(out0.norm(dim=1).numpy()[[0, 1, 3]], 0.5, rtol=1e-7)  # 1e-10 guard
    torch.testing.assert_close(out0[1], torch.tensor([0.3, 0.4], dtype=torch.float64))


def test_sanitizer_noise_std_is_2_sigma_c_over_b():
    b, width, c, sigma = 32, 2000, 1.0, 1.07
    out = sanitize_gradients(
        torch.zeros((b, width), dtype=torch.float64), c, sigma, torch.Generator().manual_seed(3)
    )
    std = 2 * sigma * c / b
    m = out.numel()
    stat = float((out**2).sum()) / std**2  # ~ χ²(m) if the std is right
    lo, hi = stats.chi2.ppf([1e-6, 1 - 1e-6], m)
    assert lo < stat < hi
    # a 5 % error in the std would leave the band (shows the test can fail)
    assert not lo < stat / 1.05**2 < hi and not lo < stat / 0.95**2 < hi
    assert abs(float(out.mean())) < 5 * std / math.sqrt(m)


def test_partition_is_disjoint_and_covers():
    rng = np.random.default_rng(0)
    shards = partition_shards(1003, 40, rng)
    assert len(shards) == 1003 // 40 == 25
    allidx = np.concatenate(shards)
    assert np.array_equal(np.sort(allidx), np.arange(1003))
    sizes = [len(s) for s in shards]
    assert min(sizes) >= 40 and max(sizes) - min(sizes) <= 1 and sum(sizes) == 1003
    assert not np.array_equal(allidx, np.arange(1003))  # shuffled
    with pytest.raises(
        ValueError, match="subset_size must be <= the number of records n = 10, got 11"
    ):
        partition_shards(10, 11, rng)


def _autograd_critic(p):
    def critic(x):
        act = torch.nn.functional.leaky_relu
        h = act(x @ p[0] + p[1], _LEAK)
        return (act(h @ p[2] + p[3], _LEAK) @ p[4] + p[5]).squeeze(-1)

    return critic


@pytest.mark.parametrize("real", ["dense", "rows"])
@pytest.mark.parametrize("lead", [(), (3,)])
def test_critic_gradients_match_autograd(lead, real):
    torch.set_default_dtype(torch.float64)
    try:
        gen = torch.Generator().manual_seed(0)
        sizes = [3, 4]  # two one-hot columns: L = 7
        net = _FlatMLP(lead, [7, 5, 4, 1], gen, torch)
        params = net.tensors()
        b = 6
        cols = torch.stack(
            [
                torch.randint(0, 3, (*lead, b), generator=gen),
                3 + torch.randint(0, 4, (*lead, b), generator=gen),
            ],
            dim=-1,
        )
        xr = torch.zeros((*lead, b, 7)).scatter_(-1, cols, 1.0)  # one-hot real records
        xf = torch.rand((*lead, b, 7), generator=gen)
        alpha = torch.rand((*lead, b, 1), generator=gen)
        kw = dict(xr=xr) if real == "dense" else dict(rows=_row_index(cols, lead, 7, torch))
        wass, grads = _critic_grads(params, xf, alpha, 10.0, 1e-3, torch, wasserstein=True, **kw)
        assert sum(sizes) == 7

        leaf = net.flat.clone().requires_grad_(True)
        critic = _autograd_critic(net.views(leaf))
        xi = (alpha * xr + (1 - alpha) * xf).requires_grad_(True)
        gi = torch.autograd.grad(critic(xi).sum(), xi, create_graph=True)[0]
        norm = torch.sqrt((gi**2).sum(-1) + 1e-12)
        d_r, d_f = critic(xr), critic(xf)
        ref = (
            d_f.mean(-1) - d_r.mean(-1) + 10 * ((norm - 1) ** 2).mean(-1) + 1e-3 * (d_r**2).mean(-1)
        ).sum()
        ref_grad = torch.autograd.grad(ref, leaf)[0]
        mine = torch.cat([g.reshape(*lead, -1) for g in grads], -1)
        torch.testing.assert_close(mine, ref_grad, rtol=1e-10, atol=1e-12)
        torch.testing.assert_close(wass, (d_r.mean(-1) - d_f.mean(-1)).detach())
        assert _critic_grads(params, xf, alpha, 10.0, 1e-3, torch, **kw)[0] is None
        x = torch.rand((*lead, 4, 7), generator=gen).requires_grad_(True)
        auto = torch.autograd.grad(critic(x).sum(), x)[0]
        torch.testing.assert_close(_critic_input_grad(params, x.detach(), torch), auto)
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("lead", [(), (2,)])
def test_generator_backward_matches_autograd(lead):
    # Gumbel-softmax samples y = block_softmax((G(z) + g)/τ) of a (2, 3)-level table; the
    # hand-written backward of Σ gy·y against autograd through the same forward pass
    torch.set_default_dtype(torch.float64)
    try:
        gen = torch.Generator().manual_seed(1)
        sizes, tau = [2, 3], 0.2
        net = _FlatMLP(lead, [4, 6, 6, 5], gen, torch)
        z = torch.randn((*lead, 8, 4), generator=gen)
        noise = torch.randn((*lead, 8, 5), generator=gen)
        gy = torch.randn((*lead, 8, 5), generator=gen)
        params = net.tensors()
        y, cache = _gen_forward(params, z, noise.clone(), tau, sizes, torch)
        mine = _gen_backward(params, cache, gy, tau, sizes, torch)

        leaf = net.flat.clone().requires_grad_(True)
        p = net.views(leaf)
        h = torch.relu(torch.relu(z @ p[0] + p[1]) @ p[2] + p[3])
        v = (h @ p[4] + p[5] + noise) / tau
        ref_y = torch.cat([torch.softmax(v[..., :2], -1), torch.softmax(v[..., 2:], -1)], -1)
        torch.testing.assert_close(y, ref_y.detach())
        ref = torch.autograd.grad((ref_y * gy).sum(), leaf)[0]
        torch.testing.assert_close(
            torch.cat([g.reshape(*lead, -1) for g in mine], -1), ref, rtol=1e-10, atol=1e-12
        )
    finally:
        torch.set_default_dtype(torch.float32)


def test_fused_adam_is_adam():
    # _Adam (PyTorch's fused kernel on a list of tensors, per-member step counts) against the
    # Adam formula written out: two steps of members 0–1 (a slice), three of member 2, and one
    # of all members (index None) on a second optimizer
    gen = torch.Generator().manual_seed(2)
    params = [torch.rand((3, 4, 2), generator=gen), torch.rand((3, 1, 2), generator=gen)]
    ref = [x.clone() for x in params]
    opt = _Adam(params, 1e-2, (0.5, 0.9), n_members=3, torch=torch)
    m = [torch.zeros_like(x) for x in ref]
    v = [torch.zeros_like(x) for x in ref]
    counts = np.zeros(3, int)
    for index in (slice(0, 2), slice(0, 2), 2, 2, 2):
        grads = [torch.randn(x[index].shape, generator=gen) for x in params]
        opt.step(grads, index)
        counts[index] += 1
        t = int(np.max(counts[index]))
        for x, mm, vv, g in zip(ref, m, v, grads, strict=True):
            mm[index] = 0.5 * mm[index] + 0.5 * g
            vv[index] = 0.9 * vv[index] + 0.1 * g * g
            x[index] -= 1e-2 / (1 - 0.5**t) * mm[index] / ((vv[index] / (1 - 0.9**t)).sqrt() + 1e-8)
    assert list(opt.t) == [2, 2, 3]
    for x, r in zip(params, ref, strict=True):
        torch.testing.assert_close(x, r, rtol=1e-5, atol=1e-6)
    # one network (index None)
    net = [torch.rand((4, 2), generator=gen)]
    ref = net[0].clone()
    opt = _Adam(net, 1e-2, (0.5, 0.9), torch=torch)
    g = torch.randn((4, 2), generator=gen)
    opt.step([g])
    torch.testing.assert_close(net[0], ref - 1e-2 * g / (g.abs() + 1e-8), rtol=1e-5, atol=1e-6)


def test_code_shards_are_the_one_hot_shards():
    rng = np.random.default_rng(4)
    codes = {"a": rng.integers(0, 3, 103), "b": rng.integers(0, 5, 103)}
    shards = partition_shards(103, 20, rng)
    dense, sizes_d = onehot_shards(codes, ["a", "b"], [3, 5], shards)
    cols, sizes_c = code_shards(codes, ["a", "b"], [3, 5], shards)
    assert cols.shape == (5, 21, 2) and np.array_equal(sizes_d, sizes_c)
    rebuilt = np.zeros_like(dense)
    for j in range(5):
        for r in range(sizes_c[j]):
            rebuilt[j, r, cols[j, r]] = 1.0
    np.testing.assert_array_equal(rebuilt, dense)


# ----------------------------------------------------------------------------------------------
# the synthesizer
# ----------------------------------------------------------------------------------------------
def test_fit_spends_at_most_epsilon_and_records_ledger():
    df, dom = _table()
    g = GSWGAN(epsilon=8.0, domain=dom, random_state=0, **(SMALL | {"max_iter": 20000}))
    g.fit(df)
    k = g.n_discriminators_
    assert k == 20 and g.n_records_ == 400
    kw = dict(n_discriminators=k, batch_size=32, noise_multiplier=1.07, delta=1e-5)
    assert g.iterations_ == gswgan_max_iterations(8.0, **kw, max_iterations=20000) > 0
    assert g.epsilon_spent_ == gswgan_epsilon(g.iterations_, **kw) <= 8.0
    assert gswgan_epsilon(g.iterations_ + 1, **kw) > 8.0
    assert g.epsilon_at(g.iterations_) == g.epsilon_spent_
    assert len(g.ledger_) == 1 and g.ledger_.total_epsilon == g.epsilon_spent_
    entry = g.ledger_.entries[0]
    assert entry.delta == 1e-5 and entry.sensitivity == pytest.approx(2 / 32)
    assert entry.scale == pytest.approx(2 * 1.07 / 32)
    assert f"K={k}" in entry.note and f"{g.iterations_} iterations" in entry.note
    assert g.wasserstein_.shape == (g.iterations_,) and np.all(np.isfinite(g.wasserstein_))
    s = g.sample()
    assert s.shape == (400, 2) and list(s.columns) == ["a", "b"]
    assert s["a"].between(0, 3).all() and s["b"].dtype == np.int64


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
        epsilon=1e6, noise_multiplier=0.3, subset_size=100, pretrain_iterations=100, **common
    ).fit(df)
    assert noisy.iterations_ == 1000 and noisy.epsilon_spent_ <= 1e6
    s = noisy.sample(4000)
    assert (s["a"] == s["b"]).mean() > 0.5
    # every level of a is produced
    assert np.bincount(s["a"], minlength=4).min() > 0.05 * 4000


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
    assert snap.ledger_.total_epsilon == spent[0] == fresh.epsilon_spent_
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


def test_chunks_of_the_pretraining_do_not_change_results(monkeypatch):
    # the K (critic, generator) pairs are pretrained a chunk at a time; the random draws are
    # made for all K first, so any chunk size gives the same numbers, bit for bit
    df, dom = _table()
    fits = []
    for chunk in (25, 3, 1000):
        monkeypatch.setattr(gan_module.training, "_CHUNK", chunk)
        fits.append(GSWGAN(epsilon=30.0, domain=dom, random_state=5, **SMALL).fit(df))
    for other in fits[1:]:
        assert all(torch.equal(a, b) for a, b in zip(fits[0]._ema, other._ema, strict=True))
        np.testing.assert_array_equal(fits[0].wasserstein_, other.wasserstein_)


def test_same_numbers_and_accounting_as_the_previous_implementation(monkeypatch):
    # benchmarks/bench_gan.py keeps the previous training loop (dense one-hot matmuls, autograd
    # for the generator, unfused Adam) as its baseline: for a fixed seed the accounting (the
    # iterations, checkpoint schedule and ledger) is identical and the released generator equal
    # up to float rounding (3 pretraining and 74 private iterations)
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
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
        (dict(composition="joint"), ValueError, r"composition must be one of"),
        (dict(conversion="pld"), ValueError, r"conversion must be one of"),
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
    with pytest.raises(NotFittedError):
        GSWGAN(domain=dom).sample(3)
    with pytest.raises(NotFittedError):
        GSWGAN(domain=dom).at_epsilon(1.0)
    with pytest.raises(ValueError, match="invalid parameter 'sigma'"):
        GSWGAN(domain=dom).set_params(sigma=1.0)
