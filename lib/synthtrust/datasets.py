"""The public datasets the chapters use, shipped with the package, and a checked reader for
user tables.

Nothing is downloaded: every file is a gzip CSV of the repository's ``data/`` folder (17 MB,
provenance in ``data/DATASETS.md``), which a built wheel carries as ``synthtrust/_data/``
(``setup.py`` copies it at build time; git holds the one copy in ``data/``). The data folder
:data:`DATA_DIR` is chosen once, at import, as the first of these that applies:

1. the folder named by the environment variable ``SYNTHTRUST_DATA``, if it is set (it
   overrides the others, even when it does not exist);
2. ``data/`` next to ``lib/`` (:data:`REPOSITORY_DATA`): a clone, or an editable install;
3. the copy installed with the package (:data:`PACKAGE_DATA`): ``pip install`` of the wheel.

A file missing from the folder in use raises ``FileNotFoundError`` naming the dataset and the
folders of this lookup. The user-facing command lines (``synthtrust fidelity``,
``synthtrust audit``) read the user's own files and need none of these.

* :func:`load` — one public dataset as published;
* :func:`holdout_split` — the exact 50/50 training/holdout split of Platzer & Reutterer (2021);
* :func:`read_table` — a user's CSV (gz, bz2, xz, zip ok) or Parquet file, with clear errors for
  a missing or empty file and for a wrong CSV delimiter.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import lzma
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

__all__ = [
    "DATA_DIR",
    "HOLDOUT_SPLIT_NAMES",
    "NAMES",
    "PACKAGE_DATA",
    "REPOSITORY_DATA",
    "holdout_split",
    "load",
    "path",
    "read_table",
]

#: The environment variable that names the data folder, overriding the other two.
_ENV = "SYNTHTRUST_DATA"
#: The repository's ``data/`` folder, next to ``lib/`` (exists in a clone or editable install).
REPOSITORY_DATA = Path(__file__).resolve().parents[2] / "data"
#: The copy of ``data/`` that a built wheel installs inside the package.
PACKAGE_DATA = Path(__file__).resolve().parent / "_data"


def _lookup(environ: Mapping[str, str]) -> list[tuple[Path, str]]:
    """The candidate data folders in the order they are tried, each with its origin.

    ``SYNTHTRUST_DATA`` (a non-empty value) is the only candidate when set; otherwise the
    repository's ``data/``, then the package's installed copy.
    """
    folder = environ.get(_ENV)
    if folder:
        return [(Path(folder), _ENV)]
    return [
        (REPOSITORY_DATA, "the repository's data/ folder"),
        (PACKAGE_DATA, "the copy installed with the package"),
    ]


def _choose(candidates: list[tuple[Path, str]]) -> Path:
    """The first candidate folder that exists, else the first candidate."""
    return next((folder for folder, _ in candidates if folder.is_dir()), candidates[0][0])


#: The folders tried, each with its origin, in order (:func:`_lookup` at import).
_CANDIDATES = _lookup(os.environ)
#: The folder the datasets are read from (the module docstring gives the lookup order).
DATA_DIR = _choose(_CANDIDATES)


def _missing(what: str, folder: Path, candidates: list[tuple[Path, str]]) -> str:
    """The message for a file ``what`` that is not in the data folder ``folder``: the folders
    ``candidates`` of the lookup, in order, whether each exists, and how to point at the data."""
    tried = "; ".join(
        f"{candidate} ({origin}, {'exists' if candidate.is_dir() else 'absent'})"
        for candidate, origin in candidates
    )
    if candidates[0][1] == _ENV:
        hint = (
            f"{_ENV} overrides the other folders: point it at a folder that holds the file "
            "(a clone's data/), or unset it to use the datasets installed with the package"
        )
    else:
        hint = f"set the environment variable {_ENV} to a folder that holds it (a clone's data/)"
    return f"{what} is not in {folder}; folders tried, in order: {tried}; {hint}"


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
    # the first, unnamed column is the row's position in the full ONS file: not a column
    "census2011_random10k": ("census2011_teaching_random10k.csv.gz", {"index_col": 0}),
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
        The file as published, with a fresh RangeIndex; missing values written ``?`` are read
        as NaN (adult, hypothyroid). ``cardio`` is the Kaggle file (``;``-separated; ``age`` in
        days). ``census2011_random10k`` drops the file's first, unnamed column (the row's
        position in the full ONS file), so both census files have the same 18 columns
        (``Person ID`` and the 17 attributes of ``synthtrust.domain.dataset_domain("census2011")``):
        10 000 and 50 000 rows.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known names).
    FileNotFoundError
        If the file is not in :data:`DATA_DIR` (the message names the dataset, the folders
        tried and how to point at the data).
    """
    file = path(name)
    if not file.exists():
        raise FileNotFoundError(_missing(f"dataset {name!r}: {file.name}", DATA_DIR, _CANDIDATES))
    df = pd.read_csv(file, **_FILES[name][1])
    if "index_col" in _FILES[name][1]:
        df = df.reset_index(drop=True)
    return df


