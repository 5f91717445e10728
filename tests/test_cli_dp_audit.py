"""`synthtrust dp-audit` on generator classes written outside the package, with the default
backend (all cores, loky): a correct Laplace histogram passes, the same class run at ten times
its claim and a bootstrap are violations (exit 1 with --strict); JSON written; one-line errors
for bad input."""

import json
import subprocess
import sys
import textwrap

import pytest
from _user_module import user_module

from synthtrust import cli

MODULE = "usergen_for_cli_dp_audit"
SOURCE = textwrap.dedent('''
    import numpy as np
    import pandas as pd


    class LaplaceHistogram:
        """Laplace(2/epsilon) on every cell of the joint histogram: replace-one epsilon-DP."""

        def __init__(self, epsilon=1.0, domain=None, random_state=None, boost=1.0):
            self.epsilon, self.domain = epsilon, domain
            self.random_state, self.boost = random_state, boost

        def fit(self, X):
            self.rng_ = np.random.default_rng(self.random_state)
            shape = tuple(self.domain.values())
            cells = np.ravel_multi_index(X[list(self.domain)].to_numpy().T, shape)
            counts = np.bincount(cells, minlength=int(np.prod(shape))).astype(float)
            scale = 2 / (self.epsilon * self.boost)
            noisy = np.maximum(counts + self.rng_.laplace(0, scale, counts.size), 0)
            self.p_ = noisy / noisy.sum()
            return self

        def sample(self, n):
            cells = self.rng_.choice(self.p_.size, size=n, p=self.p_)
            shape = tuple(self.domain.values())
            return pd.DataFrame(np.column_stack(np.unravel_index(cells, shape)), columns=list(self.domain))


    class Bootstrap(LaplaceHistogram):
        def fit(self, X):
            self.X_, self.rng_ = X.copy(), np.random.default_rng(self.random_state)
            return self

        def sample(self, n):
            return self.X_.iloc[self.rng_.integers(0, len(self.X_), n)].reset_index(drop=True)


    class NoSample:
        def fit(self, X):
            return self


    class Broken(LaplaceHistogram):
        def fit(self, X):
            raise ZeroDivisionError("cannot fit")


    class WrongColumns(LaplaceHistogram):
        def sample(self, n):
            return pd.DataFrame({"zzz": np.zeros(n, dtype=int)})
''')

ARGS = ["--neighbouring", "replace-one", "--fits", "200", "--score", "count", "--seed", "3"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    with user_module(tmp_path, monkeypatch, MODULE, SOURCE) as path:
        yield path


def _cli(workdir, *args):
    """The installed console script in a fresh process, in the user's working directory."""
    exe = [sys.executable, "-c", "import sys; from synthtrust.cli import main; sys.exit(main())"]
    return subprocess.run([*exe, "dp-audit", *args], cwd=workdir, capture_output=True, text=True)


def test_a_correct_class_in_the_working_directory_passes_with_the_default_backend(workdir):
    run = _cli(
        workdir,
        "--generator",
        f"{MODULE}:LaplaceHistogram",
        "--epsilon",
        "1",
        *ARGS,
        "--json",
        "out.json",
        "--html",
        "out.html",
        "--strict",
    )
    assert run.returncode == 0, run.stderr
    assert "pilot:" in run.stdout and "verdict: no violation detected" in run.stdout
    page = (workdir / "out.html").read_text()
    assert "<strong>no violation detected</strong>" in page and "vegaEmbed" in page
    report = json.loads((workdir / "out.json").read_text())
    assert report["verdict"] == "no violation detected"
    assert (report["n0"], report["n1"], report["epsilon"]) == (100, 100, 1.0)
    assert report["epsilon_lb"] <= 1.0


@pytest.mark.parametrize(
    ("cls", "params"),
    [("LaplaceHistogram", '{"boost": 10}'), ("Bootstrap", "{}")],
)
def test_a_broken_promise_is_a_violation_exit_1_with_strict(workdir, cls, params):
    run = _cli(
        workdir,
        "--generator",
        f"{MODULE}:{cls}",
        "--params",
        params,
        "--epsilon",
        "1",
        *ARGS,
        "--strict",
    )
    assert run.returncode == 1, run.stderr
    assert "verdict: violation" in run.stdout


def test_an_audit_that_cannot_refute_the_claim_exits_3_with_strict(workdir, capsys):
    code = cli.main(
        [
            "dp-audit",
            "--generator",
            f"{MODULE}:LaplaceHistogram",
            "--epsilon",
            "10",
            *ARGS,
            "--n-jobs",
            "1",
            "--strict",
        ]
    )
    assert code == 3
    assert "verdict: underpowered" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--generator", "nosuchmodule_xyz:Gen"], "cannot import module 'nosuchmodule_xyz'"),
        (["--generator", f"{MODULE}:NoSample"], "the class lacks sample"),
        (["--generator", f"{MODULE}:Broken"], "a fit raised ZeroDivisionError: cannot fit"),
        (["--generator", f"{MODULE}:WrongColumns"], "lacks the column(s) ['c0', 'c1', 'c2']"),
        (
            ["--generator", f"{MODULE}:LaplaceHistogram", "--params", '{"colour": 1}'],
            "--params do not fit",
        ),
        (
            ["--generator", f"{MODULE}:LaplaceHistogram", "--max-hours", "1e-9"],
            "raise --max-hours or lower --fits",
        ),
        (["--generator", f"{MODULE}:LaplaceHistogram", "--delta", "2"], "delta"),
        (["--generator", f"{MODULE}:LaplaceHistogram", "--alpha", "0"], "alpha"),
        (
            ["--generator", f"{MODULE}:LaplaceHistogram", "--json", "blocker/out.json"],
            "--json: cannot write",
        ),
    ],
)
def test_bad_input_is_one_line(workdir, capsys, args, message):
    (workdir / "blocker").write_text("a file, not a folder")
    code = cli.main(["dp-audit", "--epsilon", "1", *ARGS, "--n-jobs", "1", *args])
    err = capsys.readouterr().err
    assert code == 2
    last = err.strip().splitlines()[-1]  # above it: the pilot's progress bar, if it ran
    assert last.startswith("synthtrust: error:") and message in last
    assert "Traceback" not in err
    assert sorted(p.name for p in workdir.iterdir() if p.suffix != ".py") == ["blocker"]


