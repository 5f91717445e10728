"""Tests of ``synthtrust.synthesizers.marginal.measurement`` (noisy marginal measurements and
the estimate of the number of records). The oracles: a marginal counted by a loop over the
records plus the Gaussian draws of a generator seeded alike (``rng.normal(0, σ)`` per cell), the
ledger's ρ = 1/(2σ²) of L2 sensitivity 1 (bun2016); a measurement's total and its variance by
hand (Σ y_j / w_j, σ²·Σ 1/w_j²); the inverse-variance weighted mean of the totals by hand, and
its floor at one record.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthtrust.privacy.ledger import PrivacyLedger
from synthtrust.synthesizers.marginal.measurement import Measurement, measure, total_estimate


def test_measure_adds_gaussian_noise_to_the_counts_and_records_rho():
    sizes = (3, 2, 4)
    X = np.random.default_rng(1).integers(0, sizes, (50, 3))
    counts = np.zeros((3, 4))
    for a, _, c in X:
        counts[a, c] += 1
    ledger = PrivacyLedger()
    m = measure(X, sizes, [0, 2], 1.5, np.random.default_rng(7), ledger, note="a,c")
    noise = np.random.default_rng(7).normal(0.0, 1.5, 12)
    np.testing.assert_allclose(m.values, counts.ravel() + noise, rtol=0, atol=1e-12)
    assert m.clique == (0, 2) and m.stddev == 1.5 and m.weights is None
    (entry,) = ledger.entries
    assert entry.mechanism == "gaussian" and entry.rho == pytest.approx(1 / (2 * 1.5**2))
    assert entry.sensitivity == 1.0 and entry.scale == 1.5 and entry.note == "a,c"
    assert ledger.total_rho == pytest.approx(2 / 9)
    # the empty clique measures the number of records: a vector of one cell
    empty = measure(X, sizes, (), 2.0, np.random.default_rng(3), ledger)
    assert empty.values.shape == (1,)
    assert empty.values[0] == pytest.approx(50 + np.random.default_rng(3).normal(0.0, 2.0))
    assert len(ledger.entries) == 2


def test_the_total_of_one_measurement_and_its_variance():
    plain = Measurement((0,), np.array([3.0, 5.0, -1.0]), 2.0)
    assert plain.total() == (7.0, 12.0)  # σ² per cell, three cells
    # MST's merged cell: (Σ of 4 noisy counts)/√4 = 3 published with weight 1/2 stands for 6
    weighted = Measurement((1,), np.array([2.0, 3.0]), 2.0, np.array([1.0, 0.5]))
    assert weighted.total() == (8.0, 4.0 * (1 + 4))


def test_total_estimate_is_the_inverse_variance_weighted_mean():
    a = Measurement((0,), np.array([40.0, 60.0]), 1.0)  # total 100, variance 2
    b = Measurement((0, 1), np.array([30.0, 30.0, 20.0, 30.0]), 2.0)  # 110, variance 16
    c = Measurement((1,), np.array([50.0, 30.0]), 1.0, np.array([0.5, 1.0]))  # 130, variance 5
    want = (100 / 2 + 110 / 16 + 130 / 5) / (1 / 2 + 1 / 16 + 1 / 5)
    assert total_estimate([a, b, c]) == pytest.approx(want, rel=1e-14)
    assert total_estimate([a]) == 100.0
    # noise can make the estimate negative: floored at one record; none measured: 1
    assert total_estimate([Measurement((0,), np.array([-3.0, 1.0]), 1.0)]) == 1.0
    assert total_estimate([]) == 1.0


# ------------------------------------------------------------------ the white-box audit's view
def test_audit_entries_are_the_measurements_reshaped_with_names_and_level_maps():
    from synthtrust.synthesizers.marginal.measurement import audit_entries

    values = np.arange(6.0)
    m = Measurement((0, 2), values, 1.5)
    (entry,) = audit_entries([m], ["a", "b", "c"], [2, 5, 3])
    clique, y, noise, scale, levels = entry
    assert clique == ("a", "c") and noise == "gaussian" and scale == 1.5 and levels is None
    np.testing.assert_array_equal(y, values.reshape(2, 3))
    y[0, 0] = 99.0  # a copy: the view reads only
    assert m.values[0] == 0.0
    maps = [np.array([0, 0]), np.array([0]), np.array([1, 0, 0])]
    (entry,) = audit_entries([Measurement((0, 2), np.arange(2.0), 1.0)], "abc", [1, 1, 2], maps)
    assert entry[1].shape == (1, 2)
    assert [list(x) for x in entry[4]] == [[0, 0], [1, 0, 0]]
    with pytest.raises(ValueError, match=r"clique \(0,\) is weighted"):
        audit_entries([Measurement((0,), np.ones(2), 1.0, np.ones(2))], "a", [2])


def _scores(cls, world: int, n: int, **params):
    """Per fit of ``cls`` on the worst case's world: (white-box score, μ² = Σ Δ²/σ²)."""
    from synthtrust.dp_audit import whitebox_score, worst_case

    w = worst_case("add_remove")
    out = []
    for seed in range(n):
        gen = cls(epsilon=1.0, delta=1e-2, domain=w.domain, random_state=seed, **params)
        view = gen.fit((w.with_canary if world else w.without).copy()).audit_view()
        out.append((whitebox_score(view, w), sum(1 / e[3] ** 2 for e in view)))
    return np.array(out)


@pytest.mark.parametrize("name", ["MST", "AIM", "MWEMPGM"])
def test_the_white_box_score_of_the_released_measurements_is_their_gaussian_likelihood_ratio(name):
    """Oracle: under add/remove every measurement holds the canary's cell once (MST's tree
    marginals on the compressed levels too), so given the σ's the score is N(−μ²/2, μ²) on D and
    N(+μ²/2, μ²) on D′ with μ² = Σ 1/σ² (Neyman–Pearson for Gaussian noise): the standardised
    scores of 200 fits a world have mean 0 and variance 1. MST's μ² is fixed by its budget:
    2·(2ρ/3), the ρ of its measurements (a third of ρ is spent on the tree's selection)."""
    import warnings

    from synthtrust import synthesizers
    from synthtrust.privacy import cdp_rho

    cls = getattr(synthesizers, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # AIM's and MWEM+PGM's few PGM steps
        for world, sign in ((0, -1), (1, 1)):
            s = _scores(cls, world, 200, max_iter=50)
            z = (s[:, 0] - sign * s[:, 1] / 2) / np.sqrt(s[:, 1])
            assert abs(z.mean()) < 4 / np.sqrt(200)
            assert 0.7 < z.var() < 1.35
    if name == "MST":
        np.testing.assert_allclose(s[:, 1], 2 * (2 * cdp_rho(1.0, 1e-2) / 3), rtol=1e-12)
