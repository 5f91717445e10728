"""Bad input to every command a user runs (`fidelity`, `audit`, `dp-audit`, `run`, `book`):
each case is one line on stderr that names the input (the file, column, flag or parameter), exit
status 2, no traceback, and nothing written (issue 27: at least 100 cases).

The working folder holds good tables, bad tables and a module of generators defined outside the
package; every case runs in-process through `cli.main` and must fail before any long work.
"""

import os
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from synthtrust.audit import GeneratorCard
from synthtrust.cli import app as cli

MODULE = "usergens_for_bad_input"
SOURCE = textwrap.dedent('''
    import numpy as np
    import pandas as pd


    class Ok:
        """A bootstrap of the training rows (declares no neighbouring relation)."""

        def __init__(self, random_state=None, domain=None, epsilon=None):
            self.random_state = random_state

        def fit(self, X):
            self.X_ = X.copy()
            return self

        def sample(self, n):
            rng = np.random.default_rng(self.random_state)
            return self.X_.iloc[rng.integers(0, len(self.X_), n)].reset_index(drop=True)


    class ReturnsArray(Ok):
        def sample(self, n):
            return np.zeros((n, 3))


    class ShortSample(Ok):
        def sample(self, n):
            return super().sample(n - 5)


    class TextSample(Ok):
        def sample(self, n):
            return super().sample(n).astype(str) + "x"


    class NaNSample(Ok):
        def sample(self, n):
            s = super().sample(n).astype(float)
            s.iloc[0, 0] = np.nan
            return s


    class OutOfRange(Ok):
        def sample(self, n):
            s = super().sample(n)
            s.iloc[0, 0] = 99
            return s


    class WrongColumns(Ok):
        def sample(self, n):
            return pd.DataFrame({"zzz": np.zeros(n, dtype=int)})


    class RaisesInFit(Ok):
        def fit(self, X):
            raise ZeroDivisionError("cannot fit")


    class RaisesInSample(Ok):
        def sample(self, n):
            raise RuntimeError("no samples today")


    class NeedsArgument(Ok):
        def __init__(self, x):
            pass


    class NoSample:
        def fit(self, X):
            return self


    class Interrupted(Ok):
        def fit(self, X):
            raise KeyboardInterrupt  # Ctrl-C during a training


    NOT_A_CLASS = 3
''')


def _write_files(folder):
    rng = np.random.default_rng(0)

    def table(n=60):
        return pd.DataFrame(
            {
                "a": rng.integers(0, 3, n),
                "b": rng.choice(["x", "y", "z"], n),
                "c": rng.normal(size=n).round(3),
            }
        )

    for name in ("train", "hold", "syn"):
        table().to_csv(folder / f"{name}.csv", index=False)
    table().assign(d=1).to_csv(folder / "extra.csv", index=False)
    table().drop(columns="c").to_csv(folder / "nocol.csv", index=False)
    table().rename(columns={"a": "A"}).to_csv(folder / "renamed.csv", index=False)
    table().assign(c=lambda t: t.c.astype(str) + "x").to_csv(folder / "texty.csv", index=False)
    table().to_csv(folder / "semi.csv", index=False, sep=";")
    table().iloc[:0].to_csv(folder / "header.csv", index=False)
    (folder / "empty.csv").write_text("")
    (folder / "garbage.parquet").write_bytes(b"\x00\x01 not parquet")
    (folder / "adir").mkdir()
    (folder / "blocker").write_text("a file, not a folder")
    codes = pd.DataFrame({"a": [0, 1, 2] * 20, "b": [0, 1, 2] * 20, "c": [0, 1] * 30})
    codes.to_csv(folder / "codes.csv", index=False)
    codes.assign(a=["x", "y", "z"] * 20).to_csv(folder / "codes_text.csv", index=False)
    codes.assign(a=[0, 1, None] * 20).to_csv(folder / "codes_nan.csv", index=False)
    codes.assign(a=[0, 1, 7] * 20).to_csv(folder / "codes_range.csv", index=False)
    codes.drop(columns="c").to_csv(folder / "codes_nocol.csv", index=False)
    GeneratorCard.two_way({"a": 3, "b": 3, "c": 2}, name="toy").save(folder / "card.yaml")
    (folder / "card.txt").write_text("columns: {a: 2}\n")
    (folder / "size1.yaml").write_text("columns: {a: 1, b: 2}\nmarginals: []\n")
    (folder / "notyaml.yaml").write_text("columns: [a: b: c\n")
    (folder / "list.yaml").write_text("- 1\n- 2\n")
    (folder / "unknown.yaml").write_text("columns: {a: 2, b: 2}\nmarginals: [[a, z]]\n")
    (folder / f"{MODULE}.py").write_text(SOURCE)


