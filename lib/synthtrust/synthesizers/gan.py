"""GS-WGAN for tables of discrete columns: a Wasserstein GAN whose generator only ever receives
sanitised gradients from an ensemble of non-private discriminators on disjoint data shards.

Source: D. Chen, T. Orekondy, M. Fritz, "GS-WGAN: a gradient-sanitized approach for learning
differentially private generators", NeurIPS 2020 [``chen2020``]; defaults, algorithm and
accounting as in the reference implementation (``DingfanChen/GS-WGAN`` @ 62e77b3 [``gswgan2022``]),
written from a description of it, not from its code. The tabular port follows Montoya Perez et
al. (2024) [``montoyaperez2024``], §4.2: a fully connected three-layer generator,
WGAN-GP hyperparameters (Gulrajani et al. 2017), subsampling rate γ = 1/500 (disjoint subsets
of 40 records out of 20 000), C = 1, noise multiplier 1.07, generators saved at several ε during
one training run.

Data and networks
-----------------
Each column with k levels is one-hot encoded; a record is a vector of L = Σ k entries.

* Generator G: z ~ N(0, I_{z_dim}) → Linear(z_dim, hidden) → ReLU → Linear(hidden, hidden) → ReLU
  → Linear(hidden, L) = logits, one block of k logits per column. During training the
  discriminator sees the **Gumbel-softmax relaxation** (Jang, Gu & Poole 2017) of each block,
  softmax((logits + g)/τ) with g i.i.d. standard Gumbel and temperature τ = ``tau`` (default 0.2,
  as CTGAN); small τ makes the relaxed vectors close to one-hot (the real records are exactly
  one-hot). :meth:`GSWGAN.sample` draws one category per column as argmax(logits + g) (the
  Gumbel-max trick: exactly a draw from softmax(logits)).
* Discriminators (WGAN critics): K MLPs Linear(L, hidden) → LeakyReLU(0.2) → Linear(hidden,
  hidden) → LeakyReLU(0.2) → Linear(hidden, 1), stored as **one batched ensemble** (weights of
  shape (K, in, out), batched matmul, stacked Adam state), so pretraining all K is one batched
  computation and a private iteration indexes one member. The gradient of a critic with respect to
  its input, needed for the gradient penalty and the sanitiser, is written out in closed form
  (∂D/∂x = W₁ diag φ'(a₁) W₂ diag φ'(a₂) w₃; φ' is piecewise constant), so no double
  backpropagation is needed.

Implementation (CPU, one thread): no autograd — the critic's WGAN-GP gradient and the
generator's backward pass (per-column softmax, 1/τ, three Linear layers) are written out and
checked against autograd in the tests; Adam is PyTorch's fused kernel. In the batched pretraining
a real record enters the first layer as the sum of the c rows of W₁ of its one-hot entries (and
its part of ∂/∂W₁ is a scatter-add), the first layer of x̂ = αx_real + (1−α)x_fake is
α·a₁(x_real) + (1−α)·a₁(x_fake) (it is affine), and the K (critic, generator) pairs are processed
a chunk of ``_CHUNK`` at a time so that the intermediates stay in the cache; every random number
is drawn in the same order as an unchunked loop, so the chunk size does not change any result.
These change only the floating-point rounding, not the algorithm or the random draws: a run
equals the previous dense, autograd-based implementation (kept as the baseline of
``benchmarks/bench_gan.py``) to ≈ 1e-7 over short runs (tests/test_gan.py); over thousands of
iterations the rounding differences grow as in any GAN, so quality is compared by the
benchmark's TVD check instead.

Algorithm (the reference implementation's, adapted to tables)
--------------------------------------------------------------
1. **Partition**: the n records are shuffled once (the synthesizer's generator) and split into
   K = n // ``subset_size`` disjoint shards (sizes differ by at most one, all ≥ subset_size);
   discriminator j only ever sees shard j.
2. **Warm start** (``pretrain_iterations``): every discriminator is trained non-privately on its
   own shard against its own throw-away generator (as GS-WGAN's ``pretrain.py``: critic_iters
   critic steps then one generator step per iteration; here all K pairs in one batched
   computation). Not charged: only the released generator G is a function of the outputs that
   are accounted, and G only ever receives sanitised gradients. Discriminator j (and its
   throw-away generator) is a function of shard j and public randomness only, which is what the
   subsampling argument needs: on neighbouring datasets (one record replaced) every
   discriminator except the one holding the replaced record is identical given the same
   history. The Adam state of the critics is reset after pretraining (as the reference, which
   creates new optimisers).
3. **Iterations**: pick one discriminator j uniformly at random (a record's shard is used with
   probability q = 1/K); ``critic_iters`` critic steps on D_j with loss
   mean D(fake) − mean D(real) + gp_weight·mean(‖∇ₓD(x̂)‖₂ − 1)² + drift_weight·mean D(real)²
   (x̂ = αx_real + (1−α)x_fake, α ~ U(0, 1); WGAN-GP; drift term of PGGAN); then one generator step
   through the frozen D_j with loss −mean D_j(G(z)) over B = ``batch_size`` samples: the gradient
   of that loss with respect to each generated sample (the discriminator's input) is clipped to L2
   norm C/B (C = ``clip_bound``) and gets Gaussian noise of std (C/B)·σ·2 (σ =
   ``noise_multiplier``; 2 = replace-one sensitivity of a clipped vector) before it flows into G
   (:func:`sanitize_gradients`). Adam (``lr``, ``betas``) for G and each D.
4. **Release**: an exponential moving average of G's parameters with decay
   min(1 − 1/(t+1), ``ema_decay``) at iteration t = 0, 1, … (the reference's warm-up) is the
   released model.

Real batches are uniform random subsets of b = min(``batch_size``, ``subset_size``) records of
the shard (without replacement; so if a shard is smaller than the batch the batch is a random
subset of that size, never a resample), with b fake samples; the critic is not released, so the
real-batch size does not enter the accounting.

Accounting (:mod:`synthtrust.privacy.rdp`)
-------------------------------------------
ε(T) for T iterations is computed as GS-WGAN does: T·B compositions of the Gaussian mechanism
(noise multiplier σ) on a subsample of 1 out of K shards drawn without replacement, under
replace-one neighbours, by Rényi DP (dp-accounting 0.6.0), converted to (ε, δ) by the classic
bound (``conversion="classic"``, as autodp; reproduces the reference's ε = 9.99 for K = 1000,
T = 20 000, B = 32, σ = 1.07, δ = 1e-5). Training stops at the largest T ≤ ``max_iterations``
with ε(T) ≤ ``epsilon``. ⚠ ``composition="per_iteration"`` gives the standard analysis in which
the B sanitised gradients of one iteration, which all depend on the same discriminator, are one
Gaussian release with multiplier σ/√B subsampled once; it is orders of magnitude larger (one
single iteration at K = 500 already costs ε ≈ 28), see :mod:`synthtrust.privacy.rdp`.

Neighbouring relation: **replace-one** (n public; the size of the shards and K are derived from
n). :meth:`GSWGAN.sample` without ``n`` returns n rows.

Non-private mode: ``noise_multiplier=0`` rescales every per-sample gradient to norm exactly C/B
and adds no noise (the reference's non-DP mode); ε = ∞ is recorded, training runs
``max_iterations`` iterations.
"""

