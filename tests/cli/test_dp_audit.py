"""`synthtrust dp-audit` on generator classes written outside the package, with the default
backend (all cores, loky): a correct Laplace histogram passes, the same class run at ten times
its claim and a bootstrap are violations (exit 1 with --strict); JSON written, and with the HTML
it names what was audited; one-line errors for bad input, the neighbouring relation always in
the command line's words; --help states the fits' minimum and the constructor's arguments."""

import json
import math
import subprocess
import sys
import textwrap

import pytest
from _user_module import user_module

from synthtrust.cli import app as cli

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


    class ZCDPHistogram(LaplaceHistogram):
        privacy_definition = "zcdp"


    class GaussianOneWay:
        """Gaussian noise on the three 1-way marginals, a third of rho = cdp_rho(eps, delta)
        each, released in audit_view: add/remove rho-zCDP."""

        neighbouring = "add_remove"
        privacy_definition = "zcdp"

        def __init__(self, epsilon=1.0, delta=1e-2, domain=None, random_state=None):
            from synthtrust.privacy import cdp_rho

            self.sigma = (3 / (2 * cdp_rho(epsilon, delta))) ** 0.5
            self.domain, self.random_state = domain, random_state

        def fit(self, X):
            rng = np.random.default_rng(self.random_state)
            self.noisy_ = {c: np.bincount(X[c], minlength=k) + rng.normal(0, self.sigma, k)
                           for c, k in self.domain.items()}
            return self

        def sample(self, n):
            return pd.DataFrame({c: np.zeros(n, dtype=int) for c in self.domain})

        def audit_view(self):
            return [((c,), y, "gaussian", self.sigma) for c, y in self.noisy_.items()]


    class PerInstance(LaplaceHistogram):
        @property
        def neighbouring(self):
            return "replace_one"
