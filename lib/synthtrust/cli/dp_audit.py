"""``synthtrust dp-audit``: the audit of a user's generator class from the command line — the
distinguishing game (``--mode game``), with a cost estimate from pilot fits before it starts, or
the replay of two fits on neighbouring datasets (``--mode replay``, :mod:`.replay`), or one fit
with many canaries (``--mode one-run``, :mod:`.one_run`). The CLI in :mod:`synthtrust.cli.app`
declares the arguments and writes the outputs."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
import time

from synthtrust.cli.user_generator import GeneratorFactory
from synthtrust.dp_audit.canary import NEIGHBOURING, from_data, worst_case
from synthtrust.dp_audit.game import DPAuditResult, declared_rho, dp_audit, fit_and_score
from synthtrust.dp_audit.one_run import OneRunResult, one_run_audit, one_run_domain
from synthtrust.dp_audit.replay import ReplayAuditResult, replay_audit

__all__ = ["GAME_ONLY", "ONE_RUN_ONLY", "estimate_hours", "run_dp_audit", "run_one_run_audit"]
__all__ += ["run_replay_audit"]

#: Fits timed per world before the audit starts (after one untimed warm-up fit per world).
_PILOT_FITS = 4

#: Fits of the pilot audit of ``--target`` (its error rates give the fits the target needs).
TARGET_PILOT = 400

#: The options of the game that the replay has no use for, with their defaults (the parser's:
#: ``tests/test_cli_dp_audit_replay.py`` checks them); given otherwise, --mode replay refuses.
GAME_ONLY = {
    "score": "auto",
    "fits": 2000,
    "alpha": 0.05,
    "max_hours": 2.0,
    "target": None,
    "cache": None,
    "n_jobs": None,
    "dask": None,
}


#: The options of the one-run audit, with their defaults (the parser's); given otherwise,
#: the other modes refuse.
ONE_RUN_ONLY = {"canaries": 1000, "guesses": None}


def _factory(args, cls: type, domain: dict) -> GeneratorFactory:
    """The user's class ``cls`` with the claim and the game's domain among its constructor
    arguments (those its signature takes; ``--params`` wins)."""
    accepted = inspect.signature(cls).parameters
    claim = {"epsilon": args.epsilon, "delta": args.delta, "domain": domain}
    params = {k: v for k, v in claim.items() if k in accepted and (k != "delta" or v > 0)}
    return GeneratorFactory(args.generator, {**params, **args.params})


def estimate_hours(seconds_per_fit: float, n_fits: int, n_workers: int) -> float:
    """Wall hours of ``n_fits`` fits at ``seconds_per_fit`` each on ``n_workers`` workers."""
    return seconds_per_fit * n_fits / max(1, n_workers) / 3600


def _pilot(factory, worlds, args) -> tuple[float, float]:
    """(seconds of the warm-up, seconds a fit) in this process: one warm-up fit per world
    (one-time start-up — imports, JIT compilation, caches — is no per-fit cost), then
    ``_PILOT_FITS`` timed fits per world (fit + sample + score); a generator that raises is
    reported in one line."""
    with _one_line_errors(args.generator):
        start = time.perf_counter()
        for world in (0, 1):
            fit_and_score(factory, worlds, world, _PILOT_FITS)
        warm_up = time.perf_counter() - start
        start = time.perf_counter()
        for seed in range(_PILOT_FITS):
            for world in (0, 1):
                fit_and_score(factory, worlds, world, seed)
    return warm_up, (time.perf_counter() - start) / (2 * _PILOT_FITS)


@contextlib.contextmanager
def _one_line_errors(spec: str):
    """Bad input stays as it is; anything else the user's generator raises becomes one line."""
    try:
        yield
    except (ValueError, TypeError):
        raise
    except Exception as exc:
        raise ValueError(f"--generator {spec}: a fit raised {type(exc).__name__}: {exc}") from None


def _run(factory, worlds, args, relation: str, cls: type) -> DPAuditResult:
    """The game; the relation and the zCDP ρ the *class* declares are passed, as the factory
    declares neither (dp_audit would look them up on it: the relation with an error worded for
    Python, ρ silently NaN)."""
    rho = declared_rho(cls, args.epsilon, args.delta)
    kwargs = dict(
        neighbouring=relation,
        rho=rho if math.isfinite(rho) else None,
        delta=args.delta,
        worlds=worlds,
        score=args.score.replace("-", "_"),
        n_fits=args.fits,
        alpha=args.alpha,
        random_state=args.seed,
        n_jobs=args.n_jobs,
        dask=args.dask,
        cache_dir=args.cache,
    )
    with _one_line_errors(args.generator):
        return dp_audit(factory, args.epsilon, **kwargs)


