"""Tests of ``synthtrust.synthesizers.marginal.reduction``.

Oracles: ``np.add.reduce`` of the whole array onto each marginal, one call a marginal (the direct
way), on random arrays and on the Thyroid node that motivated the module; cells read counted by
hand; a Private-PGM fit with the direct reductions. For the broadcast sums: every term broadcast
to the whole shape and added in order (the direct way), cells written counted by hand, and
Private-PGM fits with the direct additions.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _marginal_models import _assert_same_fit, _noisy_measurements

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal import mirror_descent
from synthtrust.synthesizers.marginal.junction import TreePlan
from synthtrust.synthesizers.marginal.mirror_descent import NumpyMirrorDescent
from synthtrust.synthesizers.marginal.reduction import SharedBroadcast, SharedReduction

#: shape (2, 2, 2, 3, 9, 10, 10, 10, 11) of the Thyroid junction-tree node of 2 376 000 cells
#: (PrivMRF at ε = 10) and the axes its seven potential cliques keep
THYROID_NODE = (2, 2, 2, 3, 9, 10, 10, 10, 11)
THYROID_KEEPS = [(0, 5, 6), (0, 5, 7), (2, 5, 6), (2, 4, 6), (7, 8), (4, 5), (6, 7)]
#: the full Cardio table (1 866 240 cells) with a potential on every pair of its 12 columns: AIM's
#: last model at ε = 15 measures every pair (the package's junction tree splits the table into two
#: nodes of 933 120 cells, one hosting 55 potentials; ``benchmarks/bench_node_fill.py``)
CARDIO_NODE = (2, 2, 2, 2, 2, 3, 3, 5, 6, 6, 6, 6)
CARDIO_SPANS = list(itertools.combinations(range(len(CARDIO_NODE)), 2))


def _direct(x, keeps):
    return [
        np.add.reduce(x, axis=tuple(a for a in range(x.ndim) if a not in k))
        if len(k) < x.ndim
        else x.copy()
        for k in keeps
    ]


def _shared(x, keeps):
    red = SharedReduction(x.shape, keeps)
    outs = [np.full([x.shape[a] for a in k], np.nan) for k in keeps]
    red(x, outs)
    return red, outs


def test_docstring_example_by_hand():
    """Integer sums (exact in any order), checked by hand; axis 2 is summed out once."""
    red, outs = _shared(np.arange(24.0).reshape(2, 3, 4), [(0,), (0, 1), (1,)])
    np.testing.assert_array_equal(outs[0], [66.0, 210.0])
    np.testing.assert_array_equal(outs[1], [[6, 22, 38], [54, 70, 86]])
    np.testing.assert_array_equal(outs[2], [60.0, 92.0, 124.0])
    assert red.steps[0] == (None, (2,), 0, False)
    assert red.cells_read == 24 + 3 * 6


@pytest.mark.parametrize("seed", range(6))
def test_marginals_equal_direct_sums(seed):
    """Random shapes (3-6 axes) and 2-7 random keeps (the total, copies and repeats included):
    every marginal equals the direct sum up to rounding (rtol 1e-13), and the shared sums read
    no more cells than the direct way."""
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(1, 6, rng.integers(3, 7)).tolist())
    subsets = [
        c for r in range(len(shape) + 1) for c in itertools.combinations(range(len(shape)), r)
    ]
    keeps = [subsets[i] for i in rng.choice(len(subsets), rng.integers(2, 8))]
    x = rng.gamma(1.0, 1.0, shape)
    red, got = _shared(x, keeps)
    for g, w in zip(got, _direct(x, keeps), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=0.0)
    assert red.cells_read <= len(keeps) * x.size


def test_one_marginal_is_the_direct_sum_bit_for_bit():
    """A node that hosts one clique is summed by one ``np.add.reduce``: the same bits."""
    x = np.random.default_rng(1).gamma(1.0, 1.0, (3, 4, 5, 6))
    red, (got,) = _shared(x, [(1, 3)])
    assert red.steps == [(None, (0, 2), 0, True)]
    assert np.array_equal(got, np.add.reduce(x, axis=(0, 2)))


def test_thyroid_node_reads_a_fraction_of_the_direct_cells():
    """The seven cliques of the Thyroid node: 3.26 M cells read instead of 7 × 2.376 M = 16.6 M
    (by hand: the node once, to the 396 000-cell table without the two columns none keeps; that
    table twice; then tables of 36 000, 3 600, 2 000 and 1 800 cells); sums equal the direct
    ones."""
    red = SharedReduction(THYROID_NODE, THYROID_KEEPS)
    assert red.steps[0] == (None, (1, 3), 0, False)
    size = int(np.prod(THYROID_NODE))
    assert red.cells_read == size + 2 * 396_000 + 2 * 36_000 + 2 * 3_600 + 2 * 2_000 + 3 * 1_800
    assert red.cells_read < 1.4 * size
    x = np.random.default_rng(2).gamma(1.0, 1.0, THYROID_NODE)
    _, got = _shared(x, THYROID_KEEPS)
    for g, w in zip(got, _direct(x, THYROID_KEEPS), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("keep", [(2, 1), (0, 0), (3,), (-1,)])
def test_bad_keeps_are_refused(keep):
    with pytest.raises(ValueError, match=r"keeps\[1\] must be ascending axes of an array with 3"):
        SharedReduction((2, 3, 4), [(0,), keep])


class _Direct(SharedReduction):
    """The reductions before shared sums: every marginal summed from the whole array."""

    def _plan(self, src, cols, targets):
        for j, keep in targets:
            self._add(src, cols, keep, j, True)


def test_mirror_descent_with_shared_sums_is_the_same_fit(monkeypatch):
    """Private-PGM's numpy mirror descent on the pairwise cliques of a 7-column domain (junction
    tree nodes hosting up to 6 cliques): with shared sums and with one reduction a clique, the
    same iterates up to rounding (100 steps: log-potentials within 1e-12), and after 300 steps
    (where an Armijo test within rounding of a tie may go either way) the same model marginals
    within 1e-6 of the total."""
    sizes = (2, 5, 6, 5, 6, 5, 6)
    cliques = list(itertools.combinations(range(len(sizes)), 2))[::2]
    ms = _noisy_measurements(sizes, cliques)
    fitter = mg.PGMFitter(sizes, backend="numpy")
    md = NumpyMirrorDescent(TreePlan(sizes, cliques, by_size=True), cliques, ms)
    assert any(not final for _, red, _ in md.node_sums for *_, final in red.steps)
    shared = [fitter.fit(ms, max_iter=k) for k in (100, 300)]
    monkeypatch.setattr(mirror_descent, "SharedReduction", _Direct)
    direct = [fitter.fit(ms, max_iter=k) for k in (100, 300)]
    _assert_same_fit(shared, direct, cliques)


def _terms(shape, spans, rng):
    return [rng.normal(size=[n if a in span else 1 for a, n in enumerate(shape)]) for span in spans]


def _broadcast_direct(terms, shape):
    out = np.zeros(shape)
    for t in terms:
        out = out + t
    return out


def test_broadcast_docstring_example_by_hand():
    """Integer terms (exact in any order): the 1-axis term joins the (0, 1) term on 6 cells,
    then two additions on the whole 24 cells."""
    fill = SharedBroadcast((2, 3, 4), [(0, 1), (1, 2), (0, 2), (0,)])
    assert fill.steps[0] == (("term", 3), ("term", 0), 0)
    assert fill.steps[-1][2] is None and fill.cells_written == 6 + 24 + 24
    terms = [np.arange(n, dtype=float).reshape(s) for n, s in
             ((6, (2, 3, 1)), (12, (1, 3, 4)), (8, (2, 1, 4)), (2, (2, 1, 1)))]  # fmt: skip
    out = np.full((2, 3, 4), np.nan)
    fill(terms, out)
    np.testing.assert_array_equal(out, _broadcast_direct(terms, (2, 3, 4)))


@pytest.mark.parametrize("seed", range(8))
def test_broadcast_sums_equal_direct_sums(seed):
    """Random shapes (2-6 axes) and 1-9 random spans (empty, full and repeated ones included):
    the sum equals the direct one up to rounding (rtol 1e-13), written into ``out`` only, and
    no more cells are written than the direct way writes."""
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(1, 6, rng.integers(2, 7)).tolist())
    subsets = [
        c for r in range(len(shape) + 1) for c in itertools.combinations(range(len(shape)), r)
    ]
    spans = [subsets[i] for i in rng.choice(len(subsets), rng.integers(1, 10))]
    terms = _terms(shape, spans, rng)
    fill = SharedBroadcast(shape, spans)
    out = np.full(shape, np.nan)
    fill(terms, out)
    np.testing.assert_allclose(out, _broadcast_direct(terms, shape), rtol=1e-13, atol=1e-13)
    assert fill.cells_written <= max(1, len(spans) - 1) * out.size + out.size


def test_one_term_is_copied_and_two_are_one_addition():
    rng = np.random.default_rng(3)
    t = _terms((3, 4, 5), [(0, 2)], rng)
    fill, out = SharedBroadcast((3, 4, 5), [(0, 2)]), np.empty((3, 4, 5))
    fill(t, out)
    assert fill.steps == [] and np.array_equal(out, np.broadcast_to(t[0], out.shape))
    two = _terms((3, 4, 5), [(0, 1), (1, 2)], rng)
    fill = SharedBroadcast((3, 4, 5), [(0, 1), (1, 2)])
    fill(two, out)
    assert fill.steps == [(("term", 0), ("term", 1), None)] and fill.cells_written == 60
    assert np.array_equal(out, two[0] + two[1])


def _chain(shape, spans):
    """The node fill before shared sums: the terms added one at a time, in order."""
    return SharedBroadcast(shape, spans, shared=False)


def test_cardio_node_writes_a_fraction_of_the_direct_cells():
    """66 potentials on the full Cardio table: added one at a time, the table is written 56
    times (every addition once the union spans it); with shared sums 2.6 times; the same sum."""
    size = int(np.prod(CARDIO_NODE))
    fill, chain = SharedBroadcast(CARDIO_NODE, CARDIO_SPANS), _chain(CARDIO_NODE, CARDIO_SPANS)
    assert fill.cells_written < 2.7 * size and chain.cells_written > 56 * size
    rng = np.random.default_rng(4)
    terms = _terms(CARDIO_NODE, CARDIO_SPANS, rng)
    out, old = np.empty(CARDIO_NODE), np.empty(CARDIO_NODE)
    fill(terms, out)
    chain(terms, old)
    np.testing.assert_array_equal(old, _broadcast_direct(terms, CARDIO_NODE))  # same order
    np.testing.assert_allclose(out, old, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("span", [(2, 1), (0, 0), (3,), (-1,)])
def test_bad_spans_are_refused(span):
    with pytest.raises(ValueError, match=r"spans\[1\] must be ascending axes of an array with 3"):
        SharedBroadcast((2, 3, 4), [(0,), span])
    with pytest.raises(ValueError, match="at least one term"):
        SharedBroadcast((2, 3, 4), [])


def test_mirror_descent_with_shared_broadcast_sums_is_the_same_fit(monkeypatch):
    """The same Private-PGM fit as above, with the node log-potentials from shared broadcast
    sums and from the terms added one at a time: the same iterates up to rounding (100 steps)
    and the same model marginals after 300."""
    sizes = (2, 5, 6, 5, 6, 5, 6)
    cliques = list(itertools.combinations(range(len(sizes)), 2))[::2]
    ms = _noisy_measurements(sizes, cliques)
    fitter = mg.PGMFitter(sizes, backend="numpy")
    md = NumpyMirrorDescent(TreePlan(sizes, cliques, by_size=True), cliques, ms)
    fills = [f for f in md.node_fill if f is not None]
    assert any(f.steps != _chain(f.shape, f.spans).steps for f in fills)
    shared = [fitter.fit(ms, max_iter=k) for k in (100, 300)]
    monkeypatch.setattr(mirror_descent, "SharedBroadcast", _chain)
    chained = [fitter.fit(ms, max_iter=k) for k in (100, 300)]
    _assert_same_fit(shared, chained, cliques)
