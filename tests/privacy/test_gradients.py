"""Tests of ``synthtrust.privacy.gradients``.

The oracles and the shared set-up are described in ``tests/synthesizers/gan/_gan_data.py``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy import stats

from synthtrust.synthesizers.gan import (
    sanitize_gradients,
)


# ----------------------------------------------------------------------------------------------
# building blocks
# ----------------------------------------------------------------------------------------------
def test_sanitizer_clips_each_row_to_c_over_b():
    grad = torch.tensor([[3.0, 4.0], [0.03, 0.04], [0.0, 0.0], [-6.0, 8.0]], dtype=torch.float64)
    c, b = 2.0, 4  # bound C/B = 0.5
    # same seed ⇒ same noise draw, so the difference is the clipped gradient alone
    out = sanitize_gradients(grad, c, 1.07, torch.Generator().manual_seed(7))
    noise = sanitize_gradients(torch.zeros_like(grad), c, 1.07, torch.Generator().manual_seed(7))
    by_hand = torch.tensor([[0.3, 0.4], [0.03, 0.04], [0.0, 0.0], [-0.3, 0.4]], dtype=torch.float64)
    torch.testing.assert_close(out - noise, by_hand, rtol=0, atol=1e-9)
    assert c / b == 0.5 and grad.shape[0] == b
    # non-private mode (σ = 0): every non-zero row rescaled to norm exactly C/B, no noise
    out0 = sanitize_gradients(grad, c, 0.0)
    np.testing.assert_allclose(out0.norm(dim=1).numpy()[[0, 1, 3]], 0.5, rtol=1e-7)  # 1e-10 guard
    torch.testing.assert_close(out0[1], torch.tensor([0.3, 0.4], dtype=torch.float64))


def test_sanitizer_noise_std_is_2_sigma_c_over_b():
    b, width, c, sigma = 32, 2000, 1.0, 1.07
    out = sanitize_gradients(
        torch.zeros((b, width), dtype=torch.float64), c, sigma, torch.Generator().manual_seed(3)
    )
    std = 2 * sigma * c / b
    m = out.numel()
    stat = float((out**2).sum()) / std**2  # ~ χ²(m) if the std is right
    lo, hi = stats.chi2.ppf([1e-6, 1 - 1e-6], m)
    assert lo < stat < hi
    # a 5 % error in the std would leave the band (shows the test can fail)
    assert not lo < stat / 1.05**2 < hi and not lo < stat / 0.95**2 < hi
    assert abs(float(out.mean())) < 5 * std / math.sqrt(m)
