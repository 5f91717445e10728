"""`synthtrust audit` on generator classes written outside the package: a copycat is rejected
(exit 1 with --strict), independent resampling is not (exit 0); JSON + HTML written; one-line
errors for bad input."""

import json
import sys
import textwrap

import pytest
from _user_module import user_module

from synthtrust.audit import GeneratorCard
from synthtrust.cli import app as cli

MODULE = "usergen_for_cli_audit"
SOURCE = textwrap.dedent('''
    import numpy as np
    import pandas as pd


    class Independent:
        """Resamples each column on its own: uses only the 1-way marginals."""

        def __init__(self, random_state=None):
            self.random_state = random_state

        def fit(self, X):
            self.X_ = X.copy()
            return self

        def sample(self, n):
            rng = np.random.default_rng(self.random_state)
            return pd.DataFrame({c: rng.choice(self.X_[c].to_numpy(), n) for c in self.X_})


    class Copycat(Independent):
        """A bootstrap of the training rows: uses everything."""

        def sample(self, n):
            rng = np.random.default_rng(self.random_state)
            return self.X_.iloc[rng.integers(0, len(self.X_), n)].reset_index(drop=True)


    class NoSample:
        def fit(self, X):
            return self


    class Broken(Independent):
        def fit(self, X):
            raise ZeroDivisionError("cannot fit")


    class WrongColumns(Independent):
        def sample(self, n):
            return pd.DataFrame({"zzz": np.zeros(n, dtype=int)})
''')


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    GeneratorCard.two_way({"a": 3, "b": 3, "c": 2}, name="toy").save(tmp_path / "card.yaml")
    with user_module(tmp_path, monkeypatch, MODULE, SOURCE) as path:
        yield path


ARGS = [
    "--card",
    "card.yaml",
    "--copies",
    "50",
    "--k-select",
    "4",
    "--k-audit",
    "4",
    "--seed",
    "1",
    "--n-jobs",
    "1",
]


def run(*argv):
    return cli.main(["audit", *argv])


def test_copycat_is_rejected_and_reports_are_written(workdir, capsys):
    code = run(
        "--generator",
        f"{MODULE}:Copycat",
        *ARGS,
        "--strict",
        "--json",
        "a.json",
        "--html",
        "a.html",
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "REJECTED at α = 0.01" in out and "NOT REJECTED" not in out
    assert "probing 4 directions" in out and "(a, b, c) 100%" in out
    data = json.loads((workdir / "a.json").read_text())
    assert data["rejected"] is True and data["df"] == 6 and data["pvalue"] < 0.01
    assert "vegaEmbed" in (workdir / "a.html").read_text()
    # without --strict the same audit exits 0
    assert run("--generator", f"{MODULE}:Copycat", *ARGS) == 0


def test_independent_resampling_passes_a_two_way_card(workdir, capsys):
    assert run("--generator", f"{MODULE}:Independent", *ARGS, "--strict") == 0
    assert "NOT REJECTED" in capsys.readouterr().out


def test_audit_around_real_data(workdir, capsys):
    rows = "a,b,c\n" + "".join(f"{i % 3},{(i // 3) % 3},{i % 2}\n" for i in range(60))
    (workdir / "real.csv").write_text(rows)
    assert run("--generator", f"{MODULE}:Copycat", *ARGS, "--data", "real.csv") == 0
    out = capsys.readouterr().out
    assert "D−/D+ 60 / 60 rows" in out  # the real data's 60 records, its cells as support
    assert "REJECTED at" in out and "NOT REJECTED" not in out
    (workdir / "bad.csv").write_text("a,b,c\n0,0,5\n")
    assert run("--generator", f"{MODULE}:Copycat", *ARGS, "--data", "bad.csv") == 2
    assert "column 'c' must hold integer codes 0..1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nosuchmodule_xyz:Gen", "cannot import module 'nosuchmodule_xyz'"),
        (f"{MODULE}:Nope", f"module '{MODULE}' has no 'Nope'"),
        (f"{MODULE}:np", "'np' is not a class"),
        (f"{MODULE}:NoSample", "the class lacks sample"),
        (f"{MODULE}:Broken", "training minus#0 of step 1 failed: ZeroDivisionError: cannot fit"),
        (f"{MODULE}:WrongColumns", "sample lacks the column(s) ['a', 'b', 'c']"),
        ("justaname", "--generator must be module:Class"),
    ],
)
def test_bad_generators_get_one_line(workdir, capsys, spec, message):
    assert run("--generator", spec, *ARGS) == 2
    err = capsys.readouterr().err
    assert err.startswith("synthtrust: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_card_and_params(workdir, capsys):
    (workdir / "broken.yaml").write_text("columns: {a: 1}\nmarginals: []\n")
    assert run("--generator", f"{MODULE}:Copycat", *ARGS[2:], "--card", "broken.yaml") == 2
    assert "--card broken.yaml" in capsys.readouterr().err
    assert run("--generator", f"{MODULE}:Copycat", *ARGS, "--params", '{"nope": 1}') == 2
    assert "--params do not fit" in capsys.readouterr().err
    assert run("--generator", f"{MODULE}:Copycat", *ARGS, "--params", "[1]") == 2


def test_random_subset_of_candidates(workdir, capsys):
    # the toy card's 18 3-way bins span its 4 complement directions; one random bin spans one
    assert run("--generator", f"{MODULE}:Copycat", *ARGS, "--n-candidates", "1") == 0
    assert "probing 1 direction of Φ⊥" in capsys.readouterr().out
    assert run("--generator", f"{MODULE}:Copycat", *ARGS, "--n-candidates", "19") == 2
    err = capsys.readouterr().err
    assert err.startswith("synthtrust: error: ") and "19" in err and err.count("\n") == 1


def _fresh(cwd, *argv, env=None):
    """``synthtrust audit`` in a fresh process (no module cached), the default backend."""
    import os
    import subprocess

    exe = [
        sys.executable,
        "-c",
        "import sys; from synthtrust.cli.app import main; sys.exit(main())",
    ]
    env = {**os.environ, **(env or {})}
    return subprocess.run([*exe, "audit", *argv], cwd=cwd, capture_output=True, text=True, env=env)


@pytest.mark.parametrize("where", ["working directory", "PYTHONPATH", "Dask"])
def test_a_users_class_is_audited_with_the_default_backend(workdir, tmp_path_factory, where):
    """Issue 27: every core, loky (or a local Dask cluster), and a module outside the package
    (the workers import it themselves): in the working directory, or in a folder on PYTHONPATH
    run from elsewhere."""
    argv = ARGS[:-2] + (["--dask", "local"] if where == "Dask" else [])
    assert ARGS[-2:] == ["--n-jobs", "1"]
    if where != "PYTHONPATH":
        cwd, env = workdir, None
    else:
        cwd = tmp_path_factory.mktemp("elsewhere")
        (cwd / "card.yaml").write_bytes((workdir / "card.yaml").read_bytes())
        env = {"PYTHONPATH": str(workdir)}
    run_ = _fresh(cwd, "--generator", f"{MODULE}:Copycat", *argv, "--json", "a.json", env=env)
    assert run_.returncode == 0, run_.stderr
    assert "REJECTED at" in run_.stdout and "NOT REJECTED" not in run_.stdout
    assert json.loads((cwd / "a.json").read_text())["rejected"] is True