def _worlds(args, relation: str):
    """The worst-case pair, or the pair on the user's table (``--data``, ``--domain``)."""
    if args.data is None:
        if args.domain is not None:
            raise ValueError("--domain declares the levels of --data; give --data too")
        return worst_case(relation, n_base=args.base_records)
    from synthtrust.datasets import read_table

    try:
        return from_data(
            read_table(args.data), relation, domain=args.domain, random_state=args.seed
        )
    except (OSError, TypeError, ValueError) as exc:
        raise ValueError(f"--data {args.data}: {exc}") from None


def _relation(args, cls: type) -> str:
    """``--neighbouring``, or the relation the class declares (in the command line's words)."""
    if args.neighbouring is not None:
        return args.neighbouring.replace("-", "_")
    declared = getattr(cls, "neighbouring", None)
    if not isinstance(declared, str):  # none, or set per instance (a property, in __init__)
        raise ValueError(
            f"--neighbouring must be given: {args.generator} declares no neighbouring relation "
            "(no 'neighbouring' class attribute); pass --neighbouring add-remove or "
            "--neighbouring replace-one"
        )
    relation = str(declared).replace("-", "_")
    if relation not in NEIGHBOURING:
        raise ValueError(
            f"--generator {args.generator} declares neighbouring = {declared!r}; pass "
            "--neighbouring add-remove or --neighbouring replace-one"
        )
    return relation


def _fits_for_target(factory, worlds, args, relation: str, cls: type):
    """``args`` with ``fits`` set to what a bound of ``--target`` × the claim needs, at the
    error rates of a pilot audit of :data:`TARGET_PILOT` fits (printed); a target the score
    cannot reach is a one-line error naming the score to try."""
    import argparse

    pilot = _run(
        factory, worlds, argparse.Namespace(**{**vars(args), "fits": TARGET_PILOT}), relation, cls
    )
    needed = pilot.fits_for(args.target)
    what = "mu" if math.isfinite(pilot.mu) else "epsilon"
    claim = pilot.mu if what == "mu" else pilot.epsilon
    if not math.isfinite(needed):
        other = "learned" if pilot.score != "learned" else "marginal-lr"
        raise ValueError(
            f"--target {args.target:g}: a {what} bound of {args.target * claim:.3g} is out of "
            f"reach of the {pilot.score} score (pilot of {TARGET_PILOT} fits: wrong "
            f"{pilot.fp}/{pilot.n0} without, {pilot.fn}/{pilot.n1} with the canary); try "
            f"--score {other}"
        )
    fits = max(40, 2 * math.ceil(needed / 2))
    print(
        f"target: a {what} bound of {args.target:g} x {claim:.3g} needs about {fits:,} fits "
        f"(pilot of {TARGET_PILOT} fits: bound {pilot.mu_lb if what == 'mu' else pilot.epsilon_lb:.3f})"
    )
    return argparse.Namespace(**{**vars(args), "fits": fits})


def _setting(args, factory, worlds, relation: str) -> dict:
    """What was audited (:attr:`DPAuditResult.setting`), in the command line's words."""
    source = (
        {"source": "worst case", "base_records": args.base_records}
        if args.data is None
        else {"source": "data", "file": str(args.data)}
    )
    return {
        "generator": args.generator,
        "params": dict(args.params),
        "constructor": {k: v for k, v in factory.params.items() if k != "random_state"},
        "worlds": source,
        "records_without": len(worlds.without),
        "records_with": len(worlds.with_canary),
        "canary": dict(worlds.canary),
        "removed": None if worlds.removed is None else dict(worlds.removed),
        "neighbouring": relation.replace("_", "-"),
    }


def run_dp_audit(args) -> DPAuditResult:
    """Run the audit the parsed ``args`` of ``synthtrust dp-audit`` describe; print the pilot's
    estimate and the result's summary. The result's ``setting`` names what was audited.

    Raises
    ------
    ValueError
        A bad generator or parameter; an estimate beyond ``--max-hours`` (from the seconds a
        fit after the warm-up).
    """
    from joblib import cpu_count

    _refuse(args, ONE_RUN_ONLY, "one-run", "plays the game on two datasets")
    cls = GeneratorFactory(args.generator, args.params).cls()  # checks the spec and the class
    relation = _relation(args, cls)
    worlds = _worlds(args, relation)
    factory = _factory(args, cls, worlds.domain)
    if getattr(args, "target", None) is not None:
        args = _fits_for_target(factory, worlds, args, relation, cls)
    warm_up, per_fit = _pilot(factory, worlds, args)
    workers = cpu_count() if args.n_jobs in (None, -1) else args.n_jobs
    hours = estimate_hours(per_fit, args.fits, workers)
    print(
        f"generator: {args.generator}; claim: epsilon = {args.epsilon:g}, delta = {args.delta:g}, "
        f"{relation.replace('_', '-')}; pilot: {per_fit:.3g} s a fit (after a {warm_up:.3g} s "
        f"warm-up), {args.fits} fits on {workers} worker(s) ~ {hours * 60:.1f} min"
    )
    if hours > args.max_hours:
        raise ValueError(
            f"--fits {args.fits} would take about {hours:.1f} h (> --max-hours {args.max_hours:g}); "
            "raise --max-hours or lower --fits"
        )
    result = dataclasses.replace(
        _run(factory, worlds, args, relation, cls),
        setting=_setting(args, factory, worlds, relation),
    )
    print(result.summary())
    return result


