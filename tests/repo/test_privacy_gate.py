"""Every noise draw that spends privacy goes through ``synthtrust.privacy.mechanisms``, the
ledger's entries are exactly those draws (count and scale), and every other random draw of a
fit is listed here with its reason and shown not to depend on the data.

A spying ``numpy.random.Generator`` (a subclass: the synthesizers take it as ``random_state``)
records every draw — every public sampling method of the Generator — with the function that
called it and a digest of its arguments. After a fit:

1. no noise (Laplace, Gaussian, Gumbel, geometric, exponential, multinomial) is drawn outside
   the mechanisms module, except the simulated null statistics of the DP Mann–Whitney U test
   (:data:`SIMULATION`: post-processing at public sizes);
2. the ledger's entries match the mechanisms' draws one to one: a Laplace entry is one
   ``laplace`` draw at the entry's scale, a Gaussian entry one ``normal`` draw at its σ, an
   exponential-mechanism entry one ``gumbel`` draw, an entry of i.i.d. exponential-mechanism
   selections one ``multinomial`` draw, a discrete-Laplace entry two ``geometric`` draws; an
   accountant's entry (PATE's moments accountant) covers ``entry.draws`` releases, each one
   ``laplace`` draw at the entry's scale;
3. every other draw (``integers``, ``permutation``, ``choice``, ``random``, ``uniform``, …) is
   one of :data:`OTHER_DRAWS`, the list of where they happen in fits and why each spends no
   privacy, and each configuration draws exactly the ones :data:`EXPECTED` lists for it;
4. those other draws do not depend on the data: refitting on a neighbour (the class's relation)
   with the same seed, and the mechanisms' outputs of the first fit frozen
   (:func:`synthtrust.privacy.record_mechanisms` with ``replay=``), makes the same draws with
   the same arguments in the same order.

``multinomial`` used to be exempt from check 1 without a reason. No fit draws one outside the
mechanisms (the perturbed histogram's ``rounding="multinomial"`` draws it in ``sample``, which
is post-processing and not part of a fit), so nothing is exempt any more: a multinomial of a
fit outside the gate is reported like any other noise.

Torch draws of the GANs' training (latent vectors, Gumbel relaxations, dropout, minibatches;
from a ``torch.Generator`` seeded by the ``integers`` draw listed below) are not spied, except
``torch.normal``, the sanitiser's noise (check 2 for GS-WGAN); their data independence is what
:mod:`tests.repo.test_replay` checks through the sequences of mechanism calls.
"""

from __future__ import annotations

import hashlib
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from synthtrust.privacy import record_mechanisms
from synthtrust.synthesizers import (
    AIM,
    MST,
    MWEM,
    MWEMPGM,
    PATECTGAN,
    PATEGAN,
    PerturbedHistogram,
    PrivatePGM,
    PrivBayes,
    PrivMRF,
    SmoothedHistogram,
)

GATE = "synthtrust.privacy.mechanisms"
#: Draws that can carry privacy noise: only the mechanisms may make them (check 1).
NOISE = (
    "laplace",
    "normal",
    "standard_normal",
    "gumbel",
    "geometric",
    "exponential",
    "standard_exponential",
    "multinomial",
)
#: Every public sampling method of numpy's Generator is spied.
WATCHED = tuple(
    sorted(
        name
        for name in dir(np.random.Generator)
        if not name.startswith("_") and name not in ("bit_generator", "spawn")
    )
)
DOMAIN = {"a": 3, "b": 4, "c": 2}


def _digest(x):
    """A hashable summary of a draw's argument: arrays by shape, dtype and a hash of their
    bytes, numbers by value."""
    if isinstance(x, np.ndarray):
        data = np.ascontiguousarray(x)
        return ("array", data.shape, str(data.dtype), hashlib.sha1(data.tobytes()).hexdigest())
    if isinstance(x, (list, tuple)):
        return tuple(_digest(v) for v in x)
    if isinstance(x, np.generic):
        return x.item()
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return type(x).__name__


class SpyGenerator(np.random.Generator):
    """A Generator that records every draw: (method, (module, qualname) of the caller, scale,
    digest of the arguments); a draw made inside another (``permutation`` shuffles) is part
    of it."""

    def __init__(self, seed: int):
        super().__init__(np.random.PCG64(seed))
        self.draws: list[tuple[str, tuple[str, str], float | None, tuple]] = []
        self._inside = False


