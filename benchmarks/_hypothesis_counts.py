"""Part 1 of ``bench_hypothesis.py``: the counts data and the two paths it times on them.

Synthetic count matrices as chapter 1's study produces them (``make_counts``), the four tests by
``synthtrust.hypothesis.*_counts`` on all replicates at once or in chunks (``time_vectorized``,
``time_study_helper``), the same tests by ``scipy.stats`` in a Python loop over replicates on the
expanded raw samples (``scipy_one``, ``scipy_loop``), and the assertion that the p-values agree
(``check_agreement``).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy import stats

from synthtrust import hypothesis
from synthtrust.studies.hypothesis_validity import simulation as hv

TOL = 1e-10
#: the study's Gaussian scenario without a true difference (equal group means)
NO_SIGNAL = next(k for k, ((mx, _), (my, _)) in hv.GAUSSIAN.items() if mx == my)


def make_counts(sizes, epsilons, reps, seed):
    """Synthetic (reps, 2, 100) counts per (n, ε) cell, exactly as simulate_cell builds them."""
    bins = hv.GAUSSIAN_BINS
    cells, blocks = [], []
    for i, n in enumerate(sizes):
        for j, eps in enumerate(epsilons):
            rngs = [
                np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i, j, r)))
                for r in range(reps)
            ]
            samples = hv.original_samples(NO_SIGNAL, n, rngs)
            counts = hv._group_counts(samples, bins)
            del samples
            syn = hv._synthesize("perturbed_histogram", counts, eps, n, rngs)
            cells.append((n, eps))
            blocks.append(syn)
    return cells, np.stack(blocks)  # (cells, reps, 2, n_bins)


def dichotomise(cx, cy, bins):
    high = bins.values >= bins.split
    dx = np.stack([cx[:, ~high].sum(-1), cx[:, high].sum(-1)], axis=-1)
    dy = np.stack([cy[:, ~high].sum(-1), cy[:, high].sum(-1)], axis=-1)
    return dx, dy


def vectorized_tests(cx, cy, bins):
    """The four counts tests; returns ({test: pvalues}, {test: seconds})."""
    out, t = {}, {}
    s = time.perf_counter()
    out["mannwhitneyu"] = hypothesis.mannwhitneyu_counts(cx, cy).pvalue
    t["mannwhitneyu"] = time.perf_counter() - s
    s = time.perf_counter()
    out["ttest_ind"] = hypothesis.ttest_ind_counts(cx, cy, bins.values).pvalue
    t["ttest_ind"] = time.perf_counter() - s
    s = time.perf_counter()
    out["median_test"] = hypothesis.median_test_counts(cx, cy, bins.values).pvalue
    t["median_test"] = time.perf_counter() - s
    s = time.perf_counter()
    dx, dy = dichotomise(cx, cy, bins)
    out["chi2"] = hypothesis.chi2_counts(dx, dy).pvalue
    t["chi2"] = time.perf_counter() - s
    return out, t


def time_vectorized(flat, bins, repeats, chunk=None):
    """Best-of-``repeats`` time per test over all replicates (in chunks of ``chunk`` if given)."""
    best = {k: np.inf for k in hv.TESTS}
    pvals = None
    for _ in range(repeats):
        acc = dict.fromkeys(hv.TESTS, 0.0)
        parts = []
        step = flat.shape[0] if chunk is None else chunk
        for a in range(0, flat.shape[0], step):
            c = flat[a : a + step]
            p, t = vectorized_tests(c[:, 0], c[:, 1], bins)
            parts.append(p)
            for k in acc:
                acc[k] += t[k]
        for k in best:
            best[k] = min(best[k], acc[k])
        pvals = {k: np.concatenate([np.atleast_1d(p[k]) for p in parts]) for k in hv.TESTS}
    return pvals, best


def time_study_helper(flat, bins, repeats, chunk):
    """The study's own ``_tests_from_counts`` (4 tests + feasibility rules), per chunk."""
    best = np.inf
    for _ in range(repeats):
        s = time.perf_counter()
        for a in range(0, flat.shape[0], chunk):
            hv._tests_from_counts(flat[a : a + chunk], bins)
        best = min(best, time.perf_counter() - s)
    return best


