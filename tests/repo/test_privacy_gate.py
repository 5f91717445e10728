"""Every noise draw that spends privacy goes through ``synthtrust.privacy.mechanisms``, and the
ledger's entries are exactly those draws (count and scale).

A spying ``numpy.random.Generator`` (a subclass: the synthesizers take it as ``random_state``)
records every noise draw — Laplace, Gaussian, Gumbel, geometric (discrete Laplace),
exponential — with the module that called it. After a fit, (1) no noise is drawn outside the
mechanisms module, and (2) the ledger's entries match the mechanisms' draws one to one:
a Laplace entry is one ``laplace`` draw at the entry's scale, a Gaussian entry one ``normal``
draw at its σ, an exponential-mechanism entry one ``gumbel`` draw, an entry of i.i.d.
exponential-mechanism selections one ``multinomial`` draw, a discrete-Laplace entry two
``geometric`` draws. An accountant's entry (PATE's moments accountant) covers ``entry.draws``
releases, each one ``laplace`` draw at the entry's scale.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

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
DOMAIN = {"a": 3, "b": 4, "c": 2}


class SpyGenerator(np.random.Generator):
    """A Generator that records every noise draw: (method, calling module, scale)."""

    def __init__(self, seed: int):
        super().__init__(np.random.PCG64(seed))
        self.draws: list[tuple[str, str, float | None]] = []


def _spy(name):
    def method(self, *args, **kwargs):
        frame = sys._getframe(1)
        caller = (frame.f_globals.get("__name__", "?"), frame.f_code.co_name)
        scale = kwargs.get("scale", args[1] if len(args) > 1 else None)
        if name == "normal":
            scale = kwargs.get("scale", args[1] if len(args) > 1 else 1.0)
        self.draws.append((name, caller, None if scale is None else float(np.max(scale))))
        return getattr(np.random.Generator, name)(self, *args, **kwargs)

    method.__name__ = name
    return method


for _name in NOISE:
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


def _table(n=300, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    return pd.DataFrame({"a": a, "b": (a + rng.integers(0, 2, n)) % 4, "c": rng.integers(0, 2, n)})


GATED = {
    "PerturbedHistogram": lambda rng: PerturbedHistogram(1.0, domain=DOMAIN, random_state=rng),
    "PrivatePGM": lambda rng: PrivatePGM(1.0, domain=DOMAIN, max_iter=50, random_state=rng),
    "PrivBayes": lambda rng: PrivBayes(1.0, domain=DOMAIN, random_state=rng),
    "MST": lambda rng: MST(1.0, 1e-9, domain=DOMAIN, max_iter=50, random_state=rng),
    "AIM": lambda rng: AIM(1.0, 1e-9, domain=DOMAIN, max_iter=50, random_state=rng),
    "MWEMPGM": lambda rng: MWEMPGM(1.0, 1e-9, domain=DOMAIN, max_iter=50, random_state=rng),
    "SmoothedHistogram": lambda rng: SmoothedHistogram(
        1.0, n_synthetic=50, domain=DOMAIN, random_state=rng
    ),
    "PrivMRF": lambda rng: PrivMRF(1.0, 1e-9, domain=DOMAIN, random_state=rng),
    "MWEM": lambda rng: MWEM(1.0, domain=DOMAIN, iterations=3, random_state=rng),
    **{
        cls.__name__: (
            lambda rng, cls=cls: cls(
                1.0,
                domain=DOMAIN,
                max_iter=5,
                batch_size=16,
                embedding_dim=8,
                generator_dim=(8,),
                discriminator_dim=(8,),
                random_state=rng,
            )
        )
        for cls in (PATECTGAN, PATEGAN)
    },
}
#: Draws that spend no privacy: the DP Mann–Whitney U test simulates its null distribution by
#: pushing simulated statistics through the same noisy pipeline (post-processing, public sizes).
SIMULATION = {
    ("synthtrust.hypothesis.dp_mannwhitney", "_simulate_release"),
    ("synthtrust.hypothesis.null_u", "sample_null_u_normal"),
}


def _check_fit(make):
    rng = SpyGenerator(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = make(rng).fit(_table())
    _check_draws(rng, list(synth.ledger_))


def _check_draws(rng, entries):
    outside = [
        d for d in rng.draws if d[1][0] != GATE and d[0] != "multinomial" and d[1] not in SIMULATION
    ]
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


@pytest.mark.parametrize("name", sorted(GATED))
def test_the_ledger_is_the_noise_drawn(name):
    _check_fit(GATED[name])


def test_the_gswgan_ledger_is_its_sanitised_gradients(monkeypatch):
    """GS-WGAN draws its noise with torch inside the training loop: every ``torch.normal`` call
    is made by the sanitiser of ``synthtrust.privacy.gradients``, one per private iteration at the
    ledger entry's scale, and the accountant's single entry covers exactly those draws."""
    torch = pytest.importorskip("torch")
    from synthtrust.synthesizers import GSWGAN

    draws, normal = [], torch.normal

    def spy(mean, std, *args, **kwargs):
        draws.append((sys._getframe(1).f_globals.get("__name__", "?"), float(std)))
        return normal(mean, std, *args, **kwargs)

    monkeypatch.setattr(torch, "normal", spy)
    rng = SpyGenerator(5)
    synth = GSWGAN(
        30.0,
        domain=DOMAIN,
        subset_size=20,
        pretrain_iterations=2,
        hidden=8,
        max_iter=12,
        random_state=rng,
    ).fit(_table())
    assert [d for d in rng.draws if d[0] != "multinomial"] == []  # no numpy noise at all
    assert {module for module, _ in draws} == {"synthtrust.privacy.gradients"}
    (entry,) = synth.ledger_
    assert entry.mechanism == "subsampled_gaussian" and entry.epsilon == synth.epsilon_spent_
    assert entry.draws == synth.iterations_ == len(draws) == 12
    assert all(std == pytest.approx(entry.scale, rel=1e-12) for _, std in draws)


def test_the_dp_mann_whitney_u_ledger_is_its_two_releases():
    from synthtrust import hypothesis
    from synthtrust.privacy import PrivacyLedger

    r = np.random.default_rng(1)
    x, y = r.normal(size=30), r.normal(size=45)
    rng, ledger = SpyGenerator(3), PrivacyLedger()
    res = hypothesis.dp_mannwhitneyu(x, y, 1.0, n_sim=50, random_state=rng, ledger=ledger)
    _check_draws(rng, list(ledger))
    size, u = list(ledger)
    assert size.epsilon == pytest.approx(0.65) and size.scale == pytest.approx(1 / 0.65)
    assert u.epsilon == pytest.approx(0.35) and u.delta == 1e-6
    assert u.sensitivity == pytest.approx(75 - res.m_lower)
    assert ledger.total_epsilon == pytest.approx(1.0) and ledger.total_delta == 1e-6


def test_the_spy_sees_a_bypass():
    class Bypass(PerturbedHistogram):
        def _fit_counts(self, counts, n):
            super()._fit_counts(counts, n)
            self._rng.laplace(0.0, 1.0, size=3)  # noise that no ledger entry accounts for

    with pytest.raises(AssertionError, match="noise drawn outside"):
        _check_fit(lambda rng: Bypass(1.0, domain=DOMAIN, random_state=rng))
