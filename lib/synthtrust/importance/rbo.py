"""Rank-biased overlap (RBO) of two rankings: Webber, Moffat & Zobel (2010) [``webber2010``]:
the lower bound, the extrapolated point estimate, the upper bound and the residual for rankings of
any (uneven) lengths, the average overlap and the top-weightness of a persistence p (their Eq. 21).

Notation (Webber et al. 2010, §4): S, T rankings without duplicates, S_{:d} the first d items,
X_d = ``|S_{:d} ∩ T_{:d}|`` the overlap at depth d, A_d = X_d / d the agreement, 0 < p < 1 the
persistence: RBO = (1 − p) Σ_{d≥1} p^{d−1} A_d (Eq. 7).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from synthtrust._result import ResultMixin
from synthtrust._validation import (
    check_unique_items,
    real_in,
)

#: Checkers of the persistence p of RBO, 0 < p < 1 (``PERSISTENCE_OR_ONE``: p = 1 allowed
#: where the sum is finite).
PERSISTENCE = real_in(0.0, 1.0, low_open=True, high_open=True)
PERSISTENCE_OR_ONE = real_in(0.0, 1.0, low_open=True)


def _overlaps(s: list, t: list, depth: int) -> np.ndarray:
    """X_d for d = 1..depth; past the end of a list its items stay (all of them are seen)."""
    out = np.empty(depth, dtype=float)
    seen_s, seen_t = set(), set()
    x = 0
    for d in range(depth):
        a = s[d] if d < len(s) else None
        b = t[d] if d < len(t) else None
        if a is not None and b is not None and a == b:
            x += 1
        else:
            if a is not None:
                x += a in seen_t
                seen_s.add(a)
            if b is not None:
                x += b in seen_s
                seen_t.add(b)
        out[d] = x
    return out


# --------------------------------------------------------------------------------------------
# rank-biased overlap
# --------------------------------------------------------------------------------------------
def top_weightness(p: float, depth: int) -> float:
    """Weight of the first ``depth`` ranks in RBO with persistence ``p`` (Webber et al. 2010,
    Eq. 21): 1 − p^{d−1} + ((1 − p)/p)·d·(ln(1/(1 − p)) − Σ_{i=1}^{d−1} p^i / i).

    E.g. p = 0.9 puts 85.6 % of the weight on the top 10 ranks.

    Raises
    ------
    ValueError
        ``p`` outside (0, 1) or ``depth`` < 1.
    """
    p = PERSISTENCE(p, "p")
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
        raise ValueError(f"depth must be an integer >= 1, got {depth!r}")
    i = np.arange(1, int(depth))
    tail = math.log(1.0 / (1.0 - p)) - float(np.sum(p**i / i))
    return 1.0 - p ** (depth - 1) + (1.0 - p) / p * depth * tail


@dataclass(frozen=True)
class RBOResult(ResultMixin):
    """Rank-biased overlap of two finite rankings (Webber et al. 2010, §4).

    Attributes
    ----------
    min : float
        Lower bound: no agreement beyond what the prefixes show (Eq. 11, uneven form).
    ext : float
        Extrapolated point estimate: the agreement at the deepest seen depth continues (Eq. 32).
    max : float
        Upper bound: every unseen item matches as early as it can (computed directly, see
        :func:`rank_biased_overlap`).
    residual : float
        ``max − min``, the uncertainty left by the truncation.
    truncated : float
        The prefix sum (1 − p) Σ_{d=1}^{s} p^{d−1} A_d up to the shorter length s (what
        ``changyaochen/rbo``'s ``rbo(p=p)`` returns; below ``min``).
    p : float
    depth : int
        Length of the longer ranking.
    """

    min: float
    ext: float
    max: float
    residual: float
    truncated: float
    p: float
    depth: int


def _rbo_max(short: list, long: list, p: float) -> float:
    """RBO of the best continuation (Corsi & Urbano 2024, §3): the shorter list goes on with the
    longer one's items it lacks (in the longer one's order), the longer with the shorter one's
    items it lacks; from depth f = s + l − X_l both prefixes hold the same items and A_d = 1."""
    in_short, in_long = set(short), set(long)
    s_next = short + [item for item in long if item not in in_short]
    l_next = long + [item for item in short if item not in in_long]
    f = len(s_next)  # = len(l_next) = s + l − X_l
    x = _overlaps(s_next, l_next, f)
    d = np.arange(1, f + 1, dtype=float)
    return (1.0 - p) / p * float(np.sum(x / d * p**d)) + p**f


def rank_biased_overlap(s, t, p: float = 0.9) -> RBOResult:
    """Rank-biased overlap of two rankings of possibly different lengths.

    Parameters
    ----------
    s, t : sequence
        Rankings (best first), items hashable, no duplicates; lengths may differ. Both empty →
        every figure 1; one empty → ``min``/``ext`` 0.
    p : float in (0, 1)
        Persistence: the top ``d`` ranks carry :func:`top_weightness` ``(p, d)`` of the weight.

    Returns
    -------
    RBOResult

    Raises
    ------
    TypeError, ValueError
        A ranking that is not a sequence or has a duplicate; ``p`` outside (0, 1).

    Notes
    -----
    With S the shorter list (length s), L the longer (length l), X_d the overlap at depth d
    (past depth s all of S is seen), f = l + s − X_l:

    * RBO_min = ((1 − p)/p)·(Σ_{d=1}^{l} (X_d − X_l)·p^d/d − X_l·ln(1 − p));
    * RBO_ext = ((1 − p)/p)·(Σ_{d=1}^{l} (X_d/d)·p^d + Σ_{d=s+1}^{l} X_s(d − s)/(s·d)·p^d)
      + ((X_l − X_s)/l + X_s/s)·p^l;
    * RBO_max = RBO of the best continuation: the shorter list continues with the longer one's
      missing items, the longer with the shorter one's, so X_d grows by up to 2 a depth until
      d = f, and A_d = 1 after f (Corsi & Urbano 2024). Webber et al.'s closed-form residual
      (Eq. 13/30) overstates this whenever the prefixes overlap (identical one-item lists give
      RBO_max = 1.16 > 1 with p = 0.9), so it is not used.

    For S = abcdefg, T = zcavwxy, p = 0.9 (the paper's Fig. 5 example): min 0.222, ext 0.288,
    truncated 0.152 (what ``RankingSimilarity(S, T).rbo(p=0.9)`` of the ``rbo`` package 0.1.3,
    ``changyaochen/rbo``, returns) and max 0.581 (the Eq. 13 residual would give 0.790).
    """
    s = check_unique_items(s, "s")
    t = check_unique_items(t, "t")
    p = PERSISTENCE(p, "p")
    if len(s) > len(t):
        s, t = t, s
    n_s, n_l = len(s), len(t)
    if n_l == 0:
        return RBOResult(1.0, 1.0, 1.0, 0.0, 1.0, p, 0)
    if n_s == 0:
        return RBOResult(0.0, 0.0, 1.0, 1.0, 0.0, p, n_l)
    x = _overlaps(s, t, n_l)  # X_1..X_l
    d = np.arange(1, n_l + 1, dtype=float)
    w = p**d
    c = (1.0 - p) / p
    x_l, x_s = x[-1], x[n_s - 1]
    rbo_min = c * (np.sum((x - x_l) * w / d) - x_l * math.log(1.0 - p))
    past = d > n_s
    rbo_ext = c * (np.sum(x / d * w) + np.sum(x_s * (d[past] - n_s) / (n_s * d[past]) * w[past]))
    rbo_ext += ((x_l - x_s) / n_l + x_s / n_s) * p**n_l
    rbo_max = _rbo_max(s, t, p)
    truncated = (1.0 - p) * float(np.sum(p ** (d[:n_s] - 1) * x[:n_s] / d[:n_s]))
    return RBOResult(
        min=float(rbo_min),
        ext=float(rbo_ext),
        max=float(rbo_max),
        residual=float(rbo_max - rbo_min),
        truncated=truncated,
        p=p,
        depth=n_l,
    )


def average_overlap(s, t, depth: int | None = None) -> float:
    """Average overlap: the mean of A_d = X_d/d for d = 1..depth (the p → 1 limit of the
    truncated RBO; Webber et al. 2010, §2). ``depth`` defaults to the shorter length.

    S = abcdefg, T = zcavwxy → 0.312 (Webber et al.'s Fig. 5 example; the value the tests of the
    ``rbo`` package 0.1.3, ``changyaochen/rbo``, assert).
    """
    s = check_unique_items(s, "s")
    t = check_unique_items(t, "t")
    k = min(len(s), len(t)) if depth is None else depth
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"depth must be an integer >= 1 (and both rankings non-empty), got {k!r}")
    if k > min(len(s), len(t)):
        raise ValueError(f"depth={k} exceeds the shorter ranking ({min(len(s), len(t))} items)")
    x = _overlaps(s[:k], t[:k], int(k))
    return float(np.mean(x / np.arange(1, k + 1)))
