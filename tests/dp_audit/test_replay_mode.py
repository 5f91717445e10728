"""Tests of ``synthtrust.dp_audit.replay``, the grey-box replay audit behind ``synthtrust
dp-audit --mode replay``.

The oracles are worked by hand on the worst-case pair of :func:`~synthtrust.dp_audit.worst_case`
(three binary columns, eight cells): under replace-one D holds 11 records in cell 0 and D′ 10
there and the canary in cell 7, so the histogram moves by 2 in L1 (√2 in L2, 1 in L∞); under
add/remove D holds 10 in cell 0 and D′ adds the canary, a move of 1. A Laplace histogram of
scale b then spends ε = Δ/b, a Gaussian one ρ = Δ₂²/(2σ²). The numpy draws of
:class:`~synthtrust.dp_audit.replay.RecordingGenerator` are checked against
``numpy.random.default_rng`` itself. End-to-end runs of the command are in
tests/test_cli_dp_audit_replay.py.
"""

from __future__ import annotations

import copy
import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from synthtrust.dp_audit import REPLAY_VERDICTS, RecordingGenerator, replay_audit, worst_case
from synthtrust.presentation.report import render_replay_audit_html
from synthtrust.privacy import (
    cdp_epsilon,
    exponential_mechanism,
    gaussian,
    laplace,
    record_mechanisms,
)

DOMAIN = {"c0": 2, "c1": 2, "c2": 2}
E = 0.7  # the claim of most tests: not 1, so that Δ/b and Δ·ε differ


def _counts(X, domain) -> np.ndarray:
    cells = np.ravel_multi_index(X[list(domain)].to_numpy().T, tuple(domain.values()))
    return np.bincount(cells, minlength=int(np.prod(list(domain.values())))).astype(float)


class _Base:
    """A histogram generator: the class attributes say how it measures."""

    sensitivity = 2.0  # declared (replace-one: 2)
    numerator = 2.0  # numpy: scale numerator / epsilon

    def __init__(self, epsilon=1.0, domain=None, random_state=None):
        self.epsilon, self.domain, self.random_state = epsilon, domain, random_state

    def sample(self, n):
        return pd.DataFrame({c: np.zeros(n, dtype=int) for c in self.domain})


class LaplaceHistogram(_Base):
    def fit(self, X):
        counts = _counts(X, self.domain)
        self.noisy_ = laplace(
            counts,
            sensitivity=self.sensitivity,
            epsilon=self.epsilon,
            random_state=self.random_state,
        )
        return self


class LaplaceHistogramDelta1(LaplaceHistogram):
    sensitivity = 1.0


class NumpyHistogram(_Base):
    def fit(self, X):
        rng = np.random.default_rng(self.random_state)
        counts = _counts(X, self.domain)
        self.noisy_ = np.maximum(
            counts + rng.laplace(0, self.numerator / self.epsilon, counts.shape), 0
        )
        return self


class NumpyHistogramScale1(NumpyHistogram):
    numerator = 1.0


class Branching(LaplaceHistogram):
    """A second measurement when the canary's cell is occupied: data-dependent control flow."""

    def fit(self, X):
        super().fit(X)
        if (X["c0"] == 1).any():
            self.more_ = laplace(
                _counts(X, self.domain),
                sensitivity=2,
                epsilon=self.epsilon,
                random_state=self.random_state,
            )
        return self


ACCEPTANCE = [
    # (class, verdict, observed, declared, implied epsilon)
    (LaplaceHistogram, "no violation detected", 2.0, 2.0, E),
    (LaplaceHistogramDelta1, "violation", 2.0, 1.0, 2 * E),
    (NumpyHistogram, "no violation detected", 2.0, math.nan, E),
    (NumpyHistogramScale1, "violation", 2.0, math.nan, 2 * E),
]


def _audit(cls, epsilon=E, **kwargs):
    kwargs.setdefault("neighbouring", "replace_one")
    return replay_audit(cls, epsilon, generator_params={"epsilon": epsilon}, **kwargs)


