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

:class:`SharedBroadcast` is the adjoint step, run just before: a node's log-potential is the sum
of its hosted potentials broadcast to the node. Added one at a time, each addition after the
first few writes the whole node; on Cardio at ε = 15 AIM's last model covers the full table,
and a node of 933 120 cells hosts 55 potentials. The potentials that all lack one column are added first in the table without it,
recursively, and the group's sum is broadcast once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

_add_reduce = np.add.reduce


def _axis_sets(lists: Sequence[Sequence[int]], name: str, ndim: int) -> list[frozenset]:
    """Each list of axes as a set, checked ascending and within ``ndim`` axes (ValueError
    naming ``name[j]`` otherwise)."""
    out = []
    for j, axes in enumerate(lists):
        axes = tuple(int(a) for a in axes)
        if list(axes) != sorted(set(axes)) or any(not 0 <= a < ndim for a in axes):
            raise ValueError(
                f"{name}[{j}] must be ascending axes of an array with {ndim} axes, got {axes!r}"
            )
        out.append(frozenset(axes))
    return out


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
        targets = list(enumerate(_axis_sets(keeps, "keeps", len(self.shape))))
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


class SharedBroadcast:
    """Sum arrays broadcast to shape ``shape`` through shared partial sums.

    Each term spans some axes of ``shape`` (its array has size 1 on the others). Greedily, the
    terms that lack the axis the most of them lack (at least two, the larger axis on a tie) are
    summed first on the union of their axes, recursively, and their sum enters the rest as one
    term; the remaining terms are added smallest first, each addition written on the union of
    the axes added so far, the last one into ``out``.

    Parameters
    ----------
    shape : sequence of int
        Shape of the sum.
    spans : sequence of sequences of int
        Per term, the axes it spans (ascending); at least one term.
    shared : bool, default True
        False: the terms added one at a time in their order, each addition written on the union
        of the axes so far (the package before shared sums; the reference of the tests and of
        ``benchmarks/bench_node_fill.py``).

    Attributes
    ----------
    spans : list of tuple of int
        The terms' axes.
    steps : list of (a, b, target)
        The additions in order: ``a`` and ``b`` a term (``("term", j)``) or an intermediate
        table (``("buffer", i)``), ``target`` a buffer index, or None for ``out``.
    buffers : list of ndarray
        The intermediate tables (size 1 on the axes they do not span), allocated once.
    cells_written : int
        Cells written by one call (additions, and the copy of a lone or partial sum into
        ``out``).

    Raises
    ------
    ValueError
        If ``spans`` is empty, or a span is not ascending axes of ``shape``.

    Examples
    --------
    >>> import numpy as np
    >>> fill = SharedBroadcast((2, 3, 4), [(0, 1), (1, 2), (0, 2), (0,)])
    >>> terms = [np.ones((2, 3, 1)), np.ones((1, 3, 4)), np.ones((2, 1, 4)), np.ones((2, 1, 1))]
    >>> out = np.empty((2, 3, 4))
    >>> fill(terms, out)
    >>> bool((out == 4).all())
    True
    >>> fill.cells_written, 3 * out.size   # (0,) joins (0, 1) before the broadcast
    (54, 72)
    """

    def __init__(self, shape: Sequence[int], spans: Sequence[Sequence[int]], shared: bool = True):
        self.shape = tuple(int(s) for s in shape)
        self.shared = bool(shared)
        if not spans:
            raise ValueError("spans must hold at least one term")
        sets = _axis_sets(spans, "spans", len(self.shape))
        items = [(("term", j), cols) for j, cols in enumerate(sets)]
        self.spans = [tuple(sorted(cols)) for _, cols in items]
        self.steps: list[tuple[tuple, tuple, int | None]] = []
        self.buffers: list[np.ndarray] = []
        self.cells_written = 0
        ref, _ = self._plan(items, final=True)
        self._last = ref
        if ref is not None:  # a lone term, or a sum short of some axes: copied into out
            self.cells_written += math.prod(self.shape)

    def _size(self, cols: frozenset) -> int:
        return math.prod(self.shape[c] for c in cols)

    def _plan(self, items: list, final: bool) -> tuple:
        """Additions summing ``items``; (reference to the sum or None when it is ``out``,
        its axes)."""
        items = list(items)
        while self.shared and len(items) > 2:
            union = frozenset().union(*(cols for _, cols in items))
            lack = max(
                union, key=lambda c: (sum(c not in cols for _, cols in items), self.shape[c])
            )
            group = [it for it in items if lack not in it[1]]
            if len(group) < 2:
                break
            items = [it for it in items if lack in it[1]] + [self._plan(group, final=False)]
        if self.shared:
            items.sort(key=lambda it: self._size(it[1]))
        acc = items[0]
        for n_added, item in enumerate(items[1:], start=2):
            cols = acc[1] | item[1]
            last = final and n_added == len(items) and len(cols) == len(self.shape)
            target = None
            if not last:
                self.buffers.append(
                    np.empty(tuple(s if c in cols else 1 for c, s in enumerate(self.shape)))
                )
                target = len(self.buffers) - 1
            self.steps.append((acc[0], item[0], target))
            self.cells_written += self._size(cols)
            acc = (None if target is None else ("buffer", target), cols)
        return acc

    def __call__(self, terms: Sequence[np.ndarray], out: np.ndarray) -> None:
        """Write the sum of ``terms`` (one array a span, broadcastable to ``shape``) into
        ``out``."""
        buffers = self.buffers

        def get(ref):
            return terms[ref[1]] if ref[0] == "term" else buffers[ref[1]]

        for a, b, target in self.steps:
            np.add(get(a), get(b), out=out if target is None else buffers[target])
        if self._last is not None:
            np.copyto(out, get(self._last))
