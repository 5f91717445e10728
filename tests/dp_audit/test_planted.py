"""The planted bugs are found at the budgets of the audit's design; their correct twin (the
perturbed histogram at the same ε; PATE-GAN for the PATE-GAN bug) is not."""

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


#: a cheap PATE-GAN on the worst case: 2 teachers (as ganev2025pate), 10 iterations
_PATE = {"sample_per_teacher": 5, "max_iter": 10}


def test_a_pate_gan_reading_its_domain_from_the_data_is_a_violation_within_60_fits():
    # the user's path: default score, all cores, the default backend; 30 fits a world can
    # certify at most ceiling(30) = 2.03 > 1 (the chapter's default preset runs 200)
    from synthtrust.dp_audit.planted import DomainFromData
    from synthtrust.synthesizers import PATEGAN

    bug = dp_audit(DomainFromData, 1.0, generator_params=_PATE, n_fits=60, progress=False)
    assert (bug.neighbouring, bug.score, bug.statistic) == ("replace_one", "count", "exact_cell")
    assert bug.verdict == "violation"
    # no fit of D holds the level 1 of any column, every fit of D' holds the canary's cell
    assert (bug.fp, bug.fn) == (0, 0) and bug.epsilon_lb == pytest.approx(ceiling(30))
    assert ceiling(30) == pytest.approx(2.03, abs=0.01)
    twin = dp_audit(PATEGAN, 1.0, generator_params=_PATE, n_fits=60, progress=False)
    assert twin.verdict == "no violation detected" and twin.epsilon_lb == 0.0
    # the twin's every synthetic table of both worlds holds the canary's cell: the count is blind
    assert (twin.fp, twin.fn) == (30, 0)
    assert twin.note.startswith("no signal: every fit of both worlds scored at or above the")


def test_the_planted_pate_gan_reads_the_levels_of_its_table():
    import pandas as pd

    from synthtrust.dp_audit.planted import DomainFromData

    frame = pd.DataFrame({"a": [0, 0, 1, 0], "b": [0, 0, 0, 0]})
    g = DomainFromData(1.0, domain={"a": 3, "b": 2}, random_state=0, **_PATE).fit(frame)
    assert g.domain_ == {"a": 2, "b": 1}  # the public domain says 3 and 2 levels
    assert set(g.sample(50)["b"]) == {0} and g.ledger_.total_epsilon <= 1.0