def scipy_one(cx_i, cy_i, bins):
    """One replicate with scipy.stats on the expanded raw samples; ({test: p}, {step: seconds})."""
    t = {}
    s = time.perf_counter()
    x = np.repeat(bins.values, cx_i)
    y = np.repeat(bins.values, cy_i)
    t["expand"] = time.perf_counter() - s
    p = dict.fromkeys(hv.TESTS, np.nan)
    if x.size == 0 or y.size == 0:  # the study: NaN (SciPy raises or warns on an empty group)
        for k in hv.TESTS:
            t[k] = 0.0
        return p, t
    s = time.perf_counter()
    p["mannwhitneyu"] = stats.mannwhitneyu(x, y).pvalue
    t["mannwhitneyu"] = time.perf_counter() - s
    s = time.perf_counter()
    p["ttest_ind"] = stats.ttest_ind(x, y).pvalue
    t["ttest_ind"] = time.perf_counter() - s
    s = time.perf_counter()
    try:
        p["median_test"] = stats.median_test(x, y)[1]
    except ValueError:  # "All values are below the grand median": NaN in the study
        p["median_test"] = np.nan
    t["median_test"] = time.perf_counter() - s
    s = time.perf_counter()
    hx = np.count_nonzero(x >= bins.split)
    hy = np.count_nonzero(y >= bins.split)
    table = np.array([[x.size - hx, hx], [y.size - hy, hy]])
    table = table[:, table.sum(0) > 0]  # crosstab keeps only the categories present
    p["chi2"] = stats.chi2_contingency(table).pvalue
    t["chi2"] = time.perf_counter() - s
    return p, t


def scipy_loop(counts, k_per_cell):
    """SciPy on the first ``k_per_cell`` replicates of every cell (all if k >= reps)."""
    bins = hv.GAUSSIAN_BINS
    n_cells, reps = counts.shape[:2]
    k = min(k_per_cell, reps)
    steps = ("expand", *hv.TESTS)
    per_cell = np.zeros((n_cells, len(steps)))
    pvals = {t: np.full((n_cells, k), np.nan) for t in hv.TESTS}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for c in range(n_cells):
            for r in range(k):
                p, t = scipy_one(counts[c, r, 0], counts[c, r, 1], bins)
                for j, st in enumerate(steps):
                    per_cell[c, j] += t[st]
                for test in hv.TESTS:
                    pvals[test][c, r] = p[test]
    # linear extrapolation per cell (cost depends on n): × reps / k
    total = {st: float(per_cell[:, j].sum() * reps / k) for j, st in enumerate(steps)}
    return pvals, total, k


def check_agreement(vec, ref, n_cells, reps, k):
    """Assert |p_vec − p_scipy| <= 1e-10 (1 + |p_scipy|) on every replicate run through SciPy."""
    worst = {}
    for test in hv.TESTS:
        a = vec[test].reshape(n_cells, reps)[:, :k]
        b = ref[test]
        both_nan = np.isnan(a) & np.isnan(b)
        diff = np.where(both_nan, 0.0, np.abs(a - b))
        bad = ~(diff <= TOL * (1 + np.abs(np.nan_to_num(b))))
        if bad.any():
            c, r = np.argwhere(bad)[0]
            raise AssertionError(
                f"{test}: {int(bad.sum())} replicate(s) disagree with SciPy beyond {TOL}; "
                f"first at cell {c}, replicate {r}: counts path {a[c, r]!r}, SciPy {b[c, r]!r}"
            )
        worst[test] = (
            float(np.nanmax(np.where(both_nan, 0.0, diff))),
            int(np.count_nonzero(np.isnan(b))),
        )
    return worst
