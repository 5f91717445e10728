"""Samplers of the null distribution of the Mann–Whitney U statistic (continuous data).

The null U of the DP Mann–Whitney U test (Couch et al. 2019 [``couch2019``], as used by
Montoya Perez et al. 2024 [``montoyaperez2024``], §3.4): exact draws (block-wise multivariate
hypergeometric + tabulated exact within-block rank-sum distributions, guided inverse-CDF search
of Chen & Asau), the rounded normal approximation for large n, and the ``null="auto"`` choice
between them.
"""

from __future__ import annotations

import functools

import numpy as np

from synthtrust._validation import check_positive_int, check_random_state

_LEAF = 256  # largest block of ranks with a tabulated within-block distribution (power of 2)
_LEAF_BITS = _LEAF.bit_length() - 1


def warm_up() -> None:
    """Build the DP Mann–Whitney U null sampler's tables now (≈ 130 MB, built once per process
    on first use); for :func:`synthtrust.run.experiment.run_grid`'s ``warm_up``."""
    _subset_sum_tables()


@functools.lru_cache(maxsize=1)
def _subset_sum_tables():
    """Inverse-CDF tables of W(s, k) = (sum of a uniform k-subset of {1..s}) − k(k+1)/2 for
    s ∈ {1, 2, 4, …, 256}, all k ∈ [0, s].  W(s, k) is the null U of sizes (k, s − k).

    Recursion on whether element s is chosen (prob. k/s), all terms positive (stable):
    P_{s,k}(w) = (k/s) P_{s−1,k−1}(w − (s−k)) + ((s−k)/s) P_{s−1,k}(w).
    Returns (cdf float64, guide int64, seg_start int64, seg_len int64, seg_id int64[class, k]):
    one segment per (s, k) holding its CDF (last value exactly 1.0) and a guide table
    guide[start + j] = first index i of the segment with cdf[i] > j / len (Chen & Asau's
    guided inverse-CDF search: expected O(1) steps per draw).
    """
    classes = [1 << j for j in range(_LEAF_BITS + 1)]
    stored = {}
    prev = [np.ones(1)]
    for s in range(1, _LEAF + 1):
        cur = []
        for k in range(s + 1):
            p = np.zeros(k * (s - k) + 1)
            if k < s:
                p[: k * (s - 1 - k) + 1] += ((s - k) / s) * prev[k]
            if k > 0:
                p[s - k :] += (k / s) * prev[k - 1]
            cur.append(p)
        prev = cur
        if s in classes:
            stored[s] = cur
    seg_id = np.full((len(classes), _LEAF + 1), -1, dtype=np.int64)
    cdfs, guides, starts = [], [], []
    pos = 0
    for ci, s in enumerate(classes):
        for k, p in enumerate(stored[s]):
            cdf = np.cumsum(p)
            cdf /= cdf[-1]
            cdf[-1] = 1.0
            length = cdf.size
            guide = np.searchsorted(cdf, np.arange(length) / length, side="right")
            seg_id[ci, k] = len(starts)
            cdfs.append(cdf)
            guides.append(guide)
            starts.append(pos)
            pos += length
    cdf_all = np.concatenate(cdfs)
    guide_all = np.concatenate(guides).astype(np.int64)
    seg_start = np.asarray(starts, dtype=np.int64)
    seg_len = np.diff(np.append(seg_start, pos))
    for a in (cdf_all, guide_all, seg_start, seg_len, seg_id):
        a.setflags(write=False)
    return cdf_all, guide_all, seg_start, seg_len, seg_id


def _draw_within_block(seg, rng):
    """Exact inverse-CDF draws from the tabulated segments ``seg`` (guided search)."""
    cdf_all, guide_all, seg_start, seg_len, _ = _subset_sum_tables()
    start = seg_start[seg]
    length = seg_len[seg]
    u = rng.random(seg.size)
    j = np.minimum((u * length).astype(np.int64), length - 1)
    idx = start + guide_all[start + j]
    todo = np.flatnonzero(cdf_all[idx] <= u)
    while todo.size:  # a few passes: the guide leaves O(1) expected steps
        idx[todo] += 1
        todo = todo[cdf_all[idx[todo]] <= u[todo]]
    return idx - start


