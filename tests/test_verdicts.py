"""Tests of synthtrust.verdicts. Oracles: SciPy's binomtest and bootstrap, the closed forms of
the Clopper–Pearson ends at 0 and n successes, hand-computed sample sizes, and coverage and
power measured by simulation on known distributions (fixed seeds, binomial bands)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import verdicts as v

INF = math.inf


def test_rate_interval_is_scipys_clopper_pearson():
    for k, n in [(0, 10), (3, 200), (17, 40), (40, 40)]:
        ci = stats.binomtest(k, n).proportion_ci(0.95, "exact")
        got = v.rate_interval(k, n)
        # the closed form (beta quantiles) of SciPy's root-finding limits
        assert (got.lower, got.upper) == pytest.approx((ci.low, ci.high), abs=1e-11)
        assert got.estimate == k / n and got.n == n
        assert got.sd == pytest.approx(math.sqrt(k / n * (1 - k / n)))


def test_rate_interval_closed_forms_at_the_ends():
    # P(X = 0) = (1 - u)^n = α/2 gives the upper end at 0 successes; symmetric at n.
    n = 50
    assert v.rate_interval(0, n).upper == pytest.approx(1 - 0.025 ** (1 / n), rel=1e-9)
    assert v.rate_interval(0, n).lower == 0
    assert v.rate_interval(n, n).lower == pytest.approx(0.025 ** (1 / n), rel=1e-9)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((5, 3), ValueError, "successes must be in"),
        ((-1, 3), ValueError, "successes must be >= 0"),
        ((1.5, 3), TypeError, "successes must be an integer"),
        ((1, 0), ValueError, "n must be >= 1"),
    ],
)
def test_rate_interval_rejects_bad_counts(args, error, match):
    with pytest.raises(error, match=match):
        v.rate_interval(*args)


def test_rate_interval_rejects_bad_confidence():
    with pytest.raises(ValueError, match="confidence"):
        v.rate_interval(1, 3, confidence=1.0)


def test_bootstrap_interval_is_scipys_bca():
    x = np.random.default_rng(1).exponential(size=25)
    for stat in (np.mean, np.median):
        got = v.bootstrap_interval(x, stat, n_resamples=2000, random_state=7)
        ref = stats.bootstrap(
            (x,), stat, n_resamples=2000, method="BCa", rng=np.random.default_rng(7)
        )
        assert got.lower == pytest.approx(ref.confidence_interval.low, rel=1e-12)
        assert got.upper == pytest.approx(ref.confidence_interval.high, rel=1e-12)
        assert got.estimate == stat(x)
        assert got.sd == pytest.approx(ref.standard_error * 5, rel=1e-12)
        assert got.lower <= got.estimate <= got.upper


def test_bootstrap_interval_degenerate_and_single_replicate():
    same = v.bootstrap_interval([0.25] * v.MIN_BOOTSTRAP_REPLICATES)
    assert (same.lower, same.estimate, same.upper, same.method) == (0.25, 0.25, 0.25, "exact")
    few = v.bootstrap_interval([0.25] * (v.MIN_BOOTSTRAP_REPLICATES - 1))
    assert (few.lower, few.estimate, few.upper) == (-INF, 0.25, INF)
    one = v.bootstrap_interval([0.7])
    assert (one.lower, one.upper, one.n) == (-INF, INF, 1)
    assert v.decide(one.lower, one.upper, 0.5, INF) == "undetermined"


def test_too_few_replicates_give_no_interval_but_a_spread():
    """Below MIN_BOOTSTRAP_REPLICATES the BCa interval under-covers (the constant's comment):
    no interval, but the bootstrap's spread, so the row can say how many would decide it."""
    x = np.random.default_rng(3).normal(0.5, 1.0, 5)
    few = v.bootstrap_interval(x, random_state=1)
    ref = stats.bootstrap((x,), np.mean, method="BCa", rng=np.random.default_rng(1))
    assert (few.lower, few.upper, few.n) == (-INF, INF, 5)
    assert few.sd == pytest.approx(ref.standard_error * math.sqrt(5), rel=1e-12)
    assert v.decide(few.lower, few.upper, 0.0, INF) == "undetermined"
    assert v.replicates_to_decide(few, 0.0, INF) >= v.MIN_BOOTSTRAP_REPLICATES


def test_bootstrap_interval_rejects_bad_values():
    with pytest.raises(ValueError, match="x contains NaN"):
        v.bootstrap_interval([1.0, np.nan])
    with pytest.raises(ValueError, match="x is empty"):
        v.bootstrap_interval([])
    with pytest.raises(ValueError, match="n_resamples must be >= 1"):
        v.bootstrap_interval([1.0, 2.0], n_resamples=0)


def test_paired_interval_is_the_interval_of_the_differences():
    rng = np.random.default_rng(2)
    shared = rng.normal(size=40)  # what the replicates share cancels in the pairs
    x, y = shared + rng.normal(0.2, 0.1, 40), shared + rng.normal(0.0, 0.1, 40)
    got = v.paired_interval(x, y, random_state=3)
    ref = v.bootstrap_interval(x - y, random_state=3)
    assert (got.lower, got.upper) == pytest.approx((ref.lower, ref.upper), rel=1e-9)
    assert got.estimate == pytest.approx(np.mean(x) - np.mean(y))
    # unpaired, the shared part would swamp the 0.2 gap; paired, the gap is decided
    assert v.decide(got.lower, got.upper, 0.0, INF) == "holds"
    assert got.upper - got.lower < 0.1


def test_paired_interval_of_medians_resamples_pairs():
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=30), rng.normal(size=30)
    got = v.paired_interval(x, y, np.median, n_resamples=999, random_state=5)
    ref = stats.bootstrap(
        (x, y),
        lambda a, b, axis=-1: np.median(a, axis=axis) - np.median(b, axis=axis),
        paired=True,
        n_resamples=999,
        method="BCa",
        rng=np.random.default_rng(5),
    )
    assert (got.lower, got.upper) == (ref.confidence_interval.low, ref.confidence_interval.high)


