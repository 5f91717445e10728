import numpy as np
import pytest

from synthtrust.dp_audit.bounds import one_run_epsilon_lower_bound
from synthtrust.dp_audit.game import dp_audit
from synthtrust.dp_audit.one_run import _table, one_run_audit
from synthtrust.dp_audit.planted import ReusedNoise, SensitivityIgnored
from synthtrust.synthesizers import Bootstrap, PerturbedHistogram


def test_the_table_holds_the_canaries_whose_coin_is_heads():
    coins = np.array([1, -1, -1, 1])
    add = _table(coins, 3, replace_one=False)
    assert add.to_numpy().tolist() == [[0, 0, 0]] * 3 + [[1, 1, 1], [4, 1, 1]]
    rep = _table(coins, 3, replace_one=True)
    assert rep.to_numpy().tolist() == [[0, 0, 0]] * 3 + [[1, 1, 1], [4, 1, 1], [2, 0, 0], [3, 0, 0]]


@pytest.mark.parametrize("neighbouring", ["add_remove", "replace_one"])
def test_a_non_private_bootstrap_is_found_in_one_run(neighbouring):
    r = one_run_audit(Bootstrap(), 1.0, neighbouring=neighbouring, n_canaries=1000)
    assert r.verdict == "violation"
    assert (r.guesses, r.correct) == (50, 50)
    assert r.epsilon_lb == pytest.approx(one_run_epsilon_lower_bound(1000, 50, 50))
    assert 400 < r.included < 600  # fair coins


def test_one_run_audits_of_the_correct_histogram_rarely_call_a_violation():
    """50 independent one-run audits at the claim: at most 5 violations (the 95 % quantile of
    Bin(50, 0.05)); the white-box score does guess better than chance."""
    results = [
        one_run_audit(
            PerturbedHistogram(epsilon=1.0),
            1.0,
            neighbouring="replace_one",
            score="whitebox",
            random_state=seed,
        )
        for seed in range(50)
    ]
    assert sum(r.verdict == "violation" for r in results) <= 5
    assert np.mean([r.correct / r.guesses for r in results]) > 0.6


def test_the_sensitivity_bug_is_found_in_one_run_and_reused_noise_is_not():
    bug = one_run_audit(
        SensitivityIgnored(epsilon=1.0),
        1.0,
        neighbouring="replace_one",
        score="whitebox",
        n_canaries=2000,
    )
    assert bug.verdict == "violation"
    # the blind spot: within one run a noise vector drawn once looks fresh ...
    blind = one_run_audit(
        ReusedNoise(epsilon=1.0), 1.0, neighbouring="replace_one", score="whitebox"
    )
    assert blind.verdict != "violation"
    # ... which the multi-run game sees at once
    multi = dp_audit(
        ReusedNoise(epsilon=1.0),
        1.0,
        neighbouring="replace_one",
        n_fits=200,
        n_jobs=1,
        progress=False,
    )
    assert multi.verdict == "violation"


def test_the_result_is_reproducible_and_serialisable():
    a = one_run_audit(
        PerturbedHistogram(epsilon=1.0), 1.0, neighbouring="add_remove", random_state=3
    )
    b = one_run_audit(
        PerturbedHistogram(epsilon=1.0), 1.0, neighbouring="add_remove", random_state=3
    )
    assert a == b
    assert '"verdict"' in a.to_json() and a.to_dict()["n_canaries"] == 1000


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_canaries": 5}, "n_canaries"),
        ({"n_canaries": 20, "guesses": 30}, "guesses must be <= n_canaries"),
        ({"score": "learned"}, "score must be one of"),
        ({"alpha": 1.0}, "alpha"),
        ({"neighbouring": "edit"}, "neighbouring must be one of"),
    ],
)
def test_bad_input_names_the_parameter(kwargs, match):
    kwargs = {"neighbouring": "add_remove", **kwargs}
    with pytest.raises(ValueError, match=match):
        one_run_audit(PerturbedHistogram(), 1.0, **kwargs)


def test_whitebox_needs_an_audit_view():
    with pytest.raises(ValueError, match="audit_view"):
        one_run_audit(Bootstrap(), 1.0, neighbouring="add_remove", score="whitebox")
