"""The study functions of chapter 3 (``run_protocol_study``, ``run_adult_study``): the one call
per study that the chapter's folded cells make.

Oracle: the chapter's inline code before these functions existed (the grid built from the
preset's values, ``run_grid`` over the repetition groups with the same cell function, seed and
chunking, the bookkeeping columns dropped, then :func:`~.benchmark.summarize`), run on a tiny
grid; the functions must give the same frames, value for value.
"""

from __future__ import annotations

import pandas as pd
import pytest

from synthtrust.run.experiment import run_grid
from synthtrust.studies.evaluation_protocols import benchmark as ep
from synthtrust.studies.evaluation_protocols import study

#: A tiny grid: one dataset, a DP generator and a baseline, two ε, two repetitions except the
#: bootstrap's one on Diabetes (a second repetition group).
TINY = {
    "seed": 11,
    "n_reps": 2,
    "generator_reps": {"bootstrap": {"pima_diabetes": 1}},
    "datasets": ["pima_diabetes"],
    "max_rows": 300,
    "epsilon": [1, 10],
    "delta": 1e-5,
    "generators": ["privbayes"],
    "baselines": ["bootstrap"],
    "classifiers": ["linear_svm"],
    "adult_generators": [],
}


def _inline_protocol_study(p: dict) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """The chapter's former "Run" cell, verbatim but for the variable names."""
    cells = ep.build_grid(
        datasets_=p["datasets"],
        generators=list(p["generators"]) + list(p["baselines"]),
        epsilon=p["epsilon"],
        delta=p["delta"],
        classifiers=p["classifiers"],
        max_rows=p["max_rows"],
    )
    groups: dict[int, list[dict]] = {}  # the former repetition groups, one run_grid each
    for cell in cells:
        reps = p["generator_reps"].get(cell["generator"], {}).get(cell["dataset"], p["n_reps"])
        groups.setdefault(reps, []).append(cell)
    raw = pd.concat(
        [
            run_grid(ep.repetition_cell, group, reps, p["seed"], n_jobs=1, chunk_size=1)
            for reps, group in groups.items()
        ],
        ignore_index=True,
    )
    raw = raw.drop(columns=["classifiers", "max_rows", "delta"])
    return raw, ep.summarize(raw), sum(len(group) * reps for reps, group in groups.items())


@pytest.fixture(scope="module")
def tiny_study():
    return study.run_protocol_study(TINY, n_jobs=1, progress=False)


def test_protocol_study_equals_the_former_inline_code(tiny_study):
    raw, summary, n_runs = _inline_protocol_study(TINY)
    pd.testing.assert_frame_equal(tiny_study.repetitions, raw)
    pd.testing.assert_frame_equal(tiny_study.errors, summary)
    # privbayes: 2 ε × 2 repetitions; bootstrap: 2 ε × 1 repetition
    assert tiny_study.n_runs == n_runs == 6
    counts = tiny_study.repetitions.groupby("generator").rep.nunique()
    assert counts.to_dict() == {"bootstrap": 1, "privbayes": 2}
    # 4 rows per repetition: protocols A and B × accuracy and F1 of the one classifier
    assert len(tiny_study.repetitions) == 4 * n_runs
    assert set(tiny_study.errors.n) == {1, 2}


def test_protocol_study_ignores_the_runtime_and_other_keys(tiny_study):
    again = study.run_protocol_study(
        {**TINY, "adult_generators": ["mst"], "results_dir": "x"}, n_jobs=1, progress=False
    )
    pd.testing.assert_frame_equal(again.repetitions, tiny_study.repetitions)


def test_protocol_study_names_a_missing_parameter_and_bad_values():
    with pytest.raises(ValueError, match=r"params lacks \['baselines'\]"):
        study.run_protocol_study({k: v for k, v in TINY.items() if k != "baselines"})
    with pytest.raises(TypeError, match="params must be a mapping"):
        study.run_protocol_study(list(TINY))
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        study.run_protocol_study({**TINY, "generators": ["gan"]})


def test_adult_study_equals_the_former_inline_code():
    """The bootstrap is adult's fast generator (a resample: no model to fit)."""
    params = {**TINY, "adult_generators": ["bootstrap", "independent"]}
    got = study.run_adult_study(params, n_jobs=1, progress=False)
    cells = [{"generator": g, "epsilon": 1.0, "delta": 1e-9} for g in params["adult_generators"]]
    expected = run_grid(ep.adult_cell, cells, 1, params["seed"], n_jobs=1)
    expected = expected[["generator", "tvd_2way", "fit_sample_s"]]
    assert list(got.columns) == ["generator", "tvd_2way", "fit_sample_s"]
    pd.testing.assert_frame_equal(
        got.drop(columns="fit_sample_s"), expected.drop(columns="fit_sample_s")
    )
    # the resample is near the non-private floor, the independent marginals far above it
    tvd = got.set_index("generator").tvd_2way
    assert 0.010 < tvd["bootstrap"] < 0.020 < tvd["independent"]


def test_adult_study_without_generators_is_an_empty_table():
    got = study.run_adult_study({"seed": 0, "adult_generators": []})
    assert got.empty and list(got.columns) == ["generator", "tvd_2way", "fit_sample_s"]
    with pytest.raises(ValueError, match=r"params lacks \['adult_generators'\]"):
        study.run_adult_study({"seed": 0})