ROLES = ("train", "holdout", "synthetic")
GOOD = {"train": "train.csv", "holdout": "hold.csv", "synthetic": "syn.csv"}
BAD_TABLES = {  # file -> what the error says (the flag is checked separately)
    "nope.csv": "no such file: nope.csv",
    "adir": "adir is a directory, not a table file",
    "empty.csv": "empty.csv is empty (0 bytes)",
    "header.csv": "header.csv has a header (3 columns) but no data rows",
    "garbage.parquet": "cannot read garbage.parquet as Parquet",
    "semi.csv": "semi.csv seems to be ';' (semicolon)-separated",
    "nocol.csv": "must have the same columns",
    "extra.csv": "must have the same columns",
    "renamed.csv": "must have the same columns",
    "texty.csv": "column 'c' has different types",
}


def _fidelity(role=None, bad=None, *extra):
    files = {**GOOD, **({role: bad} if role else {})}
    argv = ["fidelity", "--n-jobs", "1"]
    for r in ROLES:
        argv += [f"--{r}", files[r]]
    return [*argv, *extra]


FIDELITY = [
    (f"fidelity --{role} {bad}", _fidelity(role, bad), message)
    for role in ROLES
    for bad, message in BAD_TABLES.items()
] + [
    ("fidelity --json in a file", _fidelity(None, None, "--json", "blocker/x.json"), "--json"),
    ("fidelity --json folder", _fidelity(None, None, "--json", "adir"), "--json adir is a dir"),
    ("fidelity --html in a file", _fidelity(None, None, "--html", "blocker/x.html"), "--html"),
    ("fidelity --html folder", _fidelity(None, None, "--html", "adir"), "--html adir is a dir"),
    ("fidelity --max-rows 0", _fidelity(None, None, "--max-rows", "0"), "--max-rows: must be"),
    ("fidelity --max-rows abc", _fidelity(None, None, "--max-rows", "abc"), "--max-rows"),
    ("fidelity --sep ::", _fidelity(None, None, "--sep", "::"), "unknown delimiter '::'"),
    ("fidelity --seed -1", _fidelity(None, None, "--seed", "-1"), "--seed: must be >= 0"),
    ("fidelity --seed abc", _fidelity(None, None, "--seed", "abc"), "--seed"),
    ("fidelity --n-jobs 0", _fidelity(None, None, "--n-jobs", "0"), "--n-jobs: must be >= 1"),
    ("fidelity --n-jobs abc", _fidelity(None, None, "--n-jobs", "abc"), "--n-jobs"),
    ("fidelity without --train", ["fidelity", "--holdout", "hold.csv"], "required: --train"),
]

AUDIT = ["audit", "--card", "card.yaml", "--copies", "50", "--k-select", "4", "--k-audit", "4"]
AUDIT += ["--seed", "1", "--n-jobs", "1"]
GENERATOR_ERRORS = {  # class -> what both audits say
    "ReturnsArray": ") must return a pandas DataFrame, got ndarray",  # sample(900), sample(1095)
    "ShortSample": "returned 895 rows; it must return 900",
    "TextSample": "the generator's sample: column 'a' must hold integer codes",
    "NaNSample": "the generator's sample: column 'a' must hold integer codes 0..2, got nan",
    "OutOfRange": "the generator's sample: column 'a' must hold integer codes 0..2, got 99",
    "WrongColumns": "the generator's sample lacks the column(s) ['a', 'b', 'c']",
    "RaisesInFit": "ZeroDivisionError: cannot fit",
    "RaisesInSample": "RuntimeError: no samples today",
    "NeedsArgument": "--params do not fit",
    "NoSample": "the class lacks sample",
    "NOT_A_CLASS": "'NOT_A_CLASS' is not a class",
    "Nope": f"module '{MODULE}' has no 'Nope'",
}


def _audit(*extra, generator="Ok"):
    return [*AUDIT, "--generator", f"{MODULE}:{generator}", *extra]


