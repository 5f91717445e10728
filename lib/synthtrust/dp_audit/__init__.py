"""Empirical DP auditing: does a generator keep its ε promise?

The multi-run distinguishing game (:func:`dp_audit`) fits the generator many times on two
neighbouring datasets (:mod:`.canary`), scores every fit (:mod:`.scores`) and turns the errors of
a threshold into a one-sided lower confidence bound on the ε the code actually spends
(:mod:`.bounds`; for a zCDP claim also on the Gaussian-DP μ, against μ = √(2ρ)): a bound above
the claim is a **violation**, found by a correct generator with
probability at most α; a bound below it proves nothing (the report says how high a bound the
budget of fits could reach, and calls an audit that could not refute the claim
**underpowered**). :func:`one_run_audit` bounds ε from a single fit with many canaries
(:mod:`.one_run`). :mod:`.planted` holds planted bugs, the audit's positive controls.
:func:`replay_audit` is the grey-box replay (:mod:`.replay`): one fit on each of the two
datasets with the same seed, every noisy measurement recorded, and a **violation** when the
calls differ, a sensitivity exceeds the declared one, or the ε the observed sensitivities imply
exceeds the claim.

Beside :mod:`synthtrust.audit`, which audits generator cards (what a generator's output may
depend on), this package audits the privacy claim itself.

Source: ``jagielski2020``, ``nasr2023``, ``steinke2023``, ``annamalai2024``, ``ganev2026``,
``cebere2026``.
"""

from .bounds import (
    ceiling,
    clopper_pearson_upper,
    epsilon_lower_bound,
    fits_to_reach,
    gdp_delta,
    gdp_mu,
    mu_lower_bound,
    one_run_epsilon_lower_bound,
)
from .canary import NEIGHBOURING, Worlds, from_data, rare_cell, worst_case
from .game import (
    MU_VERDICTS,
    SCORES,
    VERDICTS,
    DPAuditResult,
    declared_relation,
    declared_rho,
    dp_audit,
    fit_and_score,
)
from .one_run import OneRunResult, one_run_audit
from .replay import REPLAY_VERDICTS, RecordingGenerator, ReplayAuditResult, replay_audit
from .scores import (
    canary_counts,
    canary_subsets,
    is_gaussian_view,
    learned_score,
    marginal_likelihood_ratio,
    view_entries,
    whitebox_score,
)

__all__ = [
    "MU_VERDICTS",
    "NEIGHBOURING",
    "REPLAY_VERDICTS",
    "SCORES",
    "VERDICTS",
    "DPAuditResult",
    "OneRunResult",
    "RecordingGenerator",
    "ReplayAuditResult",
    "Worlds",
    "canary_counts",
    "canary_subsets",
    "ceiling",
    "clopper_pearson_upper",
    "declared_relation",
    "declared_rho",
    "dp_audit",
    "epsilon_lower_bound",
    "fit_and_score",
    "fits_to_reach",
    "from_data",
    "gdp_delta",
    "gdp_mu",
    "is_gaussian_view",
    "learned_score",
    "marginal_likelihood_ratio",
    "mu_lower_bound",
    "one_run_audit",
    "one_run_epsilon_lower_bound",
    "rare_cell",
    "replay_audit",
    "view_entries",
    "whitebox_score",
    "worst_case",
]
