"""The public datasets the chapters use, read from the repository's ``data/`` folder.

Nothing is downloaded: every file is a gzip CSV copied from ``shared/data`` (provenance in
``data/DATASETS.md``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

__all__ = ["DATA_DIR", "NAMES", "load", "path"]


def _data_dir() -> Path:
    env = os.environ.get("SYNTHTRUST_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "data"


DATA_DIR = _data_dir()

# name -> (file name, read_csv keyword arguments)
_FILES: dict[str, tuple[str, dict]] = {
    "adult": ("adult.csv.gz", {"na_values": ["?"]}),
    "adult_pgm_discretized": ("adult_pgm_discretized.csv.gz", {}),
    "bank-marketing": ("bank-marketing.csv.gz", {}),
    "cardio": ("cardio_train.csv.gz", {"sep": ";"}),
    "credit-default": ("credit-default.csv.gz", {}),
    "online-shoppers": ("online-shoppers.csv.gz", {}),
    "pima_diabetes": ("pima_diabetes.csv.gz", {}),
    "ilpd": ("ilpd.csv.gz", {}),
    "hypothyroid_allhypo": ("hypothyroid_allhypo.csv.gz", {"na_values": ["?"]}),
    "costa_rica_poverty": ("costa_rica_poverty_train.csv.gz", {}),
    "sd2011": ("sd2011.csv.gz", {}),
    "census2011_first50k": ("census2011_teaching_first50k.csv.gz", {}),
    "census2011_random10k": ("census2011_teaching_random10k.csv.gz", {}),
}

#: Names accepted by :func:`load`, in a stable order.
NAMES: tuple[str, ...] = tuple(sorted(_FILES))


def path(name: str) -> Path:
    """Path of the gzip CSV holding dataset ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`NAMES` (the message lists them).
    """
    if not isinstance(name, str) or name not in _FILES:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(NAMES)}")
    return DATA_DIR / _FILES[name][0]


def load(name: str) -> pd.DataFrame:
    """Load a public dataset as a DataFrame (one row per record, the file's columns).

    Parameters
    ----------
    name : str
        One of :data:`NAMES`, e.g. ``"adult"``, ``"cardio"``, ``"bank-marketing"``,
        ``"credit-default"``, ``"online-shoppers"``.

    Returns
    -------
    pandas.DataFrame
        The file as published; missing values written ``?`` are read as NaN (adult,
        hypothyroid). ``cardio`` is the Kaggle file (``;``-separated; ``age`` in days).

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known names).
    FileNotFoundError
        If the data folder is missing (run from a full clone of the repository).
    """
    file = path(name)
    if not file.exists():
        raise FileNotFoundError(f"dataset file {file} is missing; data/ must hold {file.name}")
    return pd.read_csv(file, **_FILES[name][1])
