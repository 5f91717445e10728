"""`synthtrust dp-audit --mode one-run` on generator classes written outside the package: one fit
with many canaries (Steinke et al. 2023). A bootstrap is a violation (exit 1 with --strict), a
correct Laplace histogram is not; the JSON and HTML are written; the options of the game, and the
one-run options elsewhere, are one-line errors in the command line's words."""

import json

import pytest
from _user_module import user_module
from test_dp_audit import MODULE, SOURCE, _cli

from synthtrust.cli import app as cli
from synthtrust.dp_audit import one_run_audit
from synthtrust.dp_audit.one_run import one_run_domain

ONE_RUN = ["--mode", "one-run", "--neighbouring", "replace-one", "--epsilon", "1"]


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    with user_module(tmp_path, monkeypatch, MODULE, SOURCE) as path:
        yield path


def test_a_bootstrap_is_a_violation_in_one_run_with_the_json_and_the_page(workdir):
    run = _cli(workdir, "--generator", f"{MODULE}:Bootstrap", *ONE_RUN, "--canaries", "200",
               "--json", "one.json", "--html", "one.html", "--strict")  # fmt: skip
    assert run.returncode == 1, run.stderr
    assert "one run: 200 canaries beside 10 base records, seed 0" in run.stdout
    report = json.loads((workdir / "one.json").read_text())
    assert report["verdict"] == "violation" and report["score"] == "count"
    # every canary in the data is sampled back, so every guess (5 % of 200) is right
    assert (report["n_canaries"], report["guesses"], report["correct"]) == (200, 10, 10)
    assert report["epsilon_lb"] == pytest.approx(report["ceiling"]) and report["epsilon_lb"] > 1
    assert f"right: 10 of 10 guesses among 200 canaries ({report['included']} in" in run.stdout
    page = (workdir / "one.html").read_text()
    assert "<strong>violation</strong>" in page and "vegaEmbed" in page
    assert ">10 / 10</td>" in page and "guesses (the highest scores) / right" in page


def test_the_cli_gives_what_the_function_gives(workdir, capsys):
    # the user's class with the claim and the table's domain as constructor arguments
    assert cli.main(["dp-audit", "--generator", f"{MODULE}:LaplaceHistogram", *ONE_RUN,
                     "--canaries", "100", "--guesses", "20", "--seed", "4"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    from usergen_for_cli_dp_audit import LaplaceHistogram

    def factory(random_state):
        return LaplaceHistogram(epsilon=1.0, domain=one_run_domain(100), random_state=random_state)

    direct = one_run_audit(factory, 1.0, neighbouring="replace_one", n_canaries=100, guesses=20,
                           random_state=4)  # fmt: skip
    assert direct.verdict != "violation" and direct.guesses == 20
    assert direct.summary() in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mode", "one-run", "--fits", "400"], "--fits belongs to --mode game; --mode one-run makes one fit"),
        (["--mode", "one-run", "--score", "learned"], "--score learned: --mode one-run scores by count or whitebox"),
        (["--mode", "one-run", "--data", "t.csv"], "--mode one-run builds its own table of canaries"),
        (["--canaries", "200"], "--canaries belongs to --mode one-run; --mode game plays the game"),
        (["--mode", "replay", "--guesses", "5"], "--guesses belongs to --mode one-run; --mode replay makes two fits"),
    ],
)  # fmt: skip
def test_options_of_another_mode_are_one_line_errors(workdir, capsys, args, message):
    base = ["dp-audit", "--generator", f"{MODULE}:LaplaceHistogram", "--epsilon", "1"]
    assert cli.main([*base, "--neighbouring", "replace-one", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_fewer_than_ten_canaries_is_an_argument_error(workdir, capsys):
    args = ["dp-audit", "--generator", f"{MODULE}:Bootstrap", *ONE_RUN, "--canaries", "5"]
    assert cli.main(args) == 2
    assert "argument --canaries: must be >= 10, got 5" in capsys.readouterr().err