# --------------------------------------------------------------------------------------------
# acceptance
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("cls", "verdict", "observed", "declared", "implied"), ACCEPTANCE)
def test_a_laplace_histogram_against_its_declared_and_observed_sensitivity(
    cls, verdict, observed, declared, implied
):
    result = _audit(cls)
    assert result.verdict == verdict
    assert result.sequences_match and (result.n_calls, result.n_calls_prime) == (1, 1)
    (row,) = result.table.to_dict(orient="records")
    assert row["observed"] == pytest.approx(observed, rel=1e-12)
    if math.isnan(declared):
        assert row["mechanism"] == "numpy.laplace" and math.isnan(row["declared"])
        assert not row["violation"]  # no declared sensitivity: the implied epsilon decides
    else:
        assert row["mechanism"] == "laplace" and row["declared"] == declared
        assert row["violation"] == (observed > declared)
    assert result.implied_epsilon == pytest.approx(implied, rel=1e-12)
    defined = next(k for k in cls.__mro__ if "fit" in vars(k))
    assert row["caller"] == f"{__name__}.{defined.__qualname__}.fit"
    assert result.summary().startswith(f"verdict: {verdict}; ")
    assert "\n" not in result.summary()


def test_the_wrong_sensitivity_names_the_call_and_the_implied_epsilon():
    result = _audit(LaplaceHistogramDelta1)
    assert result.reasons[0].startswith("call 0 (laplace from ")
    assert "observed l1 sensitivity 2 > declared 1" in result.reasons[0]
    assert f"imply epsilon = {2 * E:.4g} > claim {E:g}" in result.reasons[1]
    assert result.statistic == 2.0
    assert result.summary().startswith("verdict: violation; call 0 (laplace")


def test_a_data_dependent_branch_is_a_violation():
    result = _audit(Branching)
    assert result.verdict == "violation"
    assert not result.sequences_match
    assert (result.n_calls, result.n_calls_prime, result.first_mismatch) == (1, 2, 1)
    assert "data-dependent control flow" in result.reasons[0]
    assert "Branching.fit" in result.mismatch
    assert len(result.table) == 1  # only the calls before the mismatch are compared


@pytest.mark.parametrize(
    ("relation", "sensitivity", "verdict"),
    [("add_remove", 1.0, "no violation detected"), ("replace_one", 1.0, "violation")],
)
def test_the_relation_decides_the_observed_sensitivity(relation, sensitivity, verdict):
    cls = type("H", (LaplaceHistogram,), {"sensitivity": sensitivity})
    result = _audit(cls, neighbouring=relation)
    assert result.verdict == verdict
    assert result.table["observed"].iloc[0] == {"add_remove": 1.0, "replace_one": 2.0}[relation]
    assert result.neighbouring == relation


def test_the_relation_declared_by_the_class_is_used_and_a_synthtrust_synthesizer_passes():
    from synthtrust.synthesizers import PerturbedHistogram

    result = replay_audit(PerturbedHistogram, 1.0)
    assert result.neighbouring == "replace_one"  # PerturbedHistogram.neighbouring
    assert result.verdict == "no violation detected"
    (row,) = result.table.to_dict(orient="records")
    assert (row["mechanism"], row["observed"], row["declared"]) == ("discrete_laplace", 2.0, 2.0)
    assert result.implied_epsilon == pytest.approx(1.0, rel=1e-12)


# --------------------------------------------------------------------------------------------
# the recording generator
# --------------------------------------------------------------------------------------------
def test_the_recording_generator_draws_numpys_stream():
    rng, ref = RecordingGenerator(5), np.random.default_rng(5)
    assert np.array_equal(rng.laplace(0, 2, 7), ref.laplace(0, 2, 7))
    assert np.array_equal(rng.normal(1.0, 3, (2, 3)), ref.normal(1.0, 3, (2, 3)))
    assert np.array_equal(rng.standard_normal(4), ref.standard_normal(4))
    assert rng.laplace(0, 2) == ref.laplace(0, 2)
    assert np.array_equal(rng.integers(0, 9, 5), ref.integers(0, 9, 5))
    assert [d.mechanism for d in rng.draws] == [
        "numpy.laplace",
        "numpy.normal",
        "numpy.standard_normal",
        "numpy.laplace",
    ]


C = np.array([11.0, 0, 0, 3, 0, 0, 0, 5])
PATTERNS = {
    "counts + noise": lambda rng: C + rng.laplace(0, 2, C.shape),
    "noise + counts": lambda rng: rng.laplace(0, 2, C.shape) + C,
    "loc=counts": lambda rng: rng.laplace(loc=C, scale=2),
    "counts - noise": lambda rng: C - rng.laplace(0, 2, 8),
    "in place": lambda rng: _iadd(C.copy(), rng.laplace(0, 2, 8)),
    "scaled draw": lambda rng: C + 2 * rng.laplace(0, 1, 8),
    "divided draw": lambda rng: C + rng.laplace(0, 8, 8) / 4,
    "a Series": lambda rng: (pd.Series(C) + rng.laplace(0, 2, 8)).to_numpy(),
    "np.add": lambda rng: np.add(C, rng.laplace(0, 2, 8)),
}


