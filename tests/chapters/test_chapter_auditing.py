"""Chapter 5 (auditing, Houssiau et al. 2022): presets and the smoke run's outputs — the
verdicts Table 4 expects, the cards' dimensions, the verdicts file."""

import pandas as pd

from synthtrust import verdicts
from synthtrust.run import runner
from synthtrust.studies.auditing import audits as au

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


def test_smoke_run_verdicts(smoke_run_of):
    run = smoke_run_of(NAME)
    smoke = runner.load_params(NAME, "smoke")
    table = verdicts.read_verdicts(run / "results")
    gens = ("ipf_honest", "ipf_dishonest", "pgm_honest", "pgm_dishonest", "cart")
    others = ("mst", "privbayes", "pategan", "ctgan")
    expected = (
        [f"table4_{g}_app{a}" for a in (1, 2, 3) for g in gens]
        + [f"table4_pgm_strongest_app{a}_vs_{o}" for a in (1, 2) for o in ("ipf_dishonest", "cart")]
        + [f"utility_app1_{t}_below_{o}" for t in ("ipf", "pgm") for o in others]
        + [f"utility_app{a}_{t}_real_accuracy" for a in (2, 3) for t in ("ipf", "pgm")]
        + ["utility_app2_pategan_overconfident", "utility_app3_pategan_overconfident"]
        + ["utility_app2_ctgan_overconfident", "utility_app3_ipf_jaro", "utility_app3_pgm_jaro"]
        + ["utility_app3_pategan_jaro_random", "utility_app3_privbayes_jaro_random"]
    )
    assert table.finding.tolist() == expected
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
        assert row.section == "auditing-verdicts"
    # the smoke run audits each of its App. 1 cells n_reps times; other cells are not run
    t4 = table.set_index("finding")
    for g in smoke["generators"][0]:
        assert t4.loc[f"table4_{g}_app1", "n"] == smoke["n_reps"]
    assert (t4.loc[[f"table4_{g}_app2" for g in gens], "n"] == 0).all()
    assert t4.loc["utility_app3_ipf_jaro", "n"] == smoke["utility_runs"]
