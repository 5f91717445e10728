"""GS-WGAN's networks without autograd: MLPs stored as flat (optionally stacked) parameter
buffers, the generator's forward pass and Gumbel-softmax samples with a hand-written backward, and
the WGAN-GP critic gradient and input gradient written out in closed form (checked against
autograd in tests/synthesizers/gan/test_networks.py).

Source: Chen, Orekondy & Fritz (NeurIPS 2020) [``chen2020``] and the reference implementation
[``gswgan2022``]; the fully connected tabular networks of Montoya Perez et al. (2024)
[``montoyaperez2024``], §4.2; WGAN-GP (Gulrajani et al. 2017).
"""

from __future__ import annotations

import math

from .._torch_tables import block_softmax

LEAK = 0.2  # LeakyReLU slope of the critics


class FlatMLP:
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


def batched_addmm(bias, x, w, torch):
    """An affine layer ``bias + x @ w``, for one network or a stack of B networks.

    ``x`` (n, in), ``w`` (in, out), ``bias`` (1, out) use ``torch.addmm``; a stacked ``x``
    (B, n, in) with ``w`` (B, in, out) and ``bias`` (B, 1, out) uses ``torch.baddbmm``.
    Returns shape (n, out) or (B, n, out).
    """
    return torch.baddbmm(bias, x, w) if x.ndim == 3 else torch.addmm(bias, x, w)


def generator_logits(p, z, torch):
    """Generator logits (..., n, L) from latent z (..., n, z_dim): Linear-ReLU-Linear-ReLU-Linear."""
    h = torch.relu(batched_addmm(p[1], z, p[0], torch))
    h = torch.relu(batched_addmm(p[3], h, p[2], torch))
    return batched_addmm(p[5], h, p[4], torch)


def transpose_last(x):
    """``x`` with its last two axes swapped (a view): Wᵀ of a weight, stacked or not."""
    return x.transpose(-1, -2)


def _bmm(x, w, torch):
    return torch.bmm(x, w) if x.ndim == 3 else torch.mm(x, w)


def leaky_relu(x, torch):
    """LeakyReLU φ(x) = x if x > 0 else 0.2·x (slope :data:`LEAK`), the critics' activation.

    Calls ATen's ``leaky_relu`` directly; its derivative is :func:`leaky_relu_backward`.
    """
    return torch._C._nn.leaky_relu(x, LEAK)


def leaky_relu_backward(grad, pre, torch):
    """grad · φ'(pre) for φ = LeakyReLU(0.2) (φ' = 1 if pre > 0 else 0.2), one fused pass."""
    return torch.ops.aten.leaky_relu_backward.default(grad, pre, LEAK, False)


def critic_input_grad(p, x, torch):
    """∂D/∂x for each row of x (..., n, L): ((φ'(a2)·w3ᵀ) W2ᵀ · φ'(a1)) W1ᵀ, shape (..., n, L)."""
    a1 = batched_addmm(p[1], x, p[0], torch)
    a2 = batched_addmm(p[3], leaky_relu(a1, torch), p[2], torch)
    g2 = leaky_relu_backward(transpose_last(p[4]).expand(a2.shape), a2, torch)
    return _bmm(
        leaky_relu_backward(_bmm(g2, transpose_last(p[2]), torch), a1, torch),
        transpose_last(p[0]),
        torch,
    )


def row_index(cols, lead, width, torch):
    """Row indices into W1 viewed as (prod(lead)·L, h) for the active columns ``cols``
    (*lead, ..., c) of one-hot records (member k's rows start at k·L)."""
    if not lead:
        return cols
    return cols + (torch.arange(lead[0]) * width).view(-1, *([1] * (cols.ndim - 1)))


