"""Tests of ``synthtrust.synthesizers.marginal.budget``.

The oracles and the shared set-up are described in ``tests/synthesizers/_marginal_data.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _marginal_data import REL
from _marginal_models import _random_model

from synthtrust.privacy import cdp_rho
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.aim import AIM
from synthtrust.synthesizers.mst import MST
from synthtrust.synthesizers.mwem_pgm import MWEMPGM


# --------------------------------------------------------------------------------------------
# parameter functions vs the reference mechanisms' noise scales on adult (d = 14)
# --------------------------------------------------------------------------------------------
def test_budget_functions_match_reference_vectors():
    rho = cdp_rho(1.0, 1e-9)
    b = mg.mst_budget(rho, 14)
    assert b["sigma"] == pytest.approx(10.01, abs=0.01)
    assert b["sigma_1way"] == pytest.approx(37.5, abs=0.05)
    assert b["sigma_2way"] == pytest.approx(36.1, abs=0.05)
    assert b["epsilon_edge"] == pytest.approx(0.055, abs=0.0005)
    sigma, eps = mg.aim_budget(rho, 16 * 14)
    assert sigma == pytest.approx(91.2, abs=0.05)
    assert eps == pytest.approx(0.0073, abs=0.00005)
    sigma, eps = mg.mwem_pgm_budget(rho, 14)
    assert sigma == pytest.approx(22.8, abs=0.05)
    assert eps == pytest.approx(0.029, abs=0.0005)
    # each split adds up to rho
    d = 14
    tot = (
        d / (2 * b["sigma_1way"] ** 2)
        + (d - 1) * b["epsilon_edge"] ** 2 / 8
        + (d - 1) / (2 * b["sigma_2way"] ** 2)
    )
    assert tot == pytest.approx(rho, rel=1e-12)
    one = mg.mst_budget(rho, 1)
    assert 1 / (2 * one["sigma_1way"] ** 2) == pytest.approx(rho, rel=1e-12)
    with pytest.raises(ValueError, match="rho"):
        mg.mst_budget(0.0, 3)


# --------------------------------------------------------------------------------------------
# property: the ledger always sums to cdp_rho(ε, δ)
# --------------------------------------------------------------------------------------------
def _stub_fit(self, measurements, *, max_iter, warm_start=None):
    """A fitter without JAX: random potentials on the measured cliques (any model is allowed)."""
    cliques = sorted({m.clique for m in measurements}, key=lambda c: (len(c), c))
    cliques = [c for c in cliques if not any(set(c) < set(o) for o in cliques)]
    seed = len(measurements) + 7 * sum(sum(c) for c in cliques)
    return _random_model(self.sizes, cliques, seed, total=mg.total_estimate(measurements))


def _ledger_cases(seed: int):
    rng = np.random.default_rng(seed)
    for case in range(10):
        eps = float(np.exp(rng.uniform(np.log(0.01), np.log(50))))
        delta = float(np.exp(rng.uniform(np.log(1e-9), np.log(1e-3))))
        d = int(rng.integers(1, 6))
        sizes = {f"v{i}": int(rng.integers(1, 6)) for i in range(d)}
        n = int(rng.integers(20, 80))
        df = pd.DataFrame({c: rng.integers(0, k, n) for c, k in sizes.items()})
        yield case, eps, delta, sizes, df


def test_ledger_property_random_budgets_and_domains():
    """Real fits (few iterations) on random budgets and domains: the ledger sums to cdp_rho."""
    for case, eps, delta, sizes, df in _ledger_cases(2024):
        rho = cdp_rho(eps, delta)
        for synth in (
            MST(eps, delta, domain=sizes, max_iter=50, random_state=case),
            MWEMPGM(eps, delta, domain=sizes, max_iter=50, random_state=case),
            AIM(eps, delta, domain=sizes, max_iter=50, random_state=case),
        ):
            synth.fit(df)
            assert synth.ledger_.total_rho == pytest.approx(rho, rel=REL), (
                case,
                type(synth).__name__,
            )
            out = synth.sample(10)
            assert out.shape == (10, len(sizes)) and not out.isna().any().any()
            assert all(out[c].between(0, k - 1).all() for c, k in sizes.items())


def test_ledger_property_with_arbitrary_models(monkeypatch):
    """The budget logic holds whatever model the fitter returns (random potentials drive AIM's
    annealing and selections through many different paths)."""
    monkeypatch.setattr(mg.PGMFitter, "fit", _stub_fit)
    for case, eps, delta, sizes, df in _ledger_cases(7):
        rho = cdp_rho(eps, delta)
        for synth in (
            MST(eps, delta, domain=sizes, random_state=case),
            MWEMPGM(eps, delta, domain=sizes, random_state=case),
            AIM(eps, delta, domain=sizes, random_state=case),
        ):
            synth.fit(df)
            assert synth.ledger_.total_rho == pytest.approx(rho, rel=REL), (
                case,
                type(synth).__name__,
            )