def _spy(name):
    def method(self, *args, **kwargs):
        if self._inside:
            return getattr(np.random.Generator, name)(self, *args, **kwargs)
        frame = sys._getframe(1)
        caller = (frame.f_globals.get("__name__", "?"), frame.f_code.co_qualname)
        scale = kwargs.get("scale", args[1] if len(args) > 1 else None)
        if name == "normal":
            scale = kwargs.get("scale", args[1] if len(args) > 1 else 1.0)
        if name not in ("laplace", "normal") or isinstance(scale, (str, bytes)):
            scale = None
        arguments = (_digest(args), tuple(sorted((k, _digest(v)) for k, v in kwargs.items())))
        self.draws.append(
            (name, caller, None if scale is None else float(np.max(scale)), arguments)
        )
        self._inside = True
        try:
            return getattr(np.random.Generator, name)(self, *args, **kwargs)
        finally:
            self._inside = False

    method.__name__ = name
    return method


for _name in WATCHED:
    setattr(SpyGenerator, _name, _spy(_name))

#: ledger mechanism -> (the draw it makes, draws per entry)
DRAW_OF = {
    "laplace": ("laplace", 1),
    "gaussian": ("normal", 1),
    "exponential": ("gumbel", 1),
    "exponential_counts": ("multinomial", 1),
    "discrete_laplace": ("geometric", 2),
    "pate_moments": ("laplace", 1),  # one noisy teacher vote per entry draw
}

#: Draws outside the mechanisms that spend no privacy: (module, function, method) -> why.
#: The arguments of each are public quantities or post-processing of DP releases (check 4).
OTHER_DRAWS = {
    ("synthtrust.synthesizers.privbayes", "PrivBayes._learn_network", "integers"): (
        "the root of the network, uniform over the d columns (public)"
    ),
    ("synthtrust.synthesizers.privbayes", "PrivBayes._fit_codes", "permutation"): (
        "degree 0: a uniform order of the d independent columns (public)"
    ),
    ("synthtrust.synthesizers.privmrf.graph", "search_graph", "permutation"): (
        "the order in which the graph search tries the missing edges (a function of the "
        "noisy R-scores: post-processing)"
    ),
    ("synthtrust.synthesizers.privmrf.selection", "_greedy_bayes", "integers"): (
        "the first attribute of an inner Bayesian network, uniform over a clique of the noisy "
        "graph (post-processing)"
    ),
    ("synthtrust.synthesizers.privmrf.selection", "initial_measures", "permutation"): (
        "the order in which extra families are added to the initial marginals (post-processing)"
    ),
    ("synthtrust.synthesizers.privmrf.estimator", "PrivMRF._select", "choice"): (
        "the refinement candidates whose L1 error is queried, drawn with weights that are "
        "post-processing of earlier noisy errors (when there are more than norm_query_number)"
    ),
    ("synthtrust.synthesizers.pate", "pate_partitions", "permutation"): (
        "the teachers' shards: a permutation of the n record indices (n public, replace-one)"
    ),
    ("synthtrust.synthesizers.pate", "PATECTGAN._fit_codes", "integers"): (
        "the seed of the torch generator of the training"
    ),
    ("synthtrust.synthesizers.gan.shards", "partition_shards", "permutation"): (
        "the critics' shards: a permutation of the n record indices (n public, replace-one)"
    ),
    ("synthtrust.synthesizers.gan.estimator", "GSWGAN._fit_codes", "integers"): (
        "the seeds of the torch generator of the training and of the checkpoints"
    ),
    ("synthtrust.hypothesis.null_u", "sample_null_u", "hypergeometric"): (
        "the simulated null distribution of U at the public n and the released m̂ "
        "(post-processing: the Monte-Carlo p-value)"
    ),
    ("synthtrust.hypothesis.null_u", "_draw_within_block", "random"): (
        "the simulated null distribution of U (as above)"
    ),
}


def _table(n=300, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    return pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, n)) % 4, "c": rng.integers(0, 2, n)})


