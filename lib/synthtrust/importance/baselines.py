"""The random-feature-permutation baseline of Giles et al. (2022) [``giles2022``], App. A: a
uniformly random reordering of the real ranking compared with the real one (RBO, correlated RBO,
cosine), by simulation and, for RBO of equal lengths, in expectation.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust._validation import (
    check_positive_int,
    check_random_state,
    check_unique_items,
)
from synthtrust.importance.correlated import association_weights, soft_overlaps
from synthtrust.importance.rbo import PERSISTENCE
from synthtrust.importance.scores import importance_ranking


# --------------------------------------------------------------------------------------------
# random feature permutation baseline (Giles et al. 2022, App. A)
# --------------------------------------------------------------------------------------------
def _random_permutations(n_items: int, n_draws, random_state) -> np.ndarray:
    """(n_draws, n_items) int array, each row a uniformly random permutation of 0..n_items−1."""
    n_draws = check_positive_int(n_draws, "n_draws")
    rng = check_random_state(random_state)
    return rng.permuted(np.tile(np.arange(n_items), (n_draws, 1)), axis=1)


def _nonempty_ranking(ranking, name: str) -> list:
    items = check_unique_items(ranking, name)
    if not items:
        raise ValueError(f"{name} is empty; at least one item is needed")
    return items


def random_permutation_rbo(
    ranking, p: float = 0.9, n_draws: int = 100, *, association=None, random_state=None
) -> pd.DataFrame:
    """Similarity of uniformly random permutations of a ranking to the ranking itself: the
    "random feature permutation" baseline of Giles et al. (2022) [``giles2022``], App. A.

    For each draw, T is a uniformly random reordering of the n items of S = the real ranking; the
    overlap at depth d is X_d = ``|S_{:d} ∩ T_{:d}|`` (computed for all draws at once: item S_i enters
    both prefixes at depth max(i, position of S_i in T) + 1).

    Parameters
    ----------
    ranking : sequence of hashable items (best first, no duplicates), or a Series of importance
        scores indexed by feature (ranked with :func:`importance_ranking`); n ≥ 1 items.
    p : float in (0, 1)
        Persistence (the chapter uses 0.8, App. A).
    n_draws : int ≥ 1
        Number of random permutations.
    association : DataFrame (features × features) or mapping of mappings, optional
        As for :func:`correlated_rank_similarity`; if given, the correlated RBO of each draw is
        added (n exact assignment problems per draw: ≈ 1, 3 and 17 ms per draw for n = 39, 67
        and 141 on one core; ``benchmarks/bench_importance.py``).
    random_state : int, Generator or None
        The permutations are those of :func:`random_permutation_cosine` with the same seed.

    Returns
    -------
    DataFrame, shape (n_draws, 1 to 3), one row per draw, columns

    * ``rbo``: RBO_ext of T against S (Webber et al. 2010 [``webber2010``], Eq. 32 for equal
      lengths; = ``rank_biased_overlap(S, T, p).ext``); its mean estimates
      :func:`expected_rbo_random_permutation`;
    * ``corr_rbo`` (with ``association``): ``correlated_rank_similarity(S, T, association, p,
      ext=True)``;
    * ``cosine`` (when ``ranking`` is a Series of scores): :func:`random_permutation_cosine`, the
      real sorted scores given to the permuted names, for the same permutations.

    Raises
    ------
    TypeError, ValueError
        ``ranking`` not a sequence/Series, empty or with a duplicate (or scores with NaN, or all
        zero for the cosine); ``p`` outside (0, 1); ``n_draws`` not an integer ≥ 1; a bad
        ``association`` (see :func:`correlated_rank_similarity`).
    """
    scores = ranking if isinstance(ranking, pd.Series) else None
    s = _nonempty_ranking(importance_ranking(scores) if scores is not None else ranking, "ranking")
    p = PERSISTENCE(p, "p")
    weight = None if association is None else association_weights(s, s, association)
    n = len(s)
    perms = _random_permutations(n, n_draws, random_state)
    draws = perms.shape[0]
    inverse = np.argsort(perms, axis=1)  # position in T of each item S_i
    enters = np.maximum(np.arange(n), inverse) + np.arange(draws)[:, None] * n
    x = np.cumsum(np.bincount(enters.ravel(), minlength=draws * n).reshape(draws, n), axis=1)
    out = pd.DataFrame({"rbo": _rbo_ext_equal_lengths(x, p)})
    if weight is not None:
        soft = np.array([soft_overlaps(s, s, weight[:, perm], n) for perm in perms])
        out["corr_rbo"] = _rbo_ext_equal_lengths(soft, p)
    if scores is not None:
        out["cosine"] = _permuted_cosine(scores[s].to_numpy(dtype=float), perms)
    return out


def _rbo_ext_equal_lengths(x: np.ndarray, p: float) -> np.ndarray:
    """RBO_ext of rankings of equal length k from their overlaps x (…, k):
    (1 − p)·Σ_{d=1}^{k} p^{d−1}·x_d/d + (x_k/k)·p^k (Webber et al. 2010, Eq. 32)."""
    k = x.shape[-1]
    d = np.arange(1, k + 1)
    agreement = x / d
    return (1.0 - p) * np.sum(p ** (d - 1) * agreement, axis=-1) + agreement[..., -1] * p**k


def expected_rbo_random_permutation(n_features: int, p: float) -> float:
    """E[RBO_ext] of a uniformly random permutation of n items against the fixed ranking, in
    closed form: (1 − pⁿ) / (n·(1 − p)).

    Derivation (own; notation of Webber et al. 2010 [``webber2010``], §4): for two rankings of
    the same n items, RBO_ext = (X_n/n)·pⁿ + ((1 − p)/p)·Σ_{d=1}^{n} (X_d/d)·p^d with X_n = n.
    For a uniformly random T, X_d = ``|S_{:d} ∩ T_{:d}|`` is hypergeometric (d draws from n items of
    which d are "successes"), E[X_d] = d²/n. RBO_ext is linear in the X_d, so

        E = pⁿ + ((1 − p)/(p·n))·Σ_{d=1}^{n} d·p^d,
        Σ_{d=1}^{n} d·p^d = p·(1 − (n+1)·pⁿ + n·p^{n+1}) / (1 − p)²,

    hence E = pⁿ + (1 − pⁿ − n·pⁿ·(1 − p)) / (n·(1 − p)) = (1 − pⁿ) / (n·(1 − p)).
    E = 1 for n = 1; about 1/(n·(1 − p)) for large n: 0.128, 0.0746, 0.0355 for the 39, 67 and
    141 features of Giles et al. (2022) at p = 0.8.

    Parameters
    ----------
    n_features : int ≥ 1
    p : float in (0, 1)

    Returns
    -------
    float in (0, 1]

    Raises
    ------
    TypeError, ValueError
        ``n_features`` not an integer ≥ 1; ``p`` outside (0, 1).
    """
    n = check_positive_int(n_features, "n_features")
    p = PERSISTENCE(p, "p")
    return (1.0 - p**n) / (n * (1.0 - p))


def random_permutation_cosine(scores, n_draws: int = 100, *, random_state=None) -> np.ndarray:
    """Cosine similarity of the random feature permutation baseline (Giles et al. 2022
    [``giles2022``], App. A): the real scores, sorted in decreasing order, are given to the
    features of a random permutation of the real ranking (the j-th feature of the permuted ranking
    gets the j-th largest score), and compared with the real scores as in
    :func:`compare_importances` (cosine of the L2-normalised vectors).

    With v the scores (n features), the value is Σ_j v_(j)·v_(π(j)) / Σ_j v_j² for the sorted
    scores v_(1) ≥ … ≥ v_(n) and a uniform permutation π; its mean is (Σ v)² / (n·Σ v²)
    (E[v_(π(j))] = mean of v). 1 if all scores are equal.

    Parameters
    ----------
    scores : Series (feature → importance) or mapping; finite, not all zero
    n_draws : int ≥ 1
    random_state : int, Generator or None
        The same permutations as :func:`random_permutation_rbo` with the same seed (there applied
        to :func:`importance_ranking` of ``scores``).

    Returns
    -------
    ndarray, shape (n_draws,), values in [−1, 1]

    Raises
    ------
    TypeError, ValueError
        ``scores`` empty, with NaN/inf or all zero; ``n_draws`` not an integer ≥ 1.
    """
    v = pd.Series(scores, dtype=float).to_numpy()
    return _permuted_cosine(np.sort(v)[::-1], _random_permutations(v.size, n_draws, random_state))


def _permuted_cosine(ordered: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """Σ_j v_(j)·v_(π(j)) / Σ v² for scores ``ordered`` by decreasing importance, one value per
    row π of ``perms``."""
    if ordered.size == 0 or not np.all(np.isfinite(ordered)) or not np.any(ordered):
        raise ValueError(f"scores must be non-empty, finite and not all zero, got {ordered!r}")
    return (ordered[perms] * ordered).sum(axis=1) / float(ordered @ ordered)
