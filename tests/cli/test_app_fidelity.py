"""Tests of `synthtrust fidelity`: input checks (clear errors, exit status 2), the wiring to
synthtrust.fidelity.holdout_report (with a stand-in report), atomic output files, and the
command end to end with the real report on small tables written to tmp."""

from __future__ import annotations

import gzip
import json
import os
import sys
import types

import numpy as np
import pandas as pd
import pytest

import synthtrust.presentation.report
from synthtrust import fidelity
from synthtrust.cli import app as cli
from synthtrust.fidelity import check_tables
from synthtrust.synthesizers import Bootstrap, Flip

KEYS = [
    "tvd_1",
    "tvd_2",
    "tvd_3",
    "holdout_tvd_1",
    "holdout_tvd_2",
    "holdout_tvd_3",
    "dcr_share",
    "dcr_train_mean",
    "dcr_holdout_mean",
    "n_closer",
    "n_further",
    "n_equal",
]


def make_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, size=n)
    job = rng.choice(np.array(["clerk", "nurse", "smith", "chef", None], dtype=object), size=n)
    return pd.DataFrame(
        {
            "age": age,
            "job": job,
            "income": np.round(rng.lognormal(10, 1, size=n) + 100 * age, 2),
            "married": rng.random(n) < 0.5,
            "rare": rng.choice(["x", "y", "z"], size=n, p=[0.9, 0.08, 0.02]),
        }
    )


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    """train.csv, holdout.csv.gz and synthetic.csv (a Flip 50 % of train)."""
    train, holdout = make_table(300, 1), make_table(300, 2)
    synthetic = Flip(0.5, random_state=3).fit(train).sample(300)
    paths = {
        "train": tmp_path / "train.csv",
        "holdout": tmp_path / "holdout.csv.gz",
        "synthetic": tmp_path / "synthetic.csv",
    }
    train.to_csv(paths["train"], index=False)
    holdout.to_csv(paths["holdout"], index=False)  # gzip by suffix
    synthetic.to_csv(paths["synthetic"], index=False)
    return paths


def args_for(paths, **replace):
    p = {**paths, **replace}
    return [
        "fidelity",
        "--train",
        p["train"],
        "--holdout",
        p["holdout"],
        "--synthetic",
        p["synthetic"],
    ]


# ---------------------------------------------------------------------------------------------
# a stand-in for synthtrust.fidelity (the wiring does not depend on the metrics)
# ---------------------------------------------------------------------------------------------
class FakeReport:
    def __init__(self, train, holdout, synthetic, **kwargs):
        self.tables = (train, holdout, synthetic)
        self.kwargs = kwargs

    def to_dict(self):
        return {key: 0.5 for key in KEYS}

    def to_json(self):
        return json.dumps(self.to_dict())

    def summary(self):
        return "FAKE SUMMARY"


@pytest.fixture
def fake(monkeypatch):
    calls = []

    def holdout_report(train, holdout, synthetic, **kwargs):
        calls.append(FakeReport(train, holdout, synthetic, **kwargs))
        return calls[-1]

    module = types.ModuleType("synthtrust.fidelity")
    module.holdout_report = holdout_report
    module.check_tables = check_tables
    monkeypatch.setitem(sys.modules, "synthtrust.fidelity", module)
    monkeypatch.setattr(
        synthtrust.presentation.report,
        "render_holdout_html",
        lambda report: "<html><body>fake report</body></html>",
    )
    return calls


def test_wiring_passes_options_and_aligned_tables(files, fake, tmp_path, capsys):
    # the synthetic file's columns in another order: aligned to the training file's
    shuffled = pd.read_csv(files["synthetic"])[["rare", "income", "job", "married", "age"]]
    shuffled.to_csv(tmp_path / "shuffled.csv", index=False)
    code, out, err = run(
        capsys,
        *args_for(files, synthetic=tmp_path / "shuffled.csv"),
        "--max-rows",
        100,
        "--n-jobs",
        1,
        "--seed",
        7,
    )
    assert (code, err) == (0, "")
    assert "FAKE SUMMARY" in out and "300 rows, 5 columns" in out
    (report,) = fake
    assert report.kwargs == {
        "max_rows": 100,
        "n_jobs": 1,
        "random_state": 7,
        "synthetic_is_holdout": None,
        "progress": True,
    }
    train, holdout, synthetic = report.tables
    assert list(synthetic.columns) == list(train.columns) == list(holdout.columns)
    pd.testing.assert_frame_equal(train, pd.read_csv(files["train"]))


def test_holdout_given_as_synthetic_is_flagged(files, fake, capsys):
    code, _, _ = run(capsys, *args_for(files, synthetic=files["holdout"]))
    assert code == 0
    assert fake[0].kwargs["synthetic_is_holdout"] is True
    assert fake[0].kwargs["random_state"] is None and fake[0].kwargs["max_rows"] is None


