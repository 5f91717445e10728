"""Tests of ``synthtrust.audit.bins``.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import numpy as np

from synthtrust.audit import (
    Bins,
    GeneratorCard,
    candidate_bins,
)


def test_bins_frequencies_and_pointwise_match_dense():
    sizes = (3, 2, 4, 2)
    rng = np.random.default_rng(1)
    bins = candidate_bins(GeneratorCard(dict(zip("abcd", sizes, strict=True)), []), 2).concat(
        Bins.constant(sizes)
    )
    codes = np.stack([rng.integers(0, n, 300) for n in sizes], axis=1)
    counts = rng.integers(0, 5, 300)
    dense = bins.dense()  # (B, M)
    flat = np.ravel_multi_index(tuple(codes.T), sizes)
    np.testing.assert_allclose(bins.frequencies(codes), dense[:, flat].mean(axis=1))
    np.testing.assert_allclose(
        bins.frequencies(codes, counts), dense[:, flat] @ counts / counts.sum()
    )
    coef = rng.normal(size=(3, len(bins)))
    np.testing.assert_allclose(bins.pointwise(coef, codes), (coef @ dense)[:, flat].T)
    np.testing.assert_allclose(bins.indicator(codes).toarray(), dense[:, flat].T)
