import math

import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.dp_audit import ceiling, worst_case
from synthtrust.studies.dp_auditing import audits as da
from synthtrust.synthesizers import MST, PATECTGAN


def test_the_fits_table_is_the_ceiling_of_the_eval_fits():
    table = da.fits_table([200, 2000])
    assert table["ceiling (split)"].round(2).tolist() == [2.57, 4.91]
    assert table["ceiling (fixed rule)"].round(2).tolist() == [3.28, 5.60]


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0, 4.0])
def test_fewest_fits_is_the_first_budget_whose_ceiling_exceeds_epsilon(epsilon):
    n = da.fewest_fits(epsilon)
    assert n % 4 == 0
    assert ceiling(n // 4) > epsilon >= ceiling(n // 4 - 1)


def test_fewest_fits_at_a_large_epsilon_is_four_ln_two_over_alpha_e_to_the_epsilon():
    """ln(e^ε/(1 + e^ε)) = −e^−ε (1 + O(e^−ε)): about 4·ln(40)·e^ε fits at α = 5 % (GS-WGAN's
    true ε ≥ 29.67 of chapter 1's ε = 1 rows needs 1.1e14), finite where e^ε/(1 + e^ε)
    rounds to 1."""
    for epsilon in (29.67, 224.9):
        expected = 4 * math.log(40) * math.exp(epsilon)
        assert da.fewest_fits(epsilon) == pytest.approx(expected, rel=1e-9)


def test_the_claimed_delta_is_the_parameter_else_the_ledger():
    worlds = worst_case("add_remove")
    assert da._claimed_delta(MST(epsilon=1.0, delta=1e-7), worlds) == 1e-7
    # PATE-CTGAN's delta defaults to None: the ledger's, 1/n-sized, on the game's 10 records
    pate = da._claimed_delta(PATECTGAN(epsilon=1.0, max_iter=1), worlds)
    assert 0 < pate < 1


def test_planted_rows_pair_each_bug_with_its_twin():
    table = da.planted_table({"bootstrap": 100}, n_jobs=1, progress=False)
    assert table.generator.tolist() == [
        "non-private bootstrap",
        "correct twin: perturbed histogram",
    ]
    assert table.verdict.tolist()[0] == "violation"
    assert table.verdict.tolist()[1] != "violation"
    assert (table.fits == 100).all()


def test_the_pate_gan_bug_is_paired_with_the_correct_pate_gan():
    table = da.planted_table({"pate_domain": 40}, n_jobs=1, progress=False)
    assert table.generator.tolist() == ["PATE-GAN, domain from the data", "correct twin: PATE-GAN"]
    assert table.verdict.tolist() == ["violation", "no violation detected"]
    assert (table.fp.tolist(), table.fn.tolist()) == ([0, 20], [0, 0])


def test_the_sensitivity_bug_is_audited_by_the_whitebox_and_the_learned_score():
    table = da.planted_table({"sensitivity_ignored": 2000}, n_jobs=1, progress=False)
    assert table.score.tolist() == [
        "whitebox (likelihood_ratio)",
        "whitebox (likelihood_ratio)",
        "learned (classifier)",
        "learned (classifier)",
    ]
    assert table.verdict.tolist()[::2] == ["violation", "violation"]
    assert "violation" not in table.verdict.tolist()[1::2]


def _frame(**columns):
    return pd.DataFrame(columns)


def test_verdict_rows_follow_from_the_audits():
    calib = _frame(verdict=["no violation detected"] * 100, fits=[200] * 100)
    planted = _frame(
        generator=["non-private bootstrap", "correct twin: perturbed histogram"] * 2,
        bug=["bootstrap"] * 4,
        truth=["true ε = ∞"] * 4,
        fits=[100] * 4,
        score=["count (exact_cell)"] * 2 + ["learned (classifier)"] * 2,
        epsilon_lb=[2.57, 0.0, 0.9, 0.0],
    )
    pb = _frame(
        noise=["datasynthesizer-0.1.3", "dp"],
        epsilon=[0.1, 0.1],
        fits=[200, 200],
        epsilon_lb=[0.05, 0.0],
    )
    rows = {r["finding"]: r for r in da.verdict_rows(calib, planted, pb)}
    assert set(rows) == {
        "calibration_false_violations",
        "planted_bootstrap_violation",
        "planted_bootstrap_violation_learned",
        "privbayes_ds_violation_eps0.1",
    }
    calib_row = rows["calibration_false_violations"]
    assert (calib_row["estimate"], calib_row["upper"]) == (
        0.0,
        verdicts.rate_interval(0, 100).upper,
    )
    assert calib_row["verdict"] == "holds"  # [0, 3.6 %] lies below 5 %
    one = calib.assign(verdict=["violation"] + ["no violation detected"] * 99)
    # one false violation in 100: [0.03 %, 5.4 %] straddles 5 %
    assert da.verdict_rows(one, planted, pb)[0]["verdict"] == "undetermined"
    assert rows["planted_bootstrap_violation"]["verdict"] == "holds"
    assert rows["planted_bootstrap_violation"]["upper"] == math.inf
    # the learned score's bound 0.9 does not exceed the claim 1: undetermined
    assert rows["planted_bootstrap_violation_learned"]["verdict"] == "undetermined"
    # a bound below the nominal epsilon shows nothing: undetermined, never "fails"
    assert rows["privbayes_ds_violation_eps0.1"]["verdict"] == "undetermined"


def test_the_one_run_table_finds_the_bootstrap_and_misses_the_reused_noise():
    table = da.one_run_table(1000).set_index("generator")
    assert table.loc["non-private bootstrap", "verdict"] == "violation"
    assert table.loc["noise reused across fits", "verdict"] != "violation"
    assert table.loc["correct twin: perturbed histogram", "verdict"] != "violation"
    assert (table.guesses == 50).all() and (table.epsilon_lb <= table.ceiling).all()
    # a GAN's one run holds every canary's level: the PATE-GAN bug has no one-run row
    assert len(table) == 4 and "PATE-GAN, domain from the data" not in table.index


def test_the_audit_chart_plots_the_bound_the_ceiling_and_the_claim():
    audits = pd.DataFrame(
        {
            "generator": ["MST", "AIM", "MST"],
            "epsilon": [1.0, 1.0, 4.0],
            "fits": [100] * 3,
            "epsilon_lb": [0.2, 0.0, 0.5],
            "ceiling": [1.6, 1.6, 1.6],
            "verdict": ["no violation detected", "no violation detected", "underpowered"],
        }
    )
    spec = da.audit_chart(audits).to_dict()
    (values,) = spec["datasets"].values()
    assert [v["bound"] for v in values] == [0.2, 0.0, 0.5]
    assert [v["claim"] for v in values] == [1.0, 1.0, 4.0]
    assert spec["facet"]["column"]["field"] == "epsilon"


def test_each_audited_relation_is_the_one_its_synthesizer_declares():
    for label, cls, relation, _ in da.GENERATORS.values():
        assert cls.neighbouring == relation, label
