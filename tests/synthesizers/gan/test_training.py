"""Tests of ``synthtrust.synthesizers.gan.training``.

The oracles and the shared set-up are described in ``_gan_data.py``.
"""

from __future__ import annotations

import numpy as np
import torch
from _gan_data import SMALL, _table

from synthtrust.synthesizers import gan as gan_module
from synthtrust.synthesizers.gan import (
    GSWGAN,
)


def test_chunks_of_the_pretraining_do_not_change_results(monkeypatch):
    # the K (critic, generator) pairs are pretrained a chunk at a time; the random draws are
    # made for all K first, so any chunk size gives the same numbers, bit for bit
    df, dom = _table()
    fits = []
    for chunk in (25, 3, 1000):
        monkeypatch.setattr(gan_module.training, "_CHUNK", chunk)
        fits.append(GSWGAN(epsilon=30.0, domain=dom, random_state=5, **SMALL).fit(df))
    for other in fits[1:]:
        assert all(torch.equal(a, b) for a, b in zip(fits[0]._ema, other._ema, strict=True))
        np.testing.assert_array_equal(fits[0].wasserstein_, other.wasserstein_)
