"""Chapter 2 — the paper's generator comparison, recomputed with the package's generators.

Platzer & Reutterer (2021) [``platzer2021``], §4, trained seven generators on each dataset's
training half with their default settings and drew 50 000 records from each (Figures 7 and 8).
Here the package's own generators take their place, each trained on the same training half
(:func:`synthtrust.datasets.holdout_split`) and scored by
:func:`synthtrust.studies.holdout_fidelity_privacy.scores.score_table` like every other row of the
chapter:

* ``cart`` — sequential CART (:class:`synthtrust.synthesizers.SequentialCART`), synthpop's
  method (Nowok et al. 2016 [``nowok2016``]), the paper's "synthpop";
* ``ctgan`` — CTGAN (:class:`synthtrust.synthesizers.CTGAN`, Xu et al. 2019 [``xu2019``]);
* ``copula`` — a Gaussian copula (:class:`synthtrust.synthesizers.GaussianCopula`), the paper's
  SDV "GaussianCopula";
* ``mst``, ``aim`` — MST and AIM (McKenna et al. 2021, 2022 [``mckenna2021``,
  ``mckenna2022``]), beyond the paper, at (ε, δ) of add/remove-one neighbours.

Input. CART, CTGAN, MST and AIM take a table of integer codes. Their codes are the fidelity
metric's own discretization of the training half (:class:`CodeBook`:
:func:`synthtrust.fidelity.discretize` with c = 100, the bins of F¹), and a synthetic code is
turned back into a value by drawing one of the training values of its bin. The Gaussian copula
takes the raw columns (:func:`copula_records`).

Departures from the paper: the generators are this package's re-implementations on codes, not
synthpop (R) and SDV 0.x on raw columns; CTGAN runs ``epochs`` epochs (the preset's; SDV's
default is 300); the code book (bin edges, levels, the values drawn within a bin) is read from
the training half without noise, so the MST and AIM rows are not DP end to end (ε covers their
measurements of the codes).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust import datasets
from synthtrust._validation import check_random_state
from synthtrust.run.experiment import run_grid
from synthtrust.studies.holdout_fidelity_privacy.scores import (
    DATASETS,
    generator_comparison,
    score_table,
)

__all__ = [
    "CODE_BINS",
    "GENERATORS",
    "CodeBook",
    "build_grid",
    "copula_records",
    "make_generator",
    "run_generator_study",
    "score_cell",
    "synthetic_records",
    "load_mbi",
    "load_torch",
    "warm_up_of",
]

#: The generators of the comparison: name -> label; ``mst`` and ``aim`` are DP.
GENERATORS = {
    "cart": "sequential CART (synthpop's method)",
    "ctgan": "CTGAN",
    "copula": "Gaussian copula",
    "mst": "MST",
    "aim": "AIM",
}
_DP = ("mst", "aim")

#: Bins (c) of a numeric column in the code book: those of the fidelity metric's F¹.
CODE_BINS = 100


class CodeBook:
    """Integer codes of a mixed-type training table, and values drawn back from them.

    :meth:`fit` discretizes the training table as the fidelity metric does for F¹
    (:func:`synthtrust.fidelity.discretize` with ``bins`` = c: numeric columns in c quantile
    bins of the training values, other columns their c most frequent values), keeps the bins
    that hold a training record and numbers them 0..k−1 in bin order. :meth:`decode` turns a
    code into a value by drawing one of the training values of its bin uniformly at random (so
    a bin's values keep their training frequencies), as synthpop's CART draws a value from the
    training values of a leaf.

    Parameters
    ----------
    bins : int ≥ 1, default :data:`CODE_BINS`
        c, the most bins or categories per column.

    Attributes
    ----------
    codes_ : pandas.DataFrame, shape (n_records, n_columns)
        The training table's codes (int64), columns in the training table's order.
    sizes_ : dict {column: int}
        Codes per column, k.

    Raises
    ------
    TypeError, ValueError
        At :meth:`fit`, the errors of :func:`synthtrust.fidelity.discretize` (not a DataFrame,
        no rows, an infinite value, ``bins`` not an integer ≥ 1); at :meth:`decode`, codes
        with other columns than the training table's or outside ``0..k−1``.

    Notes
    -----
    Not private: the bins and the values drawn come from the training records.

    Examples
    --------
    >>> train = pd.DataFrame({"x": [1.0, 2.0, 2.0, 9.0], "y": ["a", "b", "a", "a"]})
    >>> book = CodeBook(bins=2).fit(train)
    >>> book.codes_["x"].tolist(), book.sizes_
    ([0, 0, 0, 1], {'x': 2, 'y': 2})
    >>> book.decode(book.codes_.iloc[[3]], random_state=0)["x"].tolist()
    [9.0]
    """

    def __init__(self, bins: int = CODE_BINS):
        self.bins = bins

    def fit(self, train: pd.DataFrame) -> CodeBook:
        """Read the bins and their training values off ``train``; returns ``self``."""
        from synthtrust.fidelity import discretize

        (binned,) = discretize(train, [], self.bins)
        codes, self._pools, self.sizes_ = {}, {}, {}
        for column in binned.columns:
            code, levels = pd.factorize(binned[column], sort=True)
            order = np.argsort(code, kind="stable")
            counts = np.bincount(code, minlength=len(levels))
            starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
            # the training values of bin b: values[starts[b] : starts[b] + counts[b]]
            self._pools[column] = (train[column].to_numpy()[order], starts, counts)
            codes[column] = code.astype(np.int64)
            self.sizes_[column] = len(levels)
        self.codes_ = pd.DataFrame(codes)
        return self

    def decode(self, codes: pd.DataFrame, random_state=None) -> pd.DataFrame:
        """Values for a table of codes: per cell, a training value of the code's bin.

        Parameters
        ----------
        codes : pandas.DataFrame, shape (n, n_columns)
            Integer codes with the training table's columns.
        random_state : int, numpy.random.Generator or None
            Source of the draws (one uniform number per cell).

        Returns
        -------
        pandas.DataFrame, shape (n, n_columns)
            The training table's columns, values and value types.
        """
        if list(codes.columns) != list(self.codes_.columns):
            raise ValueError(
                f"codes must have the training table's columns {list(self.codes_.columns)}, "
                f"got {list(codes.columns)}"
            )
        rng = check_random_state(random_state)
        out = {}
        for column, (values, starts, counts) in self._pools.items():
            code = codes[column].to_numpy()
            if code.size and (code.min() < 0 or code.max() >= len(counts)):
                raise ValueError(
                    f"codes of column {column!r} must lie in 0..{len(counts) - 1}, got values "
                    f"in {code.min()}..{code.max()}"
                )
            pick = np.floor(rng.random(code.size) * counts[code]).astype(np.int64)
            out[column] = values[starts[code] + pick]
        return pd.DataFrame(out)


def copula_records(train: pd.DataFrame, n: int, random_state=None) -> pd.DataFrame:
    """``n`` records of a Gaussian copula fitted to the raw ``train``, as SDV's default
    ``GaussianCopulaSynthesizer`` (1.x) models a table.

    Numeric columns (bool excluded) with at least two values get a beta marginal on their
    observed range (:class:`synthtrust.synthesizers.GaussianCopula`), and their draws are
    clipped to the training range and rounded to whole numbers when every training value is
    one (SDV's ``enforce_min_max_values`` and ``enforce_rounding``); the other columns get
    their empirical level frequencies.

    Parameters
    ----------
    train : pandas.DataFrame, shape (n_records, n_columns)
        Without missing values.
    n : int ≥ 1
        Records to draw.
    random_state : int, numpy.random.Generator or None

    Returns
    -------
    pandas.DataFrame, shape (n, n_columns)
        ``train``'s columns; whole-number columns keep ``train``'s dtype.

    Raises
    ------
    TypeError, ValueError
        The errors of :meth:`GaussianCopula.fit` and ``sample`` (missing values, ``n`` < 1).

    Notes
    -----
    The paper's SDV of 2021 chose each numeric marginal among several parametric families;
    SDV 1.x, and this function, take the beta family for all.
    """
    from synthtrust.synthesizers import GaussianCopula

    numeric = [
        c
        for c in train.columns
        if pd.api.types.is_numeric_dtype(train[c])
        and not pd.api.types.is_bool_dtype(train[c])
        and train[c].nunique() > 1
    ]
    copula = GaussianCopula({c: "beta" for c in numeric}, random_state=random_state)
    out = copula.fit(train).sample(n)
    for c in numeric:
        x = train[c].to_numpy(dtype=float)
        values = out[c].clip(x.min(), x.max())
        if np.all(x == np.round(x)):
            values = values.round().astype(train[c].dtype)
        out[c] = values
    return out


def make_generator(
    name: str, sizes: dict, *, epochs: int, epsilon: float, delta: float, random_state=None
):
    """An unfitted code-table generator of the comparison (see the module docstring).

    Parameters
    ----------
    name : str
        ``"cart"`` (``min_samples_leaf=5``, synthpop's ``minbucket``), ``"ctgan"`` (``epochs``
        epochs, the package's other defaults), ``"mst"`` or ``"aim"`` (at ``epsilon``,
        ``delta``, add/remove-one neighbours; the package's defaults).
    sizes : dict {column: int}
        Codes per column (:attr:`CodeBook.sizes_`).
    epochs : int ≥ 1 or None
        CTGAN's epochs (ignored by the others).
    epsilon, delta : float or None
        ε > 0 and δ in (0, 1) of MST and AIM (ignored by the others).
    random_state : int, numpy.random.Generator or None

    Raises
    ------
    ValueError
        An unknown ``name`` (``"copula"`` included: it takes raw columns,
        :func:`copula_records`).
    """
    from synthtrust import synthesizers as syn

    if name == "cart":
        return syn.SequentialCART(min_samples_leaf=5, domain=sizes, random_state=random_state)
    if name == "ctgan":
        return syn.CTGAN(epochs=int(epochs), domain=sizes, random_state=random_state)
    if name in _DP:
        cls = syn.MST if name == "mst" else syn.AIM
        return cls(float(epsilon), float(delta), domain=sizes, random_state=random_state)
    code_generators = [g for g in GENERATORS if g != "copula"]
    raise ValueError(
        f"unknown code-table generator {name!r}; expected one of {', '.join(code_generators)}"
    )


def synthetic_records(params: dict, rng: np.random.Generator) -> pd.DataFrame:
    """The synthetic table of one cell of :func:`build_grid`: ``params["label"]`` trained on
    the training half of ``params["dataset"]``, ``params["rows"]`` records (0: as many as the
    training half).

    Raises
    ------
    ValueError
        An unknown generator or dataset.
    """
    train = datasets.holdout_split(params["dataset"])[0]
    n = int(params["rows"] or len(train))
    if params["label"] == "copula":
        return copula_records(train, n, rng)
    book = CodeBook().fit(train)
    generator = make_generator(
        params["label"],
        book.sizes_,
        epochs=params.get("epochs"),
        epsilon=params.get("epsilon"),
        delta=params.get("delta"),
        random_state=rng,
    )
    generator.fit(book.codes_)
    # 0 rows asks for the training half's size: public under replace-one, not under add/remove
    # (MST, AIM draw their own noisy size then); a preset's number of rows is public
    from synthtrust.synthesizers.base import released_sample

    out = generator.sample(n) if params["rows"] else released_sample(generator, n)
    return book.decode(out, rng)


def score_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """One grid cell (one replicate): the holdout report of :func:`synthetic_records`'s table,
    one row with the columns of
    :func:`synthtrust.studies.holdout_fidelity_privacy.scores.score_table`."""
    (rng,) = rngs
    train, holdout = datasets.holdout_split(params["dataset"])
    return score_table(train, holdout, synthetic_records(params, rng), rng)


def build_grid(
    *,
    datasets_: list[str],
    generators: list[str],
    rows: int,
    ctgan_epochs: int,
    epsilon: float,
    delta: float,
) -> list[dict]:
    """Cells of the comparison: each generator on each dataset.

    Every cell has ``dataset``, ``source = "generator"``, ``rows`` and ``label`` (the
    generator's name); CTGAN's adds ``epochs``, MST's and AIM's ``epsilon`` and ``delta``, so a
    cell's cache key holds the parameters its generator uses and no other.

    Raises
    ------
    ValueError
        An unknown dataset or generator.
    """
    for ds in datasets_:
        if ds not in DATASETS:
            raise ValueError(
                f"unknown dataset {ds!r}; the paper's datasets are {', '.join(DATASETS)}"
            )
    for name in generators:
        if name not in GENERATORS:
            raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")
    cells = []
    for ds in datasets_:
        for name in generators:
            cell = {"dataset": ds, "source": "generator", "rows": int(rows), "label": name}
            if name == "ctgan":
                cell["epochs"] = int(ctgan_epochs)
            if name in _DP:
                cell.update(epsilon=float(epsilon), delta=float(delta))
            cells.append(cell)
    return cells


def run_generator_study(
    params, scores: pd.DataFrame, *, n_jobs: int | None = None, dask=None, cache_dir=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The paper's generator comparison (Figures 7 and 8 of Platzer & Reutterer 2021
    [``platzer2021``]) with this package's generators: each of ``generators`` trained on each
    dataset's training half, one :func:`score_cell` task each, run by
    :func:`~synthtrust.run.experiment.run_grid` (in parallel, cached), then set beside the
    paper's rows.

    Parameters
    ----------
    params : mapping
        The chapter's preset values; reads ``seed``, ``datasets``, ``generators`` (of
        :data:`GENERATORS`), ``generator_rows`` (records drawn; 0: the training half's),
        ``ctgan_epochs``, ``generator_epsilon`` and ``generator_delta`` (MST's and AIM's ε and
        δ, add/remove-one neighbours).
    scores : pandas.DataFrame
        The holdout rows of the same datasets (the first table of
        :func:`~synthtrust.studies.holdout_fidelity_privacy.scores.run_score_study`), the
        reference of the comparison.
    n_jobs, dask, cache_dir
        As :func:`~synthtrust.run.experiment.run_grid`; they change the speed, never the numbers.

    Returns
    -------
    (generators, comparison) : (DataFrame, DataFrame)
        ``generators``: one row per (dataset, generator), the cell's parameters and the columns
        of :func:`~synthtrust.studies.holdout_fidelity_privacy.scores.score_table`;
        ``comparison``: :func:`~synthtrust.studies.holdout_fidelity_privacy.scores.generator_comparison`
        of ``scores`` and ``generators`` together.

    Raises
    ------
    KeyError
        ``params`` lacks one of the keys above (the error names it).
    ValueError
        An unknown dataset or generator (:func:`build_grid`).
    """
    cells = build_grid(
        datasets_=params["datasets"],
        generators=params["generators"],
        rows=params["generator_rows"],
        ctgan_epochs=params["ctgan_epochs"],
        epsilon=params["generator_epsilon"],
        delta=params["generator_delta"],
    )
    gens = run_grid(
        score_cell,
        cells,
        1,
        params["seed"],
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        chunk_size=1,
        warm_up_of=warm_up_of,
    )
    return gens, generator_comparison(pd.concat([scores, gens], ignore_index=True))


def load_mbi() -> None:
    """JAX and mbi, once per worker process (MST's and AIM's cells)."""
    from synthtrust._jax import import_mbi

    import_mbi()


def load_torch() -> None:
    """PyTorch, once per worker process (CTGAN's cells)."""
    from synthtrust._optional import import_if_installed

    import_if_installed("torch", "CTGAN")


def warm_up_of(cell: dict):
    """What a cell loads once per worker process (``run_grid(..., warm_up_of=warm_up_of)``):
    :func:`load_mbi` for MST and AIM, :func:`load_torch` for CTGAN, nothing for CART and the
    copula. Loaded before a worker's first task, so that loky does not recycle a worker that a
    later task grows by the imports; a worker loads only its cells' (PyTorch and JAX are not
    both in one process).
    """
    return _WARM_UPS.get(cell["label"])


_WARM_UPS = {"mst": load_mbi, "aim": load_mbi, "ctgan": load_torch}
