"""Tests of ``synthtrust.synthesizers.privmrf.estimator``.

The oracles and the shared set-up are described in ``_privmrf_data.py``.
"""

from __future__ import annotations

import copy
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from _privmrf_data import FAST, _table

from synthtrust._jax import configure_jax, import_mbi
from synthtrust.privacy.accounting import cdp_rho
from synthtrust.synthesizers.privmrf import (
    PrivMRF,
)


def _pair_tvd(real: pd.DataFrame, synth: pd.DataFrame, dom: dict, a, b) -> float:
    r = pd.crosstab(real[a], real[b]).reindex(
        index=range(dom[a]), columns=range(dom[b]), fill_value=0
    )
    s = pd.crosstab(synth[a], synth[b]).reindex(
        index=range(dom[a]), columns=range(dom[b]), fill_value=0
    )
    r, s = r.to_numpy(float), s.to_numpy(float)
    return 0.5 * np.abs(r / r.sum() - s / s.sum()).sum()


# --------------------------------------------------------------------------------------------
# privacy accounting
# --------------------------------------------------------------------------------------------
def test_ledger_total_equals_cdp_rho_property():
    rng = np.random.default_rng(20240611)
    seen_d = set()
    for _ in range(8):
        eps = float(math.exp(rng.uniform(math.log(0.01), math.log(50.0))))
        delta = float(10 ** rng.uniform(-9, -3))
        d = int(rng.integers(1, 4))
        sizes = [int(k) for k in rng.integers(2, 4, size=d)]
        seen_d.add(d)
        X = _table(rng, int(rng.integers(30, 150)), sizes)
        dom = {c: k for c, k in zip(X.columns, sizes, strict=True)}
        m = PrivMRF(eps, delta, domain=dom, random_state=int(rng.integers(1000)), **FAST).fit(X)
        target = cdp_rho(eps, delta)
        assert m.rho_ == target
        assert abs(m.ledger_.total_rho - target) <= 1e-9 * target, (eps, delta, sizes)
        assert all(e.mechanism == "gaussian" and e.rho > 0 for e in m.ledger_)
        assert len(m.sample(20)) == 20
    assert seen_d == {1, 2, 3}  # the loop covers the d = 1 path (no pairs, no refinement)


def test_budget_split_follows_authors_fractions(fit4):
    m, _ = fit4
    rho = m.rho_
    entries = m.ledger_.entries
    # count: 10 % of β₁ = 0.1; R-scores: the rest of β₁ (one vector query of 6 pairs)
    assert entries[0].rho == pytest.approx(0.01 * rho, rel=1e-12)
    assert entries[1].rho == pytest.approx(0.09 * rho, rel=1e-12)
    assert entries[1].sensitivity == pytest.approx(2 * math.sqrt(6))
    # d = 4: 2 refinement steps of int(0.8·4) = 3 marginals ([2, 1]), both with noisy L1 queries
    l1 = [e for e in entries if e.note.startswith("L1 error")]
    assert len(l1) == 2
    assert sum(e.rho for e in l1) == pytest.approx(0.10 * rho, rel=1e-12)
    marg = [e for e in entries if e.note.startswith("marginal")]
    assert len(marg) == len(m.initial_marginals_) + 3
    assert sum(e.rho for e in marg) == pytest.approx(0.80 * rho, rel=1e-12)
    assert {round(e.scale, 12) for e in marg} == {round(m.sigma_, 12)}
    assert m.sigma_ == pytest.approx(math.sqrt(len(marg) / (2 * 0.8 * rho)))
    assert [len(s) for s in m.selected_marginals_] == [2, 1]
    assert len(m.ledger_) == 2 + len(l1) + len(marg)


def test_fitted_graph_and_initial_marginals_respect_limits(fit4):
    m, dom = fit4
    cells = [math.prod(dom[c] for c in clique) for clique in m.graph_cliques_]
    assert max(cells) <= 12 and sum(cells) <= 40
    assert len(m.graph_edges_) > 0
    # θ-usefulness of the initial marginals: cells <= n̂ / (σ̃ θ), σ̃ = √(1.8 d / (2 · 0.8 ρ))
    limit = max(m.n_hat_, 1) / math.sqrt(1.8 * 4 / (2 * 0.8 * m.rho_)) / 6
    multi = [c for c in m.initial_marginals_ if len(c) > 1]
    assert multi, "at ε = 20 some family must be useful"
    assert all(math.prod(dom[c] for c in fam) <= limit for fam in multi)
    # every measured clique lies inside a maximal clique of the attribute graph
    for fam in m.measured_cliques_:
        assert any(set(fam) <= set(cl) for cl in m.graph_cliques_)


