"""Tests of ``synthtrust.synthesizers.gan.adam``.

The oracles and the shared set-up are described in ``_gan_data.py``.
"""

from __future__ import annotations

import numpy as np
import torch

from synthtrust.synthesizers.gan.adam import (
    FusedAdam,
)


def test_fused_adam_is_adam():
    # FusedAdam (PyTorch's fused kernel on a list of tensors, per-member step counts) against the
    # Adam formula written out: two steps of members 0–1 (a slice), three of member 2, and one
    # of all members (index None) on a second optimizer
    gen = torch.Generator().manual_seed(2)
    params = [torch.rand((3, 4, 2), generator=gen), torch.rand((3, 1, 2), generator=gen)]
    ref = [x.clone() for x in params]
    opt = FusedAdam(params, 1e-2, (0.5, 0.9), n_members=3, torch=torch)
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
    opt = FusedAdam(net, 1e-2, (0.5, 0.9), torch=torch)
    g = torch.randn((4, 2), generator=gen)
    opt.step([g])
    torch.testing.assert_close(net[0], ref - 1e-2 * g / (g.abs() + 1e-8), rtol=1e-5, atol=1e-6)