AUDITS = [
    (f"audit {cls}", _audit(generator=cls), message) for cls, message in GENERATOR_ERRORS.items()
] + [
    ("audit unknown module", [*AUDIT, "--generator", "nosuchmod_xyz:G"], "cannot import module"),
    ("audit no colon", [*AUDIT, "--generator", "justaname"], "must be module:Class"),
    ("audit card missing", _audit("--card", "none.yaml"), "--card none.yaml"),
    ("audit card suffix", _audit("--card", "card.txt"), "must end in .yaml, .yml or .json"),
    ("audit card size 1", _audit("--card", "size1.yaml"), "columns['a'] must be an integer >= 2"),
    ("audit card not YAML", _audit("--card", "notyaml.yaml"), "not valid YAML"),
    ("audit card a list", _audit("--card", "list.yaml"), "a card must be a mapping"),
    ("audit card unknown column", _audit("--card", "unknown.yaml"), "unknown column(s) ['z']"),
    ("audit data text", _audit("--data", "codes_text.csv"), "column 'a' must hold integer"),
    ("audit data NaN", _audit("--data", "codes_nan.csv"), "column 'a' must hold integer"),
    ("audit data range", _audit("--data", "codes_range.csv"), "0..2, got 7"),
    ("audit data column", _audit("--data", "codes_nocol.csv"), "lacks the column(s) ['c']"),
    ("audit data missing", _audit("--data", "none.csv"), "--data: no such file: none.csv"),
    ("audit params not JSON", _audit("--params", "{x"), "--params: not valid JSON"),
    ("audit params a list", _audit("--params", "[1]"), "expected a JSON object"),
    ("audit params unknown", _audit("--params", '{"nope": 1}'), "--params do not fit"),
    ("audit copies 0", _audit("--copies", "0"), "--copies: must be >= 1"),
    ("audit alpha 2", _audit("--alpha", "2"), "alpha must be in the open interval (0, 1)"),
    ("audit candidates", _audit("--candidates", "zzz"), "expected 'next' or an integer"),
    ("audit k-select abc", _audit("--k-select", "abc"), "--k-select"),
    ("audit json in a file", _audit("--json", "blocker/a.json"), "--json: cannot write"),
    ("audit html folder", _audit("--html", "adir"), "--html adir is a directory"),
]

DP = ["dp-audit", "--epsilon", "1", "--neighbouring", "replace-one", "--fits", "40"]
DP += ["--score", "count", "--n-jobs", "1"]


def _dp(*extra, generator="Ok"):
    return [*DP, "--generator", f"{MODULE}:{generator}", *extra]


DP_AUDITS = [
    (f"dp-audit {cls}", _dp(generator=cls), message.replace("'a'", "'c0'").replace("0..2", "0..1"))
    for cls, message in GENERATOR_ERRORS.items()
    if cls not in ("ShortSample", "WrongColumns", "OutOfRange")
] + [
    ("dp-audit ShortSample", _dp(generator="ShortSample"), "returned 1095 rows; it must return"),
    ("dp-audit WrongColumns", _dp(generator="WrongColumns"), "lacks the column(s) ['c0', 'c1'"),
    ("dp-audit OutOfRange", _dp(generator="OutOfRange"), "codes 0..1, got 99"),
    (
        "dp-audit no relation declared",
        ["dp-audit", "--epsilon", "1", "--n-jobs", "1", "--generator", f"{MODULE}:Ok"],
        "neighbouring must be given",
    ),
    ("dp-audit unknown module", [*DP, "--generator", "nosuchmod_xyz:G"], "cannot import module"),
    ("dp-audit epsilon -1", _dp("--epsilon", "-1"), "--epsilon"),
    ("dp-audit epsilon abc", _dp("--epsilon", "abc"), "--epsilon"),
    ("dp-audit alpha 2", _dp("--alpha", "2"), "alpha must be in the open interval (0, 1)"),
    ("dp-audit delta -1", _dp("--delta", "-1"), "delta must be in [0.0, 1.0), got -1.0"),
    ("dp-audit delta 1", _dp("--delta", "1"), "delta must be in [0.0, 1.0), got 1.0"),
    ("dp-audit fits 10", _dp("--fits", "10"), "--fits: must be >= 40"),
    ("dp-audit base-records 0", _dp("--base-records", "0"), "--base-records: must be >= 1"),
    ("dp-audit max-hours 0", _dp("--max-hours", "0"), "--max-hours"),
    ("dp-audit over max-hours", _dp("--max-hours", "1e-9"), "raise --max-hours or lower --fits"),
    ("dp-audit cache a file", _dp("--cache", "codes.csv"), "--cache codes.csv"),
    ("dp-audit json in a file", _dp("--json", "blocker/a.json"), "--json: cannot write"),
    ("dp-audit html folder", _dp("--html", "adir"), "--html adir is a directory"),
    ("dp-audit domain not JSON", _dp("--data", "codes.csv", "--domain", "{"), "not valid JSON"),
    ("dp-audit data and base", _dp("--data", "codes.csv", "--base-records", "5"), "not allowed"),
    ("dp-audit domain alone", _dp("--domain", '{"a": 2}'), "give --data too"),
    ("dp-audit data text", _dp("--data", "codes_text.csv"), "column 'a' must hold integer"),
    ("dp-audit data missing", _dp("--data", "none.csv"), "--data none.csv: no such file"),
    ("dp-audit domain small", _dp("--data", "codes.csv", "--domain", '{"a": 2}'), "0..1, got 2"),
    ("dp-audit neighbouring", _dp("--neighbouring", "edit"), "--neighbouring: invalid choice"),
    ("dp-audit score", _dp("--score", "bogus"), "--score: invalid choice"),
]

