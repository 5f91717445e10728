"""Helpers shared by the test files of this folder (plain functions and constants).

Tests of synthtrust.synthesizers.gan (GS-WGAN) and synthtrust.privacy.rdp against oracles:
the reference's published ε (GS-WGAN's accountant on autodp 0.2.3.1), the closed-form RDP of
the plain Gaussian mechanism, brute-force monotonicity, hand computations of the sanitiser, a
chi-square band for its noise, autograd for the hand-written critic gradients, and a fresh fit
for each checkpoint.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _table(n=400, levels=4, seed=0):
    a = np.random.default_rng(seed).integers(0, levels, n)
    return pd.DataFrame({"a": a, "b": a}), {"a": levels, "b": levels}


# small, fast configuration: n = 400, K = 20 shards of 20, a few pretraining iterations. The
# training tests run under the reference's accounting (nominal ε, not a guarantee), which
# affords iterations at ε ≤ 40; the standard analysis (the default) has its own tests
# (test_gan_estimator.py::test_default_accounting_*). The Wasserstein diagnostic is kept.
NOMINAL = dict(composition="per_sample", conversion="classic")
SMALL = dict(subset_size=20, pretrain_iterations=3, hidden=16, max_iter=40, track_wasserstein=True)
SMALL.update(NOMINAL)
