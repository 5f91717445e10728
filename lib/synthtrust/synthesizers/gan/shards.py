"""GS-WGAN's disjoint shards of the records (one per discriminator); the gradient sanitiser
(per-sample clipping to C/B plus Gaussian noise) is :func:`synthtrust.privacy.gradients.sanitize_gradients`.

Source: Chen, Orekondy & Fritz (NeurIPS 2020) [``chen2020``]; ``dp_conv_hook`` /
``modify_gradnorm_conv_hook`` of the reference implementation [``gswgan2022``].
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_random_state


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
