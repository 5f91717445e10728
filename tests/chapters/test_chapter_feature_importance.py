"""Chapter 4 (feature importance, Giles et al. 2022): presets, the grid's summary and bad input,
one replicate end to end, the smoke run's outputs and its verdicts. The study's measures, the
AUC conventions and the generators: tests/studies/feature_importance/."""

import json

import numpy as np
import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.run import runner
from synthtrust.run.experiment import run_grid
from synthtrust.studies import feature_importance as fi

NAME = "feature_importance"


def test_presets_share_keys_and_paper_preset_is_the_published_study():
    params = {p: runner.load_params(NAME, p) for p in ("smoke", "default", "paper")}
    paper = params["paper"]
    assert paper["n_reps"] == 25 and paper["rf_n_estimators"] == 150 and paper["test_size"] == 0.3
    assert paper["rbo_p"] == 0.8 and paper["privbayes_degree"] == 3
    assert paper["privbayes_beta"] == 0.5 and paper["shap_rows"] is None
    assert sorted(paper["datasets"]) == sorted(fi.DATASETS)
    assert paper["pate_epsilon"] == sorted(fi.PAPER_TABLE1)
    assert paper["pate_datasets"] == ["adult", "household", "polish"]
    assert paper["importance"] == ["mdi", "permutation", "shap"]
    # the website's PATE-CTGAN at every ε of its PrivBayes, on Polish and Household (issue 25)
    default = params["default"]
    assert sorted(default["pate_epsilon"]) == sorted(default["privbayes_epsilon"])
    assert {"polish", "household"} <= set(default["pate_datasets"])
    for preset in params.values():
        fi.build_grid(
            datasets_=preset["datasets"],
            generators={"privbayes": preset["privbayes_epsilon"]},
            pate_datasets=preset["pate_datasets"],
            extra={},
        )


def test_pate_ctgan_at_every_paper_epsilon_has_an_affordable_noise():
    """Table 1's moments orders make every ε of the paper preset accountable: with the class's
    default order (1000) ε = 0.001 and 0.01 raise (the order must exceed ln(1/δ)/ε), which
    stopped the paper preset's synthetic grid (issue 24's --estimate)."""
    from synthtrust.privacy.pate import pate_noise_for_budget

    paper = runner.load_params(NAME, "paper")
    n = 48_842  # all of Adult, more than any training split: the smallest δ = 1/(n·√n)
    delta = 1.0 / (n * np.sqrt(n))
    for eps in fi.PAPER_TABLE1:
        gan = fi.make_generator("pate_ctgan", eps, "adult", paper, 0)
        pate_eps = (1 - gan.cond_epsilon_fraction) * eps
        queries = paper["pate_max_iter"] * gan.student_iters * gan.batch_size
        assert pate_noise_for_budget(pate_eps, delta, queries, gan.moments_order) > 0
    with pytest.raises(ValueError, match="moments_order = 1000 is too small"):
        pate_noise_for_budget(0.9 * 0.01, delta, 3000 * 5 * 64, 1000)


def test_summarize_means_sds_and_failed_runs():
    rows = []
    for rep, (rbo, failed) in enumerate([(0.2, False), (0.4, False), (np.nan, True)]):
        rows.append(
            {
                "dataset": "polish",
                "generator": "privbayes",
                "level": 1.0,
                "rep": rep,
                "method": "shap",
                "failed": failed,
                "rbo": rbo,
                "corr_rbo": rbo,
                "cosine": 0.9,
                "l2": 0.1,
                "kl": 0.01,
                "auc_synthetic": 0.7,
                "auc_cross": 0.6,
                "auc_real": 0.8,
            }
        )
    s = fi.summarize(pd.DataFrame(rows)).iloc[0]
    assert s.n == 3 and s.failed == 1
    assert s.rbo_mean == pytest.approx(0.3) and s.rbo_sd == pytest.approx(np.sqrt(0.02))


def test_grid_rejects_bad_input():
    cells = fi.build_grid(
        datasets_=["polish"],
        generators={"privbayes": [0.1, 1], "independent": [None]},
        pate_datasets=[],
        extra={"seed": 1},
    )
    assert [(c["generator"], c["level"]) for c in cells] == [
        ("privbayes", 0.1),
        ("privbayes", 1.0),
        ("independent", None),
    ]
    assert cells[0]["seed"] == 1
    with pytest.raises(ValueError, match="unknown dataset 'framingham'"):
        fi.build_grid(datasets_=["framingham"], generators={}, pate_datasets=[], extra={})
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        fi.build_grid(datasets_=["polish"], generators={"gan": [1]}, pate_datasets=[], extra={})
    with pytest.raises(ValueError, match="epsilon of privbayes must be > 0, got 0.0"):
        fi.build_grid(
            datasets_=["polish"], generators={"privbayes": [0]}, pate_datasets=[], extra={}
        )
    with pytest.raises(ValueError, match=r"subsample fraction must be in \(0, 1\], got 1.5"):
        fi.build_grid(
            datasets_=["polish"], generators={"subsample": [1.5]}, pate_datasets=[], extra={}
        )


