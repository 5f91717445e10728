"""Chapter 5, utility part — the census sample, its 90/10 split and its codes.

Houssiau et al. (2022) [``houssiau2022``], §4.2, as the reference notebooks: a sample of the
ONS 2011 Census Microdata Teaching File, encoded with the public census domain
(:func:`synthtrust.domain.dataset_domain`) and split by ``train_test_split(test_size=0.1,
random_state=1)`` (:func:`census_split`); the codes of the values the metrics name, and the
check that a frame of census codes has the columns a metric needs.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import lru_cache

import pandas as pd

from synthtrust.studies.auditing.applications import CENSUS

__all__ = ["CensusSplit", "census_split"]


@dataclass(frozen=True)
class CensusSplit:
    """A census sample encoded with the public census domain, and the paper's split.

    Attributes
    ----------
    dataset : str
        ``census2011_random10k`` or ``census2011_first50k``.
    full, train, test : pandas.DataFrame
        int64 codes of the 17 attributes (``Person ID`` dropped; −9 is code 0), index 0..n−1;
        ``train``/``test`` = ``train_test_split(full, test_size=0.1, random_state=1)``.
    sizes : dict
        {column: number of codes}.

    Treat the frames as read-only: :func:`census_split` caches them.
    """

    dataset: str
    full: pd.DataFrame
    train: pd.DataFrame
    test: pd.DataFrame
    sizes: dict


_CENSUS_DATASETS = ("census2011_random10k", "census2011_first50k")


def census_split(dataset: str = "census2011_random10k", n_rows: int | None = None) -> CensusSplit:
    """The census sample and its 90/10 split (the reference's ``split_data``:
    ``train_test_split(test_size=0.1, random_state=1)``), encoded with
    ``dataset_domain("census2011")``; cached.

    Parameters
    ----------
    dataset : "census2011_random10k" or "census2011_first50k"
    n_rows : int or None
        Use a random subset of this many rows (``DataFrame.sample(n_rows, random_state=0)``),
        e.g. for a quick run; None: every row.

    Returns
    -------
    CensusSplit
        random10k: 10 000 rows, 9 000 / 1 000.

    Raises
    ------
    ValueError
        Unknown dataset; ``n_rows`` not an integer in 20..len(file).
    """
    if dataset not in _CENSUS_DATASETS:
        raise ValueError(f"dataset must be one of {_CENSUS_DATASETS}, got {dataset!r}")
    if n_rows is not None and (
        isinstance(n_rows, bool) or not isinstance(n_rows, numbers.Integral)
    ):
        raise ValueError(f"n_rows must be an integer or None, got {n_rows!r}")
    return _census_split(dataset, None if n_rows is None else int(n_rows))


@lru_cache(maxsize=4)
def _census_split(dataset: str, n_rows: int | None) -> CensusSplit:
    from sklearn.model_selection import train_test_split

    from synthtrust import datasets
    from synthtrust.domain import dataset_domain

    dom = dataset_domain(CENSUS)
    raw = datasets.load(dataset).drop(columns="Person ID")
    if n_rows is not None:
        if not 20 <= n_rows <= len(raw):
            raise ValueError(f"n_rows must be in 20..{len(raw)} for {dataset}, got {n_rows}")
        raw = raw.sample(n=n_rows, random_state=0)
    full = dom.encode(raw[dom.columns]).reset_index(drop=True)
    train, test = train_test_split(full, test_size=0.1, random_state=1)
    return CensusSplit(
        dataset, full, train.reset_index(drop=True), test.reset_index(drop=True), dict(dom.sizes)
    )


@lru_cache(maxsize=1)
def census_codes() -> dict:
    """ONS value -> code of the columns the metrics name (Economic Activity, Sex)."""
    from synthtrust.domain import dataset_domain

    dom = dataset_domain(CENSUS)
    out = {}
    for col in ("Economic Activity", "Sex"):
        spec = dom[col]
        values = list(spec.categories) if hasattr(spec, "categories") else None
        if values is None:  # pragma: no cover - Categorical always has categories
            raise RuntimeError(f"{col} is not categorical")
        codes = spec.encode(pd.Series(values), column=col)
        out[col] = {v: int(c) for v, c in zip(values, codes, strict=True)}
    return out


def census_sizes() -> dict:
    """Domain sizes ``{column: number of codes}`` of the public census domain.

    The 17 attributes of ``dataset_domain("census2011")`` in the domain's order (code −9 a
    level of its own), as :attr:`CensusSplit.sizes`; no census record is read.
    """
    from synthtrust.domain import dataset_domain

    return dict(dataset_domain(CENSUS).sizes)
