"""Tests of ``synthtrust.audit.candidates``.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from _audit_data import APP1, APP3

from synthtrust.audit import (
    GeneratorCard,
    candidate_bins,
)


def test_candidate_bins_kinds():
    card = GeneratorCard.two_way(APP1)
    nxt = candidate_bins(card, "next")
    assert len(nxt) == 200 and nxt.cliques == ((0, 1, 2),)
    assert len(candidate_bins(card, 1)) == 22
    assert len(candidate_bins(card, [("sex", "econ")])) == 20
    card3 = GeneratorCard.two_way(APP3)
    total = sum(math.prod(c) for c in itertools.combinations(APP3.values(), 3))
    assert total == 17_799  # footnote 5
    s1 = candidate_bins(card3, 3, n=1000, random_state=0)
    s2 = candidate_bins(card3, 3, n=1000, random_state=0)
    s3 = candidate_bins(card3, 3, n=1000, random_state=1)
    assert len(s1) == 1000
    assert np.array_equal(s1.values, s2.values)
    assert not np.array_equal(s1.values, s3.values)
    assert np.unique(s1.values, axis=0).shape[0] == 1000  # without replacement
    assert all(len(c) == 3 for c in s1.cliques)
    full = candidate_bins(card3, 3).values
    assert set(map(tuple, s1.values)) <= set(map(tuple, full))
    with pytest.raises(ValueError, match="exceeds the 17799 candidate bins"):
        candidate_bins(card3, 3, n=17_800, random_state=0)
    with pytest.raises(ValueError, match=r"order\) must be in 1\.\.3"):
        candidate_bins(card, 4)
    with pytest.raises(ValueError, match="kind must be 'next'"):
        candidate_bins(card, "all")
    with pytest.raises(ValueError, match=r"unknown column\(s\) \['age'\]"):
        candidate_bins(card, [("age", "sex")])
    with pytest.raises(ValueError, match="nothing to probe"):
        candidate_bins(GeneratorCard.k_way(APP1, 3), "next")
    with pytest.raises(TypeError, match="GeneratorCard"):
        candidate_bins({"a": 2}, "next")
