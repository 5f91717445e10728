"""Distance to closest record (DCR): the bit-sliced Hamming kernel, the share and its result."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthtrust._result import ResultMixin
from synthtrust._validation import check_n_jobs

from ._tables import (
    DCR_BINS,
    ROLES,
    as_float,
    check_bins,
    check_tables,
)
from .binning import cut_codes, quantile_breaks

#: Memory above which a column's per-category bitsets are not tabulated but built per block.
_DENSE_TABLE_BYTES = 64 << 20
#: Memory budget of the tabulated match counts of column groups (see _plan_groups).
_GROUP_TABLE_BYTES = 48 << 20
_BLOCK_ROWS = 128
#: Target words per tile (64 records each): a block's work arrays stay in the L2 cache.
_TILE_WORDS = 1024
#: Query × target × column comparisons from which the compiled kernel (``_hamming``) is used:
#: its compilation (about 5 s once per process and number of columns) then costs less than
#: the numpy kernel's extra time.
COMPILED_MIN_WORK = 3 * 10**11


# =============================================================================================
# DCR: pooled discretization, bit-sliced exact Hamming 1-NN
# =============================================================================================
def dcr_codes(frames: list[pd.DataFrame], kinds: list[str], bins: int) -> list[np.ndarray]:
    """Integer codes (int32, one row per record) of the tables for the DCR, as
    ``privacy.ipynb`` discretizes them.

    Numeric/datetime columns: ``pd.qcut(pooled, q=bins, duplicates="drop")`` on the pooled
    values of all tables (so the bins depend on the synthetic data too, as in the paper), NaN a
    category of its own. Boolean and text columns: the values as they are, missing a category
    (``pd.get_dummies(dummy_na=True)``). Equal codes ⇔ equal one-hot rows, so the Hamming
    distance of the codes is the reference's squared L2 distance of one-hot rows / 2.
    """
    d = frames[0].shape[1]
    out = [np.empty((len(df), d), dtype=np.int32) for df in frames]
    for j in range(d):
        if kinds[j] in ("numeric", "datetime"):
            xs = [as_float(df.iloc[:, j]) for df in frames]
            breaks = quantile_breaks(np.concatenate(xs), bins, round_up=True)
            n_bins = max(len(breaks) - 1, 1)
            for x, o in zip(xs, out, strict=True):
                codes = cut_codes(x, breaks)
                codes[np.isnan(x)] = n_bins
                o[:, j] = codes
        else:
            # factorize each table in its own dtype (fast for Arrow strings), then unify
            parts = [pd.factorize(df.iloc[:, j], use_na_sentinel=True) for df in frames]
            pooled = pd.Index(
                np.concatenate([np.asarray(u, dtype=object) for _, u in parts]), dtype=object
            )
            ucodes, uniques = pd.factorize(pooled, use_na_sentinel=True)
            offset = 0
            for (codes, u), o in zip(parts, out, strict=True):
                lookup = np.append(ucodes[offset : offset + len(u)], len(uniques))
                o[:, j] = lookup[codes]  # code -1 (missing) → the last entry
                offset += len(u)
    return out


def _pack_positions(n: int) -> np.ndarray:
    """Valid-record mask of ``n`` bits in ceil(n / 64) little-endian uint64 words."""
    words = (n + 63) // 64
    bits = np.zeros(words * 64, dtype=bool)
    bits[:n] = True
    return np.packbits(bits.reshape(words, 64), axis=1, bitorder="little").view(np.uint64)[:, 0]


def _one_bits(positions: np.ndarray) -> np.ndarray:
    return np.left_shift(np.uint64(1), (positions & 63).astype(np.uint64))


def _factorize_rows(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Id of each distinct row of an integer matrix (0, 1, … in order of first appearance),
    by hashing the columns in one at a time; returns (ids, number of distinct rows)."""
    ids = np.zeros(len(codes), dtype=np.int64)
    n_ids = 1 if len(codes) else 0
    for j in range(codes.shape[1]):
        col = codes[:, j].astype(np.int64)
        ids, uniques = pd.factorize(ids * (int(col.max()) + 1) + col)
        n_ids = len(uniques)
    return ids, n_ids


