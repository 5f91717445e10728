"""Chapter 5, utility part — the Jaro similarity of two feature orders, and its random baseline.

Houssiau et al. (2022) [``houssiau2022``], §4.3 and Table 3, compare the order of the six
features of Application 3 by permutation importance with the real model's order by the Jaro
similarity (Jaro 1989) of the two orders written as strings (:func:`feature_order`,
:func:`jaro_similarity`); two random orders of six features score 9019/12960 ≈ 0.6959 on
average (:func:`expected_jaro_random_permutation`), the paper's "0.70".

The Jaro similarity is written here (:func:`jaro_similarity`, twenty lines on strings of six
characters) rather than taken from ``rapidfuzz``: rapidfuzz follows Winkler's ``strcmp95`` and
rounds the number of transpositions down, which gives other values for a fifth of the orders of
six features and a random baseline of 9113/12960 instead of the paper's 9019/12960.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import lru_cache

import numpy as np

from synthtrust._validation import check_int_range

__all__ = [
    "expected_jaro_random_permutation",
    "feature_order",
    "jaro_random_permutation_sd",
    "jaro_similarity",
]


def _jaro_counts(a: str, b: str) -> tuple[int, int]:
    """(m, k): the number of matching characters and the number of matched characters out of
    order (k = 2t, t the transpositions) of the Jaro similarity of ``a`` and ``b``."""
    la, lb = len(a), len(b)
    window = max(max(la, lb) // 2 - 1, 0)
    used_b = [False] * lb
    matched_a = []
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(i + window + 1, lb)):
            if not used_b[j] and b[j] == ch:
                used_b[j] = True
                matched_a.append(ch)
                break
    matched_b = [ch for ch, used in zip(b, used_b, strict=True) if used]
    return len(matched_a), sum(x != y for x, y in zip(matched_a, matched_b, strict=True))


def _jaro_fraction(a: str, b: str) -> Fraction:
    if not a and not b:
        return Fraction(1)
    m, k = _jaro_counts(a, b)
    if m == 0:
        return Fraction(0)
    return (Fraction(m, len(a)) + Fraction(m, len(b)) + Fraction(2 * m - k, 2 * m)) / 3


def jaro_similarity(a: str, b: str) -> float:
    """Jaro similarity of two strings (Jaro 1989), in [0, 1]; 1 for two empty strings.

    Characters match if they are equal and at most ⌊max(|a|, |b|)/2⌋ − 1 positions apart (each
    character used once, greedily from the left); with m matches and t = k/2, k the number of
    matched characters out of order, the similarity is (m/|a| + m/|b| + (m − t)/m) / 3, and 0
    if m = 0. Examples: MARTHA / MARHTA = 0.9444 (k = 2), DIXON / DICKSONX = 0.7667.

    This is the definition of the reference's Jaro function (Rosetta Code's), which produced the
    paper's Table 3, with one fix: the window is never negative (Rosetta's gives 0 for two equal
    one-character strings). t may be a half-integer: ``rapidfuzz`` and Winkler's ``strcmp95``
    round t = k/2 down, which changes 144 of the 720 orders of six features (abcdef / abcefd:
    0.9167 here, 0.9444 there) and moves the random baseline from 9019/12960 to 9113/12960, so
    they cannot reproduce the paper's numbers.

    Raises
    ------
    TypeError
        ``a`` or ``b`` not a str.
    """
    if not isinstance(a, str) or not isinstance(b, str):
        raise TypeError(
            f"jaro_similarity compares two str, got {type(a).__name__} and {type(b).__name__}"
        )
    return float(_jaro_fraction(a, b))


@lru_cache(maxsize=8)
def _random_jaro_values(n: int) -> tuple:
    """Exact Jaro similarity of every permutation of n distinct characters with the identity."""
    alphabet = "".join(chr(ord("a") + i) for i in range(n))
    return tuple(_jaro_fraction(alphabet, "".join(p)) for p in itertools.permutations(alphabet))


def expected_jaro_random_permutation(n: int = 6) -> Fraction:
    """Expected Jaro similarity of two independent uniformly random orders of n distinct items,
    exactly (a :class:`fractions.Fraction`), by enumerating the n! permutations (the Jaro
    similarity is invariant under renaming the characters, so the mean over pairs equals the
    mean against a fixed order).

    n = 6 (the six features of Application 3): 9019/12960 ≈ 0.6959, the paper's "0.70"
    baseline (the reference estimated 0.6959 from 100 000 random draws).

    Raises
    ------
    ValueError
        ``n`` not an integer in 1..8.
    """
    vals = _random_jaro_values(check_int_range(n, "n", 1, 8))
    return sum(vals, Fraction(0)) / len(vals)


def jaro_random_permutation_sd(n: int = 6) -> float:
    """Standard deviation of the Jaro similarity of two random orders of n items (enumeration;
    n = 6: about 0.12).

    Raises
    ------
    ValueError
        ``n`` not an integer in 1..8.
    """
    vals = _random_jaro_values(check_int_range(n, "n", 1, 8))
    mean = sum(vals, Fraction(0)) / len(vals)
    return math.sqrt(float(sum(((v - mean) ** 2 for v in vals), Fraction(0)) / len(vals)))


def feature_order(importances) -> str:
    """The reference's feature order: ``np.argsort`` of the importances (ascending: the least
    important feature first; ties in input order), written as a string of digits.

    Raises
    ------
    ValueError
        Not a 1-d array of 1..10 finite values.
    """
    imp = np.asarray(importances, dtype=float)
    if imp.ndim != 1 or not 1 <= imp.size <= 10 or not np.isfinite(imp).all():
        raise ValueError(f"importances must be 1..10 finite values, got {importances!r}")
    return "".join(str(int(i)) for i in np.argsort(imp, kind="stable"))
