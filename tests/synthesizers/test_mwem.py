"""Tests of ``synthtrust.synthesizers.mwem``.

The oracles and the shared set-up are described in ``_synthesizer_data.py``.
"""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from _synthesizer_data import DOMAIN, SHAPE, _count_matrix, _gens, _tvd
from scipy import stats

from synthtrust.privacy import PrivacyLedger
from synthtrust.synthesizers import (
    MWEM,
    counts_to_frame,
    marginal_queries,
    mwem_counts,
    mwem_histogram,
)
from synthtrust.synthesizers.base import check_marginals

mwem_module = importlib.import_module("synthtrust.synthesizers.mwem")


# ----------------------------------------------------------------------------------------------
# MWEM
# ----------------------------------------------------------------------------------------------
def _reference_queries(shape):
    cells = list(itertools.product(*[range(k) for k in shape]))
    cliques = [(a,) for a in range(len(shape))] + list(itertools.combinations(range(len(shape)), 2))
    rows = []
    for cl in cliques:
        for vals in itertools.product(*[range(shape[a]) for a in cl]):
            rows.append(
                [all(cell[a] == v for a, v in zip(cl, vals, strict=True)) for cell in cells]
            )
    return np.array(rows, dtype=float)


def _mwem_reference(c, eps, shape, T, repetitions, rng):
    """Hardt et al. (2012) MWEM in linear space, one replicate, plain loops (each round draws the
    selection's Gumbel variables, then the measurement's Laplace noise)."""
    Q = _reference_queries(shape)
    n = c.sum()
    A = np.full(c.size, n / c.size)
    measured = []

    def update(q, m):
        nonlocal A
        A = A * np.exp(Q[q] * (m - Q[q] @ A) / (2 * n))
        A = n * A / A.sum()

    for _ in range(T):
        score = np.abs(Q @ A - Q @ c)
        logits = eps / (2 * T) * score / 2 + rng.gumbel(size=len(Q))
        for q, _ in measured:
            logits[q] = -np.inf
        q = int(np.argmax(logits))
        measured.append((q, Q[q] @ c + rng.laplace(0.0, 2 * T / eps)))
        update(*measured[-1])
        for _ in range(repetitions):
            for qm in measured:
                update(*qm)
    return A


def test_marginal_queries_match_reference_enumeration():
    for shape in [(2, 3), (3,), (2, 2, 3)]:
        np.testing.assert_array_equal(marginal_queries(shape), _reference_queries(shape))


def test_mwem_equals_reference_loop():
    shape = (2, 3)
    counts = np.random.default_rng(0).multinomial(60, np.full(6, 1 / 6), size=5)
    for eps, T, reps in [(1.0, 4, 3), (5.0, 6, 0), (0.3, 2, 10)]:
        hist = mwem_histogram(
            counts, eps, shape, iterations=T, repetitions=reps, random_state=_gens(5)
        )
        for i, rng in enumerate(_gens(5)):
            ref = _mwem_reference(counts[i], eps, shape, T, reps, rng)
            np.testing.assert_allclose(hist[i], ref, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(hist.sum(axis=1), 60)


def test_mwem_huge_epsilon_converges_to_the_data():
    counts = _count_matrix(3, 2000, seed=2)
    q = len(marginal_queries(SHAPE))  # 32 queries
    hist = mwem_histogram(counts, 1e6, SHAPE, iterations=q, repetitions=30, random_state=_gens(3))
    for i in range(3):
        assert _tvd(hist[i], counts[i]) < 1e-3
    # fewer rounds than cells: only the measured queries are fitted
    few = mwem_histogram(counts, 1e6, SHAPE, iterations=3, random_state=_gens(3))
    assert all(_tvd(few[i], counts[i]) > _tvd(hist[i], counts[i]) for i in range(3))


def test_mwem_tiny_epsilon_ignores_the_data():
    a = _count_matrix(50, 500, seed=3)
    b = _count_matrix(50, 500, seed=4)
    ha = mwem_histogram(a, 1e-9, SHAPE, random_state=_gens(50))
    hb = mwem_histogram(b, 1e-9, SHAPE, random_state=_gens(50))
    assert max(_tvd(x, y) for x, y in zip(ha, hb, strict=True)) < 1e-6
    # the first selection is uniform over the 32 queries
    reps = 3200
    counts = np.tile(a[0], (reps, 1))
    queries = mwem_module._Queries(SHAPE, check_marginals(None, 2))
    _, chosen, _ = mwem_module._mwem_core(counts, 1e-9, queries, 1, 0, _gens(reps))
    assert stats.chisquare(np.bincount(chosen[:, 0], minlength=32)).pvalue > 0.001


def test_mwem_sampling_chunking_class_and_ledger():
    counts = _count_matrix(5, 300)
    led = PrivacyLedger()
    whole = mwem_counts(counts, 2.0, SHAPE, random_state=_gens(5), ledger=led)
    assert whole.dtype == np.int64
    np.testing.assert_array_equal(whole.sum(axis=1), 300)
    parts = np.vstack(
        [
            mwem_counts(counts[:2], 2.0, SHAPE, random_state=_gens(5)[:2]),
            mwem_counts(counts[2:], 2.0, SHAPE, random_state=_gens(5)[2:]),
        ]
    )
    np.testing.assert_array_equal(whole, parts)
    assert len(led) == 20 and led.total_epsilon == pytest.approx(2.0, rel=1e-12)
    assert {e.epsilon for e in led} == {0.1}
    df = counts_to_frame(counts[1], SHAPE, ["group", "value"], random_state=0)
    synth = MWEM(2.0, domain=DOMAIN, random_state=_gens(5)[1]).fit(df)
    np.testing.assert_array_equal(synth.sample_counts().ravel(), whole[1])
    assert synth.ledger_.total_epsilon == pytest.approx(2.0, rel=1e-12)
    assert len(synth.queries_) == 10 and synth.queries_[0].startswith("count(")
    assert synth.histogram_.sum() == pytest.approx(300)
    assert len(synth.sample(123)) == 123
    restricted = MWEM(2.0, domain=DOMAIN, marginals=[("value",)], iterations=5, random_state=0).fit(
        df
    )
    assert all(q.startswith("count(value=") for q in restricted.queries_)
    with pytest.raises(ValueError, match="'age'"):
        MWEM(2.0, domain=DOMAIN, marginals=[("age",)]).fit(df)
