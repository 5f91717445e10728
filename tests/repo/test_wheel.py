"""The built wheel outside the repository: core dependencies only, the ``fidelity`` command on
a user's files, the synthesizers without PyTorch (GSWGAN names the extra), and the datasets
found where ``SYNTHTRUST_DATA`` points."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from _repo import ROOT

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
    """A fresh venv with the wheel and its core dependencies, and a folder outside the repo."""
    tmp = tmp_path_factory.mktemp("wheel")
    # build from a copy of the sources: setuptools writes build/ next to pyproject.toml
    src = tmp / "src"
    shutil.copytree(
        ROOT / "lib", src / "lib", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
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
    return python, work


@pytest.mark.slow
def test_the_wheel_installs_the_core_only(installed):
    python, work = installed
    frozen = _run([python, "-m", "pip", "list", "--format=freeze"], cwd=work).lower()
    names = {line.split("==")[0] for line in frozen.split()}
    assert {"numpy", "scipy", "pandas", "mbi", "jax", "altair", "synthtrust"} <= names
    assert not names & set(EXTRAS_PACKAGES), sorted(names & set(EXTRAS_PACKAGES))
    # the installed package, not the repository's sources
    where = _run([python, "-c", "import synthtrust; print(synthtrust.__file__)"], cwd=work)
    assert "site-packages" in where and str(ROOT) not in where


@pytest.mark.slow
def test_fidelity_command_on_user_files(installed):
    python, work = installed
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
    python, work = installed
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


@pytest.mark.slow
def test_datasets_are_found_where_synthtrust_data_points(installed):
    python, work = installed
    code = "from synthtrust import datasets\nprint(datasets.load('adult').shape)"
    proc = subprocess.run(
        [python, "-c", code],
        capture_output=True,
        text=True,
        cwd=work,
        env={k: v for k, v in os.environ.items() if k != "SYNTHTRUST_DATA"},
    )
    assert proc.returncode != 0 and "set the environment variable SYNTHTRUST_DATA" in proc.stderr
    out = _run([python, "-c", code], cwd=work, env={"SYNTHTRUST_DATA": os.fspath(ROOT / "data")})
    assert out.strip() == "(48842, 15)"