def _neighbour(relation: str) -> pd.DataFrame:
    """A neighbour of :func:`_table` under ``relation``: row 0 replaced by the domain's top
    corner (replace-one), or that record added (add/remove)."""
    table = _table()
    top = pd.DataFrame({"a": [2], "b": [3], "c": [1]})
    if relation == "add_remove":
        return pd.concat([table, top], ignore_index=True)
    assert table.iloc[0].tolist() != [2, 3, 1]
    out = table.copy()
    out.iloc[0] = [2, 3, 1]
    return out


GAN = {
    "max_iter": 5,
    "batch_size": 16,
    "embedding_dim": 8,
    "generator_dim": (8,),
    "discriminator_dim": (8,),
}
GATED = {
    "PerturbedHistogram": lambda rng: PerturbedHistogram(1.0, domain=DOMAIN, random_state=rng),
    "PrivatePGM": lambda rng: PrivatePGM(1.0, domain=DOMAIN, max_iter=50, random_state=rng),
    "PrivBayes": lambda rng: PrivBayes(1.0, domain=DOMAIN, random_state=rng),
    "PrivBayes[degree=0]": lambda rng: PrivBayes(1.0, degree=0, domain=DOMAIN, random_state=rng),
    "MST": lambda rng: MST(1.0, 1e-9, domain=DOMAIN, max_iter=50, random_state=rng),
    "AIM": lambda rng: AIM(1.0, 1e-9, domain=DOMAIN, max_iter=50, random_state=rng),
    "MWEMPGM": lambda rng: MWEMPGM(1.0, 1e-9, domain=DOMAIN, max_iter=50, random_state=rng),
    "SmoothedHistogram": lambda rng: SmoothedHistogram(
        1.0, n_synthetic=50, domain=DOMAIN, random_state=rng
    ),
    "PrivMRF": lambda rng: PrivMRF(1.0, 1e-9, domain=DOMAIN, random_state=rng),
    "PrivMRF[norm_query_number=1]": lambda rng: PrivMRF(
        2.0, 1e-9, domain=DOMAIN, norm_query_number=1, t=1.0, theta=0.5, random_state=rng
    ),
    "MWEM": lambda rng: MWEM(1.0, domain=DOMAIN, iterations=3, random_state=rng),
    **{
        cls.__name__: (lambda rng, cls=cls: cls(1.0, domain=DOMAIN, random_state=rng, **GAN))
        for cls in (PATECTGAN, PATEGAN)
    },
}
#: The other draws each configuration makes in a fit (check 3): (module, function, method).
_PRIVMRF = {
    ("synthtrust.synthesizers.privmrf.graph", "search_graph", "permutation"),
    ("synthtrust.synthesizers.privmrf.selection", "_greedy_bayes", "integers"),
    ("synthtrust.synthesizers.privmrf.selection", "initial_measures", "permutation"),
}
_PATE = {
    ("synthtrust.synthesizers.pate", "pate_partitions", "permutation"),
    ("synthtrust.synthesizers.pate", "PATECTGAN._fit_codes", "integers"),
}
EXPECTED = {
    "PerturbedHistogram": set(),
    "PrivatePGM": set(),
    "PrivBayes": {("synthtrust.synthesizers.privbayes", "PrivBayes._learn_network", "integers")},
    "PrivBayes[degree=0]": {
        ("synthtrust.synthesizers.privbayes", "PrivBayes._fit_codes", "permutation")
    },
    "MST": set(),
    "AIM": set(),
    "MWEMPGM": set(),
    "SmoothedHistogram": set(),
    "PrivMRF": _PRIVMRF,
    "PrivMRF[norm_query_number=1]": _PRIVMRF
    | {("synthtrust.synthesizers.privmrf.estimator", "PrivMRF._select", "choice")},
    "MWEM": set(),
    "PATECTGAN": _PATE,
    "PATEGAN": _PATE,
    "GSWGAN": {
        ("synthtrust.synthesizers.gan.shards", "partition_shards", "permutation"),
        ("synthtrust.synthesizers.gan.estimator", "GSWGAN._fit_codes", "integers"),
    },
    "dp_mannwhitneyu": {
        ("synthtrust.hypothesis.null_u", "sample_null_u", "hypergeometric"),
        ("synthtrust.hypothesis.null_u", "_draw_within_block", "random"),
    },
}
#: Noise drawn outside the gate that spends no privacy: the DP Mann–Whitney U test simulates its
#: null distribution by pushing simulated statistics through the same noisy pipeline
#: (post-processing, public sizes).
SIMULATION = {
    ("synthtrust.hypothesis.dp_mannwhitney", "_simulate_release"),
    ("synthtrust.hypothesis.null_u", "sample_null_u_normal"),
}


