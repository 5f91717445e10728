"""The conditional GAN of CTGAN (Xu et al. 2019 [``xu2019``]) for tables of discrete columns, as
shared by :class:`~synthtrust.synthesizers.CTGAN` and :class:`~synthtrust.synthesizers.PATECTGAN`:
layer widths, the residual generator, MLP discriminators, conditional vectors, the conditional
loss and sampling. torch is passed in (imported lazily by the callers); every random draw comes
from a ``torch.Generator`` or a numpy ``Generator`` given by the caller (no global RNG).

A record is the one-hot vector of its columns' levels, of length L = Σ levels; a conditional
vector is the one-hot vector (length L) of one level of one column: the column drawn uniformly,
the level from a per-column distribution (CTGAN's log-frequency at training time, the data's
frequency at sampling time; PATE-CTGAN's noisy frequencies at both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._validation import check_positive_int, real_in
from ._torch_tables import column_offsets, decode_gumbel_max, one_thread

__all__ = [
    "NETWORK_CONSTRAINTS",
    "Conditions",
    "Discriminators",
    "ResidualGenerator",
    "adam",
    "conditional_loss",
    "layer_widths",
    "sample_records",
]

LEAK = 0.2  # LeakyReLU slope of the discriminators (CTGAN)
DROPOUT = 0.5  # dropout of the discriminators' hidden layers (CTGAN)


def layer_widths(value, name: str) -> tuple[int, ...]:
    """A non-empty sequence of hidden-layer widths ≥ 1, as a tuple; ValueError naming ``name``."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) == 0:
        raise ValueError(f"{name} must be a non-empty sequence of layer widths >= 1, got {value!r}")
    return tuple(check_positive_int(d, f"{name}[{i}]") for i, d in enumerate(value))


#: The parameters of the networks and their training shared by CTGAN and PATE-CTGAN (the
#: estimators' ``_parameter_constraints``).
NETWORK_CONSTRAINTS = {
    "embedding_dim": check_positive_int,
    "generator_dim": layer_widths,
    "discriminator_dim": layer_widths,
    "generator_lr": real_in(0.0, low_open=True),
    "generator_decay": real_in(0.0),
    "discriminator_lr": real_in(0.0, low_open=True),
    "discriminator_decay": real_in(0.0),
    "tau": real_in(0.0, low_open=True),
}


def adam(params, lr, weight_decay, torch):
    """CTGAN's optimizer: Adam with betas (0.5, 0.9), the given learning rate and weight decay."""
    return torch.optim.Adam(
        params, lr=float(lr), betas=(0.5, 0.9), weight_decay=float(weight_decay)
    )


def _uniform(shape, fan_in, gen, torch):
    """U(−1/√fan_in, 1/√fan_in) weights (torch's default ``Linear`` initialisation), trainable."""
    bound = 1.0 / math.sqrt(fan_in)
    return ((torch.rand(shape, generator=gen) * 2 - 1) * bound).requires_grad_(True)


class Discriminators:
    """A stack of ``lead`` independent MLP discriminators (lead = (k,) or ()): Linear →
    LeakyReLU(0.2) → Dropout(0.5) for every hidden width of ``dims[1:-1]``, then a linear logit."""

    def __init__(self, lead, dims, gen, torch):
        self.params = []
        for fi, fo in zip(dims[:-1], dims[1:], strict=True):
            self.params += [
                _uniform((*lead, fi, fo), fi, gen, torch),
                _uniform((*lead, 1, fo), fi, gen, torch),
            ]

    def __call__(self, x, torch, gen=None):
        """Logits (..., n) of x (..., n, dims[0]); dropout masks from ``gen`` if given, else no
        dropout."""
        h = x
        n_layers = len(self.params) // 2
        for i in range(n_layers):
            w, b = self.params[2 * i], self.params[2 * i + 1]
            h = torch.matmul(h, w) + b
            if i < n_layers - 1:
                h = torch.nn.functional.leaky_relu(h, LEAK)
                if gen is not None:
                    keep = (torch.rand(h.shape, generator=gen) >= DROPOUT).to(h.dtype)
                    h = h * keep / (1.0 - DROPOUT)
        return h.squeeze(-1)


class ResidualGenerator:
    """CTGAN's generator: residual blocks h ← [ReLU(BatchNorm(Linear(h))), h] for each width,
    then Linear to the L logits."""

    def __init__(self, in_dim, dims, out_dim, gen, torch):
        self.lin, self.bn, self.stats = [], [], []
        d = in_dim
        for w in dims:
            self.lin.append((_uniform((d, w), d, gen, torch), _uniform((w,), d, gen, torch)))
            self.bn.append((torch.ones(w, requires_grad=True), torch.zeros(w, requires_grad=True)))
            self.stats.append((torch.zeros(w), torch.ones(w)))
            d += w
        self.out = (_uniform((d, out_dim), d, gen, torch), _uniform((out_dim,), d, gen, torch))

    def parameters(self):
        ps = [p for pair in self.lin + self.bn for p in pair]
        return ps + list(self.out)

    def __call__(self, x, torch, training: bool):
        f = torch.nn.functional
        h = x
        for (w, b), (g, beta), (rm, rv) in zip(self.lin, self.bn, self.stats, strict=True):
            a = f.batch_norm(
                f.linear(h, w.T, b), rm, rv, g, beta, training=training, momentum=0.1, eps=1e-5
            )
            h = torch.cat([torch.relu(a), h], dim=-1)
        return f.linear(h, self.out[0].T, self.out[1])

    def freeze(self) -> None:
        """No more gradients (the released generator)."""
        for p in self.parameters():
            p.requires_grad_(False)


