"""Contract of chapter 1 (chapters/hypothesis_validity.md): parameters, presets, run folder, CLI.

The run folder checked here is the one the session's book build made (smoke preset, the
``book_build`` fixture of tests/conftest.py), so the chapter is not run a second time for
these tests. Only the CLI test runs the chapter once more (smoke preset, ``n_reps 5``).
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.cli import app as cli
from synthtrust.run import runner
from synthtrust.studies.hypothesis_validity import gan as hg
from synthtrust.studies.hypothesis_validity import multivariate as hm
from synthtrust.studies.hypothesis_validity import simulation as hv
from synthtrust.synthesizers import GSWGAN

NAME = "hypothesis_validity"
PRESETS = ("smoke", "default", "paper")
RATE_COLUMNS = [
    "data",
    "method",
    "n",
    "m",
    "epsilon",
    "test",
    "n_reps",
    "n_feasible",
    "error",
    "rate",
    "lo",
    "hi",
]
REPLICATE_COLUMNS = [
    "data",
    "method",
    "n",
    "m",
    "epsilon",
    "alpha",
    "delta",
    "n_sim",
    "iters",
    "rep",
    "test",
    "pvalue",
    "reject",
    "feasible",
]
RESULT_FILES = [
    "cardio_error_rates.csv",
    "cardio_replicates.parquet",
    "failed_cardio.csv",
    "failed_multivariate_nonsignal.csv",
    "failed_multivariate_signal.csv",
    "failed_nonsignal.csv",
    "failed_signal.csv",
    "gan_controls.csv",
    "gan_error_rates.csv",
    "gan_replicates.parquet",
    "gaussian_error_rates.csv",
    "gaussian_replicates.parquet",
    "multivariate_error_rates.csv",
    "multivariate_replicates.parquet",
    "verdicts.csv",
]


def read_rates(path: Path) -> pd.DataFrame:
    """Read an error-rate CSV with pandas' defaults (as a user would)."""
    return pd.read_csv(path)


def _tests_of(method: str) -> list[str]:
    return ["dp_mwu"] if method == "dp_mwu" else list(hv.TESTS)


# ------------------------------------------------------------------------ parameters, presets
def test_presets_share_keys_and_name_known_methods():
    params = {p: runner.load_params(NAME, p) for p in PRESETS}
    for preset, values in params.items():
        assert sorted(values["methods"]) == sorted(hv.METHODS), preset
        assert 0 < values["alpha"] < 1
        assert set(values["smoothed_sizes"]) <= set(range(1, values["smoothed_original_size"]))
        # every preset builds a valid grid (unknown methods would raise)
        cells = hv.build_grid(
            data=["nonsignal"],
            methods=values["methods"],
            sizes=values["sizes"],
            epsilon=values["epsilon"],
            smoothed_original_size=values["smoothed_original_size"],
            smoothed_sizes=values["smoothed_sizes"],
            alpha=values["alpha"],
            delta=values["dp_mwu_delta"],
            n_sim=values["dp_mwu_n_sim"],
        )
        assert len(cells) > 0


def test_paper_preset_is_the_published_grid():
    """Montoya Perez et al. (2024), §4 and Table 1."""
    paper = runner.load_params(NAME, "paper")
    assert paper["epsilon"] == [0.01, 0.1, 1, 5, 10]
    assert paper["sizes"] == [50, 100, 500, 1000, 20000]
    assert paper["cardio_sizes"] == [50, 100, 500, 1000, 20000]
    assert paper["smoothed_original_size"] == 20000
    assert paper["smoothed_sizes"] == [50, 100, 500, 1000]
    assert paper["n_reps"] == 1000
    assert paper["alpha"] == 0.05
    assert paper["dp_mwu_delta"] == 1e-6
    default = runner.load_params(NAME, "default")
    # the website's run differs from the paper only in the replicates of the multivariate part
    # and of the GANs (and the multivariate part's Private-PGM steps)
    assert {k for k in paper if paper[k] != default[k]} == {
        "multivariate_n_reps",
        "multivariate_pgm_max_iter",
        "gan_generators",
        "gan_pretrain_iterations",
    }
    assert paper["multivariate_n_reps"] == 1000 and paper["multivariate_pgm_max_iter"] == 2500
    # the DP GAN rows (§4.2): 1000 generators per scenario on n = 20 000, checkpoints at
    # ε = 1..5, 10, five synthetic sets of each size from each checkpoint
    assert paper["gan_generators"] == 1000 and paper["gan_n"] == 20000
    assert paper["gan_epsilon"] == list(hg.EPSILONS) and paper["gan_sizes"] == list(
        hg.SYNTHETIC_SIZES
    )
    assert paper["gan_sets"] == hg.N_SETS == 5
    assert paper["gan_pretrain_iterations"] == GSWGAN().pretrain_iterations == 100
    assert paper["multivariate_sizes"] == paper["sizes"]
    assert paper["multivariate_epsilon"] == paper["epsilon"]


