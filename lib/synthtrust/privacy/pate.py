"""The PATE moments accountant and the noisy teacher vote (Papernot et al. 2017).

Sources: Papernot, Abadi, Erlingsson, Goodfellow, Talwar, "Semi-supervised knowledge transfer for
deep learning from private training data", ICLR 2017 [``papernot2017``] (the data-dependent moments
bound, Theorems 2–3 of its appendix); Abadi et al. (2016) [``abadi2016``] (the tail bound). Used by
:class:`synthtrust.synthesizers.PATECTGAN`; the reference is smartnoise-synth's
``privacy_utils.py`` [``smartnoise2025``].

Changing one record (replace-one) changes one shard, hence at most one teacher, hence v by at
most 1; the label is a threshold of v + Lap(1/λ), so each query is ε_q-DP with ε_q = λ.
Papernot et al. (2017) bound the log-moment α(l) of an ε_q-DP query with Pr[answer ≠ o*] ≤ q by
(their Theorems 2 and 3, with their 2γ = ε_q):

    α(l) ≤ min( ε_q²·l(l+1)/2,
                log[(1−q)·((1−q)/(1 − e^{ε_q}·q))^l + q·e^{ε_q·l}] )   (2nd only if q < 1/(e^{ε_q}+1))

and here q is the exact probability that the label differs from the majority:
q = ½·exp(−λ·``|v − k/2|``). The α of all queries add (adaptive composition), and
ε = min_{l=1..moments_order} (α(l) + ln(1/δ))/l (:func:`pate_epsilon`).

⚠ Differences from the reference accountant (smartnoise's ``privacy_utils.py``
[``smartnoise2025``]): besides omitting the ``log`` of the second term (smartnoise-sdk issue
#596), it plugs in Papernot's noisy-argmax quantities — q = (2 + λ·gap)/
(4·e^{λ·gap}) with gap = ``|2v − k|`` and ε_q = 2λ — for a mechanism that adds a *single* Laplace
draw to v. That q is smaller than this mechanism's true flip probability ½·e^{−λ·gap/2}
(2·e^{x} ≥ 2 + 2x), so the reference's data-dependent bound is not valid for its own mechanism;
its ε_q = 2λ is valid but twice the true value. This module uses the exact q and ε_q = λ.
⚠ As in PATE, the data-dependent ε depends on the votes and is itself not differentially private
(Papernot et al. 2017, §3.3; smooth sensitivity is needed for a release); the stopping time of
training depends on it too. ``accountant="data_independent"`` uses ε_q²·l(l+1)/2 only, whose ε
and stopping time depend on public quantities only.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (
    check_delta,
    check_epsilon,
    check_int_array,
    check_positive_int,
    check_real_range,
)
from .mechanisms import laplace
from .replay import record_call

__all__ = ["noisy_vote_labels", "pate_epsilon", "pate_moments", "pate_noise_for_budget"]


def pate_moments(
    votes,
    n_teachers: int,
    noise_multiplier: float,
    moments_order: int = 100,
    data_dependent: bool = True,
) -> np.ndarray:
    """Summed log-moment bounds α(l), l = 1..moments_order, of PATE queries with vote counts ``votes``.

    Parameters
    ----------
    votes : array of int, shape (Q,)
        v = number of teachers voting "real" for each of Q queries (0..n_teachers).
    n_teachers : int ≥ 1
        k.
    noise_multiplier : float > 0
        λ: the label is 1[v + Lap(1/λ) > k/2], an ε_q = λ DP query (replace-one).
    moments_order : int ≥ 1
    data_dependent : bool
        False: the data-independent bound λ²·l(l+1)/2 per query only.

    Returns
    -------
    ndarray, shape (moments_order,): Σ_queries min(λ²l(l+1)/2, data-dependent bound) (module
    docstring; Papernot et al. 2017, Theorems 2–3, with q = ½·exp(−λ·``|v − k/2|``)).

    Raises
    ------
    ValueError
        Bad votes, n_teachers < 1, noise_multiplier ≤ 0, moments_order < 1.
    """
    k = check_positive_int(n_teachers, "n_teachers")
    lam = check_real_range(noise_multiplier, "noise_multiplier", 0.0)
    order = check_positive_int(moments_order, "moments_order")
    v = check_int_array(np.atleast_1d(votes), "votes", 0, k).astype(np.float64)
    ls = np.arange(1, order + 1, dtype=np.float64)
    indep = lam * lam * ls * (ls + 1) / 2  # (L,)
    if v.size == 0:
        return np.zeros(order)
    if not data_dependent:
        return indep * v.size
    # identical gaps give identical bounds: evaluate per distinct gap
    gaps, counts = np.unique(np.abs(v - k / 2.0), return_counts=True)
    q = 0.5 * np.exp(-lam * gaps)  # (G,)
    ok = q < 1.0 / (math.exp(lam) + 1.0)
    out = np.broadcast_to(indep, (gaps.size, order)).copy()
    if np.any(ok):
        qo = q[ok][:, None]
        log_ratio = np.log1p(-qo) - np.log1p(-math.exp(lam) * qo)  # log((1−q)/(1−e^λ q)) > 0
        dep = np.logaddexp(np.log1p(-qo) + ls * log_ratio, np.log(qo) + lam * ls)
        out[ok] = np.minimum(out[ok], dep)
    return (out * counts[:, None]).sum(axis=0)


def pate_epsilon(alpha, delta: float) -> float:
    """ε = min_l (α(l) + ln(1/δ)) / l for log-moments ``alpha`` (shape (L,), orders l = 1..L).

    Source: Abadi et al. 2016, Theorem 2 (tail bound). Raises ValueError for δ ∉ (0, 1) or an
    empty / non-finite ``alpha``.
    """
    delta = check_delta(delta)
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"alpha must be a non-empty finite 1-D array, got shape {a.shape}")
    ls = np.arange(1, a.size + 1, dtype=np.float64)
    return float(np.min((a + math.log(1.0 / delta)) / ls))


def pate_noise_for_budget(
    epsilon: float, delta: float, n_queries: int, moments_order: int = 1000
) -> float:
    """The largest λ whose **data-independent** moments bound affords ``n_queries`` queries.

    Bisection (60 steps on log λ in [1e-12, 1e4]) for the largest λ with
    min_l (n_queries·λ²·l(l+1)/2 + ln(1/δ))/l ≤ epsilon, l = 1..moments_order; the result
    depends on public quantities only. Raises ValueError for bad arguments, or if even
    λ = 1e-12 does not fit (ln(1/δ)/moments_order > epsilon: raise ``moments_order``).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    q = check_positive_int(n_queries, "n_queries")
    order = check_positive_int(moments_order, "moments_order")
    ls = np.arange(1, order + 1, dtype=np.float64)

    def eps_of(lam):
        return float(np.min((q * lam * lam * ls * (ls + 1) / 2 + math.log(1 / delta)) / ls))

    lo, hi = math.log(1e-12), math.log(1e4)
    if eps_of(math.exp(lo)) > epsilon:
        raise ValueError(
            f"moments_order = {order} is too small for epsilon = {epsilon!r} at delta = {delta!r}: "
            f"need ln(1/delta)/moments_order < epsilon, i.e. moments_order > {math.log(1 / delta) / epsilon:.1f}"
        )
    for _ in range(60):
        mid = (lo + hi) / 2
        # 1e-9 relative margin: the fit's sum over queries may round differently
        lo, hi = (mid, hi) if eps_of(math.exp(mid)) <= epsilon * (1 - 1e-9) else (lo, mid)
    return math.exp(lo)


