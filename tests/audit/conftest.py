"""Fixtures shared by the test files of this folder and its sub-folders.

The oracles and the shared set-up are described in ``_audit_data.py``.
"""

from __future__ import annotations

import pytest
from _audit_data import APP1, APP3, SMALL

from synthtrust.audit import (
    GeneratorCard,
    candidate_bins,
    complement_basis,
)

SMALL_MARGINALS = [("a", "b"), ("c",), ("b", "d")]


@pytest.fixture(scope="module")
def small_card():
    return GeneratorCard(SMALL, SMALL_MARGINALS, name="small")


@pytest.fixture(scope="module")
def small_basis(small_card):
    # a mix of orders: every 3-way bin of (a, c, d) and 15 random 2- and 3-way bins
    cand = (
        candidate_bins(small_card, [("a", "c", "d")])
        .concat(candidate_bins(small_card, 2, n=10, random_state=1))
        .concat(candidate_bins(small_card, 3, n=5, random_state=2))
    )
    return complement_basis(small_card, cand)


@pytest.fixture(scope="module")
def app1():
    card = GeneratorCard.two_way(APP1, name="App. 1")
    return card, complement_basis(card, "next")


@pytest.fixture(scope="module")
def app3():
    card = GeneratorCard.two_way(APP3, name="App. 3")
    cand = candidate_bins(card, 3, n=1000, random_state=0)
    return card, complement_basis(card, cand)