from __future__ import annotations

import copy
import math
import time
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._optional import import_optional
from .._validation import (
    check_delta,
    check_epsilon,
    check_nonnegative_int,
    check_positive_int,
    check_random_state,
    check_real,
    check_real_range,
)
from ..privacy.ledger import PrivacyLedger
from ..privacy.rdp import gswgan_epsilon, gswgan_max_iterations
from ._torch_tables import (
    block_softmax,
    code_shards,
    decode_gumbel_max,
    gumbel,
    one_thread,
    onehot_shards,
)
from .tabular import TabularSynthesizer

__all__ = ["GSWGAN", "partition_shards", "sanitize_gradients"]

_LEAK = 0.2  # LeakyReLU slope of the critics
_ADAM_EPS = 1e-8
_SENSITIVITY = 2.0  # replace-one sensitivity factor of a clipped per-sample gradient
_CHUNK = 25  # (critic, generator) pairs pretrained together (cache-sized intermediates)


# --------------------------------------------------------------------------------------------
# building blocks (public for tests)
# --------------------------------------------------------------------------------------------
def sanitize_gradients(grad, clip_bound: float, noise_multiplier: float, generator=None):
    """GS-WGAN's gradient sanitiser: clip each per-sample gradient to C/B, add N(0, (2σC/B)²).

    Parameters
    ----------
    grad : torch.Tensor, shape (B, L)
        Gradient of the generator loss with respect to each of the B generated samples (the
        discriminator's input), one row per sample.
    clip_bound : float > 0
        C. Rows are scaled by min(1, (C/B)/(‖row‖₂ + 1e-10)) (the 1/B compensates the mean over
        the batch in the loss).
    noise_multiplier : float ≥ 0
        σ; the noise has std (C/B)·σ·2 per entry (2 = replace-one sensitivity of a vector of norm
        ≤ C/B). σ = 0 is the reference's non-private mode: every row is rescaled to norm exactly
        C/B (scale (C/B)/(‖row‖ + 1e-10), no minimum with 1) and no noise is added.
    generator : torch.Generator or None
        Source of the Gaussian noise (a torch generator, as this runs inside the torch training
        loop; :class:`GSWGAN` seeds it from its ``random_state``).

    Returns
    -------
    torch.Tensor, shape (B, L) (a new tensor).

    Raises
    ------
    ValueError
        ``grad`` not 2-D; ``clip_bound`` ≤ 0 or ``noise_multiplier`` < 0 (or not finite).

    Source: GS-WGAN's ``dp_conv_hook`` / ``modify_gradnorm_conv_hook`` [``gswgan2022``].
    """
    torch = import_optional("torch", "GS-WGAN")

    if grad.ndim != 2:
        raise ValueError(f"grad must have shape (batch, features), got shape {tuple(grad.shape)}")
    clip_bound = check_real(clip_bound, "clip_bound")
    if clip_bound <= 0:
        raise ValueError(f"clip_bound must be > 0, got {clip_bound!r}")
    noise_multiplier = check_real(noise_multiplier, "noise_multiplier")
    if noise_multiplier < 0:
        raise ValueError(f"noise_multiplier must be >= 0, got {noise_multiplier!r}")
    bound = clip_bound / grad.shape[0]
    coef = bound / (torch.linalg.vector_norm(grad, dim=1, keepdim=True) + 1e-10)
    if noise_multiplier == 0:
        return grad * coef
    out = grad * torch.clamp(coef, max=1.0)
    noise = torch.randn(grad.shape, generator=generator, dtype=grad.dtype, device=grad.device)
    return out + noise * (bound * noise_multiplier * _SENSITIVITY)


