"""Exact nearest Hamming neighbours of millions of records: a compiled bit-sliced kernel.

The DCR of ``platzer2021`` (Sec. 2.2) needs, for every query record, the largest number of
attributes it shares with a target record (its Hamming distance is ``d`` minus that count),
over *every* target: a sample of the targets is not the paper's statistic. At 10⁶ queries and
2 · 10⁶ targets that is 2 · 10¹² pairs, so the work per pair must be a fraction of a machine
instruction.

Bit slicing. Targets are bits: target ``i`` is bit ``i % 64`` of word ``i // 64``. For column
``j`` and value ``v`` one row of words holds the targets whose column ``j`` is ``v``; a query
picks one row per column. The ``d`` rows it picks are added as 1-bit numbers by a tree of
carry-save (full) adders, 64 targets a word and one adder for three inputs, into ⌊log₂ d⌋ + 1
bit planes of the match count; the planes are compared with the query's running threshold,
again bitwise. The adder tree is generated for each ``d`` and compiled by numba with every
column unrolled, so the loop over words is the innermost loop and is vectorized (with AVX-512,
512 targets an instruction; a full adder is two ``vpternlog`` instructions).

Exactness. The kernel finds the targets whose count exceeds the threshold (the best count so
far, or the second best with ``k = 2``); each is verified by comparing its codes with the
query's and the best counts are updated. A column with more than :data:`HASH_ROWS` values
shares rows between values (``value % HASH_ROWS``): its bit then overstates the match for a
few targets, never understates it, so no target that beats the threshold is missed, and the
verification discards the false ones. The first :data:`SEED_TARGETS` targets are verified up
front to start the threshold above zero (and skipped by the scan).

Tiling. Targets are cut into tiles of :data:`TILE_WORDS` words (2 048 targets); the queries of
a chunk of :data:`CHUNK_QUERIES` run through a tile while its rows are in the L2 cache.
Chunks run in numba threads; every query's result is independent of the others, so results
do not depend on the number of threads.

Measured on a 2-core AMD EPYC (AVX-512) with the 50-column tables of
``benchmarks/bench_fidelity_scale.py``: 1 000 000 queries against 2 000 000 targets in 230 s,
about 9 · 10⁹ pairs a second; ``synthtrust fidelity`` on three tables of 1 000 000 rows in
9 min 17 s with 4.6 GB peak memory (``benchmarks/README.md``). The numpy kernel of
:mod:`~synthtrust.fidelity.closest` needs no compilation and is used below
:data:`~synthtrust.fidelity.closest.COMPILED_MIN_WORK`.

Libraries checked before writing this (2026-11): faiss' ``IndexBinaryFlat`` compares one-hot
bit codes (about 3 000 bits a record here, so 47 popcounts a pair); scikit-learn's and
pynndescent's Hamming searches are tree-based or approximate.
"""

from __future__ import annotations

import numba
import numpy as np

#: Largest number of rows (values) of one column; larger columns share rows (see above).
HASH_ROWS = 128
#: Words (64 targets each) in a tile.
TILE_WORDS = 32
#: Queries that run through a tile together (1 024, 2 048, 8 192 measured slower at d = 50).
CHUNK_QUERIES = 4096
#: Targets verified before the scan, to start the threshold.
SEED_TARGETS = 64

_SCANS: dict[int, object] = {}


def _adder_tree(names: list[str]) -> tuple[list[str], list[str]]:
    """Statements adding the 1-bit inputs ``names`` with full and half adders, and the
    variables of the sum's bit planes (least significant first)."""
    levels = [list(names)]
    lines: list[str] = []
    count = 0
    w = 0
    while w < len(levels):
        level = levels[w]
        while len(level) >= 2:
            if len(levels) == w + 1:
                levels.append([])
            s, c = f"s{count}", f"c{count}"
            count += 1
            if len(level) >= 3:
                a, b, e = level.pop(0), level.pop(0), level.pop(0)
                # no shared subexpression: each output is one three-input instruction
                lines += [
                    f"{s} = {a} ^ {b} ^ {e}",
                    f"{c} = ({a} & {b}) | ({a} & {e}) | ({b} & {e})",
                ]
            else:
                a, b = level.pop(0), level.pop(0)
                lines += [f"{s} = {a} ^ {b}", f"{c} = {a} & {b}"]
            level.append(s)
            levels[w + 1].append(c)
        w += 1
    return lines, [level[0] for level in levels]