def test_paired_interval_rejects_unequal_lengths():
    with pytest.raises(ValueError, match="same replicates, got 3 and 2"):
        v.paired_interval([1.0, 2.0, 3.0], [1.0, 2.0])


def test_paired_interval_constant_difference_is_a_point():
    x = np.arange(10.0)
    got = v.paired_interval(x, x - 0.5, random_state=0)
    assert got.lower == pytest.approx(0.5) and got.upper == pytest.approx(0.5)


def test_coverage_by_simulation():
    """≥ 93 % coverage at nominal 95 %: Clopper–Pearson (exact, conservative) and the BCa
    bootstrap of a mean and a median of a skewed distribution on [0, 1] (Beta(2, 5), like an
    RBO or a TVD) from 50 replicates. 1000 simulated runs each; a true coverage of 95 % falls
    below 93 % with probability < 1 % (binomial band)."""
    rng = np.random.default_rng(20261126)
    sims = 1000
    assert stats.binom.cdf(0.93 * sims, sims, 0.95) < 0.01
    p, n = 0.05, 200
    cp = [v.rate_interval(int(rng.binomial(n, p)), n) for _ in range(sims)]
    assert np.mean([c.lower <= p <= c.upper for c in cp]) >= 0.95  # conservative
    for stat, theta in {np.mean: 2 / 7, np.median: stats.beta(2, 5).median()}.items():
        cover = []
        for _ in range(sims):
            ci = v.bootstrap_interval(rng.beta(2, 5, 50), stat, n_resamples=999, random_state=rng)
            cover.append(ci.lower <= theta <= ci.upper)
        assert np.mean(cover) >= 0.93, stat.__name__


