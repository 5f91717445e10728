"""Tests of the study functions of chapter 1 (``run_error_rate_study``, ``run_gan_study``,
``run_multivariate_study``): the one call per study that the chapter's folded cells make.

Oracle: the chapter's inline code before these functions existed (the grid built by hand from
the preset's values, ``run_grid`` with the same function, seed and chunking, then the error
rates), run on a tiny grid; the functions must give the same frames, value for value.
"""

from __future__ import annotations

import pandas as pd
import pytest

from synthtrust.run.experiment import run_grid
from synthtrust.studies.hypothesis_validity import gan as hg
from synthtrust.studies.hypothesis_validity import multivariate as hm
from synthtrust.studies.hypothesis_validity import simulation as hv

#: A tiny preset: the keys of chapters/params/hypothesis_validity/*.yaml.
TINY = {
    "seed": 7,
    "n_reps": 4,
    "alpha": 0.05,
    "epsilon": [1, 10],
    "sizes": [50],
    "methods": ["real", "dp_mwu", "perturbed_histogram", "private_pgm", "smoothed_histogram"],
    "smoothed_original_size": 2000,
    "smoothed_sizes": [50],
    "cardio_sizes": [100],
    "dp_mwu_delta": 1.0e-6,
    "dp_mwu_n_sim": 50,
    "pgm_max_iter": 50,
    "gaussian_bins": [2, 100, 1, 50],
    "cardio_bins": [18, 40, 1, 25],
    "cardio_variable": "bmi",
    "cardio_group": "cardio",
    "multivariate_methods": ["real", "mwem"],
    "multivariate_sizes": [50],
    "multivariate_epsilon": [1],
    "multivariate_n_reps": 3,
    "multivariate_pgm_max_iter": 50,
    "gan_generators": 1,
    "gan_n": 800,
    "gan_epsilon": [10],
    "gan_sizes": [50],
    "gan_sets": 1,
    "gan_pretrain_iterations": 1,
}


def _old_error_rate_run(p: dict, data: list[str]):
    """The chapter's former inline ``run(data)``."""
    cardio = data == ["cardio"]
    cells = hv.build_grid(
        data=data,
        methods=p["methods"],
        sizes=p["cardio_sizes"] if cardio else p["sizes"],
        epsilon=p["epsilon"],
        smoothed_original_size=p["smoothed_original_size"],
        smoothed_sizes=p["smoothed_sizes"],
        alpha=p["alpha"],
        delta=p["dp_mwu_delta"],
        n_sim=p["dp_mwu_n_sim"],
        pgm_max_iter=p["pgm_max_iter"],
        bins=p["cardio_bins"] if cardio else p["gaussian_bins"],
        variable=p["cardio_variable"],
        group=p["cardio_group"],
    )
    raw = run_grid(
        hv.simulate_cell, cells, p["n_reps"], p["seed"], n_jobs=1, chunk_size=50, progress=False
    )
    return raw, hv.error_rates(raw)


@pytest.mark.parametrize("data", [["nonsignal", "signal"], ["cardio"]])
def test_error_rate_study_equals_the_former_inline_code(data):
    raw, rates = hv.run_error_rate_study(TINY, data, n_jobs=1)
    want_raw, want_rates = _old_error_rate_run(TINY, data)
    pd.testing.assert_frame_equal(raw, want_raw)
    pd.testing.assert_frame_equal(rates, want_rates)
    # the cardio data run on their own sizes, the Gaussian ones on theirs
    sizes = TINY["cardio_sizes"] if data == ["cardio"] else TINY["sizes"]
    plain = rates[rates.method != "smoothed_histogram"]
    assert sorted(set(plain.n)) == sizes
    assert set(rates.data) == set(data)


def test_error_rate_study_follows_its_parameters():
    """Another seed gives other replicates, and more replicates more rows: the function reads
    the preset, it does not fix it."""
    base, _ = hv.run_error_rate_study(TINY, ["nonsignal"], n_jobs=1)
    other, _ = hv.run_error_rate_study({**TINY, "seed": 8}, ["nonsignal"], n_jobs=1)
    more, rates = hv.run_error_rate_study({**TINY, "n_reps": 6}, ["nonsignal"], n_jobs=1)
    assert not base.pvalue.equals(other.pvalue)
    assert len(more) == len(base) * 6 // 4
    assert (rates.n_reps == 6).all()


def test_error_rate_study_errors_name_the_parameter():
    with pytest.raises(KeyError, match="n_reps"):
        hv.run_error_rate_study({k: v for k, v in TINY.items() if k != "n_reps"})
    with pytest.raises(ValueError, match="data must be"):
        hv.run_error_rate_study(TINY, ["nonsignal", "cardio"])


def test_multivariate_study_equals_the_former_inline_code():
    raw, rates = hm.run_multivariate_study(TINY, n_jobs=1)
    cells = hm.build_multivariate_grid(
        methods=TINY["multivariate_methods"],
        sizes=TINY["multivariate_sizes"],
        epsilon=TINY["multivariate_epsilon"],
        alpha=TINY["alpha"],
        pgm_max_iter=TINY["multivariate_pgm_max_iter"],
    )
    want = run_grid(
        hm.multivariate_cell,
        cells,
        TINY["multivariate_n_reps"],
        TINY["seed"],
        n_jobs=1,
        chunk_size=50,
        progress=False,
    )
    pd.testing.assert_frame_equal(raw, want)
    pd.testing.assert_frame_equal(rates, hm.error_rates(want))
    assert set(rates.method) == set(TINY["multivariate_methods"])
    with pytest.raises(KeyError, match="multivariate_n_reps"):
        hm.run_multivariate_study({k: v for k, v in TINY.items() if k != "multivariate_n_reps"})


def test_gan_study_equals_the_former_inline_code():
    raw, rates = hg.run_gan_study(TINY, n_jobs=1)

    def gan_cells(data, bins):
        return hg.build_gan_grid(
            data=data,
            n=TINY["gan_n"],
            epsilons=TINY["gan_epsilon"],
            sizes=TINY["gan_sizes"],
            n_sets=TINY["gan_sets"],
            alpha=TINY["alpha"],
            gan={"pretrain_iterations": TINY["gan_pretrain_iterations"]},
            bins=bins,
            variable=TINY["cardio_variable"],
            group=TINY["cardio_group"],
        )

    cells = gan_cells(["nonsignal", "signal"], TINY["gaussian_bins"])
    cells += gan_cells(["cardio"], TINY["cardio_bins"])
    want = run_grid(
        hg.gan_cell,
        cells,
        TINY["gan_generators"],
        TINY["seed"],
        n_jobs=1,
        chunk_size=1,
        progress=False,
    )
    pd.testing.assert_frame_equal(raw, want)
    pd.testing.assert_frame_equal(rates, hg.gan_error_rates(want))
    assert set(raw.data) == {"nonsignal", "signal", "cardio"}
    with pytest.raises(KeyError, match="gan_n"):
        hg.run_gan_study({k: v for k, v in TINY.items() if k != "gan_n"})
