"""Chapter 2 contract: parameters cell = default preset, presets, the smoke run's outputs, and
the paper's rows reproduced where the paper's definitions apply (adult, credit-default). The
transcription of the paper's numbers: tests/studies/test_holdout_paper.py."""

import numpy as np
import pandas as pd
import pytest

from synthtrust import verdicts
from synthtrust.run import runner
from synthtrust.studies.holdout_fidelity_privacy import scores as hf

NAME = "holdout_fidelity_privacy"


def test_presets_share_keys_and_paper_preset_is_the_published_study():
    params = {p: runner.load_params(NAME, p) for p in ("smoke", "default", "paper")}
    paper = params["paper"]
    assert paper["datasets"] == list(hf.DATASETS)
    assert paper["flip_rates"] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert paper["flip_rows"] == 50_000  # perturbate.R's n
    # §4: every generator drew 50 000 records; SDV's CTGAN trains 300 epochs by default
    assert paper["generator_rows"] == 50_000 and paper["ctgan_epochs"] == 300
    assert {"cart", "ctgan", "copula"} <= set(paper["generators"])


def test_build_grid_and_published_files():
    cells = hf.build_grid(datasets_=["adult"], flip_rates=[0.1, 0.5], flip_rows=0, published=True)
    labels = [c["label"] for c in cells]
    assert labels[:3] == ["Holdout", "Flip 10%", "Flip 50%"]
    assert "mostlyai_DP_eps1.6_noise1.5" in labels
    assert hf.dp_epsilon("mostlyai_DP_eps1.6_noise1.5") == 1.6
    assert np.isnan(hf.dp_epsilon("synthcity-arf"))
    with pytest.raises(ValueError, match="unknown dataset"):
        hf.build_grid(datasets_=["adlt"], flip_rates=[], flip_rows=0, published=False)


@pytest.mark.slow
@pytest.mark.parametrize("dataset", ["adult", "credit-default"])
def test_holdout_row_reproduces_the_paper(dataset):
    """Figure 7/8 holdout rows to the printed precision (TVD/share 0.1 %, DCR 0.01)."""
    row = hf.score_cell(
        {"dataset": dataset, "source": "holdout", "p": None, "rows": None, "label": "Holdout"},
        [np.random.default_rng(0)],
    ).iloc[0]
    paper = hf.paper_rows(dataset).iloc[0]
    for key in ("tvd_1", "tvd_2", "tvd_3", "dcr_share"):
        assert round(row[key], 3) == pytest.approx(paper[key], abs=1e-9), key
    for key in ("dcr_train_mean", "dcr_holdout_mean"):
        assert round(row[key], 2) == pytest.approx(paper[key], abs=1e-9), key


@pytest.fixture(scope="module")
def smoke_run(smoke_run_of):
    return smoke_run_of(NAME)


def test_smoke_run_outputs(smoke_run):
    scores = pd.read_csv(smoke_run / "results" / "scores.csv")
    smoke = runner.load_params(NAME, "smoke")
    assert sorted(scores.dataset.unique()) == sorted(smoke["datasets"])
    assert len(scores) == len(smoke["datasets"]) * (1 + len(smoke["flip_rates"]))
    assert scores.dcr_share.between(0, 1).all() and scores.tvd_3.between(0, 1).all()
    # the flip baselines: more flipping, lower share, higher three-way TVD
    flips = scores[scores.source == "flip"].sort_values("p")
    assert flips.dcr_share.is_monotonic_decreasing and flips.tvd_3.is_monotonic_increasing
    side = pd.read_csv(smoke_run / "results" / "beside_paper.csv")
    assert {"this_run", "paper", "metric", "paper_row", "row"} <= set(side.columns)
    gens = pd.read_csv(smoke_run / "results" / "generators.csv")
    assert gens.label.tolist() == smoke["generators"] and (gens.source == "generator").all()
    assert gens.dcr_share.between(0, 1).all() and gens.tvd_3.between(0, 1).all()
    comparison = pd.read_csv(smoke_run / "results" / "generator_comparison.csv")
    assert comparison.paper_row.dropna().tolist() == list(hf.PAPER_GENERATORS)


def test_smoke_run_verdicts(smoke_run):
    """results/verdicts.csv: the paper's claims on the smoke preset's dataset, Flip rates and DP
    cells, each verdict following from its interval alone."""
    table = verdicts.read_verdicts(smoke_run / "results")
    smoke = runner.load_params(NAME, "smoke")
    (dataset,) = smoke["datasets"]
    expected = [f"{dataset}_holdout_share"]
    expected += [f"{dataset}_flip{round(100 * p)}_share" for p in smoke["flip_rates"]]
    expected += [f"{dataset}_flip_tvd3_rises", f"{dataset}_mostlyai_share"]
    expected += [f"{dataset}_cart_share_above_others"]
    expected += [f"dp_{m}_eps{e:g}_share" for m in smoke["dp_methods"] for e in smoke["dp_epsilon"]]
    assert table.finding.tolist() == expected
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
    assert (table.section == hf.SECTION).all()
    # shares are over the synthetic records: online-shoppers' halves hold 6 165 records each
    shares = table[table.finding.str.endswith("_share") & (table.n > 0)]
    scores = pd.read_csv(smoke_run / "results" / "scores.csv")
    assert set(shares.n[~shares.finding.str.startswith("dp_")]) == set(scores.n_synthetic)
    assert (
        (table.set_index("finding").loc[f"{dataset}_mostlyai_share", "n"]) == 0
    )  # published: false


def test_dp_table_and_public_domain():
    from synthtrust import datasets

    train, _ = datasets.holdout_split("adult")
    table = hf.dp_table(train.head(50))
    assert list(table.columns) == list(hf.DP_COLUMNS)
    domain = hf.dp_domain()
    assert domain["age"][0] == "17-24" and domain["age"][-1] == "70+" and len(domain["age"]) == 11
    assert [len(domain[c]) for c in hf.DP_COLUMNS] == [11, 16, 7, 2, 2]
    # each age lands in its bin: 17..24 -> "17-24", 25 -> "25-29", 90 -> "70+"
    ages = pd.DataFrame({"age": [17, 24, 25, 69, 70, 90], **{c: "x" for c in hf.DP_COLUMNS[1:]}})
    assert hf.dp_table(ages)["age"].tolist() == ["17-24", "17-24", "25-29", "65-69", "70+", "70+"]
    with pytest.raises(ValueError, match="unknown DP method 'gan'"):
        hf.dp_synthetic("gan", 1.0, np.random.default_rng(0))


def test_dp_frontier_cells():
    """The holdout of the 5-column table is the 50 % reference; a perturbed histogram at a huge
    ε reproduces the training histogram, so its F³ is far below the holdout's."""
    ref = hf.dp_score_cell({"method": "holdout", "epsilon": None}, [np.random.default_rng(0)])
    assert ref.dcr_share.iloc[0] == pytest.approx(0.5, abs=0.01)
    big = hf.dp_score_cell(
        {"method": "perturbed_histogram", "epsilon": 1e4}, [np.random.default_rng(0)]
    )
    assert big.tvd_3.iloc[0] < 0.2 * ref.tvd_3.iloc[0]
    synth = hf.dp_synthetic("perturbed_histogram", 1.0, np.random.default_rng(0))
    assert len(synth) == 24_421 and set(synth.columns) == set(hf.DP_COLUMNS)
