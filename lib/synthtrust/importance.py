"""Feature importance, and how far two importance rankings agree.

Giles et al. (2022), "Faking feature importance: a cautionary tale on the use of differentially
private synthetic data", compare the feature importance of a random forest trained on the real
data with that of one trained on DP synthetic data. This module gives the pieces:

* :func:`feature_importance` — impurity (MDI), permutation and mean-``|SHAP|`` importance of a fitted
  model, as a pandas Series;
* :func:`importance_ranking` — features by decreasing importance;
* :func:`rank_biased_overlap` — the RBO family of Webber, Moffat & Zobel (2010): lower bound,
  extrapolated point estimate, upper bound, residual, for rankings of any (uneven) lengths;
  :func:`average_overlap` and :func:`top_weightness` (their Eq. 21);
* :func:`association_matrix` and :func:`correlated_rank_similarity` — the "correlated rank
  similarity" of the QUIPP pipeline used by Giles et al.: an RBO whose overlap at depth d counts
  two different features as partly the same when they are associated in the real data;
* :func:`compare_importances` — L2 distance, cosine similarity and KL divergence of two importance
  vectors;
* :func:`random_permutation_rbo`, :func:`random_permutation_cosine` and
  :func:`expected_rbo_random_permutation` — the "random feature permutation" baseline of Giles et
  al. (2022, App. A): a uniformly random reordering of the real ranking compared with the real one.

Sources: Giles et al. (2022) [``giles2022``]; Webber, Moffat & Zobel (2010) [``webber2010``];
SHAP values of trees: Lundberg et al. (2020) [``lundberg2020``].

Notation (Webber et al. 2010, §4): S, T rankings without duplicates, S_{:d} the first d items,
X_d = ``|S_{:d} ∩ T_{:d}|`` the overlap at depth d, A_d = X_d / d the agreement, 0 < p < 1 the
persistence: RBO = (1 − p) Σ_{d≥1} p^{d−1} A_d (Eq. 7). Rankings here are finite prefixes of
possibly longer (conceptually infinite) rankings; the bounds say how large the full RBO can be.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from scipy.optimize import linear_sum_assignment

from synthtrust.run.blocks import in_dask_task, map_blocks

from ._optional import import_optional
from ._result import ResultMixin
from ._validation import check_positive_int, check_random_state, check_unique_items, real_in

__all__ = [
    "RBOResult",
    "association_matrix",
    "average_overlap",
    "compare_importances",
    "correlated_rank_similarity",
    "expected_rbo_random_permutation",
    "feature_importance",
    "importance_ranking",
    "random_permutation_cosine",
    "random_permutation_rbo",
    "rank_biased_overlap",
    "top_weightness",
]

_IMPORTANCE_METHODS = ("mdi", "permutation", "shap")
_MULTICLASS = ("mean", "last")


#: The persistence p of RBO, 0 < p < 1 (p = 1 allowed only where the sum is finite).
_P = real_in(0.0, 1.0, low_open=True, high_open=True)
_P_OR_ONE = real_in(0.0, 1.0, low_open=True)


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
    p = _P(p, "p")
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
    p = _P(p, "p")
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


# --------------------------------------------------------------------------------------------
# correlated rank similarity (QUIPP pipeline, Giles et al. 2022)
# --------------------------------------------------------------------------------------------
def _cramers_v(a: pd.Series, b: pd.Series) -> float:
    """Bias-corrected Cramér's V (Bergsma & Wicher 2013) from SciPy's χ² (Yates for 2 × 2)."""
    table = pd.crosstab(a, b).to_numpy()
    r, k = table.shape
    n = table.sum()
    if min(r, k) < 2:
        return 0.0
    phi2 = stats.chi2_contingency(table)[0] / n
    phi2c = max(0.0, phi2 - (k - 1) * (r - 1) / (n - 1))
    rc = r - (r - 1) ** 2 / (n - 1)
    kc = k - (k - 1) ** 2 / (n - 1)
    denom = min(kc - 1, rc - 1)
    return float(np.sqrt(phi2c / denom)) if denom > 0 else float("nan")


def _correlation_ratio(categories: pd.Series, values: pd.Series) -> float:
    """Correlation ratio η: √(between-group sum of squares / total sum of squares)."""
    v = values.to_numpy(dtype=float)
    codes = pd.factorize(categories)[0]
    counts = np.bincount(codes)
    means = np.bincount(codes, weights=v) / counts
    total = v.mean()
    num = float(np.sum(counts * (means - total) ** 2))
    den = float(np.sum((v - total) ** 2))
    return 0.0 if num == 0.0 else float(np.sqrt(num / den))


def association_matrix(data: pd.DataFrame, categorical=None) -> pd.DataFrame:
    """Absolute association between every pair of columns, as the QUIPP pipeline computes it
    with ``dython.nominal.associations(...)["corr"].abs()`` (dython's defaults):
    ``|Pearson r|`` for numeric–numeric, the correlation ratio η for categorical–numeric and
    bias-corrected Cramér's V for categorical–categorical pairs; 1 on the diagonal.

    Parameters
    ----------
    data : DataFrame (n_rows, n_columns), no missing values
    categorical : list of column names, optional
        Default: the columns that are not numeric (object, string, category, bool).

    Returns
    -------
    DataFrame (n_columns, n_columns), symmetric, values in [0, 1] (NaN where a measure is
    undefined, e.g. Pearson r of a constant column).

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame; missing values; an unknown categorical column.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, got {type(data).__name__}")
    if data.isna().any().any():
        bad = [c for c in data.columns if data[c].isna().any()]
        raise ValueError(f"data has missing values in column(s) {bad}; impute or drop them first")
    if categorical is None:
        categorical = [
            c
            for c in data.columns
            if not pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c])
        ]
    unknown = [c for c in categorical if c not in data.columns]
    if unknown:
        raise ValueError(f"categorical column(s) {unknown} are not columns of data")
    cat = set(categorical)
    cols = list(data.columns)
    out = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            if a in cat and b in cat:
                v = _cramers_v(data[a], data[b])
            elif a in cat:
                v = _correlation_ratio(data[a], data[b])
            elif b in cat:
                v = _correlation_ratio(data[b], data[a])
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    v = abs(
                        float(np.corrcoef(data[a].to_numpy(float), data[b].to_numpy(float))[0, 1])
                    )
            out.loc[a, b] = out.loc[b, a] = v
    # rounding can put a perfect association a few ulps above 1 (e.g. η of a column that is a
    # function of the category): the measures are bounded by 1
    return out.clip(upper=1.0)


