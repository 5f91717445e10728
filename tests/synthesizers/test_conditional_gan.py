"""Tests of ``synthtrust.synthesizers._conditional_gan`` (the conditional GAN of CTGAN, xu2019,
shared by CTGAN and PATE-CTGAN). The oracles: the networks' forward passes recomputed in numpy
from their weights (MLP discriminators with LeakyReLU 0.2 and dropout masks drawn from the same
``torch.Generator``; the residual generator's BatchNorm with batch statistics and running
averages of momentum 0.1); the conditional loss as a loop of log-sum-exp cross-entropies; the
defining property of the conditional vectors (a column uniformly, its level from the given
probabilities, an absent level never: chi-square tests); records sampled from a generator whose
logits are set by hand (the block softmax of fixed logits; a generator that copies its
conditional vector into the logits).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.special import logsumexp

from synthtrust.synthesizers._conditional_gan import (
    NETWORK_CONSTRAINTS,
    Conditions,
    Discriminators,
    ResidualGenerator,
    adam,
    conditional_loss,
    layer_widths,
    sample_records,
)


def _leaky(h):
    return np.where(h > 0, h, 0.2 * h)


# ---------------------------------------------------------------------------------- settings
def test_layer_widths_and_the_network_constraints():
    assert layer_widths([128, 64], "generator_dim") == (128, 64)
    assert layer_widths((3,), "d") == (3,)
    for bad in ([], "ab", 5):
        with pytest.raises(ValueError, match="d must be a non-empty sequence of layer widths"):
            layer_widths(bad, "d")
    with pytest.raises(ValueError, match=r"d\[1\] must be >= 1, got 0"):
        layer_widths((3, 0), "d")
    with pytest.raises(TypeError, match=r"d\[0\] must be an integer"):
        layer_widths((2.5,), "d")
    assert set(NETWORK_CONSTRAINTS) == {
        "embedding_dim",
        "generator_dim",
        "discriminator_dim",
        "generator_lr",
        "generator_decay",
        "discriminator_lr",
        "discriminator_decay",
        "tau",
    }
    # learning rates and τ must be > 0; weight decays may be 0
    assert NETWORK_CONSTRAINTS["generator_decay"](0.0, "generator_decay") == 0.0
    for name in ("generator_lr", "discriminator_lr", "tau"):
        with pytest.raises(ValueError, match=rf"{name} must be in \(0.0, inf\), got 0.0"):
            NETWORK_CONSTRAINTS[name](0.0, name)
    with pytest.raises(ValueError, match="embedding_dim must be >= 1"):
        NETWORK_CONSTRAINTS["embedding_dim"](0, "embedding_dim")


def test_adam_has_ctgans_betas():
    w = torch.zeros(3, requires_grad=True)
    opt = adam([w], 2e-4, 1e-6, torch)
    assert isinstance(opt, torch.optim.Adam)
    group = opt.param_groups[0]
    assert group["lr"] == 2e-4 and group["betas"] == (0.5, 0.9)
    assert group["weight_decay"] == 1e-6 and group["params"] == [w]


# ----------------------------------------------------------------------------- discriminators
def test_discriminators_are_independent_mlps():
    gen = torch.Generator().manual_seed(0)
    d = Discriminators((2,), (3, 4, 1), gen, torch)
    w1, b1, w2, b2 = d.params
    assert [p.shape for p in d.params] == [(2, 3, 4), (2, 1, 4), (2, 4, 1), (2, 1, 1)]
    assert all(p.requires_grad for p in d.params)
    # torch's default Linear initialisation: U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    assert w1.abs().max() <= 1 / math.sqrt(3) and b1.abs().max() <= 1 / math.sqrt(3)
    assert w2.abs().max() <= 0.5 and b2.abs().max() <= 0.5
    x = torch.randn((2, 5, 3), generator=torch.Generator().manual_seed(1))
    W1, B1, W2, B2 = (p.detach().numpy().astype(np.float64) for p in d.params)
    h = _leaky(x.numpy() @ W1 + B1)
    with torch.no_grad():
        got = d(x, torch).numpy()
        np.testing.assert_allclose(got, (h @ W2 + B2)[..., 0], rtol=1e-5, atol=1e-6)
        assert got.shape == (2, 5)
        # dropout 0.5 on the hidden layer, masks from the given generator
        dropped = d(x, torch, torch.Generator().manual_seed(7)).numpy()
    keep = (torch.rand((2, 5, 4), generator=torch.Generator().manual_seed(7)) >= 0.5).numpy()
    want = ((h * keep / 0.5) @ W2 + B2)[..., 0]
    np.testing.assert_allclose(dropped, want, rtol=1e-5, atol=1e-6)
    assert not np.allclose(dropped, got)


def test_a_discriminator_without_hidden_layer_is_a_linear_logit():
    d = Discriminators((), (3, 1), torch.Generator().manual_seed(2), torch)
    w, b = (p.detach().numpy() for p in d.params)
    x = torch.randn((4, 3), generator=torch.Generator().manual_seed(3))
    gen = torch.Generator().manual_seed(9)
    with torch.no_grad():
        got = d(x, torch, gen).numpy()
    np.testing.assert_allclose(got, (x.numpy() @ w + b)[:, 0], rtol=1e-6)
    # no dropout, so nothing was drawn from the generator
    assert torch.equal(
        torch.rand(3, generator=gen), torch.rand(3, generator=torch.Generator().manual_seed(9))
    )


# --------------------------------------------------------------------------------- generator
def _bn(a, mean, var, g, beta):
    return (a - mean) / np.sqrt(var + 1e-5) * g + beta


def test_the_residual_generator_by_hand():
    gnet = ResidualGenerator(3, (4, 5), 6, torch.Generator().manual_seed(0), torch)
    params = gnet.parameters()
    assert len(params) == 10 and all(p.requires_grad for p in params)
    assert gnet.out[0].shape == (3 + 4 + 5, 6)  # each block's output is concatenated
    with torch.no_grad():  # affine BatchNorm parameters other than the initial (1, 0)
        for g, beta in gnet.bn:
            g.uniform_(0.5, 1.5, generator=torch.Generator().manual_seed(4))
            beta.uniform_(-0.5, 0.5, generator=torch.Generator().manual_seed(5))
    x = torch.randn((8, 3), generator=torch.Generator().manual_seed(1))

    def by_hand(stats_of):
        h = x.numpy().astype(np.float64)
        for (w, b), (g, beta), st in zip(gnet.lin, gnet.bn, stats_of, strict=True):
            a = h @ w.detach().numpy() + b.detach().numpy()
            mean, var = st(a)
            h = np.concatenate(
                [np.maximum(_bn(a, mean, var, g.detach().numpy(), beta.detach().numpy()), 0), h],
                axis=1,
            )
        return h @ gnet.out[0].detach().numpy() + gnet.out[1].detach().numpy()

    batch = [lambda a: (a.mean(0), a.var(0))] * 2  # training: biased batch variance
    with torch.no_grad():
        train = gnet(x, torch, True).numpy()
    np.testing.assert_allclose(train, by_hand(batch), rtol=1e-4, atol=1e-5)
    # the running statistics moved by momentum 0.1 (unbiased variance), from (0, 1)
    h = x.numpy().astype(np.float64)
    a = h @ gnet.lin[0][0].detach().numpy() + gnet.lin[0][1].detach().numpy()
    rm, rv = gnet.stats[0]
    np.testing.assert_allclose(rm.numpy(), 0.1 * a.mean(0), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * a.var(0, ddof=1), rtol=1e-4)
    # evaluation: the running statistics, not the batch's
    running = [lambda a, s=s: (s[0].numpy(), s[1].numpy()) for s in gnet.stats]
    with torch.no_grad():
        evaluated = gnet(x, torch, False).numpy()
    np.testing.assert_allclose(evaluated, by_hand(running), rtol=1e-4, atol=1e-5)
    gnet.freeze()
    assert not any(p.requires_grad for p in gnet.parameters())


# ------------------------------------------------------------------------ conditional vectors
def test_conditions_follow_their_probabilities_and_never_draw_an_absent_level():
    probs = [np.array([0.2, 0.8, 0.0]), np.array([0.5, 0.0, 0.25, 0.25, 0.0])]
    cond = Conditions(probs, [3, 5], torch)
    col, level, cvec = cond.draw(40_000, torch.Generator().manual_seed(1), torch)
    col, level = col.numpy(), level.numpy()
    assert abs((col == 0).mean() - 0.5) < 0.01  # the column uniformly
    for i, p in enumerate(probs):
        counts = np.bincount(level[col == i], minlength=len(p))
        assert counts[p == 0].sum() == 0
        assert stats.chisquare(counts[p > 0], p[p > 0] * counts.sum()).pvalue > 0.001
    offsets = np.array([0, 3])
    assert (cvec.numpy().argmax(axis=1) == offsets[col] + level).all() and (cvec.sum(1) == 1).all()
    cond.cum[1][-1] = 0.5  # a total short of 1 (float32 rounding, exaggerated)
    _, late, _ = cond.draw(2_000, torch.Generator().manual_seed(2), torch)
    assert late.max() <= 3  # never level 4, whose probability is 0


def test_conditional_loss_is_the_conditioned_columns_cross_entropy():
    rng = np.random.default_rng(0)
    sizes = [3, 2, 4]
    logits = rng.normal(size=(7, 9))
    col = np.array([0, 2, 2, 0, 0, 2, 2])  # column 1 never conditioned
    level = np.array([1, 3, 0, 2, 0, 1, 1])
    got = conditional_loss(
        torch.tensor(logits), torch.tensor(col), torch.tensor(level), sizes, torch
    )
    offsets = [0, 3, 5]
    want = 0.0
    for r in range(7):
        block = logits[r, offsets[col[r]] : offsets[col[r]] + sizes[col[r]]]
        want += logsumexp(block) - block[level[r]]
    assert got.shape == () and float(got) == pytest.approx(want / 7, rel=1e-12)


# ------------------------------------------------------------------------------------ sampling
def _fixed_output(gnet, weight, bias):
    with torch.no_grad():
        gnet.out[0].copy_(torch.as_tensor(weight, dtype=torch.float32))
        gnet.out[1].copy_(torch.as_tensor(bias, dtype=torch.float32))


def test_records_of_fixed_logits_follow_each_blocks_softmax():
    # zero output weights: the logits are the bias, log p per column, for every record
    p = {"a": np.array([0.3, 0.7]), "b": np.array([0.2, 0.5, 0.3])}
    gnet = ResidualGenerator(4, (6,), 5, torch.Generator().manual_seed(0), torch)
    _fixed_output(gnet, np.zeros((10, 5)), np.log(np.r_[p["a"], p["b"]]))
    out = sample_records(gnet, None, ["a", "b"], [2, 3], 4, 20_000, np.random.default_rng(1), torch)
    assert list(out.columns) == ["a", "b"] and (out.dtypes == np.int64).all() and len(out) == 20_000
    for c in ("a", "b"):
        counts = np.bincount(out[c], minlength=len(p[c]))
        assert stats.chisquare(counts, p[c] * 20_000).pvalue > 0.001, c
    again = sample_records(
        gnet, None, ["a", "b"], [2, 3], 4, 20_000, np.random.default_rng(1), torch
    )
    assert out.equals(again)


def test_records_are_drawn_under_conditions_from_the_probabilities():
    # the generator copies its conditional vector (the last 5 inputs, carried to the output
    # layer by the residual blocks) into the logits, ×100: the conditioned column takes the
    # condition's level, the other column is uniform (all its logits 0)
    probs = {"a": np.array([0.9, 0.1]), "b": np.array([0.0, 0.25, 0.75])}
    emb, L = 3, 5
    gnet = ResidualGenerator(emb + L, (4,), L, torch.Generator().manual_seed(0), torch)
    weight = np.zeros((4 + emb + L, L))
    weight[4 + emb :, :] = 100.0 * np.eye(L)
    _fixed_output(gnet, weight, np.zeros(L))
    n = 30_000
    out = sample_records(gnet, probs, ["a", "b"], [2, 3], emb, n, np.random.default_rng(2), torch)
    # P(code) = ½ P(level | conditioned) + ½ uniform
    for c, k in (("a", 2), ("b", 3)):
        expected = 0.5 * probs[c] + 0.5 / k
        counts = np.bincount(out[c], minlength=k)
        assert stats.chisquare(counts, expected * n).pvalue > 0.001, c


@pytest.mark.parametrize("conditional", [True, False], ids=["conditional", "unconditional"])
def test_records_generated_in_blocks_are_those_of_one_pass(conditional):
    # one block of all n rows is the one-pass sampler (the conditions, z, then the (n, L) noise);
    # blocks draw the same numbers in the same order, whatever their size
    probs = {"a": np.array([0.3, 0.7]), "b": np.array([0.2, 0.5, 0.3])} if conditional else None
    emb, L, n = 4, 5, 10_001
    gnet = ResidualGenerator(
        emb + (L if conditional else 0), (8, 8), L, torch.Generator().manual_seed(3), torch
    )
    gnet.freeze()

    def draw(block_rows):
        rng = np.random.default_rng(7)
        out = sample_records(gnet, probs, ["a", "b"], [2, 3], emb, n, rng, torch, block_rows)
        return out, rng.random()  # and where the stream stands after it

    whole, after = draw(n)
    assert whole["a"].nunique() == 2 and whole["b"].nunique() == 3
    for block_rows in (1000, 4096, n + 5):
        out, then = draw(block_rows)
        assert out.equals(whole) and then == after, block_rows