@pytest.mark.parametrize(
    ("lower", "upper", "claim", "verdict"),
    [
        (0.06, 0.09, (0.05, INF), "holds"),
        (0.01, 0.04, (0.05, INF), "fails"),
        (0.01, 0.05, (0.05, INF), "fails"),  # touches the region only at its boundary
        (0.04, 0.06, (0.05, INF), "undetermined"),
        (0.05, 0.06, (0.05, INF), "undetermined"),
        (-0.3, -0.1, (-INF, 0.0), "holds"),
        (0.0, 0.2, (-INF, 0.0), "fails"),
        (0.04, 0.06, (0.03, 0.07), "holds"),
        (0.02, 0.06, (0.03, 0.07), "undetermined"),
        (0.08, 0.09, (0.03, 0.07), "fails"),
        (np.nan, np.nan, (0.0, INF), "undetermined"),
        (-INF, INF, (0.0, INF), "undetermined"),
        # a one-sided bound (an audit's [lower, inf)): inside (claim, inf) once lower > claim
        (2.5, INF, (1.0, INF), "holds"),
        (0.5, INF, (1.0, INF), "undetermined"),
        (-INF, -2.0, (-INF, -1.0), "holds"),
        (-INF, 2.0, (-INF, 1.0), "undetermined"),
    ],
)
def test_decide(lower, upper, claim, verdict):
    assert v.decide(lower, upper, *claim) == verdict


def test_decide_rejects_bad_regions_and_intervals():
    with pytest.raises(ValueError, match="claim_low < claim_high"):
        v.decide(0.0, 1.0, 0.5, 0.5)
    with pytest.raises(ValueError, match="at least one side"):
        v.decide(0.0, 1.0, -INF, INF)
    with pytest.raises(ValueError, match="lower <= upper"):
        v.decide(1.0, 0.0, 0.5, INF)


def test_replicates_to_decide_hand_computations():
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # 2.8016
    mean = v.Interval(0.3, -0.1, 0.7, 10, 1.0, "bootstrap-bca")
    assert v.replicates_to_decide(mean, 0.0, INF) == math.ceil((z / 0.3) ** 2) == 88
    # a "between" claim: the nearest boundary decides (0.1 away from 0.3 → 0.4)
    assert v.replicates_to_decide(mean, -1.0, 0.4) == math.ceil((z / 0.1) ** 2)
    # a rate of 0 against "below 5 %": (1.96 sqrt(.05 .95) / .05)² = 72.99 → 73, which is the
    # exact Clopper–Pearson answer too (1 - 0.025^(1/n) < 0.05 from n = 72 on)
    assert v.replicates_to_decide(v.rate_interval(0, 3), -INF, 0.05) == 73
    assert 1 - 0.025 ** (1 / 72) < 0.05 < 1 - 0.025 ** (1 / 71)
    # near 0 the normal approximation says 4 (1.96² · 0.25 / 0.25 = 3.84); Clopper–Pearson
    # needs 6: 0 of 5 gives the upper end 1 - 0.025^(1/5) = 0.522, 0 of 6 gives 0.459
    assert v.replicates_to_decide(v.rate_interval(0, 3), -INF, 0.5) == 6
    assert 1 - 0.025 ** (1 / 6) < 0.5 < 1 - 0.025 ** (1 / 5)
    on_boundary = v.Interval(0.0, -1.0, 1.0, 10, 1.0, "bootstrap-bca")
    assert v.replicates_to_decide(on_boundary, 0.0, INF) == INF
    # on a boundary up to float rounding: 15 of 200 against 1.5 α = 0.07500000000000001
    assert 0 < 1.5 * 0.05 - 15 / 200 < 1e-16
    assert v.replicates_to_decide(v.rate_interval(15, 200), -INF, 1.5 * 0.05) == INF
    # never fewer than one more replicate than this run had
    wide = v.Interval(0.3, -0.1, 0.7, 500, 1.0, "bootstrap-bca")
    assert v.replicates_to_decide(wide, 0.0, INF) == 501


def test_replicates_to_decide_gives_the_stated_power():
    """At the returned n, about 80 % of new runs decide the claim (normal data, mean 0.3,
    sd 1, claim θ > 0): 300 simulated runs, binomial band at 99.9 %."""
    rng = np.random.default_rng(11)
    n = int(v.replicates_to_decide(v.Interval(0.3, -0.1, 0.7, 10, 1.0, "bootstrap-bca"), 0.0, INF))
    runs = 300
    decided = sum(
        v.bootstrap_interval(rng.normal(0.3, 1.0, n), n_resamples=999, random_state=rng).lower > 0
        for _ in range(runs)
    )
    lo, hi = stats.binom.ppf([0.0005, 0.9995], runs, 0.8)
    assert lo <= decided <= hi