''')

ARGS = ["--neighbouring", "replace-one", "--fits", "200", "--score", "count", "--seed", "3"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    with user_module(tmp_path, monkeypatch, MODULE, SOURCE) as path:
        yield path


def _cli(workdir, *args):
    """The installed console script in a fresh process, in the user's working directory."""
    exe = [
        sys.executable,
        "-c",
        "import sys; from synthtrust.cli.app import main; sys.exit(main())",
    ]
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
    assert report["setting"]["generator"] == f"{MODULE}:LaplaceHistogram"
    assert f"<td>{MODULE}:LaplaceHistogram</td>" in page


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


@pytest.mark.parametrize("cls", ["LaplaceHistogram", "PerInstance"])
@pytest.mark.parametrize("mode", ["game", "replay"])
def test_the_relation_is_asked_for_and_passed_in_the_command_lines_words(
    workdir, capsys, monkeypatch, mode, cls
):
    """A class without a 'neighbouring' class attribute (none, or a property): without
    --neighbouring one line in the command line's words; with it, the audit runs and never
    looks the relation up on the generator (whose error speaks Python: neighbouring='...')."""
    from synthtrust.dp_audit import game, replay

    def looked_up(generator):
        raise AssertionError("the relation was looked up on the generator")

    monkeypatch.setattr(game, "declared_relation", looked_up)
    monkeypatch.setattr(replay, "declared_relation", looked_up)
    spec = f"{MODULE}:{cls}"
    argv = ["dp-audit", "--mode", mode, "--generator", spec, "--epsilon", "1"]
    if mode == "game":
        argv += ["--fits", "40", "--score", "count", "--n-jobs", "1"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"synthtrust: error: --neighbouring must be given: {spec} declares no neighbouring "
        "relation (no 'neighbouring' class attribute); pass --neighbouring add-remove or "
        "--neighbouring replace-one"
    )
    assert "neighbouring=" not in err and "add_remove" not in err
    for relation in ("add-remove", "replace-one"):
        assert cli.main([*argv, "--neighbouring", relation, "--json", f"{relation}.json"]) == 0
        run = capsys.readouterr()
        assert f"delta = 0, {relation};" in run.out and "Traceback" not in run.err
        report = json.loads((workdir / f"{relation}.json").read_text())
        assert report["neighbouring"] == relation.replace("-", "_")


def test_the_help_states_the_fits_minimum_and_the_constructor_arguments(capsys):
    assert cli.main(["dp-audit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the lines
    assert "fits in both worlds together, at least 40 (default: 2000)" in text
    assert (
        "The class is constructed with epsilon= (--epsilon), delta= (--delta, only when > 0), "
        "domain= (the datasets' levels) and random_state= (the fit's seed), each only when its "
        "signature takes it; --params adds arguments and overrides these."
    ) in text


def test_the_json_and_html_name_what_was_audited(workdir, capsys):
    spec = f"{MODULE}:LaplaceHistogram"
    code = cli.main(
        [
            *("dp-audit", "--generator", spec, "--epsilon", "1", "--params", '{"boost": 1.5}'),
            *("--neighbouring", "add-remove", "--fits", "40", "--score", "count", "--seed", "3"),
            *("--base-records", "6", "--n-jobs", "1", "--json", "o.json", "--html", "o.html"),
        ]
    )
    assert code == 0, capsys.readouterr().err
    report = json.loads((workdir / "o.json").read_text())
    assert report["setting"] == {
        "generator": spec,
        "params": {"boost": 1.5},
        "constructor": {"epsilon": 1.0, "domain": {"c0": 2, "c1": 2, "c2": 2}, "boost": 1.5},
        "worlds": {"source": "worst case", "base_records": 6},
        "records_without": 6,
        "records_with": 7,
        "canary": {"c0": 1, "c1": 1, "c2": 1},
        "removed": None,
        "neighbouring": "add-remove",
    }
    page = (workdir / "o.html").read_text()
    assert "<h2>What was audited</h2>" in page and f"<td>{spec}</td>" in page
    assert "worst case, 6 base records: D 6 records, D′ 7 (add-remove)" in page
    assert "claimed zCDP ρ" not in page  # an (ε, δ) claim: no ρ, no μ


def test_the_zcdp_rho_the_class_declares_reaches_the_audit_and_its_page(workdir, capsys):
    """The class, not the factory the command line builds from it, declares
    privacy_definition = "zcdp": its (ε, δ) claim stands for ρ = cdp_rho(ε, δ)."""
    from synthtrust.privacy.accounting import cdp_rho

    code = cli.main(
        [
            *("dp-audit", "--generator", f"{MODULE}:ZCDPHistogram", "--epsilon", "1"),
            *("--delta", "1e-5", "--neighbouring", "replace-one", "--fits", "40", "--n-jobs", "1"),
            *("--json", "z.json", "--html", "z.html"),
        ]
    )
    assert code == 0, capsys.readouterr().err
    report = json.loads((workdir / "z.json").read_text())
    rho = cdp_rho(1.0, 1e-5)
    assert 0 < rho < 1 and report["rho"] == pytest.approx(rho, rel=1e-12)
    assert report["mu"] == pytest.approx((2 * rho) ** 0.5, rel=1e-12)
    page = (workdir / "z.html").read_text()
    assert f'<td>Gaussian-DP μ of the claim (√(2ρ))</td><td class="num">{report["mu"]:.4f}' in page


def test_the_page_of_a_zcdp_claim_shows_its_rho_and_mu():
    from synthtrust.dp_audit import DPAuditResult
    from synthtrust.presentation.report import render_dp_audit_html

    result = DPAuditResult(
        *("no violation detected", 0.4, 0.3, 2.5, 1.0, 1e-5, "add_remove", "whitebox"),
        *("linear", 0.0, 2000, 500, 500, 200, 210, 0.05, 0),
        rho=0.125,
        mu=0.5,  # √(2 × 0.125)
    )
    page = render_dp_audit_html(result)
    assert '<td>claimed zCDP ρ</td><td class="num">0.125</td>' in page
    assert '<td>Gaussian-DP μ of the claim (√(2ρ))</td><td class="num">0.5000</td>' in page
    assert "What was audited" not in page  # no setting: not run from the command line


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
    setting = report["setting"]
    assert setting["worlds"] == {"source": "data", "file": data}
    assert (setting["records_without"], setting["records_with"]) == (300, 300)  # replace-one
    assert setting["canary"]["b"] == 2  # the level of 'b' the table lacks
    assert setting["removed"] in [{"a": a, "b": b, "c": 0} for a in range(3) for b in range(2)]
    assert setting["neighbouring"] == "replace-one"


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


def test_a_target_sets_the_fits_from_a_pilot_audit_or_says_which_score_to_try(workdir, capsys):
    """--target 0.5 on a zCDP class: a 400-fit pilot audit, then the fits its error rates give
    for a μ bound of half the claim (DPAuditResult.fits_for); a target beyond the score's
    reach (3 × the claim: its rates can never give it) is one line naming another score."""
    from synthtrust.cli.dp_audit import TARGET_PILOT
    from synthtrust.dp_audit import dp_audit

    base = ["dp-audit", "--generator", f"{MODULE}:GaussianOneWay", "--epsilon", "1",
            "--delta", "0.01", "--n-jobs", "1", "--seed", "5"]  # fmt: skip
    assert cli.main([*base, "--target", "0.5", "--json", "t.json"]) == 0
    out = capsys.readouterr().out
    cls = __import__(MODULE).GaussianOneWay
    pilot = dp_audit(cls, 1.0, delta=0.01, n_fits=TARGET_PILOT, random_state=5, n_jobs=1,
                     progress=False)  # fmt: skip
    fits = max(40, 2 * math.ceil(pilot.fits_for(0.5) / 2))
    assert f"target: a mu bound of 0.5 x 0.455 needs about {fits:,} fits" in out
    assert json.loads((workdir / "t.json").read_text())["n_fits"] == fits
    assert cli.main([*base, "--target", "3"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--target 3: a mu bound of 1.36 is out of reach of the whitebox score" in err
    assert err.endswith("try --score learned") and "Traceback" not in err
