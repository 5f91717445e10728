"""`synthtrust compare`: its exit status (0 identical, 1 different, 2 bad input), what it
prints, the JSON it writes, and the console command run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from _run_folder import make_run, toy_results

from synthtrust.cli import app as cli
from synthtrust.run.compare import compare_runs


@pytest.fixture
def runs(tmp_path):
    after = toy_results()
    after["rates.csv"]["seconds"] += 1  # the timings of another run
    a = make_run(tmp_path / "before", toy_results(), {"headline": "0.5", "wall": "3 s"})
    b = make_run(tmp_path / "after", after, {"headline": "0.5", "wall": "9 s"})
    return a, b


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_identical_runs_exit_0_and_write_the_comparison(runs, capsys, tmp_path):
    out_json = tmp_path / "out" / "comparison.json"
    out_json.parent.mkdir()
    code, out, err = run(capsys, "compare", *runs, "--json", out_json)
    assert (code, err) == (0, "")
    assert out.splitlines()[2:4] == [
        "results files: 3 equal, 0 differing, 0 only before, 0 only after",
        "glued values:  1 equal, 0 differing",
    ]
    assert out.splitlines()[-2:] == ["identical", f"json: {out_json}"]
    assert json.loads(out_json.read_text()) == compare_runs(*runs).to_dict()
    assert [p.name for p in out_json.parent.iterdir()] == ["comparison.json"]  # no temp file


def test_timings_count_with_all_and_a_difference_exits_1(runs, capsys):
    code, out, _ = run(capsys, "compare", *runs, "--all")
    assert code == 1
    assert "  differs: rates.csv: values differ in 5 of 5 rows, columns seconds" in out
    assert "  glued wall: \"'3 s'\" -> \"'9 s'\"" in out
    assert out.rstrip().endswith("NOT identical")
    code, out, _ = run(capsys, "compare", *runs, "--ignore", "^(seconds|wall)$")
    assert code == 0 and "left out: names matching '^(seconds|wall)$'" in out


def test_atol_lets_last_digits_differ(runs, capsys):
    a, b = runs
    table = b / "results" / "rates.csv"
    frame = pd.read_csv(table)
    column = next(c for c in frame.columns if c != "seconds" and frame[c].dtype == float)
    frame[column] += 1e-13
    frame.to_csv(table, index=False)
    code, out, _ = run(capsys, "compare", a, b)
    assert code == 1 and f"columns {column}" in out
    code, out, _ = run(capsys, "compare", a, b, "--atol", "1e-12")
    assert code == 0 and out.rstrip().endswith("identical (numbers to within 1e-12)")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{a}/nothing", "{b}"], "synthtrust: error: before: {a}/nothing is not a folder"),
        (["{a}", "{a}/results"], "synthtrust: error: after: {a}/results has no results/ folder"),
        (["{a}", "{b}", "--ignore", "("], "argument --ignore: '(' is not a regular expression"),
        (["{a}", "{b}", "--ignore", ""], "argument --ignore: an empty pattern matches every"),
        (["{a}", "{b}", "--json", "{a}/manifest.json/x.json"], "--json: cannot write"),
        (["{a}", "{b}", "--json", "{a}/results"], "--json {a}/results is a directory"),
        (["{a}", "{b}", "--atol", "-1"], "argument --atol: must be a finite number >= 0, got -1"),
        (["{a}", "{b}", "--atol", "x"], "argument --atol: expected a number, got 'x'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runs, capsys, argv, message):
    a, b = runs
    argv = [x.format(a=a, b=b) for x in argv]
    code, out, err = run(capsys, "compare", *argv)
    assert code == 2 and out == ""
    assert message.format(a=a) in err and len(err.strip().splitlines()) == 1


def test_the_command_as_a_user_runs_it(runs, tmp_path):
    a, b = runs
    (b / "results" / "rates.csv").write_text("epsilon,rate,seconds\n0.1,0.05,1\n")
    done = subprocess.run(
        [sys.executable, "-m", "synthtrust.cli", "compare", str(a), str(b)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and done.stderr == ""
    assert "  differs: rates.csv: 5 rows before, 1 after" in done.stdout.splitlines()