def sample_null_u(n, m, rng):
    """Exact draws of the null U for sizes (m, n − m), vectorized; n, m int64 1-D arrays.

    The ranks 1..n are cut into blocks (⌊n/256⌋ blocks of 256, then the binary digits of
    n mod 256).  The number of chosen ranks per block is drawn by sequential hypergeometric
    draws (= a multivariate hypergeometric), and the within-block rank sum from the exact
    tables above.  U = Σ_b [k_b·offset_b + W_b + k_b(k_b+1)/2] − m(m+1)/2.
    Cost O(n/256 + 8) vectorized NumPy calls per batch.
    """
    seg_id = _subset_sum_tables()[4]
    n = np.asarray(n, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    q = n // _LEAF
    r = n % _LEAF
    sizes = [(np.where(q > j, _LEAF, 0), _LEAF_BITS) for j in range(int(q.max(initial=0)))]
    for bit in range(_LEAF_BITS - 1, -1, -1):
        sizes.append((np.where(r & (1 << bit), 1 << bit, 0), bit))
    rem_pop = n.copy()
    rem_m = m.copy()
    offset = np.zeros_like(n)
    rank_sum = np.zeros_like(n)
    for size, cls in sizes:
        if not np.any(size):
            continue
        k = rng.hypergeometric(size, rem_pop - size, rem_m)
        act = np.flatnonzero((k > 0) & (k < size))  # k = 0 or k = size: W = 0
        rank_sum += k * offset + k * (k + 1) // 2
        if act.size:
            rank_sum[act] += _draw_within_block(seg_id[cls, k[act]], rng)
        offset += size
        rem_pop -= size
        rem_m -= k
    return rank_sum - m * (m + 1) // 2


def simulate_null_u(n1, n2, size, random_state=None) -> np.ndarray:
    """Exact i.i.d. draws of the Mann–Whitney U statistic of sample 1 under H₀ (no ties).

    Parameters
    ----------
    n1, n2 : int >= 1 — group sizes.
    size : int >= 1 — number of draws.
    random_state : None | int | numpy.random.Generator.

    Returns
    -------
    ndarray of int64, shape (size,): U = (rank sum of a uniformly random n1-subset of
    {1, …, n1+n2}) − n1(n1+1)/2, drawn exactly (block-wise multivariate hypergeometric +
    tabulated exact within-block distributions), in O((n1+n2)/256) vectorized steps.
    """
    n1 = check_positive_int(n1, "n1")
    n2 = check_positive_int(n2, "n2")
    size = check_positive_int(size, "size")
    rng = check_random_state(random_state)
    return sample_null_u(np.full(size, n1 + n2), np.full(size, n1), rng)


#: Above this total size n, ``null="auto"`` draws the null U from its normal approximation.
NULL_EXACT_MAX_N = 400
NULL_METHODS = ("auto", "exact", "normal")


def sample_null_u_normal(n, m, rng):
    """Null U draws from the normal approximation: round(N(m(n−m)/2, m(n−m)(n+1)/12)),
    clipped to [0, m(n−m)]. n, m int64 1-D arrays."""
    mn = m * (n - m)
    sd = np.sqrt(mn * (n + 1) / 12.0)
    return np.clip(np.rint(mn / 2.0 + sd * rng.standard_normal(n.shape)), 0, mn)


def sample_null(n, m, rng, null):
    """Null U draws for sizes (m, n − m) by ``null`` (see
    :func:`synthtrust.hypothesis.dp_mannwhitneyu`)."""
    if null == "exact":
        return sample_null_u(n, m, rng).astype(float)
    if null == "normal":
        return sample_null_u_normal(n, m, rng)
    out = np.empty(n.shape, dtype=float)
    big = n > NULL_EXACT_MAX_N
    if np.any(~big):
        out[~big] = sample_null_u(n[~big], m[~big], rng)
    if np.any(big):
        out[big] = sample_null_u_normal(n[big], m[big], rng)
    return out