def _iadd(a, b):
    a += b
    return a


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_noise_added_to_a_query_records_the_query(pattern):
    rng = RecordingGenerator(3)
    noisy = PATTERNS[pattern](rng)
    ref = np.random.default_rng(3).laplace(0, 1 if pattern == "scaled draw" else 2, 8)
    ref = ref * {"scaled draw": 2, "divided draw": 0.25}.get(pattern, 1)
    if pattern == "divided draw":
        ref = np.random.default_rng(3).laplace(0, 8, 8) / 4
    expected = C - ref if pattern == "counts - noise" else C + ref
    assert type(noisy) is np.ndarray and np.allclose(noisy, expected, rtol=0, atol=1e-12)
    (draw,) = rng.draws
    assert np.array_equal(draw.value, C) and draw.shape == (8,)
    assert draw.scale == 2.0 and math.isnan(draw.sensitivity)


def test_a_scalar_draw_added_to_a_count_records_the_count():
    rng = RecordingGenerator(0)
    noisy = 11 + rng.laplace(0, 1.5)
    assert noisy == 11 + np.random.default_rng(0).laplace(0, 1.5)
    (draw,) = rng.draws
    assert draw.value.tolist() == 11.0 and draw.scale == 1.5


def test_a_draw_never_added_keeps_its_loc_and_transformations_drop_the_record():
    rng = RecordingGenerator(0)
    z = rng.normal(size=3)
    rounded = np.round(rng.laplace(0, 2, 3))  # not a noisy query: the draw stays unattached
    _ = C[:3] + rounded
    assert type(rounded) is np.ndarray
    assert [d.value.tolist() for d in rng.draws] == [[0.0] * 3, [0.0] * 3]
    assert z.sum() == pytest.approx(np.random.default_rng(0).normal(size=3).sum(), rel=1e-12)


def test_draws_inside_synthtrust_privacy_are_recorded_once_by_the_mechanism():
    rng = RecordingGenerator(2)
    with record_mechanisms() as calls:
        out = laplace(C, scale=2.0, random_state=rng)
    assert rng.draws == []
    assert [c.mechanism for c in calls] == ["laplace"]
    assert np.array_equal(out, C + np.random.default_rng(2).laplace(0.0, 2.0, 8))


def test_spawned_and_copied_generators_record_into_the_same_tape():
    rng = RecordingGenerator(4)
    (child,) = rng.spawn(1)
    twin = copy.deepcopy(rng)  # as sklearn.base.clone copies a random_state parameter
    from_child = C + child.laplace(0, 2, 8)
    from_twin = C + twin.normal(0, 3, 8)
    assert isinstance(child, RecordingGenerator) and isinstance(twin, RecordingGenerator)
    assert [d.mechanism for d in rng.draws] == ["numpy.laplace", "numpy.normal"]
    (ref_child,) = np.random.default_rng(4).spawn(1)
    assert np.array_equal(from_child, C + ref_child.laplace(0, 2, 8))
    assert np.array_equal(from_twin, C + np.random.default_rng(4).normal(0, 3, 8))


# --------------------------------------------------------------------------------------------
# replayed outputs: post-processing of noisy values may branch
# --------------------------------------------------------------------------------------------
SCALE = 4.0


def _seed_where_the_branch_differs() -> int:
    """A seed whose noise on the canary's cell (count 0 on D, 1 on D′) puts D and D′ on the two
    sides of the threshold 0.5 — the branch differs unless the run on D′ gets D's output."""
    for seed in range(200):
        noise = np.random.default_rng(seed).laplace(0, SCALE, 8)[-1]
        if (0 + noise > 0.5) != (1 + noise > 0.5):
            return seed
    raise AssertionError("no seed found")


class NumpyPostProcessing(_Base):
    def fit(self, X):
        rng = np.random.default_rng(self.random_state)
        counts = _counts(X, self.domain)
        noisy = counts + rng.laplace(0, SCALE, counts.shape)
        if noisy[-1] > 0.5:
            self.more_ = counts + rng.laplace(0, SCALE, counts.shape)
        return self


class PrivacyPostProcessing(_Base):
    def fit(self, X):
        counts = _counts(X, self.domain)
        noisy = laplace(counts, scale=SCALE, sensitivity=2, random_state=self.random_state)
        if noisy[-1] > 0.5:
            self.more_ = laplace(counts, scale=SCALE, sensitivity=2, random_state=self.random_state)
        return self