# ------------------------------------------------------------------------- the smoke run
@pytest.fixture(scope="module")
def smoke_run(smoke_run_of) -> Path:
    return Path(smoke_run_of(NAME))


@pytest.fixture(scope="module")
def executed(smoke_run):
    return nbformat.read(smoke_run / f"{NAME}.ipynb", as_version=4)


@pytest.fixture(scope="module")
def manifest(smoke_run) -> dict:
    return json.loads((smoke_run / "manifest.json").read_text(encoding="utf-8"))


def _expected_cells(params: dict, data: list[str]) -> list[dict]:
    return hv.build_grid(
        data=data,
        methods=params["methods"],
        sizes=params["cardio_sizes"] if data == ["cardio"] else params["sizes"],
        epsilon=params["epsilon"],
        smoothed_original_size=params["smoothed_original_size"],
        smoothed_sizes=params["smoothed_sizes"],
        alpha=params["alpha"],
        delta=params["dp_mwu_delta"],
        n_sim=params["dp_mwu_n_sim"],
        pgm_max_iter=params["pgm_max_iter"],
    )


def test_run_folder_layout(smoke_run):
    assert (smoke_run / f"{NAME}.ipynb").is_file()
    assert (smoke_run / "manifest.json").is_file()
    assert not (smoke_run / f"{NAME}.failed.ipynb").exists()
    assert sorted(p.name for p in (smoke_run / "results").iterdir()) == RESULT_FILES


