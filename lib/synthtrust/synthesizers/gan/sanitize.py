"""GS-WGAN's privacy building blocks: the disjoint shards of the records (one per
discriminator) and the gradient sanitiser (per-sample clipping to C/B plus Gaussian noise) through
which the generator receives every gradient.

Source: Chen, Orekondy & Fritz (NeurIPS 2020) [``chen2020``]; ``dp_conv_hook`` /
``modify_gradnorm_conv_hook`` of the reference implementation [``gswgan2022``].
"""

from __future__ import annotations

import numpy as np

from ..._optional import import_optional
from ..._validation import check_random_state, check_real

_SENSITIVITY = 2.0  # replace-one sensitivity factor of a clipped per-sample gradient


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