def partition_shards(n: int, subset_size: int, random_state=None) -> list[np.ndarray]:
    """Shuffle ``range(n)`` once and split it into K = n // subset_size disjoint shards.

    Shard sizes differ by at most one and are all ≥ ``subset_size`` (``numpy.array_split``).
    ``random_state``: int, numpy Generator, SeedSequence or None (the shuffle).

    Returns
    -------
    list of K int64 arrays of record indices (disjoint, covering 0..n−1).

    Raises
    ------
    ValueError
        ``subset_size`` > n or either < 1.
    """
    if n < 1 or subset_size < 1:
        raise ValueError(
            f"n and subset_size must be >= 1, got n={n!r}, subset_size={subset_size!r}"
        )
    if subset_size > n:
        raise ValueError(f"subset_size must be <= the number of records n = {n}, got {subset_size}")
    perm = check_random_state(random_state).permutation(n).astype(np.int64)
    return list(np.array_split(perm, n // subset_size))


# --------------------------------------------------------------------------------------------
# MLPs as lists of contiguous (optionally stacked) tensors, hand-written gradients, fused Adam
# --------------------------------------------------------------------------------------------
class _FlatMLP:
    """Weights (in, out) and biases (1, out) of an MLP with layer sizes ``dims``, stored in one
    buffer ``flat`` of shape lead + (P,); :meth:`views` splits any such buffer into the per-layer
    tensors. Initialisation: Uniform(±1/√fan_in) (PyTorch's Linear default), drawn layer by layer
    from ``generator``. Training works on :meth:`tensors` (one contiguous copy per layer)."""

    def __init__(self, lead: tuple, dims: list[int], generator, torch):
        self.lead = tuple(lead)
        self.shapes = []
        for fan_in, fan_out in zip(dims[:-1], dims[1:], strict=True):
            self.shapes += [(fan_in, fan_out), (1, fan_out)]
        self.numels = [a * b for a, b in self.shapes]
        self.flat = torch.empty((*self.lead, sum(self.numels)))
        for i, view in enumerate(self.views(self.flat)):
            fan_in = self.shapes[i - i % 2][0]
            bound = 1.0 / math.sqrt(fan_in)
            view.copy_((torch.rand(view.shape, generator=generator) * 2 - 1) * bound)

    def views(self, flat) -> list:
        lead = flat.shape[:-1]
        parts = flat.split(self.numels, dim=-1)
        return [p.reshape(*lead, *s) for p, s in zip(parts, self.shapes, strict=True)]

    def tensors(self) -> list:
        """The parameters as a list of contiguous tensors [W1, b1, W2, b2, W3, b3]."""
        return [v.contiguous() for v in self.views(self.flat)]


def _mm(bias, x, w, torch):
    return torch.baddbmm(bias, x, w) if x.ndim == 3 else torch.addmm(bias, x, w)


def _gen_logits(p, z, torch):
    """Generator logits (..., n, L) from latent z (..., n, z_dim): Linear-ReLU-Linear-ReLU-Linear."""
    h = torch.relu(_mm(p[1], z, p[0], torch))
    h = torch.relu(_mm(p[3], h, p[2], torch))
    return _mm(p[5], h, p[4], torch)


def _t(x):
    return x.transpose(-1, -2)


def _bmm(x, w, torch):
    return torch.bmm(x, w) if x.ndim == 3 else torch.mm(x, w)


def _leaky(x, torch):
    return torch._C._nn.leaky_relu(x, _LEAK)


def _leaky_back(grad, pre, torch):
    """grad · φ'(pre) for φ = LeakyReLU(0.2) (φ' = 1 if pre > 0 else 0.2), one fused pass."""
    return torch.ops.aten.leaky_relu_backward.default(grad, pre, _LEAK, False)


def _critic_input_grad(p, x, torch):
    """∂D/∂x for each row of x (..., n, L): ((φ'(a2)·w3ᵀ) W2ᵀ · φ'(a1)) W1ᵀ, shape (..., n, L)."""
    a1 = _mm(p[1], x, p[0], torch)
    a2 = _mm(p[3], _leaky(a1, torch), p[2], torch)
    g2 = _leaky_back(_t(p[4]).expand(a2.shape), a2, torch)
    return _bmm(_leaky_back(_bmm(g2, _t(p[2]), torch), a1, torch), _t(p[0]), torch)


def _row_index(cols, lead, width, torch):
    """Row indices into W1 viewed as (prod(lead)·L, h) for the active columns ``cols``
    (*lead, ..., c) of one-hot records (member k's rows start at k·L)."""
    if not lead:
        return cols
    return cols + (torch.arange(lead[0]) * width).view(-1, *([1] * (cols.ndim - 1)))


def _critic_grads(
    p, xf, alpha, gp_weight, drift_weight, torch, *, xr=None, rows=None, wasserstein=False
):
    """WGAN-GP critic gradient, written out by hand (no autograd).

    loss = mean D(x_f) − mean D(x_r) + gp_weight·mean(‖∇D(x̂)‖ − 1)² + drift_weight·mean D(x_r)²
    with x̂ = α x_r + (1 − α) x_f, for a critic (or a stacked ensemble: leading dimension K) with
    contiguous parameters ``p`` = [W1, b1, W2, b2, w3, b3]; ‖·‖ is √(Σ g² + 1e-12).

    The real records are given either densely, ``xr`` (*lead, b, L), or — cheaper for a large
    ensemble — as the rows of W1 (viewed as (K·L, h), see :func:`_row_index`) of their c active
    one-hot entries, ``rows`` (*lead, b, c): then x_r W1 is a sum of c gathered rows and the real
    part of ∂loss/∂W1 a scatter-add (no matmul with the zeros). The first layer is affine, so the
    pre-activation of x̂ is α·a1(x_r) + (1 − α)·a1(x_f) (no third matmul).

    Returns (Wasserstein estimate mean D(x_r) − mean D(x_f) per member, or None unless
    ``wasserstein``; list of gradients shaped like ``p``). Checked against autograd in
    tests/test_gan.py.
    """
    w1, b1, w2, b2, w3, b3 = p
    b, h = xf.shape[-2], w1.shape[-1]
    if rows is None:
        x = torch.cat([xr, xf], dim=-2)
        a1x = _mm(b1, x, w1, torch)
        a1r, a1f = a1x[..., :b, :], a1x[..., b:, :]
    else:
        a1r = w1.view(-1, h).index_select(0, rows.reshape(-1)).view(*rows.shape, h).sum(-2)
        a1r += b1
        a1f = _mm(b1, xf, w1, torch)
    a1 = torch.cat([a1r, a1f, torch.lerp(a1f, a1r, alpha)], dim=-2)  # real, fake, x̂
    a1o = a1[..., : 2 * b, :]
    h1 = _leaky(a1, torch)
    a2 = _mm(b2, h1, w2, torch)
    a2o, a2i, a1i = a2[..., : 2 * b, :], a2[..., 2 * b :, :], a1[..., 2 * b :, :]
    h2 = _leaky(a2o, torch)
    out = _mm(b3, h2, w3, torch)  # (..., 2b, 1): real then fake
    wass = None
    if wasserstein:
        wass = out[..., :b, 0].mean(-1) - out[..., b:, 0].mean(-1)
    # gradient penalty at x̂ (rows 2b:3b); the masks φ' are piecewise constant: no gradient
    w3t = _t(w3)
    g2 = _leaky_back(w3t.expand(a2i.shape), a2i, torch)
    g1 = _leaky_back(_bmm(g2, _t(w2), torch), a1i, torch)
    gx = _bmm(g1, _t(w1), torch)
    nrm = (gx * gx).sum(-1, keepdim=True).add_(1e-12).sqrt_()
    # backward: Wasserstein + drift terms (rows of x_r and x_f): ∂loss/∂D = (2·drift·D − 1)/b
    # for the real rows, 1/b for the fake ones
    d_out = torch.full_like(out, 1.0 / b)
    d_out[..., :b, :].add_(out[..., :b, :], alpha=2 * drift_weight / b).sub_(2.0 / b)
    dw3 = _bmm(_t(h2), d_out, torch)
    db3 = d_out.sum(-2, keepdim=True)
    da2 = _leaky_back(d_out * w3t, a2o, torch)
    dw2 = _bmm(_t(h1[..., : 2 * b, :]), da2, torch)
    db2 = da2.sum(-2, keepdim=True)
    da1 = _leaky_back(_bmm(da2, _t(w2), torch), a1o, torch)
    db1 = da1.sum(-2, keepdim=True)
    # backward: gradient penalty, ∂/∂(∇D(x̂)) = (2·gp/b)(‖g‖ − 1)/‖g‖ · g (gx is overwritten)
    dgx = gx.mul_((nrm - 1).div_(nrm).mul_(2 * gp_weight / b))
    if rows is None:
        dw1 = _bmm(_t(torch.cat([x, dgx], dim=-2)), torch.cat([da1, g1], dim=-2), torch)
    else:
        dw1 = _addmm_(_bmm(_t(xf), da1[..., b:, :], torch), _t(dgx), g1)
        dw1v, da1r = dw1.view(-1, h), da1[..., :b, :].reshape(-1, h)
        for c in range(rows.shape[-1]):
            dw1v.index_add_(0, rows[..., c].reshape(-1), da1r)
    du = _leaky_back(_bmm(dgx, w1, torch), a1i, torch)
    dw2 = _addmm_(dw2, _t(du), g2)
    dw3 += _t(_leaky_back(_bmm(du, w2, torch), a2i, torch).sum(-2, keepdim=True))
    return wass, [dw1, db1, dw2, db2, dw3, db3]


def _addmm_(out, x, w):
    """out += x @ w in place (batched or not)."""
    return out.baddbmm_(x, w) if x.ndim == 3 else out.addmm_(x, w)


def _gen_forward(p, z, noise, tau, sizes, torch):
    """Gumbel-softmax samples y = block_softmax((G(z) + noise)/τ) and what the backward needs."""
    r1 = torch.relu(_mm(p[1], z, p[0], torch))
    r2 = torch.relu(_mm(p[3], r1, p[2], torch))
    logits = _mm(p[5], r2, p[4], torch)
    y = block_softmax(logits.add_(noise).div_(tau), sizes, torch)
    return y, (z, r1, r2, y)


def _gen_backward(p, cache, gy, tau, sizes, torch):
    """Gradients of Σ gy·y with respect to the generator's parameters (hand-written backward of
    :func:`_gen_forward`: per-block softmax, 1/τ, Linear-ReLU-Linear-ReLU-Linear)."""
    z, r1, r2, y = cache
    dl = gy.clone()
    off = 0
    for size in sizes:  # softmax backward per block: y·(g − Σ_block g·y)
        blk = slice(off, off + size)
        dl[..., blk] -= (gy[..., blk] * y[..., blk]).sum(-1, keepdim=True)
        off += size
    dl.mul_(y).div_(tau)
    grads = [None] * 6
    for i, (inp, w) in enumerate(((r2, p[4]), (r1, p[2]), (z, p[0]))):
        grads[4 - 2 * i] = _bmm(_t(inp), dl, torch)
        grads[5 - 2 * i] = dl.sum(-2, keepdim=True)
        if i < 2:
            dl = torch.ops.aten.threshold_backward.default(_bmm(dl, _t(w), torch), inp, 0)
    return grads


class _Adam:
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
            eps=_ADAM_EPS,
            amsgrad=False,
            maximize=False,
        )


# --------------------------------------------------------------------------------------------
# the synthesizer
# --------------------------------------------------------------------------------------------
class GSWGAN(TabularSynthesizer):
    """GS-WGAN (Chen et al. 2020) for integer-coded discrete tables; (ε, δ)-DP, replace-one.

    See the module docstring for the networks, the algorithm and the accounting.

    Parameters
    ----------
    epsilon : float > 0, default 10.0
        Budget ε (nats); training runs the largest number of iterations with ε(T) ≤ epsilon.
        Ignored in the non-private mode (``noise_multiplier=0``).
    delta : float in (0, 1), default 1e-5
    domain : dict {column: levels}, a synthtrust Domain, or None
        Public domain (None infers it from the data with a warning: not DP).
    subset_size : int ≥ 1, default 40
        Records per discriminator shard; K = n // subset_size shards (the paper: 40 of 20 000,
        γ = 1/500). Must be ≤ n (checked at :meth:`fit`).
    noise_multiplier : float ≥ 0, default 1.07
        σ (0: non-private mode, ε = ∞).
    clip_bound : float > 0, default 1.0
        C.
    batch_size : int ≥ 1, default 32
        B, generated samples per generator step (and real records per critic step, capped at
        ``subset_size``).
    z_dim : int ≥ 1, default 10
    hidden : int ≥ 1, default 64
        Width of the hidden layers of the generator and the critics.
    critic_iters : int ≥ 1, default 5
    lr : float > 0, default 1e-4
    betas : (float, float) in [0, 1), default (0.5, 0.9)
        Adam (Gulrajani et al. 2017).
    gp_weight : float ≥ 0, default 10.0
    drift_weight : float ≥ 0, default 1e-3
    ema_decay : float in [0, 1), default 0.999
    tau : float > 0, default 0.2
        Gumbel-softmax temperature of the samples shown to the critics.
    pretrain_iterations : int ≥ 0, default 100
        Non-private warm-start iterations of every discriminator (each: ``critic_iters`` critic
        steps and one step of its throw-away generator). The reference uses 2000 (MNIST); one
        batched iteration for K = 500 critics on the (2, 100)-level table costs ≈ 0.3–0.7 s on
        one CPU thread (``benchmarks/bench_gan.py``; the range is the machine's load), so 2000
        would take 10–20 min per fit and the default is smaller.
    max_iterations : int ≥ 1, default 20000
        Cap on the private iterations (the reference's ``iterations``).
    checkpoints : sequence of floats or None
        Strictly increasing ε values in (0, epsilon]: the EMA generator is kept at the last
        iteration whose ε ≤ each value; :meth:`at_epsilon` returns those snapshots. They come
        from the same run, so releasing several costs the largest of their ε, not the sum. A run
        is a prefix of any longer run with the same ``random_state`` and parameters, so the
        snapshot at checkpoint c is identical to the generator of a fresh fit with epsilon=c.
    composition : {"per_sample", "per_iteration"}, default "per_sample"
        Accounting (module docstring; "per_sample" is GS-WGAN's).
    conversion : {"classic", "improved"}, default "classic"
        RDP → (ε, δ) conversion (:mod:`synthtrust.privacy.rdp`; "classic" is autodp's).
    random_state : int, numpy.random.Generator, SeedSequence or None

    Attributes
    ----------
    n_records_ : int
    n_discriminators_ : int
        K.
    iterations_ : int
        Private iterations run.
    epsilon_spent_ : float
        ε(``iterations_``) (≤ epsilon; ∞ in the non-private mode; 0 if no iteration was affordable).
    checkpoints_ : dict {ε checkpoint: (iterations, ε spent)}
    wasserstein_ : ndarray, shape (``iterations_``,)
        The critic's estimate mean D(real) − mean D(fake) at the last critic step of each
        iteration (a training diagnostic computed on non-released quantities; not DP).
    ledger : PrivacyLedger
        One ``"subsampled_gaussian"`` entry with ε = ``epsilon_spent_``, δ = delta, sensitivity 2C/B,
        scale 2σC/B (ρ not defined: the accounting is RDP, not zCDP).

    Raises
    ------
    TypeError, ValueError
        At construction or :meth:`fit`: a parameter of the wrong type or out of range (the message
        names it, its value and the allowed range); at :meth:`fit` also ``subset_size`` > n and
        codes outside the domain.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> df = pd.DataFrame({"a": np.arange(2000) % 2, "b": np.arange(2000) % 3})
    >>> g = GSWGAN(epsilon=5.0, subset_size=20, pretrain_iterations=5, domain={"a": 2, "b": 3},
    ...            random_state=0).fit(df)
    >>> g.n_discriminators_, g.iterations_, g.epsilon_spent_ <= 5.0
    (100, 54, True)
    >>> g.sample(5).shape
    (5, 2)
    """

    _description = (
        "GS-WGAN (Chen et al. 2020): WGAN-GP generator trained on sanitised gradients from "
        "discriminators on disjoint shards; (epsilon, delta)-DP by RDP, replace-one"
    )
    _accounting = "rdp"

    def __init__(
        self,
        epsilon: float = 10.0,
        delta: float = 1e-5,
        *,
        domain=None,
        subset_size: int = 40,
        noise_multiplier: float = 1.07,
        clip_bound: float = 1.0,
        batch_size: int = 32,
        z_dim: int = 10,
        hidden: int = 64,
        critic_iters: int = 5,
        lr: float = 1e-4,
        betas: tuple[float, float] = (0.5, 0.9),
        gp_weight: float = 10.0,
        drift_weight: float = 1e-3,
        ema_decay: float = 0.999,
        tau: float = 0.2,
        pretrain_iterations: int = 100,
        max_iterations: int = 20000,
        checkpoints: Sequence[float] | None = None,
        composition: str = "per_sample",
        conversion: str = "classic",
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domain = domain
        self.subset_size = subset_size
        self.noise_multiplier = noise_multiplier
        self.clip_bound = clip_bound
        self.batch_size = batch_size
        self.z_dim = z_dim
        self.hidden = hidden
        self.critic_iters = critic_iters
        self.lr = lr
        self.betas = betas
        self.gp_weight = gp_weight
        self.drift_weight = drift_weight
        self.ema_decay = ema_decay
        self.tau = tau
        self.pretrain_iterations = pretrain_iterations
        self.max_iterations = max_iterations
        self.checkpoints = checkpoints
        self.composition = composition
        self.conversion = conversion
        self.random_state = random_state
        self._validate_params()

    # -- parameters ---------------------------------------------------------------------------
    def _validate_params(self) -> None:
        super()._validate_params()
        check_delta(self.delta)  # the base skips δ = 0 outside zCDP; GS-WGAN needs δ > 0
        for name in (
            "subset_size",
            "batch_size",
            "z_dim",
            "hidden",
            "critic_iters",
            "max_iterations",
        ):
            check_positive_int(getattr(self, name), name)
        check_nonnegative_int(self.pretrain_iterations, "pretrain_iterations")
        check_real_range(self.noise_multiplier, "noise_multiplier", 0.0, low_open=False)
        check_real_range(self.clip_bound, "clip_bound", 0.0)
        check_real_range(self.lr, "lr", 0.0)
        check_real_range(self.gp_weight, "gp_weight", 0.0, low_open=False)
        check_real_range(self.drift_weight, "drift_weight", 0.0, low_open=False)
        check_real_range(self.ema_decay, "ema_decay", 0.0, 1.0, low_open=False)
        check_real_range(self.tau, "tau", 0.0)
        betas = self.betas
        if not isinstance(betas, Sequence) or isinstance(betas, str) or len(betas) != 2:
            raise ValueError(f"betas must be a pair (beta1, beta2) in [0, 1), got {betas!r}")
        for i, b in enumerate(betas):
            check_real_range(b, f"betas[{i}]", 0.0, 1.0, low_open=False)
        if self.composition not in ("per_sample", "per_iteration"):
            raise ValueError(
                f"composition must be one of ('per_sample', 'per_iteration'), got {self.composition!r}"
            )
        if self.conversion not in ("classic", "improved"):
            raise ValueError(
                f"conversion must be one of ('classic', 'improved'), got {self.conversion!r}"
            )
        if self.checkpoints is not None:
            cps = self.checkpoints
            if not isinstance(cps, Sequence) or isinstance(cps, str) or len(cps) == 0:
                raise ValueError(
                    f"checkpoints must be None or a non-empty sequence of epsilons, got {cps!r}"
                )
            values = [check_epsilon(c, f"checkpoints[{i}]") for i, c in enumerate(cps)]
            if any(b <= a for a, b in zip(values[:-1], values[1:], strict=True)):
                raise ValueError(f"checkpoints must be strictly increasing, got {list(cps)!r}")
            if values[-1] > float(self.epsilon):
                raise ValueError(
                    f"checkpoints must be <= epsilon = {self.epsilon!r}, got {values[-1]!r}"
                )
            if float(self.noise_multiplier) == 0:
                raise ValueError(
                    "checkpoints need a private run: noise_multiplier must be > 0 with checkpoints, "
                    "got noise_multiplier=0"
                )

    @property
    def rho_(self) -> float:
        """Not defined: GS-WGAN is accounted in Rényi DP (see ``epsilon_spent_``), not zCDP."""
        raise AttributeError(
            "GSWGAN is accounted in Renyi DP (epsilon_spent_, ledger), not in zCDP: no rho_"
        )

    # -- accounting -----------------------------------------------------------------------------
    def _accountant_kwargs(self, k: int) -> dict:
        return dict(
            n_discriminators=k,
            batch_size=int(self.batch_size),
            noise_multiplier=float(self.noise_multiplier),
            delta=float(self.delta),
            composition=self.composition,
            conversion=self.conversion,
        )

    def _iterations_for(self, eps: float, k: int) -> int:
        return gswgan_max_iterations(
            float(eps), max_iterations=int(self.max_iterations), **self._accountant_kwargs(k)
        )

    def epsilon_at(self, iterations: int) -> float:
        """ε(iterations) (nats) of this fitted configuration (K, B, σ, δ, composition, conversion).

        ∞ for iterations ≥ 1 in the non-private mode. Raises NotFittedError before :meth:`fit`,
        TypeError/ValueError for ``iterations`` not an integer ≥ 0.
        """
        self._check_fitted()
        return self._epsilon(check_nonnegative_int(iterations, "iterations"))

    def _epsilon(self, iterations: int) -> float:
        if float(self.noise_multiplier) == 0:
            return 0.0 if iterations == 0 else math.inf
        return gswgan_epsilon(iterations, **self._accountant_kwargs(self.n_discriminators_))

    def _record(self, ledger: PrivacyLedger, iterations: int, eps: float) -> None:
        b, c, s = int(self.batch_size), float(self.clip_bound), float(self.noise_multiplier)
        ledger.record(
            mechanism="subsampled_gaussian",
            epsilon=eps,
            delta=float(self.delta) if s > 0 else 0.0,
            rho=None,
            sensitivity=_SENSITIVITY * c / b,
            scale=_SENSITIVITY * c * s / b,
            note=(
                f"GS-WGAN: {iterations} iterations x B={b} sanitised per-sample gradients; "
                f"1 of K={self.n_discriminators_} disjoint shards per iteration (q=1/K, without "
                f"replacement), sigma={s}, C={c}; RDP via dp-accounting 0.6.0, replace-one, "
                f"{self.composition} composition, {self.conversion} conversion"
                + ("" if s > 0 else "; NON-PRIVATE mode (noise_multiplier=0)")
            ),
        )

    # -- fitting --------------------------------------------------------------------------------
    def _fit_codes(self, codes: dict, rng: np.random.Generator) -> None:
        torch = import_optional("torch", "GSWGAN")

        names = list(codes)
        sizes = [int(self.domain_[c]) for c in names]
        n = int(next(iter(codes.values())).shape[0])
        subset = int(self.subset_size)
        if subset > n:
            raise ValueError(f"subset_size must be <= the number of records n = {n}, got {subset}")
        shards = partition_shards(n, subset, rng)
        k = len(shards)
        self.n_records_ = n
        self.n_discriminators_ = k
        private = float(self.noise_multiplier) > 0

        # iterations: budget, checkpoints
        if private:
            total_it = self._iterations_for(self.epsilon, k)
            cp_eps = [] if self.checkpoints is None else [float(c) for c in self.checkpoints]
            cp_it = [self._iterations_for(c, k) for c in cp_eps]
        else:
            total_it, cp_eps, cp_it = int(self.max_iterations), [], []
        if private and total_it == 0:
            warnings.warn(
                f"one GS-WGAN iteration already costs more than epsilon={self.epsilon}: no training "
                "iteration is run and the released generator is the untrained initial one",
                UserWarning,
                stacklevel=3,
            )
        seed = int(rng.integers(0, 2**63 - 1))
        self._checkpoint_seeds = [int(rng.integers(0, 2**63 - 1)) for _ in cp_eps]

        with one_thread(torch), torch.no_grad():
            gen = torch.Generator().manual_seed(seed)
            ema, snaps, wass = self._train(codes, names, sizes, shards, total_it, cp_it, gen, torch)

        self._ema = ema
        self.iterations_ = total_it
        self.epsilon_spent_ = self._epsilon(total_it)
        self.wasserstein_ = wass
        self._snapshots = dict(zip(cp_eps, snaps, strict=True))
        self.checkpoints_ = {c: (t, self._epsilon(t)) for c, t in zip(cp_eps, cp_it, strict=True)}
        self._record(self.ledger, total_it, self.epsilon_spent_)

    def _train(self, codes, names, sizes, shards, total_it, cp_it, gen, torch):
        L = sum(sizes)
        k = len(shards)
        h, zd = int(self.hidden), int(self.z_dim)
        bsz = int(self.batch_size)
        b = min(bsz, int(self.subset_size))
        ci = int(self.critic_iters)
        tau = float(self.tau)
        gp_w, dr_w = float(self.gp_weight), float(self.drift_weight)
        lr, betas = float(self.lr), (float(self.betas[0]), float(self.betas[1]))
        clip, sigma = float(self.clip_bound), float(self.noise_multiplier)
        clock = time.perf_counter
        t_start = clock()

        # records of every shard as the positions of their one-hot entries (K, m_max, columns),
        # for the ensemble, and one-hot (K, m_max, L), for one critic at a time
        cols, shard_sizes = code_shards(codes, names, sizes, shards)
        m_max = cols.shape[1]
        cols = torch.from_numpy(cols)
        data = torch.from_numpy(onehot_shards(codes, names, sizes, shards)[0])
        pad = torch.from_numpy(np.arange(m_max)[None, :] >= shard_sizes[:, None])  # (K, m_max)
        any_pad = bool(pad.any())

        def real_rows(j, reps):
            """Uniform random subsets of b records, without replacement: of every shard (j None),
            as the positions of their one-hot entries (K, reps, b, c), or of shard j, one-hot
            (reps, b, L)."""
            if j is None:
                keys = torch.rand((k, reps, m_max), generator=gen)
                if any_pad:
                    keys.masked_fill_(pad[:, None, :], 2.0)
                idx = keys.argsort(dim=-1)[..., :b].reshape(k, reps * b)
                return cols[torch.arange(k)[:, None], idx].reshape(k, reps, b, -1)
            keys = torch.rand((reps, m_max), generator=gen)
            if any_pad:
                keys.masked_fill_(pad[j][None, :], 2.0)
            return data[j][keys.argsort(dim=-1)[:, :b]]

        def relaxed(p, z):
            """Gumbel-softmax samples of the generator(s) with parameters p (+ backward cache)."""
            noise = gumbel((*z.shape[:-1], L), gen, torch)
            return _gen_forward(p, z, noise, tau, sizes, torch)

        critic = _FlatMLP((k,), [L, h, h, 1], gen, torch).tensors()
        d_opt = _Adam(critic, lr, betas, n_members=k, torch=torch)
        gnet = _FlatMLP((), [zd, h, h, L], gen, torch).tensors()

        # -- 2. non-private warm start: every critic against its own throw-away generator
        n_pre = int(self.pretrain_iterations)
        if n_pre > 0:
            pre_g = _FlatMLP((k,), [zd, h, h, L], gen, torch).tensors()
            pg_opt = _Adam(pre_g, lr, betas, n_members=k, torch=torch)
            chunks = [slice(c, min(c + _CHUNK, k)) for c in range(0, k, _CHUNK)]
            for _ in range(n_pre):
                # the random draws of one iteration, for all K pairs, in the order of the
                # unbatched algorithm (so the numbers do not depend on the chunking)
                picked = real_rows(None, ci)  # (K, ci, b, c) positions in the one-hot vector
                z = torch.randn((k, ci * b, zd), generator=gen)
                noise = gumbel((k, ci * b, L), gen, torch)
                alpha = torch.rand((k, ci, b, 1), generator=gen)
                z2 = torch.randn((k, bsz, zd), generator=gen)
                noise2 = gumbel((k, bsz, L), gen, torch)
                # the K (critic, generator) pairs are independent: a chunk of them at a time, so
                # that the intermediate tensors stay in the cache
                for c in chunks:
                    crit, pg = [x[c] for x in critic], [x[c] for x in pre_g]
                    rows = _row_index(picked[c], (c.stop - c.start,), L, torch)
                    fake = _gen_forward(pg, z[c], noise[c], tau, sizes, torch)[0]
                    fake = fake.view(-1, ci, b, L)
                    for s in range(ci):
                        _, grads = _critic_grads(
                            crit, fake[:, s], alpha[c, s], gp_w, dr_w, torch, rows=rows[:, s]
                        )
                        d_opt.step(grads, c)
                    y, cache = _gen_forward(pg, z2[c], noise2[c], tau, sizes, torch)
                    gy = _critic_input_grad(crit, y, torch).mul_(-1.0 / bsz)
                    pg_opt.step(_gen_backward(pg, cache, gy, tau, sizes, torch), c)
            d_opt.reset()
            del pre_g, pg_opt
        t_pre = clock()

        # -- 3. private iterations
        g_opt = _Adam(gnet, lr, betas, torch=torch)
        ema = [x.clone() for x in gnet]
        todo = sorted(set(cp_it))
        snaps_at = {}
        if todo and todo[0] == 0:
            snaps_at[todo.pop(0)] = [x.clone() for x in ema]
        wass = torch.zeros(total_it)
        decay = float(self.ema_decay)
        for t in range(total_it):
            # drawn per iteration so that a run is a prefix of any longer run with the same seed
            j = int(torch.randint(0, k, (1,), generator=gen))
            dj = [x[j] for x in critic]
            real = real_rows(j, ci)  # (ci, b, L)
            fake = relaxed(gnet, torch.randn((ci * b, zd), generator=gen))[0].reshape(ci, b, L)
            alpha = torch.rand((ci, b, 1), generator=gen)
            for s in range(ci):
                w, grads = _critic_grads(
                    dj, fake[s], alpha[s], gp_w, dr_w, torch, xr=real[s], wasserstein=s == ci - 1
                )
                d_opt.step(grads, index=j)
            wass[t] = w
            # generator step through the frozen D_j with sanitised per-sample gradients
            y, cache = relaxed(gnet, torch.randn((bsz, zd), generator=gen))
            gy = _critic_input_grad(dj, y, torch).mul_(-1.0 / bsz)
            gy = sanitize_gradients(gy, clip, sigma, generator=gen)
            g_opt.step(_gen_backward(gnet, cache, gy, tau, sizes, torch))
            torch._foreach_lerp_(ema, gnet, 1.0 - min(1.0 - 1.0 / (t + 1), decay))
            if todo and todo[0] == t + 1:
                snaps_at[todo.pop(0)] = [x.clone() for x in ema]
        snaps = [snaps_at[c] for c in cp_it]
        self._phase_seconds = {"pretraining": t_pre - t_start, "private": clock() - t_pre}
        return ema, snaps, wass.numpy().astype(np.float64)

    def _default_n(self) -> int:
        # replace-one neighbours: n is public, no budget is spent on it
        return self.n_records_

    # -- sampling -------------------------------------------------------------------------------
    def _logits(self, n: int, rng: np.random.Generator, params) -> np.ndarray:
        torch = import_optional("torch", "GSWGAN")

        z = rng.standard_normal((n, int(self.z_dim))).astype(np.float32)
        with one_thread(torch), torch.no_grad():
            out = _gen_logits(params, torch.from_numpy(z), torch).numpy()
        return out.astype(np.float64)

    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        """One category per column by the Gumbel-max trick on the EMA generator's logits."""
        sizes = [int(self.domain_[c]) for c in self.columns_]
        return decode_gumbel_max(self._logits(n, rng, self._ema), self.columns_, sizes, rng)

    def category_probabilities(self, n: int = 10000, random_state=None) -> dict:
        """Monte-Carlo average of the generator's per-column softmax over ``n`` latent draws.

        Returns ``{column: ndarray (levels,)}`` summing to 1 (post-processing; no budget).
        """
        self._check_fitted()
        n = check_positive_int(n, "n")
        logits = self._logits(n, check_random_state(random_state), self._ema)
        out, off = {}, 0
        for c in self.columns_:
            size = int(self.domain_[c])
            block = logits[:, off : off + size]
            p = np.exp(block - block.max(axis=1, keepdims=True))
            out[c] = (p / p.sum(axis=1, keepdims=True)).mean(axis=0)
            off += size
        return out

    # -- checkpoints ----------------------------------------------------------------------------
    def at_epsilon(self, epsilon: float) -> GSWGAN:
        """The fitted synthesizer whose generator is the EMA snapshot of checkpoint ``epsilon``.

        Returns a new fitted :class:`GSWGAN` (parameters ``epsilon`` = the checkpoint,
        ``checkpoints`` = None) with ``iterations_`` / ``epsilon_spent_`` of the snapshot and a
        ledger of one entry recording that ε; its sampler has its own generator seeded at fit
        time, so repeated calls sample identically.

        Raises
        ------
        ValueError
            ``epsilon`` is not one of the fitted ``checkpoints`` (within 1e-9 relative).
        NotFittedError
            Before :meth:`fit`.
        """
        self._check_fitted()
        epsilon = check_epsilon(epsilon)
        match = [i for i, c in enumerate(self._snapshots) if math.isclose(c, epsilon, rel_tol=1e-9)]
        if not match:
            raise ValueError(
                f"epsilon must be one of the fitted checkpoints {list(self._snapshots)}, got {epsilon!r}"
            )
        i = match[0]
        cp = list(self._snapshots)[i]
        its, eps_spent = self.checkpoints_[cp]
        new = copy.copy(self)
        new.epsilon = cp
        new.checkpoints = None
        new._ema = self._snapshots[cp]
        new._snapshots = {}
        new.checkpoints_ = {}
        new._checkpoint_seeds = []
        new.iterations_ = its
        new.epsilon_spent_ = eps_spent
        new.wasserstein_ = self.wasserstein_[:its].copy()
        new._rng = np.random.default_rng(self._checkpoint_seeds[i])
        new.ledger = PrivacyLedger()
        new._record(new.ledger, its, eps_spent)
        return new
