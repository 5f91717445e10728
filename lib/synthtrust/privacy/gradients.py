"""Per-sample gradient clipping plus Gaussian noise: the sanitiser through which GS-WGAN's
generator receives every gradient (the DP mechanism of the training; the subsampling and its
Rényi-DP accounting are in :mod:`synthtrust.privacy.rdp`).

Source: Chen, Orekondy & Fritz (NeurIPS 2020) [``chen2020``]; ``dp_conv_hook`` /
``modify_gradnorm_conv_hook`` of the reference implementation [``gswgan2022``].
"""

from __future__ import annotations

import math

from .._optional import import_optional
from .._validation import check_real
from .replay import record_call

__all__ = ["SENSITIVITY", "sanitize_gradients"]

#: Replace-one sensitivity factor of a clipped per-sample gradient (a vector of norm ≤ C/B).
SENSITIVITY = 2.0


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
        loop; :class:`~synthtrust.synthesizers.GSWGAN` seeds it from its ``random_state``).

    Returns
    -------
    torch.Tensor, shape (B, L) (a new tensor).

    One call is one release: one ``torch.normal`` draw of std 2σC/B. No ledger entry is written
    here: the caller's Rényi-DP accountant composes the releases (:mod:`synthtrust.privacy.rdp`)
    and records one entry with ``draws`` = the number of calls. Inside
    :func:`~synthtrust.privacy.replay.record_mechanisms` the release is recorded with the
    clipped rows as its value and the L2 sensitivity 2C/√B of the whole batch (all B rows come
    from the same critic, so all may change: the per-iteration analysis of
    :mod:`synthtrust.privacy.rdp`).

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
    std = bound * noise_multiplier * SENSITIVITY
    noise = torch.normal(
        0.0, std, size=grad.shape, generator=generator, dtype=grad.dtype, device=grad.device
    )
    return record_call(
        "sanitize_gradients",
        "l2",
        out,
        out + noise,
        sensitivity=SENSITIVITY * clip_bound / math.sqrt(grad.shape[0]),
        scale=std,
    )
