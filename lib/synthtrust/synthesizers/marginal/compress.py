"""MST's private domain compression: rare levels of each column, found from the noisy 1-way
marginals, are merged into one level, and codes are mapped to and from the compressed domain.

Source: McKenna, Miklau & Sheldon (JPC 2021) [``mckenna2021``], §4; ``compress_domain`` and
``undo_compress_fn`` of the reference ``mechanisms/mst.py`` of Private-PGM [``privatepgm2025``].
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from .measurement import Measurement


@dataclasses.dataclass(frozen=True, eq=False)
class Compression:
    """Per-column merge of rare levels (MST).

    Attributes
    ----------
    mapping : tuple of int64 arrays, one per column, shape (original levels,)
        ``mapping[i][v]`` = compressed code of original code ``v``.
    kept : tuple of int64 arrays
        ``kept[i][k]`` = original code of compressed code ``k < len(kept[i])``.
    merged : tuple of int64 arrays
        Original codes merged into the extra compressed code ``len(kept[i])`` (empty: none).
    sizes : tuple of int
        Compressed number of levels per column.
    """

    mapping: tuple
    kept: tuple
    merged: tuple
    sizes: tuple


def compress_domain(
    one_way: Sequence[Measurement], sizes: Sequence[int], threshold: float = 3.0
) -> tuple[Compression, list[Measurement]]:
    """MST's private domain compression from the noisy 1-way marginals (post-processing).

    For column ``i`` with noisy counts ``y`` and noise std ``s``, levels with ``y ≥ threshold·s``
    are kept (in their order); all other levels, if any, are merged into one extra level placed
    after the kept ones (so a column where nothing is kept becomes a single level). The 1-way
    measurement is re-expressed on the compressed levels: kept cells unchanged, the merged cell
    published as (Σ of its noisy cells)/√m with query weight 1/√m, so that its noise std stays
    ``s`` (m = number of merged levels; m = 1 needs no weight).

    Source: McKenna, Miklau & Sheldon (JPC 2021) [``mckenna2021``], §4; ``compress_domain`` of the
    reference ``mechanisms/mst.py`` of Private-PGM [``privatepgm2025``].

    Parameters
    ----------
    one_way : list of Measurement, ``one_way[i]`` the 1-way measurement of column ``i``
    sizes : original levels per column

    Returns
    -------
    (Compression, list of the compressed 1-way Measurements)
    """
    mapping, kept_all, merged_all, new_sizes, new_meas = [], [], [], [], []
    for i, m in enumerate(one_way):
        if m.clique != (i,) or m.values.size != sizes[i]:
            raise ValueError(f"one_way[{i}] must be the 1-way measurement of column {i}")
        keep = m.values >= threshold * m.stddev
        kept = np.flatnonzero(keep).astype(np.int64)
        merged = np.flatnonzero(~keep).astype(np.int64)
        mp = np.empty(sizes[i], dtype=np.int64)
        mp[kept] = np.arange(kept.size)
        if merged.size == 0:
            new_meas.append(m)
            new_sizes.append(int(sizes[i]))
        else:
            mp[merged] = kept.size
            k = merged.size
            y = np.concatenate([m.values[kept], [m.values[merged].sum() / math.sqrt(k)]])
            w = None if k == 1 else np.concatenate([np.ones(kept.size), [1.0 / math.sqrt(k)]])
            new_meas.append(Measurement((i,), y, m.stddev, w))
            new_sizes.append(int(kept.size + 1))
        mapping.append(mp)
        kept_all.append(kept)
        merged_all.append(merged)
    comp = Compression(tuple(mapping), tuple(kept_all), tuple(merged_all), tuple(new_sizes))
    return comp, new_meas


def compress_codes(X: np.ndarray, compression: Compression) -> np.ndarray:
    """Map original codes (rows, d) to compressed codes (rows, d): ``mapping[i]`` per column.

    Kept levels get their compressed code; every merged level of a column gets its one
    extra code (``mckenna2021``, §4). The inverse is :func:`decompress_codes`.
    """
    return np.column_stack([compression.mapping[i][X[:, i]] for i in range(X.shape[1])])


def decompress_codes(
    Xc: np.ndarray, compression: Compression, rng: np.random.Generator
) -> np.ndarray:
    """Map compressed codes back to original codes; a merged code becomes a uniformly random
    member of its merged set (drawn from ``rng``), as in the reference ``undo_compress_fn``."""
    out = np.empty_like(Xc)
    for i in range(Xc.shape[1]):
        kept, merged = compression.kept[i], compression.merged[i]
        col = Xc[:, i]
        if merged.size == 0:
            out[:, i] = kept[col]
            continue
        is_merged = col == kept.size
        res = np.empty(col.size, dtype=np.int64)
        res[~is_merged] = kept[col[~is_merged]]
        res[is_merged] = merged[rng.integers(0, merged.size, size=int(is_merged.sum()))]
        out[:, i] = res
    return out