def test_tiny_epsilon_measures_only_one_way_marginals():
    rng = np.random.default_rng(6)
    X = _table(rng, 300, [3, 3, 2])
    dom = {"c0": 3, "c1": 3, "c2": 2}
    m = PrivMRF(0.01, domain=dom, random_state=0, **FAST).fit(X)
    assert all(len(c) == 1 for c in m.measured_cliques_)  # θ-usefulness forbids every pair
    S = m.sample(100)
    assert S.notna().all().all() and len(S) == 100


# --------------------------------------------------------------------------------------------
# utility at huge ε
# --------------------------------------------------------------------------------------------
def test_huge_epsilon_reproduces_two_way_marginals():
    rng = np.random.default_rng(7)
    X = _table(rng, 2000, [3, 3, 2])
    dom = {"c0": 3, "c1": 3, "c2": 2}
    # the dependency is strong: c1 = c0 for ~85 % of the rows
    assert (X.c0 == X.c1).mean() > 0.8
    m = PrivMRF(1e6, domain=dom, random_state=0, max_iter=500).fit(X)
    S = m.sample(len(X))
    tvds = [_pair_tvd(X, S, dom, a, b) for a, b in itertools.combinations(X.columns, 2)]
    assert max(tvds) < 0.03, tvds
    assert abs(m.total_ - len(X)) < 1.0


# --------------------------------------------------------------------------------------------
# estimation: mbi's MirrorDescent as the oracle
# --------------------------------------------------------------------------------------------
def _mbi_run(m, warm, chunks: int):
    """mbi 2.0's ``MirrorDescent`` on the measurements of ``m`` (the previous engine): the loss
    after each chunk of 50 steps and the final model."""
    jax = configure_jax()
    mbi = import_mbi()
    ms = [
        mbi.LinearMeasurement(y, tuple(m._names[a] for a in c), stddev=m._sigma_of[c])
        for c, y in m._measured.items()
    ]
    loss = mbi.marginal_loss.from_linear_measurements(ms, m._mbi_domain)
    est, total = mbi.estimation.MirrorDescent(), m._total()
    state = est._init(m._mbi_domain, loss, total, warm_start=warm)
    state = jax.tree.map(jax.numpy.copy, state)  # _multi_step donates the warm start's buffers
    losses = []
    for _ in range(chunks):
        state = est._multi_step(state, loss, total, ())
        losses.append(float(state.loss))
    return losses, est._finalize(state, total)


def test_estimation_reaches_mbi_fitted_marginals(fit4):
    """Cold and warm-started (new clique from a new measurement) estimations, 500 steps each:
    the fitted marginals of every measured clique agree with mbi's to 1e-6 of N."""
    m = copy.deepcopy(fit4[0])
    m.max_iter = 500
    full = dict(m._measured)
    dropped = [c for c in full if len(c) > 1][-1]
    m._measured = {c: y for c, y in full.items() if c != dropped}
    fitted, model = m._estimate(None, 0.0, 0)
    _, ref = _mbi_run(m, None, 10)
    pairs = [(model, ref)]
    m._measured = full
    _, model = m._estimate(fitted, 0.0, 0)
    _, ref = _mbi_run(m, ref, 10)
    pairs.append((model, ref))
    assert m.iterations_[-2:] == [500, 500]
    for model, ref in pairs:
        for c in full:
            q = tuple(m._names[a] for a in c)
            got = np.asarray(model.project(q).datavector())
            want = np.asarray(ref.project(q).datavector())
            assert np.abs(got - want).max() / m.total_ < 1e-6, c