def test_outputs_are_written_atomically(files, fake, tmp_path, capsys, monkeypatch):
    out_json, out_html = tmp_path / "out" / "r.json", tmp_path / "out" / "r.html"
    code, out, _ = run(capsys, *args_for(files), "--json", out_json, "--html", out_html)
    assert code == 0
    assert json.loads(out_json.read_text()) == {key: 0.5 for key in KEYS}
    assert "fake report" in out_html.read_text()
    assert f"json: {out_json}" in out and f"html: {out_html}" in out
    assert sorted(p.name for p in out_json.parent.iterdir()) == ["r.html", "r.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert out_json.stat().st_mode & 0o777 == 0o666 & ~umask

    # a report that fails while it is written out leaves the previous file intact and no
    # temporary file
    def broken(self):
        raise ValueError("disk full")

    monkeypatch.setattr(FakeReport, "to_json", broken)
    code, _, err = run(capsys, *args_for(files), "--json", out_json)
    assert code == 2 and "disk full" in err
    assert json.loads(out_json.read_text()) == {key: 0.5 for key in KEYS}
    assert sorted(p.name for p in out_json.parent.iterdir()) == ["r.html", "r.json"]


def test_compatible_types_are_accepted(files, fake, tmp_path, capsys):
    # int in one file and float in another (NaN, or 1e+05 as the paper's files have), and a
    # TRUE/FALSE column with missing values (read as object) are not type mismatches
    syn = pd.read_csv(files["synthetic"])
    syn["age"] = syn["age"].astype(float)
    syn.loc[0, "age"] = np.nan
    syn["married"] = syn["married"].astype(object)
    syn.loc[1, "married"] = None
    syn.to_csv(tmp_path / "syn.csv", index=False)
    assert pd.read_csv(tmp_path / "syn.csv")["married"].dtype == object
    code, _, err = run(capsys, *args_for(files, synthetic=tmp_path / "syn.csv"))
    assert (code, err) == (0, "")


def test_parquet_and_separator_option(files, fake, tmp_path, capsys):
    pq = tmp_path / "train.parquet"
    pd.read_csv(files["train"]).to_parquet(pq)
    semi = {}
    for role in ("holdout", "synthetic"):
        semi[role] = tmp_path / f"{role}_semi.csv"
        pd.read_csv(files[role]).to_csv(semi[role], index=False, sep=";")
    code, _, err = run(capsys, *args_for(semi, train=pq), "--sep", ";")
    assert (code, err) == (0, "")
    pd.testing.assert_frame_equal(fake[0].tables[0], pd.read_csv(files["train"]))
    pd.testing.assert_frame_equal(fake[0].tables[2], pd.read_csv(files["synthetic"]))


# ---------------------------------------------------------------------------------------------
# bad input: `synthtrust: error: ...`, exit 2, the message names the problem
# ---------------------------------------------------------------------------------------------
def expect_error(capsys, argv, *fragments):
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert err.startswith("synthtrust: error: ") or "usage:" in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def test_column_mismatch_names_columns_and_files(files, fake, tmp_path, capsys):
    syn = pd.read_csv(files["synthetic"]).drop(columns=["income"]).assign(bonus=1)
    syn.to_csv(tmp_path / "syn.csv", index=False)
    hol = pd.read_csv(files["holdout"]).drop(columns=["rare"])
    hol.to_csv(tmp_path / "hol.csv", index=False)
    err = expect_error(
        capsys,
        args_for(files, synthetic=tmp_path / "syn.csv", holdout=tmp_path / "hol.csv"),
        "same columns",
        "'income'",
        "'bonus'",
        "'rare'",
        "syn.csv",
        "hol.csv",
    )
    assert "synthetic file" in err and "holdout file" in err
    assert not fake


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        (b"", ["--holdout", "empty (0 bytes)"]),
        (b"age,job,income,married,rare\n", ["--holdout", "no data rows"]),
    ],
)
def test_empty_file(files, fake, tmp_path, capsys, content, fragments):
    path = tmp_path / "empty.csv"
    path.write_bytes(content)
    expect_error(capsys, args_for(files, holdout=path), "empty.csv", *fragments)


def test_empty_gz_file(files, fake, tmp_path, capsys):
    path = tmp_path / "empty.csv.gz"
    with gzip.open(path, "wb"):
        pass
    expect_error(capsys, args_for(files, synthetic=path), "--synthetic", "empty.csv.gz", "empty")


def test_all_nan_column(files, fake, tmp_path, capsys):
    syn = pd.read_csv(files["synthetic"]).assign(income=np.nan)
    syn.to_csv(tmp_path / "syn.csv", index=False)
    expect_error(
        capsys,
        args_for(files, synthetic=tmp_path / "syn.csv"),
        "only missing values",
        "'income'",
        "synthetic file",
        "syn.csv",
    )
    assert not fake


