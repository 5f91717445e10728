"""`synthtrust dp-audit --mode replay` run as a user runs it: ``python -m synthtrust.cli`` in a
fresh process, from a temporary working directory, with the generator classes in a module
written outside the package and found through ``PYTHONPATH`` (default backend, default
``--n-jobs``).

Acceptance (issue 47), on the worst-case replace-one pair, where the histogram moves by 2 in
L1: a Laplace histogram through ``synthtrust.privacy.laplace`` with sensitivity 2 passes; the
same with sensitivity 1 is a violation (exit 1 with ``--strict``, 'violation' in the one-line
summary and in the JSON); numpy's own ``rng.laplace`` with scale 2/ε passes and with 1/ε is a
violation; a data-dependent branch is a violation. Bad input prints one line that names the
flag as the command line spells it, and writes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from synthtrust.cli.app import build_parser
from synthtrust.cli.dp_audit import GAME_ONLY

MODULE = "usergen_for_cli_dp_audit_replay"
SOURCE = textwrap.dedent('''
    import numpy as np
    import pandas as pd

    from synthtrust.privacy import laplace


    def counts_of(X, domain):
        cells = np.ravel_multi_index(X[list(domain)].to_numpy().T, tuple(domain.values()))
        return np.bincount(cells, minlength=int(np.prod(list(domain.values())))).astype(float)


    class LaplaceHistogram:
        """Laplace noise through synthtrust.privacy on every cell of the joint histogram."""

        def __init__(self, epsilon=1.0, domain=None, random_state=None, sensitivity=2.0):
            self.epsilon, self.domain = epsilon, domain
            self.random_state, self.sensitivity = random_state, sensitivity

        def fit(self, X):
            self.noisy_ = laplace(
                counts_of(X, self.domain),
                sensitivity=self.sensitivity,
                epsilon=self.epsilon,
                random_state=self.random_state,
            )
            return self

        def sample(self, n):
            p = np.maximum(self.noisy_, 0) + 1e-9
            cells = np.random.default_rng(0).choice(p.size, size=n, p=p / p.sum())
            shape = tuple(self.domain.values())
            return pd.DataFrame(
                np.column_stack(np.unravel_index(cells, shape)), columns=list(self.domain)
            )


    class NumpyHistogram(LaplaceHistogram):
        """The same with numpy's own Laplace draws at scale numerator / epsilon."""

        def __init__(self, epsilon=1.0, domain=None, random_state=None, numerator=2.0):
            super().__init__(epsilon, domain, random_state)
            self.numerator = numerator

        def fit(self, X):
            rng = np.random.default_rng(self.random_state)
            counts = counts_of(X, self.domain)
            self.noisy_ = counts + rng.laplace(0, self.numerator / self.epsilon, counts.shape)
            return self


    class Branching(LaplaceHistogram):
        """Measures again when a record holds c0 = 1: data-dependent control flow."""

        def fit(self, X):
            super().fit(X)
            if (X["c0"] == 1).any():
                super().fit(X)
            return self


    class DeclaresReplaceOne(LaplaceHistogram):
        neighbouring = "replace_one"