@pytest.mark.parametrize("cls", [NumpyPostProcessing, PrivacyPostProcessing])
def test_a_branch_on_noisy_values_is_post_processing(cls):
    seed = _seed_where_the_branch_differs()
    result = _audit(cls, epsilon=1.0, random_state=seed)
    assert result.sequences_match and result.n_calls == result.n_calls_prime
    assert result.verdict == "no violation detected"
    assert result.implied_epsilon == pytest.approx(result.n_calls * 2 / SCALE, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Gaussian noise, the exponential mechanism, mixed accounting
# --------------------------------------------------------------------------------------------
RHO, DELTA = 0.3, 1e-6


class GaussianHistogram(_Base):
    declared = math.sqrt(2)

    def fit(self, X):
        counts = _counts(X, self.domain)
        self.noisy_ = gaussian(
            counts, sensitivity=self.declared, rho=RHO, random_state=self.random_state
        )
        return self


class NumpyGaussian(_Base):
    def fit(self, X):
        rng = np.random.default_rng(self.random_state)
        sigma = math.sqrt(2) / math.sqrt(2 * RHO)
        self.noisy_ = _counts(X, self.domain) + rng.normal(0, sigma, 8)
        return self


@pytest.mark.parametrize("cls", [GaussianHistogram, NumpyGaussian])
def test_gaussian_noise_is_accounted_in_zcdp(cls):
    claim = cdp_epsilon(RHO, DELTA)
    result = replay_audit(cls, claim, delta=DELTA, neighbouring="replace_one")
    sigma = math.sqrt(2) / math.sqrt(2 * RHO)
    assert result.table["observed"].iloc[0] == pytest.approx(math.sqrt(2), rel=1e-12)
    assert result.rho_gaussian == pytest.approx(2 / (2 * sigma**2), rel=1e-12)  # = RHO
    assert result.implied_epsilon == pytest.approx(claim, rel=1e-9)
    assert result.verdict == "no violation detected"
    pure = replay_audit(cls, claim, delta=0.0, neighbouring="replace_one")
    assert pure.verdict == "violation" and pure.implied_epsilon == math.inf
    assert "Gaussian noise with delta = 0" in pure.reasons[-1]


def test_a_gaussian_with_too_small_a_declared_sensitivity_is_a_violation():
    cls = type("G", (GaussianHistogram,), {"declared": 1.0})
    result = replay_audit(cls, 100.0, delta=DELTA, neighbouring="replace_one")
    assert result.verdict == "violation"
    assert result.statistic == pytest.approx(math.sqrt(2), rel=1e-12)


class LaplaceAndGaussian(_Base):
    def fit(self, X):
        counts = _counts(X, self.domain)
        laplace(counts, scale=4.0, sensitivity=2, random_state=self.random_state)
        gaussian(counts, sensitivity=math.sqrt(2), rho=RHO, random_state=self.random_state)
        return self


def test_laplace_and_gaussian_calls_compose_by_the_tighter_of_two_bounds():
    result = replay_audit(LaplaceAndGaussian, 10.0, delta=DELTA, neighbouring="replace_one")
    eps_l = 2 / 4.0
    by_hand = min(eps_l + cdp_epsilon(RHO, DELTA), cdp_epsilon(RHO + eps_l**2 / 2, DELTA))
    assert result.epsilon_pure == pytest.approx(eps_l, rel=1e-12)
    assert result.rho_gaussian == pytest.approx(RHO, rel=1e-9)
    assert result.implied_epsilon == pytest.approx(by_hand, rel=1e-9)


class ExponentialSelection(_Base):
    declared = 1.0

    def fit(self, X):
        counts = _counts(X, self.domain)
        self.cell_ = exponential_mechanism(counts, self.epsilon, self.declared, self.random_state)
        return self


@pytest.mark.parametrize(
    ("declared", "verdict"), [(1.0, "no violation detected"), (0.5, "violation")]
)
def test_the_exponential_mechanism_on_counts_moves_by_one(declared, verdict):
    cls = type("X", (ExponentialSelection,), {"declared": declared})
    result = _audit(cls)
    assert result.table["observed"].iloc[0] == 1.0  # the largest change of one score
    assert result.implied_epsilon == pytest.approx(E / declared, rel=1e-12)
    assert result.verdict == verdict


# --------------------------------------------------------------------------------------------
# what the replay cannot see, the sample phase, the result
# --------------------------------------------------------------------------------------------
class NoNoise(_Base):
    def fit(self, X):
        self.X_ = X
        return self


class NoRandomState:
    def fit(self, X):
        return self

    def sample(self, n):
        return pd.DataFrame({"c0": np.zeros(n, dtype=int)})


def test_a_generator_that_records_nothing_is_not_passed():
    result = _audit(NoNoise)
    assert result.verdict == "nothing recorded" and result.verdict in REPLAY_VERDICTS
    assert "nothing recorded" in result.summary() and result.notes == ()
    other = replay_audit(NoRandomState, 1.0, neighbouring="add_remove")
    assert other.verdict == "nothing recorded"
    assert "did not keep the random_state Generator" in other.notes[0]


class LegacySeed(LaplaceHistogramDelta1):
    """Seeds numpy's legacy RandomState, which refuses a Generator."""

    def fit(self, X):
        self.legacy_ = np.random.RandomState(self.random_state)
        return super().fit(X)


def test_a_generator_that_refuses_a_generator_gets_the_int_seed():
    result = _audit(LegacySeed)
    assert "refused a numpy Generator as random_state" in result.notes[0]
    assert result.verdict == "violation" and result.table["observed"].tolist() == [2.0]


class MeasuresInSample(_Base):
    def fit(self, X):
        self.X_ = X
        return self

    def sample(self, n):
        counts = _counts(self.X_, self.domain)
        rng = np.random.default_rng(self.random_state)
        self.noisy_ = counts + rng.laplace(0, 1 / self.epsilon, 8)
        return super().sample(n)


def test_measurements_made_by_sample_are_recorded_too():
    result = _audit(MeasuresInSample)
    assert result.table["phase"].tolist() == ["sample"]
    assert result.verdict == "violation" and result.implied_epsilon == pytest.approx(2 * E)
    fit_only = _audit(MeasuresInSample, n_synthetic=0)
    assert fit_only.verdict == "nothing recorded"


def test_the_json_names_the_generator_params_relation_and_datasets():
    result = _audit(LaplaceHistogramDelta1)
    out = json.loads(result.to_json())
    assert out["verdict"] == "violation" and out["reasons"] == list(result.reasons)
    assert out["generator"] == f"{__name__}:LaplaceHistogramDelta1"
    assert out["params"] == {"epsilon": E}
    assert out["neighbouring"] == "replace_one"
    w = worst_case("replace_one")
    assert out["datasets"] == {
        "source": "worst case: 10 base records",
        "records_d": 11,
        "records_d_prime": 11,
        "canary": w.canary,
        "removed": w.removed,
        "domain": DOMAIN,
    }
    (row,) = out["table"]
    assert (row["declared"], row["observed"], row["ratio"], row["violation"]) == (
        1.0,
        2.0,
        2.0,
        True,
    )
    assert row["shape"] == [8] and row["phase"] == "fit"
    numpy_row = json.loads(_audit(NumpyHistogram).to_json())["table"][0]
    assert numpy_row["declared"] is None and numpy_row["ratio"] is None


def test_the_html_page_shows_the_verdict_the_setting_and_the_calls():
    page = render_replay_audit_html(_audit(LaplaceHistogramDelta1))
    assert "<strong>violation</strong>" in page
    assert f"{__name__}:LaplaceHistogramDelta1" in page
    assert "observed l1 sensitivity 2 &gt; declared 1" in page
    assert "replace-one" in page and "<td>parameter epsilon</td><td>0.7</td>" in page
    assert "<td>canary (in D′)</td><td>{&quot;c0&quot;: 1, &quot;c1&quot;: 1," in page
    assert "https://" not in page and "http://" not in page
    empty = render_replay_audit_html(_audit(NoNoise))
    assert "No call was recorded." in empty and "<strong>nothing recorded</strong>" in empty


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": 0.0}, "epsilon must be in (0.0, inf)"),
        ({"delta": 1.0}, "delta must be in [0.0, 1.0)"),
        ({"random_state": -1}, "random_state"),
        ({"generator_params": {"random_state": 3}}, "must not set random_state"),
        ({"neighbouring": "edit"}, "neighbouring must be one of"),
        ({"worlds": worst_case("add_remove")}, "worlds are add_remove neighbours"),
        ({"n_synthetic": -1}, "n_synthetic"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, message):
    kwargs = {"epsilon": 1.0, "neighbouring": "replace_one", **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        replay_audit(LaplaceHistogram, kwargs.pop("epsilon"), **kwargs)


def test_without_a_relation_a_class_that_declares_none_is_refused():
    with pytest.raises(ValueError, match="neighbouring must be given"):
        replay_audit(LaplaceHistogram, 1.0)