PARAMS = {
    "seed": 3,
    "methods": ["shap", "mdi"],
    "rf_n_estimators": 20,
    "test_size": 0.3,
    "pfi_repeats": 2,
    "shap_rows": 50,
    "rbo_p": 0.8,
    "permutation_draws": 50,
    "privbayes_degree": 2,
    "privbayes_beta": 0.5,
    "pate_max_iter": 5,
    "delta": 1e-6,
}


def _replicate(dataset: str, generator: str, level: float, seed: int = 5) -> pd.DataFrame:
    """One replicate through the chapter's path: real side, synthetic side, similarity."""
    params = {"dataset": dataset, "generator": generator, "level": level, **PARAMS}
    syn = fi.importance_cell(params, [np.random.default_rng(seed)])
    real = fi.real_cell({"dataset": dataset, **PARAMS}, [np.random.default_rng(seed)])
    cols = {"dataset": dataset, "level": level, "rbo_p": PARAMS["rbo_p"]}
    return fi.similarity(syn.assign(**cols), real.assign(dataset=dataset)), real


def test_one_replicate_is_deterministic():
    a, _ = _replicate("polish", "privbayes_ds", 0.1)
    b, _ = _replicate("polish", "privbayes_ds", 0.1)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.method) == ["shap", "mdi"] and not a.failed.any()
    assert (a[["rbo", "corr_rbo", "cosine"]].to_numpy() < 1).all()
    assert (a.rows > 1000).all() and a.auc_real.between(0.5, 1).all()


def test_a_levels_numbers_do_not_depend_on_the_other_levels_of_the_grid():
    """A cell is one (dataset, generator, level) with its own random streams: the ε = 1 rows
    are the same whether the grid also runs ε = 0.1 or not."""

    def run(levels):
        cells = fi.build_grid(
            datasets_=["polish"], generators={"privbayes": levels}, pate_datasets=[], extra=PARAMS
        )
        out = run_grid(fi.importance_cell, cells, 2, 7, n_jobs=1, progress=False)
        return out[out.level == 1.0].reset_index(drop=True)

    both, alone = run([0.1, 1.0]), run([1.0])
    pd.testing.assert_frame_equal(both, alone)
    assert len(alone) == 2 * len(PARAMS["methods"]) and not alone.failed.any()
    assert alone.importance.nunique() == len(alone)  # two replicates, two methods: all differ


def test_a_copy_of_the_real_table_scores_one(monkeypatch):
    """The synthetic side runs the real side's pipeline: a copy gives the same split, forest
    and importances, so every similarity is 1 and the AUCs are the real one."""
    monkeypatch.setattr(
        fi.grid, "_synthesize", lambda name, level, dataset, real, params, rng: (real, np.nan)
    )
    a, real = _replicate("artificial_5", "privbayes", 1.0)
    np.testing.assert_allclose(a[["rbo", "corr_rbo", "cosine"]], 1.0, atol=1e-12)
    np.testing.assert_allclose(a[["l2", "kl"]], 0.0, atol=1e-9)
    np.testing.assert_allclose(a.auc_synthetic, a.auc_real)
    np.testing.assert_allclose(a.auc_cross, a.auc_real)
    assert list(real.method) == ["shap", "mdi"]
    assert real.importance.iloc[0] == a.importance.iloc[0]
    # three features: E[RBO_ext] of a random permutation is the closed form (helper's test);
    # here only that the simulated mean is a probability below 1
    assert (real.rbo > 0.3).all() and (real.rbo < 1).all()


def test_each_row_records_the_iterations_the_generator_ran(monkeypatch):
    """PATE-CTGAN may stop before its budget (its ε spent): the rows say how far it got."""

    class Stopped:
        def fit(self, table):
            self.table_, self.iterations_ = table, 7
            return self

        def sample(self, n):
            return self.table_.sample(n, replace=True, random_state=0)

    plain, _ = _replicate("artificial_5", "independent", None)
    assert plain.iterations.isna().all()
    monkeypatch.setattr(fi.grid, "make_generator", lambda *args: Stopped())
    out, _ = _replicate("artificial_5", "pate_ctgan", 1.0)
    assert (out.iterations == 7).all()


def test_a_synthetic_table_with_one_class_is_a_failed_run(monkeypatch):
    def one_class(name, level, dataset, real, params, rng):
        out = real.copy()
        out[fi.DATASETS[dataset].target] = out[fi.DATASETS[dataset].target].iloc[0]
        return out, np.nan

    monkeypatch.setattr(fi.grid, "_synthesize", one_class)
    out, _ = _replicate("artificial_5", "privbayes", 1.0, seed=1)
    assert out.failed.all() and out.rbo.isna().all() and out.auc_real.notna().all()


