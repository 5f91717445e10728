"""Tests of synthtrust.synthesizers against brute-force per-replicate oracles, exact formulas and
limiting behaviour (huge / tiny ε)."""

from __future__ import annotations

import importlib
import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.privacy import PrivacyLedger, exponential_mechanism_probabilities
from synthtrust.synthesizers import (
    MWEM,
    NotFittedError,
    PerturbedHistogram,
    PrivatePGM,
    SmoothedHistogram,
    counts_to_frame,
    frame_to_counts,
    largest_remainder,
    marginal_queries,
    mwem_counts,
    mwem_histogram,
    perturbed_histogram,
    private_pgm,
    smoothed_histogram,
    smoothed_histogram_probabilities,
)
from synthtrust.synthesizers.base import check_marginals

mwem_module = importlib.import_module("synthtrust.synthesizers.mwem")
pgm_module = importlib.import_module("synthtrust.synthesizers.pgm")

DOMAIN = {"group": 2, "value": 10}
SHAPE = (2, 10)


def _table(n, seed=0, sd=2.0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "group": rng.integers(0, 2, n),
            "value": np.clip(np.round(rng.normal(4.5, sd, n)), 0, 9).astype(int),
        }
    )


def _count_matrix(reps, n, seed=0):
    rng = np.random.default_rng(seed)
    p = np.r_[np.linspace(1, 3, 10), np.linspace(3, 1, 10)]
    return rng.multinomial(n, p / p.sum(), size=reps)


def _gens(reps, offset=0):
    return [np.random.default_rng(1000 + offset + i) for i in range(reps)]


def _tvd(a, b):
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    return 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()


# ----------------------------------------------------------------------------------------------
# tables <-> counts, validation
# ----------------------------------------------------------------------------------------------
def test_frame_counts_round_trip():
    df = _table(300)
    cols, dom, counts = frame_to_counts(df, DOMAIN)
    assert cols == ["group", "value"] and dom == DOMAIN and counts.shape == (20,)
    brute = np.zeros(SHAPE, int)
    for g, v in zip(df["group"], df["value"], strict=True):
        brute[g, v] += 1
    np.testing.assert_array_equal(counts, brute.ravel())
    back = counts_to_frame(counts, SHAPE, cols, random_state=0)
    assert len(back) == 300 and list(back.columns) == cols
    np.testing.assert_array_equal(frame_to_counts(back, DOMAIN)[2], counts)


