"""Tests of synthtrust.studies.hypothesis_validity.findings (chapter 1's verdict rows) against hand
computations on small hand-made error-rate tables: SciPy's exact binomial interval for a cell,
Clopper–Pearson at the Bonferroni level for differences, and the every/some logic of a claim
about several cells."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import verdicts
from synthtrust.studies.hypothesis_validity import findings as hvd
from synthtrust.studies.hypothesis_validity import simulation as hv


def rows(data, method, n, epsilon, k, n_feasible, n_reps=None, test="mannwhitneyu", m=None):
    """Replicates of one cell whose error count is ``k`` of ``n_feasible`` feasible ones."""
    n_reps = n_feasible if n_reps is None else n_reps
    feasible = np.arange(n_reps) < n_feasible
    error = np.arange(n_reps) < k
    reject = error if data == "nonsignal" else feasible & ~error
    return pd.DataFrame(
        {
            "data": data,
            "method": method,
            "n": n,
            "m": n if m is None else m,
            "epsilon": epsilon,
            "rep": np.arange(n_reps),
            "test": test,
            "reject": reject & feasible,
            "feasible": feasible,
        }
    )


def cp(k, n, level=0.95):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    return ci.low, ci.high


def by_name(table):
    return {r["finding"]: r for r in table}


def test_cell_interval_is_the_exact_binomial_interval():
    rates = hv.error_rates(rows("nonsignal", "mwem", 100, 1.0, 3, 10, n_reps=12))
    ci = hvd.cell_interval(next(rates.itertuples()))
    assert (ci.estimate, ci.n) == (0.3, 10)
    assert (ci.lower, ci.upper) == pytest.approx(cp(3, 10), rel=1e-9)
    nan = rates.assign(rate=np.nan)
    assert hvd.cell_interval(next(nan.itertuples())) is None


def interval(lo, hi):
    return verdicts.Interval((lo + hi) / 2, lo, hi, 10, 0.1, "clopper-pearson")


def test_decisive_cell_gives_the_verdict_of_an_every_and_a_some_claim():
    holds, near, undet, fails = (
        ("a", interval(0.2, 0.4)),
        ("b", interval(0.06, 0.3)),
        ("c", interval(0.01, 0.2)),
        ("d", interval(0.0, 0.04)),
    )
    claim = (0.05, math.inf)
    assert hvd.decisive([holds, near], *claim)[0] == "b"  # both hold: the nearest decides
    assert hvd.decisive([holds, undet], *claim)[0] == "c"
    assert hvd.decisive([holds, undet, fails], *claim)[0] == "d"
    assert hvd.decisive([holds, undet, fails], *claim, every=False)[0] == "a"
    assert hvd.decisive([undet, fails], *claim, every=False)[0] == "c"
    assert hvd.decisive([("x", None)], *claim) is None


def test_claim_row_without_rates_or_with_a_missing_cell_is_undetermined():
    empty = hvd.claim_row("x", "p", [], 0.05, math.inf)
    assert empty["n"] == 0 and empty["verdict"] == "undetermined"
    assert "not in this run's grid" in empty["note"]
    one_missing = [("a", interval(0.2, 0.4)), ("b", None)]
    row = hvd.claim_row("x", "p", one_missing, 0.05, math.inf)
    assert row["n"] == 0 and row["verdict"] == "undetermined" and "1 of 2" in row["note"]
    # a failing cell decides an every-claim whatever the missing cell holds
    failing = [("a", interval(0.0, 0.04)), ("b", None)]
    assert hvd.claim_row("x", "p", failing, 0.05, math.inf)["verdict"] == "fails"


def test_verdict_rows_of_a_hand_made_run():
    gauss = hv.error_rates(
        pd.concat(
            [
                rows("nonsignal", "dp_mwu", 50, 1.0, 1, 40, test="dp_mwu"),
                rows("nonsignal", "dp_mwu", 500, 1.0, 3, 40, test="dp_mwu"),  # the worst cell
                rows("nonsignal", "mwem", 500, 0.1, 12, 30, n_reps=40),
                rows("nonsignal", "mwem", 500, 10.0, 3, 40),
                rows("signal", "smoothed_histogram", 20000, 1.0, 30, 40, m=500),
            ],
            ignore_index=True,
        )
    )
    cardio = hv.error_rates(
        pd.concat(
            [
                rows("cardio", m, n, 0.1, k, 40, test="dp_mwu" if m == "dp_mwu" else "mannwhitneyu")
                for m, n, k in [
                    ("private_pgm", 500, 30), ("private_pgm", 20000, 4), ("mwem", 500, 20),
                    ("mwem", 20000, 10), ("perturbed_histogram", 500, 25),
                    ("perturbed_histogram", 20000, 5), ("dp_mwu", 500, 20), ("dp_mwu", 20000, 2),
                ]
            ],
            ignore_index=True,
        )
    )  # fmt: skip
    table = verdicts.verdict_table(hvd.verdict_rows(gauss, cardio, section="s"))
    got = by_name(table.to_dict("records"))
    dp = got["dp_mwu_type1_close_to_alpha"]
    assert (dp["lower"], dp["upper"]) == pytest.approx(cp(3, 40), rel=1e-9)
    assert dp["claim_high"] == pytest.approx(0.075) and dp["verdict"] == "undetermined"
    assert "n = 500" in dp["note"] and "2 cells" in dp["note"]
    mwem = got["mwem_type1_high_eps_below_5"]
    assert mwem["n"] == 30 and (mwem["lower"], mwem["upper"]) == pytest.approx(cp(12, 30))
    assert mwem["verdict"] == verdicts.decide(*cp(12, 30), 0.05, math.inf) == "holds"
    eps10 = got["mwem_type1_high_eps10"]
    assert eps10["estimate"] == pytest.approx(3 / 40)
    smooth = got["smoothed_type2_high_eps_le_1"]
    assert (smooth["lower"], smooth["upper"]) == pytest.approx(cp(30, 40))
    for name in (
        "perturbed_histogram_type1_close_to_alpha_n20000_eps1",
        "smoothed_type1_close_to_alpha",
    ):
        assert got[name]["n"] == 0 and got[name]["verdict"] == "undetermined"  # not run
    gain = got["cardio_private_pgm_gain"]
    want = verdicts.rate_difference([(4, 40)], [(30, 40)])
    assert (gain["estimate"], gain["lower"], gain["upper"]) == pytest.approx(
        (want.estimate, want.lower, want.upper)
    )
    assert gain["verdict"] == "holds"
    more = got["cardio_mwem_gains_more_than_dp_mwu"]
    want = verdicts.rate_difference([(10, 40), (20, 40)], [(20, 40), (2, 40)])
    assert (more["lower"], more["upper"]) == pytest.approx((want.lower, want.upper))
    assert all(table.section == "s")