def noisy_vote_labels(votes, n_teachers: int, noise_multiplier: float, rng) -> np.ndarray:
    """PATE aggregation: label = 1[v + Lap(1/λ) > k/2] per query (int64 array like ``votes``).

    ``rng``: numpy Generator, int or None (the Laplace draws, made by
    :func:`~synthtrust.privacy.mechanisms.laplace` in one call). No ledger entry: the cost of the
    labels is what :func:`pate_moments` accumulates, recorded once by the caller with
    ``draws`` = the number of calls. Errors as :func:`pate_moments`. Inside
    :func:`~synthtrust.privacy.replay.record_mechanisms` the call is recorded once, with the
    votes as its value (L∞ sensitivity 1: one record changes each vote by at most 1).
    """
    k = check_positive_int(n_teachers, "n_teachers")
    lam = check_real_range(noise_multiplier, "noise_multiplier", 0.0)
    v = check_int_array(np.atleast_1d(votes), "votes", 0, k).astype(np.float64)
    noisy = laplace(v, scale=1.0 / lam, random_state=rng)
    return record_call(
        "noisy_vote_labels",
        "linf",
        v,
        (noisy > k / 2.0).astype(np.int64),
        sensitivity=1.0,
        scale=1.0 / lam,
        epsilon=lam * v.size,
        delta=0.0,
    )