def test_similarity_by_hand_and_all_zero_importances_fail():
    """similarity() looks each synthetic row's real replicate up by (dataset, rep, method)."""
    assoc = json.dumps({"columns": ["a", "b", "c"], "data": np.eye(3).tolist()})
    real = pd.DataFrame(
        {
            "dataset": ["d", "d"],
            "rep": [0, 1],
            "method": ["shap", "shap"],
            "auc_real": [0.9, 0.8],
            "importance": ['{"a": 0.5, "b": 0.3, "c": 0.2}', '{"a": 0.2, "b": 0.3, "c": 0.5}'],
            "association": [assoc, assoc],
        }
    )
    syn = pd.DataFrame(
        {
            "dataset": ["d", "d", "d"],
            "level": [0.5, None, None],  # None: independent resampling
            "rbo_p": [0.8, 0.8, 0.8],
            "rep": [1, 0, 0],
            "method": ["shap"] * 3,
            "failed": [False, False, False],
            "importance": ['{"a": 0.5, "b": 0.3, "c": 0.2}'] * 2 + ['{"a": 0, "b": 0, "c": 0}'],
        }
    )
    out = fi.similarity(syn, real)
    # rep 1: the reversed ranking (cosine 0.29/0.38 by hand); rep 0: the same ranking
    np.testing.assert_allclose(out.cosine[:2], [0.29 / 0.38, 1.0], rtol=1e-12)
    assert out.rbo[0] < 1 and out.rbo[1] == pytest.approx(1.0)
    assert list(out.auc_real) == [0.8, 0.9, 0.9]
    assert list(out.failed) == [False, False, True] and np.isnan(out.rbo[2])
    assert out.level.dtype == float and out.level[0] == 0.5 and out.level[1:].isna().all()
    with pytest.raises(ValueError, match=r"no replicate for \(dataset, rep, method\) \('d', 2"):
        fi.similarity(syn.assign(rep=2), real)


def test_smoke_run_outputs(smoke_run_of):
    run = smoke_run_of(NAME)
    smoke = runner.load_params(NAME, "smoke")
    raw = pd.read_parquet(run / "results" / "replicates.parquet")
    summary = pd.read_csv(run / "results" / "similarity.csv")
    assert set(raw.dataset) == set(smoke["datasets"])
    assert set(raw.rep) == set(range(smoke["n_reps"]))
    ok = raw[~raw.failed]
    assert ok[["rbo", "corr_rbo"]].stack().between(0, 1 + 1e-12).all()
    assert (ok.corr_rbo >= ok.rbo - 1e-12).all()
    assert set(summary.generator) >= {"privbayes", "privbayes_ds", "independent", "subsample"}


def _finding_names() -> list[str]:
    """The verdict rows the chapter writes, in order (one per cell the paper's sentences are
    about; the PrivBayes findings once per variant, ``_dp`` for the ε-DP one)."""
    real = ("adult", "household", "polish")
    parts = [
        ["a1_top2", "a5_rbo", "a5_cosine", "a5_order", "a2_rbo_below_a1", "a2_corr_rbo"]
        + ["a4_below_a3"],
        [f"trend_{d}" for d in real]
        + [f"low_eps_{d}" for d in real]
        + ["independent_household", "independent_polish", "adult_above_baselines"],
        ["household_below_adult", "household_below_polish"]
        + [f"pb_vs_pate_{d}" for d in real]
        + ["auc_gap"],
        ["corr_ge_rbo", "cos_sd"],
    ]
    names = [n + sfx for part in parts for sfx in ("", "_dp") for n in part]
    return names + [f"subsample_{k}_{d}" for d in real for k in ("rises", "sd_falls")]


def test_smoke_run_verdicts(smoke_run_of):
    """results/verdicts.csv: the expected findings, each verdict from its interval alone, the
    cells the smoke preset does not run undetermined with n = 0, the theorem corrRBO ≥ RBO
    holding on every comparison."""
    run = smoke_run_of(NAME)
    table = verdicts.read_verdicts(run / "results")
    assert list(table.finding) == _finding_names()
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
        assert row.section == "feature_importance-verdicts"
        if row.n == 0:
            assert row.verdict == "undetermined" and row.note.startswith("not in this run")
        else:
            assert row.lower <= row.estimate <= row.upper
    t = table.set_index("finding")
    smoke = runner.load_params(NAME, "smoke")
    assert t.n["trend_polish"] == 0  # one ε in the smoke preset: no trend
    assert t.n["a5_rbo"] == t.n["independent_polish_dp"] == smoke["n_reps"]
    assert t.verdict["corr_ge_rbo"] == t.verdict["corr_ge_rbo_dp"] == "holds"
