"""Tests of ``synthtrust.studies.dp_auditing.tightness`` (chapter 6's tightness table). Oracles:
the bounds recomputed from the audit's own counts (mu_lower_bound, epsilon_lower_bound), the
Gaussian-DP μ = √(2ρ) of ρ = cdp_rho(1, 1e-2), the true μ of MST's measurements
(√(2·2ρ/3): a third of ρ goes to the tree's selection), and fits_to_reach by hand."""

import math

import pandas as pd
import pytest

from synthtrust.dp_audit import fits_to_reach
from synthtrust.privacy import cdp_rho
from synthtrust.studies.dp_auditing import tightness as dt


def test_the_tightness_table_audits_mst_by_gaussian_dp_against_its_zcdp_claim():
    table = dt.tightness_table({"mst": 2000}, seed=3, n_jobs=1, progress=False)
    (row,) = table.to_dict("records")
    mu = math.sqrt(2 * cdp_rho(1.0, 1e-2))
    assert row["claimed"] == pytest.approx(mu) and row["fits"] == 2000
    assert row["statistic"] == "whitebox (likelihood_ratio)"
    assert row["bound / claim"] == pytest.approx(row["lower bound"] / mu)
    # the measurements' own μ caps every budget, below 90 % of the claim
    true_mu = math.sqrt(2 * 2 * cdp_rho(1.0, 1e-2) / 3)
    assert 0.15 < row["lower bound"] < true_mu < 0.9 * mu
    assert row["fits for 0.9 × claim"] > 2000  # extrapolated from 2 000 fits' noisy rates
    assert row["published"] == "μ ≈ 0.43 of 0.45" and row["verdict"] == "no violation detected"


def test_the_histogram_row_is_the_pure_epsilon_bound():
    table = dt.tightness_table({"perturbed_histogram": 1000}, seed=0, n_jobs=1, progress=False)
    (row,) = table.to_dict("records")
    assert row["claim"] == "ε = 1" and row["claimed"] == 1.0
    assert 0 < row["lower bound"] < 1 and math.isfinite(row["fits for 0.9 × claim"])
    assert row["published"] == "—"


def test_the_budget_table_extrapolates_each_audit_from_its_eval_rates():
    audits = pd.DataFrame(
        [
            {
                "generator": "G",
                "epsilon": 1.0,
                "delta": 0.0,
                "fits": 1000,
                "score": "s",
                "fp": 150,
                "fn": 250,
                "n eval": 800,
                "epsilon_lb": 0.2,
                "seconds": 10.0,
            },
            {
                "generator": "H",
                "epsilon": 4.0,
                "delta": 0.0,
                "fits": 1000,
                "score": "s",
                "fp": 1,
                "fn": 1,
                "n eval": 800,
                "epsilon_lb": 0.2,
                "seconds": 10.0,
            },
        ]
    )
    (row,) = dt.budget_table(audits).to_dict("records")
    per_world = fits_to_reach(150 / 400, 250 / 400, 0.5, bound="epsilon")
    assert row["fits for 0.5 × claim"] == pytest.approx(2 * per_world * 1000 / 800)
    assert row["hours for 0.5 × claim"] == pytest.approx(row["fits for 0.5 × claim"] * 0.01 / 3600)
    assert row["bound / claim"] == 0.2 and row["seconds a fit"] == 0.01


def test_an_unknown_audit_is_a_key_error():
    with pytest.raises(KeyError):
        dt.tightness_table({"dpmm": 100}, n_jobs=1, progress=False)
