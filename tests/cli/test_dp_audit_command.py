"""Tests of ``synthtrust.cli.dp_audit``, the ``synthtrust dp-audit`` command behind the
argument parser: the cost estimate (wall hours of the fits on the workers, by hand; the pilot's
fits timed after one warm-up fit per world, so a one-time start-up is no per-fit cost) printed
before the audit and refused beyond ``--max-hours`` before any audit fit; the claim and the
game's domain given to the constructor arguments the user's class takes (``--params`` wins,
δ only when positive); the user's generator's failures as one-line errors; and the audit run
exactly as :func:`~synthtrust.dp_audit.game.dp_audit` called with the same arguments, with the
``setting`` that names what was audited. The command's exit codes, outputs and messages are
tested end to end in tests/test_cli_dp_audit.py.
"""

from __future__ import annotations

import re
import textwrap
import types
from dataclasses import replace

import pytest
from _user_module import user_module

from synthtrust.cli import dp_audit as command
from synthtrust.cli.app import build_parser
from synthtrust.cli.dp_audit import _factory, _one_line_errors, estimate_hours, run_dp_audit
from synthtrust.dp_audit.canary import worst_case
from synthtrust.dp_audit.game import DPAuditResult, dp_audit

MODULE = "usergen_for_test_dp_audit_command"
SOURCE = textwrap.dedent("""
    import time

    import pandas as pd

    STARTED = False  # set by the first fit of SlowStart in a process


    class SlowStart:
        # samples the all-zero record; its first fit in a process sleeps 2 s (a start-up cost:
        # imports, JIT compilation), every later one returns at once

        def __init__(self, domain=None, random_state=None):
            self.domain = domain

        def fit(self, X):
            global STARTED
            if not STARTED:
                time.sleep(2.0)
                STARTED = True
            return self

        def sample(self, n):
            return pd.DataFrame(0, index=range(n), columns=list(self.domain))


    class Everything:
        def __init__(self, epsilon=1.0, delta=0.0, domain=None, random_state=None, boost=1.0):
            self.epsilon, self.delta, self.domain = epsilon, delta, domain
            self.random_state, self.boost = random_state, boost

        def fit(self, X):
            return self

        def sample(self, n):
            return None


    class EpsilonOnly:
        def __init__(self, epsilon=1.0):
            self.epsilon = epsilon

        def fit(self, X):
            return self

        def sample(self, n):
            return None
""")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    with user_module(tmp_path, monkeypatch, MODULE, SOURCE) as path:
        yield path


def _args(*argv):
    return build_parser().parse_args(["dp-audit", *argv])


@pytest.mark.parametrize(
    ("seconds", "fits", "workers", "hours"),
    [(36.0, 2000, 2, 10.0), (0.9, 4000, 1, 1.0), (7.2, 100, 4, 0.05), (3.6, 1000, 0, 1.0)],
)
def test_estimate_hours_by_hand(seconds, fits, workers, hours):
    assert estimate_hours(seconds, fits, workers) == pytest.approx(hours, rel=1e-12)


def test_the_claim_and_the_domain_go_to_the_arguments_the_class_takes(workdir):
    from synthtrust.cli.user_generator import GeneratorFactory

    domain = {"c0": 2}
    args = _args("--generator", f"{MODULE}:Everything", "--epsilon", "2", "--delta", "1e-5")
    cls = GeneratorFactory(args.generator, args.params).cls()
    factory = _factory(args, cls, domain)
    assert factory.params == {"epsilon": 2.0, "delta": 1e-5, "domain": domain}
    args = _args("--generator", f"{MODULE}:Everything", "--epsilon", "2")
    assert _factory(args, cls, domain).params == {"epsilon": 2.0, "domain": domain}  # δ = 0
    args.params = {"epsilon": 0.5, "boost": 10}
    assert _factory(args, cls, domain).params == {"epsilon": 0.5, "domain": domain, "boost": 10}
    args = _args("--generator", f"{MODULE}:EpsilonOnly", "--epsilon", "3", "--delta", "0.1")
    only = GeneratorFactory(args.generator, {}).cls()
    assert _factory(args, only, domain).params == {"epsilon": 3.0}
    gen = _factory(args, only, domain)(7)
    assert type(gen).__name__ == "EpsilonOnly" and gen.epsilon == 3.0


def test_the_estimate_is_printed_and_an_audit_beyond_max_hours_never_starts(
    workdir, monkeypatch, capsys
):
    monkeypatch.setattr(command, "_pilot", lambda factory, worlds, args: (3.1, 36.0))
    monkeypatch.setattr("joblib.cpu_count", lambda: 8)

    audits = []
    done = DPAuditResult(
        *("stub", 0.1, 0.2, 0.3, 1.0, 0.0, "add_remove", "count", "exact_cell", 0.5, 2000),
        *(1000, 1000, 4, 5, 0.05, 0),
    )

    def fake_audit(factory, epsilon, **kwargs):
        audits.append((epsilon, kwargs["n_fits"], kwargs["n_jobs"], kwargs["neighbouring"]))
        return done

    monkeypatch.setattr(command, "dp_audit", fake_audit)
    args = _args(
        "--generator",
        f"{MODULE}:Everything",
        "--epsilon",
        "1",
        "--neighbouring",
        "add-remove",
        "--fits",
        "2000",
    )
    with pytest.raises(ValueError) as info:  # 36 s × 2000 fits / 8 workers = 2.5 h > 2 h
        run_dp_audit(args)
    assert str(info.value) == (
        "--fits 2000 would take about 2.5 h (> --max-hours 2); raise --max-hours or lower --fits"
    )
    assert audits == []
    out = capsys.readouterr().out
    assert out == (
        f"generator: {MODULE}:Everything; claim: epsilon = 1, delta = 0, add-remove; "
        "pilot: 36 s a fit (after a 3.1 s warm-up), 2000 fits on 8 worker(s) ~ 150.0 min\n"
    )
    args.n_jobs, args.max_hours = 2, 11.0  # 36 s × 2000 / 2 = 10 h: allowed, the audit starts
    result = run_dp_audit(args)
    assert replace(result, setting={}) == done and result.setting["generator"] == args.generator
    assert audits == [(1.0, 2000, 2, "add_remove")]
    out = capsys.readouterr().out
    assert "2000 fits on 2 worker(s) ~ 600.0 min\n" + done.summary() + "\n" in out