def test_executed_notebook_has_no_errors_and_ran_with_smoke_parameters(executed):
    errors = [
        (i, o.get("ename"), o.get("evalue"))
        for i, cell in enumerate(executed.cells)
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors == []
    code = [c for c in executed.cells if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in code), "a code cell was not executed"
    injected = [c for c in code if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(injected) == 1
    assert "n_reps = 20" in injected[0].source
    assert executed.metadata["papermill"]["input_path"].endswith(f"{NAME}.md")


def _glued(nb) -> dict[str, str]:
    """name -> text/plain of every myst_nb glue output of the notebook."""
    out = {}
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                prefix = o["metadata"]["scrapbook"]["mime_prefix"]
                out[name] = o["data"][prefix + "text/plain"]
    return out


def _pct(x: float) -> str:
    """The chapter's percentage format, as a glued repr."""
    return repr(f"{100 * x:.1f} %" if np.isfinite(x) else "n/a")


def test_glue_outputs_cover_the_text_and_match_the_results(executed, smoke_run):
    glued = _glued(executed)
    text = "\n".join(c.source for c in executed.cells if c.cell_type == "markdown")
    referenced = set(re.findall(r"\{glue(?::\w+)?\}`([^`]+)`", text))
    assert referenced, "the chapter glues no numbers into its text"
    missing = referenced - set(glued)
    assert not missing, f"text references glue names never glued: {sorted(missing)}"
    # the summary numbers are those of the results files
    gauss = read_rates(smoke_run / "results" / "gaussian_error_rates.csv")
    mwu = gauss[gauss.test.isin(["mannwhitneyu", "dp_mwu"]) & gauss.data.eq("nonsignal")]
    n_mid = int(glued["n_mid"].strip("'").replace(",", ""))
    eps_lo = float(glued["eps_lo"].strip("'"))

    def rate(method, n=None, eps=None):
        sel = mwu[mwu.method.eq(method)]
        if n is not None:
            sel = sel[sel.n.eq(n)]
        if eps is not None:
            sel = sel[np.isclose(sel.epsilon, eps)]
        assert len(sel) == 1, (method, n, eps)
        return float(sel.rate.iloc[0])

    assert glued["n_reps"] == "20"
    assert glued["real_null"] == _pct(rate("real", n_mid))
    assert glued["ph_lo"] == _pct(rate("perturbed_histogram", n_mid, eps_lo))
    assert glued["pgm_lo"] == _pct(rate("private_pgm", n_mid, eps_lo))
    assert glued["mwem_lo"] == _pct(rate("mwem", n_mid, eps_lo))
    assert glued["dpmwu_max"] == _pct(mwu[mwu.method.eq("dp_mwu")].rate.max())


@pytest.mark.parametrize(
    "stem, data", [("gaussian", ["nonsignal", "signal"]), ("cardio", ["cardio"])]
)
def test_results_files(smoke_run, stem, data):
    params = runner.load_params(NAME, "smoke")
    rates = read_rates(smoke_run / "results" / f"{stem}_error_rates.csv")
    raw = pd.read_parquet(smoke_run / "results" / f"{stem}_replicates.parquet")
    assert list(rates.columns) == RATE_COLUMNS
    assert list(raw.columns) == REPLICATE_COLUMNS
    assert sorted(rates.data.unique()) == sorted(data)
    assert sorted(rates.method.unique()) == sorted(params["methods"])
    cells = _expected_cells(params, data)
    n_rows = sum(len(_tests_of(c["method"])) for c in cells)
    assert len(rates) == n_rows
    assert len(raw) == n_rows * params["n_reps"]
    assert (rates.n_reps == params["n_reps"]).all()
    assert rates.error.eq(np.where(rates.data.eq("nonsignal"), "Type I", "Type II")).all()
    shown = rates.dropna(subset=["rate"])
    assert len(shown) > 0
    assert ((shown.lo <= shown.rate) & (shown.rate <= shown.hi)).all()
    assert ((shown.lo >= 0) & (shown.hi <= 1)).all()
    # the error-rate table is error_rates() of the replicate table
    again = hv.error_rates(raw)
    key = ["data", "method", "n", "m", "epsilon", "test"]
    left = rates.sort_values(key).reset_index(drop=True)
    right = again[RATE_COLUMNS].sort_values(key).reset_index(drop=True)
    for col in RATE_COLUMNS:
        if col in ("rate", "lo", "hi", "epsilon"):
            np.testing.assert_allclose(
                left[col].to_numpy(float), right[col].to_numpy(float), rtol=1e-12, equal_nan=True
            )
        else:
            assert left[col].astype(str).tolist() == right[col].astype(str).tolist(), col
    # replicate indices 0 .. n_reps-1 for every (cell, test)
    per_cell = raw.groupby(key, dropna=False)["rep"].agg(
        lambda r: sorted(r) == list(range(params["n_reps"]))
    )
    assert per_cell.all()


def test_results_csv_reads_back_with_pandas_defaults(smoke_run):
    rates = pd.read_csv(smoke_run / "results" / "gaussian_error_rates.csv")
    assert rates["data"].notna().all()


def test_manifest(manifest, smoke_run):
    smoke = runner.load_params(NAME, "smoke")
    assert manifest["chapter"] == NAME
    assert manifest["preset"] == "smoke"
    assert manifest["parameters"] == smoke
    assert manifest["seed"] == smoke["seed"] == 2024
    assert manifest["overrides"] == {}
    for package in ("numpy", "scipy", "pandas", "mbi", "jax", "synthtrust"):
        assert isinstance(manifest["packages"][package], str), package
    assert isinstance(manifest["python"], str)
    assert manifest["wall_time_s"] > 0 and math.isfinite(manifest["wall_time_s"])
    assert sorted(manifest["results"]) == RESULT_FILES
    assert Path(manifest["notebook"]) == (smoke_run / f"{NAME}.ipynb").resolve()


# ------------------------------------------------------------------------------------- CLI
def test_cli_run_with_override(tmp_path, capsys, smoke_run):
    """One extra run (n_reps 5, one process). Its replicates are replicates 0-4 of the smoke
    run: a replicate's seed depends on the seed, the cell and its index only."""
    out = tmp_path / "run"
    code = cli.main(
        [
            "run",
            NAME,
            "--preset",
            "smoke",
            "-p",
            "n_reps",
            "5",
            "--out",
            str(out),
            "--cache-dir",
            str(tmp_path / "cache"),
            "--n-jobs",
            "1",
            "--no-progress",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert f"notebook: {out / (NAME + '.ipynb')}" in printed
    assert (out / f"{NAME}.ipynb").is_file()
    assert sorted(p.name for p in (out / "results").iterdir()) == RESULT_FILES
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["parameters"] == {**runner.load_params(NAME, "smoke"), "n_reps": 5}
    assert manifest["overrides"] == {"n_reps": 5}
    rates = read_rates(out / "results" / "gaussian_error_rates.csv")
    assert (rates.n_reps == 5).all()
    nb = nbformat.read(out / f"{NAME}.ipynb", as_version=4)
    assert _glued(nb)["n_reps"] == "5"
    for stem in ("gaussian", "cardio"):
        raw = pd.read_parquet(out / "results" / f"{stem}_replicates.parquet")
        assert sorted(raw.rep.unique()) == [0, 1, 2, 3, 4]
        full = pd.read_parquet(smoke_run / "results" / f"{stem}_replicates.parquet")
        first = full[full.rep < 5].reset_index(drop=True)
        pd.testing.assert_frame_equal(raw, first)


def test_cli_unknown_parameter_exits_2_naming_it(tmp_path, capsys):
    out = tmp_path / "run"
    code = cli.main(["run", NAME, "--preset", "smoke", "-p", "no_such_key", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("synthtrust: error:")
    assert "'no_such_key'" in err
    assert "n_reps" in err  # the message lists the allowed keys
    assert not out.exists()


def test_failed_dataset_tables_match_the_rates(smoke_run):
    rates = read_rates(smoke_run / "results" / "gaussian_error_rates.csv")
    failed = pd.read_csv(
        smoke_run / "results" / "failed_nonsignal.csv", header=[0, 1], index_col=[0, 1, 2]
    )
    null = rates[(rates.data == "nonsignal") & rates.method.isin(hv.SYNTHESIZERS)]
    want = int((null.n_reps - null.n_feasible).sum())
    assert want > 0  # the smoke grid has unusable Private-PGM / MWEM datasets at ε = 0.1
    assert int(failed.to_numpy().sum()) == want


def test_multivariate_rates_cover_the_smoke_grid(smoke_run):
    smoke = runner.load_params(NAME, "smoke")
    rates = read_rates(smoke_run / "results" / "multivariate_error_rates.csv")
    assert set(rates.method) == set(smoke["multivariate_methods"])
    assert set(rates.n) == set(smoke["multivariate_sizes"])
    assert (rates.n_reps == smoke["multivariate_n_reps"]).all()
    # each test ran on its own variable; rates are shares where enough datasets were usable
    assert set(rates.test) == {"mannwhitneyu", "ttest_ind", "median_test", "chi2"}
    # a rate only over >= MIN_FEASIBLE (50) feasible datasets: none in the smoke run's 3
    few = rates.n_feasible < hm.MIN_FEASIBLE
    assert few.all() and rates.rate.isna().all()


def test_gan_rows_are_the_error_rates_of_their_replicates(smoke_run):
    smoke = runner.load_params(NAME, "smoke")
    raw = pd.read_parquet(smoke_run / "results" / "gan_replicates.parquet")
    rates = read_rates(smoke_run / "results" / "gan_error_rates.csv")
    assert set(raw.data) == {"nonsignal", "signal", "cardio"} and set(raw.method) == {"dp_gan"}
    # one training per generator: every (data, generator) has the smoke grid of ε × m × sets
    per_gen = (
        len(smoke["gan_epsilon"]) * len(smoke["gan_sizes"]) * smoke["gan_sets"] * len(hv.TESTS)
    )
    assert raw.groupby(["data", "rep"]).size().eq(per_gen).all()
    assert raw.rep.nunique() == smoke["gan_generators"]
    again = hg.gan_error_rates(raw)
    key = ["data", "m", "epsilon", "test"]
    left = rates.sort_values(key).reset_index(drop=True)
    right = again.sort_values(key).reset_index(drop=True)
    np.testing.assert_allclose(left.rate, right.rate, equal_nan=True)
    assert (left.n_generators <= smoke["gan_generators"]).all()


def test_gan_controls_run_as_many_iterations_as_the_dp_run(smoke_run):
    smoke = runner.load_params(NAME, "smoke")
    ctl = pd.read_csv(smoke_run / "results" / "gan_controls.csv")
    assert list(ctl.run) == ["GS-WGAN"] * len(smoke["gan_epsilon"]) + [
        "σ = 0",
        "WGAN-GP",
        "untrained",
        "uniform table",
    ]
    dp_its = ctl.loc[ctl.run.eq("GS-WGAN"), "iterations"].max()
    assert (
        dp_its > 0 and (ctl.loc[ctl.run.isin(["σ = 0", "WGAN-GP"]), "iterations"] == dp_its).all()
    )
    assert ctl.tvd.between(0, 1).all()
    # the uniform row is the distance of the chapter's non-signal original from a flat table
    ((x, y),) = hv.original_samples(
        "nonsignal", smoke["gan_n"], [np.random.default_rng(smoke["seed"])]
    )
    real = hg.table_counts(hg.binned_table(x, y, hv.GAUSSIAN_BINS), 100)
    uniform = 0.5 * np.abs(real / real.sum() - 1 / real.size).sum()
    assert ctl.tvd.iloc[-1] == pytest.approx(uniform, rel=1e-12)


# -------------------------------------------------------------------------------- verdicts
VERDICT_FINDINGS = {
    "dp_mwu_type1_close_to_alpha",
    *(f"{m}_type1_high_eps_below_5" for m in ("perturbed_histogram", "private_pgm", "mwem")),
    "perturbed_histogram_type1_close_to_alpha_n20000_eps1",
    "private_pgm_type1_close_to_alpha_n20000_eps1",
    "mwem_type1_high_eps10",
    "smoothed_type1_close_to_alpha",
    "smoothed_type2_high_eps_le_1",
    *(f"cardio_{m}_gain" for m in ("private_pgm", "mwem")),
    *(
        f"cardio_{m}_gains_more_than_{o}"
        for m in ("private_pgm", "mwem")
        for o in ("perturbed_histogram", "dp_mwu")
    ),
    "cardio_smoothed_type2_acceptable_eps_ge_5",
    "cardio_smoothed_type2_high_eps_below_5",
    "gan_type1_high_eps10",
    "gan_type1_grows_with_eps",
    "gan_type2_below_smoothed_cardio",
    *(f"mv_{m}_type1_close_to_alpha_largest" for m in ("private_pgm", "mwem")),
    *(f"mv_{m}_type1_high_elsewhere" for m in ("private_pgm", "mwem")),
    "mv_private_pgm_type1_drops_at_eps_0_01",
    "mv_type2_below_original_often",
    *(f"mv_unusable_{d}_none_at_n20000_or_eps_ge_5" for d in ("nonsignal", "signal")),
    *(f"mv_unusable_{d}_occur_at_eps_below_5" for d in ("nonsignal", "signal")),
}


def test_verdicts_file_follows_from_its_intervals(smoke_run):
    table = verdicts.read_verdicts(smoke_run / "results")
    assert set(table.finding) == VERDICT_FINDINGS and len(table) == len(VERDICT_FINDINGS)
    assert (table.section == "hypothesis_validity-verdicts").all()
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
        if row.n > 0:
            assert row.lower <= row.estimate <= row.upper, row.finding
        else:
            assert row.verdict == "undetermined" and row.note, row.finding
    # the multivariate rates need 50 feasible datasets: the smoke run's 3 decide no rate
    mv_rates = table[table.finding.str.startswith("mv_") & table.finding.str.contains("type")]
    assert (mv_rates.n == 0).all()
    # the chapter shows the file's table and its summary sentence
    nb = nbformat.read(smoke_run / f"{NAME}.ipynb", as_version=4)
    assert _glued(nb)["verdict_summary"] == repr(verdicts.summarize(table)["text"])
