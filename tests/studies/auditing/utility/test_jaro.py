"""Tests of ``synthtrust.studies.auditing.utility.jaro``.

The oracles and the shared set-up are described in ``_auditing_utility_data.py``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from synthtrust.studies.auditing.utility import experiment as U


# --------------------------------------------------------------------------------------------
# Jaro similarity
# --------------------------------------------------------------------------------------------
def _oracle_jaro(s: str, t: str) -> float:
    """Brute force, written independently: every pair (i, j) is scanned; characters match when
    equal, unused and within the window, the first free one from the left wins; t counts the
    matched characters of s and t, read in order, that differ, halved (no rounding)."""
    if not s and not t:
        return 1.0
    window = max(0, max(len(s), len(t)) // 2 - 1)
    taken = set()
    pairs = []
    for i in range(len(s)):
        for j in range(len(t)):
            if abs(i - j) <= window and j not in taken and s[i] == t[j]:
                taken.add(j)
                pairs.append((i, j))
                break
    m = len(pairs)
    if m == 0:
        return 0.0
    s_seq = [s[i] for i, _ in pairs]
    t_seq = [t[j] for j in sorted(taken)]
    half = sum(a != b for a, b in zip(s_seq, t_seq, strict=True)) / 2
    return (m / len(s) + m / len(t) + (m - half) / m) / 3


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("MARTHA", "MARHTA", 17 / 18),  # m = 6, 2 out of order: (1 + 1 + 5/6) / 3
        ("DIXON", "DICKSONX", 23 / 30),  # m = 4, no transposition: (4/5 + 4/8 + 1) / 3
        ("CRATE", "TRACE", 11 / 15),  # window 1: R, A, E match: (3/5 + 3/5 + 1) / 3
        ("abcdef", "abcefd", 11 / 12),  # 3 out of order, t = 1.5 (strcmp95 rounds to 1)
        ("abc", "abc", 1.0),
        ("abc", "xyz", 0.0),
        ("", "", 1.0),
        ("a", "a", 1.0),  # window clamped at 0
        ("ab", "ba", 0.0),  # window 0: no match across positions
    ],
)
def test_jaro_hand_values(a, b, expected):
    assert U.jaro_similarity(a, b) == pytest.approx(expected, abs=1e-12)


def test_jaro_matches_brute_force_oracle():
    for p in itertools.permutations("012345"):
        q = "".join(p)
        assert U.jaro_similarity("305142", q) == pytest.approx(_oracle_jaro("305142", q), abs=1e-12)
    rng = np.random.default_rng(7)
    for _ in range(400):
        a = "".join(rng.choice(list("abc"), size=rng.integers(0, 9)))
        b = "".join(rng.choice(list("abc"), size=rng.integers(0, 9)))
        assert U.jaro_similarity(a, b) == pytest.approx(_oracle_jaro(a, b), abs=1e-12), (a, b)
        assert U.jaro_similarity(a, b) == pytest.approx(U.jaro_similarity(b, a), abs=1e-12)


def test_jaro_rejects_non_strings():
    with pytest.raises(TypeError, match="two str"):
        U.jaro_similarity([1, 2], "12")


def test_expected_jaro_random_permutation_exact():
    e6 = U.expected_jaro_random_permutation(6)
    assert isinstance(e6, Fraction) and e6 == Fraction(9019, 12960)
    assert float(e6) == pytest.approx(0.6959, abs=5e-5)
    # n = 2: "ab" vs itself 1, vs "ba" 0 (window 0) -> 1/2; n = 1: 1
    assert U.expected_jaro_random_permutation(2) == Fraction(1, 2)
    assert U.expected_jaro_random_permutation(1) == 1
    # the oracle agrees on the mean over the 720 orders
    mean = np.mean([_oracle_jaro("abcdef", "".join(p)) for p in itertools.permutations("abcdef")])
    assert mean == pytest.approx(9019 / 12960, abs=1e-12)
    assert 0.10 < U.jaro_random_permutation_sd(6) < 0.14
    with pytest.raises(ValueError, match="1..8"):
        U.expected_jaro_random_permutation(9)


def test_feature_order_is_ascending_argsort():
    # the reference's real importances (Use Case 3 notebook) give the order "435201"
    imp = [0.0377534, 0.14630452, 0.02841597, -0.00124616, -0.00530584, 0.00362089]
    assert U.feature_order(imp) == "435201"
    assert U.feature_order([0.0, 0.0, -1.0]) == "201"  # ties keep input order
    with pytest.raises(ValueError):
        U.feature_order([np.nan, 1.0])
