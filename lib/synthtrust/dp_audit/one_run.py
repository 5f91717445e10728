"""The one-run audit of Steinke, Nasr & Jagielski (2023): many canaries, each included by a fair
coin, one fit, and a bound from how many coins the scores guess right.

Canary i owns its own cell: the table has an audit key column with m + 1 levels (the base
records have key 0, canary i has key i) beside two binary columns, so every marginal that
contains the key separates the canaries (parallel composition: no interference between them).
Under add/remove canary i = (i, 1, 1) is in the training data when its coin S_i = +1; under
replace-one each canary has a partner r_i = (i, 0, 0) and the coin picks which of the two is
present, so flipping one coin is one neighbouring step.

The fit is scored per canary (the canary's exact cell in the sample, or the white-box linear
statistic of the released noisy cells), the ``k`` highest scores are guessed "in" (ties broken
at random) and the bound is :func:`~synthtrust.dp_audit.bounds.one_run_epsilon_lower_bound` of
the m canaries, k guesses and the correct ones. Blind spot: noise reused across fits looks
fresh within one run (the multi-run game finds it, :func:`~synthtrust.dp_audit.dp_audit`).

Source: ``steinke2023`` (Algorithm 1, Theorem 5.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._result import ResultMixin
from .._validation import (
    check_choice,
    check_epsilon,
    check_int_at_least,
    check_random_state,
    check_real,
    check_unit_interval,
)
from ._generator import fresh_generator
from .bounds import one_run_epsilon_lower_bound
from .canary import NEIGHBOURING
from .game import declared_relation

__all__ = ["OneRunResult", "one_run_audit", "one_run_domain"]

#: Columns of the one-run table: the audit key and two binary columns.
_KEY, _COLUMNS = "key", ("c0", "c1")


@dataclass(frozen=True)
class OneRunResult(ResultMixin):
    """The outcome of :func:`one_run_audit`.

    Attributes
    ----------
    verdict : {"violation", "underpowered", "no violation detected"}
    epsilon_lb : float
        1 − α lower bound on ε from ``correct`` of ``guesses`` right guesses.
    ceiling : float
        The bound had every guess been right.
    epsilon, delta : float
        The claim.
    neighbouring : str
    score : {"count", "whitebox"}
    n_canaries, guesses, correct, included : int
        m, the guesses made (the highest scores), the right ones, the canaries whose coin put
        them in.
    alpha : float
    random_state : int
    """

    verdict: str
    epsilon_lb: float
    ceiling: float
    epsilon: float
    delta: float
    neighbouring: str
    score: str
    n_canaries: int
    guesses: int
    correct: int
    included: int
    alpha: float
    random_state: int

    def summary(self) -> str:
        """Short lines: the verdict, the bound against the claim and the ceiling, the guesses."""
        level = f"{1 - self.alpha:.0%}"
        return (
            f"verdict: {self.verdict}\n"
            f"  claim epsilon = {self.epsilon:g}; {level} lower bound {self.epsilon_lb:.3f}; "
            f"ceiling {self.ceiling:.3f}\n"
            f"  right: {self.correct} of {self.guesses} guesses among {self.n_canaries} canaries "
            f"({self.included} in the data); {self.score} score, one fit"
        )


def one_run_domain(n_canaries: int) -> dict:
    """The levels of the one-run table: the audit key (0 for the base records, i for canary i)
    and two binary columns."""
    return {_KEY: int(n_canaries) + 1, **dict.fromkeys(_COLUMNS, 2)}


def _table(coins: np.ndarray, n_base: int, replace_one: bool) -> pd.DataFrame:
    """The training data: ``n_base`` base records (0, 0, 0), canary i = (i, 1, 1) where its coin
    is +1, and under replace-one its partner (i, 0, 0) where it is −1."""
    m = len(coins)
    keys = np.arange(1, m + 1)
    inside = coins > 0
    rows = [np.zeros((n_base, 3), dtype=np.int64)]
    rows.append(np.column_stack([keys[inside], np.ones((inside.sum(), 2), dtype=np.int64)]))
    if replace_one:
        rows.append(np.column_stack([keys[~inside], np.zeros(((~inside).sum(), 2), np.int64)]))
    return pd.DataFrame(np.vstack(rows), columns=[_KEY, *_COLUMNS])


def _canary_scores(gen, synthetic: pd.DataFrame, m: int, score: str, replace_one: bool):
    """One score per canary 1..m: how often its exact cell occurs in the sample, or the linear
    white-box statistic y(c_i) − y(r_i) (add/remove: y(c_i)) of the released joint table."""
    if score == "count":
        codes = synthetic[[_KEY, *_COLUMNS]].to_numpy()
        hit = (codes[:, 1] == 1) & (codes[:, 2] == 1) & (codes[:, 0] >= 1)
        return np.bincount(codes[hit, 0], minlength=m + 1)[1:].astype(float)
    view = gen.audit_view()
    joint = next(
        np.asarray(values, dtype=float).reshape(m + 1, 2, 2)
        for clique, (values, _, _) in view.items()
        if tuple(clique) == (_KEY, *_COLUMNS)
    )
    y = joint[1:, 1, 1]
    return y - joint[1:, 0, 0] if replace_one else y


def one_run_audit(
    generator,
    epsilon: float,
    *,
    neighbouring: str | None = None,
    delta: float = 0.0,
    generator_params: dict | None = None,
    n_canaries: int = 1000,
    guesses: int | None = None,
    n_base: int = 10,
    score: str = "count",
    n_synthetic: int | None = None,
    alpha: float = 0.05,
    random_state: int = 0,
) -> OneRunResult:
    """Audit an ε claim with one fit and ``n_canaries`` canaries (Steinke et al. 2023).

    Parameters
    ----------
    generator, generator_params
        As :func:`~synthtrust.dp_audit.dp_audit` (told the table's domain: the key with
        ``n_canaries + 1`` levels and two binary columns).
    epsilon : float > 0
        The claimed ε.
    neighbouring : {"add_remove", "replace_one"} or None
        None: the relation the generator declares (:func:`~synthtrust.dp_audit.declared_relation`).
    delta : float in [0, 1)
        The claimed δ (the bound pays 2·m·δ: keep m·δ ≪ α).
    n_canaries : int >= 10
        m.
    guesses : int or None
        Canaries guessed "in" (the highest scores); None: 5 % of m (at least 1).
    n_base : int >= 1
        Base records (0, 0, 0).
    score : {"count", "whitebox"}
        The canary's exact cell in the sample, or the released noisy cells (``audit_view``).
    n_synthetic : int or None
        Records sampled; None: max(1000, 100 × training records).
    alpha : float in (0, 1)
    random_state : int
        Seeds the coins, the tie-breaking and the generator.

    Returns
    -------
    OneRunResult

    Raises
    ------
    ValueError
        A parameter out of range; ``guesses`` > ``n_canaries``; ``score="whitebox"`` for a
        generator without ``audit_view``.

    References
    ----------
    ``steinke2023``.

    Examples
    --------
    >>> from synthtrust.synthesizers import Bootstrap
    >>> one_run_audit(Bootstrap(), 1.0, neighbouring="add_remove").verdict
    'violation'
    """
    epsilon = check_epsilon(epsilon)
    delta = check_real(delta, "delta", 0.0, 1.0, high_open=True)
    neighbouring = declared_relation(generator) if neighbouring is None else neighbouring
    neighbouring = check_choice(neighbouring, "neighbouring", NEIGHBOURING)
    score = check_choice(score, "score", ("count", "whitebox"))
    m = check_int_at_least(n_canaries, "n_canaries", 10)
    k = max(1, m // 20) if guesses is None else check_int_at_least(guesses, "guesses", 1)
    if k > m:
        raise ValueError(f"guesses must be <= n_canaries = {m}, got {k}")
    n_base = check_int_at_least(n_base, "n_base", 1)
    alpha = check_unit_interval(alpha, "alpha")
    rng = check_random_state(random_state)
    coins = rng.choice(np.array([-1, 1]), size=m)
    replace_one = neighbouring == "replace_one"
    data = _table(coins, n_base, replace_one)
    domain = one_run_domain(m)
    gen = fresh_generator(generator, dict(generator_params or {}), domain, int(rng.integers(2**32)))
    if score == "whitebox" and not hasattr(gen, "audit_view"):
        raise ValueError("score='whitebox' needs a generator with audit_view(); this one has none")
    gen.fit(data)
    synthetic = gen.sample(max(1000, 100 * len(data)) if n_synthetic is None else n_synthetic)
    scores = _canary_scores(gen, synthetic, m, score, replace_one)
    order = np.lexsort((rng.random(m), -scores))  # highest first, ties at random
    correct = int((coins[order[:k]] > 0).sum())
    eps_lb = one_run_epsilon_lower_bound(m, k, correct, delta=delta, alpha=alpha)
    top = one_run_epsilon_lower_bound(m, k, k, delta=delta, alpha=alpha)
    verdict = (
        "violation"
        if eps_lb > epsilon
        else ("underpowered" if top <= epsilon else "no violation detected")
    )
    return OneRunResult(
        verdict,
        float(eps_lb),
        float(top),
        epsilon,
        delta,
        neighbouring,
        score,
        m,
        k,
        correct,
        int((coins > 0).sum()),
        alpha,
        int(random_state),
    )
