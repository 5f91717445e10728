"""Tests of the study functions of chapter 2 (``run_score_study``, ``run_generator_study``,
``run_dp_study``): the one call per study that the chapter's folded cells make.

Oracle: the chapter's inline code before these functions existed (the grid built by hand from
the preset's values, ``run_grid`` with the same cell function, seed and chunking, then the
tables beside the paper), run on a tiny grid; the functions must give the same frames, value
for value.
"""

from __future__ import annotations

import pandas as pd
import pytest

from synthtrust.run.experiment import run_grid
from synthtrust.studies.holdout_fidelity_privacy import generators as hg
from synthtrust.studies.holdout_fidelity_privacy import scores as hf

#: A tiny preset: the keys of chapters/params/holdout_fidelity_privacy/*.yaml.
TINY = {
    "seed": 3,
    "datasets": ["online-shoppers"],
    "flip_rates": [0.2, 0.8],
    "flip_rows": 500,
    "published": False,
    "dp_methods": ["perturbed_histogram"],
    "dp_epsilon": [1, 10],
    "generators": ["cart", "copula"],
    "generator_rows": 500,
    "ctgan_epochs": 1,
    "generator_epsilon": 1,
    "generator_delta": 1.0e-5,
}


def _without(key: str) -> dict:
    return {k: v for k, v in TINY.items() if k != key}


@pytest.fixture(scope="module")
def scored():
    return hf.run_score_study(TINY, n_jobs=1)


def test_score_study_equals_the_former_inline_code(scored):
    scores, side = scored
    cells = hf.build_grid(
        datasets_=TINY["datasets"],
        flip_rates=TINY["flip_rates"],
        flip_rows=TINY["flip_rows"],
        published=TINY["published"],
    )
    want = run_grid(hf.score_cell, cells, 1, TINY["seed"], n_jobs=1, chunk_size=1, progress=False)
    pd.testing.assert_frame_equal(scores, want)
    pd.testing.assert_frame_equal(side, hf.beside_paper(want))
    assert list(scores.label) == ["Holdout", "Flip 20%", "Flip 80%"]
    # the preset's rows reach the Flip tables
    assert (scores[scores.source == "flip"].n_synthetic == TINY["flip_rows"]).all()
    with pytest.raises(KeyError, match="flip_rates"):
        hf.run_score_study(_without("flip_rates"), n_jobs=1)


def test_generator_study_equals_the_former_inline_code(scored):
    scores, _ = scored
    gens, comparison = hg.run_generator_study(TINY, scores, n_jobs=1)
    cells = hg.build_grid(
        datasets_=TINY["datasets"],
        generators=TINY["generators"],
        rows=TINY["generator_rows"],
        ctgan_epochs=TINY["ctgan_epochs"],
        epsilon=TINY["generator_epsilon"],
        delta=TINY["generator_delta"],
    )
    want = run_grid(hg.score_cell, cells, 1, TINY["seed"], n_jobs=1, chunk_size=1, progress=False)
    pd.testing.assert_frame_equal(gens, want)
    want_comparison = hf.generator_comparison(pd.concat([scores, want], ignore_index=True))
    pd.testing.assert_frame_equal(comparison, want_comparison)
    assert list(gens.label) == TINY["generators"]
    assert (gens.n_synthetic == TINY["generator_rows"]).all()
    with pytest.raises(KeyError, match="generator_rows"):
        hg.run_generator_study(_without("generator_rows"), scores, n_jobs=1)


def test_dp_study_equals_the_former_inline_code():
    dp = hf.run_dp_study(TINY, n_jobs=1)
    cells = [{"method": "holdout", "epsilon": None}] + [
        {"method": m, "epsilon": float(e)} for m in TINY["dp_methods"] for e in TINY["dp_epsilon"]
    ]
    want = run_grid(
        hf.dp_score_cell, cells, 1, TINY["seed"], n_jobs=1, chunk_size=1, progress=False
    )
    pd.testing.assert_frame_equal(dp, want)
    assert list(dp.method) == ["holdout", "perturbed_histogram", "perturbed_histogram"]
    # another seed draws other DP tables (the holdout row stays)
    other = hf.run_dp_study({**TINY, "seed": 4}, n_jobs=1)
    assert other.tvd_3.iloc[0] == dp.tvd_3.iloc[0]
    assert not other.tvd_3.iloc[1:].equals(dp.tvd_3.iloc[1:])
    with pytest.raises(KeyError, match="dp_epsilon"):
        hf.run_dp_study(_without("dp_epsilon"), n_jobs=1)
