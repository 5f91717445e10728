"""Tests of ``synthtrust.privacy.replay``: the recorder of mechanism calls and the comparison of
two records, against hand computations.

Oracles: the fields of each recorded call are computed by hand from the call's arguments (the
noise scale b = Δ/ε, σ = Δ/√(2ρ), the scores the smoothed histogram's probabilities imply, the
sanitiser's clipped rows); the outputs inside a recording context are compared with those of
the same call outside it (the hook changes nothing); the distances of
:func:`compare_replays` are computed by hand (L1, L2, L∞ of small vectors).
"""

from __future__ import annotations

import json
import math
import threading

import numpy as np
import pytest

from synthtrust.privacy import (
    MechanismCall,
    ReplayResult,
    compare_replays,
    discrete_laplace,
    exponential_mechanism,
    exponential_mechanism_counts,
    gaussian,
    laplace,
    noisy_vote_labels,
    record_mechanisms,
)
from synthtrust.privacy.replay import RECORDED, observed_sensitivity

CALLER = f"{__name__}."


# ----------------------------------------------------------------------------------------------
# what a call records
# ----------------------------------------------------------------------------------------------
def test_laplace_records_its_value_sensitivity_scale_and_budget():
    value = np.array([[3.0, 0.0], [1.0, 7.0]])
    outside = laplace(value, sensitivity=2.0, epsilon=0.5, random_state=4)
    with record_mechanisms() as calls:
        inside = laplace(value, sensitivity=2.0, epsilon=0.5, random_state=4)
    np.testing.assert_array_equal(inside, outside)  # the hook changes nothing
    (call,) = calls
    assert (call.mechanism, call.norm, call.sensitivity, call.scale, call.shape) == (
        "laplace",
        "l1",
        2.0,
        4.0,
        (2, 2),
    )
    assert (call.epsilon, call.delta, call.rho) == (0.5, 0.0, None)
    np.testing.assert_array_equal(call.value, value)
    assert call.value.dtype == np.float64 and call.value is not value
    np.testing.assert_array_equal(call.output, outside)
    assert call.caller == CALLER + "test_laplace_records_its_value_sensitivity_scale_and_budget"


def test_the_recorded_value_is_a_copy_taken_before_the_noise():
    value = np.array([1.0, 2.0])
    with record_mechanisms() as calls:
        out = laplace(value, sensitivity=1.0, epsilon=1.0, random_state=0)
    value[0] = 99.0
    out[1] = -5.0
    np.testing.assert_array_equal(calls[0].value, [1.0, 2.0])
    assert calls[0].output[1] != -5.0


def test_a_laplace_with_one_sensitivity_per_element_is_compared_in_linf():
    with record_mechanisms() as calls:
        laplace([1.0, 2.0, 3.0], sensitivity=[1.0, 3.0, 2.0], epsilon=2.0, random_state=0)
    (call,) = calls
    assert (call.norm, call.sensitivity, call.scale) == ("linf", 3.0, 1.5)


def test_discrete_laplace_and_the_three_gaussian_calibrations():
    with record_mechanisms() as calls:
        discrete_laplace([4, 0, 2], sensitivity=2.0, epsilon=0.25, random_state=1)
        gaussian([1.0, 2.0], sensitivity=1.0, rho=0.125, random_state=1)
        gaussian(5.0, sensitivity=3.0, epsilon=1.0, delta=1e-6, random_state=1)
        gaussian([0.0], sigma=2.0, random_state=1)
    dl, g_rho, g_eps, g_sigma = calls
    assert (dl.mechanism, dl.norm, dl.sensitivity, dl.scale, dl.epsilon) == (
        "discrete_laplace",
        "l1",
        2.0,
        8.0,
        0.25,
    )
    assert (g_rho.mechanism, g_rho.norm, g_rho.rho) == ("gaussian", "l2", 0.125)
    assert g_rho.scale == pytest.approx(1.0 / math.sqrt(2 * 0.125))  # σ = Δ/√(2ρ) = 2
    assert (g_eps.epsilon, g_eps.delta, g_eps.shape) == (1.0, 1e-6, ())
    assert g_eps.scale == pytest.approx(3.0 / math.sqrt(2 * g_eps.rho))
    assert math.isnan(g_sigma.sensitivity) and g_sigma.scale == 2.0 and g_sigma.rho is None


