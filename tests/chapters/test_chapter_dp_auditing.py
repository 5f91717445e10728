"""Chapter 6 (empirical DP auditing): presets and the smoke run's outputs — the planted bugs are
violations and their twin is not, DataSynthesizer's PrivBayes is a violation, GS-WGAN's nominal
ε is exceeded by its lower bound, the replay passes the book and reports the planted twin, the
verdicts."""

import pandas as pd

from synthtrust import verdicts
from synthtrust.run import runner
from synthtrust.studies.dp_auditing import audits as da
from synthtrust.studies.dp_auditing import promises as dp

NAME = "dp_auditing"


def test_presets_audit_every_synthesizer_at_the_standard_budget():
    paper = runner.load_params(NAME, "paper")
    default = runner.load_params(NAME, "default")
    assert set(paper["audit_generators"]) == set(da.GENERATORS) == set(default["audit_generators"])
    assert set(paper["audit_fits"].values()) == {2000}
    assert paper["audit_epsilons"] == default["audit_epsilons"] == [1, 4]
    assert default["calibration_audits"] == paper["calibration_audits"] == 100
    assert set(default["planted_fits"]) == set(da.PLANTED)
    # the book's own promises: chapter 1's nominal epsilons, every release replayed
    assert default["nominal_epsilons"] == paper["nominal_epsilons"] == [1, 2, 4, 10]
    releases = set(dp.REPLAYED) - {da.REPLAY_CONTROL}
    assert set(default["replay_generators"]) == set(paper["replay_generators"]) == releases


def test_smoke_run_turns_the_audit_on_the_books_promises(smoke_run_of):
    results = smoke_run_of(NAME) / "results"
    nominal = pd.read_csv(results / "gswgan_nominal.csv").set_index("nominal_epsilon")
    assert nominal.loc[1.0, "iterations"] == 15  # chapter 1's ε = 1 rows
    assert nominal.loc[1.0, "epsilon_lower_bound"] > 29
    assert (nominal.verdict == "violation").all()
    replay = pd.read_csv(results / "replay.csv").set_index("name")
    control = replay.loc[da.REPLAY_CONTROL]
    assert control.verdict == "violation" and control.max_ratio == 2.0
    book = replay.drop(index=da.REPLAY_CONTROL)
    assert len(book) >= 3 and (book.verdict == "pass").all() and book.sequences_match.all()
    assert (book.max_ratio <= 1.0).all()


def test_smoke_run_finds_the_bugs_and_spares_the_twins(smoke_run_of):
    run = smoke_run_of(NAME)
    planted = pd.read_csv(run / "results" / "planted.csv")
    twin = planted.generator.str.startswith("correct twin")
    bugs, twins = planted[~twin], planted[twin]
    assert (bugs.verdict == "violation").all() and len(bugs) == 5  # the subtle one twice
    assert (twins.verdict != "violation").all() and len(twins) == 5
    pate = planted.set_index("generator").loc["correct twin: PATE-GAN"]
    assert pate.verdict == "no violation detected" and pate.fits == 60
    pb = pd.read_csv(run / "results" / "privbayes.csv").set_index("noise")
    assert pb.loc["datasynthesizer-0.1.3", "verdict"] == "violation"
    assert pb.loc["dp", "verdict"] != "violation"
    one = pd.read_csv(run / "results" / "one_run.csv").set_index("generator")
    assert one.loc["non-private bootstrap", "verdict"] == "violation"
    audits = pd.read_csv(run / "results" / "audits.csv")
    assert (audits.verdict != "violation").all()
    assert (audits.epsilon_lb <= audits.ceiling + 1e-12).all()


def test_smoke_run_verdicts(smoke_run_of):
    table = verdicts.read_verdicts(smoke_run_of(NAME) / "results").set_index("finding")
    for bug in da.PLANTED:
        assert table.loc[f"planted_{bug}_violation", "verdict"] == "holds"
    assert table.loc["privbayes_ds_violation_eps0.1", "verdict"] == "holds"
    assert "calibration_false_violations" in table.index
    for finding in (
        "gswgan_nominal_violation_eps1",
        "replay_book_no_violation",
        "replay_planted_violation",
    ):
        assert table.loc[finding, "verdict"] == "holds", finding


def test_smoke_run_prints_no_worker_warnings_or_machine_paths(smoke_run_of):
    """The audits' fits run in worker processes: a warning there reached the page once per fit,
    with the worker's file path (the default build showed hundreds of GS-WGAN warnings)."""
    import json

    run = smoke_run_of(NAME)
    notebook = json.loads((run / f"{NAME}.ipynb").read_text())
    text = "".join(
        "".join(out.get("text", ""))
        for cell in notebook["cells"]
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
    )
    assert "Warning:" not in text
    assert "site-packages" not in text and "/lib/synthtrust/" not in text
