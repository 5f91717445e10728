"""Several marginals of one array from shared partial sums.

A junction-tree node's array is summed onto every clique it hosts at each step of the numpy
mirror descent; on the Thyroid data a node of 2.4 M cells hosts seven cliques. Summed one clique
at a time, the node is read seven times. :class:`SharedReduction` sums out once the columns that
none of a group of cliques keeps, and sums the group's marginals from that smaller table,
recursively: the group is the cliques that drop the column the most of them drop (the data-cube
idea of computing a group-by from the smallest computed parent, Gray et al. 1997 [``gray1997``],
here greedy).
The sums are the same up to the order of the additions (a few ulps); a node hosting one clique
is summed exactly as before.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

_add_reduce = np.add.reduce


class SharedReduction:
    """Sum an array of shape ``shape`` onto each of ``keeps`` through shared partial sums.

    Parameters
    ----------
    shape : sequence of int
        Shape of the array to reduce (one axis a column).
    keeps : sequence of sequences of int
        Per marginal, the axes it keeps (ascending); ``()`` is the total, every axis a copy.

    Attributes
    ----------
    steps : list of (source, axes, target, final)
        The reductions in order: ``source`` None (the input) or a buffer index, the axes summed
        out of it, ``target`` a buffer index or, when ``final``, the index of the marginal.
    buffers : list of ndarray
        The intermediate tables, allocated once.
    cells_read : int
        Cells read by one call (the direct way reads ``len(keeps)`` times the array).

    Raises
    ------
    ValueError
        If a kept axis is outside ``shape`` or not ascending.

    Examples
    --------
    >>> import numpy as np
    >>> red = SharedReduction((2, 3, 4), [(0,), (0, 1), (1,)])
    >>> x = np.arange(24.0).reshape(2, 3, 4)
    >>> outs = [np.empty(2), np.empty((2, 3)), np.empty(3)]
    >>> red(x, outs)
    >>> outs[0], outs[2]
    (array([ 66., 210.]), array([ 60.,  92., 124.]))
    >>> red.cells_read, 3 * x.size   # axis 2 summed out once, then three small sums
    (42, 72)
    """

    def __init__(self, shape: Sequence[int], keeps: Sequence[Sequence[int]]):
        self.shape = tuple(int(s) for s in shape)
        targets = []
        for j, keep in enumerate(keeps):
            keep = tuple(int(a) for a in keep)
            if list(keep) != sorted(set(keep)) or any(not 0 <= a < len(self.shape) for a in keep):
                raise ValueError(
                    f"keeps[{j}] must be ascending axes of an array with {len(self.shape)} "
                    f"axes, got {keep!r}"
                )
            targets.append((j, frozenset(keep)))
        self.steps: list[tuple[int | None, tuple, int, bool]] = []
        self.buffers: list[np.ndarray] = []
        self.cells_read = 0
        self._plan(None, tuple(range(len(self.shape))), targets)

    def _plan(self, src: int | None, cols: tuple, targets: list) -> None:
        """Reductions of the table ``src`` (over the columns ``cols``) onto ``targets``."""
        union = frozenset().union(*(keep for _, keep in targets))
        if len(targets) > 1 and union != frozenset(cols):  # what no target keeps, summed once
            self.buffers.append(np.empty(tuple(self.shape[c] for c in cols if c in union)))
            self._add(src, cols, union, len(self.buffers) - 1, False)
            src, cols = len(self.buffers) - 1, tuple(c for c in cols if c in union)
        rest = list(targets)
        while len(rest) > 1:
            drop = max(cols, key=lambda c: (sum(c not in keep for _, keep in rest), self.shape[c]))
            group = [t for t in rest if drop not in t[1]]
            if len(group) < 2:
                break
            self._plan(src, cols, group)
            rest = [t for t in rest if drop in t[1]]
        for j, keep in rest:
            self._add(src, cols, keep, j, True)

    def _add(self, src: int | None, cols: tuple, keep: frozenset, target: int, final: bool):
        axes = tuple(t for t, c in enumerate(cols) if c not in keep)
        self.steps.append((src, axes, target, final))
        self.cells_read += math.prod(self.shape[c] for c in cols)

    def __call__(self, x: np.ndarray, outs: Sequence[np.ndarray]) -> None:
        """Write the marginals of ``x`` (shape ``shape``) into ``outs`` (one array a keep, its
        kept axes in order)."""
        buffers = self.buffers
        for src, axes, target, final in self.steps:
            a = x if src is None else buffers[src]
            out = outs[target] if final else buffers[target]
            if axes:
                _add_reduce(a, axis=axes, out=out)
            else:
                np.copyto(out, a)
