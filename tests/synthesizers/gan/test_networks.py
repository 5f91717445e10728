"""Tests of ``synthtrust.synthesizers.gan.networks``.

The oracles and the shared set-up are described in ``_gan_data.py``.
"""

from __future__ import annotations

import pytest
import torch

from synthtrust.synthesizers.gan.networks import (
    LEAK,
    FlatMLP,
    critic_grads,
    critic_input_grad,
    generator_backward,
    generator_forward,
    row_index,
)


def _autograd_critic(p):
    def critic(x):
        act = torch.nn.functional.leaky_relu
        h = act(x @ p[0] + p[1], LEAK)
        return (act(h @ p[2] + p[3], LEAK) @ p[4] + p[5]).squeeze(-1)

    return critic


@pytest.mark.parametrize("real", ["dense", "rows"])
@pytest.mark.parametrize("lead", [(), (3,)])
def test_critic_gradients_match_autograd(lead, real):
    torch.set_default_dtype(torch.float64)
    try:
        gen = torch.Generator().manual_seed(0)
        sizes = [3, 4]  # two one-hot columns: L = 7
        net = FlatMLP(lead, [7, 5, 4, 1], gen, torch)
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
        kw = dict(xr=xr) if real == "dense" else dict(rows=row_index(cols, lead, 7, torch))
        wass, grads = critic_grads(params, xf, alpha, 10.0, 1e-3, torch, wasserstein=True, **kw)
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
        assert critic_grads(params, xf, alpha, 10.0, 1e-3, torch, **kw)[0] is None
        x = torch.rand((*lead, 4, 7), generator=gen).requires_grad_(True)
        auto = torch.autograd.grad(critic(x).sum(), x)[0]
        torch.testing.assert_close(critic_input_grad(params, x.detach(), torch), auto)
    finally:
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("numeric", [None, (False, False, True)])
@pytest.mark.parametrize("lead", [(), (2,)])
def test_generator_backward_matches_autograd(lead, numeric):
    # Gumbel-softmax samples y = block_softmax((G(z) + g)/τ) of a (2, 3)-level table, and with
    # a third, numeric column whose slot is the raw output (no noise, no softmax); the
    # hand-written backward of Σ gy·y against autograd through the same forward pass
    torch.set_default_dtype(torch.float64)
    try:
        gen = torch.Generator().manual_seed(1)
        sizes, tau = [2, 3] + ([1] if numeric else []), 0.2
        width = sum(sizes)
        net = FlatMLP(lead, [4, 6, 6, width], gen, torch)
        z = torch.randn((*lead, 8, 4), generator=gen)
        noise = torch.randn((*lead, 8, width), generator=gen)
        gy = torch.randn((*lead, 8, width), generator=gen)
        params = net.tensors()
        y, cache = generator_forward(params, z, noise.clone(), tau, sizes, torch, numeric)
        mine = generator_backward(params, cache, gy, tau, sizes, torch, numeric)

        leaf = net.flat.clone().requires_grad_(True)
        p = net.views(leaf)
        h = torch.relu(torch.relu(z @ p[0] + p[1]) @ p[2] + p[3])
        out = h @ p[4] + p[5]
        v = (out + noise) / tau
        ref_y = torch.cat(
            [torch.softmax(v[..., :2], -1), torch.softmax(v[..., 2:5], -1), out[..., 5:]], -1
        )
        torch.testing.assert_close(y, ref_y.detach())
        ref = torch.autograd.grad((ref_y * gy).sum(), leaf)[0]
        torch.testing.assert_close(
            torch.cat([g.reshape(*lead, -1) for g in mine], -1), ref, rtol=1e-10, atol=1e-12
        )
    finally:
        torch.set_default_dtype(torch.float32)
