"""Chapter 1, multivariate part — four tests on DP synthetic data from a simulated medical table.

Montoya Perez et al. (2024) [``montoyaperez2024``], §4.1 and §5.3 (Figures 9 and 10), fitted
SDV's Gaussian copula to a private prostate-cancer table (age ~ normal; PSA and prostate volume
~ beta; 5-ARI use binary; PI-RADS ordinal; a low/high-risk class label), drew simulated
"original" datasets from it, released DP synthetic data from each with Private-PGM and MWEM,
and ran on the synthetic data one test per variable type: Mann–Whitney U on the ordinal,
Student's t on the normal, Mood's median test on the continuous, χ² on the binary.

The prostate data are private, so this module fits the same kind of copula
(:class:`synthtrust.synthesizers.copula.GaussianCopula`) to a public medical table with the same
variable types, the Kaggle cardiovascular data [``ulianova2019``] (70 000 records):

=============== ======================================= ============ ===============
column          definition                              family       paper analogue
=============== ======================================= ============ ===============
``cardio``      cardiovascular disease (0 absent, 1)    discrete     class label
``age``         age in years (days / 365.25)            normal       age
``bmi``         weight / (height in m)², kg/m²          beta         PSA
``cholesterol`` 1 normal, 2 above, 3 well above normal  discrete     PI-RADS
``active``      physically active (0/1)                 discrete     5-ARI use
=============== ======================================= ============ ===============

The paper's sixth column, prostate volume (beta, no test on it), has no counterpart here: the
synthesizers see five columns, not six (so Private-PGM splits ε over 15 marginals, not 21).
``active`` (20 % inactive) rather than ``smoke`` (9 % smokers) is the binary: with 9 % the χ²
test's expected counts are below 5 in most originals of n ≤ 100, and the class difference in
smoking is smaller. Records with an implausible BMI (outside :data:`BMI_RANGE`, 72 records with
height or weight entry errors) are dropped before fitting, so that the beta's support, the
observed range, is plausible (chapter 1 keeps them; they fall in its open-ended end bins).

The copula's class differences are weaker than the data's, because the normal-score correlation
of a discrete column is attenuated (see :mod:`synthtrust.synthesizers.copula`): between
``cardio = 1`` and ``cardio = 0``, mean age differs by 3.2 years in the data and 2.1 in the
copula (seed :data:`COPULA_SEED`, 50 000 records per class), median BMI by 2.0 and 1.3 kg/m²,
mean cholesterol level by 0.30 and 0.11, the share active by −2.9 and −0.9 percentage points.
The signal scenario is therefore a weaker signal than the real table's, and the χ² test on
``active`` has little power even at n = 20 000.

Scenarios (paper §4.1): *non-signal* — ``n`` records drawn with ``cardio = 0`` (the copula's
conditional distribution; the paper: the low-risk class), then a random half of them, ``n // 2``
records, relabelled as the second group; *signal* — ``n // 2`` records with ``cardio = 0`` and
``n − n // 2`` with ``cardio = 1``. The synthesizers see the table ``group × age band × BMI bin
× cholesterol × active`` (2 × 8 × 24 × 3 × 2 = 2304 cells), with public bins:
:data:`AGE_BINS` (5-year bands, < 35, [35, 40), …, [60, 65), ≥ 65; centres 32.5, …, 67.5) and
:data:`BMI_BINS` (chapter 1's 24 bins: < 18, [18, 19), …, [39, 40), ≥ 40; centres). A synthetic
record takes its bin's centre, so the t-test runs on age-band centres and the median test on
BMI-bin centres; MW U and χ² see the exact levels. The reference row ("real") runs the same
tests on the raw simulated original (continuous age and BMI).

Synthesizers (paper §4.3, "Setup for Simulated Multivariate Data"): Private-PGM and MWEM, as in
chapter 1 (:data:`synthtrust.studies.hypothesis_validity.simulation.SYNTHESIZERS`, all 1- and 2-way
marginals of the five columns); the perturbed histogram of the 2304-cell joint is available as an
extension (``"perturbed_histogram"``). Synthetic size m = n.

Feasibility (paper supplement A.2, as chapter 1): every test needs both groups present in the
synthetic data; the t-test at least two records per group and a non-constant variable (SciPy's
p-value is then NaN); MW U and the median test a finite p-value; χ² both levels of the binary
present and every expected count ≥ 5 (on a 2 × 2 table the same as Cochran's rule that chapter
1 uses). Error rates are computed on the feasible datasets only, and only where at least
:data:`MIN_FEASIBLE` = 50 synthetic datasets were feasible, the paper's condition (§4.3, of
1000 datasets): :func:`error_rates`. The paper's Tables S1 (non-signal) and S2 (signal) count
the unusable datasets of this study.

Cost (CPU seconds per replicate, one core, shared machine): the reference ≈ 0.002 s for n ≤ 1000
and ≈ 0.03 s at n = 20 000 (mostly drawing the original from the copula); MWEM ≈ 0.007–0.036 s;
Private-PGM at 500 mirror-descent steps ≈ 0.005 s in chunks of 200 replicates and ≈ 0.012 s in
chunks of 10 (the dense numpy fit of :mod:`synthtrust.synthesizers.pgm`, whose junction tree
here is one node; mbi's ``estimate`` per replicate, the reference path: 0.06–0.11 s;
``benchmarks/bench_pgm_dense.py``). The chapter runs the grid in chunks of 50 replicates.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from synthtrust import datasets, hypothesis, verdicts
from synthtrust._jax import import_mbi
from synthtrust.run.experiment import replicate_index, run_grid
from synthtrust.studies.hypothesis_validity import simulation as hv
from synthtrust.studies.hypothesis_validity.findings import (
    VALID_TYPE1,
    cell_counts,
    cell_label,
    cells,
    claim_row,
    select_cells,
)
from synthtrust.studies.hypothesis_validity.simulation import (
    CARDIO_BINS,
    SYNTHESIZERS,
    BinnedVariable,
)
from synthtrust.synthesizers.copula import GaussianCopula
from synthtrust.verdicts import rate_difference

__all__ = [
    "AGE_BINS",
    "BMI_BINS",
    "BMI_RANGE",
    "COLUMNS",
    "COPULA_SEED",
    "METHODS",
    "MIN_FEASIBLE",
    "PAPER_METHODS",
    "SHAPE",
    "STUDY_KEYS",
    "TESTS",
    "build_multivariate_grid",
    "cardio_copula",
    "cardio_table",
    "error_rates",
    "joint_counts",
    "multivariate_cell",
    "original_samples",
    "run_multivariate_study",
    "verdict_rows",
    "warm_up",
]

#: Columns of the simulated table and their copula families (the class first).
COLUMNS = {
    "cardio": "discrete",
    "age": "normal",
    "bmi": "beta",
    "cholesterol": "discrete",
    "active": "discrete",
}

#: Each test and the variable it runs on (paper §4.3: MW U on the ordinal, t on the normal,
#: median on the other continuous, χ² on the binary).
TESTS = {"mannwhitneyu": "cholesterol", "ttest_ind": "age", "median_test": "bmi", "chi2": "active"}

#: Plausible BMI (kg/m²); records outside are dropped before fitting the copula.
BMI_RANGE = (10.0, 60.0)

#: A rate of this study (and its verdict) needs at least this many feasible synthetic datasets:
#: the paper's condition, "met in at least 50 of the generated DP-synthetic datasets" of 1000
#: (§4.3). A cell with fewer has no rate (NaN) and its verdict is undetermined.
MIN_FEASIBLE = 50

#: Seed of the copula fit (the jitter of the discrete columns' normal scores).
COPULA_SEED = 2024

#: Age: 5-year bands < 35, [35, 40), …, [60, 65), ≥ 65; a synthetic record takes the centre
#: (32.5, 37.5, …, 67.5). ``split`` is unused here (χ² runs on ``active``).
AGE_BINS = BinnedVariable.regular(35, 65, 5, split=50)

#: BMI: chapter 1's 24 bins (< 18, [18, 19), …, [39, 40), ≥ 40), centres 17.5, …, 40.5.
BMI_BINS = CARDIO_BINS

#: Levels of the discrete test variables, in order.
CHOLESTEROL_LEVELS = (1, 2, 3)
ACTIVE_LEVELS = (0, 1)

#: Shape of the table the synthesizers see: group × age band × BMI bin × cholesterol × active.
SHAPE = (2, AGE_BINS.n_bins, BMI_BINS.n_bins, len(CHOLESTEROL_LEVELS), len(ACTIVE_LEVELS))

#: The synthesizers of the paper's multivariate experiments.
PAPER_METHODS = ("private_pgm", "mwem")

#: Methods of this study: the reference on the simulated original and the synthesizers.
METHODS = ("real", *PAPER_METHODS, "perturbed_histogram")

DATA = ("nonsignal", "signal")

# Private-PGM runs on the batched path of :func:`synthtrust.synthesizers.private_pgm`: the model's
# cliques are the ten pairs of columns, whose junction tree is ONE node holding all five columns,
# so mbi's mirror descent runs on the dense 2304-cell joint, in numpy, vectorized over the
# replicates of a chunk (``pgm._fit_dense``: the same model as one mbi
# ``MirrorDescent().estimate`` per replicate up to rounding), and the synthetic counts come from
# the vectorized randomized rounding (``pgm.round_joint_counts``: the distribution of mbi's
# ``synthetic_data(method="round")``). At 500 steps this costs 0.004-0.012 s CPU per replicate
# against 0.05-0.12 s for the former ``batched=False`` (``benchmarks/bench_pgm_dense.py``).


# --------------------------------------------------------------------------------------------
# the table and the copula
# --------------------------------------------------------------------------------------------
def warm_up() -> None:
    """What every worker process needs once (``run_grid(..., warm_up=warm_up)``): JAX and mbi
    (Private-PGM reads its loss's cliques and Lipschitz constant from mbi) and the copula, by one
    small Private-PGM cell. The dense fit compiles nothing, so this costs the imports and the
    copula fit only."""
    import_mbi()
    cell = {
        "data": "signal",
        "method": "private_pgm",
        "n": 50,
        "m": 50,
        "alpha": 0.05,
        "copula_seed": COPULA_SEED,
        "epsilon": 1.0,
        "iters": 2,
    }
    multivariate_cell(cell, [np.random.default_rng(0)])


@lru_cache(maxsize=1)
def _cardio_table() -> pd.DataFrame:
    df = datasets.load("cardio")
    bmi = df["weight"] / (df["height"] / 100.0) ** 2
    table = pd.DataFrame(
        {
            "cardio": df["cardio"].astype(np.int64),
            "age": df["age"] / 365.25,
            "bmi": bmi,
            "cholesterol": df["cholesterol"].astype(np.int64),
            "active": df["active"].astype(np.int64),
        }
    )
    keep = table["bmi"].between(*BMI_RANGE)
    return table.loc[keep].reset_index(drop=True)


def cardio_table() -> pd.DataFrame:
    """The five columns of :data:`COLUMNS` for the cardio records with BMI in :data:`BMI_RANGE`
    (69 928 of 70 000 records); a fresh copy."""
    return _cardio_table().copy()


@lru_cache(maxsize=4)
def cardio_copula(seed: int = COPULA_SEED) -> GaussianCopula:
    """The Gaussian copula (families :data:`COLUMNS`, jittered scores) fitted to
    :func:`cardio_table` with ``random_state=seed``. Cached per process; do not refit it."""
    return GaussianCopula(dict(COLUMNS), discrete_scores="jitter", random_state=int(seed)).fit(
        _cardio_table()
    )


def original_samples(
    data: str, n: int, rngs: list[np.random.Generator], *, copula: GaussianCopula | None = None
) -> list[pd.DataFrame]:
    """One simulated original dataset per replicate.

    Parameters
    ----------
    data : {"nonsignal", "signal"}
        Non-signal: ``n`` records with ``cardio = 0``, of which a uniformly random ``n // 2``
        form group 1 and the rest group 0. Signal: ``n // 2`` records with ``cardio = 0``
        (group 0), then ``n − n // 2`` with ``cardio = 1`` (group 1).
    n : int ≥ 2
    rngs : list of numpy.random.Generator, one per replicate (draw order: the copula's
        conditional draws, then for non-signal the permutation).
    copula : GaussianCopula, optional
        Default :func:`cardio_copula`.

    Returns
    -------
    list of DataFrame with columns ``group`` (0/1), ``age``, ``bmi``, ``cholesterol``,
    ``active``; group 0 rows first for "signal".
    """
    if data not in DATA:
        raise ValueError(f"unknown data {data!r}; expected one of {DATA}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2 (two groups), got {n!r}")
    copula = cardio_copula() if copula is None else copula
    half = n // 2
    out = []
    for rng in rngs:
        if data == "nonsignal":
            frame = copula.sample(n, conditions={"cardio": 0}, random_state=rng)
            group = np.zeros(n, dtype=np.int64)
            group[rng.permutation(n)[:half]] = 1
        else:
            frame = pd.concat(
                [
                    copula.sample(half, conditions={"cardio": 0}, random_state=rng),
                    copula.sample(n - half, conditions={"cardio": 1}, random_state=rng),
                ],
                ignore_index=True,
            )
            group = np.repeat([0, 1], [half, n - half])
        frame = frame.drop(columns="cardio")
        frame.insert(0, "group", group)
        out.append(frame)
    return out


# --------------------------------------------------------------------------------------------
# discretisation and tests
# --------------------------------------------------------------------------------------------
def _bin(v, bins: BinnedVariable) -> np.ndarray:
    return np.searchsorted(bins.cuts, np.asarray(v, dtype=float), side="right")


def _level_codes(v, levels, name: str) -> np.ndarray:
    v = np.asarray(v)
    codes = np.searchsorted(np.asarray(levels), v)
    codes = np.minimum(codes, len(levels) - 1)
    if not np.array_equal(np.asarray(levels)[codes], v):
        raise ValueError(f"{name} has values outside its levels {levels}")
    return codes


def joint_counts(samples: list[pd.DataFrame]) -> np.ndarray:
    """(reps, 2304) counts of the simulated originals in the flattened :data:`SHAPE` table
    (C order: group, age band, BMI bin, cholesterol, active)."""
    out = np.empty((len(samples), int(np.prod(SHAPE))), dtype=np.int64)
    for i, f in enumerate(samples):
        idx = np.ravel_multi_index(
            (
                f["group"].to_numpy(np.int64),
                _bin(f["age"], AGE_BINS),
                _bin(f["bmi"], BMI_BINS),
                _level_codes(f["cholesterol"], CHOLESTEROL_LEVELS, "cholesterol"),
                _level_codes(f["active"], ACTIVE_LEVELS, "active"),
            ),
            SHAPE,
        )
        out[i] = np.bincount(idx, minlength=out.shape[1])
    return out


def _chi2(cx: np.ndarray, cy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """χ² on the group × binary table; feasible when both levels occur, both groups are
    present and every expected count is ≥ 5."""
    res = hypothesis.chi2_counts(cx, cy)
    both_levels = ((cx + cy) > 0).all(-1)
    with np.errstate(invalid="ignore"):
        expected_ok = (np.asarray(res.expected_freq) >= 5).all((-2, -1))
    p = np.asarray(res.pvalue, dtype=float)
    return p, both_levels & expected_ok & np.isfinite(p)


def _tests_from_counts(counts: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every test of :data:`TESTS` on synthetic (reps, 2304) counts → {test: (pvalue, feasible)}."""
    c = counts.reshape((-1, *SHAPE))
    per_group = {
        "age": c.sum(axis=(3, 4, 5)),  # (reps, 2, 8)
        "bmi": c.sum(axis=(2, 4, 5)),
        "cholesterol": c.sum(axis=(2, 3, 5)),
        "active": c.sum(axis=(2, 3, 4)),
    }
    n0 = c[:, 0].reshape(len(c), -1).sum(-1)
    n1 = c[:, 1].reshape(len(c), -1).sum(-1)
    both = (n0 > 0) & (n1 > 0)
    chol = per_group["cholesterol"]
    mwu = np.asarray(hypothesis.mannwhitneyu_counts(chol[:, 0], chol[:, 1]).pvalue, dtype=float)
    age = per_group["age"]
    tt = np.asarray(
        hypothesis.ttest_ind_counts(age[:, 0], age[:, 1], AGE_BINS.values).pvalue, dtype=float
    )
    bmi = per_group["bmi"]
    med = np.asarray(
        hypothesis.median_test_counts(bmi[:, 0], bmi[:, 1], BMI_BINS.values).pvalue, dtype=float
    )
    act = per_group["active"]
    chi_p, chi_ok = _chi2(act[:, 0], act[:, 1])
    return {
        "mannwhitneyu": (mwu, both & np.isfinite(mwu)),
        "ttest_ind": (tt, both & (n0 > 1) & (n1 > 1) & np.isfinite(tt)),
        "median_test": (med, both & np.isfinite(med)),
        "chi2": (chi_p, both & chi_ok),
    }


def _tests_from_raw(samples: list[pd.DataFrame]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The reference: t-test on raw age, median test on raw BMI, MW U and χ² on the levels."""
    counts = joint_counts(samples)
    out = _tests_from_counts(counts)  # MW U and χ² see exact levels: identical on raw data
    tt, med = [], []
    for f in samples:
        g = f["group"].to_numpy()
        age = f["age"].to_numpy(float)
        bmi = f["bmi"].to_numpy(float)
        tt.append(float(hypothesis.ttest_ind(age[g == 0], age[g == 1]).pvalue))
        med.append(float(hypothesis.median_test(bmi[g == 0], bmi[g == 1]).pvalue))
    tt, med = np.asarray(tt), np.asarray(med)
    out["ttest_ind"] = (tt, np.isfinite(tt))
    out["median_test"] = (med, np.isfinite(med))
    return out


# --------------------------------------------------------------------------------------------
# grid cell, grid, summary
# --------------------------------------------------------------------------------------------
def multivariate_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """One grid cell for :func:`synthtrust.run.experiment.run_grid`, for ``len(rngs)`` replicates.

    Parameters
    ----------
    params : dict
        ``data`` ("nonsignal" or "signal"), ``method`` (one of :data:`METHODS`), ``n``
        (original size), ``m`` (synthetic size; default n), ``epsilon`` (ignored for "real"),
        ``alpha``, ``copula_seed`` (default :data:`COPULA_SEED`), and for "private_pgm"
        optionally ``iters`` (mirror-descent steps, passed as ``max_iter`` to
        :func:`~synthtrust.synthesizers.private_pgm`).
    rngs : list of numpy.random.Generator, one per replicate.

    Returns
    -------
    DataFrame
        Long format, one row per (replicate, test): ``rep``, ``test``, ``variable`` (the column
        tested, :data:`TESTS`), ``pvalue``, ``reject`` (feasible and p ≤ α), ``feasible``.
    """
    data, method, n = params["data"], params["method"], int(params["n"])
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    copula = cardio_copula(int(params.get("copula_seed", COPULA_SEED)))
    samples = original_samples(data, n, rngs, copula=copula)
    if method == "real":
        results = _tests_from_raw(samples)
    else:
        counts = joint_counts(samples)
        size = int(params.get("m") or n)
        options = {}
        if method == "private_pgm":  # the dense batched path (see the comment above warm_up)
            if params.get("iters"):
                options["max_iter"] = int(params["iters"])  # cell key "iters": see cell_key
        syn = SYNTHESIZERS[method](counts, float(params["epsilon"]), SHAPE, size, rngs, **options)
        results = _tests_from_counts(np.asarray(syn).reshape(len(rngs), -1))
    reps = np.array([replicate_index(r, i) for i, r in enumerate(rngs)])
    frames = [
        pd.DataFrame(
            {
                "rep": reps,
                "test": test,
                "variable": TESTS[test],
                "pvalue": p,
                "reject": np.where(feasible, p <= params["alpha"], False),
                "feasible": feasible,
            }
        )
        for test, (p, feasible) in results.items()
    ]
    return pd.concat(frames, ignore_index=True)


def build_multivariate_grid(
    *,
    methods,
    sizes,
    epsilon,
    alpha: float = 0.05,
    data=DATA,
    pgm_max_iter: int | None = None,
    copula_seed: int = COPULA_SEED,
) -> list[dict]:
    """The cells of Figures 9 (non-signal) and 10 (signal) of the paper.

    "real" runs once per (data, n) with ``epsilon = None``; every synthesizer for each
    (data, n, ε) with ``m = n``. ``pgm_max_iter`` (None: the synthesizer's default) goes to the
    Private-PGM cells only, as the cell key ``iters`` (kept: a cell's seed hashes its keys,
    :func:`~synthtrust.run.experiment.cell_key`). Every cell carries ``copula_seed`` (so cached
    results follow it).
    The paper: ``methods = ["real", "private_pgm", "mwem"]``, ``sizes = [50, 100, 500, 1000,
    20000]``, ``epsilon = [0.01, 0.1, 1, 5, 10]``.
    """
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; expected a subset of {list(METHODS)}")
    bad = sorted(set(data) - set(DATA))
    if bad:
        raise ValueError(f"unknown data {bad}; expected a subset of {list(DATA)}")
    cells = []
    for d in data:
        for method in methods:
            for n in sizes:
                common = {
                    "data": d,
                    "method": method,
                    "n": int(n),
                    "m": int(n),
                    "alpha": float(alpha),
                    "copula_seed": int(copula_seed),
                }
                if method == "real":
                    cells.append({**common, "epsilon": None})
                    continue
                for e in epsilon:
                    cell = {**common, "epsilon": float(e)}
                    if method == "private_pgm" and pgm_max_iter is not None:
                        cell["iters"] = int(pgm_max_iter)
                    cells.append(cell)
    return cells


def error_rates(results: pd.DataFrame) -> pd.DataFrame:
    """:func:`synthtrust.studies.hypothesis_validity.simulation.error_rates` of a multivariate run, with
    a rate only where at least :data:`MIN_FEASIBLE` synthetic datasets were feasible."""
    return hv.error_rates(results, min_feasible=0.0, min_count=MIN_FEASIBLE)


#: The preset keys :func:`run_multivariate_study` reads (``chapters/params/hypothesis_validity/``).
STUDY_KEYS = (
    "seed",
    "alpha",
    "multivariate_methods",
    "multivariate_sizes",
    "multivariate_epsilon",
    "multivariate_n_reps",
    "multivariate_pgm_max_iter",
)


def run_multivariate_study(
    params, *, n_jobs: int | None = None, dask=None, cache_dir=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The multivariate study of the chapter (Figures 9 and 10 of Montoya Perez et al. 2024
    [``montoyaperez2024``], on a copula of the cardio data): every cell of
    :func:`build_multivariate_grid` run for ``multivariate_n_reps`` seeded replicates of
    :func:`multivariate_cell` by :func:`~synthtrust.run.experiment.run_grid` (in parallel,
    cached), and the cells' error rates (:func:`error_rates`).

    Parameters
    ----------
    params : mapping
        The chapter's preset values; the keys of :data:`STUDY_KEYS` are read.
    n_jobs, dask, cache_dir
        As :func:`~synthtrust.run.experiment.run_grid`; they change the speed, never the numbers.

    Returns
    -------
    (replicates, rates) : (DataFrame, DataFrame)
        ``replicates``: one row per (cell, replicate, test) with the cell's parameters;
        ``rates``: one row per (data, method, n, m, epsilon, test).

    Raises
    ------
    KeyError
        ``params`` lacks a key of :data:`STUDY_KEYS` (the error names it).
    ValueError
        The errors of :func:`build_multivariate_grid`.
    """
    cells = build_multivariate_grid(
        methods=params["multivariate_methods"],
        sizes=params["multivariate_sizes"],
        epsilon=params["multivariate_epsilon"],
        alpha=params["alpha"],
        pgm_max_iter=params["multivariate_pgm_max_iter"],
    )
    raw = run_grid(
        multivariate_cell,
        cells,
        params["multivariate_n_reps"],
        params["seed"],
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        chunk_size=50,
        warm_up=warm_up,
    )
    return raw, error_rates(raw)


def _share_below(diffs: list, confidence: float = verdicts.CONFIDENCE):
    """Interval of the share of cells whose difference is below 0, from per-cell intervals at
    level ``1 − (1 − confidence) / K`` (all K cover together with probability ≥
    ``confidence``, Bonferroni): lower = cells whose interval lies below 0, upper = cells
    whose interval does not lie at or above 0, over K; the estimate counts point estimates."""
    k = len(diffs)
    known = [d for d in diffs if d is not None]
    below = sum(d.upper < 0 for d in known)
    not_above = k - sum(d.lower >= 0 for d in known)
    point = sum(d.estimate < 0 for d in known)
    n = min((d.n for d in known), default=0)
    return verdicts.Interval(point / k, below / k, not_above / k, n, np.nan, "cells-bonferroni")


def _failures(rates: pd.DataFrame, **where) -> list:
    """(label, Clopper–Pearson interval of the unusable share) of the selected cells."""
    sel = select_cells(rates, **where).itertuples()
    return [(cell_label(r), verdicts.rate_interval(r.n_reps - r.n_feasible, r.n_reps)) for r in sel]


def verdict_rows(rates: pd.DataFrame, *, alpha: float = 0.05, section: str = "") -> list[dict]:
    """The verdict rows of the multivariate study (Figures 9–10, §5.3; Tables S1/S2).

    The paper's values are used literally (n = 20 000, ε = 0.01, 0.1, 10); a claim whose
    cells this run's grid lacks is ``undetermined`` with ``n = 0``, and so is one whose cells
    have fewer than :data:`MIN_FEASIBLE` feasible datasets
    (:func:`~synthtrust.studies.hypothesis_validity.findings.claim_row`).

    Parameters
    ----------
    rates : DataFrame
        :func:`error_rates` of the multivariate grid (with the "real" reference rows).
    alpha : float
        The tests' level (the bands scale with it).
    section : str
        The MyST label of the chapter's verdict section.

    Returns
    -------
    list of dict
        :func:`synthtrust.verdicts.finding` rows.
    """
    inf, valid = np.inf, VALID_TYPE1 * alpha
    syn = rates[rates["method"].isin(PAPER_METHODS)]
    null, sig = syn[syn["data"].eq("nonsignal")], syn[syn["data"].eq("signal")]
    rows = []
    small = {"n": lambda n: n < 20000}
    for m, label in (("private_pgm", "Private-PGM"), ("mwem", "MWEM")):
        rows.append(
            claim_row(
                f"mv_{m}_type1_close_to_alpha_largest",
                f"Multivariate, {label}: the tests stay valid at the largest ε with the largest n "
                f"(Fig. 9); read as Type I below {valid:g} for all four tests at n = 20 000, ε = 10",
                cells(null, method=m, n=20000, epsilon=10.0),
                -inf,
                valid,
                section=section,
            )
        )
        keep = (lambda e: (e < 5) & (e > 0.01)) if m == "private_pgm" else (lambda e: e < 5)
        rows.append(
            claim_row(
                f"mv_{m}_type1_high_elsewhere",
                f"Multivariate, {label}: validity is preserved only there (Fig. 9); read as Type I "
                "above α for all four tests at every ε < 5 with n < 20 000"
                + (
                    " (ε = 0.01 aside: the paper reports a drop there)"
                    if m == "private_pgm"
                    else ""
                ),
                cells(null, method=m, epsilon=keep, **small),
                alpha,
                inf,
                section=section,
            )
        )
    drop = []
    for row in select_cells(null, method="private_pgm", epsilon=0.01, **small).itertuples():
        other = next(
            select_cells(
                null, method="private_pgm", epsilon=0.1, n=row.n, test=row.test
            ).itertuples(),
            None,
        )
        a, b = cell_counts(row), cell_counts(other)
        drop.append((cell_label(row), rate_difference([a], [b]) if a and b else None))
    rows.append(
        claim_row(
            "mv_private_pgm_type1_drops_at_eps_0_01",
            "Multivariate, Private-PGM: Type I drops substantially at ε = 0.01 for n < 20 000 "
            "(Fig. 9); read as Type I(ε = 0.01) − Type I(ε = 0.1) below 0 for every test and n",
            drop,
            -inf,
            0.0,
            section=section,
            note="independent cells: Bonferroni-combined Clopper–Pearson",
        )
    )
    real = rates[rates["data"].eq("signal") & rates["method"].eq("real")]
    below = list(select_cells(sig, epsilon=lambda e: e < 10).itertuples())
    level = 1 - (1 - verdicts.CONFIDENCE) / max(len(below), 1)
    diffs = []
    for row in below:
        ref = next(select_cells(real, n=row.n, test=row.test).itertuples(), None)
        a, b = cell_counts(row), cell_counts(ref)
        diffs.append(rate_difference([a], [b], confidence=level) if a and b else None)
    paper = (
        "Multivariate: for ε < 10, the synthetic data's Type II error is often below the "
        "original's (Fig. 10); read as: in more than half of the (method, n, ε, test) cells"
    )
    share = _share_below(diffs) if diffs and any(d is not None for d in diffs) else None
    note = (
        f"{len(diffs)} cells, {sum(d is None for d in diffs)} without a rate; simultaneous "
        "(Bonferroni) intervals per cell"
        if diffs
        else "no such cell in this run's grid"
    )
    rows.append(
        verdicts.finding(
            "mv_type2_below_original_often", paper, share, 0.5, inf, section=section, note=note
        )
    )
    for data, table in (("nonsignal", "S1"), ("signal", "S2")):
        failed = syn[syn["data"].eq(data)]

        rows.append(
            claim_row(
                f"mv_unusable_{data}_none_at_n20000_or_eps_ge_5",
                f"Table {table}: no unusable synthetic dataset with n = 20 000, nor with ε ≥ 5; read "
                "as an unusable share below 0.01 in every such (method, n, ε, test) cell",
                _failures(failed, n=lambda n: n == 20000)
                + _failures(failed, epsilon=lambda e: e >= 5, **small),
                -inf,
                0.01,
                section=section,
            )
        )
        rows.append(
            claim_row(
                f"mv_unusable_{data}_occur_at_eps_below_5",
                f"Table {table}: unusable datasets occur at small ε with n < 20 000 (supplement "
                "A.2); read as an unusable share above 0 in some cell with ε < 5",
                _failures(failed, epsilon=lambda e: e < 5, **small),
                0.0,
                inf,
                section=section,
                every=False,
            )
        )
    return rows