def test_the_exponential_mechanism_records_its_scores_and_epsilon():
    scores = np.array([[0.0, 2.0, -np.inf], [1.0, 1.0, 1.0]])
    outside = exponential_mechanism(scores, 0.4, 2.0, 5)
    with record_mechanisms() as calls:
        inside = exponential_mechanism(scores, 0.4, 2.0, 5)
    np.testing.assert_array_equal(inside, outside)
    (call,) = calls
    assert (call.mechanism, call.norm, call.sensitivity, call.scale, call.shape) == (
        "exponential_mechanism",
        "linf",
        2.0,
        0.4,
        (2, 3),
    )
    # two selections: ε·2 by basic composition, ρ = 2·ε²/8
    assert call.epsilon == pytest.approx(0.8) and call.rho == pytest.approx(2 * 0.4**2 / 8)
    np.testing.assert_array_equal(call.value, scores)


def test_exponential_counts_record_the_scores_their_probabilities_imply():
    """The smoothed histogram's p_i ∝ c_i + α (α = 2m/ε) is the exponential mechanism with
    score α·ln(c_i + α) at ε/m per draw: the recorded value is (2Δm/ε)·ln p_i, i.e. the score
    minus α·ln Σ(c + α)."""
    counts, m, eps = np.array([3.0, 0.0, 5.0]), 4, 2.0
    alpha = 2 * m / eps
    p = (counts + alpha) / (counts + alpha).sum()
    with record_mechanisms() as calls:
        exponential_mechanism_counts(p, m, epsilon=eps, random_state=0)
        exponential_mechanism_counts([0.5, 0.0, 0.5], 2, epsilon=1.0, random_state=0)
    smoothed, with_zero = calls
    expected = alpha * np.log(counts + alpha) - alpha * math.log((counts + alpha).sum())
    np.testing.assert_allclose(smoothed.value, expected, rtol=1e-12)
    assert (smoothed.norm, smoothed.scale, smoothed.sensitivity) == ("linf", 2.0, 1.0)
    assert smoothed.rho == pytest.approx(eps**2 / (8 * m))
    assert with_zero.value[1] == -np.inf and with_zero.value[0] == pytest.approx(4 * math.log(0.5))


def test_the_noisy_vote_is_one_call_not_two():
    votes = np.array([0, 3, 5, 2])
    outside = noisy_vote_labels(votes, 5, 0.5, 9)
    with record_mechanisms() as calls:
        inside = noisy_vote_labels(votes, 5, 0.5, 9)
    np.testing.assert_array_equal(inside, outside)
    (call,) = calls  # the Laplace draw inside the vote is not recorded on its own
    assert (call.mechanism, call.norm, call.sensitivity, call.scale) == (
        "noisy_vote_labels",
        "linf",
        1.0,
        2.0,
    )
    assert call.epsilon == pytest.approx(4 * 0.5)  # four ε_q = λ queries
    np.testing.assert_array_equal(call.value, votes)
    assert call.caller == CALLER + "test_the_noisy_vote_is_one_call_not_two"


def test_the_gradient_sanitiser_records_the_clipped_rows():
    torch = pytest.importorskip("torch")
    from synthtrust.privacy.gradients import sanitize_gradients

    grad = torch.tensor([[3.0, 4.0], [0.1, 0.0], [0.0, -2.0], [0.0, 0.0]], dtype=torch.float64)
    c, sigma, b = 2.0, 0.5, 4
    outside = sanitize_gradients(grad, c, sigma, generator=torch.Generator().manual_seed(1))
    with record_mechanisms() as calls:
        inside = sanitize_gradients(grad, c, sigma, generator=torch.Generator().manual_seed(1))
        sanitize_gradients(grad, c, 0.0)  # the non-private mode draws no noise: no call
    assert torch.equal(inside, outside)
    (call,) = calls
    # rows clipped to C/B = 0.5: (3, 4) → (0.3, 0.4); (0.1, 0) stays; (0, −2) → (0, −0.5)
    np.testing.assert_allclose(
        call.value, [[0.3, 0.4], [0.1, 0.0], [0.0, -0.5], [0.0, 0.0]], rtol=1e-9, atol=1e-12
    )
    assert (call.mechanism, call.norm, call.shape) == ("sanitize_gradients", "l2", (4, 2))
    assert call.sensitivity == pytest.approx(2 * c / math.sqrt(b))  # the whole batch: 2C/√B
    assert call.scale == pytest.approx(2 * sigma * c / b)
    assert call.epsilon is None and call.rho is None
    assert torch.equal(call.output, outside)