def _fit(make, seed, table):
    rng = SpyGenerator(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = make(rng).fit(table)
    return rng, synth


def _others(rng) -> list:
    """The draws outside the gate that are not simulated noise, in order."""
    return [d for d in rng.draws if d[1][0] != GATE and d[1] not in SIMULATION]


def _check_fit(make, name=None):
    rng, synth = _fit(make, 7, _table())
    _check_draws(rng, list(synth.ledger_))
    if name is not None:
        _check_other_draws(rng, name)
        _check_independent(make, synth.neighbouring)


def _check_draws(rng, entries):
    outside = [d[:3] for d in _others(rng) if d[0] in NOISE]
    assert outside == [], f"noise drawn outside {GATE}: {outside[:5]}"
    gate = [d for d in rng.draws if d[1][0] == GATE]
    assert entries, "the fit recorded nothing"
    expected = []  # (draw, scale) per draw, scale where the draw has one
    for e in entries:
        kind, times = DRAW_OF[e.mechanism]
        scale = e.scale if kind in ("laplace", "normal") else None
        expected += [(kind, scale)] * (times * e.draws)
    assert [d[0] for d in gate] == [k for k, _ in expected], "ledger entries and draws differ"
    for (kind, scale), d in zip(expected, gate, strict=True):
        if scale is not None:
            assert d[2] == pytest.approx(scale, rel=1e-12), (kind, scale, d)


def _check_other_draws(rng, name):
    seen = {(*d[1], d[0]) for d in _others(rng)}
    unexplained = seen - set(OTHER_DRAWS)
    assert not unexplained, (
        f"draws outside the privacy layer that OTHER_DRAWS does not explain: {unexplained}"
    )
    assert seen == EXPECTED[name], (name, seen ^ EXPECTED[name])


def _check_independent(make, relation):
    """Check 4: the other draws on a neighbour, with D's mechanism outputs frozen, are the
    same draws with the same arguments."""
    with record_mechanisms() as calls:
        rng_d, _ = _fit(make, 7, _table())
    with record_mechanisms(replay=calls):
        rng_d_prime, _ = _fit(make, 7, _neighbour(relation))
    a, b = _others(rng_d), _others(rng_d_prime)
    assert len(a) == len(b), f"{len(a)} other draws on D, {len(b)} on its neighbour"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        assert x == y, f"draw {i} ({x[0]} from {x[1]}) depends on the data: {x[3]} vs {y[3]}"


@pytest.mark.parametrize("name", sorted(GATED))
def test_the_ledger_is_the_noise_drawn(name):
    _check_fit(GATED[name], name)


def test_every_other_draw_is_expected_somewhere():
    listed = set().union(*EXPECTED.values())
    assert listed == set(OTHER_DRAWS), set(OTHER_DRAWS) ^ listed
    assert set(GATED) | {"GSWGAN", "dp_mannwhitneyu"} == set(EXPECTED)


def test_the_gswgan_ledger_is_its_sanitised_gradients(monkeypatch):
    """GS-WGAN draws its noise with torch inside the training loop: every ``torch.normal`` call
    is made by the sanitiser of ``synthtrust.privacy.gradients``, one per private iteration at the
    ledger entry's scale, and the accountant's single entry covers exactly those draws; its
    numpy draws are the shards and the seeds only."""
    torch = pytest.importorskip("torch")
    from synthtrust.synthesizers import GSWGAN

    draws, normal = [], torch.normal

    def spy(mean, std, *args, **kwargs):
        draws.append((sys._getframe(1).f_globals.get("__name__", "?"), float(std)))
        return normal(mean, std, *args, **kwargs)

    monkeypatch.setattr(torch, "normal", spy)

    def make(rng):
        return GSWGAN(
            30.0,
            domain=DOMAIN,
            subset_size=20,
            noise_multiplier=5.0,
            pretrain_iterations=2,
            hidden=8,
            max_iter=12,
            random_state=rng,
        )

    rng, synth = _fit(make, 5, _table())
    assert [d for d in rng.draws if d[0] in NOISE] == []  # no numpy noise at all
    _check_other_draws(rng, "GSWGAN")
    assert {module for module, _ in draws} == {"synthtrust.privacy.gradients"}
    (entry,) = synth.ledger_
    assert entry.mechanism == "subsampled_gaussian" and entry.epsilon == synth.epsilon_spent_
    assert entry.draws == synth.iterations_ == len(draws) == 12
    assert all(std == pytest.approx(entry.scale, rel=1e-12) for _, std in draws)
    draws.clear()
    _check_independent(make, synth.neighbouring)


def test_the_dp_mann_whitney_u_ledger_is_its_two_releases():
    from synthtrust import hypothesis
    from synthtrust.privacy import PrivacyLedger

    r = np.random.default_rng(1)
    x, y = r.normal(size=30), r.normal(size=45)
    rng, ledger = SpyGenerator(3), PrivacyLedger()
    res = hypothesis.dp_mannwhitneyu(x, y, 1.0, n_sim=50, random_state=rng, ledger=ledger)
    _check_draws(rng, list(ledger))
    _check_other_draws(rng, "dp_mannwhitneyu")
    size, u = list(ledger)
    assert size.epsilon == pytest.approx(0.65) and size.scale == pytest.approx(1 / 0.65)
    assert u.epsilon == pytest.approx(0.35) and u.delta == 1e-6
    assert u.sensitivity == pytest.approx(75 - res.m_lower)
    assert ledger.total_epsilon == pytest.approx(1.0) and ledger.total_delta == 1e-6
    # the null simulation does not depend on the data: one x value changed (replace-one)
    with record_mechanisms() as calls:
        first = SpyGenerator(3)
        hypothesis.dp_mannwhitneyu(x, y, 1.0, n_sim=50, random_state=first)
    with record_mechanisms(replay=calls):
        second = SpyGenerator(3)
        hypothesis.dp_mannwhitneyu(np.r_[x[:-1], 10.0], y, 1.0, n_sim=50, random_state=second)
    assert _others(first) == _others(second)


def test_the_spy_sees_a_bypass():
    class Bypass(PerturbedHistogram):
        def _fit_counts(self, counts, n):
            super()._fit_counts(counts, n)
            self._rng.laplace(0.0, 1.0, size=3)  # noise that no ledger entry accounts for

    with pytest.raises(AssertionError, match="noise drawn outside"):
        _check_fit(lambda rng: Bypass(1.0, domain=DOMAIN, random_state=rng))


def test_the_spy_sees_a_multinomial_outside_the_gate():
    class Resample(PerturbedHistogram):
        def _fit_counts(self, counts, n):
            super()._fit_counts(counts, n)
            self._rng.multinomial(n, counts / n)  # records resampled from the raw counts

    with pytest.raises(AssertionError, match="noise drawn outside"):
        _check_fit(lambda rng: Resample(1.0, domain=DOMAIN, random_state=rng))


def test_the_spy_sees_an_unlisted_and_a_data_dependent_draw(monkeypatch):
    class Pick(PerturbedHistogram):
        def _fit_counts(self, counts, n):
            super()._fit_counts(counts, n)
            self._rng.choice(counts.size, p=counts / n)  # a cell drawn from the raw counts

    def make(rng):
        return Pick(1.0, domain=DOMAIN, random_state=rng)

    with pytest.raises(AssertionError, match="OTHER_DRAWS does not explain"):
        _check_fit(make, "PerturbedHistogram")
    key = (
        __name__,
        "test_the_spy_sees_an_unlisted_and_a_data_dependent_draw.<locals>.Pick._fit_counts",
        "choice",
    )
    monkeypatch.setitem(OTHER_DRAWS, key, "planted")
    monkeypatch.setitem(EXPECTED, "Pick", {key})
    with pytest.raises(AssertionError, match="depends on the data"):
        _check_fit(make, "Pick")
