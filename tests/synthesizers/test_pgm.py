"""Tests of ``synthtrust.synthesizers.pgm``.

The oracles and the shared set-up are described in ``_synthesizer_data.py``.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pandas as pd
import pytest
from _synthesizer_data import DOMAIN, SHAPE, _count_matrix, _gens, _table, _tvd

from synthtrust.privacy import PrivacyLedger
from synthtrust.synthesizers import (
    PrivatePGM,
    counts_to_frame,
    frame_to_counts,
    private_pgm,
)
from synthtrust.synthesizers.base import check_marginals

pgm_module = importlib.import_module("synthtrust.synthesizers.pgm")


# ----------------------------------------------------------------------------------------------
# Private-PGM
# ----------------------------------------------------------------------------------------------
def _joint(model):
    return np.asarray(model.project(("x0", "x1")).datavector())


def test_private_pgm_huge_epsilon_reproduces_the_two_way_marginal():
    df = _table(500, seed=5, sd=3.0)
    _, _, true = frame_to_counts(df, DOMAIN)
    synth = PrivatePGM(1e6, domain=DOMAIN, random_state=0).fit(df)
    assert _tvd(_joint(synth.model_), true) < 1e-5
    out = synth.sample_counts().ravel()
    assert out.sum() == 500 and np.abs(out - true).max() <= 1
    assert synth.ledger_.total_epsilon == pytest.approx(1e6, rel=1e-12)
    assert [e.scale for e in synth.ledger_] == pytest.approx([6e-6] * 3)
    assert synth.cliques_ == [("group",), ("value",), ("group", "value")]


def test_private_pgm_batched_equals_per_replicate_mbi():
    counts = _count_matrix(4, 1000, seed=6)
    cliques = check_marginals(None, 2)
    domain = pgm_module._domain(SHAPE)
    noisy, b = pgm_module._measure(counts, SHAPE, cliques, 1.0, _gens(4))
    sd, tot = math.sqrt(2) * b, counts.sum(axis=1).astype(float)
    batched = pgm_module._split_models(
        pgm_module._fit_batched(domain, noisy, cliques, sd, tot, 1000), 4
    )
    expected = []
    for i in range(4):
        single = pgm_module._fit_one(domain, [y[i] for y in noisy], cliques, sd, tot[i], 1000)
        np.testing.assert_allclose(_joint(batched[i]), _joint(single), rtol=0, atol=1e-6 * tot[i])
        expected.append(_joint(single))
    out_b = private_pgm(
        counts, 1.0, SHAPE, max_iter=1000, random_state=_gens(4)
    )  # vectorized rounding
    out_s = private_pgm(
        counts, 1.0, SHAPE, max_iter=1000, random_state=_gens(4), batched=False
    )  # mbi
    np.testing.assert_array_equal(out_b.sum(axis=1), 1000)
    # both are randomized roundings of the same model: every cell within 2 of its expected count
    # (±1 for the group total, ±1 for the stratified conditional draw)
    for out in (out_b, out_s):
        assert np.abs(out - np.asarray(expected)).max() < 2


def _mbi_round_counts(joint, rows, seed):
    """Reference: mbi's own synthetic_data(method="round") on a one-clique model of ``joint``."""
    mbi = pgm_module.import_mbi()
    import jax.numpy as jnp

    names = pgm_module._names(joint.ndim)
    domain = mbi.Domain(names, joint.shape)
    with np.errstate(divide="ignore"):
        factor = mbi.Factor(domain, jnp.log(joint))
    potentials = mbi.CliqueVector(domain=domain, cliques=[names], tables={names: factor})
    marginals = mbi.CliqueVector(
        domain=domain, cliques=[names], tables={names: mbi.Factor(domain, jnp.asarray(joint))}
    )
    model = mbi.MarkovRandomField(
        potentials=potentials, marginals=marginals, total=float(joint.sum())
    )
    return pgm_module._synthetic_counts(model, rows, seed, "round", joint.shape).reshape(
        joint.shape
    )


@pytest.mark.parametrize("shape, rows", [((2, 10), 37), ((3, 4, 5), 1000)])
def test_round_joint_counts_has_mbi_rounding_distribution(shape, rows):
    """The vectorized rounding equals mbi's synthetic_data("round") in distribution: same exact
    support (group totals floor/ceil of their quota, cells within 2 of rows·p) and the same mean
    (unbiased: the average over draws approaches rows·p for both)."""
    rng = np.random.default_rng(3)
    joint = rng.gamma(0.5, size=shape)
    joint[0, 0] = 0.0  # a zero cell is never drawn
    joint[-1] = 1e-12  # a trailing first-column value that is (almost) never drawn
    p = joint / joint.sum()
    domain = pgm_module._domain(shape)
    order = pgm_module._sampling_order(domain, (domain.attributes,))
    assert sorted(order) == list(range(len(shape)))
    assert pgm_module._sampling_order(domain, tuple((a,) for a in domain.attributes)) is None
    ours = np.stack(
        [
            pgm_module.round_joint_counts(joint, order, rows, np.random.default_rng(s))
            for s in range(400)
        ]
    )
    theirs = np.stack([_mbi_round_counts(joint, rows, s) for s in range(400)])
    first = order[0]
    quota = rows * p.sum(axis=tuple(a for a in range(len(shape)) if a != first))
    for draws in (ours, theirs):
        assert (draws.reshape(400, -1).sum(axis=1) == rows).all()
        assert (draws[:, 0, 0] == 0).all()
        totals = draws.sum(axis=tuple(a + 1 for a in range(len(shape)) if a != first))
        assert ((totals == np.floor(quota)) | (totals == np.floor(quota) + 1)).all()
        assert np.abs(draws - rows * p).max() < 2 + (len(shape) > 2)
        se = draws.std(axis=0).max() / np.sqrt(400)
        assert np.abs(draws.mean(axis=0) - rows * p).max() < 5 * se + 1e-9


