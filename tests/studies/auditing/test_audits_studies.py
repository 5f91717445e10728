"""Tests of the study runners of ``synthtrust.studies.auditing`` (``card_dimensions``,
``run_audit_study``, ``run_power_study``): each against the chapter's former inline code on a
tiny grid (the same cells, seeds and sorting by hand), and the cards against the paper's
dimensions (Houssiau et al. 2022, §4.1).
"""

import numpy as np
import pandas as pd
import pytest

from synthtrust.run.experiment import run_grid
from synthtrust.studies.auditing import audits as au

TIMES = ["seconds"]


def test_card_dimensions_against_the_cards_and_the_paper():
    dims = au.card_dimensions([3, 1, 1], basis_seed=4, n_candidates=50)
    assert list(dims.application) == ["App. 1", "App. 3"]
    app1, app3 = dims.iloc[0], dims.iloc[1]
    # App. 1: 10 × 10 × 2 cells, three declared pairs, dim Φ = 1 + 19 + 99, Φ⊥ = 9 · 9 · 1
    assert (app1.columns, app1.M, app1["declared marginals"]) == (3, 200, 3)
    assert (app1["dim Φ"], app1["probed k"]) == (119, 81)
    # App. 3: seven attributes, all 21 pairs; 50 random 3-way candidates add ≤ 50 directions
    assert (app3.columns, app3.M, app3["declared marginals"]) == (7, 1_560_000, 21)
    assert app3["dim Φ"] == au.card(3).phi_dimension
    assert app3["probed k"] == au.basis(3, 4, n_candidates=50).dim <= 50
    with pytest.raises(ValueError, match="application"):
        au.card_dimensions([4])


def _old_audit_study(n_reps, seed, **grid):
    """The chapter's inline code before ``run_audit_study``."""
    cells = au.build_grid(**grid, basis_seed=seed)
    cells.sort(key=lambda c: -c["copies"] * (2 if c["app"] == 2 else 1))
    raw = run_grid(au.audit_cell, cells, n_reps, seed, n_jobs=1, chunk_size=1, progress=False)
    raw = raw.sort_values(
        ["app", "generator", "rep"],
        key=lambda s: (
            s.map({g: i for i, g in enumerate(au.GENERATORS)}) if s.name == "generator" else s
        ),
    )
    return raw, au.summarize(raw)


def test_run_audit_study_is_the_chapters_grid():
    grid = {
        "applications": [1],
        "generators": [["cart", "ipf_dishonest", "ipf_honest"], [], []],
        "copies": [20, 20, 10],
        "k_select": 2,
        "k_audit": 3,
        "beyond_generators": ["mst"],
        "beyond_applications": [1],
    }
    raw, summary = au.run_audit_study(n_reps=2, seed=7, n_jobs=1, **grid)
    old_raw, old_summary = _old_audit_study(2, 7, **grid)
    pd.testing.assert_frame_equal(raw.drop(columns=TIMES), old_raw.drop(columns=TIMES))
    pd.testing.assert_frame_equal(
        summary.drop(columns=TIMES, errors="ignore"),
        old_summary.drop(columns=TIMES, errors="ignore"),
    )
    # sorted by the order of GENERATORS, not as listed: honest IPF first, MST last
    assert (
        list(raw.generator)
        == ["ipf_honest"] * 2 + ["ipf_dishonest"] * 2 + ["cart"] * 2 + ["mst"] * 2
    )
    assert list(raw.rep) == [0, 1] * 4
    assert (raw.df == 4).all() and (raw.copies == 20).all()
    # another root seed gives other audits
    other, _ = au.run_audit_study(n_reps=2, seed=8, n_jobs=1, **grid)
    assert not np.allclose(other.t.to_numpy(), raw.t.to_numpy())


def test_fewer_audits_for_one_application_are_the_first_audits_of_the_full_grid():
    grid = {
        "applications": [1, 2],
        "generators": [["ipf_honest", "cart"], ["ipf_dishonest"], []],
        "copies": [20, 20, 10],
        "k_select": 2,
        "k_audit": 3,
        "beyond_generators": [],
    }
    raw, summary = au.run_audit_study(n_reps=3, seed=7, application_audits={2: 1}, n_jobs=1, **grid)
    full, _ = _old_audit_study(3, 7, **grid)
    kept = full[(full.app != 2) | (full.rep < 1)].reset_index(drop=True)
    pd.testing.assert_frame_equal(
        raw.reset_index(drop=True).drop(columns=TIMES), kept.drop(columns=TIMES)
    )
    assert summary.set_index(["app", "generator"])["audits"].to_dict() == {
        (1, "ipf_honest"): 3,
        (1, "cart"): 3,
        (2, "ipf_dishonest"): 1,
    }
    with pytest.raises(ValueError, match=r"application_audits\[2\] must be an int >= 1"):
        au.run_audit_study(n_reps=1, seed=0, application_audits={2: 0}, **grid)
    with pytest.raises(TypeError, match="application_audits must be a dict"):
        au.run_audit_study(n_reps=1, seed=0, application_audits=[2], **grid)


def test_run_audit_study_refuses_a_bad_grid():
    with pytest.raises(ValueError, match="generator"):
        au.run_audit_study(n_reps=1, seed=0, applications=[1], generators=["nope"])


def test_run_power_study_is_the_chapters_grid():
    kw = {"leaks": [0.0, 0.5], "ks": [2, 3], "copies": 20, "alpha": 0.05}
    raw, curve = au.run_power_study(**kw, audits=4, seed=3, n_jobs=1)
    cells = au.power_grid(**kw)
    old = run_grid(au.power_cell, cells, 4, 3, n_jobs=1, chunk_size=1, progress=False)
    pd.testing.assert_frame_equal(raw.drop(columns=TIMES), old.drop(columns=TIMES))
    pd.testing.assert_frame_equal(curve, au.power_curve(old))
    assert list(curve.audits) == [4] * 4
    # the rates by hand from the audits
    rates = raw.groupby(["leak", "k"]).rejected.mean().to_numpy()
    np.testing.assert_allclose(curve.rate.to_numpy(), rates)
    with pytest.raises(ValueError, match="leak"):
        au.run_power_study(**{**kw, "leaks": [1.5]}, audits=1, seed=0, n_jobs=1)