def _association_weight(s: list, t: list, association) -> np.ndarray:
    """√C(s_i, t_j) as a (len(s), len(t)) array, with C = 1 for a feature and itself; validates
    ``association`` (type, coverage of every feature, values in [0, 1])."""
    if not isinstance(association, (pd.DataFrame, Mapping)):
        raise TypeError(
            f"association must be a DataFrame or a mapping, got {type(association).__name__}"
        )
    assoc = association if isinstance(association, pd.DataFrame) else pd.DataFrame(association)
    missing = [f for f in dict.fromkeys(s + t) if f not in assoc.index or f not in assoc.columns]
    if missing:
        raise ValueError(f"association has no row/column for feature(s) {missing}")
    c = assoc.loc[s, t].to_numpy(dtype=float).copy()
    position = {b: j for j, b in enumerate(t)}
    for i, a in enumerate(s):
        if a in position:
            c[i, position[a]] = 1.0
    if not np.all((c >= 0) & (c <= 1)):
        raise ValueError("association values must lie in [0, 1] (absolute associations), not NaN")
    return np.sqrt(c)


def _soft_overlaps(s: list, t: list, weight: np.ndarray, depth: int) -> np.ndarray:
    """X_d = max over doubly stochastic W of Σ W_ij·weight_ij on the depth-d prefixes (shorter
    prefix padded with zeros): an assignment problem (Birkhoff–von Neumann: a permutation is
    optimal), solved exactly by ``scipy.optimize.linear_sum_assignment``."""
    out = np.empty(depth)
    for d in range(1, depth + 1):
        block = np.zeros((d, d))
        rs, rt = min(d, len(s)), min(d, len(t))
        block[:rs, :rt] = weight[:rs, :rt]
        rows, cols = linear_sum_assignment(block, maximize=True)
        out[d - 1] = block[rows, cols].sum()
    return out