def test_what_the_users_generator_raises_becomes_one_line():
    bad = ValueError("bad input")
    with pytest.raises(ValueError) as info:
        with _one_line_errors("m:G"):
            raise bad
    assert info.value is bad  # bad input is reported as it is
    with pytest.raises(TypeError, match="^wrong type$"):
        with _one_line_errors("m:G"):
            raise TypeError("wrong type")
    with pytest.raises(ValueError) as info:
        with _one_line_errors("m:G"):
            raise ZeroDivisionError("cannot fit")
    assert str(info.value) == "--generator m:G: a fit raised ZeroDivisionError: cannot fit"
    assert info.value.__cause__ is None and info.value.__suppress_context__


def test_the_command_runs_the_audit_dp_audit_runs_with_the_same_arguments(capsys):
    from synthtrust.cli.user_generator import GeneratorFactory

    spec = "synthtrust.synthesizers.histogram:PerturbedHistogram"
    args = _args(
        *("--generator", spec, "--epsilon", "1", "--fits", "40", "--score", "marginal-lr"),
        *("--seed", "5", "--base-records", "4", "--n-jobs", "1", "--params", '{"epsilon": 2}'),
    )
    result = run_dp_audit(args)
    out = capsys.readouterr().out
    found = re.search(r"pilot: (\S+) s a fit \(after a \S+ s warm-up\), 40 fits on 1 worker", out)
    per_fit = float(found.group(1))
    minutes = float(re.search(r"~ (\S+) min", out).group(1))
    assert minutes == pytest.approx(estimate_hours(per_fit, 40, 1) * 60, abs=0.051)
    assert out.rstrip().endswith(result.summary())
    # the relation the class declares, the score with underscores, --params over the claim
    worlds = worst_case("replace_one", n_base=4)
    factory = GeneratorFactory(spec, {"epsilon": 2, "domain": worlds.domain})
    expected = dp_audit(
        factory,
        1.0,
        neighbouring="replace_one",
        worlds=worlds,
        score="marginal_lr",
        n_fits=40,
        random_state=5,
        n_jobs=1,
        progress=False,
    )
    assert replace(result, setting={}).to_dict() == expected.to_dict()
    assert (result.neighbouring, result.score, result.n_fits) == ("replace_one", "marginal_lr", 40)
    assert result.setting == {
        "generator": spec,
        "params": {"epsilon": 2},
        "constructor": {"epsilon": 2, "domain": {"c0": 2, "c1": 2, "c2": 2}},
        "worlds": {"source": "worst case", "base_records": 4},
        "records_without": 5,  # replace-one: the 4 base records and the record the canary replaces
        "records_with": 5,
        "canary": {"c0": 1, "c1": 1, "c2": 1},
        "removed": {"c0": 0, "c1": 0, "c2": 0},
        "neighbouring": "replace-one",
    }


def test_the_pilot_times_its_fits_after_one_untimed_warm_up_fit_per_world(monkeypatch):
    """A fake clock: the first fit takes 3 s (start-up), every other 0.5 s; the pilot makes one
    warm-up fit per world, then ``_PILOT_FITS`` timed fits per world."""
    clock, fits = [0.0], []

    def fake_fit(factory, worlds, world, seed):
        clock[0] += 3.0 if not fits else 0.5
        fits.append((world, seed))

    monkeypatch.setattr(command, "fit_and_score", fake_fit)
    monkeypatch.setattr(command, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))
    warm_up, per_fit = command._pilot(None, None, _args("--generator", "m:G", "--epsilon", "1"))
    assert (warm_up, per_fit) == (3.5, 0.5)
    n = command._PILOT_FITS
    assert fits == [(0, n), (1, n), *((w, s) for s in range(n) for w in (0, 1))]


def test_a_slow_first_fit_is_left_out_of_the_estimate_and_of_max_hours(workdir, capsys):
    """SlowStart's first fit in a process sleeps 2 s: counted as a cost a fit it would be at
    least 2 s / 8 timed fits = 0.25 s, so 40 fits ≥ 10 s > --max-hours 0.001 (3.6 s); after the
    warm-up the audit starts."""
    args = _args(
        *("--generator", f"{MODULE}:SlowStart", "--epsilon", "1", "--neighbouring", "add-remove"),
        *("--fits", "40", "--score", "count", "--n-jobs", "1", "--max-hours", "0.001"),
    )
    result = run_dp_audit(args)
    out = capsys.readouterr().out
    found = re.search(r"pilot: (\S+) s a fit \(after a (\S+) s warm-up\), 40 fits on 1 ", out)
    per_fit, warm_up = float(found.group(1)), float(found.group(2))
    assert warm_up >= 2.0
    assert per_fit < 0.05  # the sleep is not in it
    assert (result.n_fits, result.n0 + result.n1) == (40, 40)