def _rows():
    return [
        v.finding("a", "rate above 5 %", v.rate_interval(30, 100), 0.05, INF, section="s-a"),
        v.finding("b", "rate below 5 %", v.rate_interval(4, 100), -INF, 0.05),
        v.finding(
            "c", "gap above 0", v.bootstrap_interval([0.2, -0.1, 0.4, 0.0], random_state=0), 0.0
        ),
        v.finding("d", "not run here", None, 0.0, note="needs Adult"),
    ]


def test_finding_rows_and_summary():
    table = v.verdict_table(_rows())
    assert list(table.columns) == list(v.COLUMNS)
    assert list(table.verdict) == ["holds", "undetermined", "undetermined", "undetermined"]
    assert table.replicates_to_decide.isna().tolist() == [True, False, False, True]
    assert table.loc[3, "n"] == 0 and table.loc[3, "method"] == "not run"
    s = v.summarize(table)
    assert (s["holds"], s["fails"], s["undetermined"], s["total"]) == (1, 0, 3, 4)
    assert s["expected_false"] == pytest.approx(0.025)
    assert s["text"].startswith("4 verdicts: 1 hold, 0 fail, 3 undetermined")


def test_write_and_read_round_trip(tmp_path):
    path = v.write_verdicts(_rows(), tmp_path / "results")
    assert path == tmp_path / "results" / "verdicts.csv"
    back = v.read_verdicts(tmp_path / "results")
    pd.testing.assert_frame_equal(back, v.verdict_table(_rows()), check_dtype=False)
    assert back.claim_high.iloc[0] == INF and back.note.iloc[3] == "needs Adult"
    assert [p.name for p in path.parent.iterdir()] == ["verdicts.csv"]  # no temporary left


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"verdict": "fails"}, "verdict 'fails' does not follow from its interval"),
        ({"estimate": 0.9}, "must contain the estimate 0.9"),
        ({"finding": "b"}, "finding 'b' appears more than once"),
    ],
)
def test_check_verdicts_names_the_bad_row(change, match):
    table = v.verdict_table(_rows())
    for col, value in change.items():
        table.loc[0, col] = value
    with pytest.raises(ValueError, match=match):
        v.check_verdicts(table)


def test_check_verdicts_needs_the_columns():
    with pytest.raises(ValueError, match=r"missing \['replicates_to_decide'"):
        v.check_verdicts(v.verdict_table(_rows()).drop(columns="replicates_to_decide"))


def test_finding_rejects_an_empty_claim_text():
    with pytest.raises(ValueError, match="paper must be a non-empty string"):
        v.finding("a", " ", None, 0.0)


def _cp(k, n, confidence=0.95):
    ci = stats.binomtest(k, n).proportion_ci(confidence, "exact")
    return ci.low, ci.high


def test_rate_difference_adds_bonferroni_clopper_pearson_ends():
    ci = v.rate_difference([(3, 10)], [(7, 20)])
    lo1, hi1 = _cp(3, 10, 0.975)
    lo2, hi2 = _cp(7, 20, 0.975)
    assert ci.estimate == pytest.approx(0.3 - 0.35)
    assert (ci.lower, ci.upper) == pytest.approx((lo1 - hi2, hi1 - lo2), rel=1e-9)
    assert ci.n == 10 and ci.method == "clopper-pearson-bonferroni"
    four = v.rate_difference([(3, 10), (1, 10)], [(7, 20), (0, 10)])
    assert four.upper == pytest.approx(
        _cp(3, 10, 1 - 0.05 / 4)[1]
        + _cp(1, 10, 1 - 0.05 / 4)[1]
        - _cp(7, 20, 1 - 0.05 / 4)[0]
        - 0.0
    )
