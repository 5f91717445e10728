"""The two-step audit (Houssiau et al. 2022, Eqs. 5–7): honest IPF passes with uniform p-values,
dishonest IPF and sequential CART are rejected and the leak is located, the t-test and its
log p against SciPy, determinism, and bad input."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust.audit import GeneratorCard, complement_basis
from synthtrust.audit.two_step import AuditResult, _log10_p, audit, instantiate
from synthtrust.presentation.report import render_audit_html
from synthtrust.synthesizers import IPF, SequentialCART

COLUMNS = {"a": 3, "b": 3, "c": 2}
CARD = GeneratorCard.two_way(COLUMNS)
PAIRS = [list(m) for m in CARD.marginals]
BASIS = complement_basis(CARD, "next")
KW = {"basis": BASIS, "copies": 100, "k_select": 5, "k_audit": 5, "n_jobs": 1}


def honest(random_state):
    return IPF(PAIRS, domain=COLUMNS, random_state=random_state)


def dishonest(random_state):
    return IPF.dishonest(PAIRS, ("a", "b", "c"), domain=COLUMNS, random_state=random_state)


def test_the_basis_probes_the_three_way_interaction():
    # M = 18 cells; 2-way card: 1 + 2 + 2 + 1 + 4 + 2 + 2 = 14; the 3-way bins add 4
    assert CARD.cells == 18 and BASIS.phi_rank == 14 and BASIS.dim == 4


def test_honest_ipf_is_not_rejected_and_dishonest_is_with_the_leak_located():
    ok = audit(honest, CARD, random_state=1, **KW)
    bad = audit(dishonest, CARD, random_state=1, **KW)
    assert isinstance(ok, AuditResult) and ok.df == 8
    assert not ok.rejected and ok.pvalue > 0.01
    assert bad.rejected and bad.pvalue < 1e-6 and bad.log10_pvalue < -6
    assert abs(bad.statistic) > 10
    # the dishonest generator reproduces the 3-way interaction: all of β*'s energy is there
    assert bad.leak.index[0] == ("a", "b", "c") and bad.leak.iloc[0] == pytest.approx(1.0)
    # D- and D+ keep the declared marginals, so the honest generator's y± agree in mean
    assert ok.g_minus < ok.g_star < ok.g_plus
    assert "NOT REJECTED" in ok.summary() and "not a proof" in ok.summary()
    assert "REJECTED at α = 0.01" in bad.summary() and "(a, b, c) 100%" in bad.summary()


def test_sequential_cart_is_rejected():
    def cart(random_state):
        return SequentialCART(min_samples_leaf=5, domain=COLUMNS, random_state=random_state)

    res = audit(cart, CARD, random_state=3, **KW)
    assert res.rejected and res.pvalue < 1e-3


def test_honest_p_values_are_uniform():
    """Under the null the test's p-value is uniform: 20 seeded audits of honest IPF pass a
    Kolmogorov–Smirnov test against U(0, 1) (and none is tiny)."""
    ps = [
        audit(
            honest, CARD, random_state=s, basis=BASIS, copies=100, k_select=3, k_audit=4, n_jobs=1
        ).pvalue
        for s in range(20)
    ]
    assert stats.kstest(ps, "uniform").pvalue > 0.01
    assert min(ps) > 1e-4


def test_t_statistic_and_log_p_equal_scipy():
    res = audit(honest, CARD, random_state=5, **KW)
    ref = stats.ttest_ind(res.y_plus, res.y_minus, equal_var=True)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.log10_pvalue == pytest.approx(math.log10(ref.pvalue), rel=1e-9)
    # far beyond underflow: log10 p from the t tail, against its asymptote
    # sf(t; ν) ≈ Γ((ν+1)/2) ν^((ν-2)/2) / (√π Γ(ν/2)) · t^(-ν) for t → ∞; SciPy's logsf
    # is finite at t = 1e14 and -inf at 1e20, where the incomplete-beta series takes over
    from scipy.special import gammaln

    nu = 18
    log_c = (
        gammaln((nu + 1) / 2)
        - gammaln(nu / 2)
        - 0.5 * math.log(math.pi)
        + (nu - 2) / 2 * math.log(nu)
    )
    for t in (1e14, 1e20):
        asymptote = (math.log(2) + log_c - nu * math.log(t)) / math.log(10)
        assert _log10_p(t, nu) == pytest.approx(asymptote, rel=1e-9)
        assert _log10_p(-t, nu) == _log10_p(t, nu)
    assert np.isfinite(stats.t.logsf(1e14, nu)) and stats.t.logsf(1e20, nu) == -np.inf
    assert _log10_p(2.0, 18) == pytest.approx(math.log10(2 * stats.t.sf(2.0, 18)), rel=1e-12)


def test_audit_is_deterministic_and_serialises():
    a = audit(honest, CARD, random_state=7, **KW)
    b = audit(honest, CARD, random_state=7, **KW)
    np.testing.assert_array_equal(a.y_plus, b.y_plus)
    np.testing.assert_array_equal(a.direction, b.direction)
    d = json.loads(a.to_json())
    assert d["df"] == 8 and d["card"]["marginals"] == [list(m) for m in CARD.marginals]
    assert np.linalg.norm(a.direction) == pytest.approx(1.0)
    page = render_audit_html(a)
    assert page.startswith("<!DOCTYPE html>") and "vegaEmbed" in page
    assert "NOT REJECTED at α = 0.01" in page and "a, b" in page
    assert "http://" not in page and "https://" not in page  # offline: no external resource


def test_an_estimator_instance_is_cloned_with_the_training_seed():
    gen = instantiate(IPF(PAIRS, domain=COLUMNS), 11)
    assert gen.random_state == 11 and not hasattr(gen, "table_")


class _NoSample:
    def fit(self, X):
        return self


class _Raises:
    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X):
        raise ArithmeticError("boom")

    def sample(self, n):
        return None


class _WrongColumns(_Raises):
    def fit(self, X):
        self.n = len(X)
        return self

    def sample(self, n):
        return pd.DataFrame({"a": np.zeros(n, dtype=int)})


def test_bad_input():
    with pytest.raises(TypeError, match="lacks sample"):
        audit(lambda rs: _NoSample(), CARD, **KW)
    with pytest.raises(TypeError, match="factory"):
        audit(42, CARD, **KW)
    with pytest.raises(RuntimeError, match=r"training minus#0 of step 1 failed: ArithmeticError"):
        audit(_Raises, CARD, random_state=0, **KW)
    with pytest.raises(ValueError, match=r"sample lacks the column\(s\) \['b', 'c'\]"):
        audit(_WrongColumns, CARD, random_state=0, **KW)
    with pytest.raises(ValueError, match="k_audit must be >= 2"):
        audit(honest, CARD, **{**KW, "k_audit": 1})
    with pytest.raises(ValueError, match="alpha"):
        audit(honest, CARD, alpha=1.5, **KW)
    with pytest.raises(TypeError, match="GeneratorCard"):
        audit(honest, COLUMNS, **KW)
    full = GeneratorCard(COLUMNS, [("a", "b", "c")])
    with pytest.raises(ValueError, match="nothing to audit"):
        audit(honest, full, candidates=3, copies=10, k_select=2, k_audit=2, n_jobs=1)