def test_different_dtypes_for_a_column(files, fake, tmp_path, capsys):
    syn = pd.read_csv(files["synthetic"])
    syn["age"] = syn["age"].astype(object)
    syn.loc[5, "age"] = "forty"
    syn.to_csv(tmp_path / "syn.csv", index=False)
    expect_error(
        capsys,
        args_for(files, synthetic=tmp_path / "syn.csv"),
        "column 'age' has different types",
        "train int64 (numeric)",
        "synthetic str (text)",
        "'forty'",
        "data row 6",
    )
    # a text column that is numbers in another file
    hol = pd.read_csv(files["holdout"])
    hol["job"] = np.arange(len(hol))
    hol.to_csv(tmp_path / "hol.csv", index=False)
    expect_error(
        capsys,
        args_for(files, holdout=tmp_path / "hol.csv"),
        "column 'job' has different types",
        "holdout int64 (numeric)",
        "train str (text)",
    )
    assert not fake


def test_wrong_delimiter(files, fake, tmp_path, capsys):
    path = tmp_path / "semi.csv.gz"
    pd.read_csv(files["synthetic"]).to_csv(path, index=False, sep=";")
    expect_error(
        capsys,
        args_for(files, synthetic=path),
        "--synthetic",
        "semi.csv.gz",
        "seems to be ';' (semicolon)-separated",
        "--sep ';'",
    )
    tab = tmp_path / "tab.csv"
    pd.read_csv(files["train"]).to_csv(tab, index=False, sep="\t")
    expect_error(capsys, args_for(files, train=tab), "--train", "tab-separated", "--sep tab")
    assert not fake


def test_missing_file_and_bad_outputs(files, fake, tmp_path, capsys):
    expect_error(
        capsys, args_for(files, train=tmp_path / "nope.csv"), "--train", "no such file", "nope.csv"
    )
    expect_error(capsys, [*args_for(files), "--json", tmp_path], "--json", "is a directory")
    expect_error(
        capsys, [*args_for(files), "--html", files["train"]], "--html", "is one of the input files"
    )
    assert not fake


@pytest.mark.parametrize(
    "extra",
    [["--max-rows", "0"], ["--n-jobs", "0"], ["--seed", "-1"], ["--seed", "x"], ["--sep", ":"]],
)
def test_bad_options_are_usage_errors(files, fake, capsys, extra):
    code, _, err = run(capsys, *args_for(files), *extra)
    assert code == 2 and extra[0] in err


def test_required_files(capsys):
    code, _, err = run(capsys, "fidelity", "--train", "t.csv")
    assert code == 2 and "--holdout" in err and "--synthetic" in err


# ---------------------------------------------------------------------------------------------
# end to end with the real holdout_report
# ---------------------------------------------------------------------------------------------
def read_json(capsys, argv, out_json):
    assert sys.modules["synthtrust.fidelity"] is fidelity  # the real module, not the stand-in
    code, out, err = run(capsys, *argv, "--json", out_json, "--seed", 0, "--n-jobs", 1)
    assert code == 0, err
    return json.loads(out_json.read_text()), out


def check_ranges(result: dict, n_syn: int, n_columns: int) -> None:
    for key in KEYS:
        assert key in result, key
    for key in KEYS[:7]:
        assert 0.0 <= result[key] <= 1.0, (key, result[key])
    for key in ("dcr_train_mean", "dcr_holdout_mean"):
        assert 0.0 <= result[key] <= n_columns
    assert result["n_closer"] + result["n_further"] + result["n_equal"] == n_syn


def test_end_to_end_flip(files, tmp_path, capsys):
    out_html = tmp_path / "r.html"
    result, out = read_json(capsys, [*args_for(files), "--html", out_html], tmp_path / "r.json")
    check_ranges(result, 300, 5)
    assert out_html.stat().st_size > 0 and "<html" in out_html.read_text().lower()
    assert "synthetic:" in out


def test_end_to_end_holdout_as_synthetic_scores_the_reference(files, tmp_path, capsys):
    result, _ = read_json(capsys, args_for(files, synthetic=files["holdout"]), tmp_path / "h.json")
    check_ranges(result, 300, 5)
    for k in (1, 2, 3):  # the holdout scored as synthetic is the holdout reference
        assert result[f"tvd_{k}"] == pytest.approx(result[f"holdout_tvd_{k}"])


def test_end_to_end_bootstrap_copy_is_flagged(files, tmp_path, capsys):
    copy = tmp_path / "copy.csv"
    Bootstrap(random_state=0).fit(pd.read_csv(files["train"])).sample(300).to_csv(copy, index=False)
    result, _ = read_json(capsys, args_for(files, synthetic=copy), tmp_path / "c.json")
    check_ranges(result, 300, 5)
    assert result["dcr_train_mean"] == 0.0  # every synthetic record is a training record
    assert result["dcr_share"] > 0.9 and result["n_further"] == 0


def test_end_to_end_compatible_types(files, tmp_path, capsys):
    # int vs float and bool vs TRUE/FALSE-with-missing columns pass the real report's checks too
    syn = pd.read_csv(files["synthetic"])
    syn["age"] = syn["age"].astype(float)
    syn.loc[0, "age"] = np.nan
    syn["married"] = syn["married"].astype(object)
    syn.loc[1, "married"] = None
    syn.to_csv(tmp_path / "syn.csv.gz", index=False)
    result, _ = read_json(
        capsys, args_for(files, synthetic=tmp_path / "syn.csv.gz"), tmp_path / "x.json"
    )
    check_ranges(result, 300, 5)