def _scan_source(d: int) -> str:
    """Source of ``scan(T, rows, threshold, hits) -> any hit`` for ``d`` columns: for every
    word of the tile ``T`` (rows × words), the bitset of the targets whose match count with
    the query (rows ``rows`` of ``T``) exceeds ``threshold``, into ``hits``."""
    lines, planes = _adder_tree([f"x{j}" for j in range(d)])
    pad = " " * 8
    src = ["def scan(T, rows, threshold, hits):"]
    src += [f"    r{j} = rows[{j}]" for j in range(d)]
    src += [
        f"    m{b} = np.uint64(0) - np.uint64((threshold >> {b}) & 1)" for b in range(len(planes))
    ]
    src += ["    found = np.uint64(0)", "    for w in range(T.shape[1]):"]
    src += [f"{pad}x{j} = T[r{j}, w]" for j in range(d)]
    src += [pad + line for line in lines]
    src += [f"{pad}gt = np.uint64(0)", f"{pad}eq = ~np.uint64(0)"]
    for b in range(len(planes) - 1, -1, -1):  # count > threshold, most significant bit first
        src += [f"{pad}gt |= eq & {planes[b]} & ~m{b}", f"{pad}eq &= ~({planes[b]} ^ m{b})"]
    src += [f"{pad}hits[w] = gt", f"{pad}found |= gt", "    return found"]
    return "\n".join(src)


def _scan(d: int):
    """The compiled scan for ``d`` columns (compiled once per process and ``d``)."""
    if d not in _SCANS:
        namespace = {"np": np}
        exec(compile(_scan_source(d), f"<hamming scan d={d}>", "exec"), namespace)
        _SCANS[d] = numba.njit(inline="always")(namespace["scan"])
    return _SCANS[d]


@numba.njit(cache=True)
def _matches(q, t):
    count = 0
    for j in range(q.shape[0]):
        count += q[j] == t[j]
    return count


@numba.njit(cache=True)
def _push(count, best1, best2, k):
    """The top ``k`` (1 or 2) counts, as a multiset, after adding ``count``."""
    if k == 1:
        return max(best1, count), best2
    if count > best1:
        return count, best1
    return best1, max(best2, count)


@numba.njit(parallel=True)
def _search(scan, tables, rows, queries, targets, k, best1, best2, seed, chunk):
    n_q = rows.shape[0]
    n_tiles, _, words = tables.shape
    n_t = targets.shape[0]
    for c in numba.prange((n_q + chunk - 1) // chunk):
        q0 = c * chunk
        q1 = min(n_q, q0 + chunk)
        hits = np.empty(words, np.uint64)
        for qi in range(q0, q1):
            b1, b2 = -1, -1
            for i in range(min(seed, n_t)):
                b1, b2 = _push(_matches(queries[qi], targets[i]), b1, b2, k)
            best1[qi], best2[qi] = b1, b2
        for t in range(n_tiles):
            tile = tables[t]
            for qi in range(q0, q1):
                if scan(tile, rows[qi], best1[qi] if k == 1 else best2[qi], hits) == 0:
                    continue
                b1, b2 = best1[qi], best2[qi]
                for w in range(words):
                    g = hits[w]
                    if g == 0:
                        continue
                    base = (t * words + w) * 64
                    for bit in range(64):
                        i = base + bit
                        if (g >> np.uint64(bit)) & np.uint64(1) and seed <= i < n_t:
                            b1, b2 = _push(_matches(queries[qi], targets[i]), b1, b2, k)
                best1[qi], best2[qi] = b1, b2


@numba.njit(cache=True)
def _fill(tables, targets, offsets, width):
    words = tables.shape[2]
    for i in range(targets.shape[0]):
        t, w = divmod(i >> 6, words)
        bit = np.uint64(1) << np.uint64(i & 63)
        for j in range(targets.shape[1]):
            tables[t, offsets[j] + targets[i, j] % width[j], w] |= bit


def top_matches(
    targets: np.ndarray,
    queries: np.ndarray,
    n_codes: np.ndarray,
    *,
    k: int,
    progress=None,
) -> np.ndarray:
    """The k-th largest number of equal attributes (k = 1 or 2, ties counted as a multiset)
    between each query and the targets.

    Parameters
    ----------
    targets : (n_t, d) int32 array of codes ≥ 0; n_t ≥ k.
    queries : (n_q, d) int32 array of codes ≥ 0.
    n_codes : (d,) array, the number of codes of each column (every code is below it).
    k : 1 or 2.
    progress : tqdm bar or None, advanced by the queries done.

    Returns
    -------
    (n_q,) int64 array; ``d`` minus it is the Hamming distance to the k-th nearest target.
    Threads: numba's (``numba.set_num_threads``).
    """
    d = targets.shape[1]
    width = np.minimum(np.asarray(n_codes, dtype=np.int64), HASH_ROWS)
    offsets = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.int64)
    words = (len(targets) + 63) // 64
    tables = np.zeros((-(-words // TILE_WORDS), int(width.sum()), TILE_WORDS), dtype=np.uint64)
    _fill(tables, targets, offsets, width)
    rows = offsets + queries % width
    best1 = np.empty(len(queries), dtype=np.int64)
    best2 = np.empty(len(queries), dtype=np.int64)
    scan = _scan(d)
    step = CHUNK_QUERIES * 16
    for s in range(0, len(queries), step):
        e = min(s + step, len(queries))
        _search(
            scan, tables, rows[s:e], queries[s:e], targets, k, best1[s:e], best2[s:e],
            SEED_TARGETS, CHUNK_QUERIES,
        )  # fmt: skip
        if progress is not None:
            progress.update(e - s)
    return best1 if k == 1 else best2
