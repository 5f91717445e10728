"""Adam for GS-WGAN's networks: one optimiser state for a stacked ensemble of critics (one step
count per member) or for one network, updated in place by PyTorch's fused kernel.

Source: the Adam optimiser of the reference implementation [``gswgan2022``] (PyTorch's
``torch.optim.Adam``), with the WGAN-GP hyperparameters of Montoya Perez et al. (2024)
[``montoyaperez2024``].
"""

from __future__ import annotations

import numpy as np

ADAM_EPS = 1e-8


class FusedAdam:
    """Adam on a list of parameter tensors of a stacked ensemble (leading dimension K) or of one
    network, updated in place by PyTorch's fused kernel. ``step(grads, index)`` updates the
    member(s) ``index`` (an int or a slice of members; each member has its own step count; the
    members of a slice must have the same count) or everything (``index=None``)."""

    def __init__(self, params, lr, betas, n_members=None, torch=None):
        self.p = params
        self.lr = lr
        self.b1, self.b2 = betas
        self.m = [torch.zeros_like(x) for x in params]
        self.v = [torch.zeros_like(x) for x in params]
        self.t = np.zeros(n_members if n_members is not None else 1, dtype=np.int64)
        self.torch = torch

    def reset(self):
        for x in (*self.m, *self.v):
            x.zero_()
        self.t[:] = 0

    def step(self, grads, index=None):
        if index is None:
            p, m, v = self.p, self.m, self.v
            self.t += 1
            t = int(self.t[0])
        else:
            p, m, v = ([x[index] for x in lst] for lst in (self.p, self.m, self.v))
            self.t[index] += 1
            t = int(np.max(self.t[index]))
        step = self.torch.tensor(float(t))
        self.torch._fused_adam_(
            list(p),
            grads,
            list(m),
            list(v),
            [],
            [step] * len(grads),
            lr=self.lr,
            beta1=self.b1,
            beta2=self.b2,
            weight_decay=0.0,
            eps=ADAM_EPS,
            amsgrad=False,
            maximize=False,
        )