def critic_grads(
    p, xf, alpha, gp_weight, drift_weight, torch, *, xr=None, rows=None, wasserstein=False
):
    """WGAN-GP critic gradient, written out by hand (no autograd).

    loss = mean D(x_f) − mean D(x_r) + gp_weight·mean(‖∇D(x̂)‖ − 1)² + drift_weight·mean D(x_r)²
    with x̂ = α x_r + (1 − α) x_f, for a critic (or a stacked ensemble: leading dimension K) with
    contiguous parameters ``p`` = [W1, b1, W2, b2, w3, b3]; ‖·‖ is √(Σ g² + 1e-12).

    The real records are given either densely, ``xr`` (*lead, b, L), or — cheaper for a large
    ensemble — as the rows of W1 (viewed as (K·L, h), see :func:`row_index`) of their c active
    one-hot entries, ``rows`` (*lead, b, c): then x_r W1 is a sum of c gathered rows and the real
    part of ∂loss/∂W1 a scatter-add (no matmul with the zeros). The first layer is affine, so the
    pre-activation of x̂ is α·a1(x_r) + (1 − α)·a1(x_f) (no third matmul).

    Returns (Wasserstein estimate mean D(x_r) − mean D(x_f) per member, or None unless
    ``wasserstein``; list of gradients shaped like ``p``). Checked against autograd in
    tests/synthesizers/gan/test_networks.py.
    """
    w1, b1, w2, b2, w3, b3 = p
    b, h = xf.shape[-2], w1.shape[-1]
    if rows is None:
        x = torch.cat([xr, xf], dim=-2)
        a1x = batched_addmm(b1, x, w1, torch)
        a1r, a1f = a1x[..., :b, :], a1x[..., b:, :]
    else:
        a1r = w1.view(-1, h).index_select(0, rows.reshape(-1)).view(*rows.shape, h).sum(-2)
        a1r += b1
        a1f = batched_addmm(b1, xf, w1, torch)
    a1 = torch.cat([a1r, a1f, torch.lerp(a1f, a1r, alpha)], dim=-2)  # real, fake, x̂
    a1o = a1[..., : 2 * b, :]
    h1 = leaky_relu(a1, torch)
    a2 = batched_addmm(b2, h1, w2, torch)
    a2o, a2i, a1i = a2[..., : 2 * b, :], a2[..., 2 * b :, :], a1[..., 2 * b :, :]
    h2 = leaky_relu(a2o, torch)
    out = batched_addmm(b3, h2, w3, torch)  # (..., 2b, 1): real then fake
    wass = None
    if wasserstein:
        wass = out[..., :b, 0].mean(-1) - out[..., b:, 0].mean(-1)
    # gradient penalty at x̂ (rows 2b:3b); the masks φ' are piecewise constant: no gradient
    w3t = transpose_last(w3)
    g2 = leaky_relu_backward(w3t.expand(a2i.shape), a2i, torch)
    g1 = leaky_relu_backward(_bmm(g2, transpose_last(w2), torch), a1i, torch)
    gx = _bmm(g1, transpose_last(w1), torch)
    nrm = (gx * gx).sum(-1, keepdim=True).add_(1e-12).sqrt_()
    # backward: Wasserstein + drift terms (rows of x_r and x_f): ∂loss/∂D = (2·drift·D − 1)/b
    # for the real rows, 1/b for the fake ones
    d_out = torch.full_like(out, 1.0 / b)
    d_out[..., :b, :].add_(out[..., :b, :], alpha=2 * drift_weight / b).sub_(2.0 / b)
    dw3 = _bmm(transpose_last(h2), d_out, torch)
    db3 = d_out.sum(-2, keepdim=True)
    da2 = leaky_relu_backward(d_out * w3t, a2o, torch)
    dw2 = _bmm(transpose_last(h1[..., : 2 * b, :]), da2, torch)
    db2 = da2.sum(-2, keepdim=True)
    da1 = leaky_relu_backward(_bmm(da2, transpose_last(w2), torch), a1o, torch)
    db1 = da1.sum(-2, keepdim=True)
    # backward: gradient penalty, ∂/∂(∇D(x̂)) = (2·gp/b)(‖g‖ − 1)/‖g‖ · g (gx is overwritten)
    dgx = gx.mul_((nrm - 1).div_(nrm).mul_(2 * gp_weight / b))
    if rows is None:
        dw1 = _bmm(transpose_last(torch.cat([x, dgx], dim=-2)), torch.cat([da1, g1], dim=-2), torch)
    else:
        dw1 = _addmm_(_bmm(transpose_last(xf), da1[..., b:, :], torch), transpose_last(dgx), g1)
        dw1v, da1r = dw1.view(-1, h), da1[..., :b, :].reshape(-1, h)
        for c in range(rows.shape[-1]):
            dw1v.index_add_(0, rows[..., c].reshape(-1), da1r)
    du = leaky_relu_backward(_bmm(dgx, w1, torch), a1i, torch)
    dw2 = _addmm_(dw2, transpose_last(du), g2)
    dw3 += transpose_last(
        leaky_relu_backward(_bmm(du, w2, torch), a2i, torch).sum(-2, keepdim=True)
    )
    return wass, [dw1, db1, dw2, db2, dw3, db3]


def _addmm_(out, x, w):
    """out += x @ w in place (batched or not)."""
    return out.baddbmm_(x, w) if x.ndim == 3 else out.addmm_(x, w)


def _numeric_slots(sizes, numeric) -> list[int]:
    """Positions in the encoded record of the numeric columns (one slot each, ``sizes`` = 1)."""
    offsets = [sum(sizes[:i]) for i in range(len(sizes))]
    return [off for off, num in zip(offsets, numeric or (), strict=False) if num]


def generator_forward(p, z, noise, tau, sizes, torch, numeric=None):
    """Gumbel-softmax samples y = block_softmax((G(z) + noise)/τ) and what the backward needs.

    ``numeric`` (optional, one bool per column of width ``sizes``): a numeric column's slot
    (width 1) is the generator's output itself, without noise or softmax.
    """
    r1 = torch.relu(batched_addmm(p[1], z, p[0], torch))
    r2 = torch.relu(batched_addmm(p[3], r1, p[2], torch))
    logits = batched_addmm(p[5], r2, p[4], torch)
    slots = _numeric_slots(sizes, numeric)
    raw = logits[..., slots].clone() if slots else None
    y = block_softmax(logits.add_(noise).div_(tau), sizes, torch)
    if slots:
        y[..., slots] = raw
    return y, (z, r1, r2, y)


def generator_backward(p, cache, gy, tau, sizes, torch, numeric=None):
    """Gradients of Σ gy·y with respect to the generator's parameters (hand-written backward of
    :func:`generator_forward`: per-block softmax, 1/τ, Linear-ReLU-Linear-ReLU-Linear; a numeric
    slot passes its gradient straight through)."""
    z, r1, r2, y = cache
    dl = gy.clone()
    off = 0
    for size in sizes:  # softmax backward per block: y·(g − Σ_block g·y)
        blk = slice(off, off + size)
        dl[..., blk] -= (gy[..., blk] * y[..., blk]).sum(-1, keepdim=True)
        off += size
    dl.mul_(y).div_(tau)
    slots = _numeric_slots(sizes, numeric)
    if slots:
        dl[..., slots] = gy[..., slots]
    grads = [None] * 6
    for i, (inp, w) in enumerate(((r2, p[4]), (r1, p[2]), (z, p[0]))):
        grads[4 - 2 * i] = _bmm(transpose_last(inp), dl, torch)
        grads[5 - 2 * i] = dl.sum(-2, keepdim=True)
        if i < 2:
            dl = torch.ops.aten.threshold_backward.default(
                _bmm(dl, transpose_last(w), torch), inp, 0
            )
    return grads