# --------------------------------------------------------------------------------------------
# The paper's training/holdout splits (Platzer & Reutterer 2021)
# --------------------------------------------------------------------------------------------
#: Names accepted by :func:`holdout_split`.
HOLDOUT_SPLIT_NAMES: tuple[str, ...] = (
    "adult",
    "bank-marketing",
    "credit-default",
    "online-shoppers",
)

_SPLIT_DIR = ("paper-fidelity-accuracy", "splits")


def holdout_split(name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paper's exact 50/50 split of a dataset into a training and a holdout half.

    Platzer & Reutterer (2021), "Holdout-based empirical assessment of mixed-type synthetic
    data", Sec. 3: every dataset is split at random 50/50 (``fetch_data.R``, ``set.seed(123)``)
    into ``<name>_trn`` (training, rows in random order) and ``<name>_val`` (holdout, rows in the
    original order). The files are byte-identical copies of the paper's repository
    (mostly-ai/paper-fidelity-accuracy @ c31860c, ``data/``) in
    ``data/paper-fidelity-accuracy/splits/``.

    Parameters
    ----------
    name : str
        One of :data:`HOLDOUT_SPLIT_NAMES`: ``"adult"``, ``"bank-marketing"``,
        ``"credit-default"``, ``"online-shoppers"``.

    Returns
    -------
    (train, holdout) : tuple of pandas.DataFrame
        Rows × columns: adult 24 421 / 24 421 × 15, bank-marketing 22 606 / 22 605 × 17,
        credit-default 15 000 / 15 000 × 24, online-shoppers 6 165 / 6 165 × 18.
        Both with a fresh RangeIndex.

    Notes
    -----
    The files are read with ``pandas.read_csv`` defaults, exactly as the paper's
    ``fidelity.ipynb`` and ``privacy.ipynb`` read them, so the metrics see the same values:

    * adult keeps ``"?"`` as a category of its own (workclass, occupation, native-country),
      whereas :func:`load` reads ``"?"`` as NaN; the files hold no empty cells, so there are no
      NaN at all. Use ``df.replace("?", float("nan"))`` to get :func:`load`'s convention.
    * online-shoppers' ``TRUE``/``FALSE`` columns (Weekend, Revenue) are ``bool``.
    * credit-default's ``BILL_AMT1`` is int64 in the training half but float64 in the holdout
      half (``fwrite`` wrote 100000 as ``1e+05`` twice); the values are whole numbers in both.

    For bank-marketing, credit-default and online-shoppers, ``load(name)`` is the training half
    followed by the holdout half; for adult, the two halves equal ``load("adult")`` as a
    multiset of rows (up to the ``"?"``/NaN convention).

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`HOLDOUT_SPLIT_NAMES` (the message lists them).
    FileNotFoundError
        If a split file is not in :data:`DATA_DIR` (the message names it and the folders
        tried).
    """
    if not isinstance(name, str) or name not in HOLDOUT_SPLIT_NAMES:
        raise ValueError(
            f"no holdout split for dataset {name!r}; the paper's splits exist for: "
            f"{', '.join(HOLDOUT_SPLIT_NAMES)}"
        )
    folder = DATA_DIR.joinpath(*_SPLIT_DIR)
    halves = []
    for part in ("trn", "val"):
        file = folder / f"{name}_{part}.csv.gz"
        if not file.exists():
            raise FileNotFoundError(
                _missing(
                    f"split file {'/'.join(_SPLIT_DIR)}/{file.name} of dataset {name!r}",
                    DATA_DIR,
                    _CANDIDATES,
                )
            )
        halves.append(pd.read_csv(file))
    return halves[0], halves[1]


# --------------------------------------------------------------------------------------------
# Reading a user's table
# --------------------------------------------------------------------------------------------
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
#: Delimiters recognised when a CSV file seems to be separated by something else than ``sep``.
_DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}


def _delimiter_label(sep: str) -> str:
    """``';' (semicolon)``, ``tab``, ``'#'`` — for messages."""
    if sep == "\t":
        return "tab"
    name = _DELIMITERS.get(sep)
    return f"'{sep}' ({name})" if name else repr(sep)


def _sep_hint(sep: str) -> str:
    """How to pass ``sep`` in Python and on the command line."""
    cli = "tab" if sep == "\t" else f"'{sep}'"
    return f"pass sep={sep!r} (command line: --sep {cli})"


def _first_line(file: Path, limit: int = 1 << 16) -> str | None:
    """The first non-blank line of a (possibly compressed) text file, or None if unreadable."""
    suffix = file.suffix.lower()
    opener = _OPENERS.get(suffix, open)
    if suffix in (".zip", ".zst", ".zstd", ".tar"):
        return None  # pandas reads these; no header sniffing here
    try:
        with opener(file, "rt", encoding="utf-8", errors="replace", newline="") as fh:
            read = 0
            for line in fh:
                read += len(line)
                if line.strip():
                    return line.rstrip("\r\n")
                if read > limit:
                    break
    except (OSError, EOFError, lzma.LZMAError):
        return None
    return None


def _sniff_delimiter(header: str, sep: str) -> str | None:
    """The delimiter ``header`` seems to use instead of ``sep``, or None if ``sep`` is plausible.

    ``sep`` is plausible if it occurs in the header outside quotes, or if no known delimiter
    does (a one-column file). Otherwise the known delimiter that splits the header into the
    most fields (csv parsing, quotes respected) is returned.
    """

    def n_fields(delim: str) -> int:
        try:
            return len(next(csv.reader([header], delimiter=delim)))
        except (csv.Error, StopIteration):
            return 1

    if len(sep) != 1 or n_fields(sep) > 1:
        return None
    best, best_n = None, 1
    for delim in _DELIMITERS:
        if delim != sep and (k := n_fields(delim)) > best_n:
            best, best_n = delim, k
    return best


def read_table(path, *, sep: str | None = None) -> pd.DataFrame:
    """Read a user's table: CSV (optionally compressed) or Parquet, chosen by the file suffix.

    Parameters
    ----------
    path : str or os.PathLike
        ``*.parquet`` / ``*.pq`` / ``*.parq`` → :func:`pandas.read_parquet`; anything else →
        :func:`pandas.read_csv` with its defaults (header row, compression from the suffix:
        ``.gz``, ``.bz2``, ``.xz``, ``.zip``, ``.zst``; empty cells and ``NA``/``nan`` etc.
        become NaN; ``TRUE``/``FALSE`` become bool) except ``low_memory=False``, so a column
        gets one type from the whole file (not a mix of per-chunk guesses).
    sep : str or None
        CSV delimiter, e.g. ``";"`` or ``"\\t"``; None (default) means ``","``, or a tab for
        ``*.tsv`` / ``*.tab`` files (also compressed, e.g. ``*.tsv.gz``).

    Returns
    -------
    pandas.DataFrame
        One row per record, the file's columns.

    Notes
    -----
    *Wrong delimiter.* The delimiter is never guessed silently: a file misread with the wrong
    delimiter gives plausible-looking but wrong metrics, and a guess can be wrong too. If
    ``sep`` does not split the header line but ``;``, tab, ``|`` or ``,`` does (outside
    quotes), a ``ValueError`` says which delimiter the file seems to use and how to pass it
    (``sep=";"``; command line ``--sep ';'``). A parse error (e.g. a data row with more fields
    than the header) is reported with the same hint. Header sniffing covers plain, ``.gz``,
    ``.bz2`` and ``.xz`` files.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist (or is a directory).
    ValueError
        The file is empty (no header, or a header but no data rows); it seems to use another
        delimiter than ``sep``; it cannot be parsed (the parser's message, with the path).
    TypeError
        ``path`` is not a path or ``sep`` not a non-empty string.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path, got {type(path).__name__} {path!r}")
    file = Path(path)
    if sep is None:
        stem = file.name.lower()
        for suffix in (*_OPENERS, ".zip", ".zst"):
            stem = stem.removesuffix(suffix)
        sep = "\t" if stem.endswith((".tsv", ".tab")) else ","
    if not isinstance(sep, str) or not sep:
        raise TypeError(f"sep must be a non-empty string such as ',' or ';', got {sep!r}")
    if not file.exists():
        raise FileNotFoundError(f"no such file: {file}")
    if file.is_dir():
        raise FileNotFoundError(f"{file} is a directory, not a table file")
    if file.stat().st_size == 0:
        raise ValueError(f"{file} is empty (0 bytes); expected a header row and data rows")

    if file.name.lower().endswith(_PARQUET_SUFFIXES):
        try:
            df = pd.read_parquet(file)
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read {file} as Parquet: {exc}") from None
    else:
        header = _first_line(file)
        if header is not None:
            other = _sniff_delimiter(header, sep)
            if other is not None:
                raise ValueError(
                    f"{file} seems to be {_delimiter_label(other)}-separated, not "
                    f"{_delimiter_label(sep)}-separated: its header line has no "
                    f"{_delimiter_label(sep)} but splits at {_delimiter_label(other)} "
                    f"({header[:80]!r}); {_sep_hint(other)}"
                )
        try:
            df = pd.read_csv(file, sep=sep, low_memory=False)
        except pd.errors.EmptyDataError:
            raise ValueError(f"{file} is empty: no header row and no data") from None
        except pd.errors.ParserError as exc:
            raise ValueError(
                f"cannot parse {file} as {_delimiter_label(sep)}-separated CSV: "
                f"{str(exc).strip()}; a "
                "wrong delimiter (pass sep=..., command line --sep) or unbalanced quotes are "
                "the usual causes"
            ) from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"cannot read {file}: not UTF-8 text ({exc})") from None
        except (OSError, EOFError) as exc:  # e.g. a corrupt .gz
            raise ValueError(f"cannot read {file}: {exc}") from None
    if df.shape[1] == 0:
        raise ValueError(f"{file} is empty: no columns")
    if df.shape[0] == 0:
        raise ValueError(f"{file} has a header ({df.shape[1]} columns) but no data rows")
    return df
