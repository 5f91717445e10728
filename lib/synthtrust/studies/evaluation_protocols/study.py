"""The chapter's two studies, each behind one call: the protocol benchmark over the preset's
grid (:func:`run_protocol_study`) and the generators' 2-way TVD on adult
(:func:`run_adult_study`).

Each function builds its grid from the chapter's parameters (the keys of
``chapters/params/evaluation_protocols/*.yaml``), runs it with
:func:`synthtrust.run.experiment.run_grid` (parallel, cached, seeded by cell) and returns its tables;
writing them and gluing the numbers is the chapter's. The grid cells keep the parameter names
and values the chapter has always used, so a cell's seeds (``experiment.cell_key``) and every
number stay as they were.

Source: Movahedi et al. (2024) [``movahedi2024``], §IV.C (the benchmark); McKenna et al. (2022)
[``mckenna2022``] (the adult check).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from synthtrust._validation import check_parameters
from synthtrust.run.experiment import run_grid

from .benchmark import adult_cell, build_grid, repetition_cell, repetitions, summarize

__all__ = [
    "ADULT_COLUMNS",
    "ADULT_PARAMETERS",
    "PROTOCOL_PARAMETERS",
    "ProtocolStudy",
    "run_adult_study",
    "run_protocol_study",
]

#: The chapter parameters :func:`run_protocol_study` reads.
PROTOCOL_PARAMETERS = (
    "seed",
    "n_reps",
    "generator_reps",
    "datasets",
    "max_rows",
    "epsilon",
    "delta",
    "generators",
    "baselines",
    "classifiers",
)
#: The chapter parameters :func:`run_adult_study` reads.
ADULT_PARAMETERS = ("seed", "adult_generators")

#: Columns of :func:`run_adult_study`'s table.
ADULT_COLUMNS = ["generator", "tvd_2way", "fit_sample_s"]


@dataclass(frozen=True)
class ProtocolStudy:
    """The tables of :func:`run_protocol_study`.

    Attributes
    ----------
    repetitions : DataFrame
        One row per (dataset, generator, ε, repetition, protocol, classifier, metric): columns
        ``dataset, generator, epsilon, rep, protocol, classifier, metric, estimate, truth,
        reference`` (:func:`~.benchmark.repetition_cell`; accuracy and F1 are proportions).
    errors : DataFrame
        :func:`~.benchmark.summarize` of ``repetitions``: ME, STD, RMSE of each protocol's
        error (Eq. 2–3), ``n``, ``n_undefined`` and the mean estimate, truth and reference.
    n_runs : int
        Repetitions run: cells × their repetitions (dataset × generator × ε × repetition).
    """

    repetitions: pd.DataFrame
    errors: pd.DataFrame
    n_runs: int


def run_protocol_study(
    params: Mapping, *, n_jobs=None, dask=None, cache_dir=None, progress: bool = True
) -> ProtocolStudy:
    """Protocols A and B on every dataset × generator (DP and baseline) × ε of ``params``,
    ``n_reps`` repetitions each (``generator_reps`` where the paper ran fewer).

    Parameters
    ----------
    params : mapping
        The chapter's parameters :data:`PROTOCOL_PARAMETERS`: ``seed`` (int ≥ 0, root of every
        repetition's seed), ``n_reps`` (int ≥ 1), ``generator_reps`` (``{generator: {dataset:
        repetitions}}``), ``datasets`` (keys of :data:`~.benchmark.DATASETS`), ``max_rows``
        (int or None: rows drawn per repetition), ``epsilon`` (list of ε > 0, the generators'
        and Protocol B's), ``delta`` (δ of the zCDP generators, add/remove-one), ``generators``
        and ``baselines`` (keys of :data:`~.benchmark.GENERATORS`), ``classifiers`` (names of
        :data:`synthtrust.protocols.CLASSIFIERS`). Other keys are ignored.
    n_jobs, dask, cache_dir, progress
        Passed on to :func:`synthtrust.run.experiment.run_grid` (they change the speed, never a
        number).

    Returns
    -------
    ProtocolStudy

    Raises
    ------
    TypeError
        ``params`` is not a mapping.
    ValueError
        ``params`` lacks a key of :data:`PROTOCOL_PARAMETERS`; an unknown dataset, generator or
        classifier (:func:`~.benchmark.build_grid`); a bad ``generator_reps`` entry
        (:func:`~.benchmark.repetitions`).

    References
    ----------
    Movahedi et al. (2024) [``movahedi2024``], §IV.C.
    """
    check_parameters(params, PROTOCOL_PARAMETERS)
    cells = build_grid(
        datasets_=params["datasets"],
        generators=list(params["generators"]) + list(params["baselines"]),
        epsilon=params["epsilon"],
        delta=params["delta"],
        classifiers=params["classifiers"],
        max_rows=params["max_rows"],
    )
    count = repetitions(params["n_reps"], params["generator_reps"])
    raw = run_grid(
        repetition_cell,
        cells,
        count,
        params["seed"],
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        chunk_size=1,
        progress=progress,
    )
    raw = raw.drop(columns=["classifiers", "max_rows", "delta"])
    return ProtocolStudy(
        repetitions=raw,
        errors=summarize(raw),
        n_runs=sum(count(c) for c in cells),
    )


def run_adult_study(
    params: Mapping, *, n_jobs=None, dask=None, cache_dir=None, progress: bool = True
) -> pd.DataFrame:
    """The 2-way TVD of each of ``params["adult_generators"]`` on the discretised adult at
    ε = 1, δ = 10⁻⁹ (the literature check; :func:`~.benchmark.adult_cell`), one replicate each.

    Parameters
    ----------
    params : mapping
        The chapter's parameters :data:`ADULT_PARAMETERS`: ``seed`` (int ≥ 0) and
        ``adult_generators`` (keys of :data:`~.benchmark.GENERATORS`; empty for none).
    n_jobs, dask, cache_dir, progress
        Passed on to :func:`synthtrust.run.experiment.run_grid`.

    Returns
    -------
    DataFrame, one row per generator (none when ``adult_generators`` is empty), columns
    ``generator``, ``tvd_2way`` (mean ½‖p − q‖₁ over the 91 column pairs, a proportion in
    [0, 1]) and ``fit_sample_s`` (wall seconds of fit + sample).

    Raises
    ------
    TypeError
        ``params`` is not a mapping.
    ValueError
        ``params`` lacks a key of :data:`ADULT_PARAMETERS`; an unknown generator
        (:func:`~.benchmark.make_generator`).

    References
    ----------
    McKenna et al. (2022) [``mckenna2022``]; the score of the reference scripts
    ``mechanisms/mst.py`` and ``mechanisms/aim.py`` of Private-PGM.
    """
    check_parameters(params, ADULT_PARAMETERS)
    cells = [{"generator": g, "epsilon": 1.0, "delta": 1e-9} for g in params["adult_generators"]]
    if not cells:
        return pd.DataFrame(columns=ADULT_COLUMNS)
    adult = run_grid(
        adult_cell,
        cells,
        1,
        params["seed"],
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        progress=progress,
    )
    return adult[ADULT_COLUMNS]