def correlated_rank_similarity(
    s, t, association, p: float = 0.9, *, depth: int | None = None, ext: bool = False
) -> float:
    """RBO with a soft overlap: two different features count as the same in proportion to the
    square root of their association (QUIPP pipeline's ``correlated_rank_similarity``, used by
    Giles et al. 2022 for the "corr_rank" scores).

    At depth d, X_d = max_W Σ_ij W_ij·√C(s_i, t_j) over doubly stochastic W on the d × d
    prefixes (C = ``association``, 1 for a feature with itself); with C the identity this is the
    ordinary overlap. Then A_d = X_d/d and the value is the truncated sum
    (1 − p)·Σ_{d=1}^{k} p^{d−1}·A_d, plus A_k·p^k with ``ext=True`` (k = ``depth``, default the
    shorter length). p = 1 gives the average of A_d (the reference code's default).

    Parameters
    ----------
    s, t : sequence of feature names (rankings, best first, no duplicates)
    association : DataFrame (features × features) or mapping of mappings
        Association between features in [0, 1], e.g. :func:`association_matrix` of the real
        training data; must cover every feature of ``s`` and ``t``.
    p : float in (0, 1]
    depth : int, optional
    ext : bool

    Raises
    ------
    TypeError, ValueError
        Bad rankings or ``p``; a feature missing from ``association``; an association outside
        [0, 1] or NaN; ``depth`` < 1 or beyond the shorter ranking.
    """
    s = check_unique_items(s, "s")
    t = check_unique_items(t, "t")
    p = _P_OR_ONE(p, "p")
    weight = _association_weight(s, t, association)
    k = min(len(s), len(t)) if depth is None else depth
    if (
        isinstance(k, bool)
        or not isinstance(k, numbers.Integral)
        or k < 1
        or k > min(len(s), len(t))
    ):
        raise ValueError(f"depth must be an integer in [1, {min(len(s), len(t))}], got {k!r}")
    x = _soft_overlaps(s, t, weight, int(k))
    a_d = x / np.arange(1, k + 1)
    if p == 1.0:
        value = float(np.mean(a_d))
    else:
        value = (1.0 - p) * float(np.sum(p ** np.arange(k) * a_d))
    return value + (float(a_d[-1]) * p**k if ext else 0.0)


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
    p = _P(p, "p")
    weight = None if association is None else _association_weight(s, s, association)
    n = len(s)
    perms = _random_permutations(n, n_draws, random_state)
    draws = perms.shape[0]
    inverse = np.argsort(perms, axis=1)  # position in T of each item S_i
    enters = np.maximum(np.arange(n), inverse) + np.arange(draws)[:, None] * n
    x = np.cumsum(np.bincount(enters.ravel(), minlength=draws * n).reshape(draws, n), axis=1)
    out = pd.DataFrame({"rbo": _rbo_ext_equal_lengths(x, p)})
    if weight is not None:
        soft = np.array([_soft_overlaps(s, s, weight[:, perm], n) for perm in perms])
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
    p = _P(p, "p")
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