RUNS = [
    ("run unknown chapter", ["run", "nochapter"], "unknown chapter 'nochapter'"),
    ("run unknown preset", ["run", "dp_auditing", "--preset", "nope"], "unknown preset 'nope'"),
    ("run unknown parameter", ["run", "dp_auditing", "-p", "nokey", "1"], "'nokey'"),
    ("run text for an integer", ["run", "dp_auditing", "-p", "seed", "abc"], "an integer"),
    ("run float for an integer", ["run", "dp_auditing", "-p", "seed", "1.5"], "an integer"),
    ("run list for a mapping", ["run", "dp_auditing", "-p", "audit_fits", "[1]"], "a mapping"),
    ("run bad YAML", ["run", "dp_auditing", "-p", "alpha", "[1,"], "-p alpha: value '[1,'"),
    ("run out in a file", ["run", "dp_auditing", "--out", "blocker/x"], "is a file, not a fold"),
    ("run cache a file", ["run", "dp_auditing", "--cache-dir", "codes.csv"], "cache_dir codes"),
    ("run dask address", ["run", "dp_auditing", "--dask", "nonsense://x"], "dask must be 'local'"),
    ("run n-jobs 0", ["run", "dp_auditing", "--n-jobs", "0"], "--n-jobs: must be >= 1"),
    ("run estimate-tasks 0", ["run", "dp_auditing", "--estimate-tasks", "0"], "--estimate-tasks"),
    ("book unknown preset", ["book", "--preset", "nope"], "unknown preset 'nope'"),
    ("book out in a file", ["book", "--out", "blocker/x"], "is a file, not a folder"),
    ("book dask address", ["book", "--dask", "nonsense://x"], "dask must be 'local'"),
    ("book n-jobs 0", ["book", "--n-jobs", "0"], "--n-jobs: must be >= 1"),
]

CASES = FIDELITY + AUDITS + DP_AUDITS + RUNS


def test_there_are_at_least_a_hundred_cases_and_each_is_named_once():
    assert len(CASES) >= 100
    assert len({name for name, _, _ in CASES}) == len(CASES)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("bad_input")
    _write_files(path)
    before = os.getcwd()
    os.chdir(path)
    yield path
    os.chdir(before)
    sys.modules.pop(MODULE, None)
    if str(path) in sys.path:
        sys.path.remove(str(path))


def _snapshot(path):
    return sorted(
        (str(p.relative_to(path)), p.stat().st_size)
        for p in path.rglob("*")
        if "__pycache__" not in p.parts
    )


@pytest.mark.parametrize(("argv", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_clear_line(folder, capsys, argv, message):
    before = _snapshot(folder)
    code = cli.main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and "%|" not in line]
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("synthtrust") and "error: " in lines[0]
    assert message in lines[0]
    assert _snapshot(folder) == before  # nothing written, not even a partial file


@pytest.mark.parametrize(
    "argv",
    [
        _audit("--json", "a.json", generator="Interrupted"),
        _dp("--json", "a.json", "--html", "a.html", generator="Interrupted"),
    ],
    ids=["audit", "dp-audit"],
)
def test_an_interrupted_run_says_how_to_resume_and_writes_nothing(folder, capsys, argv):
    before = _snapshot(folder)
    assert cli.main(argv) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        "synthtrust: interrupted; rerun the same command to resume from the cache"
    )
    assert "Traceback" not in err
    assert _snapshot(folder) == before