''')


@pytest.fixture
def dirs(tmp_path):
    """(working directory, the folder of the user's module on PYTHONPATH)."""
    lib, work = tmp_path / "userlib", tmp_path / "work"
    lib.mkdir()
    work.mkdir()
    (lib / f"{MODULE}.py").write_text(SOURCE)
    return work, lib


def _cli(dirs, *args):
    work, lib = dirs
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(lib), os.environ.get("PYTHONPATH")])),
    }
    cmd = [sys.executable, "-m", "synthtrust.cli", "dp-audit", "--mode", "replay", *args]
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300)


def _replay(dirs, cls, *extra, epsilon="1"):
    return _cli(
        dirs,
        *("--generator", f"{MODULE}:{cls}", "--epsilon", epsilon),
        *("--neighbouring", "replace-one", "--json", "out.json", "--html", "out.html"),
        "--strict",
        *extra,
    )


def _summary(run) -> str:
    (line,) = [x for x in run.stdout.splitlines() if x.startswith("verdict: ")]
    return line


ACCEPTANCE = [
    # (case, class, --params, exit code, verdict)
    ("a", "LaplaceHistogram", "{}", 0, "no violation detected"),
    ("b", "LaplaceHistogram", '{"sensitivity": 1}', 1, "violation"),
    ("c", "NumpyHistogram", "{}", 0, "no violation detected"),
    ("c", "NumpyHistogram", '{"numerator": 1}', 1, "violation"),
    ("d", "Branching", "{}", 1, "violation"),
]


@pytest.mark.parametrize(("case", "cls", "params", "code", "verdict"), ACCEPTANCE)
def test_acceptance(dirs, case, cls, params, code, verdict):
    run = _replay(dirs, cls, "--params", params, epsilon="0.5")
    assert run.returncode == code, run.stderr
    assert run.stderr == ""
    summary = _summary(run)
    assert summary.startswith(f"verdict: {verdict}; ")
    report = json.loads((dirs[0] / "out.json").read_text())
    assert report["verdict"] == verdict
    assert report["generator"] == f"{MODULE}:{cls}"
    assert report["params"]["epsilon"] == 0.5 and report["params"]["domain"] == {
        "c0": 2,
        "c1": 2,
        "c2": 2,
    }
    assert report["neighbouring"] == "replace_one"
    assert report["datasets"]["records_d"] == report["datasets"]["records_d_prime"] == 11
    assert report["datasets"]["removed"] == {"c0": 0, "c1": 0, "c2": 0}
    page = (dirs[0] / "out.html").read_text()
    assert f"<strong>{verdict}</strong>" in page and f"{MODULE}:{cls}" in page
    implied = {"a": 0.5, "b": 1.0, "c": 0.5 if code == 0 else 1.0}
    if case == "d":
        assert not report["sequences_match"] and "data-dependent control flow" in summary
        assert (report["n_calls"], report["n_calls_prime"]) == (1, 2)
    else:
        assert report["implied_epsilon"] == pytest.approx(implied[case], rel=1e-12)
        assert [row["observed"] for row in report["table"]] == [2.0]
    if case == "b":
        assert "observed l1 sensitivity 2 > declared 1" in summary


def test_without_strict_a_violation_exits_0_and_the_relation_declared_by_the_class_is_used(dirs):
    run = _cli(
        dirs,
        *("--generator", f"{MODULE}:DeclaresReplaceOne", "--epsilon", "0.25"),
        *("--params", '{"sensitivity": 1}'),
    )
    assert run.returncode == 0, run.stderr
    assert "replace-one" in run.stdout.splitlines()[0]
    assert _summary(run).startswith("verdict: violation; ")
    assert list(dirs[0].iterdir()) == []


def test_the_users_table_is_replayed_with_a_rare_canary(dirs):
    import pandas as pd

    pd.DataFrame({"a": [0, 1, 2] * 20, "b": [0, 1] * 30}).to_csv(dirs[0] / "real.csv", index=False)
    run = _cli(
        dirs,
        *("--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1"),
        *("--neighbouring", "replace-one", "--data", "real.csv"),
        *("--domain", '{"a": 3, "b": 3}', "--json", "o.json", "--strict"),
    )
    assert run.returncode == 0, run.stderr
    report = json.loads((dirs[0] / "o.json").read_text())
    assert report["datasets"]["source"] == "--data real.csv"
    assert report["datasets"]["canary"]["b"] == 2  # the level the table lacks
    assert report["table"][0]["observed"] == 2.0 and report["verdict"] == "no violation detected"


BAD = [
    (["--generator", f"{MODULE}:Missing", "--epsilon", "1"], f"--generator {MODULE}:Missing"),
    (["--generator", "nosuchmodule_xyz:G", "--epsilon", "1"], "cannot import module"),
    (["--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "0"], "argument --epsilon"),
    (["--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "abc"], "argument --epsilon"),
    (
        ["--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1"],
        "--neighbouring must be given: "
        f"{MODULE}:LaplaceHistogram declares no neighbouring relation",
    ),
    (
        ["--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1", "--fits", "100"],
        "--fits belongs to --mode game",
    ),
    (
        ["--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1", "--n-jobs", "2"],
        "--n-jobs belongs to --mode game",
    ),
    (
        ["--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1", "--delta", "1"],
        "--delta must be in [0, 1), got 1",
    ),
    (
        [
            *("--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1"),
            *("--params", '{"random_state": 3}'),
        ],
        "--params: leave out random_state",
    ),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_input_is_one_line_naming_the_flag(dirs, args, message):
    needs_relation = "--neighbouring must be given" not in message
    extra = ["--neighbouring", "add-remove"] if needs_relation else []
    run = _cli(dirs, *args, *extra, "--json", "o.json")
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith("synthtrust") and ": error: " in lines[0]
    assert message in lines[0]
    if not needs_relation:
        assert "pass --neighbouring add-remove or --neighbouring replace-one" in lines[0]
        assert "neighbouring='" not in lines[0]
    assert list(dirs[0].iterdir()) == []


def test_help_names_the_replay_mode():
    run = subprocess.run(
        [sys.executable, "-m", "synthtrust.cli", "dp-audit", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0
    text = " ".join(run.stdout.split())
    assert "--mode {game,replay,one-run}" in text and "--mode replay instead fits it once" in text


def test_the_options_of_the_game_have_the_parsers_defaults():
    args = build_parser().parse_args(["dp-audit", "--generator", "m:C", "--epsilon", "1"])
    assert args.mode == "game"
    assert {k: getattr(args, k) for k in GAME_ONLY} == GAME_ONLY
