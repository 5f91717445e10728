"""Pieces shared by the torch synthesizers of one-hot encoded discrete tables (GS-WGAN in
:mod:`.gan`, PATE-CTGAN in :mod:`.pate`): torch thread control, data shards, Gumbel noise,
per-column softmax and Gumbel-max decoding. torch is passed in (imported lazily by the callers).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd

__all__ = [
    "block_softmax",
    "code_shards",
    "column_offsets",
    "decode_gumbel_max",
    "gumbel",
    "numeric_code",
    "numeric_value",
    "onehot_shards",
    "one_thread",
]


@contextlib.contextmanager
def one_thread(torch):
    """Run torch on one thread (results independent of the machine; parallel workers do not
    oversubscribe the cores), restoring the previous thread count afterwards."""
    prev = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(prev)


def column_offsets(sizes) -> np.ndarray:
    """Where each column's block starts in a record's one-hot vector: int64 (len(sizes),), the
    cumulative sums of the level counts ``sizes`` shifted by one (0 first)."""
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)


def numeric_value(code, levels: int):
    """A numeric column's code 0 .. levels − 1 as a number in [−1, 1]: 2·code/(levels − 1) − 1
    (public: it depends on the domain only; levels ≥ 2)."""
    return 2.0 * code / (levels - 1) - 1.0


def numeric_code(value: np.ndarray, levels: int) -> np.ndarray:
    """The inverse of :func:`numeric_value`, rounded to the nearest code and clipped to the
    domain: int64 codes in 0 .. levels − 1."""
    code = np.rint((np.asarray(value, dtype=float) + 1.0) * (levels - 1) / 2.0)
    return np.clip(code, 0, levels - 1).astype(np.int64)


def onehot_shards(
    codes: dict, names: list, sizes: list[int], shards: list, numeric=None
) -> tuple[np.ndarray, np.ndarray]:
    """One-hot records of every shard, zero-padded to the largest shard.

    Parameters
    ----------
    codes : dict {column: int64 array (n,)}; names : columns in order; sizes : levels per column;
    shards : list of K int arrays of record indices; numeric : None or one bool per column — a
    numeric column is one slot holding :func:`numeric_value` of its code instead of a one-hot
    block.

    Returns
    -------
    (data, shard_sizes): float32 array (K, m_max, width) and int array (K,), width = Σ sizes
    (a numeric column counting 1).
    """
    numeric = list(numeric) if numeric is not None else [False] * len(sizes)
    widths = [1 if num else size for size, num in zip(sizes, numeric, strict=True)]
    offsets = column_offsets(widths)
    shard_sizes = np.array([len(s) for s in shards])
    data = np.zeros((len(shards), int(shard_sizes.max()), int(sum(widths))), dtype=np.float32)
    for j, idx in enumerate(shards):
        rows = np.arange(len(idx))
        for off, c, size, num in zip(offsets, names, sizes, numeric, strict=True):
            if num:
                data[j, rows, off] = numeric_value(codes[c][idx], size)
            else:
                data[j, rows, off + codes[c][idx]] = 1.0
    return data, shard_sizes


def code_shards(
    codes: dict, names: list, sizes: list[int], shards: list
) -> tuple[np.ndarray, np.ndarray]:
    """The records of every shard as the positions of their one-hot entries, padded with zeros.

    Parameters as :func:`onehot_shards`. Returns ``(cols, shard_sizes)``: an int64 array
    (K, m_max, len(names)) whose entry [j, r, c] is the position of record r's level of column c in
    the one-hot vector of length Σ sizes (column offset + code), and the int array (K,) of shard
    sizes. ``onehot_shards`` is the dense form of the same records.
    """
    offsets = column_offsets(sizes)
    shard_sizes = np.array([len(s) for s in shards])
    out = np.zeros((len(shards), int(shard_sizes.max()), len(names)), dtype=np.int64)
    for j, idx in enumerate(shards):
        for i, (off, c) in enumerate(zip(offsets, names, strict=True)):
            out[j, : len(idx), i] = off + np.asarray(codes[c])[idx]
    return out, shard_sizes


def gumbel(shape, generator, torch):
    """Standard Gumbel noise −log(−log U), U ~ Uniform clamped to [1e-20, 1 − 1e-7]."""
    u = torch.rand(shape, generator=generator)
    return u.clamp_(min=1e-20, max=1.0 - 1e-7).log_().neg_().log_().neg_()


def block_softmax(v, sizes, torch):
    """Softmax over each column's block of the last axis of ``v`` (..., Σ sizes)."""
    if len(sizes) == 1:
        return torch.softmax(v, dim=-1)
    parts = v.split(sizes, dim=-1)  # contiguous copies: softmax on strided views is slower
    return torch.cat([torch.softmax(part.contiguous(), dim=-1) for part in parts], dim=-1)


def decode_gumbel_max(
    logits: np.ndarray, names: list, sizes: list[int], rng: np.random.Generator
) -> pd.DataFrame:
    """One category per column: argmax of each column's block of ``logits`` (n, Σ sizes) plus
    standard Gumbel noise from ``rng`` — an exact draw from the block's softmax (Gumbel-max)."""
    logits = logits + rng.gumbel(size=logits.shape)
    out, off = {}, 0
    for c, size in zip(names, sizes, strict=True):
        out[c] = np.argmax(logits[:, off : off + size], axis=1).astype(np.int64)
        off += size
    return pd.DataFrame(out, columns=list(names))