def test_private_pgm_class_equals_functional_and_chunking():
    counts = _count_matrix(3, 400, seed=7)
    led = PrivacyLedger()
    whole = private_pgm(
        counts, 2.0, SHAPE, max_iter=500, random_state=_gens(3), ledger=led, batched=False
    )
    parts = np.vstack(
        [
            private_pgm(
                counts[:1], 2.0, SHAPE, max_iter=500, random_state=_gens(3)[:1], batched=False
            ),
            private_pgm(
                counts[1:], 2.0, SHAPE, max_iter=500, random_state=_gens(3)[1:], batched=False
            ),
        ]
    )
    np.testing.assert_array_equal(whole, parts)
    assert len(led) == 3 and led.total_epsilon == pytest.approx(2.0, rel=1e-12)
    df = counts_to_frame(counts[2], SHAPE, ["group", "value"], random_state=0)
    synth = PrivatePGM(2.0, domain=DOMAIN, max_iter=500, random_state=_gens(3)[2]).fit(df)
    np.testing.assert_array_equal(synth.sample_counts().ravel(), whole[2])
    # marginals by column name reach the mechanism: names in the data only, one ledger entry each
    named = PrivatePGM(
        2.0, domain=DOMAIN, marginals=[("group", "value")], max_iter=100, random_state=0
    ).fit(df)
    assert len(named.ledger_) == 1 and named.ledger_.total_epsilon == pytest.approx(2.0)
    with pytest.raises(ValueError, match="marginals name column 'age'"):
        PrivatePGM(2.0, domain=DOMAIN, marginals=[("age",)]).fit(df)
    np.testing.assert_array_equal(
        private_pgm(counts, 2.0, SHAPE, max_iter=500, n_synthetic=50, random_state=0).sum(axis=1),
        [50] * 3,
    )
    # the vmapped path: chunks of another batch size give the same counts (up to rounding ties)
    whole_b = private_pgm(counts, 2.0, SHAPE, max_iter=500, random_state=_gens(3))
    parts_b = np.vstack(
        [
            private_pgm(counts[:2], 2.0, SHAPE, max_iter=500, random_state=_gens(3)[:2]),
            private_pgm(counts[2:], 2.0, SHAPE, max_iter=500, random_state=_gens(3)[2:]),
        ]
    )
    assert np.abs(whole_b - parts_b).max() <= 1


def test_private_pgm_determinism_global_state_and_estimated_total():
    df = _table(300, seed=8)
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    a = PrivatePGM(1.0, domain=DOMAIN, max_iter=500, random_state=5).fit(df).sample()
    b = PrivatePGM(1.0, domain=DOMAIN, max_iter=500, random_state=5).fit(df).sample()
    pd.testing.assert_frame_equal(a, b)
    np.testing.assert_array_equal(
        np.random.get_state()[1], before
    )  # mbi's global draws were undone
    est = PrivatePGM(1.0, domain=DOMAIN, max_iter=500, total="estimate", random_state=5).fit(df)
    assert est.model_.total != 300 and abs(float(est.model_.total) - 300) < 60
    with pytest.raises(ValueError, match="synthetic_method"):
        PrivatePGM(1.0, synthetic_method="gibbs").fit(df)
    with pytest.raises(ValueError, match="max_iter must be >= 1, got 0"):
        private_pgm(np.ones(4, dtype=int), 1.0, (2, 2), max_iter=0)


def test_private_pgm_old_iters_keyword_is_a_type_error():
    """The package was never released: ``iters=`` (now ``max_iter=``) is refused, not mapped."""
    with pytest.raises(TypeError, match="unexpected keyword argument 'iters'"):
        private_pgm(np.ones(4, dtype=int), 1.0, (2, 2), iters=50)


def test_private_pgm_batched_on_three_columns_with_all_pairs():
    # three columns, all pairs: one junction-tree node but three model cliques (the batched path
    # used to read a pair as the whole table). The batched path fits the joint densely and
    # rounds it with round_joint_counts (tests/synthesizers/test_pgm_dense.py), batched=False
    # runs mbi: the same model, other random draws -- both randomized roundings of the model
    shape = (2, 3, 2)
    rng = np.random.default_rng(3)
    counts = rng.multinomial(300, np.full(12, 1 / 12), size=2)
    out = private_pgm(counts, 1.0, shape, max_iter=200, random_state=_gens(2))
    again = private_pgm(counts, 1.0, shape, max_iter=200, random_state=_gens(2), batched=False)
    cliques = check_marginals(None, 3)
    noisy, b = pgm_module._measure(counts, shape, cliques, 1.0, _gens(2))
    domain = pgm_module._domain(shape)
    for i in range(2):
        model = pgm_module._fit_one(
            domain, [y[i] for y in noisy], cliques, math.sqrt(2) * b, 300.0, 200
        )
        joint = np.asarray(model.project(domain.attributes).datavector())
        for synth in (out[i], again[i]):
            assert synth.sum() == 300 and np.abs(synth - joint).max() < 3