class Conditions:
    """Conditional vectors: a column uniformly, then one of its levels from ``probabilities``
    (one array per column, each summing to 1), as the position of that level in the record's
    one-hot vector."""

    def __init__(self, probabilities: Sequence[np.ndarray], sizes: Sequence[int], torch):
        self.sizes = [int(s) for s in sizes]
        self.cum = [torch.from_numpy(np.cumsum(p)).float() for p in probabilities]
        # a draw past the float32 total (rounding) takes the last level of positive probability
        self.last = [int(np.flatnonzero(np.asarray(p) > 0).max()) for p in probabilities]
        self.offsets = torch.from_numpy(column_offsets(self.sizes))
        self.width = sum(self.sizes)

    def draw(self, b: int, gen, torch):
        """``(col, level, cvec)``: int64 (b,) columns and levels, float32 (b, L) one-hot."""
        m = len(self.sizes)
        col = torch.randint(0, m, (b,), generator=gen)
        u = torch.rand((b,), generator=gen)
        level = torch.zeros(b, dtype=torch.int64)
        for i in range(m):
            sel = col == i
            level[sel] = torch.clamp(
                torch.searchsorted(self.cum[i], u[sel], right=True), max=self.last[i]
            )
        cvec = torch.zeros((b, self.width))
        cvec[torch.arange(b), self.offsets[col] + level] = 1.0
        return col, level, cvec


def conditional_loss(logits, col, level, sizes, torch):
    """CTGAN's conditional loss: the cross-entropy between the conditioned column's logits and
    the conditioned level, summed over the batch and divided by its size (a scalar tensor)."""
    f = torch.nn.functional
    parts = logits.split(list(sizes), dim=-1)
    loss = logits.new_zeros(())
    for i in range(len(sizes)):
        sel = col == i
        if bool(sel.any()):
            loss = loss + f.cross_entropy(parts[i][sel], level[sel], reduction="sum")
    return loss / logits.shape[0]


#: Records that :func:`sample_records` generates at a time. Its memory is a few (rows, L)
#: blocks (the conditional vectors, the logits, their Gumbel noise) of this many rows, not of
#: all n (benchmarks/README.md, "CTGAN's sampling in blocks"). The records and the draws are the
#: same whatever the block: the conditions and z are drawn for all n first, the noise block
#: after block in row order, as one (n, L) draw would take it.
SAMPLE_BLOCK_ROWS = 4096


def _sampled_conditions(probabilities: dict, names: list, sizes: list[int], n: int, rng):
    """Positions (int64 (n,)) of the 1 in each record's (L,) one-hot conditional vector: a
    column uniformly, a level from ``probabilities`` ({column: array})."""
    m = len(names)
    offsets = column_offsets(sizes)
    col = rng.integers(0, m, n)
    level = np.zeros(n, dtype=np.int64)
    for i, c in enumerate(names):
        sel = col == i
        level[sel] = rng.choice(sizes[i], size=int(sel.sum()), p=probabilities[c])
    return offsets[col] + level


def sample_records(
    gnet: ResidualGenerator,
    probabilities: dict | None,
    names: list,
    sizes: list[int],
    embedding_dim: int,
    n: int,
    rng: np.random.Generator,
    torch,
    block_rows: int | None = None,
) -> pd.DataFrame:
    """n records of a trained generator (post-processing): conditional vectors from
    ``probabilities`` ({column: array}; None: an unconditional generator, PATE-GAN's), z ~ N(0,
    I), BatchNorm with its running statistics, and one level per column by Gumbel-max on the
    logits (an exact draw from the softmax of each column's block; CTGAN takes the argmax of its
    Gumbel-softmax, the same draw). Generated ``block_rows`` records at a time (None:
    :data:`SAMPLE_BLOCK_ROWS`). Returns a DataFrame of int64 codes with columns ``names``."""
    width = sum(sizes)
    block_rows = int(SAMPLE_BLOCK_ROWS if block_rows is None else block_rows)
    hot = (
        None if probabilities is None else _sampled_conditions(probabilities, names, sizes, n, rng)
    )
    z = rng.standard_normal((n, int(embedding_dim))).astype(np.float32)
    blocks = []
    with one_thread(torch), torch.no_grad():
        for start in range(0, n, block_rows) or [0]:
            rows = slice(start, min(n, start + block_rows))
            parts = [z[rows]]
            if hot is not None:
                cvec = np.zeros((len(parts[0]), width), dtype=np.float32)
                cvec[np.arange(len(cvec)), hot[rows]] = 1.0
                parts.append(cvec)
            inp = torch.from_numpy(np.concatenate(parts, axis=1))
            logits = gnet(inp, torch, False).numpy().astype(np.float64)
            blocks.append(decode_gumbel_max(logits, names, sizes, rng))
    return blocks[0] if len(blocks) == 1 else pd.concat(blocks, ignore_index=True)
