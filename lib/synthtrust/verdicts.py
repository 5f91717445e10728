"""Verdicts with their uncertainty: does a paper's finding hold in this run?

Every finding the book compares with a paper is a claim that some quantity θ (an error rate, a
mean RBO, a difference of RMSEs between two protocols, …) lies in a region ``(claim_low,
claim_high)`` of the real line: "above 0.05" is ``(0.05, inf)``, "below the baseline" is a
difference in ``(-inf, 0)``, "close to nominal" is ``(0.03, 0.07)``. This run estimates θ from
``n`` replicates with a 95 % confidence interval ``[lower, upper]``, and the verdict follows
from the interval alone (:func:`decide`):

* ``holds`` — the interval lies inside the claimed region;
* ``fails`` — the interval lies outside it (it touches the region at most at a boundary);
* ``undetermined`` — the interval straddles a boundary of the region.

Intervals come from the standard methods: Clopper–Pearson for rates
(:func:`rate_interval`, by :func:`synthtrust.binomial.clopper_pearson`) and the bootstrap over
replicates for means, medians and other statistics (:func:`bootstrap_interval`, SciPy's
``bootstrap``), paired by replicate when two methods ran on the same replicates
(:func:`paired_interval`). An undetermined row says how many replicates would decide it
(:func:`replicates_to_decide`).

Each chapter's run writes its rows to ``results/verdicts.csv`` (:func:`write_verdicts`) with
the columns :data:`COLUMNS`; the chapter's table, the book's scorecard page and the tests read
that file (:func:`read_verdicts`).

Why a decided verdict is wrong at most 2.5 % of the time: a false ``holds`` needs θ outside the
claimed region while the interval lies inside it, so the interval misses θ on one given side;
a two-sided 95 % interval does that with probability at most 2.5 % (exactly for
Clopper–Pearson, which is conservative; approximately for the bootstrap). The same holds for a
false ``fails``. :func:`summarize` therefore expects at most ``0.025 × decided`` false verdicts
in a table. The bootstrap's coverage is checked by simulation in the tests (Beta(2, 5) data,
50 replicates: about 94.5 % for a mean or a median); with 20 replicates it is nearer 93.5 %, so
a chapter's bootstrap verdicts rest on at least that many where it can afford them.

References
----------
Clopper, C. J. and Pearson, E. S. (1934) [``clopper1934``]; Efron, B. and Tibshirani, R. J.
(1993), *An Introduction to the Bootstrap*, ch. 13–14 (percentile and BCa intervals)
[``efron1993``]; Chow, S.-C., Shao, J. and Wang, H. (2008), *Sample Size Calculations in
Clinical Research*, §3.1 and §4.1 (one-sample mean and proportion) [``chow2008``].

Examples
--------
>>> from synthtrust import verdicts
>>> ci = verdicts.rate_interval(3, 200)                  # 3 rejections in 200 tests
>>> round(ci.lower, 4), round(ci.upper, 4)
(0.0031, 0.0432)
>>> verdicts.decide(ci.lower, ci.upper, 0.05, float("inf"))   # "Type I error above 5 %"
'fails'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from synthtrust._atomic import atomic_path
from synthtrust._validation import (
    check_array,
    check_nonnegative_int,
    check_positive_int,
    check_random_state,
    check_unit_interval,
)
from synthtrust.binomial import clopper_pearson

__all__ = [
    "COLUMNS",
    "CONFIDENCE",
    "MIN_BOOTSTRAP_REPLICATES",
    "VERDICTS",
    "Interval",
    "bootstrap_interval",
    "check_verdicts",
    "decide",
    "finding",
    "paired_interval",
    "rate_difference",
    "rate_interval",
    "read_verdicts",
    "replicates_to_decide",
    "summarize",
    "verdict_table",
    "write_verdicts",
]

#: The confidence level of every interval the book shows.
CONFIDENCE = 0.95
#: Fewer replicates than this get no bootstrap interval (``(-inf, inf)``): the BCa interval's
#: coverage falls well below its nominal level on small samples (simulated for a Beta(2, 5)
#: mean at nominal 95 %: 72 % from 3 replicates, 84 % from 5, 88 % from 8, 93 % from 10).
MIN_BOOTSTRAP_REPLICATES = 10
#: The three verdicts, in the order tables list them.
VERDICTS = ("holds", "fails", "undetermined")
#: The columns of ``results/verdicts.csv``, in order.
COLUMNS = (
    "finding",
    "paper",
    "estimate",
    "lower",
    "upper",
    "n",
    "verdict",
    "replicates_to_decide",
    "claim_low",
    "claim_high",
    "method",
    "section",
    "note",
)


@dataclass(frozen=True)
class Interval:
    """A point estimate with its confidence interval.

    Attributes
    ----------
    estimate : float
        The statistic on this run's replicates (a rate, a mean, a difference of medians, …).
    lower, upper : float
        The interval's ends, ``lower <= estimate <= upper``; ``-inf``/``inf`` when fewer than
        two replicates leave the spread unknown.
    n : int
        Replicates (or trials) behind the estimate.
    sd : float
        The spread of one replicate in the estimate's units: ``sqrt(n)`` times the standard
        error (for a rate, ``sqrt(p(1 - p))``); what :func:`replicates_to_decide` scales.
    method : str
        ``"clopper-pearson"``, ``"bootstrap-bca"``, ``"paired-bootstrap-bca"`` or
        ``"exact"`` (every replicate gave the same value).
    """

    estimate: float
    lower: float
    upper: float
    n: int
    sd: float
    method: str


# --------------------------------------------------------------------------------------------
# Intervals
# --------------------------------------------------------------------------------------------
def rate_interval(successes, n, confidence: float = CONFIDENCE) -> Interval:
    """Clopper–Pearson interval of a rate (an error rate, a rejection rate, a share of runs).

    Parameters
    ----------
    successes : int
        Events counted (rejections, errors), ``0 <= successes <= n``.
    n : int
        Trials (replicates), ``n >= 1``.
    confidence : float, default 0.95
        Two-sided level of the interval, in (0, 1).

    Returns
    -------
    Interval
        ``estimate = successes / n``; the exact interval
        (:func:`synthtrust.binomial.clopper_pearson`, SciPy's ``binomtest(successes,
        n).proportion_ci(confidence, "exact")`` in closed form); ``sd`` is
        ``sqrt(p (1 - p))`` at the estimate.

    Raises
    ------
    ValueError
        ``n`` not a positive integer, ``successes`` outside ``[0, n]``, or ``confidence``
        outside (0, 1).

    References
    ----------
    Clopper and Pearson (1934) [``clopper1934``].
    """
    n = check_positive_int(n, "n")
    successes = check_nonnegative_int(successes, "successes")
    if successes > n:
        raise ValueError(f"successes must be in [0, n={n}], got {successes}")
    low, high = clopper_pearson(successes, n, check_unit_interval(confidence, "confidence"))
    p = successes / n
    return Interval(p, float(low), float(high), n, math.sqrt(p * (1 - p)), "clopper-pearson")


def rate_difference(plus, minus, confidence: float = CONFIDENCE) -> Interval:
    """Interval of ``Σ p(plus) − Σ p(minus)`` for rates of independent experiments.

    Each rate ``(k, n)`` gets a Clopper–Pearson interval at level ``1 − (1 − confidence) / K``
    for ``K`` rates, and the ends add up (Bonferroni: all ``K`` cover together with
    probability ≥ ``confidence``, so the sum's interval does too; conservative). Used where
    the rates come from different grid cells, whose seeds are independent (so the replicates
    cannot be paired). ``sd = sqrt(Σ p (1 − p))`` is the spread of one replicate of each
    cell, for :func:`synthtrust.verdicts.replicates_to_decide`, with ``p = (k + 0.5) /
    (n + 1)`` so that a rate of 0 or 1 does not claim a spread of 0; ``n`` the fewest trials.

    Parameters
    ----------
    plus, minus : list of (float, int)
        ``(errors, trials)`` of the rates added and subtracted (:func:`cell_counts`).
    """
    terms = [(1, *t) for t in plus] + [(-1, *t) for t in minus]
    level = 1 - (1 - confidence) / len(terms)
    est = lower = upper = var = 0.0
    for sign, k, n in terms:
        lo, hi = (float(b) for b in clopper_pearson(k, n, level))
        shrunk = (k + 0.5) / (n + 1)
        est, var = est + sign * k / n, var + shrunk * (1 - shrunk)
        lower += lo if sign > 0 else -hi
        upper += hi if sign > 0 else -lo
    n = min(int(t[2]) for t in terms)
    return Interval(est, lower, upper, n, math.sqrt(var), "clopper-pearson-bonferroni")


def _bootstrap(samples, statistic, paired, confidence, n_resamples, random_state, label):
    confidence = check_unit_interval(confidence, "confidence")
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    n = len(samples[0])
    estimate = float(statistic(*samples))
    if n < 2:
        return Interval(estimate, -math.inf, math.inf, n, math.nan, label)
    if all(np.ptp(s) == 0 for s in samples):
        if n < MIN_BOOTSTRAP_REPLICATES:
            return Interval(estimate, -math.inf, math.inf, n, 0.0, label)
        return Interval(estimate, estimate, estimate, n, 0.0, "exact")
    with warnings.catch_warnings():  # a degenerate BCa is replaced below, not reported
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # BCa's 0/0 on a constant statistic
        res = _scipy_bootstrap(samples, statistic, paired, confidence, n_resamples, random_state)
    sd = float(res.standard_error) * math.sqrt(n)
    if n < MIN_BOOTSTRAP_REPLICATES:  # the spread is kept for replicates_to_decide
        return Interval(estimate, -math.inf, math.inf, n, sd, label)
    lower, upper = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (np.isfinite(lower) and np.isfinite(upper)):  # BCa undefined: fall back to percentile
        alpha = (1 - confidence) / 2
        ends = np.quantile(res.bootstrap_distribution, [alpha, 1 - alpha])
        lower, upper = float(ends[0]), float(ends[1])
    # BCa can leave the point estimate just outside on a skewed sample; the hull keeps the
    # interval's coverage (it only widens) and the ordering the verdicts rely on.
    lower, upper = min(lower, estimate), max(upper, estimate)
    return Interval(estimate, lower, upper, n, sd, label)


def _scipy_bootstrap(samples, statistic, paired, confidence, n_resamples, random_state):
    return stats.bootstrap(
        samples,
        lambda *a, axis=-1: statistic(*a, axis=axis),
        paired=paired,
        vectorized=True,
        confidence_level=confidence,
        n_resamples=n_resamples,
        method="BCa",
        rng=check_random_state(random_state),
    )


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


def bootstrap_interval(
    x,
    statistic: Callable = _mean,
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = 9999,
    random_state=None,
) -> Interval:
    """Bootstrap (BCa) interval of a statistic over replicates.

    Parameters
    ----------
    x : array-like of shape (n,)
        One value per replicate (an RMSE, an RBO, a TVD, a Jaro similarity, …), finite.
    statistic : callable, default mean
        ``statistic(x, axis=-1)`` reducing along ``axis`` (``np.mean``, ``np.median``, …).
    confidence : float, default 0.95
        Two-sided level, in (0, 1).
    n_resamples : int, default 9999
        Bootstrap resamples.
    random_state : int, numpy.random.Generator or None
        Seed of the resampling.

    Returns
    -------
    Interval
        ``scipy.stats.bootstrap``'s BCa interval (percentile where BCa is undefined), widened
        to contain the estimate; ``[v, v]`` with method ``"exact"`` when every replicate is
        ``v``; ``(-inf, inf)`` for fewer than :data:`MIN_BOOTSTRAP_REPLICATES` replicates
        (with ``sd`` from the bootstrap, for :func:`replicates_to_decide`).

    Raises
    ------
    ValueError
        ``x`` empty or not finite; ``confidence`` outside (0, 1); ``n_resamples`` < 1.

    References
    ----------
    Efron and Tibshirani (1993), ch. 14 [``efron1993``].
    """
    arr = check_array(x, "x").ravel()
    return _bootstrap(
        (arr,), statistic, False, confidence, n_resamples, random_state, "bootstrap-bca"
    )


def paired_interval(
    x,
    y,
    statistic: Callable = _mean,
    *,
    confidence: float = CONFIDENCE,
    n_resamples: int = 9999,
    random_state=None,
) -> Interval:
    """Bootstrap interval of ``statistic(x) - statistic(y)``, resampling replicates in pairs.

    Use it when two methods, protocols or generators ran on the same replicates (the same
    seeds, the same real sample): the pairs are resampled together, so what the replicates
    share cancels. For the mean this is the interval of the mean paired difference.

    Parameters
    ----------
    x, y : array-like of shape (n,)
        The two methods' values, ``x[i]`` and ``y[i]`` from replicate ``i``; finite.
    statistic : callable, default mean
        ``statistic(v, axis=-1)``, applied to each side.
    confidence, n_resamples, random_state
        As in :func:`bootstrap_interval`.

    Returns
    -------
    Interval
        Method ``"paired-bootstrap-bca"`` (or ``"exact"`` when neither side varies).

    Raises
    ------
    ValueError
        ``x`` and ``y`` of different lengths, empty or not finite, or bad options.
    """
    a, b = check_array(x, "x").ravel(), check_array(y, "y").ravel()
    if a.shape != b.shape:
        raise ValueError(f"x and y must hold the same replicates, got {a.size} and {b.size} values")

    def difference(u, v, axis=-1):
        return statistic(u, axis=axis) - statistic(v, axis=axis)

    return _bootstrap(
        (a, b), difference, True, confidence, n_resamples, random_state, "paired-bootstrap-bca"
    )


# --------------------------------------------------------------------------------------------
# Verdicts
# --------------------------------------------------------------------------------------------
def _claim(claim_low, claim_high) -> tuple[float, float]:
    low, high = float(claim_low), float(claim_high)
    if math.isnan(low) or math.isnan(high) or not low < high:
        raise ValueError(
            f"the claimed region (claim_low, claim_high) must have claim_low < claim_high, "
            f"got ({claim_low}, {claim_high})"
        )
    if low == -math.inf and high == math.inf:
        raise ValueError("the claimed region must bound θ on at least one side, got (-inf, inf)")
    return low, high


def decide(lower: float, upper: float, claim_low: float, claim_high: float) -> str:
    """The verdict on the claim ``claim_low < θ < claim_high`` from θ's interval.

    Parameters
    ----------
    lower, upper : float
        θ's confidence interval, ``lower <= upper`` (NaN ends: no interval).
    claim_low, claim_high : float
        The claimed region, ``claim_low < claim_high``; ``-inf`` or ``inf`` for a one-sided
        claim.

    Returns
    -------
    str
        ``"holds"`` if ``claim_low < lower`` and ``upper < claim_high`` (an infinite side of
        the claim holds for any end of the interval on that side); ``"fails"`` if
        ``upper <= claim_low`` or ``lower >= claim_high``; ``"undetermined"`` otherwise
        (including a missing interval).

    Raises
    ------
    ValueError
        ``lower > upper`` or an empty claimed region.
    """
    low, high = _claim(claim_low, claim_high)
    if math.isnan(lower) or math.isnan(upper):
        return "undetermined"
    if lower > upper:
        raise ValueError(f"the interval must have lower <= upper, got [{lower}, {upper}]")
    # an unbounded side of the claim contains the same side of any interval, even an infinite
    # one (an audit's one-sided bound [lower, inf) holds for (claim, inf) once lower > claim)
    if (low < lower or low == -math.inf) and (upper < high or high == math.inf):
        return "holds"
    if upper <= low or lower >= high:
        return "fails"
    return "undetermined"


def replicates_to_decide(
    interval: Interval,
    claim_low: float,
    claim_high: float,
    *,
    confidence: float = CONFIDENCE,
    power: float = 0.8,
) -> float:
    """Replicates that would decide the claim, if θ and the spread are what this run saw.

    The standard one-sample sample-size calculation (Chow et al. 2008, §3.1, §4.1
    [``chow2008``]) for a test of θ against the nearest boundary ``b`` of the claimed region
    at two-sided level ``1 - confidence`` with the given power, taking the run's estimate as
    the true θ:

    * a mean or other bootstrapped statistic, spread ``s`` per replicate:
      ``n = ((z_{1-α/2} + z_power) s / |θ - b|)²``;
    * a rate (Clopper–Pearson): ``n = ((z_{1-α/2} sqrt(b(1-b)) + z_power sqrt(θ(1-θ)))
      / |θ - b|)²``, the variance under the boundary for the level and under θ for the power.

    For a rate the answer is then raised, if needed, to the first size at which the
    Clopper–Pearson interval of the expected count decides the claim; for a bootstrapped
    statistic it is at least :data:`MIN_BOOTSTRAP_REPLICATES`.

    Parameters
    ----------
    interval : Interval
        This run's estimate, spread and method.
    claim_low, claim_high : float
        The claimed region.
    confidence : float, default 0.95
        The level of the intervals that are to decide it.
    power : float, default 0.8
        Probability that the larger run decides the claim, in (0, 1).

    Returns
    -------
    float
        The number of replicates (at least ``interval.n + 1``), rounded up; ``inf`` when the
        estimate sits on a boundary (no number of replicates is expected to decide it) or
        the spread is unknown.

    Raises
    ------
    ValueError
        Bad ``confidence``, ``power`` or claimed region.
    """
    low, high = _claim(claim_low, claim_high)
    alpha = 1 - check_unit_interval(confidence, "confidence")
    power = check_unit_interval(power, "power")
    theta = interval.estimate
    bound = min((b for b in (low, high) if math.isfinite(b)), key=lambda b: abs(theta - b))
    gap = abs(theta - bound)
    z_a, z_b = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    if interval.method == "clopper-pearson":
        spread = z_a * math.sqrt(bound * (1 - bound)) + z_b * interval.sd
    else:
        spread = (z_a + z_b) * interval.sd
    # on a boundary up to float rounding (15/200 against 1.5 × 0.05 differ by 1e-17): no size
    if gap <= 1e-12 * max(1.0, abs(bound)) or not math.isfinite(spread):
        return math.inf
    needed = max(math.ceil((spread / gap) ** 2), interval.n + 1)
    if interval.method == "clopper-pearson":
        return float(_exact_rate_replicates(theta, needed, low, high, 1 - alpha))
    return float(max(needed, MIN_BOOTSTRAP_REPLICATES))


def _exact_rate_replicates(rate: float, start: int, low: float, high: float, confidence) -> int:
    """The first n ≥ ``start`` at which the Clopper–Pearson interval of round(rate·n) events
    decides the claim (the normal approximation is too optimistic near 0 and 1: 0 of 4 events
    give the upper end 0.60, not below 0.5); ``start`` if none within the next 2 000 sizes, or
    when ``start`` is over 10 000 (where the normal approximation is close)."""
    if start > 10_000:
        return start
    sizes = np.arange(start, start + 2001)
    lows, highs = clopper_pearson(np.round(rate * sizes), sizes, confidence)
    for n, lo, hi in zip(sizes.tolist(), lows.tolist(), highs.tolist(), strict=True):
        if decide(lo, hi, low, high) != "undetermined":
            return n
    return start


def finding(
    name: str,
    paper: str,
    interval: Interval | None,
    claim_low: float = -math.inf,
    claim_high: float = math.inf,
    *,
    section: str = "",
    note: str = "",
) -> dict:
    """One row of a verdict table.

    Parameters
    ----------
    name : str
        A short key of the finding, unique within the chapter (``"mwem_type1_above"``).
    paper : str
        The paper's claim, with its number or direction and where it is stated.
    interval : Interval or None
        This run's estimate; None when the run did not compute it (the row is then
        ``undetermined`` with ``n = 0`` and ``note`` should say why).
    claim_low, claim_high : float
        The region the paper claims θ lies in (see the module docstring).
    section : str, optional
        The MyST label of the chapter's section that shows the finding (the scorecard's link).
    note : str, optional
        What the reader needs beside the numbers (a departure, why a row is not run).

    Returns
    -------
    dict
        The row, with the keys :data:`COLUMNS`.

    Raises
    ------
    ValueError
        Empty ``name`` or ``paper``, or an empty claimed region.
    """
    for key, value in (("name", name), ("paper", paper)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{key} must be a non-empty string, got {value!r}")
    low, high = _claim(claim_low, claim_high)
    if interval is None:
        interval = Interval(math.nan, math.nan, math.nan, 0, math.nan, "not run")
    verdict = decide(interval.lower, interval.upper, low, high)
    needed = (
        replicates_to_decide(interval, low, high)
        if verdict == "undetermined" and interval.n > 0
        else math.nan
    )
    return {
        "finding": name,
        "paper": paper,
        "estimate": interval.estimate,
        "lower": interval.lower,
        "upper": interval.upper,
        "n": interval.n,
        "verdict": verdict,
        "replicates_to_decide": needed,
        "claim_low": low,
        "claim_high": high,
        "method": interval.method,
        "section": section,
        "note": note,
    }


def verdict_table(rows: Iterable[Mapping]) -> pd.DataFrame:
    """The rows of :func:`finding` as a checked table with the columns :data:`COLUMNS`.

    Raises
    ------
    ValueError
        As :func:`check_verdicts`.
    """
    table = pd.DataFrame(list(rows), columns=list(COLUMNS))
    check_verdicts(table)
    return table


def check_verdicts(table: pd.DataFrame) -> None:
    """Check a verdict table: its columns, unique findings, ``lower <= estimate <= upper``
    wherever replicates ran, and every verdict equal to :func:`decide` on its interval.

    Raises
    ------
    ValueError
        Naming the first offending column or finding and what is wrong with it.
    """
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise ValueError(f"a verdict table needs the columns {list(COLUMNS)}; missing {missing}")
    dup = table.finding[table.finding.duplicated()]
    if len(dup):
        raise ValueError(f"finding {dup.iloc[0]!r} appears more than once")
    for row in table.itertuples(index=False):
        if row.n > 0 and not row.lower <= row.estimate <= row.upper:
            raise ValueError(
                f"finding {row.finding!r}: the interval [{row.lower}, {row.upper}] must contain "
                f"the estimate {row.estimate}"
            )
        expected = decide(row.lower, row.upper, row.claim_low, row.claim_high)
        if row.verdict != expected:
            raise ValueError(
                f"finding {row.finding!r}: verdict {row.verdict!r} does not follow from its "
                f"interval, which gives {expected!r}"
            )


def write_verdicts(table: pd.DataFrame | Iterable[Mapping], results_dir) -> Path:
    """Check ``table`` and write it atomically to ``<results_dir>/verdicts.csv``.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    ValueError
        As :func:`check_verdicts`.
    """
    if not isinstance(table, pd.DataFrame):
        table = verdict_table(table)
    check_verdicts(table)
    path = Path(results_dir) / "verdicts.csv"
    with atomic_path(path) as tmp:
        table[list(COLUMNS)].to_csv(tmp, index=False)
    return path


def read_verdicts(path) -> pd.DataFrame:
    """Read and check a ``verdicts.csv`` (a file, or a run's ``results`` folder).

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        As :func:`check_verdicts`.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "verdicts.csv"
    text = ("finding", "paper", "verdict", "method", "section", "note")
    table = pd.read_csv(path, dtype=dict.fromkeys(text, str), keep_default_na=False, na_values=[""])
    table[[c for c in text if c in table]] = table[[c for c in text if c in table]].fillna("")
    check_verdicts(table)
    return table


def summarize(table: pd.DataFrame, confidence: float = CONFIDENCE) -> dict:
    """Counts of a verdict table and the false verdicts to expect among the decided ones.

    Returns
    -------
    dict
        ``holds``, ``fails``, ``undetermined``, ``total`` (ints), ``expected_false`` (float:
        ``(1 - confidence) / 2`` times the decided verdicts, the bound of the module
        docstring) and ``text``, one sentence for the chapter and the command line.
    """
    counts = {v: int((table.verdict == v).sum()) for v in VERDICTS}
    decided = counts["holds"] + counts["fails"]
    expected = (1 - check_unit_interval(confidence, "confidence")) / 2 * decided
    total = len(table)
    text = (
        f"{total} verdicts: {counts['holds']} hold, {counts['fails']} fail, "
        f"{counts['undetermined']} undetermined; at the {confidence:.0%} level at most "
        f"{expected:.2g} of the {decided} decided ones are expected to be wrong"
    )
    return {**counts, "total": total, "expected_false": expected, "text": text}
