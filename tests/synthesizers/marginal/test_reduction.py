"""Tests of ``synthtrust.synthesizers.marginal.reduction``.

Oracles: ``np.add.reduce`` of the whole array onto each marginal, one call a marginal (the direct
way), on random arrays and on the Thyroid node that motivated the module; cells read counted by
hand; a Private-PGM fit with the direct reductions.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from _marginal_models import _assert_same_fit, _noisy_measurements

from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal import mirror_descent
from synthtrust.synthesizers.marginal.junction import _TreePlan
from synthtrust.synthesizers.marginal.mirror_descent import _NumpyMirrorDescent
from synthtrust.synthesizers.marginal.reduction import SharedReduction

#: shape (2, 2, 2, 3, 9, 10, 10, 10, 11) of the Thyroid junction-tree node of 2 376 000 cells
#: (PrivMRF at ε = 10) and the axes its seven potential cliques keep
THYROID_NODE = (2, 2, 2, 3, 9, 10, 10, 10, 11)
THYROID_KEEPS = [(0, 5, 6), (0, 5, 7), (2, 5, 6), (2, 4, 6), (7, 8), (4, 5), (6, 7)]


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
    md = _NumpyMirrorDescent(_TreePlan(sizes, cliques, by_size=True), cliques, ms)
    assert any(not final for _, red, _ in md.node_sums for *_, final in red.steps)
    shared = [fitter.fit(ms, iters=k) for k in (100, 300)]
    monkeypatch.setattr(mirror_descent, "SharedReduction", _Direct)
    direct = [fitter.fit(ms, iters=k) for k in (100, 300)]
    _assert_same_fit(shared, direct, cliques)
