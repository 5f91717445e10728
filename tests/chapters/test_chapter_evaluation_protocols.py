"""Chapter 3 contract and study helpers: parameters cell = default preset, presets, the data as
the paper's Table 1 describes it, the error summary against a hand computation, the smoke run
and its verdicts."""

import numpy as np
import pandas as pd
import pytest

from synthtrust import datasets, verdicts
from synthtrust.run import runner
from synthtrust.studies.evaluation_protocols import benchmark as ep

NAME = "evaluation_protocols"


def test_presets_share_keys_and_paper_preset_is_the_published_study():
    params = {p: runner.load_params(NAME, p) for p in ("smoke", "default", "paper")}
    paper = params["paper"]
    assert paper["epsilon"] == [0.01, 0.1, 1, 3, 5, 7, 9, 10, 15, 20, 50]
    assert paper["delta"] == 1e-5 and paper["n_reps"] == 100 and paper["max_rows"] is None
    assert paper["generators"] == ["privbayes", "mst", "mwem_pgm", "aim", "privmrf"]
    assert paper["classifiers"] == ["random_forest", "linear_svm", "knn"]
    assert paper["datasets"] == list(ep.DATASETS)


# Table 1 of the paper: records and share of the positive class (IMPROD is private)
TABLE_1 = {
    "pima_diabetes": (768, 0.35),
    "ilpd": (583, 0.71),
    "hypothyroid_allhypo": (3772, 0.08),
    "cardio": (70000, 0.50),
}


@pytest.mark.parametrize("name", list(TABLE_1))
def test_prepared_data_match_table_1(name):
    codes, sizes, nominal = ep.prepare(name)
    target = ep.DATASETS[name].target
    records, positive = TABLE_1[name]
    assert len(codes) == records
    assert codes[target].mean() == pytest.approx(positive, abs=0.005)
    assert set(codes[target].unique()) == {0, 1} and sizes[target] == 2
    assert list(sizes) == list(codes.columns)
    for col, k in sizes.items():
        assert codes[col].between(0, k - 1).all(), col
    assert set(nominal) <= set(codes.columns) - {target}
    raw = datasets.load(name)
    assert codes[target].sum() == raw[target].isin(ep.DATASETS[name].positive).sum()
    sub, _, _ = ep.prepare(name, max_rows=300, random_state=1)
    assert len(sub) == min(300, records)


def test_thyroid_keeps_the_papers_22_features():
    codes, _, nominal = ep.prepare("hypothyroid_allhypo")
    assert codes.shape[1] - 1 == 22
    assert not any(c.endswith("_measured") for c in codes.columns) and "TBG" not in codes
    assert set(nominal) == {"sex", "referral_source"}


def test_two_way_tvd_equals_crosstab():
    rng = np.random.default_rng(0)
    sizes = {"a": 3, "b": 4, "c": 2}
    real = pd.DataFrame({c: rng.integers(0, k, 200) for c, k in sizes.items()})
    syn = pd.DataFrame({c: rng.integers(0, k, 150) for c, k in sizes.items()})
    expected = []
    for a, b in (("a", "b"), ("a", "c"), ("b", "c")):
        p = pd.crosstab(real[a], real[b], normalize=True)
        q = pd.crosstab(syn[a], syn[b], normalize=True)
        expected.append(0.5 * p.sub(q, fill_value=0).abs().to_numpy().sum())
    assert ep.two_way_tvd(real, syn, sizes) == pytest.approx(np.mean(expected), abs=1e-12)
    assert ep.two_way_tvd(real, real, sizes) == 0.0
    with pytest.raises(ValueError, match="columns differ"):
        ep.two_way_tvd(real, syn[["b", "a", "c"]], sizes)


def test_summarize_is_equation_2_and_3():
    rows = [
        {
            "dataset": "d",
            "generator": "g",
            "epsilon": 1.0,
            "protocol": "A",
            "classifier": "linear_svm",
            "metric": "f1",
            "estimate": e,
            "truth": t,
            "reference": 0.9,
        }
        for e, t in ((0.5, 0.4), (0.7, 0.5), (0.6, 0.3))
    ]  # r = 0.1, 0.2, 0.3
    s = ep.summarize(pd.DataFrame(rows)).iloc[0]
    assert s.me == pytest.approx(0.2) and s["std"] == pytest.approx(0.1)
    assert s.rmse == pytest.approx(np.sqrt(0.05)) and s.n == 3
    assert s.estimate == pytest.approx(0.6) and s.reference == pytest.approx(0.9)