# --------------------------------------------------------------------------------------------
# importance scores
# --------------------------------------------------------------------------------------------
def _abs_shap(model, X: pd.DataFrame, multiclass: str = "mean") -> np.ndarray:
    """``|φ|`` (rows, features) of the rows of ``X``; for per-class values (rows, features,
    classes) averaged over the classes ("mean") or taken for the last class ("last"). Row by row,
    so blocks of rows give the rows of the whole. scikit-learn trees and forests go through
    :func:`synthtrust._treeshap.tree_shap_values` (shap's values to 1e-9, about 50 times faster on
    a fully grown forest), other models through ``shap.TreeExplainer(model).shap_values``."""
    shap = import_optional("shap", "SHAP importance")
    from ._treeshap import fast_path_applies, tree_shap_values

    explainer = shap.TreeExplainer(model)
    if fast_path_applies(explainer, model):
        values = tree_shap_values(explainer.model, X)
        if values.shape[-1] == 1:
            values = values[..., 0]
    else:
        values = explainer.shap_values(X)
    if isinstance(values, list):  # shap < 0.45: one (rows, features) array per class
        values = np.stack(values, axis=-1)
    values = np.abs(np.asarray(values, dtype=float))
    if values.ndim == 3:
        values = values[..., -1] if multiclass == "last" else values.mean(axis=-1)
    return values


def _abs_shap_block(model_and_option: tuple, X: pd.DataFrame) -> np.ndarray:
    return _abs_shap(model_and_option[0], X, model_and_option[1])


def _shap_importance(model, X, multiclass: str = "mean", block_rows: int | None = None):
    """Mean over rows of ``|φ|``; with ``block_rows`` inside a Dask task, each block of rows is a
    task of its own (:func:`synthtrust.run.blocks.map_blocks`); the result is the same."""
    if block_rows is None or not in_dask_task():
        blocks = [X]
    else:
        blocks = [X.iloc[i : i + block_rows] for i in range(0, len(X), block_rows)]
    return np.concatenate(map_blocks(_abs_shap_block, (model, multiclass), blocks)).mean(axis=0)


def feature_importance(
    model,
    X: pd.DataFrame,
    y=None,
    method: str = "mdi",
    *,
    n_repeats: int = 10,
    multiclass: str = "mean",
    random_state=None,
    block_rows: int | None = None,
) -> pd.Series:
    """Importance of each feature of a fitted model.

    Parameters
    ----------
    model : fitted estimator
        ``"mdi"`` needs ``feature_importances_`` (tree ensembles); ``"shap"`` a tree model
        supported by ``shap.TreeExplainer``; ``"permutation"`` any estimator with ``score``.
    X : DataFrame (n_rows, n_features)
        Features (numeric: the columns the model was fitted on).
    y : array (n_rows,), required for ``"permutation"``
    method : {"mdi", "permutation", "shap"}
        Mean decrease in impurity (Breiman 2001); mean drop in ``model.score`` when a column is
        permuted (``sklearn.inspection.permutation_importance``, ``n_repeats`` times); mean
        ``|SHAP value|`` over the rows of ``X`` (path-dependent TreeSHAP, Lundberg et al. 2020
        [``lundberg2020``]: ``shap.TreeExplainer``'s values; for scikit-learn trees and forests
        computed by :mod:`synthtrust._treeshap`, which agrees with shap to 1e-9).
    n_repeats : int ≥ 1
        Permutations per feature for ``"permutation"`` (sklearn's default and Giles et al.
        2022, App. A: 5; the default here is 10).
    multiclass : {"mean", "last"}, default "mean"
        ``"shap"`` on a model with one SHAP value per class (classifiers whose output is a
        probability, e.g. a random forest; shape (rows, features, classes)): "mean" averages
        ``|φ|`` over the classes, as Giles et al. (2022) [``giles2022``] do for the 4-class Household
        target; "last" keeps the last class only (the behaviour before this option). For a
        binary probability model ``|φ_0|`` = ``|φ_1|`` (the two outputs sum to 1), so both agree; models
        with a single output are not affected. The paper *sums* over the test rows where this
        takes the mean: rankings, RBO and cosine are unchanged by that factor.
    random_state : int, Generator or None (permutation only)
    block_rows : int ≥ 1 or None (SHAP only)
        Called inside a task on a Dask cluster, the SHAP values of each block of ``block_rows``
        rows are a cluster task of their own (:func:`synthtrust.run.blocks.map_blocks`), so one
        model's TreeSHAP on a large table spreads over the workers; elsewhere, and with None
        (default), all rows are explained in one call. The result is the same either way.

    Returns
    -------
    Series indexed by the columns of ``X``.

    Raises
    ------
    ValueError, TypeError
        Unknown ``method`` or ``multiclass``; ``X`` not a DataFrame; ``y`` missing for
        permutation; ``n_repeats`` or ``block_rows`` not an integer ≥ 1; a model without
        ``feature_importances_`` for ``"mdi"``.
    """
    if method not in _IMPORTANCE_METHODS:
        raise ValueError(f"method must be one of {_IMPORTANCE_METHODS}, got {method!r}")
    if multiclass not in _MULTICLASS:
        raise ValueError(f"multiclass must be one of {_MULTICLASS}, got {multiclass!r}")
    n_repeats = check_positive_int(n_repeats, "n_repeats")
    if block_rows is not None:
        block_rows = check_positive_int(block_rows, "block_rows")
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame (named features), got {type(X).__name__}")
    if method == "mdi":
        if not hasattr(model, "feature_importances_"):
            raise ValueError(
                f"method='mdi' needs a fitted tree model with feature_importances_, "
                f"got {type(model).__name__}"
            )
        scores = np.asarray(model.feature_importances_, dtype=float)
    elif method == "permutation":
        if y is None:
            raise ValueError("method='permutation' needs y (the labels of X)")
        from sklearn.inspection import permutation_importance

        from . import _forest_score

        seed = int(check_random_state(random_state).integers(2**31 - 1))
        scorer = _forest_score.ForestAccuracy(model, X) if _forest_score.applies(model) else None
        scores = permutation_importance(
            model, X, y, scoring=scorer, n_repeats=n_repeats, random_state=seed
        ).importances_mean
    else:
        scores = _shap_importance(model, X, multiclass, block_rows)
    return pd.Series(scores, index=list(X.columns), name=method)