def _refuse(args, options: dict, owner: str, why: str) -> None:
    """A one-line error, in the command line's words, for an option of ``options`` (dest ->
    default) given to a mode that cannot use it."""
    for dest, default in options.items():
        if getattr(args, dest, default) != default:
            flag = "--" + dest.replace("_", "-")
            mode = getattr(args, "mode", "game")
            raise ValueError(f"{flag} belongs to --mode {owner}; --mode {mode} {why}")


def _refuse_game_only_options(args) -> None:
    """One-line errors, in the command line's words, for what ``--mode replay`` cannot use."""
    _refuse(args, GAME_ONLY, "game", "makes two fits")
    _refuse(args, ONE_RUN_ONLY, "one-run", "makes two fits")
    if not 0 <= args.delta < 1:
        raise ValueError(f"--delta must be in [0, 1), got {args.delta:g}")
    if "random_state" in args.params:
        raise ValueError("--params: leave out random_state; --mode replay sets it (--seed)")


def run_replay_audit(args) -> ReplayAuditResult:
    """The replay audit (:func:`~synthtrust.dp_audit.replay.replay_audit`) the parsed ``args``
    of ``synthtrust dp-audit --mode replay`` describe; print the setting and the one-line
    summary.

    Raises
    ------
    ValueError
        A bad generator or parameter, an option of the game, a fit that raised.
    """
    _refuse_game_only_options(args)
    cls = GeneratorFactory(args.generator, args.params).cls()  # checks the spec and the class
    relation = _relation(args, cls)
    worlds = _worlds(args, relation)
    factory = _factory(args, cls, worlds.domain)
    source = (
        f"--data {args.data}"
        if args.data is not None
        else (f"worst case: --base-records {args.base_records}")
    )
    print(
        f"generator: {args.generator}; claim: epsilon = {args.epsilon:g}, delta = {args.delta:g}, "
        f"{relation.replace('_', '-')}; replay: fit and sample on D ({len(worlds.without)} "
        f"records) and D′ ({len(worlds.with_canary)} records), seed {args.seed}"
    )
    with _one_line_errors(args.generator):
        result = replay_audit(
            factory,
            args.epsilon,
            delta=args.delta,
            neighbouring=relation,
            worlds=worlds,
            random_state=args.seed,
            source=source,
        )
    print(result.summary())
    return result


def run_one_run_audit(args) -> OneRunResult:
    """The one-run audit (:func:`~synthtrust.dp_audit.one_run_audit`, ``steinke2023``) the
    parsed ``args`` of ``synthtrust dp-audit --mode one-run`` describe: one fit on
    ``--base-records`` base records and ``--canaries`` canaries, each in by a fair coin; print
    the setting and the summary.

    Raises
    ------
    ValueError
        A bad generator or parameter, an option of the game other than ``--score`` (count or
        whitebox) and ``--alpha``, ``--data``, a fit that raised.
    """
    _refuse(args, {k: v for k, v in GAME_ONLY.items() if k not in ("score", "alpha")}, "game",
            "makes one fit")  # fmt: skip
    if args.data is not None or args.domain is not None:
        raise ValueError("--mode one-run builds its own table of canaries; leave out --data")
    score = {"auto": "count", "count": "count", "whitebox": "whitebox"}.get(args.score)
    if score is None:
        raise ValueError(f"--score {args.score}: --mode one-run scores by count or whitebox")
    if "random_state" in args.params:
        raise ValueError("--params: leave out random_state; --mode one-run sets it (--seed)")
    cls = GeneratorFactory(args.generator, args.params).cls()  # checks the spec and the class
    relation = _relation(args, cls)
    factory = _factory(args, cls, one_run_domain(args.canaries))
    print(
        f"generator: {args.generator}; claim: epsilon = {args.epsilon:g}, delta = {args.delta:g}, "
        f"{relation.replace('_', '-')}; one run: {args.canaries} canaries beside "
        f"{args.base_records} base records, seed {args.seed}"
    )
    with _one_line_errors(args.generator):
        result = one_run_audit(
            factory,
            args.epsilon,
            neighbouring=relation,
            delta=args.delta,
            n_canaries=args.canaries,
            guesses=args.guesses,
            n_base=args.base_records,
            score=score,
            alpha=args.alpha,
            random_state=args.seed,
        )
    print(result.summary())
    return result
