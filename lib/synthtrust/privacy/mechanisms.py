"""Differential-privacy mechanisms, vectorized: arrays in, arrays out.

Every mechanism takes ``random_state`` (int, ``numpy.random.Generator`` or None) and optionally a
:class:`~synthtrust.privacy.ledger.PrivacyLedger` that receives one entry per call. The
sensitivity passed to a mechanism is that of the *whole* array released by the call (L1 for
Laplace / discrete Laplace, L2 for Gaussian): one call = one measurement of one dataset. When the
rows of an array belong to different datasets (Monte Carlo replicates), do not pass a ledger, or
pass the sensitivity of one replicate and read the entry as "per replicate".

Floating-point samplers (numpy's Laplace, geometric, normal, Gumbel) are used: fine for research
and simulation, not hardened against floating-point side channels (Mironov 2012).

Each mechanism returns through :func:`synthtrust.privacy.replay.record_call`, so that inside
:func:`~synthtrust.privacy.replay.record_mechanisms` its query value, declared sensitivity and
noise scale are recorded (the grey-box replay audit); outside it the call costs one context
look-up and changes nothing.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from scipy.special import log_softmax, softmax

from .._validation import check_instance, check_random_state
from .accounting import cdp_rho
from .ledger import PrivacyLedger
from .replay import record_call

__all__ = [
    "discrete_laplace",
    "discrete_laplace_pmf",
    "exponential_mechanism",
    "exponential_mechanism_counts",
    "exponential_mechanism_probabilities",
    "gaussian",
    "laplace",
]


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------
def _positive(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def _as_values(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric (scalar or array-like): {exc}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _out(arr: np.ndarray, scalar: bool):
    return arr[()] if scalar else arr


def _positive_array(value, name: str) -> np.ndarray:
    arr = _as_values(value, name)
    if not np.all(arr > 0):
        raise ValueError(f"{name} must be > 0 everywhere, got min {float(arr.min())!r}")
    return arr


def _laplace_calibration(scale, sensitivity, epsilon, ledger):
    """Return (scale, epsilon, sensitivity) from either ``scale`` or ``sensitivity`` + ``epsilon``;
    an array ``sensitivity`` (with ``epsilon``) gives an array of scales."""
    if scale is None and np.ndim(sensitivity) > 0:
        if epsilon is None:
            raise ValueError("an array sensitivity= needs epsilon= (scale = sensitivity / epsilon)")
        epsilon = _positive(epsilon, "epsilon")
        sensitivity = _positive_array(sensitivity, "sensitivity")
        return sensitivity / epsilon, epsilon, sensitivity
    if scale is not None:
        if epsilon is not None:
            raise ValueError(
                "give either scale=, or sensitivity= and epsilon= (scale = sensitivity / epsilon), "
                f"not both; got scale={scale!r}, epsilon={epsilon!r}"
            )
        scale = _positive(scale, "scale")
        if sensitivity is not None:
            sensitivity = _positive(sensitivity, "sensitivity")
            epsilon = sensitivity / scale
    else:
        if sensitivity is None or epsilon is None:
            raise ValueError(
                "give scale=, or both sensitivity= and epsilon=; got "
                f"sensitivity={sensitivity!r}, epsilon={epsilon!r}"
            )
        sensitivity = _positive(sensitivity, "sensitivity")
        epsilon = _positive(epsilon, "epsilon")
        scale = sensitivity / epsilon
    if ledger is not None and epsilon is None:
        raise ValueError(
            "to record the step in a ledger, give sensitivity= (ε = sensitivity / scale)"
        )
    return scale, epsilon, sensitivity


# --------------------------------------------------------------------------------------------
# Laplace
# --------------------------------------------------------------------------------------------
def laplace(
    value,
    scale: float | None = None,
    *,
    sensitivity=None,
    epsilon: float | None = None,
    delta: float = 0.0,
    random_state=None,
    ledger: PrivacyLedger | None = None,
    note: str = "",
):
    """Laplace mechanism: ``value + Lap(b)`` elementwise, density ∝ exp(−|x|/b).

    Parameters
    ----------
    value : float or array-like, any shape
        The true answer(s).
    scale : float, optional
        Laplace scale b > 0. Alternatively give ``sensitivity`` and ``epsilon`` (b = Δ₁/ε).
    sensitivity : float or array-like, optional
        L1 sensitivity Δ₁ of the whole array ``value``; or, with ``epsilon``, one per element
        of ``value`` (independent releases with their own bounds, e.g. one per replicate), then
        each element gets scale Δ₁ᵢ/ε.
    epsilon : float, optional
        Privacy parameter ε > 0.
    delta : float
        For the ledger: the probability that the given sensitivity is not a bound (a
        data-dependent bound that holds with probability 1 − δ, as in the DP Mann–Whitney U
        test); 0 for a worst-case sensitivity.
    random_state : int, numpy.random.Generator or None
    ledger : PrivacyLedger, optional
        Receives one entry (ε = Δ₁/b, δ, and ρ = ε²/2 when δ = 0); for an array
        ``sensitivity`` the entry holds the largest sensitivity and scale.
    note : str
        Text stored with the ledger entry.

    Returns
    -------
    float or ndarray (float64), same shape as ``value``
        Variance of the noise: 2b².

    Raises
    ------
    TypeError, ValueError
        Non-numeric or non-finite ``value``; ``scale``/``sensitivity``/``epsilon`` not > 0;
        ``scale`` together with ``epsilon``; a ledger without a known ε.

    Source: Dwork, McSherry, Nissim, Smith (2006); Dwork & Roth (2014), Def. 3.3, Thm. 3.6.
    """
    check_instance(ledger, "ledger", PrivacyLedger, allow_none=True)
    b, eps, sens = _laplace_calibration(scale, sensitivity, epsilon, ledger)
    arr = _as_values(value, "value")
    rng = check_random_state(random_state)
    out = arr + rng.laplace(0.0, b, size=arr.shape)
    if ledger is not None:
        ledger.record(
            mechanism="laplace",
            epsilon=eps,
            delta=delta,
            sensitivity=float(np.max(sens)),
            scale=float(np.max(b)),
            note=note,
        )
    return record_call(
        "laplace",
        "l1",
        arr,
        _out(out, arr.ndim == 0),
        sensitivity=sens,
        scale=b,
        epsilon=eps,
        delta=delta,
    )


# --------------------------------------------------------------------------------------------
# Discrete Laplace (two-sided geometric)
# --------------------------------------------------------------------------------------------
def discrete_laplace_pmf(k, scale: float) -> np.ndarray:
    """P(K = k) of the discrete Laplace distribution with scale t: tanh(1/(2t))·exp(−|k|/t).

    (Normalising constant (1 − q)/(1 + q) with q = e^{−1/t}; Canonne, Kamath, Steinke 2020, Def. 28.)
    """
    t = _positive(scale, "scale")
    k = np.asarray(k, dtype=float)
    return np.tanh(0.5 / t) * np.exp(-np.abs(k) / t)


def discrete_laplace(
    value,
    scale: float | None = None,
    *,
    sensitivity: float | None = None,
    epsilon: float | None = None,
    random_state=None,
    ledger: PrivacyLedger | None = None,
    note: str = "",
):
    """Discrete Laplace (two-sided geometric) mechanism on integer-valued queries.

    Adds integer noise K with P(K = k) ∝ exp(−|k|/t) (t = ``scale``) to each element. K is drawn
    as the difference of two i.i.d. geometric variables with success probability 1 − e^{−1/t}
    (their difference has exactly this law; Inusah & Kozubowski 2006), the same distribution as the
    exact sampler of Canonne, Kamath & Steinke (2022, Alg. 2), but with numpy's floating-point
    geometric sampler. For an integer query with L1 sensitivity Δ₁ the mechanism is (Δ₁/t)-DP.

    Parameters
    ----------
    value : int or integer-valued array-like, any shape
        True counts (floats with integral values are accepted).
    scale : float, optional
        t > 0; or give ``sensitivity`` and ``epsilon`` (t = Δ₁/ε).
    sensitivity, epsilon, random_state, ledger, note
        As in :func:`laplace`. The ledger entry has mechanism ``"discrete_laplace"``.

    Returns
    -------
    int or ndarray (int64), same shape as ``value``
        Noise variance 2q/(1 − q)², q = e^{−1/t}.

    Raises
    ------
    TypeError
        ``value`` not numeric. ValueError: ``value`` not integral/finite; bad calibration.

    Source: Canonne, Kamath, Steinke (2022), "The discrete Gaussian for differential privacy",
    J. Priv. Confid. 12(1), §2 and Alg. 2; used by Montoya Perez et al. (2024) with t = 2/ε.
    """
    check_instance(ledger, "ledger", PrivacyLedger, allow_none=True)
    t, eps, sens = _laplace_calibration(scale, sensitivity, epsilon, ledger)
    arr = _as_values(value, "value")
    if not np.all(arr == np.rint(arr)):
        raise ValueError("value must be integer-valued for the discrete Laplace mechanism")
    if np.any(np.abs(arr) > 2**53):
        raise ValueError("value has integers beyond 2**53 that float64 cannot hold exactly")
    rng = check_random_state(random_state)
    p = -math.expm1(-1.0 / t)  # success probability 1 − e^{−1/t}, accurate for large t
    g1 = rng.geometric(p, size=arr.shape)
    g2 = rng.geometric(p, size=arr.shape)
    out = arr.astype(np.int64) + (g1 - g2).astype(np.int64)
    if ledger is not None:
        ledger.record(
            mechanism="discrete_laplace", epsilon=eps, sensitivity=sens, scale=t, note=note
        )
    return record_call(
        "discrete_laplace",
        "l1",
        arr,
        _out(out, arr.ndim == 0),
        sensitivity=sens,
        scale=t,
        epsilon=eps,
        delta=0.0,
    )


# --------------------------------------------------------------------------------------------
# Gaussian
# --------------------------------------------------------------------------------------------
def gaussian(
    value,
    sigma: float | None = None,
    *,
    sensitivity: float | None = None,
    rho: float | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    random_state=None,
    ledger: PrivacyLedger | None = None,
    note: str = "",
):
    """Gaussian mechanism: ``value + N(0, σ²)`` elementwise, calibrated through zCDP.

    Calibration (exactly one):

    * ``sigma`` (optionally with ``sensitivity`` for the ledger: ρ = Δ₂²/(2σ²));
    * ``sensitivity`` + ``rho``: σ = Δ₂/√(2ρ) (Bun & Steinke 2016, Prop. 1.6);
    * ``sensitivity`` + ``epsilon`` + ``delta``: ρ = :func:`~synthtrust.privacy.cdp_rho` (ε, δ),
      then σ = Δ₂/√(2ρ) (the conversion of the MST/AIM reference code, Private-PGM
      [``privatepgm2025``]).

    Parameters
    ----------
    value : float or array-like, any shape
    sensitivity : float
        L2 sensitivity Δ₂ of the whole array.
    random_state, ledger, note
        As in :func:`laplace`; the entry records ρ (and ε, δ when calibrated by them).

    Returns
    -------
    float or ndarray (float64), same shape as ``value``.

    Raises
    ------
    ValueError
        Conflicting or incomplete calibration; parameters not > 0; δ ∉ (0, 1).
    """
    check_instance(ledger, "ledger", PrivacyLedger, allow_none=True)
    rec_eps = rec_delta = None
    if sigma is not None:
        if rho is not None or epsilon is not None or delta is not None:
            raise ValueError(
                "give sigma= alone (with sensitivity= for the ledger), or calibrate by "
                "sensitivity= with rho= or with epsilon= and delta=, not both"
            )
        sigma = _positive(sigma, "sigma")
        if sensitivity is not None:
            sensitivity = _positive(sensitivity, "sensitivity")
            rho = sensitivity**2 / (2 * sigma**2)
    else:
        if sensitivity is None:
            raise ValueError("give sigma=, or sensitivity= with rho= or with epsilon= and delta=")
        sensitivity = _positive(sensitivity, "sensitivity")
        if rho is not None:
            if epsilon is not None or delta is not None:
                raise ValueError("give rho= or epsilon= and delta=, not both")
            rho = _positive(rho, "rho")
        else:
            if epsilon is None or delta is None:
                raise ValueError(
                    f"calibrating by (epsilon, delta) needs both; got epsilon={epsilon!r}, delta={delta!r}"
                )
            rec_eps = _positive(epsilon, "epsilon")
            rec_delta = _positive(delta, "delta")
            if not rec_delta < 1:
                raise ValueError(f"delta must be in the open interval (0, 1), got {delta!r}")
            rho = cdp_rho(rec_eps, rec_delta)
        sigma = sensitivity / math.sqrt(2 * rho)
    if ledger is not None and rho is None:
        raise ValueError("to record the step in a ledger, give sensitivity= (ρ = Δ₂²/(2σ²))")
    arr = _as_values(value, "value")
    rng = check_random_state(random_state)
    out = arr + rng.normal(0.0, sigma, size=arr.shape)
    if ledger is not None:
        ledger.record(
            mechanism="gaussian",
            epsilon=rec_eps,
            delta=rec_delta or 0.0,
            rho=rho,
            sensitivity=sensitivity,
            scale=sigma,
            note=note,
        )
    return record_call(
        "gaussian",
        "l2",
        arr,
        _out(out, arr.ndim == 0),
        sensitivity=sensitivity,
        scale=sigma,
        epsilon=rec_eps,
        delta=rec_delta or 0.0,
        rho=rho,
    )


# --------------------------------------------------------------------------------------------
# Exponential mechanism
# --------------------------------------------------------------------------------------------
def _em_logits(scores, epsilon, sensitivity) -> np.ndarray:
    eps = _positive(epsilon, "epsilon")
    sens = _positive(sensitivity, "sensitivity")
    try:
        s = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"scores must be a numeric array-like: {exc}") from None
    if s.ndim == 0 or s.shape[-1] == 0:
        raise ValueError(
            f"scores must have at least one candidate along the last axis, got shape {s.shape}"
        )
    if np.any(np.isnan(s)) or np.any(s == np.inf):
        raise ValueError("scores must not contain NaN or +inf (use -inf to exclude a candidate)")
    if s.size and np.any(np.all(s == -np.inf, axis=-1)):
        raise ValueError("every candidate of a row of scores is -inf: nothing to select")
    logits = (eps / (2.0 * sens)) * s
    if np.any(logits == np.inf):
        raise ValueError("epsilon * scores / (2 * sensitivity) overflows; rescale the scores")
    return logits


def exponential_mechanism_probabilities(
    scores, epsilon: float, sensitivity: float = 1.0, *, log: bool = False
) -> np.ndarray:
    """Selection probabilities P(r) ∝ exp(ε·q_r/(2Δ)) along the last axis (stable softmax).

    ``-inf`` scores get probability 0. Returns a float array of the shape of ``scores``: the
    probabilities, or with ``log=True`` their natural logarithms (``scipy.special.log_softmax``,
    exact where the probabilities underflow; the likelihood ratio of a selection in a white-box
    audit). Source: McSherry & Talwar (2007) [``mcsherry2007``]; the form used by the reference
    mechanisms of Private-PGM [``privatepgm2025``] (``mechanism.py``, ``exponential_mechanism``).
    """
    logits = _em_logits(scores, epsilon, sensitivity)
    return log_softmax(logits, axis=-1) if log else softmax(logits, axis=-1)


def exponential_mechanism(
    scores,
    epsilon: float,
    sensitivity: float = 1.0,
    random_state=None,
    *,
    ledger: PrivacyLedger | None = None,
    note: str = "",
):
    """Exponential mechanism: select index r with probability ∝ exp(ε·q_r/(2Δ)).

    Sampled exactly with the Gumbel-max trick, argmax_r (ε·q_r/(2Δ) + G_r) with G_r i.i.d.
    standard Gumbel, which never exponentiates the scores (no overflow/underflow).

    Parameters
    ----------
    scores : array-like, shape (..., k)
        Quality scores; the last axis indexes the k candidates, leading axes are independent
        selections (vectorized). ``-inf`` excludes a candidate.
    epsilon : float
        ε > 0 of *one* selection.
    sensitivity : float
        Sensitivity Δ of the score function (default 1).
    random_state : int, Generator or None
    ledger : PrivacyLedger, optional
        One entry with ε·(number of selections) and ρ = ε²/8 per selection (the exponential
        mechanism is ε²/8-zCDP; Cesar & Rogers 2021) — sequential composition on one dataset.

    Returns
    -------
    int (1-D scores) or ndarray of intp, shape ``scores.shape[:-1]``

    Raises
    ------
    ValueError
        Empty candidate axis, NaN or +inf scores, a row with all candidates excluded,
        ε or Δ not > 0.
    """
    check_instance(ledger, "ledger", PrivacyLedger, allow_none=True)
    logits = _em_logits(scores, epsilon, sensitivity)
    rng = check_random_state(random_state)
    idx = np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)
    if ledger is not None:
        n_sel = int(np.prod(logits.shape[:-1], dtype=np.int64))
        eps = float(epsilon)
        ledger.record(
            mechanism="exponential",
            epsilon=eps * n_sel,
            rho=n_sel * eps**2 / 8,
            sensitivity=float(sensitivity),
            note=note or f"{n_sel} selection(s) at epsilon={eps:g} each",
        )
    n_sel = math.prod(logits.shape[:-1])
    return record_call(
        "exponential_mechanism",
        "linf",
        scores,
        int(idx) if np.ndim(idx) == 0 else idx,
        sensitivity=sensitivity,
        scale=epsilon,
        epsilon=float(epsilon) * n_sel,
        delta=0.0,
        rho=n_sel * float(epsilon) ** 2 / 8,
    )


def exponential_mechanism_counts(
    probabilities,
    size: int,
    *,
    epsilon: float,
    sensitivity: float = 1.0,
    random_state=None,
    ledger: PrivacyLedger | None = None,
    note: str = "",
) -> np.ndarray:
    """Counts of ``size`` i.i.d. selections of one exponential mechanism (a multinomial draw).

    ``probabilities`` are the mechanism's selection probabilities, P(r) ∝ exp(ε_1·q_r/(2Δ))
    with ε_1 = ``epsilon``/``size`` the budget of one selection (the caller computes them from
    its scores, e.g. the DP smoothed histogram's p_r ∝ c_r + 2·size/ε); every selection is
    ε_1-DP and ε_1²/8-zCDP, so the ``size`` of them are ``epsilon``-DP (basic composition) and
    ``epsilon``²/(8·``size``)-zCDP (Cesar & Rogers 2021, exponential mechanism).

    Parameters
    ----------
    probabilities : array-like, shape (k,)
        Non-negative, summing to 1 (to float rounding).
    size : int ≥ 1
        Number of selections.
    epsilon : float
        Total ε > 0 of the ``size`` selections.
    sensitivity : float
        Δ of the score, for the ledger.
    random_state, ledger, note
        As in :func:`laplace`; the ledger entry has mechanism ``"exponential_counts"``.

    Returns
    -------
    ndarray of int64, shape (k,)
        How often each candidate was selected (summing to ``size``).

    Raises
    ------
    TypeError, ValueError
        Probabilities not finite, negative or not summing to 1; ``size`` < 1; ε or Δ not > 0.
    """
    check_instance(ledger, "ledger", PrivacyLedger, allow_none=True)
    eps = _positive(epsilon, "epsilon")
    sens = _positive(sensitivity, "sensitivity")
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
        raise ValueError(f"size must be an integer >= 1, got {size!r}")
    p = _as_values(probabilities, "probabilities")
    if p.ndim != 1 or np.any(p < 0) or not math.isclose(float(p.sum()), 1.0, rel_tol=1e-9):
        raise ValueError("probabilities must be a 1-D array of non-negative values summing to 1")
    rng = check_random_state(random_state)
    out = rng.multinomial(int(size), p).astype(np.int64)
    if ledger is not None:
        ledger.record(
            mechanism="exponential_counts",
            epsilon=eps,
            rho=eps**2 / (8 * int(size)),
            sensitivity=sens,
            note=note,
        )
    return record_call(
        "exponential_mechanism_counts",
        "linf",
        lambda: (
            (2 * sens * int(size) / eps) * np.log(p, out=np.full(p.shape, -np.inf), where=p > 0)
        ),
        out,
        sensitivity=sens,
        scale=eps,
        epsilon=eps,
        delta=0.0,
        rho=eps**2 / (8 * int(size)),
    )
