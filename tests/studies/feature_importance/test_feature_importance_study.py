"""The study function of chapter 4 (``run_importance_study``, with its grid ``study_cells``):
the one call that the chapter's folded "Run" cell makes.

Oracle: the chapter's inline code before the function existed (the levels, the common keys and
the two grids built by hand, ``run_grid`` over ``real_cell`` and ``importance_cell`` with the
same seed, chunking and warm-up, then ``similarity`` and ``summarize``), run on a tiny grid;
the function must give the same frames, value for value.
"""

from __future__ import annotations

import pandas as pd
import pytest

from synthtrust.run.experiment import run_grid
from synthtrust.studies import feature_importance as fi
from synthtrust.studies.feature_importance import study

#: A tiny grid: one simulated dataset, PrivBayes at one ε, MST beyond the paper on the same
#: dataset, independent resampling and one subsample, two importance methods, tiny forests.
TINY = {
    "seed": 5,
    "n_reps": 2,
    "datasets": ["artificial_5"],
    "privbayes_variants": ["privbayes"],
    "privbayes_epsilon": [1],
    "privbayes_degree": 2,
    "privbayes_beta": 0.5,
    "pate_datasets": [],
    "pate_epsilon": [10],
    "pate_max_iter": 5,
    "beyond_generators": ["mst"],
    "beyond_datasets": ["artificial_5"],
    "beyond_epsilon": [1],
    "delta": 1e-6,
    "baselines": ["independent", "permutation", "subsample"],
    "subsample_fractions": [0.1],
    "importance": ["shap", "mdi"],
    "rf_n_estimators": 5,
    "test_size": 0.3,
    "pfi_repeats": 2,
    "shap_rows": 20,
    "rbo_p": 0.8,
    "permutation_draws": 20,
}


def _inline_study(p: dict):
    """The chapter's former "Run" cell, verbatim but for the preset's values read from ``p``."""
    levels = {"pate_ctgan": list(p["pate_epsilon"])}
    levels.update({v: list(p["privbayes_epsilon"]) for v in p["privbayes_variants"]})
    if "independent" in p["baselines"]:
        levels["independent"] = [None]
    if "subsample" in p["baselines"]:
        levels["subsample"] = list(p["subsample_fractions"])
    common = {
        "seed": p["seed"],
        "methods": list(p["importance"]),
        "rf_n_estimators": p["rf_n_estimators"],
        "test_size": p["test_size"],
        "pfi_repeats": p["pfi_repeats"],
        "shap_rows": p["shap_rows"],
        "rbo_p": p["rbo_p"],
        "permutation_draws": p["permutation_draws"],
        "privbayes_degree": p["privbayes_degree"],
        "privbayes_beta": p["privbayes_beta"],
        "pate_max_iter": p["pate_max_iter"],
        "delta": p["delta"],
    }
    cells = fi.build_grid(
        datasets_=p["beyond_datasets"],
        generators={g: list(p["beyond_epsilon"]) for g in p["beyond_generators"]},
        pate_datasets=[],
        extra=common,
    )
    cells += fi.build_grid(
        datasets_=p["datasets"], generators=levels, pate_datasets=p["pate_datasets"], extra=common
    )
    real_cells = [
        {"dataset": d, **common}
        for d in dict.fromkeys([*p["datasets"], *p["beyond_datasets"], *p["pate_datasets"]])
    ]
    options = {"n_jobs": 1, "chunk_size": 1, "warm_up": fi.warm_up, "progress": False}
    real = run_grid(fi.real_cell, real_cells, p["n_reps"], p["seed"], **options)
    synthetic = run_grid(fi.importance_cell, cells, p["n_reps"], p["seed"], **options)
    raw = fi.similarity(synthetic, real)[
        [
            "dataset",
            "generator",
            "level",
            "rep",
            "method",
            "failed",
            *fi.MEASURES,
            "auc_synthetic",
            "auc_cross",
            "auc_real",
            "rows",
            "iterations",
            "importance",
        ]
    ]
    real = real[["dataset", "rep", "method", "auc_real", "importance", "rbo", "corr_rbo", "cosine"]]
    n_models = len(raw[raw.method == p["importance"][0]]) + len(real) // len(p["importance"])
    return cells, real_cells, raw, real, fi.summarize(raw), n_models


@pytest.fixture(scope="module")
def inline():
    return _inline_study(TINY)


@pytest.fixture(scope="module")
def tiny_study():
    return study.run_importance_study(TINY, n_jobs=1, progress=False)


def test_the_grid_is_the_chapters_former_grid(inline):
    cells, real_cells = study.study_cells(TINY)
    assert cells == inline[0] and real_cells == inline[1]
    # MST first (beyond the paper), then PrivBayes, independent resampling and the subsample
    assert [c["generator"] for c in cells] == ["mst", "privbayes", "independent", "subsample"]
    assert [c["dataset"] for c in real_cells] == ["artificial_5"]


def test_importance_study_equals_the_former_inline_code(inline, tiny_study):
    _, _, raw, real, summary, n_models = inline
    pd.testing.assert_frame_equal(tiny_study.replicates, raw)
    pd.testing.assert_frame_equal(tiny_study.real, real)
    pd.testing.assert_frame_equal(tiny_study.summary, summary)
    # 4 synthetic cells x 2 replicates, and 2 real replicates: one forest each
    assert tiny_study.n_models == n_models == 10
    assert len(tiny_study.replicates) == 4 * 2 * 2  # x 2 importance methods
    assert list(tiny_study.replicates.columns) == study.REPLICATE_COLUMNS


def test_importance_study_ignores_other_keys(tiny_study):
    cells, real_cells = study.study_cells({**TINY, "results_dir": "x", "adult_generators": []})
    assert (cells, real_cells) == study.study_cells(TINY)


def test_importance_study_names_a_missing_parameter_and_bad_values():
    with pytest.raises(ValueError, match=r"params lacks \['rbo_p'\]"):
        study.run_importance_study({k: v for k, v in TINY.items() if k != "rbo_p"})
    with pytest.raises(TypeError, match="params must be a mapping"):
        study.run_importance_study(list(TINY))
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        study.run_importance_study({**TINY, "privbayes_variants": ["gan"]})
    with pytest.raises(ValueError, match="subsample fraction must be in"):
        study.run_importance_study({**TINY, "subsample_fractions": [1.5]})


def test_each_synthetic_cell_warms_up_only_what_it_needs():
    cells = [
        {"dataset": "adult", "generator": "mst", "level": 1.0},
        {"dataset": "adult", "generator": "aim", "level": 1.0},
        {"dataset": "adult", "generator": "pate_ctgan", "level": 10.0},
        {"dataset": "adult", "generator": "independent", "level": None},
        {"dataset": "polish", "generator": "privbayes", "level": 0.5},
    ]
    assert [study._warm_up_of(c) for c in cells] == [
        fi.WarmUp(mbi=True, torch=False),
        fi.WarmUp(mbi=True, torch=False),
        fi.WarmUp(mbi=False, torch=True),
        fi.WarmUp(mbi=False, torch=False),
        fi.WarmUp(mbi=False, torch=False),
    ]
    assert fi.warm_up_for([{"dataset": "adult"}]) == fi.WarmUp(mbi=False, torch=False)
    assert fi.warm_up == fi.WarmUp()  # the study's whole warm-up: every library