def _first_rows(ids: np.ndarray, n_ids: int) -> np.ndarray:
    first = np.full(n_ids, len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return first


def _plan_groups(
    q_rows: np.ndarray, dense: list[bool], budget: int
) -> list[tuple[list[int], np.ndarray]]:
    """Partition the columns into groups whose match counts are tabulated once per distinct
    combination of the group's query values: a group of g columns then costs ⌊log2 g⌋ + 1
    bitset lookups per query instead of g lookups and g − 1 additions.

    Greedy, columns by increasing number of distinct query values: a column joins the current
    group while the group has < 7 columns (3 bit planes) and its distinct combinations stay
    ≤ ``budget``; sparse (many-valued) columns stay alone. Returns [(columns, lookup row of
    each query)]: for a single column its table row, for a group the combination's id.
    """
    n_q, d = q_rows.shape
    card = [len(np.unique(q_rows[:, j])) for j in range(d)]
    order = sorted(range(d), key=lambda j: (card[j], j))
    groups: list[tuple[list[int], np.ndarray]] = []
    cols: list[int] = []
    ids = np.zeros(n_q, dtype=np.int64)

    def flush() -> None:
        if len(cols) == 1:
            groups.append((list(cols), q_rows[:, cols[0]]))
        elif cols:
            groups.append((list(cols), ids))

    for j in order:
        col = q_rows[:, j]
        if dense[j] and cols and len(cols) < 7:
            new_ids, uniques = pd.factorize(ids * (int(col.max()) + 1) + col)
            if len(uniques) <= budget:
                cols.append(j)
                ids = new_ids
                continue
        flush()
        cols = [j]
        ids = pd.factorize(col)[0] if dense[j] else col
        if not dense[j]:
            flush()
            cols = []
    flush()
    return groups


@dataclass
class _Tile:
    """A range of target words (train words first, then holdout words) with its lookup tables:
    ``lookups[g]`` is a list of (weight, table) — the bitsets of bit 2^weight of the match
    count of group g, one row per value (combination) — or [(0, None)] for a sparse column.
    ``segments`` lists (role, slice of the tile's words, first word within the role)."""

    start: int  # first global word
    valid: np.ndarray  # (words,) uint64: which bits are records
    segments: list
    lookups: list

    @property
    def words(self) -> int:
        return len(self.valid)


class _Buffers:
    """Free lists of uint64 work arrays by shape, reused across the blocks of one thread (fresh
    large allocations cost page faults at every block)."""

    def __init__(self):
        self.free: dict[tuple[int, int], list[np.ndarray]] = {}

    def get(self, shape: tuple[int, int]) -> np.ndarray:
        stack = self.free.get(shape)
        return stack.pop() if stack else np.empty(shape, dtype=np.uint64)

    def put(self, *arrays: np.ndarray) -> None:
        for a in arrays:
            self.free.setdefault(a.shape, []).append(a)


def _add_bits(inputs, shape: tuple[int, int], buf: _Buffers) -> list[np.ndarray]:
    """Sum bit-sliced numbers: ``inputs`` yields (weight w, array) pairs, each array one bit of
    weight 2^w for every (row, record) pair; returns the planes of the sum, planes[w] = bit 2^w
    (length ⌊log2 total⌋ + 1).

    Carry-save (full) adders: three bits of one weight become a sum bit of that weight and a
    carry of twice the weight, 5 word operations per 64 pairs; pairs left over get half adders.
    Input arrays are consumed (overwritten or returned to ``buf``).
    """
    levels: list[list[np.ndarray]] = []

    def push(w: int, arr: np.ndarray) -> None:
        while True:
            while len(levels) <= w:
                levels.append([])
            level = levels[w]
            level.append(arr)
            if len(level) < 3:
                return
            x, y, z = level
            carry = buf.get(shape)
            np.bitwise_and(x, y, out=carry)
            np.bitwise_xor(x, y, out=x)
            np.bitwise_and(x, z, out=y)
            np.bitwise_or(carry, y, out=carry)
            np.bitwise_xor(x, z, out=x)
            buf.put(y, z)
            levels[w] = [x]
            w, arr = w + 1, carry

    for w, arr in inputs:
        push(w, arr)
    w = 0
    while w < len(levels):  # resolve the pairs left with half adders
        if len(levels[w]) == 2:
            x, y = levels[w]
            carry = buf.get(shape)
            np.bitwise_and(x, y, out=carry)
            np.bitwise_xor(x, y, out=x)
            buf.put(y)
            levels[w] = [x]
            push(w + 1, carry)
        w += 1
    planes = []
    for level in levels:
        if level:
            planes.append(level[0])
        else:  # pragma: no cover - every level keeps one array
            zero = buf.get(shape)
            zero[...] = 0
            planes.append(zero)
    return planes


class _TargetBits:
    """Bitsets of the target records, cut into tiles of words, and the queries' lookup rows.

    Record i of a target table is bit i % 64 of word i // 64 of that table's bitsets. For column
    j, a code that some query uses and some target holds gets a table row 1, 2, …; every other
    code the all-zero row 0. Columns are grouped (:func:`_plan_groups`); for a group, the
    match-count planes of every distinct combination of the queries' values are tabulated per
    tile, so a query needs one lookup per plane. A column whose table would exceed
    ``_DENSE_TABLE_BYTES`` (e.g. an identifier) stays sparse: the records of each code, from
    which a block's bitsets are built on the fly.
    """

    def __init__(self, targets: list[np.ndarray], queries: np.ndarray, tile_words: int):
        self.d = queries.shape[1]
        self.n = [len(t) for t in targets]
        words = [(n + 63) // 64 for n in self.n]
        n_q = len(queries)
        q_rows = np.empty(queries.shape, dtype=np.int64)
        t_rows = [np.empty(t.shape, dtype=np.int64) for t in targets]
        n_rows = []
        dense = []
        for j in range(self.d):
            n_codes = int(max(max(t[:, j].max() for t in targets), queries[:, j].max())) + 1
            used = np.zeros(n_codes, dtype=bool)
            used[queries[:, j]] = True
            held = np.zeros(n_codes, dtype=bool)
            for t in targets:
                held[t[:, j]] = True
            keep = np.flatnonzero(used & held)
            remap = np.zeros(n_codes, dtype=np.int64)
            remap[keep] = np.arange(1, len(keep) + 1)
            q_rows[:, j] = remap[queries[:, j]]
            for r, t in enumerate(targets):
                t_rows[r][:, j] = remap[t[:, j]]
            n_rows.append(len(keep) + 1)
            dense.append(n_rows[-1] * sum(words) * 8 <= _DENSE_TABLE_BYTES)
        total_words = sum(words)
        budget = min(max(64, n_q // 16), _GROUP_TABLE_BYTES // (total_words * 8 * 3))
        planned = _plan_groups(q_rows, dense, budget)
        self.groups = [g for g, _ in planned]
        # query-side: the lookup row of each query in each group's table
        self.query_rows: list[np.ndarray] = []
        combos: list[np.ndarray | None] = []
        for g, ids in planned:
            self.query_rows.append(ids)
            if len(g) == 1:
                combos.append(None)
            else:
                combos.append(q_rows[_first_rows(ids, int(ids.max()) + 1)][:, g])
        # queries sorted by their lookup rows: a block's lookups hit few table rows
        self.order = np.lexsort(self.query_rows[::-1])
        self.sparse: list[dict[int, tuple[np.ndarray, np.ndarray]]] = []
        for r in range(len(targets)):
            sp = {}
            for j in range(self.d):
                if not dense[j]:
                    rows = t_rows[r][:, j]
                    order = np.argsort(rows, kind="stable")
                    sp[j] = (order, np.searchsorted(rows[order], np.arange(n_rows[j] + 1)))
            self.sparse.append(sp)
        self.tiles: list[_Tile] = []
        offsets = np.concatenate([[0], np.cumsum(words)])
        valid_all = np.concatenate([_pack_positions(n) for n in self.n])
        self.word_offsets = offsets
        for g0 in range(0, int(offsets[-1]), tile_words):
            g1 = min(g0 + tile_words, int(offsets[-1]))
            segments = []
            tables = {
                j: np.zeros((n_rows[j], g1 - g0), dtype=np.uint64)
                for j in range(self.d)
                if dense[j]
            }
            for r in range(len(targets)):
                a, b = max(g0, offsets[r]), min(g1, offsets[r + 1])
                if a >= b:
                    continue
                w0 = int(a - offsets[r])
                segments.append((r, slice(int(a - g0), int(b - g0)), w0))
                lo, hi = 64 * w0, min(64 * int(b - offsets[r]), self.n[r])
                pos = np.arange(hi - lo) + 64 * int(a - g0)
                for j, table in tables.items():
                    rows = t_rows[r][lo:hi, j]
                    sel = rows > 0
                    np.bitwise_or.at(table, (rows[sel], pos[sel] >> 6), _one_bits(pos[sel]))
            lookups = []
            for g, combo in zip(self.groups, combos, strict=True):
                if len(g) == 1:
                    lookups.append([(0, tables.get(g[0]))])
                else:
                    lookups.append(_group_planes(g, combo, tables, g1 - g0))
            self.tiles.append(_Tile(g0, valid_all[g0:g1].copy(), segments, lookups))
        self.n_queries = n_q

    def inputs(self, tile: _Tile, sl: slice, buf: _Buffers):
        """(weight, bitset array) inputs of the match count of the queries ``sl`` in ``tile``."""
        shape = (sl.stop - sl.start, tile.words)
        queries = self.order[sl]
        for g, lookup, q_all in zip(self.groups, tile.lookups, self.query_rows, strict=True):
            q = q_all[queries]
            for w, table in lookup:
                out = buf.get(shape)
                if table is not None:
                    yield w, np.take(table, q, axis=0, out=out)
                else:
                    yield w, self._sparse_bits(tile, g[0], q, out)

    def _sparse_bits(self, tile: _Tile, j: int, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
        out[...] = 0
        for r, sl, _ in tile.segments:
            order, starts = self.sparse[r][j]
            lo = np.where(rows > 0, starts[rows], 0)
            hi = np.where(rows > 0, starts[np.minimum(rows + 1, len(starts) - 1)], 0)
            cnt = hi - lo
            total = int(cnt.sum())
            if not total:
                continue
            which = np.repeat(np.arange(len(rows)), cnt)
            first = np.repeat(lo - (np.cumsum(cnt) - cnt), cnt)
            # global bit position of each record, relative to the tile
            pos = order[first + np.arange(total)] + 64 * (int(self.word_offsets[r]) - tile.start)
            inside = (pos >= 64 * sl.start) & (pos < 64 * sl.stop)
            pos, which = pos[inside], which[inside]
            np.bitwise_or.at(out, (which, pos >> 6), _one_bits(pos))
        return out


def _group_planes(group: list[int], combo: np.ndarray, tables: dict, words: int) -> list:
    """Match-count planes of every combination ``combo`` (rows × |group| table rows) of the
    group's values against one tile: [(weight, (n_combos, words) array), …]."""
    n = len(combo)
    planes_out: list[np.ndarray] | None = None
    buf = _Buffers()
    for s in range(0, n, _BLOCK_ROWS):
        e = min(s + _BLOCK_ROWS, n)
        shape = (e - s, words)
        inputs = (
            (0, np.take(tables[j], combo[s:e, i], axis=0, out=buf.get(shape)))
            for i, j in enumerate(group)
        )
        planes = _add_bits(inputs, shape, buf)
        if planes_out is None:
            planes_out = [np.empty((n, words), dtype=np.uint64) for _ in planes]
        for p, arr in zip(planes_out, planes, strict=True):
            p[s:e] = arr
        buf.put(*planes)
    return list(enumerate(planes_out))


def _max_count(
    planes: list[np.ndarray], cand: np.ndarray, tmp: np.ndarray, *, check: bool = False
) -> np.ndarray:
    """Maximum count per query row over the target bits set in ``cand`` (overwritten with the
    mask of the maximizers), read off the bit planes from the most significant one. With
    ``check``, rows of ``cand`` without any bit get −1 (otherwise every row must have one)."""
    best = np.where(cand.any(axis=1), 0, -1) if check else np.zeros(len(cand), dtype=np.int64)
    for w in range(len(planes) - 1, -1, -1):
        np.bitwise_and(cand, planes[w], out=tmp)
        has = tmp.any(axis=1)
        if has.all():
            cand[...] = tmp
        elif has.any():
            np.copyto(cand, tmp, where=has[:, None])
        best |= has.astype(np.int64) << w
    return best


def _block_distances(
    bits: _TargetBits, sl: slice, second_holdout: bool, buf: _Buffers
) -> tuple[np.ndarray, np.ndarray]:
    """Minimum Hamming distance of the queries ``sl`` to the train and to the holdout records
    (with ``second_holdout``: the second smallest holdout distance, i.e. the second largest
    match count of the multiset, as faiss' k = 2 search)."""
    b = sl.stop - sl.start
    best = [np.full(b, -1, dtype=np.int64), np.full(b, -1, dtype=np.int64)]
    second = np.full(b, -1, dtype=np.int64)
    for tile in bits.tiles:
        shape = (b, tile.words)
        planes = _add_bits(bits.inputs(tile, sl, buf), shape, buf)
        cand_all, tmp_all = buf.get(shape), buf.get(shape)
        cand_all[...] = tile.valid
        for role, seg, _ in tile.segments:
            cand, tmp = cand_all[:, seg], tmp_all[:, seg]
            seg_planes = [p[:, seg] for p in planes]
            m = _max_count(seg_planes, cand, tmp)
            if second_holdout and role == 1:
                # top two counts of this segment: the best twice if it is attained twice, else
                # the best among the segment's other records; merged into the running top two
                mult = np.bitwise_count(cand).sum(axis=1, dtype=np.int64)
                m2 = np.where(mult >= 2, m, -1)
                once = np.flatnonzero(mult == 1)
                if len(once):
                    rest = np.bitwise_and(tile.valid[seg], np.bitwise_not(cand[once]))
                    m2[once] = _max_count(
                        [p[once] for p in seg_planes], rest, np.empty_like(rest), check=True
                    )
                top = best[1]
                second = np.maximum(np.minimum(top, m), np.maximum(second, m2))
                best[1] = np.maximum(top, m)
            else:
                np.maximum(best[role], m, out=best[role])
        buf.put(cand_all, tmp_all, *planes)
    d = bits.d
    return d - best[0], d - (second if second_holdout else best[1])


def nearest_distances(
    train: np.ndarray,
    holdout: np.ndarray,
    queries: np.ndarray,
    *,
    second_holdout: bool,
    n_jobs: int,
    progress: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact Hamming 1-NN distances of ``queries`` to ``train`` and to ``holdout`` (codes);
    with ``second_holdout`` the second nearest holdout record's distance.

    Problems of at least :data:`COMPILED_MIN_WORK` query × target × column comparisons run in
    the compiled kernel of :mod:`~synthtrust.fidelity._hamming`, smaller ones in numpy (no
    compilation); both are exact. ``progress``: a tqdm bar over the queries (compiled kernel).
    """
    # identical query rows have identical answers (also for the 2nd-neighbour rule)
    inverse, n_uniq = _factorize_rows(queries)
    uniq = queries[_first_rows(inverse, n_uniq)]
    d = queries.shape[1]
    if n_uniq * (len(train) + len(holdout)) * d >= COMPILED_MIN_WORK:
        d_t, d_h = _compiled_distances(train, holdout, uniq, second_holdout, n_jobs, progress)
    else:
        d_t, d_h = _numpy_distances(train, holdout, uniq, second_holdout, n_jobs)
    return d_t[inverse], d_h[inverse]


def _compiled_distances(train, holdout, uniq, second_holdout, n_jobs, progress):
    import numba
    from tqdm.auto import tqdm

    from ._hamming import top_matches

    order = np.lexsort(uniq.T[::-1])  # similar queries together: they read the same rows
    queries = np.ascontiguousarray(uniq[order])
    n_codes = np.maximum.reduce([t.max(axis=0) for t in (train, holdout, queries)]) + 1
    d = queries.shape[1]
    threads = numba.get_num_threads()
    numba.set_num_threads(min(n_jobs, numba.config.NUMBA_NUM_THREADS))
    try:
        with tqdm(
            total=2 * len(queries), desc="nearest records", unit="rec", disable=not progress
        ) as bar:
            m_t = top_matches(train, queries, n_codes, k=1, progress=bar)
            m_h = top_matches(holdout, queries, n_codes, k=2 if second_holdout else 1, progress=bar)
    finally:
        numba.set_num_threads(threads)
    d_t = np.empty(len(queries), dtype=np.int64)
    d_h = np.empty(len(queries), dtype=np.int64)
    d_t[order], d_h[order] = d - m_t, d - m_h
    return d_t, d_h


def _numpy_distances(train, holdout, uniq, second_holdout, n_jobs):
    n_uniq = len(uniq)
    bits = _TargetBits([train, holdout], uniq, _TILE_WORDS)
    starts = list(range(0, n_uniq, _BLOCK_ROWS))
    d_t = np.empty(n_uniq, dtype=np.int64)
    d_h = np.empty(n_uniq, dtype=np.int64)

    def run(chunk: list[int]) -> None:
        buf = _Buffers()
        for s in chunk:
            sl = slice(s, min(s + _BLOCK_ROWS, n_uniq))
            rows = bits.order[sl]
            d_t[rows], d_h[rows] = _block_distances(bits, sl, second_holdout, buf)

    n_jobs = min(n_jobs, len(starts))
    if n_jobs <= 1:
        run(starts)
    else:
        from joblib import Parallel, delayed

        n_chunks = min(len(starts), 8 * n_jobs)
        chunks = [starts[i::n_chunks] for i in range(n_chunks)]
        Parallel(n_jobs=n_jobs, prefer="threads")(delayed(run)(c) for c in chunks)
    return d_t, d_h


@dataclass(frozen=True, eq=False)
class DCRResult(ResultMixin):
    """Distances to closest records and the share closer to training (paper Sec. 2.2, Fig. 8).

    Attributes
    ----------
    d_train, d_holdout : numpy.ndarray of int64, shape (n_synthetic,)
        Hamming distance (number of differing attributes of the discretized records) of each
        synthetic record to its nearest training / holdout record (with
        ``synthetic_is_holdout``: the second nearest holdout record, i.e. itself excluded).
    share : float
        mean[d_train < d_holdout] + n_train / (n_train + n_holdout) · mean[d_train = d_holdout].
    n_closer, n_further, n_equal : int
        Synthetic records with d_train < d_holdout, >, =.
    mean_train, mean_holdout : float
        Mean of d_train and of d_holdout ("Avg DCR Train / Holdout").
    n_train, n_holdout : int
        Sizes of the training and holdout tables.
    synthetic_is_holdout : bool
        Whether the leave-self-out rule was used.
    bins : int
        Quantile bins of numeric columns.
    """

    d_train: np.ndarray
    d_holdout: np.ndarray
    share: float
    n_closer: int
    n_further: int
    n_equal: int
    mean_train: float
    mean_holdout: float
    n_train: int = 0
    n_holdout: int = 0
    synthetic_is_holdout: bool = False
    bins: int = DCR_BINS

    @property
    def n_synthetic(self) -> int:
        return len(self.d_train)

    def share_interval(self, confidence: float = 0.95) -> tuple[float, float]:
        """Interval of the share over the synthetic records: the t interval of the mean of the
        records' scores 1[d_train < d_holdout] + n_train / (n_train + n_holdout) ·
        1[d_train = d_holdout] (``scipy.stats.ttest_1samp``), clipped to [0, 1].

        It measures how far the synthetic sample's share may be from the share of its
        generator at these training and holdout tables (the nearest records are found among
        all of them, exactly). (nan, nan) for one record; (share, share) when every record
        scores the same.
        """
        from scipy import stats

        ratio = self.n_train / (self.n_train + self.n_holdout)
        scores = (self.d_train < self.d_holdout) + ratio * (self.d_train == self.d_holdout)
        if len(scores) < 2:
            return (float("nan"), float("nan"))
        if np.ptp(scores) == 0:
            return (self.share, self.share)
        ci = stats.ttest_1samp(scores, 0.5).confidence_interval(confidence)
        return (max(float(ci.low), 0.0), min(float(ci.high), 1.0))

    def histogram(self) -> pd.DataFrame:
        """Counts of synthetic records by distance: columns ``distance``, ``train``,
        ``holdout`` (one row per distance 0 … max)."""
        top = int(max(self.d_train.max(initial=0), self.d_holdout.max(initial=0)))
        return pd.DataFrame(
            {
                "distance": np.arange(top + 1),
                "train": np.bincount(self.d_train, minlength=top + 1),
                "holdout": np.bincount(self.d_holdout, minlength=top + 1),
            }
        )


def check_flag(value, name: str) -> bool:
    """Validate a flag: a Python or NumPy bool, returned as ``bool``.

    Raises
    ------
    TypeError
        ``value`` is not a bool (0 and 1 included), naming ``name``.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def dcr(
    train: pd.DataFrame,
    holdout: pd.DataFrame,
    synthetic: pd.DataFrame,
    *,
    bins: int = DCR_BINS,
    synthetic_is_holdout: bool = False,
    n_jobs: int | None = None,
) -> DCRResult:
    """Distance to closest record: synthetic vs training and vs holdout (``platzer2021``, §2.2).

    As ``priv()`` in the paper's ``privacy.ipynb`` [``mostlyai2024``]:

    1. numeric (and datetime) columns are cut into ``bins`` quantile bins of the **pooled**
       train + holdout + synthetic values (``pd.qcut(duplicates="drop")``: equal quantiles
       merge, so a column with few distinct values gets fewer bins), boolean and text columns
       are taken as they are; a missing value is a category of its own (the reference treats
       bool as numeric, see the module docstring);
    2. the distance of two records is the Hamming distance: the number of attributes whose
       categories differ (the reference's squared L2 distance of one-hot rows / 2);
    3. ``d_train[i]`` = distance of synthetic record i to its nearest training record,
       ``d_holdout[i]`` to its nearest holdout record — with ``synthetic_is_holdout`` the
       **second** smallest holdout distance, so that a holdout record scored as synthetic does
       not find itself (the reference's ``is_val``, faiss k = 2);
    4. share = mean[d_train < d_holdout] + n_train / (n_train + n_holdout) · mean[d_train =
       d_holdout] (ties are split in proportion to the table sizes; ≈ 50 % is ideal with equal
       halves).

    The search is exact (brute force, bit-sliced; see the module docstring), run in
    ``n_jobs`` threads over blocks of synthetic records; results do not depend on ``n_jobs``.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Tables with the same columns (any order; aligned to ``train``'s).
    bins : int, default 100
        Quantile bins of numeric columns (Figure 8: c = 100).
    synthetic_is_holdout : bool, default False
        Score the holdout itself: use the second nearest holdout record (needs ≥ 2 holdout
        rows). :func:`holdout_report` detects this case.
    n_jobs : int or None
        Threads; None or −1 = all cores.

    Returns
    -------
    DCRResult

    Raises
    ------
    TypeError
        Non-DataFrame input, non-integer ``bins`` or ``n_jobs``, non-bool flag.
    ValueError
        Empty table, different columns (named), all-missing column, different type classes of
        a column, infinite value, ``bins`` < 1, fewer than 2 holdout rows with
        ``synthetic_is_holdout``.
    """
    bins = check_bins(bins)
    synthetic_is_holdout = check_flag(synthetic_is_holdout, "synthetic_is_holdout")
    n_jobs = check_n_jobs(n_jobs)
    _, aligned, kinds = check_tables({"train": train, "holdout": holdout, "synthetic": synthetic})
    frames = [aligned[r] for r in ROLES]
    if synthetic_is_holdout and len(frames[1]) < 2:
        raise ValueError(
            "synthetic_is_holdout=True needs at least 2 holdout rows (the nearest holdout "
            f"record other than the record itself), got {len(frames[1])}"
        )
    t_codes, h_codes, s_codes = dcr_codes(frames, kinds, bins)
    d_t, d_h = nearest_distances(
        t_codes, h_codes, s_codes, second_holdout=synthetic_is_holdout, n_jobs=n_jobs
    )
    return dcr_result(d_t, d_h, len(t_codes), len(h_codes), synthetic_is_holdout, bins)


def dcr_result(d_t, d_h, n_t, n_h, is_holdout, bins) -> DCRResult:
    """Summarize the nearest-record distances into a :class:`DCRResult` (``platzer2021``, §2.2).

    share = mean[d_t < d_h] + n_t / (n_t + n_h) · mean[d_t = d_h]: ties are split in
    proportion to the table sizes, as step 4 of :func:`dcr`.

    Parameters
    ----------
    d_t, d_h : ndarray of int, shape (n_synthetic,)
        Distance of each synthetic record to its nearest training / holdout record.
    n_t, n_h : int
        Number of training and holdout records.
    is_holdout : bool
        Whether the holdout itself was scored (``synthetic_is_holdout``).
    bins : int
        Quantile bins of numeric columns used for the distances.
    """
    closer = d_t < d_h
    equal = d_t == d_h
    share = float(np.mean(closer) + n_t / (n_t + n_h) * np.mean(equal))
    return DCRResult(
        d_train=d_t,
        d_holdout=d_h,
        share=share,
        n_closer=int(closer.sum()),
        n_further=int((d_t > d_h).sum()),
        n_equal=int(equal.sum()),
        mean_train=float(d_t.mean()),
        mean_holdout=float(d_h.mean()),
        n_train=int(n_t),
        n_holdout=int(n_h),
        synthetic_is_holdout=bool(is_holdout),
        bins=int(bins),
    )
