"""The statistical bounds of empirical differential-privacy auditing.

An audit runs a *distinguishing game*: a mechanism is run many times on a dataset ``D`` and on a
neighbour ``D'``, an attack scores every output, and a threshold fixed in advance turns the
scores into guesses. The false-positive rate (an output of ``D`` scored at or above the
threshold) and the false-negative rate (an output of ``D'`` scored below it) of any test are
constrained by the privacy guarantee: (ε, δ)-DP implies ``FPR + e^ε·FNR ≥ 1 − δ`` and
``e^ε·FPR + FNR ≥ 1 − δ`` (the hypothesis-testing view of DP, [``kairouz2015``]), and μ-GDP
implies ``FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ)`` [``dong2022``]. Upper confidence limits on the two rates
(Clopper–Pearson [``clopper1934``], one per world, joined by a union bound) turn the observed
counts into a lower bound on ε or on μ that holds with probability at least 1 − α
[``jagielski2020``, ``nasr2021``, ``nasr2023``]:

- :func:`clopper_pearson_upper`: the one-sided exact upper limit of a binomial proportion;
- :func:`epsilon_lower_bound`: the ε lower bound of a game with ``n0`` and ``n1`` trials;
- :func:`mu_lower_bound`: the Gaussian-DP (μ) lower bound of the same game;
- :func:`ceiling`: the largest ε lower bound ``n`` trials per world can ever give (a perfect
  separation), the resolution limit of an audit of that size;
- :func:`gdp_delta` and :func:`gdp_mu`: the (ε, δ) profile of μ-GDP, Corollary 2.13 of Dong,
  Roth & Su (2022) [``dong2022``], and its inverse in μ;
- :func:`one_run_epsilon_lower_bound`: the one-run audit of Steinke, Nasr & Jagielski (2023)
  [``steinke2023``], Theorem 5.2 and their reference code: ``m`` canaries are each included or
  not by a fair coin in a single training run, the auditor guesses ``r`` of the coins and ``v``
  guesses are right.

All functions are pure (NumPy and SciPy only). :func:`clopper_pearson_upper`, :func:`gdp_delta`
and :func:`ceiling` broadcast over arrays; every function returns a Python ``float`` for scalar
input.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

from .._validation import (
    check_delta,
    check_int_array,
    check_int_range,
    check_positive_int,
    check_real,
    check_real_array,
    check_unit_interval,
)
from ..binomial import clopper_pearson

__all__ = [
    "ceiling",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "fits_to_reach",
    "gdp_delta",
    "gdp_mu",
    "mu_lower_bound",
    "one_run_epsilon_lower_bound",
]

_SQRT2 = math.sqrt(2.0)


# ------------------------------------------------------------------------------------ helpers
def _as_output(value):
    """A Python float for a 0-d result, the array otherwise."""
    value = np.asarray(value, dtype=float)
    return float(value) if value.ndim == 0 else value


# ---------------------------------------------------------------------------- confidence limits
def clopper_pearson_upper(k, n, alpha):
    """One-sided (1 − ``alpha``) Clopper–Pearson upper confidence limit of a binomial proportion.

    The limit is the largest ``p`` with ``P[Bin(n, p) ≤ k] ≥ alpha``, i.e. the ``1 − alpha``
    quantile of ``Beta(k + 1, n − k)``, and exactly 1 when ``k == n``. For every ``p``,
    ``P[p ≤ upper] ≥ 1 − alpha`` (exact, conservative coverage).

    Parameters
    ----------
    k : int or array of int
        Successes, in ``[0, n]``.
    n : int or array of int
        Trials, ≥ 1 (broadcast against ``k``).
    alpha : float
        One-sided error level in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        The upper limit in (0, 1]; a Python float when ``k`` and ``n`` are scalars.

    Raises
    ------
    TypeError
        ``k`` or ``n`` not an integer (or integer array); ``alpha`` not a real number.
    ValueError
        ``k`` negative or above ``n``; ``n`` < 1; ``alpha`` outside (0, 1).

    References
    ----------
    Clopper & Pearson (1934) [``clopper1934``].

    Examples
    --------
    >>> round(clopper_pearson_upper(0, 100, 0.05), 6)  # 1 - 0.05 ** (1 / 100)
    0.029513
    >>> clopper_pearson_upper(5, 5, 0.05)
    1.0
    >>> clopper_pearson_upper([0, 10, 20], 20, 0.025).round(4).tolist()
    [0.1684, 0.728, 1.0]
    """
    k = check_int_array(k, "k", 0)
    n = check_int_array(n, "n", 1)
    alpha = check_unit_interval(alpha, "alpha")
    k_arr, n_arr = np.broadcast_arrays(k, n)
    above = k_arr > n_arr
    if above.any():
        raise ValueError(
            f"k must be an integer in [0, n], got k={k_arr[above].flat[0]!r} > "
            f"n={n_arr[above].flat[0]!r}"
        )
    return _as_output(clopper_pearson(k_arr, n_arr, 1.0 - alpha, "less")[1])


def _rate_limits(fp: int, n0: int, fn: int, n1: int, alpha: float) -> tuple[float, float]:
    """Validated counts → (FPR_ub, FNR_ub), each at level alpha / 2 (union bound)."""
    n0 = check_positive_int(n0, "n0")
    n1 = check_positive_int(n1, "n1")
    fp = check_int_range(fp, "fp", 0, n0)
    fn = check_int_range(fn, "fn", 0, n1)
    return clopper_pearson_upper(fp, n0, alpha / 2), clopper_pearson_upper(fn, n1, alpha / 2)


def _epsilon_from_limits(fpr: float, fnr: float, delta: float) -> float:
    """max{ln((1 − δ − FNR_ub)/FPR_ub), ln((1 − δ − FPR_ub)/FNR_ub), 0}: a term with a
    non-positive numerator gives no bound."""
    best = 0.0
    for err, other in ((fpr, fnr), (fnr, fpr)):
        numerator = 1.0 - delta - other
        if numerator > 0:
            best = max(best, math.log(numerator) - math.log(err))
    return float(best)


def _mu_from_limits(fpr: float, fnr: float) -> float:
    """max{Φ⁻¹(1 − FPR_ub) − Φ⁻¹(FNR_ub), Φ⁻¹(1 − FNR_ub) − Φ⁻¹(FPR_ub), 0}: a limit of 1
    leaves that side without a bound."""
    best = 0.0
    for err, other in ((fpr, fnr), (fnr, fpr)):
        if err < 1.0 and other < 1.0:
            best = max(best, float(stats.norm.isf(err) - stats.norm.ppf(other)))
    return float(best)


# ---------------------------------------------------------------------- distinguishing game
def epsilon_lower_bound(fp, n0, fn, n1, *, delta=0.0, alpha=0.05) -> float:
    """(ε, δ)-DP lower bound from the error counts of a distinguishing game.

    ``n0`` outputs of the mechanism on ``D`` (``fp`` of them scored at or above the threshold:
    false positives) and ``n1`` outputs on ``D'`` (``fn`` scored below it: false negatives).
    With ``FPR_ub`` and ``FNR_ub`` the Clopper–Pearson upper limits at level ``alpha / 2`` each
    (so both hold with probability ≥ 1 − ``alpha``), (ε, δ)-DP requires
    ``FPR_ub + e^ε·FNR_ub ≥ 1 − δ`` and ``e^ε·FPR_ub + FNR_ub ≥ 1 − δ``; the bound is the
    smallest ε ≥ 0 that satisfies both,

        ε_lb = max{ln((1 − δ − FNR_ub) / FPR_ub), ln((1 − δ − FPR_ub) / FNR_ub), 0},

    a term with a non-positive numerator giving no bound. With probability at least
    1 − ``alpha`` over the trials, a mechanism that is (ε, δ)-DP has ε ≥ ε_lb.

    Parameters
    ----------
    fp : int
        False positives, in ``[0, n0]``.
    n0 : int
        Trials on ``D``, ≥ 1.
    fn : int
        False negatives, in ``[0, n1]``.
    n1 : int
        Trials on ``D'``, ≥ 1.
    delta : float, default 0.0
        The δ of the hypothesis (ε, δ)-DP, in [0, 1).
    alpha : float, default 0.05
        Error level in (0, 1) of the bound (split equally between the two rates).

    Returns
    -------
    float
        ε_lb ≥ 0.

    Raises
    ------
    TypeError
        A count not an integer; ``delta`` or ``alpha`` not a real number.
    ValueError
        A negative count, ``fp > n0``, ``fn > n1``, ``n0`` or ``n1`` < 1, ``delta`` outside
        [0, 1), ``alpha`` outside (0, 1).

    References
    ----------
    Jagielski, Ullman & Oprea (2020) [``jagielski2020``], Section 3 / Algorithm 2; Nasr et al.
    (2023) [``nasr2023``]; Kairouz, Oh & Viswanath (2015) [``kairouz2015``], Theorem 2.1.

    Examples
    --------
    >>> round(epsilon_lower_bound(0, 500, 0, 500), 4)  # a perfect separation: ceiling(500)
    4.9056
    >>> round(epsilon_lower_bound(50, 500, 200, 500), 4)
    1.4547
    >>> round(epsilon_lower_bound(50, 500, 200, 500, delta=0.1), 4)
    1.2563
    >>> epsilon_lower_bound(250, 500, 250, 500)  # no better than a coin flip
    0.0
    """
    delta = check_real(delta, "delta", 0.0, 1.0, high_open=True)
    alpha = check_unit_interval(alpha, "alpha")
    return _epsilon_from_limits(*_rate_limits(fp, n0, fn, n1, alpha), delta)


def mu_lower_bound(fp, n0, fn, n1, *, alpha=0.05) -> float:
    """Gaussian-DP (μ) lower bound from the error counts of a distinguishing game.

    μ-GDP implies ``FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ)`` for every test (and the same with the roles of
    the two errors swapped, the trade-off function being symmetric). With the Clopper–Pearson
    limits of :func:`epsilon_lower_bound` (``alpha / 2`` each),

        μ_lb = max{Φ⁻¹(1 − FPR_ub) − Φ⁻¹(FNR_ub), Φ⁻¹(1 − FNR_ub) − Φ⁻¹(FPR_ub), 0}.

    A rate whose upper limit is 1 (all trials of that world erred) gives no bound.

    Parameters
    ----------
    fp : int
        False positives, in ``[0, n0]``.
    n0 : int
        Trials on ``D``, ≥ 1.
    fn : int
        False negatives, in ``[0, n1]``.
    n1 : int
        Trials on ``D'``, ≥ 1.
    alpha : float, default 0.05
        Error level in (0, 1) of the bound.

    Returns
    -------
    float
        μ_lb ≥ 0; with probability at least 1 − ``alpha``, a μ-GDP mechanism has μ ≥ μ_lb.

    Raises
    ------
    TypeError
        A count not an integer; ``alpha`` not a real number.
    ValueError
        A negative count, ``fp > n0``, ``fn > n1``, ``n0`` or ``n1`` < 1, ``alpha`` outside
        (0, 1).

    References
    ----------
    Dong, Roth & Su (2022) [``dong2022``], Definition 2.6 (G_μ) and Theorem 2.7; Nasr et al.
    (2021) [``nasr2021``] and (2023) [``nasr2023``] audit μ this way.

    Examples
    --------
    >>> round(mu_lower_bound(50, 500, 200, 500), 4)
    1.2675
    >>> round(mu_lower_bound(0, 500, 0, 500), 4)
    4.8793
    >>> mu_lower_bound(500, 500, 0, 500)  # every trial on D erred: no bound
    0.0
    """
    alpha = check_unit_interval(alpha, "alpha")
    return _mu_from_limits(*_rate_limits(fp, n0, fn, n1, alpha))


def ceiling(n_per_world, *, alpha=0.05):
    """The largest ε lower bound ``n_per_world`` trials per world can give.

    A perfect separation (``fp = fn = 0``) gives ``FPR_ub = FNR_ub = 1 − q`` with
    ``q = (alpha / 2) ** (1 / n_per_world)``, hence ε_max = max{ln(q / (1 − q)), 0} — equal to
    ``epsilon_lower_bound(0, n, 0, n, alpha=alpha)``, and the bound of every other outcome is
    smaller (it decreases in ``fp`` and in ``fn``). No audit with this many trials can certify a
    larger ε, whatever the mechanism.

    Parameters
    ----------
    n_per_world : int or array of int
        Trials in each world, ≥ 1.
    alpha : float, default 0.05
        Error level in (0, 1).

    Returns
    -------
    float or numpy.ndarray
        ε_max ≥ 0 (a Python float for scalar input); 0 when q ≤ 1/2, i.e. for at most
        log2(2 / alpha) trials (5 or fewer at ``alpha = 0.05``): no outcome gives any bound.

    Raises
    ------
    TypeError
        ``n_per_world`` not an integer; ``alpha`` not a real number.
    ValueError
        ``n_per_world`` < 1; ``alpha`` outside (0, 1).

    References
    ----------
    Jagielski, Ullman & Oprea (2020) [``jagielski2020``]; Nasr et al. (2023) [``nasr2023``].

    Examples
    --------
    >>> round(ceiling(500), 2)
    4.91
    >>> ceiling([50, 250, 2500]).round(2)
    array([2.57, 4.21, 6.52])
    """
    n = check_int_array(n_per_world, "n_per_world", 1)
    alpha = check_unit_interval(alpha, "alpha")
    log_q = math.log(alpha / 2) / np.asarray(n, dtype=float)
    return _as_output(np.maximum(log_q - np.log(-np.expm1(log_q)), 0.0))


# --------------------------------------------------------------------------- audit budgets
def _expected_bound(n: float, fpr: float, fnr: float, kind: str, delta: float, alpha: float):
    """The bound of a game of ``n`` eval fits a world whose error counts are their expected
    values ``fpr·n`` and ``fnr·n`` (the Clopper–Pearson limit at a real count)."""
    limits = [
        1.0 if rate >= 1 else float(clopper_pearson(rate * n, n, 1 - alpha / 2, "less")[1])
        for rate in (fpr, fnr)
    ]
    return _mu_from_limits(*limits) if kind == "mu" else _epsilon_from_limits(*limits, delta)


def fits_to_reach(fpr, fnr, target, *, bound="mu", delta=0.0, alpha=0.05, max_fits=10**9) -> float:
    """Eval fits per world an audit needs for its lower bound to reach ``target``, when a
    fixed threshold errs at the rates ``fpr`` (on D) and ``fnr`` (on D′) — e.g. those of a
    pilot audit's eval fits.

    The answer is the smallest ``n`` whose game with the expected counts ``fpr·n`` and
    ``fnr·n`` gives :func:`mu_lower_bound` (``bound="mu"``) or :func:`epsilon_lower_bound`
    (``"epsilon"``) ≥ ``target``: the median budget, since the bound of a real game scatters
    around it. ``inf`` when even infinitely many fits cannot reach it: the rates' own value,
    Φ⁻¹(1 − fpr) − Φ⁻¹(fnr) (or ln((1 − δ − fnr)/fpr)), is at most ``target`` — a stronger
    score is needed, not more fits.

    Parameters
    ----------
    fpr, fnr : float in [0, 1]
        Error rates of the threshold.
    target : float > 0
        The bound wanted (μ, or ε in nats).
    bound : {"mu", "epsilon"}
    delta : float in [0, 1)
        δ of the ε bound.
    alpha : float in (0, 1)
    max_fits : int
        Larger budgets are reported as ``inf``.

    Returns
    -------
    float
        ``n`` (an integer value) or ``inf``.

    Raises
    ------
    ValueError
        A rate outside [0, 1], ``target`` ≤ 0, an unknown ``bound``.

    Examples
    --------
    >>> fits_to_reach(0.4275, 0.4251, 0.30)  # MST's white-box rates at ε = 1, δ = 1e-2
    4836.0
    >>> fits_to_reach(0.4275, 0.4251, 0.40)  # its measurements carry μ = 0.372 only
    inf
    """
    fpr = check_real(fpr, "fpr", 0.0, 1.0)
    fnr = check_real(fnr, "fnr", 0.0, 1.0)
    target = check_real(target, "target", 0.0, math.inf, low_open=True)
    if bound not in ("mu", "epsilon"):
        raise ValueError(f"bound must be 'mu' or 'epsilon', got {bound!r}")
    delta = check_real(delta, "delta", 0.0, 1.0, high_open=True)
    alpha = check_unit_interval(alpha, "alpha")

    def reached(n: float) -> bool:
        return _expected_bound(n, fpr, fnr, bound, delta, alpha) >= target

    high = 1
    while not reached(high):
        high *= 2
        if high > max_fits:
            return math.inf
    low = high // 2  # not reached (or 0)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if reached(mid) else (mid, high)
    return float(high)


# ------------------------------------------------------------------------------ Gaussian DP
def _gdp_log_delta(epsilon, mu):
    """log δ(ε) of μ-GDP (arrays, ε ≥ 0, μ > 0), computed in log space."""
    log_first = stats.norm.logcdf(-epsilon / mu + mu / 2)
    log_second = epsilon + stats.norm.logcdf(-epsilon / mu - mu / 2)
    gap = np.minimum(log_second - log_first, 0.0)
    with np.errstate(divide="ignore"):
        general = log_first + np.log(-np.expm1(gap))
        # ε = 0: δ = Φ(μ/2) − Φ(−μ/2) = erf(μ / (2√2)), without cancellation for small μ
        at_zero = np.log(special.erf(mu / (2 * _SQRT2)))
    return np.where(epsilon == 0, at_zero, general)


def gdp_delta(epsilon, mu):
    """The δ(ε) of μ-Gaussian DP: μ-GDP holds iff (ε, δ(ε))-DP holds for every ε ≥ 0.

    δ(ε) = Φ(−ε/μ + μ/2) − e^ε·Φ(−ε/μ − μ/2), computed as
    ``exp(a)·(1 − exp(b − a))`` with ``a``, ``b`` the logarithms of the two terms (SciPy's
    ``norm.logcdf``), so that neither e^ε (above ε ≈ 709) overflows nor a tail probability
    Φ(−ε/μ − μ/2) underflows (ε = 200, μ = 5: δ ≈ 5.4e-309, with a relative error of about
    1e-12 where the direct formula is wrong by a factor of 8).

    Parameters
    ----------
    epsilon : float or array of float
        ε ≥ 0, finite.
    mu : float or array of float
        μ > 0, finite (broadcast against ``epsilon``).

    Returns
    -------
    float or numpy.ndarray
        δ in [0, 1) (a Python float for scalar input).

    Raises
    ------
    TypeError
        Non-numeric ``epsilon`` or ``mu``.
    ValueError
        ``epsilon`` < 0, ``mu`` ≤ 0, NaN or infinite values.

    References
    ----------
    Dong, Roth & Su (2022) [``dong2022``], Corollary 2.13.

    Examples
    --------
    >>> round(gdp_delta(1.0, 1.0), 6)
    0.126937
    >>> f"{gdp_delta(1000.0, 40.0):.4e}"  # e^1000 overflows a float; the log form does not
    '2.5363e-07'
    >>> [f"{d:.3e}" for d in gdp_delta([0.5, 1.0, 2.0], 0.5)]
    ['5.244e-02', '6.830e-03', '9.439e-06']
    """
    epsilon = check_real_array(epsilon, "epsilon", 0.0, low_open=False)
    mu = check_real_array(mu, "mu", 0.0, low_open=True)
    epsilon, mu = np.broadcast_arrays(np.asarray(epsilon, float), np.asarray(mu, float))
    return _as_output(np.exp(_gdp_log_delta(epsilon, mu)))


def gdp_mu(epsilon, delta) -> float:
    """The μ > 0 whose μ-GDP profile passes through (ε, δ): ``gdp_delta(epsilon, μ) == delta``.

    δ(ε) of μ-GDP increases in μ from 0 to 1, so the root is unique: it is bracketed by doubling
    or halving from μ = 1 and found by Brent's method on ``log gdp_delta(ε, μ) − log δ``
    (closed form ``2√2·erfinv(δ)`` at ε = 0). A mechanism that is μ-GDP with this μ is
    (ε, δ)-DP, and every larger μ violates (ε, δ)-DP.

    Parameters
    ----------
    epsilon : float
        ε ≥ 0, finite.
    delta : float
        δ in (0, 1).

    Returns
    -------
    float
        μ > 0.

    Raises
    ------
    TypeError
        Non-numeric ``epsilon`` or ``delta``.
    ValueError
        ``epsilon`` < 0 or not finite; ``delta`` outside (0, 1).

    References
    ----------
    Dong, Roth & Su (2022) [``dong2022``], Corollary 2.13.

    Examples
    --------
    >>> round(gdp_mu(1.0, 1e-2), 3)
    0.533
    >>> round(gdp_delta(3.0, gdp_mu(3.0, 1e-6)), 12)
    1e-06
    """
    epsilon = check_real(epsilon, "epsilon", 0.0)
    delta = check_delta(delta, "delta")
    if epsilon == 0:
        return float(2 * _SQRT2 * special.erfinv(delta))
    target = math.log(delta)

    def gap(mu: float) -> float:
        return float(_gdp_log_delta(np.float64(epsilon), np.float64(mu))) - target

    lo, hi = 0.5, 1.0
    for _ in range(2100):  # δ → 1 as μ → ∞ and δ → 0 as μ → 0: both loops end
        if gap(hi) >= 0:
            break
        lo, hi = hi, 2 * hi
    else:  # pragma: no cover - unreachable for δ < 1 representable in floating point
        raise RuntimeError(f"no μ reaches delta={delta!r} at epsilon={epsilon!r}")
    for _ in range(2100):
        if gap(lo) < 0:
            break
        lo, hi = lo / 2, lo
    else:  # pragma: no cover
        raise RuntimeError(f"no μ gets below delta={delta!r} at epsilon={epsilon!r}")
    return float(optimize.brentq(gap, lo, hi, xtol=1e-300, rtol=4e-15, maxiter=500))


# --------------------------------------------------------------------------- one-run audit
def _one_run_p_value(m: int, r: int, v: int, epsilon: float, delta: float) -> float:
    """The p-value of Steinke, Nasr & Jagielski (2023) for ``v`` right of ``r`` guesses.

    p(ε) = P[Bin(r, q) ≥ v] + 2mδ·max_{1≤i≤v} P[v − i ≤ Bin(r, q) < v] / i, q = e^ε/(1 + e^ε),
    capped at 1 (their ``p_value_DP_audit``).
    """
    q = float(special.expit(epsilon))
    tail = float(stats.binom.sf(v - 1, r, q))
    if delta == 0 or v == 0:
        return min(tail, 1.0)
    below = stats.binom.pmf(np.arange(v - 1, -1, -1), r, q)  # i = 1..v: pmf(v − i)
    worst = float(np.max(np.cumsum(below) / np.arange(1, v + 1)))
    return min(tail + 2 * m * delta * worst, 1.0)


def one_run_epsilon_lower_bound(m, r, v, *, delta=0.0, alpha=0.05) -> float:
    """ε lower bound of the one-run audit: ``v`` of ``r`` guesses right about ``m`` canaries.

    Each of ``m`` canaries is included in the single training run by an independent fair coin;
    the auditor guesses ``r`` of the coins (abstaining on the other ``m − r``) and ``v`` guesses
    are right. If the training is (ε, δ)-DP, Theorem 5.2 of Steinke, Nasr & Jagielski (2023)
    bounds the chance of ``v`` or more right guesses by

        p(ε) = P[Bin(r, q) ≥ v] + 2mδ·max_{1≤i≤v} P[v − i ≤ Bin(r, q) < v] / i,
        q = e^ε / (1 + e^ε),

    so every ε with p(ε) ≤ ``alpha`` is rejected at level ``alpha``. The bound is the first ε at
    which p(ε) crosses ``alpha`` — the largest ε with p(ε) ≤ ``alpha``, p being nondecreasing in ε
    (each term ``(1 − c)·P[B ≥ v] + c·P[B ≥ v − i]`` with ``c = 2mδ/i`` increases in q when
    c ≤ 1; for ``2mδ > 1`` the first crossing is still the valid bound) — and 0.0 when
    p(0) > ``alpha``. As in the reference code, the crossing is bracketed by steps of 1 in ε;
    Brent's method then finds it to about 1e-12.

    Parameters
    ----------
    m : int
        Canaries, ≥ 1.
    r : int
        Guesses made (abstentions excluded), in ``[0, m]``.
    v : int
        Right guesses, in ``[0, r]``.
    delta : float, default 0.0
        The δ of the hypothesis (ε, δ)-DP, in [0, 1].
    alpha : float, default 0.05
        Error level in (0, 1). An auditor who tries several guess counts ``r`` and keeps the best
        must divide ``alpha`` among them (e.g. ``alpha / 20`` for 20 values).

    Returns
    -------
    float
        ε_lb ≥ 0.

    Raises
    ------
    TypeError
        A count not an integer; ``delta`` or ``alpha`` not a real number.
    ValueError
        A negative count, ``m`` < 1, ``r > m``, ``v > r``, ``delta`` outside [0, 1], ``alpha``
        outside (0, 1).

    References
    ----------
    Steinke, Nasr & Jagielski (2023) [``steinke2023``], Theorem 5.2 and their reference
    implementation (``p_value_DP_audit`` / ``get_eps_audit``).

    Examples
    --------
    >>> round(one_run_epsilon_lower_bound(10**6, 100, 100), 2)  # = ln(q/(1-q)), q = 0.05**0.01
    3.49
    >>> round(one_run_epsilon_lower_bound(2000, 1000, 1000, delta=1e-5), 2)
    5.76
    >>> one_run_epsilon_lower_bound(1000, 100, 55)  # 55 of 100 is no evidence at all
    0.0
    """
    m = check_positive_int(m, "m")
    r = check_int_range(r, "r", 0, m)
    v = check_int_range(v, "v", 0, r)
    delta = check_real(delta, "delta", 0.0, 1.0)
    alpha = check_unit_interval(alpha, "alpha")

    def excess(epsilon: float) -> float:
        return _one_run_p_value(m, r, v, epsilon, delta) - alpha

    if excess(0.0) > 0:
        return 0.0
    lo = 0.0
    while excess(lo + 1.0) <= 0:  # p → 1 > alpha as ε → ∞ (q → 1), so this ends
        lo += 1.0
    return float(optimize.brentq(excess, lo, lo + 1.0, xtol=1e-13, rtol=4e-15))
