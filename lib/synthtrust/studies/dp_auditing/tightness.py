"""Chapter 6, "How tight are the audits?": the book's synthesizers audited at ε = 1 with budgets
that reach towards their claim, beside the published tight audits.

- :data:`TIGHT`: the audits run at a large budget — the perturbed histogram (pure ε, its
  discrete-Laplace histogram white-box), MST and AIM at (ε, δ) = (1, 10⁻²) (ρ-zCDP: the
  Gaussian-DP μ of their released measurements, and of MST's tree, against μ = √(2ρ) ≈ 0.455),
  on the published worst case (``ganev2026``: 10 records (0, 0, 0) and the canary (1, 1, 1));
- :func:`tightness_table`: those audits, with the bound against the claim, the fits, their
  cost in core-seconds and the fits the same score would need for 90 % of the claim;
- :func:`budget_table`: the audits of every other synthesizer (the chapter's audit table at
  ε = 1) with the fits their score would need for half of the claim
  (:func:`synthtrust.dp_audit.fits_to_reach`, from the error rates of their eval fits;
  :meth:`~synthtrust.dp_audit.DPAuditResult.fits_for` for the tight ones);
- :data:`PUBLISHED`: the figures of the published audits beside them.

ε and μ are in nats. Source: ``ganev2026`` (MST and AIM), ``annamalai2024``.
"""

from __future__ import annotations

import math
import time

import pandas as pd
from joblib import cpu_count

from synthtrust import synthesizers as syn
from synthtrust.dp_audit import dp_audit, fits_to_reach, worst_case

__all__ = ["PUBLISHED", "TIGHT", "budget_table", "tightness_table"]

#: name -> (label, class, relation, δ of the claim, constructor arguments beside ε and δ).
#: AIM runs 10 mirror-descent steps a refit (its default 1 000): the estimation is
#: post-processing of the measurements, so the privacy claim and the measurements' μ are the
#: same and a fit is 23× faster (0.009 s against 0.21 s on the worst case, one core).
TIGHT = {
    "perturbed_histogram": (
        "perturbed histogram",
        syn.PerturbedHistogram,
        "replace_one",
        0.0,
        {},
    ),
    "mst": ("MST", syn.MST, "add_remove", 1e-2, {}),
    "aim": ("AIM", syn.AIM, "add_remove", 1e-2, {"max_iter": 10}),
}

#: name -> (the published bound against its claim, the models behind it, the source).
PUBLISHED = {
    "mst": ("μ ≈ 0.43 of 0.45", "10 000 (5 000 a world)", "ganev2026, dpmm's MST, Bayesian 90 %"),
    "aim": ("μ ≈ 0.43 of 0.45", "10 000 (5 000 a world)", "ganev2026, dpmm's AIM, Bayesian 90 %"),
}


def _claim_row(name: str, result, seconds: float, workers: int) -> dict:
    zcdp = math.isfinite(result.mu)
    claim, bound = (result.mu, result.mu_lb) if zcdp else (result.epsilon, result.epsilon_lb)
    published = PUBLISHED.get(name, ("—", "—", ""))
    return {
        "generator": TIGHT[name][0],
        "claim": f"μ = {claim:.3f}" if zcdp else f"ε = {claim:g}",
        "claimed": claim,
        "lower bound": bound,
        "bound / claim": bound / claim,
        "fits": result.n_fits,
        "statistic": f"{result.score} ({result.statistic})",
        "core-seconds": seconds * workers,
        "fits for 0.9 × claim": result.fits_for(0.9),
        "published": published[0],
        "published models": published[1],
        "verdict": result.verdict,
    }


def tightness_table(fits: dict, *, seed: int = 0, n_jobs=None, **run) -> pd.DataFrame:
    """Each audit of :data:`TIGHT` named in ``fits`` (name -> fits) at ε = 1, on the worst
    case of its relation, with the default score (white-box: each has an ``audit_view``).

    Returns
    -------
    DataFrame
        One row per audit: ``generator``, ``claim`` (text: μ = √(2ρ) of the zCDP claim at
        (1, 10⁻²), or ε), ``claimed`` (μ or ε),
        ``lower bound``, ``bound / claim``, ``fits``, ``statistic``, ``core-seconds`` (wall
        seconds × workers), ``fits for 0.9 × claim`` (inf: more fits cannot reach it with this
        score), ``published``, ``published models``, ``verdict``.

    Raises
    ------
    KeyError
        A name that is not a key of :data:`TIGHT`.
    """
    workers = cpu_count() if n_jobs in (None, -1) else int(n_jobs)
    rows = []
    for name, n_fits in fits.items():
        label, cls, relation, delta, params = TIGHT[name]
        start = time.perf_counter()
        result = dp_audit(
            cls,
            1.0,
            neighbouring=relation,
            delta=delta,
            generator_params={"epsilon": 1.0, "delta": delta, **params} if delta else params,
            worlds=worst_case(relation),
            n_fits=int(n_fits),
            random_state=seed,
            n_jobs=n_jobs,
            **run,
        )
        rows.append(_claim_row(name, result, time.perf_counter() - start, workers))
    return pd.DataFrame(rows)


def budget_table(audits: pd.DataFrame, *, epsilon: float = 1.0) -> pd.DataFrame:
    """The rows of the chapter's audit table (:func:`.dp_auditing.audit_table`) at
    ``epsilon``: the bound against the claim, the seconds a fit and the fits their score would
    need for half of the claim, at the error rates of their eval fits.

    Returns
    -------
    DataFrame
        ``generator``, ``fits``, ``statistic``, ``lower bound``, ``bound / claim``,
        ``seconds a fit`` (wall), ``fits for 0.5 × claim`` (inf: not with this score),
        ``hours for 0.5 × claim`` (wall, at the measured seconds a fit).
    """
    rows = []
    for row in audits[audits.epsilon == epsilon].to_dict("records"):
        n_eval = int(row["n eval"])  # both worlds, half each
        rates = (2 * row["fp"] / n_eval, 2 * row["fn"] / n_eval)
        per_world = fits_to_reach(*rates, 0.5 * row["epsilon"], bound="epsilon", delta=row["delta"])
        needed = 2 * per_world * row["fits"] / n_eval
        per_fit = row["seconds"] / row["fits"]
        rows.append(
            {
                "generator": row["generator"],
                "fits": row["fits"],
                "statistic": row["score"],
                "lower bound": row["epsilon_lb"],
                "bound / claim": row["epsilon_lb"] / row["epsilon"],
                "seconds a fit": per_fit,
                "fits for 0.5 × claim": needed,
                "hours for 0.5 × claim": needed * per_fit / 3600,
            }
        )
    return pd.DataFrame(rows)