def test_stopping_rule_stops_at_mbi_chunk(fit4):
    """With a target between mbi's losses after 100 and 150 steps the estimation stops after
    150; with min_it = 150 after 200 (done must exceed min_it); max_iter rounds up to a chunk."""
    m = copy.deepcopy(fit4[0])
    m.max_iter = 1000
    losses, _ = _mbi_run(m, None, 3)
    half = 0.5 * sum(y.size for y in m._measured.values())
    ratio = math.sqrt(losses[1] * losses[2]) / half
    m._estimate(None, ratio, 0)
    m._estimate(None, ratio, 150)
    m.max_iter = 120
    m._estimate(None, 0.0, 0)
    assert m.iterations_[-3:] == [150, 200, 150]


def test_small_fit_stops_where_mbi_stopped():
    """The steps per estimation of a d = 6 fit at ε = 1 are those of mbi's MirrorDescent with
    the same stopping rule (the previous engine: [50, 50, 50, 250])."""
    rng = np.random.default_rng(11)
    X = _table(rng, 600, [4, 3, 3, 2, 3, 2])
    dom = {"c0": 4, "c1": 3, "c2": 3, "c3": 2, "c4": 3, "c5": 2}
    m = PrivMRF(1.0, domain=dom, random_state=3).fit(X)
    assert m.iterations_ == [50, 50, 50, 250]


# --------------------------------------------------------------------------------------------
# determinism
# --------------------------------------------------------------------------------------------
def test_same_random_state_gives_identical_output():
    rng = np.random.default_rng(8)
    X = _table(rng, 300, [3, 2, 2])
    dom = {"c0": 3, "c1": 2, "c2": 2}

    def run(rs):
        m = PrivMRF(3.0, domain=dom, random_state=rs, **FAST).fit(X)
        return m, m.sample(200)

    m1, s1 = run(13)
    state = np.random.get_state()
    m2, s2 = run(13)
    assert np.array_equal(np.random.get_state()[1], state[1])  # mbi's global seeding is undone
    pd.testing.assert_frame_equal(s1, s2)
    assert m1.iterations_ == m2.iterations_ and m1.total_ == m2.total_
    for cl in m1.model_.potentials.cliques:
        assert np.array_equal(m1.model_.potentials[cl].values, m2.model_.potentials[cl].values)
    assert m1.ledger_.to_frame().equals(m2.ledger_.to_frame())
    assert m1.r_scores_.equals(m2.r_scores_)
    _, s3 = run(np.random.default_rng(13))
    pd.testing.assert_frame_equal(s1, s3)  # an int seed and a fresh Generator from it agree
    m4, s4 = run(14)
    assert not (s4.equals(s1) and m4.r_scores_.equals(m1.r_scores_))


# --------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "exc", "words"),
    [
        (dict(epsilon=0.0), ValueError, ["epsilon", "0.0"]),
        (dict(epsilon=-1.0), ValueError, ["epsilon", "-1.0"]),
        (dict(epsilon=float("nan")), ValueError, ["epsilon", "nan"]),
        (dict(delta=0.0), ValueError, ["delta", "0.0"]),
        (dict(delta=1.0), ValueError, ["delta", "1.0"]),
        (dict(beta_graph=0.0), ValueError, ["beta_graph", "0.0"]),
        (dict(beta_select=1.5), ValueError, ["beta_select", "1.5"]),
        (dict(beta_graph=0.6, beta_select=0.5), ValueError, ["beta_graph + beta_select", "0.6"]),
        (dict(count_share=1.0), ValueError, ["count_share", "1.0"]),
        (dict(theta=0), ValueError, ["theta", "0"]),
        (dict(t=-0.1), ValueError, ["t must", "-0.1"]),
        (dict(max_clique_size=0.5), ValueError, ["max_clique_size", "0.5"]),
        (dict(max_parameter_size="big"), TypeError, ["max_parameter_size", "big"]),
        (dict(size_penalty=-1e-8), ValueError, ["size_penalty", "-1e-08"]),
        (dict(max_measure_attr_num=1.5), TypeError, ["max_measure_attr_num", "1.5"]),
        (dict(max_refine_steps=0), ValueError, ["max_refine_steps", "0"]),
        (dict(norm_query_number=0), ValueError, ["norm_query_number", "0"]),
        (dict(max_iter=0), ValueError, ["max_iter", "0"]),
        (dict(convergence_ratio=-1), ValueError, ["convergence_ratio", "-1"]),
        (dict(synthetic_method="gibbs"), ValueError, ["synthetic_method", "gibbs"]),
        (dict(random_state="seed"), TypeError, ["random_state", "seed"]),
    ],
)
def test_bad_parameters_raise_clear_errors(kwargs, exc, words):
    model = PrivMRF(**kwargs)  # __init__ only stores the parameters
    with pytest.raises(exc) as info:
        model.fit(pd.DataFrame({"a": [0, 1]}))
    for w in words:
        assert w in str(info.value)