def test_every_recorded_mechanism_is_a_function_that_records():
    import importlib

    for name, path in RECORDED.items():
        module, function = path.rsplit(".", 1)
        assert function == name
        assert callable(getattr(importlib.import_module(module), function))


# ----------------------------------------------------------------------------------------------
# contexts: off by default, nested, per thread
# ----------------------------------------------------------------------------------------------
def test_nothing_is_recorded_outside_a_context():
    with record_mechanisms() as calls:
        pass
    laplace(1.0, sensitivity=1.0, epsilon=1.0, random_state=0)
    assert calls == []


def test_contexts_nest_and_each_list_gets_the_calls_made_inside_it():
    with record_mechanisms() as outer:
        laplace(1.0, sensitivity=1.0, epsilon=1.0, random_state=0)
        with record_mechanisms() as inner:
            gaussian(1.0, sensitivity=1.0, rho=1.0, random_state=0)
        exponential_mechanism([1.0, 2.0], 1.0, 1.0, 0)
    assert [c.mechanism for c in outer] == ["laplace", "gaussian", "exponential_mechanism"]
    assert [c.mechanism for c in inner] == ["gaussian"]
    assert inner[0] is outer[1]


def test_each_thread_records_its_own_calls():
    seen = {}
    barrier = threading.Barrier(2)

    def work(name, n):
        with record_mechanisms() as calls:
            barrier.wait()
            for _ in range(n):
                laplace(0.0, sensitivity=1.0, epsilon=1.0, random_state=0)
            barrier.wait()
        seen[name] = len(calls)

    threads = [threading.Thread(target=work, args=(k, n)) for k, n in (("a", 3), ("b", 5))]
    with record_mechanisms() as main:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert seen == {"a": 3, "b": 5} and main == []


def test_the_caller_is_the_first_frame_outside_the_privacy_package():
    class Synth:
        def fit(self):
            return exponential_mechanism([0.0, 1.0], 1.0, 1.0, 0)

    with record_mechanisms() as calls:
        Synth().fit()
    name = "test_the_caller_is_the_first_frame_outside_the_privacy_package"
    assert calls[0].caller == f"{CALLER}{name}.<locals>.Synth.fit"


# ----------------------------------------------------------------------------------------------
# replays with frozen outputs
# ----------------------------------------------------------------------------------------------
def _run(values, rng, stop_after_first=False):
    """A toy adaptive algorithm: a noisy count, then a noisy selection among candidates whose
    number depends on the first (DP) output, then a uniform draw (not a mechanism)."""
    first = laplace(values[0], sensitivity=1.0, epsilon=1.0, random_state=rng)
    if stop_after_first:
        return first, None, rng.random()
    k = 2 if first < 10 else 3
    chosen = exponential_mechanism(np.asarray(values[1 : 1 + k]), 1.0, 1.0, rng)
    return first, chosen, rng.random()


def test_a_replay_returns_the_recorded_outputs_and_keeps_the_random_stream():
    with record_mechanisms() as d:
        out_d = _run([9.5, 0.0, 5.0, 9.0], np.random.default_rng(3))
    with record_mechanisms(replay=d) as d_prime:
        out_dp = _run([10.5, 1.0, 5.0, 9.0], np.random.default_rng(3))
    # same outputs, though the first count moved across the threshold 10 ...
    assert out_dp[:2] == out_d[:2]
    # ... the noise was drawn (the uniform draw after the mechanisms is the same) ...
    assert out_dp[2] == out_d[2]
    # ... and each call records its own value and its own (unused) output
    assert d_prime[0].value == 10.5 and d_prime[0].output == pytest.approx(out_d[0] + 1.0)
    result = compare_replays(d, d_prime)
    assert result.sequences_match and not result.violation
    np.testing.assert_allclose(result.table["observed"], [1.0, 1.0])


