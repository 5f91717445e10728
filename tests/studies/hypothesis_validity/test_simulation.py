"""Tests of synthtrust.studies.hypothesis_validity.simulation (chapter 1) against independent oracles.

Oracles: explicit per-value bin assignment and ``np.histogram``; the cardio CSV read directly;
the documented draw order reproduced with generators seeded identically; SciPy's tests on the
expanded (synthetic) data; ``scipy.stats.binomtest(...).proportion_ci(method="exact")``;
binomial bands for Type I error rates with fixed seeds (Montoya Perez et al. 2024, §4–5).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from synthtrust import datasets, hypothesis
from synthtrust.run.experiment import cell_key, run_grid
from synthtrust.studies.hypothesis_validity import simulation as hv
from synthtrust.synthesizers import (
    mwem_counts,
    perturbed_histogram,
    private_pgm,
    smoothed_histogram,
)

OUT_COLUMNS = ["rep", "test", "pvalue", "reject", "feasible"]
PAPER_EPS = [0.01, 0.1, 1, 5, 10]
PAPER_SIZES = [50, 100, 500, 1000, 20000]
PAPER_SMOOTHED = [50, 100, 500, 1000]


@dataclass(frozen=True)
class Paper:
    """A discretisation of the paper, written out here for the oracles (§4.1)."""

    cuts: np.ndarray
    values: np.ndarray
    split: float

    @property
    def n_bins(self) -> int:
        return len(self.values)


#: 100 bins [k, k+1), k = 1..100 (first and last open-ended), centres; χ² split at the mean 50.
GAUSS = Paper(np.arange(2.0, 101.0), np.arange(1, 101) + 0.5, 50.0)
#: BMI: < 18, [18, 19), ..., [39, 40), >= 40, centres; χ² split at BMI 25.
CARDIO = Paper(np.arange(18.0, 41.0), np.arange(17, 41) + 0.5, 25.0)


# ----------------------------------------------------------------------------------- helpers
def gens(seed: int, reps: int, key: int = 0) -> list[np.random.Generator]:
    """Replicate generators as run_grid makes them: SeedSequence(seed, spawn_key=(key, rep))."""
    return [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(key, r))) for r in range(reps)
    ]


def cell(data, method, n, epsilon=None, m=None, alpha=0.05, delta=1e-6, n_sim=200) -> dict:
    return {
        "data": data,
        "method": method,
        "n": n,
        "m": n if m is None else m,
        "epsilon": epsilon,
        "alpha": alpha,
        "delta": delta,
        "n_sim": n_sim,
    }


def bin_of(v: float, cuts: np.ndarray) -> int:
    """The bin of one value, straight from the definition (open-ended first and last bins)."""
    if v < cuts[0]:
        return 0
    for k in range(1, len(cuts)):
        if cuts[k - 1] <= v < cuts[k]:
            return k
    return len(cuts)


def loop_counts(v, bins: Paper) -> np.ndarray:
    return np.bincount([bin_of(float(x), bins.cuts) for x in v], minlength=bins.n_bins)


def histogram_counts(v, bins: Paper) -> np.ndarray:
    edges = np.r_[-np.inf, bins.cuts, np.inf]
    return np.histogram(v, bins=edges)[0]


_CARDIO = None


def cardio_oracle():
    """(bmi, group) read from the CSV here (group 0 = disease), independent of cardio_pool()."""
    global _CARDIO
    if _CARDIO is None:
        df = pd.read_csv(datasets.path("cardio"), sep=";")
        bmi = df["weight"].to_numpy(float) / (df["height"].to_numpy(float) / 100) ** 2
        _CARDIO = bmi, np.where(df["cardio"].to_numpy() == 1, 0, 1)
    return _CARDIO


def reproduce_samples(data: str, n: int, rngs) -> list[tuple[np.ndarray, np.ndarray]]:
    """The documented draws: Gaussian x then y (sizes n//2, n - n//2); cardio: n indices
    without replacement, split by group."""
    means = {"nonsignal": ((50, 2), (50, 2)), "signal": ((51, 1), (50, 1))}
    out = []
    for r in rngs:
        if data == "cardio":
            bmi, group = cardio_oracle()
            idx = r.choice(len(bmi), size=n, replace=False)
            out.append((bmi[idx][group[idx] == 0], bmi[idx][group[idx] == 1]))
        else:
            (mx, sx), (my, sy) = means[data]
            x = r.normal(mx, sx, n // 2)
            out.append((x, r.normal(my, sy, n - n // 2)))
    return out


def _cochran_oracle(table: np.ndarray) -> bool:
    """Cochran's rule on a 2 × k table: every expected count >= 1, >= 80 % of them >= 5."""
    expected = stats.contingency.expected_freq(table)
    return bool(np.all(expected >= 1) and np.mean(expected >= 5) >= 0.8)


def scipy_tests(x, y, split: float) -> dict[str, tuple[float, bool]]:
    """SciPy's four tests on raw (or expanded synthetic) values, with the study's feasibility
    rules written out: both groups present; t: two records per group; χ²: the crosstab of
    group × (value >= split) (absent categories dropped, as pandas.crosstab) and Cochran."""
    both = len(x) > 0 and len(y) > 0
    if not both:
        return {t: (np.nan, False) for t in hv.TESTS}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = stats.mannwhitneyu(x, y).pvalue
        out["mannwhitneyu"] = (p, bool(np.isfinite(p)))
        p = stats.ttest_ind(x, y).pvalue
        out["ttest_ind"] = (p, len(x) > 1 and len(y) > 1 and bool(np.isfinite(p)))
        try:
            p = stats.median_test(x, y)[1]
        except ValueError:  # "All values are below the grand median"
            p = np.nan
        out["median_test"] = (p, bool(np.isfinite(p)))
        table = np.array(
            [[np.sum(x < split), np.sum(x >= split)], [np.sum(y < split), np.sum(y >= split)]]
        )
        if (table.sum(axis=0) > 0).all():
            p = stats.chi2_contingency(table).pvalue
            out["chi2"] = (p, _cochran_oracle(table) and bool(np.isfinite(p)))
        else:  # a constant dichotomy: SciPy raises (zero expected frequencies); infeasible
            out["chi2"] = (np.nan, False)
    return out


def by_test(df: pd.DataFrame, test: str) -> pd.DataFrame:
    return df[df.test == test].sort_values("rep").reset_index(drop=True)


def assert_matches_oracle(df: pd.DataFrame, oracle: list[dict], alpha: float) -> None:
    """Every (replicate, test) row of ``df`` equals the oracle's p-value and feasibility."""
    for test in hv.TESTS:
        got = by_test(df, test)
        want_p = np.array([o[test][0] for o in oracle])
        want_f = np.array([o[test][1] for o in oracle])
        assert got.feasible.tolist() == want_f.tolist(), test
        np.testing.assert_allclose(
            got.pvalue.to_numpy()[want_f], want_p[want_f], rtol=1e-10, atol=1e-13, err_msg=test
        )
        assert got.reject.tolist() == (want_f & (want_p <= alpha)).tolist(), test


def band(reps: int, p: float = 0.05, level: float = 0.999) -> tuple[float, float]:
    """Central ``level`` interval of the number of rejections among ``reps`` at rate ``p``."""
    lo, hi = stats.binom.interval(level, reps, p)
    return lo, hi


# ----------------------------------------------------------------------------------- binning
def test_gaussian_bins_are_the_papers_100_bins():
    b = hv.GAUSSIAN_BINS
    assert b.n_bins == 100 and len(b.cuts) == 99
    np.testing.assert_array_equal(b.cuts, np.arange(2, 101))
    np.testing.assert_array_equal(b.values, np.arange(1, 101) + 0.5)
    assert b.split == 50
    # bin k = [k, k+1), k = 1..100: below 2 in the first, 100 and above in the last
    counts = b.counts(np.array([-7, 1.0, 1.99, 2.0, 49.99, 50.0, 99.99, 100, 1e6]))
    expected = np.zeros(100, int)
    for k in (0, 0, 0, 1, 48, 49, 98, 99, 99):
        expected[k] += 1
    np.testing.assert_array_equal(counts, expected)


def test_cardio_bins_are_the_papers_24_bmi_bins():
    """<18, [18, 19), ..., [39, 40), >=40 (paper §4.1)."""
    b = hv.CARDIO_BINS
    assert b.n_bins == 24
    np.testing.assert_array_equal(b.cuts, np.arange(18, 41))
    np.testing.assert_array_equal(b.values, np.r_[17.5:41])
    assert b.split == 25
    counts = b.counts(np.array([10.0, 17.999, 18.0, 18.5, 24.999, 25.0, 39.999, 40.0, 75.0]))
    expected = np.zeros(24, int)
    for k in (0, 0, 1, 1, 7, 8, 22, 23, 23):
        expected[k] += 1
    np.testing.assert_array_equal(counts, expected)


def _values_with_edges(bins: Paper, rng) -> np.ndarray:
    cuts = bins.cuts
    lo, hi = cuts[0] - 5, cuts[-1] + 5
    return np.concatenate(
        [
            rng.uniform(lo, hi, 300),
            cuts,  # exactly on every cut point
            np.nextafter(cuts, -np.inf),  # just below every cut point
            [-1e9, cuts[0] - 1e-9, cuts[-1], cuts[-1] + 1e-9, 1e9],  # outside the range
        ]
    )


@pytest.mark.parametrize(
    "bins, paper", [(hv.GAUSSIAN_BINS, GAUSS), (hv.CARDIO_BINS, CARDIO)], ids=["gaussian", "cardio"]
)
def test_counts_equal_brute_force(bins, paper):
    rng = np.random.default_rng(1)
    v = _values_with_edges(paper, rng)
    want = loop_counts(v, paper)
    np.testing.assert_array_equal(histogram_counts(v, paper), want)
    np.testing.assert_array_equal(bins.counts(v), want)
    np.testing.assert_array_equal(hv._one_counts(v, bins), want)
    assert want.sum() == len(v)
    # leading axes: every row counted on its own
    many = rng.permuted(np.tile(v, (3, 2, 1)), axis=-1)
    got = bins.counts(many)
    assert got.shape == (3, 2, bins.n_bins)
    for i in range(3):
        for j in range(2):
            np.testing.assert_array_equal(got[i, j], loop_counts(many[i, j], paper))


def test_group_counts_equal_brute_force_with_empty_group():
    bins = hv.CARDIO_BINS
    rng = np.random.default_rng(2)
    samples = [
        (rng.uniform(10, 50, 40), rng.uniform(10, 50, 7)),
        (rng.uniform(10, 50, 3), np.array([])),
        (np.array([18.0, 40.0]), np.array([17.0, 45.0, 25.0])),
    ]
    got = hv._group_counts(samples, bins)
    assert got.shape == (3, 2, 24)
    for i, (x, y) in enumerate(samples):
        np.testing.assert_array_equal(got[i, 0], loop_counts(x, CARDIO))
        np.testing.assert_array_equal(got[i, 1], loop_counts(y, CARDIO))


def test_counts_of_an_empty_sample_are_zero():
    np.testing.assert_array_equal(hv.CARDIO_BINS.counts(np.array([])), np.zeros(24, int))


# ---------------------------------------------------------------------------------- the data
def test_cardio_pool():
    bmi, group = hv.cardio_pool()
    assert bmi.shape == group.shape == (70_000,)
    assert np.count_nonzero(group == 0) == 34_979  # disease present (paper §4.1)
    assert np.count_nonzero(group == 1) == 35_021
    # hand-checked rows 0-2 of cardio_train.csv: height 168/156/165 cm, weight 62/85/64 kg,
    # cardio 0/1/1
    np.testing.assert_allclose(bmi[:3], [21.967120181, 34.927679158, 23.507805326], rtol=1e-10)
    np.testing.assert_array_equal(group[:3], [1, 0, 0])
    want_bmi, want_group = cardio_oracle()
    np.testing.assert_allclose(bmi, want_bmi, rtol=1e-15)
    np.testing.assert_array_equal(group, want_group)
    assert not bmi.flags.writeable and not group.flags.writeable
    assert hv.cardio_pool()[0] is bmi  # cached


def test_gaussian_samples_sizes_and_draw_order():
    for n in (1, 2, 51, 100):
        rngs = gens(3, 2)
        got = hv.original_samples("nonsignal", n, rngs)
        want = reproduce_samples("nonsignal", n, gens(3, 2))
        for (x, y), (wx, wy) in zip(got, want, strict=True):
            assert (len(x), len(y)) == (n // 2, n - n // 2)
            np.testing.assert_array_equal(x, wx)
            np.testing.assert_array_equal(y, wy)


@pytest.mark.parametrize(
    "data, mx, sx, my, sy", [("nonsignal", 50, 2, 50, 2), ("signal", 51, 1, 50, 1)]
)
def test_gaussian_samples_moments(data, mx, sx, my, sy):
    n = 400_000
    ((x, y),) = hv.original_samples(data, n, gens(4, 1))
    half = n // 2
    for v, mu, sd in ((x, mx, sx), (y, my, sy)):
        assert abs(v.mean() - mu) < 5 * sd / np.sqrt(half)
        assert abs(v.std(ddof=1) - sd) < 5 * sd / np.sqrt(2 * half)


def test_cardio_samples_without_replacement():
    bmi, group = cardio_oracle()
    n = 1000
    got = hv.original_samples("cardio", n, gens(5, 3))
    for r, (x, y) in zip(gens(5, 3), got, strict=True):
        idx = r.choice(len(bmi), size=n, replace=False)
        assert len(np.unique(idx)) == n
        assert len(x) + len(y) == n
        np.testing.assert_array_equal(x, bmi[idx][group[idx] == 0])
        np.testing.assert_array_equal(y, bmi[idx][group[idx] == 1])
    # n = every record: without replacement, each group is exactly the full group
    ((x, y),) = hv.original_samples("cardio", 70_000, gens(6, 1))
    np.testing.assert_array_equal(np.sort(x), np.sort(bmi[group == 0]))
    np.testing.assert_array_equal(np.sort(y), np.sort(bmi[group == 1]))
    with pytest.raises(ValueError, match="70001"):
        hv.original_samples("cardio", 70_001, gens(6, 1))


def test_unknown_data_is_rejected():
    with pytest.raises(ValueError, match="unknown data 'gaussian'"):
        hv.original_samples("gaussian", 10, gens(0, 1))


# -------------------------------------------------------------------------------------- grid
def _grid(methods, data=("nonsignal", "signal")):
    return hv.build_grid(
        data=list(data),
        methods=list(methods),
        sizes=PAPER_SIZES,
        epsilon=PAPER_EPS,
        smoothed_original_size=20000,
        smoothed_sizes=PAPER_SMOOTHED,
        alpha=0.05,
        delta=1e-6,
        n_sim=1000,
    )


def test_build_grid_is_table_1():
    cells = _grid(hv.METHODS)
    per = pd.DataFrame(cells).groupby(["data", "method"]).size()
    for data in ("nonsignal", "signal"):
        assert per[(data, "real")] == 5
        assert per[(data, "smoothed_histogram")] == 4 * 5
        for method in ("dp_mwu", "perturbed_histogram", "private_pgm", "mwem"):
            assert per[(data, method)] == 5 * 5
    # the cells themselves, enumerated from Table 1
    want = set()
    for data in ("nonsignal", "signal"):
        want |= {(data, "real", n, n, None) for n in PAPER_SIZES}
        want |= {
            (data, "smoothed_histogram", 20000, m, e) for m in PAPER_SMOOTHED for e in PAPER_EPS
        }
        for method in ("dp_mwu", "perturbed_histogram", "private_pgm", "mwem"):
            want |= {(data, method, n, n, e) for n in PAPER_SIZES for e in PAPER_EPS}
    got = [(c["data"], c["method"], c["n"], c["m"], c["epsilon"]) for c in cells]
    assert len(got) == len(set(got)) and set(got) == want
    assert all((c["alpha"], c["delta"], c["n_sim"]) == (0.05, 1e-6, 1000) for c in cells)
    assert len({cell_key(c) for c in cells}) == len(cells)  # run_grid accepts it
    assert len(_grid(["mwem"], data=["cardio"])) == 25


def test_build_grid_rejects_unknown_method_by_name():
    with pytest.raises(ValueError, match="dp_gan"):
        _grid(["real", "dp_gan"])


# ----------------------------------------------------------------------------- simulate_cell
@pytest.mark.parametrize(
    "data, n",
    [("nonsignal", 12), ("signal", 41), ("cardio", 150)],
    ids=["exact", "asymp", "cardio"],
)
def test_real_method_equals_scipy_on_the_raw_samples(data, n):
    """n = 12: groups of 6, SciPy's exact MWU path; cardio: tied BMI values."""
    params = cell(data, "real", n)
    df = hv.simulate_cell(params, gens(11, 6))
    assert list(df.columns) == OUT_COLUMNS
    assert len(df) == 6 * len(hv.TESTS)
    split = (CARDIO if data == "cardio" else GAUSS).split
    oracle = [scipy_tests(x, y, split) for x, y in reproduce_samples(data, n, gens(11, 6))]
    assert_matches_oracle(df, oracle, 0.05)
    for test in hv.TESTS:
        assert by_test(df, test).rep.tolist() == list(range(6))


SYNTH_CASES = [
    ("perturbed_histogram", 60, 60, 1.0, 6),
    ("perturbed_histogram", 100, 100, 0.1, 8),  # heavy noise: false rejections
    ("perturbed_histogram", 12, 12, 0.1, 8),  # tiny tables: χ² infeasible (Cochran)
    ("smoothed_histogram", 3000, 80, 1.0, 6),
    ("mwem", 60, 60, 1.0, 6),
    ("private_pgm", 60, 60, 1.0, 4),
]


def _reproduce_synthetic(method, data, n, m, eps, rngs):
    bins = CARDIO if data == "cardio" else GAUSS
    samples = reproduce_samples(data, n, rngs)
    counts = np.stack(
        [np.stack([histogram_counts(x, bins), histogram_counts(y, bins)]) for x, y in samples]
    )
    flat = counts.reshape(len(rngs), -1)
    shape = (2, bins.n_bins)
    if method == "perturbed_histogram":
        syn = perturbed_histogram(flat, eps, n_synthetic=m, random_state=rngs)
    elif method == "smoothed_histogram":
        syn = smoothed_histogram(flat, eps, m, random_state=rngs)
    elif method == "mwem":
        syn = mwem_counts(flat, eps, shape, n_synthetic=m, random_state=rngs)
    else:
        syn = private_pgm(flat, eps, shape, n_synthetic=m, random_state=rngs)
    return syn.reshape(len(rngs), 2, bins.n_bins), bins


@pytest.mark.parametrize("method, n, m, eps, reps", SYNTH_CASES)
def test_synthesizer_method_equals_scipy_on_the_expanded_synthetic_data(method, n, m, eps, reps):
    data = "nonsignal"
    df = hv.simulate_cell(cell(data, method, n, epsilon=eps, m=m), gens(12, reps))
    assert list(df.columns) == OUT_COLUMNS
    syn, bins = _reproduce_synthetic(method, data, n, m, eps, gens(12, reps))
    assert (syn.sum(axis=(1, 2)) == m).all()
    oracle = []
    for i in range(reps):
        x = np.repeat(bins.values, syn[i, 0])
        y = np.repeat(bins.values, syn[i, 1])
        oracle.append(scipy_tests(x, y, bins.split))
    assert_matches_oracle(df, oracle, 0.05)


def test_tests_from_counts_equal_scipy_on_random_tables():
    """Random sparse count tables (incl. an empty group, one bin, all values on one side of
    the split) against SciPy on the expanded data and the feasibility rules written out."""
    rng = np.random.default_rng(13)
    for bins, paper in ((hv.GAUSSIAN_BINS, GAUSS), (hv.CARDIO_BINS, CARDIO)):
        k = paper.n_bins
        tables = [rng.poisson(rng.choice([0.05, 0.3, 2.0]), size=(2, k)) for _ in range(60)]
        one_bin = np.zeros((2, k), int)
        one_bin[:, 3] = [4, 6]
        low_only = np.zeros((2, k), int)
        low_only[:, :5] = rng.integers(0, 4, size=(2, 5))
        low_only[:, 0] += 1
        high_only = np.zeros((2, k), int)
        high_only[:, -3:] = 7
        empty_y = np.zeros((2, k), int)
        empty_y[0, 10:20] = 1
        few = np.zeros((2, k), int)
        few[0, 0], few[1, -1] = 1, 1
        tables += [one_bin, low_only, high_only, empty_y, few]
        counts = np.stack(tables)
        got = hv._tests_from_counts(counts, bins)
        assert set(got) == set(hv.TESTS)
        for i, table in enumerate(tables):
            x = np.repeat(paper.values, table[0])
            y = np.repeat(paper.values, table[1])
            want = scipy_tests(x, y, paper.split)
            for test in hv.TESTS:
                p, feasible = got[test][0][i], got[test][1][i]
                assert bool(feasible) == want[test][1], (bins.n_bins, i, test)
                if feasible:
                    np.testing.assert_allclose(p, want[test][0], rtol=1e-10, atol=1e-13)


def test_chi2_is_scipy_on_the_dichotomised_2x2_table():
    """χ² with Yates' correction on group × (value >= split), as scipy.stats.chi2_contingency."""
    rng = np.random.default_rng(14)
    bins = hv.GAUSSIAN_BINS
    counts = rng.poisson(3.0, size=(40, 2, bins.n_bins))
    p, feasible = hv._tests_from_counts(counts, bins)["chi2"]
    high = GAUSS.values >= 50
    for i in range(40):
        table = np.array([[c[~high].sum(), c[high].sum()] for c in counts[i]])
        res = stats.chi2_contingency(table, correction=True)
        np.testing.assert_allclose(p[i], res.pvalue, rtol=1e-10)
        assert feasible[i] == (
            np.all(res.expected_freq >= 1) and np.mean(res.expected_freq >= 5) >= 0.8
        )


def test_dp_mwu_method_is_the_dp_test_on_the_raw_samples():
    params = cell("nonsignal", "dp_mwu", 80, epsilon=0.5, delta=1e-5, alpha=0.1, n_sim=150)
    df = hv.simulate_cell(params, gens(15, 5))
    assert list(df.columns) == OUT_COLUMNS
    assert df.test.unique().tolist() == ["dp_mwu"]
    rngs = gens(15, 5)
    for (x, y), r, row in zip(
        reproduce_samples("nonsignal", 80, rngs), rngs, df.itertuples(), strict=True
    ):
        res = hypothesis.dp_mannwhitneyu(
            x, y, 0.5, delta=1e-5, alpha=0.1, n_sim=150, random_state=r
        )
        assert row.pvalue == float(res.pvalue)
        assert row.reject == (row.pvalue <= 0.1) and row.feasible


@pytest.mark.parametrize("method", ["perturbed_histogram", "dp_mwu", "mwem", "real"])
def test_simulate_cell_is_deterministic(method):
    params = cell("signal", method, 50, epsilon=None if method == "real" else 1.0)
    a = hv.simulate_cell(params, gens(16, 4))
    b = hv.simulate_cell(params, gens(16, 4))
    pd.testing.assert_frame_equal(a, b)
    c = hv.simulate_cell(params, gens(17, 4))
    assert not np.array_equal(a.pvalue.to_numpy(), c.pvalue.to_numpy())


def test_simulate_cell_rejects_unknown_method():
    with pytest.raises(ValueError, match="'gan'"):
        hv.simulate_cell(cell("nonsignal", "gan", 20, epsilon=1.0), gens(0, 1))


def test_simulate_cell_accepts_any_generator():
    df = hv.simulate_cell(cell("nonsignal", "real", 20), [np.random.default_rng(0)])
    assert len(df) == len(hv.TESTS)


# ------------------------------------------------------------------------------- error_rates
def _rows(data, method, test, n_reps, n_feasible, k, epsilon=1.0, n=100):
    """n_reps replicates of one cell: the first k feasible ones rejected."""
    feasible = np.arange(n_reps) < n_feasible
    reject = np.arange(n_reps) < k
    assert k <= n_feasible
    return pd.DataFrame(
        {
            "data": data,
            "method": method,
            "n": n,
            "m": n,
            "epsilon": epsilon,
            "rep": np.arange(n_reps),
            "test": test,
            "pvalue": np.where(reject, 0.01, 0.5),
            "reject": reject,
            "feasible": feasible,
        }
    )


def test_error_rates_on_a_hand_built_frame():
    results = pd.concat(
        [
            _rows("nonsignal", "mwem", "mannwhitneyu", 40, 30, 9),  # Type I 9/30
            _rows("signal", "mwem", "mannwhitneyu", 40, 40, 31),  # Type II 9/40
            _rows("nonsignal", "real", "chi2", 40, 2, 0, epsilon=None),  # exactly 5 % feasible
            _rows("nonsignal", "mwem", "ttest_ind", 40, 1, 1),  # below 5 %: NaN
            _rows("signal", "mwem", "ttest_ind", 40, 40, 40),  # no Type II error
            _rows("nonsignal", "private_pgm", "ttest_ind", 40, 20, 20),  # every one rejected
            _rows("cardio", "private_pgm", "median_test", 40, 0, 0),  # none feasible
        ],
        ignore_index=True,
    )
    out = hv.error_rates(results)
    assert len(out) == 7
    assert set(out.columns) >= {"error", "rate", "lo", "hi", "n_feasible", "n_reps"}
    want = [  # (error, errors, n_feasible, shown)
        ("Type I", 9, 30, True),
        ("Type II", 9, 40, True),
        ("Type I", 0, 2, True),
        ("Type I", 1, 1, False),
        ("Type II", 0, 40, True),
        ("Type I", 20, 20, True),
        ("Type II", 0, 0, False),
    ]
    for row, (error, k, nf, shown) in zip(out.itertuples(), want, strict=True):
        assert row.error == error and row.n_feasible == nf and row.n_reps == 40
        if not shown:
            assert np.isnan(row.rate) and np.isnan(row.lo) and np.isnan(row.hi)
            continue
        ci = stats.binomtest(k, nf).proportion_ci(confidence_level=0.95, method="exact")
        assert row.rate == pytest.approx(k / nf, rel=1e-12)
        assert row.lo == pytest.approx(ci.low, rel=1e-9, abs=1e-12)
        assert row.hi == pytest.approx(ci.high, rel=1e-9, abs=1e-12)
    assert np.isnan(out.epsilon.iloc[2])  # "real" has no ε and is not dropped
    # the threshold moves with min_feasible
    strict = hv.error_rates(results, min_feasible=0.5)
    assert strict.rate.notna().tolist() == [True, True, False, False, True, True, False]
    loose = hv.error_rates(results, min_feasible=0.0)
    assert loose.rate.iloc[3] == 1.0 and np.isnan(loose.rate.iloc[6])


# ------------------------------------------------------------------- statistical behaviour
def _rate(params, reps, key, test="mannwhitneyu", seed=2024):
    df = hv.simulate_cell(params, gens(seed, reps, key))
    sel = df[df.test == test]
    assert sel.feasible.all()
    return int(sel.reject.sum()), reps


@pytest.mark.parametrize("test", ["mannwhitneyu", "ttest_ind"])
def test_real_data_type_i_error_is_nominal(test):
    k, reps = _rate(cell("nonsignal", "real", 1000), 400, key=1, test=test)
    lo, hi = band(reps)
    assert lo <= k <= hi, (k, reps)


def test_dp_mwu_type_i_error_is_nominal():
    k, reps = _rate(cell("nonsignal", "dp_mwu", 200, epsilon=1.0), 300, key=2, test="dp_mwu")
    lo, hi = band(reps)
    assert lo <= k <= hi, (k, reps)


def test_perturbed_histogram_inflates_type_i_error_at_small_epsilon():
    """Paper Fig. 4a: n = 1000, ε = 0.1 — far above α."""
    k, reps = _rate(cell("nonsignal", "perturbed_histogram", 1000, epsilon=0.1), 300, key=3)
    assert k / reps > 0.2


def test_perturbed_histogram_is_valid_with_large_n_and_epsilon():
    """Paper Fig. 4a: n = 20 000, ε = 10 — back at α."""
    k, reps = _rate(cell("nonsignal", "perturbed_histogram", 20000, epsilon=10.0), 400, key=4)
    lo, hi = band(reps)
    assert lo <= k <= hi, (k, reps)


def test_smoothed_histogram_controls_type_i_error_but_loses_power():
    """Paper Fig. 5: Type I at most α; Type II high at small ε."""
    k, reps = _rate(cell("nonsignal", "smoothed_histogram", 20000, epsilon=0.1, m=1000), 400, key=5)
    assert k <= band(reps)[1], (k, reps)
    k, reps = _rate(cell("signal", "smoothed_histogram", 20000, epsilon=0.1, m=100), 300, key=6)
    assert (reps - k) / reps > 0.8  # Type II error


# ----------------------------------------------------------------------------------- run_grid
def test_run_grid_same_results_for_any_n_jobs():
    cells = hv.build_grid(
        data=["nonsignal"],
        methods=list(hv.METHODS),
        sizes=[40],
        epsilon=[1.0],
        smoothed_original_size=400,
        smoothed_sizes=[30],
        alpha=0.05,
        delta=1e-6,
        n_sim=50,
    )
    assert {c["method"] for c in cells} == set(hv.METHODS)
    one = run_grid(hv.simulate_cell, cells, 6, seed=3, n_jobs=1, progress=False)
    two = run_grid(hv.simulate_cell, cells, 6, seed=3, n_jobs=2, chunk_size=4, progress=False)
    pd.testing.assert_frame_equal(one, two)
    assert len(one) == 6 * (len(hv.TESTS) * 5 + 1)
    assert set(one.method) == set(hv.METHODS)
    # the replicate column is run_grid's index, and error_rates sees every cell
    assert sorted(one.rep.unique()) == list(range(6))
    assert len(hv.error_rates(one)) == len(hv.TESTS) * 5 + 1


def test_pgm_iters_reach_private_pgm_only():
    cells = hv.build_grid(
        data=["nonsignal"],
        methods=["private_pgm", "mwem"],
        sizes=[50],
        epsilon=[1.0],
        smoothed_original_size=20000,
        smoothed_sizes=[50],
        alpha=0.05,
        delta=1e-6,
        n_sim=10,
        pgm_max_iter=100,
    )
    by_method = {c["method"]: c for c in cells}
    assert by_method["private_pgm"]["iters"] == 100 and "iters" not in by_method["mwem"]
    from synthtrust.synthesizers import private_pgm

    rngs = [np.random.default_rng(s) for s in (1, 2)]
    got = hv.simulate_cell(by_method["private_pgm"], rngs)
    # the same replicates by hand: original samples -> counts -> private_pgm(max_iter=100),
    # from the cell key "iters" (kept: the seed of a cell hashes its keys)
    again = [np.random.default_rng(s) for s in (1, 2)]
    counts = hv._group_counts(hv.original_samples("nonsignal", 50, again), hv.GAUSSIAN_BINS)
    syn = private_pgm(
        counts.reshape(2, 200), 1.0, (2, 100), n_synthetic=50, max_iter=100, random_state=again
    ).reshape(2, 2, 100)
    want = hv._tests_from_counts(syn, hv.GAUSSIAN_BINS)["mannwhitneyu"][0]
    np.testing.assert_allclose(got[got.test == "mannwhitneyu"].pvalue.to_numpy(), want)


# ------------------------------------------------------------ bins and variables as parameters
def test_regular_bins_are_the_papers_and_validate():
    np.testing.assert_array_equal(
        hv.BinnedVariable.regular(*hv.GAUSSIAN_BIN_SPEC).cuts, np.arange(2.0, 101.0)
    )
    b = hv.BinnedVariable.regular(100, 180, 20, split=140)
    np.testing.assert_array_equal(b.cuts, [100, 120, 140, 160, 180])
    np.testing.assert_array_equal(b.values, [90, 110, 130, 150, 170, 190])
    assert b.n_bins == 6 and b.split == 140.0
    with pytest.raises(ValueError, match="positive multiple of width"):
        hv.BinnedVariable.regular(100, 170, 20, split=140)
    with pytest.raises(ValueError, match="positive multiple of width"):
        hv.BinnedVariable.regular(100, 180, 0, split=140)
    with pytest.raises(ValueError, match="split=130 must be one of the cuts"):
        hv.BinnedVariable.regular(100, 180, 20, split=130)


def test_cardio_pool_other_variable_and_group():
    df = pd.read_csv(datasets.path("cardio"), sep=";")
    values, group = hv.cardio_pool("ap_hi", "gender")
    np.testing.assert_array_equal(values, df["ap_hi"].to_numpy(float))
    # gender codes 1/2: group 0 = the largest code (2)
    np.testing.assert_array_equal(group, np.where(df["gender"].to_numpy() == 2, 0, 1))
    with pytest.raises(ValueError, match="variable='nope' is not a column"):
        hv.cardio_pool("nope")
    with pytest.raises(ValueError, match="group='cholesterol' must have two values, it has 3"):
        hv.cardio_pool("bmi", "cholesterol")


def test_build_grid_adds_bins_and_variable_only_off_the_paper():
    kw = dict(
        methods=["real"],
        sizes=[100],
        epsilon=[1.0],
        smoothed_original_size=20000,
        smoothed_sizes=[50],
        alpha=0.05,
        delta=1e-6,
        n_sim=10,
    )
    paper = hv.build_grid(data=["nonsignal", "cardio"], **kw)
    assert (
        paper
        == hv.build_grid(data=["nonsignal", "cardio"], bins=hv.GAUSSIAN_BIN_SPEC, **kw)[:1]
        + paper[1:]
    )
    assert all("bins" not in c and "variable" not in c for c in paper)
    cells = hv.build_grid(data=["cardio"], bins=(100, 180, 20, 140), variable="ap_hi", **kw)
    assert cells[0]["bins"] == (100.0, 180.0, 20.0, 140.0) and cells[0]["variable"] == "ap_hi"
    assert cells[0]["group"] == "cardio"
    with pytest.raises(ValueError, match="bins must be"):
        hv.build_grid(data=["cardio"], bins=(1, 2), **kw)
    # the cell really uses them: a systolic pressure sample falls in the 6 custom bins
    out = hv.simulate_cell({**cells[0], "n": 100}, [np.random.default_rng(0)])
    assert set(out.test) == set(hv.TESTS) and out.feasible.all()


def test_failed_datasets_counts_infeasible_synthetic_sets():
    rates = pd.DataFrame(
        {
            "data": "nonsignal",
            "method": ["private_pgm"] * 3 + ["real", "mwem"],
            "epsilon": [0.01, 0.01, 1.0, np.nan, 0.01],
            "m": [50, 50, 50, 50, 50],
            "test": ["mannwhitneyu", "chi2", "chi2", "chi2", "chi2"],
            "n_reps": 100,
            "n_feasible": [60, 40, 100, 90, 100],
        }
    )
    table = hv.failed_datasets(rates)
    # the real-data row and the rows/columns without failures are left out
    assert table.index.tolist() == [("nonsignal", "private_pgm", 0.01)]
    assert table.columns.tolist() == [(50, "chi2"), (50, "mannwhitneyu")]
    assert table.iloc[0].tolist() == [60, 40]
    with pytest.raises(ValueError, match="rates must have the columns"):
        hv.failed_datasets(rates.drop(columns="n_feasible"))
