"""Tests of ``synthtrust.studies.auditing.utility.findings``: the verdict rows against
:mod:`synthtrust.verdicts` computed by hand on the same replicates of a made-up results frame."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.studies.auditing.utility import experiment as U

RNG = np.random.default_rng(11)
#: runs per generator: enough for a bootstrap interval (verdicts.MIN_BOOTSTRAP_REPLICATES)
N = 12
#: generator -> (3-way RMSE, App. 2 accuracy on real, App. 3 accuracy on real, App. 3 Jaro),
#: N runs each; the real model is deterministic
VALUES = {
    "real": (RNG.uniform(3e-4, 4e-4, N), [0.325] * N, [0.448] * N, [1.0] * N),
    "ipf": (RNG.uniform(6e-4, 8e-4, N), 0.325 + RNG.normal(0, 2e-3, N), [0.447] * N, [1.0] * N),
    "pgm": (RNG.uniform(6e-4, 8e-4, N), 0.28 + RNG.normal(0, 2e-3, N), [0.446] * N, [1.0] * N),
    "mst": (RNG.uniform(1e-3, 1.4e-3, N), [0.30] * N, [0.32] * N, [0.83] * N),
    "privbayes": (
        RNG.uniform(1e-3, 2e-3, N),
        [0.32] * N,
        [0.44] * N,
        [0.95, 0.9, 1, 0.94, 0.97, 0.96] * 2,
    ),
}


def _results():
    rows = []
    for g, (rmse, acc2, acc3, jaro) in VALUES.items():
        for rep in range(N):
            rows.append(
                {
                    "generator": g,
                    "rep": rep,
                    "app1_rmse_3way": rmse[rep],
                    "app2_acc_real": acc2[rep],
                    "app2_acc_synthetic": acc2[rep] + 0.01,
                    "app3_acc_real": acc3[rep],
                    "app3_acc_synthetic": acc3[rep],
                    "app3_jaro": jaro[rep],
                }
            )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=2)  # pairs are found by rep


def test_utility_verdict_rows_against_hand_computation():
    table = verdicts.verdict_table(U.utility_verdict_rows(_results(), random_state=3))
    table = table.set_index("finding")
    others = ("mst", "privbayes", "pategan", "ctgan")
    expected = (
        [f"utility_app1_{t}_below_{o}" for t in ("ipf", "pgm") for o in others]
        + [f"utility_app{a}_{t}_real_accuracy" for a in (2, 3) for t in ("ipf", "pgm")]
        + [f"utility_app{a}_{g}_overconfident" for g, a in (("pategan", 2), ("pategan", 3))]
        + ["utility_app2_ctgan_overconfident", "utility_app3_ipf_jaro", "utility_app3_pgm_jaro"]
        + ["utility_app3_pategan_jaro_random", "utility_app3_privbayes_jaro_random"]
    )
    assert list(table.index) == expected
    # IPF vs MST: paired_interval on the 3-way RMSEs of the same runs; IPF's are all lower
    paired = verdicts.paired_interval(VALUES["ipf"][0], VALUES["mst"][0], random_state=3)
    row = table.loc["utility_app1_ipf_below_mst"]
    assert (row.estimate, row.lower, row.upper) == pytest.approx(
        (paired.estimate, paired.lower, paired.upper)
    )
    assert row.n == N and row.verdict == "holds" and row.claim_high == 0
    # App. 2: IPF within ±0.01 of the constant real accuracy, PGM 0.045 below it
    ipf2 = verdicts.paired_interval(VALUES["ipf"][1], VALUES["real"][1], random_state=3)
    assert table.loc["utility_app2_ipf_real_accuracy", "upper"] == pytest.approx(ipf2.upper)
    assert table.loc["utility_app2_ipf_real_accuracy", "verdict"] == "holds"
    assert table.loc["utility_app2_pgm_real_accuracy", "estimate"] == pytest.approx(
        np.mean(VALUES["pgm"][1]) - 0.325
    )
    assert table.loc["utility_app2_pgm_real_accuracy", "verdict"] == "fails"
    # App. 3: constant differences of 0.001 and 0.002, an exact interval inside ±0.007
    app3 = table.loc["utility_app3_pgm_real_accuracy"]
    assert (app3.lower, app3.upper, app3.method) == (
        pytest.approx(-0.002),
        pytest.approx(-0.002),
        "exact",
    )
    assert app3.verdict == "holds"
    # Jaro 1.0 in every run keeps the order; PrivBayes's mean 0.952 is above random
    assert table.loc["utility_app3_ipf_jaro", "verdict"] == "holds"
    pb = verdicts.bootstrap_interval(VALUES["privbayes"][3], random_state=3)
    row = table.loc["utility_app3_privbayes_jaro_random"]
    assert (row.lower, row.upper) == pytest.approx((pb.lower, pb.upper))
    assert row.claim_high == pytest.approx(9019 / 12960) and row.verdict == "fails"
    # generators not run: undetermined with n = 0 and the reason
    for name in ("utility_app1_pgm_below_pategan", "utility_app3_pategan_overconfident"):
        assert table.loc[name, "n"] == 0 and table.loc[name, "verdict"] == "undetermined"
        assert "PATE-GAN (ε = 1000) is not in this preset" in table.loc[name, "note"]
    assert (
        "CTGAN (10 epochs, not DP) is not in this"
        in table.loc["utility_app2_ctgan_overconfident", "note"]
    )
    assert math.isnan(table.loc["utility_app1_ipf_below_ctgan", "estimate"])


def test_utility_verdict_rows_need_replicates():
    with pytest.raises(ValueError, match="rep"):
        U.utility_verdict_rows(_results().drop(columns="rep"))
