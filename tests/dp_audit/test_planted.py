"""The planted bugs are found at the budgets of the audit's design; their correct twin (the
perturbed histogram at the same ε) is not (issue acceptance 2)."""

import pytest

from synthtrust.dp_audit.bounds import ceiling
from synthtrust.dp_audit.game import dp_audit
from synthtrust.dp_audit.planted import ReusedNoise, SensitivityIgnored
from synthtrust.synthesizers import Bootstrap, PerturbedHistogram


def _audit(generator, n_fits, score="auto", seed=0):
    return dp_audit(
        generator,
        1.0,
        neighbouring="replace_one",
        n_fits=n_fits,
        score=score,
        random_state=seed,
        n_jobs=1,
        progress=False,
    )


def test_the_bootstrap_is_a_violation_from_100_fits_and_its_twin_is_not():
    bug = _audit(Bootstrap(), 100, score="count")
    assert bug.verdict == "violation"
    assert bug.epsilon_lb == pytest.approx(ceiling(50))  # perfect separation
    assert _audit(PerturbedHistogram(epsilon=1.0), 200, score="count").verdict != "violation"


def test_reused_noise_is_a_violation_from_200_fits_and_its_twin_is_not():
    bug = _audit(ReusedNoise(epsilon=1.0), 200)
    assert bug.verdict == "violation"
    assert (bug.statistic, bug.fp, bug.fn) == ("linear", 0, 0)
    assert _audit(PerturbedHistogram(epsilon=1.0), 200).verdict != "violation"


def test_reused_noise_ignores_random_state():
    a, b = (ReusedNoise(epsilon=1.0, random_state=s, domain={"a": 3}) for s in (1, 2))
    import pandas as pd

    frame = pd.DataFrame({"a": [0, 1, 2, 2]})
    assert (a.fit(frame).noisy_counts_ == b.fit(frame).noisy_counts_).all()


def test_ignored_sensitivity_is_a_violation_at_2000_fits_and_its_twin_is_not():
    bug = _audit(SensitivityIgnored(epsilon=1.0), 2000)
    assert bug.verdict == "violation"
    assert 1.0 < bug.epsilon_lb <= 2.0  # true epsilon 2: the bound is below it
    twin = _audit(PerturbedHistogram(epsilon=1.0), 2000)
    assert twin.verdict == "no violation detected"
    assert twin.epsilon_lb <= 1.0


@pytest.mark.parametrize("cls", [SensitivityIgnored, ReusedNoise])
def test_the_ledger_records_the_claim_not_the_truth(cls):
    import pandas as pd

    g = cls(epsilon=0.5, domain={"a": 2}, random_state=0).fit(pd.DataFrame({"a": [0, 1]}))
    assert g.ledger_.total_epsilon == 0.5
