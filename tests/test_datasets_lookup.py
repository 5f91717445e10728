"""Where synthtrust.datasets finds its files: SYNTHTRUST_DATA, else the repository's data/,
else the copy installed with the package; and the error that names the folders tried. The
installed wheel's side (the copy inside it, the override) is tests/repo/test_wheel.py."""

from __future__ import annotations

import os

import pytest
from _repo import ROOT

from synthtrust import datasets
from synthtrust.datasets import _choose, _lookup, _missing


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """Stand-ins for the repository's data/ and the package's _data/, neither created yet."""
    repo, package = tmp_path / "repo" / "data", tmp_path / "site" / "synthtrust" / "_data"
    monkeypatch.setattr(datasets, "REPOSITORY_DATA", repo)
    monkeypatch.setattr(datasets, "PACKAGE_DATA", package)
    return repo, package


def test_in_the_clone_the_repository_data_is_used():
    assert datasets.REPOSITORY_DATA == ROOT / "data"
    assert datasets.PACKAGE_DATA == ROOT / "lib" / "synthtrust" / "_data"
    assert not datasets.PACKAGE_DATA.exists()  # an editable install copies nothing into lib/
    if not os.environ.get("SYNTHTRUST_DATA"):
        assert datasets.DATA_DIR == ROOT / "data"
        assert datasets.path("adult") == ROOT / "data" / "adult.csv.gz"


def test_lookup_order_without_the_variable(folders):
    repo, package = folders
    for environ in ({}, {"SYNTHTRUST_DATA": ""}, {"HOME": "/home/x"}):  # empty means unset
        assert [f for f, _ in _lookup(environ)] == [repo, package]
    # neither exists: the first is named (the error then lists both as absent)
    assert _choose(_lookup({})) == repo
    package.mkdir(parents=True)
    assert _choose(_lookup({})) == package  # a wheel: no clone around the package
    repo.mkdir(parents=True)
    assert _choose(_lookup({})) == repo  # a clone's data/ wins over an installed copy


def test_the_variable_overrides_even_a_missing_folder(folders, tmp_path):
    repo, package = folders
    repo.mkdir(parents=True)
    package.mkdir(parents=True)
    own = tmp_path / "own"
    candidates = _lookup({"SYNTHTRUST_DATA": os.fspath(own)})
    assert candidates == [(own, "SYNTHTRUST_DATA")]
    assert _choose(candidates) == own  # absent, yet chosen: no silent fall-back


def test_the_missing_message_names_every_folder_tried(folders):
    repo, package = folders
    package.mkdir(parents=True)
    message = _missing("dataset 'adult': adult.csv.gz", package, _lookup({}))
    assert message == (
        f"dataset 'adult': adult.csv.gz is not in {package}; folders tried, in order: "
        f"{repo} (the repository's data/ folder, absent); "
        f"{package} (the copy installed with the package, exists); "
        "set the environment variable SYNTHTRUST_DATA to a folder that holds it "
        "(a clone's data/)"
    )


def test_load_and_holdout_split_raise_with_the_folders(folders, monkeypatch, tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    candidates = _lookup({"SYNTHTRUST_DATA": os.fspath(own)})
    monkeypatch.setattr(datasets, "DATA_DIR", own)
    monkeypatch.setattr(datasets, "_CANDIDATES", candidates)
    with pytest.raises(FileNotFoundError) as err:
        datasets.load("cardio")
    assert str(err.value) == (
        f"dataset 'cardio': cardio_train.csv.gz is not in {own}; folders tried, in order: "
        f"{own} (SYNTHTRUST_DATA, exists); SYNTHTRUST_DATA overrides the other folders: point "
        "it at a folder that holds the file (a clone's data/), or unset it to use the datasets "
        "installed with the package"
    )
    with pytest.raises(FileNotFoundError, match=r"^split file paper-fidelity-accuracy/splits/"):
        datasets.holdout_split("adult")
    # a file that is there is read from the chosen folder
    (own / "ilpd.csv.gz").write_bytes((ROOT / "data" / "ilpd.csv.gz").read_bytes())
    assert datasets.load("ilpd").shape == (583, 11)