def test_grid_and_generators_reject_unknown_names():
    cells = ep.build_grid(
        datasets_=["ilpd"],
        generators=["privbayes", "bootstrap"],
        epsilon=[0.1, 1],
        delta=1e-5,
        classifiers=["knn"],
        max_rows=None,
    )
    assert len(cells) == 4 and cells[0]["classifiers"] == ["knn"]
    with pytest.raises(ValueError, match="unknown dataset 'improd'"):
        ep.build_grid(
            datasets_=["improd"],
            generators=[],
            epsilon=[1],
            delta=1e-5,
            classifiers=[],
            max_rows=None,
        )
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        ep.build_grid(
            datasets_=["ilpd"],
            generators=["gan"],
            epsilon=[1],
            delta=1e-5,
            classifiers=[],
            max_rows=None,
        )
    with pytest.raises(ValueError, match="unknown classifier 'svm'"):
        ep.build_grid(
            datasets_=["ilpd"],
            generators=[],
            epsilon=[1],
            delta=1e-5,
            classifiers=["svm"],
            max_rows=None,
        )
    with pytest.raises(ValueError, match="unknown generator 'gan'"):
        ep.make_generator("gan", 1.0, 1e-5, {"a": 2}, 0)


def test_repetition_cell_is_deterministic_and_bootstrap_b_is_near_truth():
    params = {
        "dataset": "pima_diabetes",
        "generator": "bootstrap",
        "epsilon": 50.0,
        "delta": 1e-5,
        "classifiers": ["linear_svm"],
        "max_rows": None,
    }
    a = ep.repetition_cell(params, [np.random.default_rng(3)])
    b = ep.repetition_cell(params, [np.random.default_rng(3)])
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 4 and set(a.protocol) == {"A", "B"}
    # at ε = 50 the DP confusion matrix is exact after rounding: B's estimate is the truth
    b_rows = a[a.protocol == "B"]
    np.testing.assert_allclose(b_rows.estimate, b_rows.truth, atol=0.01)


def test_smoke_run_outputs(smoke_run_of):
    smoke_run = smoke_run_of(NAME)
    smoke = runner.load_params(NAME, "smoke")
    summary = pd.read_csv(smoke_run / "results" / "protocol_errors.csv")
    gens = smoke["generators"] + smoke["baselines"]
    assert sorted(summary.generator.unique()) == sorted(gens)
    # dataset × generator × ε × protocol × classifier × metric
    assert len(summary) == len(gens) * len(smoke["epsilon"]) * 2 * len(smoke["classifiers"]) * 2
    assert (summary.n == smoke["n_reps"]).all()
    np.testing.assert_allclose(summary.rmse, np.hypot(summary.me, summary["std"]))
    reps = pd.read_parquet(smoke_run / "results" / "repetitions.parquet")
    assert reps[["estimate", "truth", "reference"]].stack().between(0, 1).all()


def test_smoke_verdicts_follow_from_their_intervals(smoke_run_of):
    table = verdicts.read_verdicts(smoke_run_of(NAME) / "results")
    smoke = runner.load_params(NAME, "smoke")
    names = ["b_below_a_rmse_all"]
    names += [
        f"b_below_a_rmse_{spec.label.lower()}_{metric}"
        for spec in ep.DATASETS.values()
        for metric in ("f1", "accuracy")
    ]
    names += [
        "b_below_a_rmse_f1_eps_ge_15",
        "mwem_pgm_a_optimistic",
        "a_rmse_falls_with_eps",
        "b_rmse_falls_with_eps",
        "better_generators_truth_f1",
        "better_generators_truth_accuracy",
        "aim_best_truth_f1",
    ]
    assert list(table.finding) == names
    assert (table.section == ep.SECTION).all()
    for row in table.itertuples():
        assert row.verdict == verdicts.decide(row.lower, row.upper, row.claim_low, row.claim_high)
    # the smoke preset runs Diabetes with PrivBayes and MST at ε = 1: the rows on Diabetes rest
    # on every repetition, the rest were not run and say so
    ran = table.finding.isin(
        ["b_below_a_rmse_all", "b_below_a_rmse_diabetes_f1", "b_below_a_rmse_diabetes_accuracy"]
    )
    assert (table[ran].n == smoke["n_reps"]).all()
    assert (table[~ran].n == 0).all() and table[~ran].note.str.startswith("not run: ").all()
    assert (table[~ran].verdict == "undetermined").all()


def test_adult_cell_scores_the_bootstrap_near_the_resampling_floor():
    """A bootstrap of adult is the non-private floor of the 2-way TVD: ≈ 0.015 (McKenna's NIST
    2021 README resample figure, quoted in the chapter)."""
    out = ep.adult_cell(
        {"generator": "bootstrap", "epsilon": 1.0, "delta": 1e-9}, [np.random.default_rng(0)]
    )
    assert list(out.columns) == ["tvd_2way", "fit_sample_s"] and len(out) == 1
    assert 0.010 < out.tvd_2way.iloc[0] < 0.020
