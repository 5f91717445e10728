"""The chapter's study behind one call: :func:`run_importance_study` builds the grid of
(dataset, generator, level) cells from the chapter's parameters (the keys of
``chapters/params/feature_importance/*.yaml``), runs the real and the synthetic side of every
replicate with :func:`synthtrust.run.experiment.run_grid` (parallel, cached, seeded by cell),
compares them and returns the tables; writing them and gluing the numbers is the chapter's.

The grid cells keep the parameter names and values the chapter has always used, so a cell's
seeds (``experiment.cell_key``) and every number stay as they were.

Source: Giles et al. (2022) [``giles2022``], App. A.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from synthtrust._validation import check_parameters
from synthtrust.run.experiment import run_grid
from synthtrust.studies.feature_importance.grid import (
    build_grid,
    importance_cell,
    real_cell,
    similarity,
    summarize,
    warm_up_for,
)
from synthtrust.studies.feature_importance.models import MEASURES

__all__ = [
    "IMPORTANCE_PARAMETERS",
    "REAL_COLUMNS",
    "REPLICATE_COLUMNS",
    "ImportanceStudy",
    "run_importance_study",
    "study_cells",
]

#: The chapter parameters :func:`run_importance_study` reads.
IMPORTANCE_PARAMETERS = (
    "seed",
    "n_reps",
    "datasets",
    "privbayes_variants",
    "privbayes_epsilon",
    "privbayes_degree",
    "privbayes_beta",
    "pate_datasets",
    "pate_epsilon",
    "pate_max_iter",
    "beyond_generators",
    "beyond_datasets",
    "beyond_epsilon",
    "delta",
    "baselines",
    "subsample_fractions",
    "importance",
    "rf_n_estimators",
    "test_size",
    "pfi_repeats",
    "shap_rows",
    "rbo_p",
    "permutation_draws",
)

#: Columns of :attr:`ImportanceStudy.replicates` and :attr:`ImportanceStudy.real`.
REPLICATE_COLUMNS = [
    "dataset",
    "generator",
    "level",
    "rep",
    "method",
    "failed",
    *MEASURES,
    "auc_synthetic",
    "auc_cross",
    "auc_real",
    "rows",
    "iterations",
    "importance",
]
REAL_COLUMNS = ["dataset", "rep", "method", "auc_real", "importance", "rbo", "corr_rbo", "cosine"]


@dataclass(frozen=True)
class ImportanceStudy:
    """The tables of :func:`run_importance_study`.

    Attributes
    ----------
    replicates : DataFrame
        One row per synthetic replicate × importance method, columns :data:`REPLICATE_COLUMNS`:
        the cell (``dataset``, ``generator``, ``level``: ε, subsample fraction or NaN for
        independent resampling), ``rep``, ``method``, ``failed`` (no forest could be trained),
        the similarity measures of its importances to the real ones (:data:`~.models.MEASURES`),
        the AUCs (synthetic test split, cross on the real test split, real), the engineered
        synthetic ``rows``, the generator's ``iterations`` and the ``importance`` scores as
        JSON (:func:`~.grid.similarity`).
    real : DataFrame
        One row per real replicate × method, columns :data:`REAL_COLUMNS`: the real forest's
        AUC and importances, and the random-permutation baseline's ``rbo``, ``corr_rbo`` and
        ``cosine`` (:func:`~.grid.real_cell`).
    summary : DataFrame
        :func:`~.grid.summarize` of ``replicates``: mean and sd of every measure per dataset,
        generator, level and method, with the replicates ``n`` and the ``failed`` ones.
    n_models : int
        Random forests trained: one per synthetic replicate and one per real replicate.
    """

    replicates: pd.DataFrame
    real: pd.DataFrame
    summary: pd.DataFrame
    n_models: int


def study_cells(params: Mapping) -> tuple[list[dict], list[dict]]:
    """The synthetic cells (for :func:`~.grid.importance_cell`) and the real cells (for
    :func:`~.grid.real_cell`, one per dataset) of the chapter's grid.

    The synthetic cells: MST and AIM (``beyond_generators``) at ``beyond_epsilon`` on
    ``beyond_datasets``; then PATE-CTGAN (the slowest cells first, for the load balance) at
    ``pate_epsilon`` on ``pate_datasets``, each PrivBayes of ``privbayes_variants`` at
    ``privbayes_epsilon``, independent resampling and the subsamples at
    ``subsample_fractions`` (where ``baselines`` names them) on ``datasets``. Every cell
    carries the preset's model keys (``seed``, ``methods`` = ``importance``, ``rf_n_estimators``, …).

    Raises TypeError or ValueError as :func:`run_importance_study`.
    """
    check_parameters(params, IMPORTANCE_PARAMETERS)
    levels = {"pate_ctgan": list(params["pate_epsilon"])}
    levels.update({v: list(params["privbayes_epsilon"]) for v in params["privbayes_variants"]})
    if "independent" in params["baselines"]:
        levels["independent"] = [None]
    if "subsample" in params["baselines"]:
        levels["subsample"] = list(params["subsample_fractions"])
    common = {
        "seed": params["seed"],
        "methods": list(params["importance"]),
        **{
            k: params[k]
            for k in (
                "rf_n_estimators",
                "test_size",
                "pfi_repeats",
                "shap_rows",
                "rbo_p",
                "permutation_draws",
                "privbayes_degree",
                "privbayes_beta",
                "pate_max_iter",
                "delta",
            )
        },
    }
    cells = build_grid(
        datasets_=params["beyond_datasets"],
        generators={g: list(params["beyond_epsilon"]) for g in params["beyond_generators"]},
        pate_datasets=[],
        extra=common,
    )
    cells += build_grid(
        datasets_=params["datasets"],
        generators=levels,
        pate_datasets=params["pate_datasets"],
        extra=common,
    )
    names = [*params["datasets"], *params["beyond_datasets"], *params["pate_datasets"]]
    real_cells = [{"dataset": d, **common} for d in dict.fromkeys(names)]
    return cells, real_cells


def run_importance_study(
    params: Mapping, *, n_jobs=None, dask=None, cache_dir=None, progress: bool = True
) -> ImportanceStudy:
    """Every synthesizer and baseline of ``params`` against the real data, ``n_reps``
    replicates a cell: the paper's App. A pipeline (real and synthetic forests, their
    importances, RBO, corrRBO, cosine, L2 and KL of the two).

    Parameters
    ----------
    params : mapping
        The chapter's parameters :data:`IMPORTANCE_PARAMETERS` (the keys of the chapter's
        presets: ``seed`` int ≥ 0, ``n_reps`` int ≥ 1, dataset and generator names of
        :data:`~.data.DATASETS` and :data:`~.generators.GENERATORS`, ε > 0 of the DP
        generators (``delta``: δ of MST and AIM, add/remove-one), subsample fractions in
        (0, 1], the importance ``methods`` and the model's settings). Other keys are ignored.
    n_jobs, dask, cache_dir, progress
        Passed on to :func:`synthtrust.run.experiment.run_grid` (they change the speed, never a
        number).

    Returns
    -------
    ImportanceStudy

    Raises
    ------
    TypeError
        ``params`` is not a mapping.
    ValueError
        ``params`` lacks a key of :data:`IMPORTANCE_PARAMETERS`; an unknown dataset or
        generator, or a level outside its range (:func:`~.grid.build_grid`).

    References
    ----------
    Giles et al. (2022) [``giles2022``], App. A; Webber et al. (2010) [``webber2010``] (RBO).
    """
    cells, real_cells = study_cells(params)
    options = {
        "n_jobs": n_jobs,
        "dask": dask,
        "cache_dir": cache_dir,
        "chunk_size": 1,
        "progress": progress,
    }
    reps, seed = params["n_reps"], params["seed"]
    real = run_grid(real_cell, real_cells, reps, seed, warm_up=warm_up_for(real_cells), **options)
    # each worker loads only what its cells need (MST and AIM: mbi; PATE-CTGAN: PyTorch)
    synthetic = run_grid(importance_cell, cells, reps, seed, warm_up_of=_warm_up_of, **options)
    raw = similarity(synthetic, real)[REPLICATE_COLUMNS]
    real = real[REAL_COLUMNS]
    first = params["importance"][0]
    n_models = len(raw[raw.method == first]) + len(real) // len(params["importance"])
    return ImportanceStudy(replicates=raw, real=real, summary=summarize(raw), n_models=n_models)


def _warm_up_of(cell: dict):
    """A synthetic cell's :class:`~.grid.WarmUp` (``run_grid``'s ``warm_up_of``)."""
    return warm_up_for([cell])