@pytest.mark.parametrize(
    "args",
    [
        ["--epsilon", "-1"],
        ["--epsilon", "1", "--fits", "10"],
        ["--epsilon", "1", "--neighbouring", "edit"],
    ],
)
def test_argument_errors_exit_2(workdir, capsys, args):
    base = ["dp-audit", "--generator", f"{MODULE}:LaplaceHistogram", "--neighbouring", "add-remove"]
    assert cli.main([*base, *args]) == 2
    assert "error" in capsys.readouterr().err


def test_without_neighbouring_a_class_that_declares_none_is_a_one_line_error(workdir, capsys):
    code = cli.main(
        ["dp-audit", "--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1", "--n-jobs", "1"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "neighbouring must be given" in err and "Traceback" not in err


def test_without_neighbouring_a_synthtrust_synthesizer_is_audited_under_its_own(workdir, capsys):
    code = cli.main(
        [
            "dp-audit",
            "--generator",
            "synthtrust.synthesizers:PerturbedHistogram",
            "--epsilon",
            "1",
            "--fits",
            "40",
            "--n-jobs",
            "1",
        ]
    )
    assert code == 0
    assert "replace-one" in capsys.readouterr().out


def _table(workdir, name="real.csv", **columns):
    import pandas as pd

    pd.DataFrame(columns).to_csv(workdir / name, index=False)
    return name


@pytest.mark.parametrize(
    ("cls", "code", "verdict"),
    [("LaplaceHistogram", 0, "no violation detected"), ("Bootstrap", 1, "violation")],
)
def test_the_users_own_table_is_audited_with_a_rare_canary(workdir, cls, code, verdict):
    """W1 with the default backend: 300 records; the domain declares a level of 'b' the table
    lacks, so the canary takes it and every cell that contains it is empty without it."""
    data = _table(workdir, a=[0, 1, 2] * 100, b=[0, 1] * 150, c=[0] * 300)
    run = _cli(
        workdir,
        *("--generator", f"{MODULE}:{cls}", "--epsilon", "1", *ARGS),
        *("--data", data, "--domain", '{"a": 3, "b": 3, "c": 2}', "--json", "o.json"),
        "--strict",
    )
    assert run.returncode == code, run.stderr
    report = json.loads((workdir / "o.json").read_text())
    assert report["verdict"] == verdict
    assert (report["n0"], report["n1"]) == (100, 100)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--data", "missing.csv"], "--data missing.csv:"),
        (["--data", "text.csv"], "--data text.csv: data: column 'a' must hold integer codes"),
        (["--data", "real.csv", "--domain", '{"a": 1}'], "column 'a' must hold integer codes 0..0"),
        (["--data", "real.csv", "--domain", '{"z": 2}'], "data lacks the column(s) ['z']"),
        (["--domain", '{"a": 2}'], "--domain declares the levels of --data; give --data too"),
    ],
)
def test_bad_user_tables_are_one_line_errors(workdir, capsys, args, message):
    _table(workdir, a=[0, 1], b=[1, 0])
    _table(workdir, "text.csv", a=["x", "y"])
    code = cli.main(
        ["dp-audit", "--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1", *ARGS, *args]
    )
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("synthtrust: error:") and message in last