def importance_ranking(scores) -> list:
    """Features by decreasing importance (ties keep the input order).

    ``scores`` is a Series (or a mapping feature → score).
    """
    scores = pd.Series(scores, dtype=float)
    if scores.isna().any():
        raise ValueError(f"scores has NaN for {list(scores.index[scores.isna()])}")
    order = np.argsort(-scores.to_numpy(), kind="stable")
    return [scores.index[i] for i in order]


def compare_importances(a, b) -> dict[str, float]:
    """L2 distance, cosine similarity and KL divergence of two importance vectors.

    Both are aligned on their features (the same set is required) and scaled to unit L2 norm;
    KL(a ‖ b) is ``scipy.stats.entropy`` of the absolute scaled scores plus 1e-20 (each then
    normalised to sum 1), as in the QUIPP pipeline's ``compare_features``.

    Raises
    ------
    ValueError
        Different feature sets, NaN, or an all-zero vector.
    """
    a, b = pd.Series(a, dtype=float), pd.Series(b, dtype=float)
    if set(a.index) != set(b.index):
        raise ValueError(
            f"a and b must score the same features; only in a: "
            f"{sorted(set(a.index) - set(b.index))}, only in b: "
            f"{sorted(set(b.index) - set(a.index))}"
        )
    b = b.loc[a.index]
    va, vb = a.to_numpy(), b.to_numpy()
    for name, v in (("a", va), ("b", vb)):
        if not np.all(np.isfinite(v)) or not np.any(v):
            raise ValueError(f"{name} must be finite and not all zero")
    ua, ub = va / np.linalg.norm(va), vb / np.linalg.norm(vb)
    return {
        "l2": float(np.linalg.norm(ua - ub)),
        "cosine": float(ua @ ub),
        "kl": float(stats.entropy(np.abs(ua) + 1e-20, np.abs(ub) + 1e-20)),
    }
