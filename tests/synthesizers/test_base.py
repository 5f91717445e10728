"""Tests of ``synthtrust.synthesizers.base``.

The oracles and the shared set-up are described in ``_synthesizer_data.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _synthesizer_data import DOMAIN, SHAPE, _count_matrix, _gens, _largest_remainder_brute, _table
from scipy import stats

from synthtrust.synthesizers import (
    MWEM,
    NotFittedError,
    PerturbedHistogram,
    PrivatePGM,
    SmoothedHistogram,
    counts_to_frame,
    frame_to_counts,
    largest_remainder,
    mwem_counts,
    perturbed_histogram,
    private_pgm,
    smoothed_histogram,
)


# ----------------------------------------------------------------------------------------------
# tables <-> counts, validation
# ----------------------------------------------------------------------------------------------
def test_frame_counts_round_trip():
    df = _table(300)
    cols, dom, counts = frame_to_counts(df, DOMAIN)
    assert cols == ["group", "value"] and dom == DOMAIN and counts.shape == (20,)
    brute = np.zeros(SHAPE, int)
    for g, v in zip(df["group"], df["value"], strict=True):
        brute[g, v] += 1
    np.testing.assert_array_equal(counts, brute.ravel())
    back = counts_to_frame(counts, SHAPE, cols, random_state=0)
    assert len(back) == 300 and list(back.columns) == cols
    np.testing.assert_array_equal(frame_to_counts(back, DOMAIN)[2], counts)


@pytest.mark.parametrize("Synth", [PerturbedHistogram, SmoothedHistogram, MWEM, PrivatePGM])
def test_bad_inputs_raise_clear_errors(Synth):
    df = _table(50)
    with pytest.raises(ValueError, match="epsilon"):
        Synth(epsilon=0.0, domain=DOMAIN).fit(df)
    with pytest.raises(ValueError, match="epsilon"):
        Synth(epsilon=-1.0, domain=DOMAIN).fit(df)
    with pytest.raises(TypeError, match="epsilon"):
        Synth(epsilon="1", domain=DOMAIN).fit(df)
    synth = Synth(epsilon=1.0, domain=DOMAIN, random_state=0)
    with pytest.raises(NotFittedError):
        synth.sample(5)
    with pytest.raises(ValueError, match="'value' has code 10, outside the domain 0..9"):
        synth.fit(df.assign(value=df["value"] + 1 * (df.index == 3) * (10 - df["value"])))
    with pytest.raises(ValueError, match="'value' has code -1"):
        synth.fit(df.assign(value=np.where(df.index == 0, -1, df["value"])))
    with pytest.raises(ValueError, match="'group' has 1 missing"):
        synth.fit(df.assign(group=np.where(df.index == 2, np.nan, df["group"])))
    with pytest.raises(ValueError, match="non-integer"):
        synth.fit(df.assign(value=df["value"] + 0.5))
    with pytest.raises(TypeError, match="'group' has dtype"):
        synth.fit(df.assign(group=df["group"].astype(str)))
    with pytest.raises(ValueError, match="no rows"):
        synth.fit(df.iloc[:0])
    with pytest.raises(TypeError, match="DataFrame"):
        synth.fit(df.to_numpy())
    with pytest.raises(ValueError, match=r"columns \['extra'\] of the data are not in the domain"):
        synth.fit(df.assign(extra=0))
    with pytest.raises(ValueError, match=r"domain columns \['value'\] are not in the data"):
        synth.fit(df[["group"]])
    with pytest.raises(ValueError, match="domain"):
        Synth(epsilon=1.0, domain={"group": 0, "value": 10}).fit(df)
    synth.fit(df)
    with pytest.raises(ValueError, match="n must be >= 1"):
        synth.sample(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        synth.sample(2.5)


def test_functional_forms_validate_counts_and_generators():
    counts = _count_matrix(3, 100)
    with pytest.raises(ValueError, match="non-negative integer"):
        perturbed_histogram(counts - 1000, 1.0)
    with pytest.raises(ValueError, match="no records"):
        perturbed_histogram(np.zeros((2, 20)), 1.0)
    with pytest.raises(ValueError, match="3 replicates"):
        perturbed_histogram(counts, 1.0, random_state=_gens(2))
    with pytest.raises(ValueError, match="rounding"):
        perturbed_histogram(counts, 1.0, rounding="nearest")
    with pytest.raises(ValueError, match="shape"):
        mwem_counts(counts, 1.0, (3, 10))
    with pytest.raises(ValueError, match="iterations=40 exceeds"):
        mwem_counts(counts, 1.0, SHAPE, iterations=40)
    with pytest.raises(ValueError, match="epsilon"):
        smoothed_histogram(counts, -1.0, 10)
    with pytest.raises(ValueError, match="total"):
        private_pgm(counts, 1.0, SHAPE, total="known")


def test_largest_remainder_matches_brute_force_and_sums_to_n():
    rng = np.random.default_rng(0)
    for _ in range(200):
        cells = int(rng.integers(1, 15))
        w = rng.integers(0, 6, cells).astype(float) * rng.choice([1.0, 0.37])
        n = int(rng.integers(0, 60))
        u = rng.random(cells)
        out = largest_remainder(w, n, u)
        assert out.sum() == n and out.dtype == np.int64
        np.testing.assert_array_equal(out, _largest_remainder_brute(w, n, u))
        if w.sum() > 0:
            quota = w / w.sum() * n
            assert np.all(out >= np.floor(quota)) and np.all(out <= np.ceil(quota))


def test_largest_remainder_all_zero_is_uniform_and_ties_are_random():
    np.testing.assert_array_equal(
        largest_remainder(np.zeros(4), 8, np.random.default_rng(0).random(4)), [2] * 4
    )
    rng = np.random.default_rng(1)
    picks = np.array([largest_remainder(np.ones(4), 1, rng.random(4)) for _ in range(4000)])
    assert picks.sum(axis=1).tolist() == [1] * 4000
    assert stats.chisquare(picks.sum(axis=0)).pvalue > 0.001  # every tied cell equally likely


# ----------------------------------------------------------------------------------------------
# every synthesizer spends exactly ε
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("eps", [0.01, 1.0, 3.0])
def test_every_synthesizer_ledger_sums_to_epsilon(eps):
    df = _table(200, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for synth in [
            PerturbedHistogram(eps, domain=DOMAIN, random_state=0),
            SmoothedHistogram(eps, n_synthetic=30, domain=DOMAIN, random_state=0),
            MWEM(eps, domain=DOMAIN, iterations=7, random_state=0),
            PrivatePGM(eps, domain=DOMAIN, max_iter=100, random_state=0),
        ]:
            synth.fit(df)
            assert synth.ledger_.total_epsilon == pytest.approx(eps, rel=1e-12, abs=0)
            assert synth.ledger_.total_delta == 0.0
            frame = synth.ledger_.to_frame()
            assert frame["epsilon"].sum() == pytest.approx(eps, rel=1e-12)
            assert synth.card()["total_epsilon"] == synth.ledger_.total_epsilon
