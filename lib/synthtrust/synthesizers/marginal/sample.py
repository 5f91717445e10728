"""Record generation from model marginals: randomised rounding of a marginal and the stratified
conditional draw of a column given its parents (mbi's ``synthetic_data(method="round")``
algorithm, vectorized), and the sampling mixin of the marginal-based synthesizers.

Source: mbi 2.0's ``MarkovRandomField.synthetic_data`` [``mbi2026``].
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def round_sample(counts: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Randomised rounding of ``counts`` scaled to ``n``, as a shuffled vector of codes."""
    k = counts.size
    s = counts.sum()
    p = counts / s if s > 0 else np.full(k, 1.0 / k)
    expected = p * n
    integ = np.floor(expected).astype(np.int64)
    frac = expected - integ
    extra = int(n - integ.sum())
    if extra > 0:
        nz = np.flatnonzero(frac > 0)
        if nz.size >= extra:
            pick = rng.choice(nz, size=extra, replace=False, p=frac[nz] / frac[nz].sum())
        else:
            pick = rng.choice(k, size=extra, replace=True, p=p)
        np.add.at(integ, pick, 1)
    vals = np.repeat(np.arange(k, dtype=np.int64), integ)
    rng.shuffle(vals)
    return vals


def conditional_sample(
    marg2d: np.ndarray, parent_codes: np.ndarray, parent_sizes, rng
) -> np.ndarray:
    """Stratified draw of one column given parent codes; ``marg2d`` (parent configs, levels)."""
    n, k = parent_codes.shape[0], marg2d.shape[1]
    pidx = np.ravel_multi_index(tuple(parent_codes.T), tuple(parent_sizes))
    row_sum = marg2d.sum(axis=1, keepdims=True)
    fallback = marg2d.sum(axis=0)
    fallback = fallback / fallback.sum() if fallback.sum() > 0 else np.full(k, 1.0 / k)
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(row_sum > 0, marg2d / row_sum, fallback[None, :])
    cdf = np.cumsum(cond, axis=1)
    cdf[:, -1] = np.inf  # numerical safety: u < 1 always lands in the last level at worst
    # random order, then stable sort by parent configuration: groups in random internal order
    perm = rng.permutation(n)
    perm = perm[np.argsort(pidx[perm], kind="stable")]
    groups, starts, counts = np.unique(pidx[perm], return_index=True, return_counts=True)
    gpos = np.repeat(np.arange(groups.size), counts)
    rank = np.arange(n) - starts[gpos]
    u = (rank + rng.random(n)) / counts[gpos]
    vals = np.empty(n, dtype=np.int64)
    chunk = max(1, (1 << 22) // k)
    for lo in range(0, groups.size, chunk):
        hi = min(groups.size, lo + chunk)
        sel = slice(starts[lo], starts[hi] if hi < groups.size else n)
        sub = cdf[groups[lo:hi]]
        sub = np.minimum(sub, 1.0) + np.arange(hi - lo)[:, None] * 2.0
        q = u[sel] + (gpos[sel] - lo) * 2.0
        v = np.searchsorted(sub.ravel(), q, side="right") - (gpos[sel] - lo) * k
        vals[sel] = np.minimum(v, k - 1)
    out = np.empty(n, dtype=np.int64)
    out[perm] = vals
    return out


class PGMSamplingMixin:
    """Sampling of the marginal-based synthesizers: records from the fitted model's junction tree
    (``self._jtree``), default number = the model's estimated total (rounded, ≥ 1).
    ``_decode_codes`` post-processes the code matrix (MST decompresses)."""

    def _default_n(self) -> int:
        return max(1, int(round(self.model_.total)))

    def _decode_codes(self, X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return X

    def _sample_codes(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        X = self._decode_codes(self._jtree.sample(n, rng), rng)
        return pd.DataFrame({c: X[:, i] for i, c in enumerate(self.columns_)})
