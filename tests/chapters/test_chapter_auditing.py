"""Chapter 5 (auditing, Houssiau et al. 2022): presets and the smoke run's outputs — the
verdicts Table 4 expects, the cards' dimensions, the findings table."""

import pandas as pd

from synthtrust import runner
from synthtrust.studies import auditing as au

NAME = "auditing"


def test_paper_preset_is_the_published_study():
    paper = runner.load_params(NAME, "paper")
    assert paper["applications"] == [1, 2, 3]
    assert paper["k_select"] == 10 and paper["k_audit"] == 10
    assert paper["copies"] == [1000, 1000, 10] and paper["support"] == 10000
    assert paper["n_candidates"] == 1000
    for gens in paper["generators"]:
        assert set(au.PAPER_GENERATORS) <= set(gens)


def test_smoke_run_outputs(smoke_run_of):
    run = smoke_run_of(NAME)
    smoke = runner.load_params(NAME, "smoke")
    summary = pd.read_csv(run / "results" / "summary.csv")
    cards = pd.read_csv(run / "results" / "cards.csv")
    # App. 1: M = 200, dim Φ = 119 (with the constant), 81 probed directions (all 3-way bins)
    app1 = cards[cards.application == "App. 1"].iloc[0]
    assert (app1.M, app1["dim Φ"], app1["probed k"]) == (200, 119, 81)
    # every verdict is the one Table 4 expects: honest pass, dishonest and CART rejected
    assert summary.agrees.all()
    assert set(summary.generator) >= set(smoke["generators"][0])
    rejected = summary.set_index("generator").rejected
    assert rejected["ipf_dishonest"] == 1 and rejected["cart"] == 1
    assert rejected["ipf_honest"] == 0
    findings = pd.read_csv(run / "results" / "findings.csv")
    assert findings.key.tolist()[:3] == ["honest_pass", "dishonest_fail", "cart_fail"]


def test_smoke_run_power_curve(smoke_run_of):
    run = smoke_run_of(NAME)
    smoke = runner.load_params(NAME, "smoke")
    curve = pd.read_csv(run / "results" / "power_curve.csv")
    assert sorted(curve.leak) == sorted(smoke["power_leaks"])
    assert (curve.audits == smoke["power_audits"]).all()
    # a 30 % leak is caught in every audit (its median |t| is far above the null's)
    strong = curve[curve.leak == max(smoke["power_leaks"])].iloc[0]
    null = curve[curve.leak == 0].iloc[0]
    assert strong.rate == 1.0 and strong.median_t > 5 * abs(null.median_t)
    assert ((curve.low <= curve.rate) & (curve.rate <= curve.high)).all()


def test_smoke_run_utility_tables(smoke_run_of):
    run = smoke_run_of(NAME)
    smoke = runner.load_params(NAME, "smoke")
    summary = pd.read_csv(run / "results" / "utility_summary.csv").set_index("generator")
    assert set(summary.index) == {"real", *smoke["utility_generators"]}
    assert (summary.runs == smoke["utility_runs"]).all()
    # the real row scores its own test split on both sides and orders features like itself
    real = summary.loc["real"]
    assert real.app2_acc_real == real.app2_acc_synthetic and real.app3_jaro == 1.0
    # accuracies are shares, RMSEs small and positive, Jaro within [0, 1]
    for col in ("app2_acc_real", "app3_acc_real", "app3_acc_synthetic", "app3_jaro"):
        assert summary[col].between(0, 1).all()
    assert (summary.app1_rmse_3way > 0).all() and (summary.app1_rmse_3way < 0.02).all()
    found = pd.read_csv(run / "results" / "utility_findings.csv")
    assert found.key.tolist()[0] == "tailored_3way"
