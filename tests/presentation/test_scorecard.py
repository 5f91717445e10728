"""Tests of synthtrust.presentation.scorecard: the page from hand-made run folders (the counts are checked
against the tables they come from, the rows against the numbers written)."""

import json
import math

import pytest

from synthtrust import verdicts
from synthtrust.presentation import scorecard


def _run(tmp_path, name, rows, title="A chapter"):
    run = tmp_path / name
    verdicts.write_verdicts(rows, run / "results")
    (run / "manifest.json").write_text(json.dumps({"preset": "smoke"}))
    nb = {"cells": [{"cell_type": "markdown", "source": [f"# {title}\n", "text"]}]}
    (run / f"{name}.ipynb").write_text(json.dumps(nb))
    return run


def _rows():
    return [
        verdicts.finding(
            "pgm_type1",
            "Private-PGM: Type I above 0.05 | Fig. 4",
            verdicts.rate_interval(40, 200),
            0.05,
            math.inf,
            section="hv-verdicts",
        ),
        verdicts.finding("gan", "GAN: high Type I", verdicts.rate_interval(2, 20), 0.05),
        verdicts.finding("adult", "Adult: above the baselines", None, 0.0, note="paper preset"),
    ]


def test_write_scorecard_counts_and_rows(tmp_path):
    runs = {
        "one": _run(tmp_path, "one", _rows(), "Hypotheses"),
        "two": tmp_path / "two",  # a run that wrote no verdicts
    }
    page = scorecard.write_scorecard(runs, tmp_path / "stage" / "scorecard.md").read_text()
    assert "`smoke` preset" in page
    # counts: 1 holds (40/200, CP [0.147, 0.262]), 2 undetermined; 0.025 false expected
    assert "| {doc}`chapters/one` | 1 | 0 | 2 | 0.025 | 3 |" in page
    assert "| {doc}`chapters/two` | — | — | — | — | no verdicts in this run |" in page
    assert "## Hypotheses" in page
    ci = verdicts.rate_interval(40, 200)
    assert (
        f"| <code>pgm_<wbr>type1</code>: Private-PGM: Type I above 0.05 \\| Fig. 4 | 0.2 "
        f"[{ci.lower:.3g}, "
        f"{ci.upper:.3g}] | 200 | {{ref}}`holds <hv-verdicts>` |  |"
    ) in page
    needed = verdicts.replicates_to_decide(verdicts.rate_interval(2, 20), 0.05, math.inf)
    assert f"| 20 | {{doc}}`undetermined <chapters/one>` | {needed:.3g} |" in page
    assert (
        "| <code>adult</code>: Adult: above the baselines | not run | 0 "
        "| {doc}`undetermined <chapters/one>` |  |" in page
    )


def test_write_scorecard_refuses_a_bad_table(tmp_path):
    run = _run(tmp_path, "one", _rows())
    csv = run / "results" / "verdicts.csv"
    csv.write_text(csv.read_text().replace(",holds,", ",fails,"))
    with pytest.raises(ValueError, match="'pgm_type1': verdict 'fails' does not follow"):
        scorecard.write_scorecard({"one": run}, tmp_path / "scorecard.md")
    assert not (tmp_path / "scorecard.md").exists()