def test_bad_data_and_set_params_are_rejected():
    X = pd.DataFrame({"a": [0, 1, 2], "b": [0, 1, 1]})
    with pytest.raises(ValueError, match="'a' has code 2"):
        PrivMRF(domain={"a": 2, "b": 2}).fit(X)
    m = PrivMRF(domain={"a": 3, "b": 2})
    with pytest.raises(ValueError, match="theta"):
        m.set_params(theta=-2)
    with pytest.raises(Exception, match="not fitted"):
        PrivMRF(domain={"a": 3, "b": 2}).sample(3)


# --------------------------------------------------------------------------------------------
# memory: JAX's caches after sampling
# --------------------------------------------------------------------------------------------
def _jax_cache_entries() -> int:
    """Entries in JAX's registry of staging and compilation caches (what ``jax.clear_caches``
    empties; the programs mbi's sampler leaves behind)."""
    from jax._src import util

    total = 0
    for cache in list(util._caches):
        info = getattr(cache, "cache_info", None)  # lu.cache's memoised functions have none
        total += int(getattr(info(), "currsize", 0) or 0) if info is not None else 0
    return total


def test_sampling_releases_jax_programs_of_each_domain(monkeypatch):
    from synthtrust.synthesizers.privmrf import estimator

    rng = np.random.default_rng(3)

    def fit_sample(sizes) -> int:
        X = _table(rng, 200, sizes)
        dom = {c: k for c, k in zip(X.columns, sizes, strict=True)}
        PrivMRF(5.0, domain=dom, random_state=1, synthetic_method="sample", **FAST).fit(X).sample(
            50
        )
        return _jax_cache_entries()

    # without the release, every new domain leaves programs behind (the leak of issue 24)
    monkeypatch.setattr(estimator, "_release_jax_programs", lambda: None)
    kept = [fit_sample(s) for s in ([3, 2, 2], [2, 3, 2, 4])]
    assert kept[1] > kept[0] > 0
    monkeypatch.undo()
    after = [fit_sample(s) for s in ([4, 2, 3], [2, 2, 3, 3, 2], [3, 3, 2, 2])]
    assert after == [0, 0, 0]


def test_round_sampling_draws_the_model_in_numpy(monkeypatch):
    """The default sampler never calls mbi's JAX ``synthetic_data``; its records follow the
    model (oracle: mbi's ``project`` of the fitted model): every 1-way and 2-way marginal within
    0.02 TVD of the model's at 20 000 records; the "sample" method still goes through mbi."""
    rng = np.random.default_rng(11)
    X = _table(rng, 1500, [3, 4, 2, 3])
    dom = {c: k for c, k in zip(X.columns, [3, 4, 2, 3], strict=True)}
    m = PrivMRF(5.0, domain=dom, random_state=2, **FAST).fit(X)

    def refuse(*args, **kwargs):
        raise AssertionError("mbi's synthetic_data was called")

    monkeypatch.setattr(type(m.model_), "synthetic_data", refuse)
    S = m.sample(20_000)
    names = dict(zip(m.columns_, m._names, strict=True))
    for q in [*([c] for c in X.columns), *itertools.combinations(X.columns, 2)]:
        want = np.asarray(m.model_.project(tuple(names[c] for c in q)).datavector())
        got = (
            S.groupby(list(q))
            .size()
            .reindex(
                pd.MultiIndex.from_product([range(dom[c]) for c in q])
                if len(q) > 1
                else range(dom[q[0]]),
                fill_value=0,
            )
        )
        tvd = 0.5 * np.abs(got.to_numpy() / len(S) - want / want.sum()).sum()
        assert tvd < 0.02, (q, tvd)
    m2 = PrivMRF(5.0, domain=dom, random_state=2, synthetic_method="sample", **FAST).fit(X)
    with pytest.raises(AssertionError, match="synthetic_data was called"):
        m2.sample(10)