def test_a_replay_stops_freezing_at_the_first_mismatch():
    with record_mechanisms() as d:
        laplace(1.0, sensitivity=1.0, epsilon=1.0, random_state=0)
        b = laplace(2.0, sensitivity=1.0, epsilon=1.0, random_state=1)
    with record_mechanisms(replay=d) as d_prime:
        laplace(1.0, sensitivity=2.0, epsilon=1.0, random_state=0)  # scale 2: a mismatch
        b_prime = laplace(3.0, sensitivity=1.0, epsilon=1.0, random_state=1)
    # the second call matches its counterpart, but freezing stopped at the first mismatch:
    # its output is its own (the value moved by 1, the noise is the same)
    assert b_prime == pytest.approx(b + 1.0) and d_prime[1].output == b_prime
    result = compare_replays(d, d_prime)
    assert result.first_mismatch == 0 and result.violation and not result.sequences_match
    assert "scale 1.0 on D, 2.0 on D′" in result.mismatch and len(result.table) == 0


def test_replay_must_be_a_sequence_of_calls():
    with pytest.raises(TypeError, match="replay must be a sequence of MechanismCall"):
        with record_mechanisms(replay=3):
            pass
    with pytest.raises(TypeError, match="replay must hold MechanismCall objects only"):
        with record_mechanisms(replay=["laplace"]):
            pass


# ----------------------------------------------------------------------------------------------
# compare_replays against hand computations
# ----------------------------------------------------------------------------------------------
def _call(mechanism="laplace", norm="l1", value=(0.0,), sensitivity=1.0, scale=1.0, **kw):
    value = np.asarray(value, dtype=float)
    return MechanismCall(
        mechanism=mechanism,
        norm=norm,
        sensitivity=sensitivity,
        scale=scale,
        shape=value.shape,
        value=value,
        caller=kw.pop("caller", "x.f"),
        **kw,
    )


@pytest.mark.parametrize(("norm", "expected"), [("l1", 3.0 + 4.0), ("l2", 5.0), ("linf", 4.0)])
def test_observed_sensitivity_in_each_norm(norm, expected):
    a, b = np.array([1.0, 2.0, -np.inf]), np.array([4.0, -2.0, -np.inf])
    assert observed_sensitivity(a, b, norm) == pytest.approx(expected)


def test_an_entry_excluded_in_one_value_only_is_an_infinite_change():
    a, b = np.array([1.0, -np.inf]), np.array([1.0, 0.0])
    assert observed_sensitivity(a, b, "linf") == math.inf
    assert observed_sensitivity(a, b, "l2") == math.inf


def test_observed_sensitivity_errors_name_the_problem():
    with pytest.raises(ValueError, match="norm must be one of"):
        observed_sensitivity([0.0], [1.0], "l3")
    with pytest.raises(ValueError, match="different shapes"):
        observed_sensitivity([0.0], [1.0, 2.0], "l1")


def test_compare_reports_the_worst_call_and_the_ratio():
    d = [
        _call(value=[3.0, 1.0], sensitivity=2.0),
        _call("gaussian", "l2", value=[0.0, 0.0], sensitivity=1.0, scale=2.0),
        _call("exponential_mechanism", "linf", value=[1.0, 5.0], sensitivity=0.5),
    ]
    dp = [
        _call(value=[2.0, 2.0], sensitivity=2.0),  # L1 2 ≤ 2
        _call("gaussian", "l2", value=[0.6, 0.8], sensitivity=1.0, scale=2.0),  # L2 1 ≤ 1
        _call("exponential_mechanism", "linf", value=[1.0, 4.0], sensitivity=0.5),  # 1 > 0.5
    ]
    result = compare_replays(d, dp)
    assert isinstance(result, ReplayResult)
    assert result.sequences_match and result.first_mismatch is None and result.mismatch == ""
    np.testing.assert_allclose(result.table["observed"], [2.0, 1.0, 1.0])
    np.testing.assert_allclose(result.table["ratio"], [1.0, 1.0, 2.0])
    assert result.table["violation"].tolist() == [False, False, True]
    assert result.violation and result.statistic == pytest.approx(2.0) and result.worst_call == 2
    assert (result.n_calls, result.n_calls_prime) == (3, 3)