@pytest.mark.parametrize("Synth", [PerturbedHistogram, SmoothedHistogram, MWEM, PrivatePGM])
def test_bad_inputs_raise_clear_errors(Synth):
    df = _table(50)
    with pytest.raises(ValueError, match="epsilon"):
        Synth(epsilon=0.0, domain=DOMAIN).fit(df)
    with pytest.raises(ValueError, match="epsilon"):
        Synth(epsilon=-1.0, domain=DOMAIN).fit(df)
    with pytest.raises(TypeError, match="epsilon"):
        Synth(epsilon="1", domain=DOMAIN).fit(df)
    synth = Synth(epsilon=1.0, domain=DOMAIN, random_state=0)
    with pytest.raises(NotFittedError):
        synth.sample(5)
    with pytest.raises(ValueError, match="'value' has code 10, outside the domain 0..9"):
        synth.fit(df.assign(value=df["value"] + 1 * (df.index == 3) * (10 - df["value"])))
    with pytest.raises(ValueError, match="'value' has code -1"):
        synth.fit(df.assign(value=np.where(df.index == 0, -1, df["value"])))
    with pytest.raises(ValueError, match="'group' has 1 missing"):
        synth.fit(df.assign(group=np.where(df.index == 2, np.nan, df["group"])))
    with pytest.raises(ValueError, match="non-integer"):
        synth.fit(df.assign(value=df["value"] + 0.5))
    with pytest.raises(TypeError, match="'group' has dtype"):
        synth.fit(df.assign(group=df["group"].astype(str)))
    with pytest.raises(ValueError, match="no rows"):
        synth.fit(df.iloc[:0])
    with pytest.raises(TypeError, match="DataFrame"):
        synth.fit(df.to_numpy())
    with pytest.raises(ValueError, match=r"columns \['extra'\] of the data are not in the domain"):
        synth.fit(df.assign(extra=0))
    with pytest.raises(ValueError, match=r"domain columns \['value'\] are not in the data"):
        synth.fit(df[["group"]])
    with pytest.raises(ValueError, match="domain"):
        Synth(epsilon=1.0, domain={"group": 0, "value": 10}).fit(df)
    synth.fit(df)
    with pytest.raises(ValueError, match="n must be >= 1"):
        synth.sample(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        synth.sample(2.5)


def test_inferring_the_domain_warns():
    with pytest.warns(UserWarning, match="NOT differentially private"):
        synth = PerturbedHistogram(epsilon=1.0, random_state=0).fit(_table(40))
    assert synth.domain_ == {"group": 2, "value": int(_table(40)["value"].max()) + 1}


def test_functional_forms_validate_counts_and_generators():
    counts = _count_matrix(3, 100)
    with pytest.raises(ValueError, match="non-negative integer"):
        perturbed_histogram(counts - 1000, 1.0)
    with pytest.raises(ValueError, match="no records"):
        perturbed_histogram(np.zeros((2, 20)), 1.0)
    with pytest.raises(ValueError, match="3 replicates"):
        perturbed_histogram(counts, 1.0, random_state=_gens(2))
    with pytest.raises(ValueError, match="rounding"):
        perturbed_histogram(counts, 1.0, rounding="nearest")
    with pytest.raises(ValueError, match="shape"):
        mwem_counts(counts, 1.0, (3, 10))
    with pytest.raises(ValueError, match="iterations=40 exceeds"):
        mwem_counts(counts, 1.0, SHAPE, iterations=40)
    with pytest.raises(ValueError, match="epsilon"):
        smoothed_histogram(counts, -1.0, 10)
    with pytest.raises(ValueError, match="total"):
        private_pgm(counts, 1.0, SHAPE, total="known")


# ----------------------------------------------------------------------------------------------
# largest remainder
# ----------------------------------------------------------------------------------------------
def _largest_remainder_brute(w, n, u):
    w = np.asarray(w, float)
    if w.sum() == 0:
        w = np.ones_like(w)
    quota = w / w.sum() * n
    base = np.floor(quota).astype(int)
    left = n - base.sum()
    order = sorted(range(len(w)), key=lambda j: (-(quota[j] - base[j]), u[j]))
    for j in order[:left]:
        base[j] += 1
    return base


def test_largest_remainder_matches_brute_force_and_sums_to_n():
    rng = np.random.default_rng(0)
    for _ in range(200):
        cells = int(rng.integers(1, 15))
        w = rng.integers(0, 6, cells).astype(float) * rng.choice([1.0, 0.37])
        n = int(rng.integers(0, 60))
        u = rng.random(cells)
        out = largest_remainder(w, n, u)
        assert out.sum() == n and out.dtype == np.int64
        np.testing.assert_array_equal(out, _largest_remainder_brute(w, n, u))
        if w.sum() > 0:
            quota = w / w.sum() * n
            assert np.all(out >= np.floor(quota)) and np.all(out <= np.ceil(quota))


def test_largest_remainder_all_zero_is_uniform_and_ties_are_random():
    np.testing.assert_array_equal(
        largest_remainder(np.zeros(4), 8, np.random.default_rng(0).random(4)), [2] * 4
    )
    rng = np.random.default_rng(1)
    picks = np.array([largest_remainder(np.ones(4), 1, rng.random(4)) for _ in range(4000)])
    assert picks.sum(axis=1).tolist() == [1] * 4000
    assert stats.chisquare(picks.sum(axis=0)).pvalue > 0.001  # every tied cell equally likely


# ----------------------------------------------------------------------------------------------
# perturbed histogram
# ----------------------------------------------------------------------------------------------
def test_perturbed_histogram_equals_per_replicate_loop():
    counts = _count_matrix(25, 300)
    eps = 0.7
    out = perturbed_histogram(counts, eps, random_state=_gens(25))
    assert out.shape == counts.shape and out.dtype == np.int64
    np.testing.assert_array_equal(out.sum(axis=1), counts.sum(axis=1))
    for i, rng in enumerate(_gens(25)):
        p = 1 - math.exp(-eps / 2)
        g1, g2 = rng.geometric(p, 20), rng.geometric(p, 20)
        noisy = np.maximum(counts[i] + g1 - g2, 0)
        u = rng.random(20)
        np.testing.assert_array_equal(out[i], _largest_remainder_brute(noisy, counts[i].sum(), u))


def test_perturbed_histogram_chunking_class_and_n_synthetic():
    counts = _count_matrix(6, 200)
    whole = perturbed_histogram(counts, 1.0, random_state=_gens(6))
    parts = np.vstack(
        [
            perturbed_histogram(counts[:4], 1.0, random_state=_gens(6)[:4]),
            perturbed_histogram(counts[4:], 1.0, random_state=_gens(6)[4:]),
        ]
    )
    np.testing.assert_array_equal(whole, parts)
    # the estimator gives the same counts as the functional form for the same generator
    for i in (0, 5):
        df = counts_to_frame(counts[i], SHAPE, ["group", "value"], random_state=0)
        synth = PerturbedHistogram(1.0, domain=DOMAIN, random_state=_gens(6)[i]).fit(df)
        np.testing.assert_array_equal(synth.sample_counts().ravel(), whole[i])
        assert synth.ledger_.total_epsilon == 1.0
        (entry,) = synth.ledger_.entries
        assert (entry.mechanism, entry.sensitivity, entry.scale) == ("discrete_laplace", 2.0, 2.0)
    out = perturbed_histogram(counts, 1.0, n_synthetic=77, random_state=0)
    np.testing.assert_array_equal(out.sum(axis=1), [77] * 6)
    multi = perturbed_histogram(counts, 1.0, rounding="multinomial", random_state=0)
    np.testing.assert_array_equal(multi.sum(axis=1), counts.sum(axis=1))
    # large ε: the noise is (almost surely) zero, the synthetic histogram is the real one
    np.testing.assert_array_equal(perturbed_histogram(counts, 200.0, random_state=0), counts)


def test_perturbed_histogram_estimator_sample_and_determinism():
    df = _table(400)
    a = PerturbedHistogram(0.5, domain=DOMAIN, random_state=3).fit(df)
    b = PerturbedHistogram(0.5, domain=DOMAIN, random_state=3).fit(df)
    sa, sb = a.sample(), b.sample()
    pd.testing.assert_frame_equal(sa, sb)
    assert len(sa) == 400 and list(sa.columns) == ["group", "value"]
    assert np.all(a.noisy_counts_ >= 0) and a.noisy_counts_.shape == SHAPE
    assert len(a.sample(1000)) == 1000
    c = PerturbedHistogram(0.5, domain=DOMAIN, random_state=4).fit(df)
    assert not np.array_equal(c.noisy_counts_, a.noisy_counts_)


# ----------------------------------------------------------------------------------------------
# smoothed histogram
# ----------------------------------------------------------------------------------------------
def test_smoothed_probabilities_equal_formula_and_exponential_mechanism():
    counts = _count_matrix(4, 20_000)
    for eps, m in [(0.01, 50), (1.0, 100), (10.0, 1000)]:
        p = smoothed_histogram_probabilities(counts, eps, m)
        alpha = 2 * m / eps
        formula = (counts + alpha) / (counts + alpha).sum(axis=1, keepdims=True)
        np.testing.assert_allclose(p, formula, rtol=0, atol=1e-12)
        # Algorithm 1: exponential mechanism with score α ln(c + α), sensitivity 1, budget ε/m
        em = exponential_mechanism_probabilities(alpha * np.log(counts + alpha), eps / m, 1.0)
        np.testing.assert_allclose(p, em, rtol=0, atol=1e-12)


def test_smoothed_histogram_draws_follow_the_probabilities():
    counts = _count_matrix(1, 20_000)[0]
    reps, m, eps = 3000, 100, 5.0
    out = smoothed_histogram(np.tile(counts, (reps, 1)), eps, m, random_state=_gens(reps))
    np.testing.assert_array_equal(out.sum(axis=1), [m] * reps)
    p = smoothed_histogram_probabilities(counts, eps, m)
    assert stats.chisquare(out.sum(axis=0), reps * m * p).pvalue > 0.001
    led = PrivacyLedger()
    smoothed_histogram(counts, eps, m, random_state=0, ledger=led)
    assert led.total_epsilon == eps and led.entries[0].mechanism == "exponential_counts"
    assert led.total_rho == pytest.approx(eps**2 / (8 * m))


def test_smoothed_histogram_estimator_releases_exactly_m_records():
    df = _table(2000)
    synth = SmoothedHistogram(1.0, n_synthetic=50, domain=DOMAIN, random_state=7).fit(df)
    _, _, counts = frame_to_counts(df, DOMAIN)
    expect = smoothed_histogram(counts, 1.0, 50, random_state=np.random.default_rng(7))
    np.testing.assert_array_equal(synth.synthetic_counts_.ravel(), expect)
    full = synth.sample()
    assert len(full) == 50
    np.testing.assert_array_equal(frame_to_counts(full, DOMAIN)[2], expect)
    sub = frame_to_counts(synth.sample(20), DOMAIN)[2]
    assert sub.sum() == 20 and np.all(sub <= expect)
    with pytest.raises(ValueError, match="exceeds the n_synthetic=50"):
        synth.sample(51)
    assert synth.ledger_.total_epsilon == 1.0 and len(synth.ledger_) == 1
    assert SmoothedHistogram(1.0, domain=DOMAIN, random_state=0).fit(df).m_ == 2000


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
        counts, 1.0, SHAPE, iters=1000, random_state=_gens(4)
    )  # vectorized rounding
    out_s = private_pgm(counts, 1.0, SHAPE, iters=1000, random_state=_gens(4), batched=False)  # mbi
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
        counts, 2.0, SHAPE, iters=500, random_state=_gens(3), ledger=led, batched=False
    )
    parts = np.vstack(
        [
            private_pgm(
                counts[:1], 2.0, SHAPE, iters=500, random_state=_gens(3)[:1], batched=False
            ),
            private_pgm(
                counts[1:], 2.0, SHAPE, iters=500, random_state=_gens(3)[1:], batched=False
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
        private_pgm(counts, 2.0, SHAPE, iters=500, n_synthetic=50, random_state=0).sum(axis=1),
        [50] * 3,
    )
    # the vmapped path: chunks of another batch size give the same counts (up to rounding ties)
    whole_b = private_pgm(counts, 2.0, SHAPE, iters=500, random_state=_gens(3))
    parts_b = np.vstack(
        [
            private_pgm(counts[:2], 2.0, SHAPE, iters=500, random_state=_gens(3)[:2]),
            private_pgm(counts[2:], 2.0, SHAPE, iters=500, random_state=_gens(3)[2:]),
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


# ----------------------------------------------------------------------------------------------
# every synthesizer spends exactly ε
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.01, 1.0, 3.0])
def test_every_synthesizer_ledger_sums_to_epsilon(eps):
    df = _table(200, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for synth in [
            PerturbedHistogram(eps, domain=DOMAIN, random_state=0),
            SmoothedHistogram(eps, n_synthetic=30, domain=DOMAIN, random_state=0),
            MWEM(eps, domain=DOMAIN, iterations=7, random_state=0),
            PrivatePGM(eps, domain=DOMAIN, max_iter=100, random_state=0),
        ]:
            synth.fit(df)
            assert synth.ledger_.total_epsilon == pytest.approx(eps, rel=1e-12, abs=0)
            assert synth.ledger_.total_delta == 0.0
            frame = synth.ledger_.to_frame()
            assert frame["epsilon"].sum() == pytest.approx(eps, rel=1e-12)
            assert synth.card()["total_epsilon"] == synth.ledger_.total_epsilon


def test_private_pgm_batched_on_three_columns_with_all_pairs():
    # three columns, all pairs: one junction-tree node but three model cliques; the batched
    # path falls back to mbi per replicate (it used to read a pair as the whole table)
    shape = (2, 3, 2)
    rng = np.random.default_rng(3)
    counts = rng.multinomial(300, np.full(12, 1 / 12), size=2)
    out = private_pgm(counts, 1.0, shape, iters=200, random_state=_gens(2))
    again = private_pgm(counts, 1.0, shape, iters=200, random_state=_gens(2), batched=False)
    assert out.shape == (2, 12) and (out.sum(axis=1) == 300).all()
    np.testing.assert_array_equal(out, again)
