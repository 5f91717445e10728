"""Tests of ``synthtrust.run.fingerprint``: the digest of a chapter run's inputs and the check that a
run folder is up to date with it.

Oracle: the digests recomputed here with hashlib over the same bytes, and run folders built by
hand (a manifest, a notebook, results files) with one piece changed or missing at a time.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from synthtrust import datasets
from synthtrust.run import experiment, fingerprint


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "chapter.md"
    path.write_text("# A chapter\n", encoding="utf-8")
    return path


def test_inputs_are_the_notebooks_bytes_the_parameters_the_package_the_data_and_versions(source):
    got = fingerprint.inputs(source, {"seed": 1, "epsilon": [0.5, 1.0]})
    assert got["notebook"] == hashlib.sha256(b"# A chapter\n").hexdigest()
    assert got["parameters"] == '{"epsilon": [0.5, 1.0], "seed": 1}'  # sorted keys
    assert got["package"] == experiment.package_digest()
    assert got["data"] == experiment.tree_digest(datasets.DATA_DIR)
    assert got["packages"]["numpy"] == __import__("numpy").__version__
    text = json.dumps(got, sort_keys=True)
    assert fingerprint.inputs_digest(source, {"seed": 1, "epsilon": [0.5, 1.0]}) == (
        hashlib.sha256(text.encode()).hexdigest()
    )


def test_every_input_changes_the_digest(source, monkeypatch, tmp_path):
    params = {"seed": 1}
    first = fingerprint.inputs_digest(source, params)
    assert (
        fingerprint.inputs_digest(source, dict(params)) == first
    )  # the same inputs, the same digest
    assert fingerprint.inputs_digest(source, {"seed": 2}) != first
    source.write_text("# A chapter, edited\n", encoding="utf-8")
    edited = fingerprint.inputs_digest(source, params)
    assert edited != first
    monkeypatch.setattr(experiment, "package_digest", lambda: "0" * 64)
    other_code = fingerprint.inputs_digest(source, params)
    assert other_code != edited
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setattr(datasets, "DATA_DIR", data)
    assert fingerprint.inputs(source, params)["data"] == experiment.tree_digest(data)
    assert fingerprint.inputs_digest(source, params) != other_code
    monkeypatch.setattr(datasets, "DATA_DIR", tmp_path / "absent")
    assert fingerprint.inputs(source, params)["data"] == "absent"


def test_a_missing_source_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        fingerprint.inputs(tmp_path / "none.md", {})


def _run(out, name="chap", digest="d" * 64, results=("a.csv",)):
    (out / "results").mkdir(parents=True)
    for f in results:
        (out / "results" / f).write_text("x\n")
    (out / f"{name}.ipynb").write_text("{}")
    manifest = {"chapter": name, fingerprint.INPUTS_KEY: digest, "results": list(results)}
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


def test_up_to_date_needs_the_manifest_its_digest_the_notebook_and_every_results_file(tmp_path):
    out = _run(tmp_path / "run")
    assert fingerprint.up_to_date(out, "chap", "d" * 64)
    assert not fingerprint.up_to_date(out, "chap", "e" * 64)  # other inputs
    assert not fingerprint.up_to_date(out, "other", "d" * 64)  # another chapter's run
    (out / "results" / "a.csv").unlink()
    assert not fingerprint.up_to_date(out, "chap", "d" * 64)
    out = _run(tmp_path / "run2")
    (out / "chap.ipynb").unlink()
    assert not fingerprint.up_to_date(out, "chap", "d" * 64)
    out = _run(tmp_path / "run3")
    (out / "manifest.json").write_text("{not json")
    assert not fingerprint.up_to_date(out, "chap", "d" * 64)
    (out / "manifest.json").write_text(json.dumps({"chapter": "chap", "results": ["a.csv"]}))
    assert not fingerprint.up_to_date(out, "chap", "d" * 64)  # a run that recorded no digest
    (out / "manifest.json").unlink()
    assert not fingerprint.up_to_date(out, "chap", "d" * 64)
    assert not fingerprint.up_to_date(tmp_path / "nowhere", "chap", "d" * 64)