def test_rounding_within_rtol_is_not_a_violation():
    """Δ = 1 on entries of size 1e6: the threshold is 1 + rtol·(1 + 1e6 + 1) ≈ 1 + 1e-3."""
    d = [_call(value=[1e6, 0.0], sensitivity=1.0)]
    within = [_call(value=[1e6 + 1.0 + 1e-4, 0.0], sensitivity=1.0)]
    beyond = [_call(value=[1e6 + 1.01, 0.0], sensitivity=1.0)]
    assert not compare_replays(d, within).violation
    assert compare_replays(d, beyond).violation
    assert not compare_replays(d, beyond, rtol=1e-7).violation


def test_a_call_without_a_declared_sensitivity_violates_when_its_value_changes():
    d = [_call(sensitivity=math.nan, value=[1.0])]
    assert not compare_replays(d, [_call(sensitivity=math.nan, value=[1.0])]).violation
    result = compare_replays(d, [_call(sensitivity=math.nan, value=[2.0])])
    assert result.violation and result.statistic == math.inf


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mechanism": "gaussian"}, "mechanism 'laplace' on D, 'gaussian' on D′"),
        ({"scale": 2.0}, "scale 1.0 on D, 2.0 on D′"),
        ({"sensitivity": 2.0}, "declared sensitivity 1.0 on D, 2.0 on D′"),
        ({"value": (0.0, 0.0)}, "shape (1,) on D, (2,) on D′"),
    ],
)
def test_the_first_mismatch_of_the_sequences_is_reported(change, message):
    d = [_call(), _call(caller="m.g"), _call()]
    dp = [_call(), _call(caller="m.h", **change), _call()]
    result = compare_replays(d, dp)
    assert result.violation and not result.sequences_match and result.first_mismatch == 1
    assert result.mismatch == f"call 1: {message} (callers m.g / m.h)"
    assert result.table["call"].tolist() == [0]  # only the calls before the mismatch


def test_a_missing_call_is_a_mismatch_at_the_end_of_the_shorter_run():
    d = [_call(), _call(caller="synth.skip_if_zero")]
    result = compare_replays(d, d[:1])
    assert result.first_mismatch == 1 and result.violation
    assert result.mismatch == (
        "2 calls on D, 1 on D′; the first extra one is laplace from synth.skip_if_zero"
    )
    empty = compare_replays([], [])
    assert not empty.violation and empty.statistic == 0.0 and empty.worst_call is None


def test_the_result_round_trips_through_json():
    d = [_call(value=[3.0, 1.0], sensitivity=2.0)]
    dp = [_call(value=[2.0, 2.0], sensitivity=2.0)]
    result = compare_replays(d, dp)
    data = json.loads(result.to_json())
    assert data == result.to_dict()
    assert data["table"] == [
        {
            "call": 0,
            "mechanism": "laplace",
            "caller": "x.f",
            "norm": "l1",
            "shape": [2],
            "scale": 1.0,
            "declared": 2.0,
            "observed": 2.0,
            "ratio": 1.0,
            "violation": False,
        }
    ]
    assert data["violation"] is False and data["first_mismatch"] is None


def test_compare_errors_name_the_parameter():
    with pytest.raises(TypeError, match="calls_d must be a sequence of MechanismCall"):
        compare_replays(None, [])
    with pytest.raises(TypeError, match="calls_d_prime must hold MechanismCall objects"):
        compare_replays([], [1])
    for rtol in (-1e-9, math.nan, "1"):
        with pytest.raises(ValueError, match="rtol must be a finite number >= 0"):
            compare_replays([], [], rtol=rtol)
