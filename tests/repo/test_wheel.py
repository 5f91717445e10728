"""The built wheel outside the repository: core dependencies only, the datasets of ``data/``
inside it, the README's Python example run from the installed package alone, the ``fidelity``
command on a user's files, the synthesizers without PyTorch (GSWGAN names the extra), and
``SYNTHTRUST_DATA`` overriding the installed datasets."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from _readme import python_block
from _repo import ROOT

from synthtrust.privacy.accounting import cdp_rho

EXTRAS_PACKAGES = ("torch", "shap", "distributed", "papermill", "jupytext", "jupyter-book")


def _run(cmd, **kwargs) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SYNTHTRUST_DATA")}
    env.update(kwargs.pop("env", {}))
    proc = subprocess.run(
        [os.fspath(c) for c in cmd], capture_output=True, text=True, env=env, timeout=900, **kwargs
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A fresh venv with the wheel and its core dependencies, a folder outside the repo, and
    the wheel."""
    tmp = tmp_path_factory.mktemp("wheel")
    # build from a copy of the sources: setuptools writes build/ next to pyproject.toml
    src = tmp / "src"
    for folder in ("lib", "data"):
        shutil.copytree(
            ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
        )
    for name in ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            tmp / "dist",
            src,
        ]
    )
    (wheel,) = (tmp / "dist").glob("synthtrust-*.whl")
    _run([sys.executable, "-m", "venv", tmp / "venv"])
    python = tmp / "venv" / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", wheel])
    work = tmp / "elsewhere"
    work.mkdir()
    return python, work, wheel


@pytest.mark.slow
def test_the_wheel_installs_the_core_only(installed):
    python, work, _ = installed
    frozen = _run([python, "-m", "pip", "list", "--format=freeze"], cwd=work).lower()
    names = {line.split("==")[0] for line in frozen.split()}
    assert {"numpy", "scipy", "pandas", "mbi", "jax", "altair", "synthtrust"} <= names
    assert not names & set(EXTRAS_PACKAGES), sorted(names & set(EXTRAS_PACKAGES))
    # the installed package, not the repository's sources
    where = _run([python, "-c", "import synthtrust; print(synthtrust.__file__)"], cwd=work)
    assert "site-packages" in where and str(ROOT) not in where


@pytest.mark.slow
def test_fidelity_command_on_user_files(installed):
    python, work, _ = installed
    rng = np.random.default_rng(0)
    for name, n in (("train", 300), ("holdout", 300), ("synthetic", 300)):
        pd.DataFrame(
            {
                "age": rng.integers(18, 90, n),
                "sex": rng.choice(["f", "m"], n),
                "income": rng.normal(3e4, 1e4, n).round(2),
            }
        ).to_csv(work / f"{name}.csv", index=False)
    synthtrust = python.parent / "synthtrust"
    out = _run(
        [
            synthtrust,
            "fidelity",
            "--train",
            "train.csv",
            "--holdout",
            "holdout.csv",
            "--synthetic",
            "synthetic.csv",
            "--json",
            "report.json",
            "--html",
            "report.html",
        ],
        cwd=work,
    )
    assert "F1" in out and (work / "report.json").is_file()
    page = (work / "report.html").read_text(encoding="utf-8")
    assert "<html" in page.lower() and "https://" not in page


@pytest.mark.slow
def test_synthesizers_import_without_torch_and_gswgan_names_the_extra(installed):
    python, work, _ = installed
    code = (
        "import pandas as pd, synthtrust.synthesizers as s\n"
        "g = s.GSWGAN(epsilon=1.0, domain={'a': 2})\n"
        "try:\n"
        "    g.fit(pd.DataFrame({'a': [0, 1] * 40}))\n"
        "except ImportError as exc:\n"
        "    print('ImportError:', exc)\n"
    )
    out = _run([python, "-c", code], cwd=work)
    assert "ImportError: GSWGAN needs 'torch'" in out
    assert "pip install 'synthtrust[gan]'" in out


def _digests(files) -> dict[str, str]:
    """sha256 of each ``(name, bytes)``."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in files}


@pytest.mark.slow
def test_the_wheel_carries_every_file_of_data(installed):
    *_, wheel = installed
    data = ROOT / "data"
    prefix = "synthtrust/_data/"
    repo = [
        (p.relative_to(data).as_posix(), p.read_bytes()) for p in data.rglob("*") if p.is_file()
    ]
    with zipfile.ZipFile(wheel) as archive:
        packed = [
            (name.removeprefix(prefix), archive.read(name))
            for name in archive.namelist()
            if name.startswith(prefix)
        ]
    assert len(packed) == len(repo) >= 50  # csv.gz files, the splits, the 2024 synthetic files
    assert _digests(packed) == _digests(repo)


@pytest.mark.slow
def test_the_readme_example_runs_from_the_installed_package(installed):
    """The README's example verbatim, without ``SYNTHTRUST_DATA``, then its values as JSON."""
    python, work, _ = installed
    checks = (
        "\nimport json\n"
        "print(json.dumps({'data': str(datasets.DATA_DIR), 'cardio': cardio.shape,\n"
        "    'train': train.shape, 'synthetic': synthetic.shape,\n"
        "    'rho': mst.ledger_.total_rho, 'share': report.dcr.share,\n"
        "    'tvd_2': report.tvd_2, 'holdout_tvd_2': report.holdout_tvd_2}))\n"
    )
    out = _run([python, "-c", python_block("Use the package") + checks], cwd=work)
    *printed, last = out.strip().splitlines()
    values = json.loads(last)
    # the datasets came from the package, not from a clone
    assert values["data"].endswith(os.path.join("site-packages", "synthtrust", "_data"))
    assert str(ROOT) not in values["data"]
    # cardio: 70 000 rows × 13 columns less "id"; the README's 35 000 / 35 000 split
    assert values["cardio"] == [70_000, 12]
    assert values["train"] == values["synthetic"] == [35_000, 12]
    assert 0 < values["rho"] <= cdp_rho(1.0, 1e-9) * (1 + 1e-9)
    assert 0.4 < values["share"] < 0.6 and values["tvd_2"] > values["holdout_tvd_2"]
    text = "\n".join(printed)
    assert "PrivacyLedger(" in text and "HoldoutReport(" in text
    assert "pvalue=np.float64(0.0)" in text and "reject=np.True_" in text


@pytest.mark.slow
def test_synthtrust_data_overrides_the_installed_datasets(installed, tmp_path):
    python, work, _ = installed
    own = tmp_path / "own"
    own.mkdir()
    pd.DataFrame({"age": [30, 41, 52], "income": ["<=50K", ">50K", "?"]}).to_csv(
        own / "adult.csv.gz", index=False
    )
    code = (
        "from synthtrust import datasets\n"
        "print(datasets.load('adult').shape, int(datasets.load('adult')['income'].isna().sum()))\n"
        "datasets.load('cardio')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SYNTHTRUST_DATA"] = os.fspath(own)
    proc = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, cwd=work, env=env, timeout=300
    )
    # adult from the named folder (3 rows, "?" read as NaN), not the installed 48 842 rows
    assert proc.stdout.strip() == "(3, 2) 1"
    # cardio is not there, and SYNTHTRUST_DATA is the only folder tried
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("FileNotFoundError: dataset 'cardio': cardio_train.csv.gz is not in")
    assert f"folders tried, in order: {own} (SYNTHTRUST_DATA, exists);" in message
    assert os.fspath(python.parent.parent) not in message  # not the venv's installed copy
