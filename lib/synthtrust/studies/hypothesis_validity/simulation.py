"""Chapter 1 — hypothesis validity on DP synthetic data (Montoya Perez et al. 2024).

The study: draw an original two-group dataset (Gaussian non-signal or signal, or a sample of the
Kaggle cardiovascular data), release DP synthetic data from it with one of the paper's
synthesizers, and run two-sample tests on the synthetic data. Over replicates, the share of
rejections estimates the Type I error (no true difference) or the power (a true difference;
Type II error = 1 − power). The DP Mann–Whitney U test on the original data (Couch et al. 2019)
and the non-private tests on the original data are the reference rows.

Everything here is vectorised across replicates: an original dataset becomes a per-bin count
matrix of shape ``(reps, 2, n_bins)`` (group × value bin), synthesizers map count matrices to
synthetic count matrices, and the tests are computed exactly from counts
(:mod:`synthtrust.hypothesis`). Each replicate has its own random generator (from
:func:`synthtrust.run.experiment.run_grid`), so results do not depend on chunking or ``n_jobs``.

Source: Montoya Perez et al. (2024), §4 (datasets, synthesizers, setup; Table 1) and
supplement A.1 (Algorithm 1) and A.2 (failed synthetic datasets).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from synthtrust import datasets, hypothesis
from synthtrust._jax import import_mbi
from synthtrust.binomial import clopper_pearson
from synthtrust.run.experiment import replicate_index, run_grid
from synthtrust.synthesizers import (
    mwem_counts,
    perturbed_histogram,
    private_pgm,
    smoothed_histogram,
)

__all__ = [
    "CARDIO_BINS",
    "GAUSSIAN_BINS",
    "METHODS",
    "STUDY_KEYS",
    "SYNTHESIZERS",
    "TESTS",
    "BinnedVariable",
    "build_grid",
    "cardio_pool",
    "cell_data",
    "error_rates",
    "failed_datasets",
    "original_samples",
    "run_error_rate_study",
    "simulate_cell",
    "warm_up",
    "with_data_options",
]


def warm_up() -> None:
    """What every cell of the study needs once per worker process: JAX and mbi (Private-PGM,
    MWEM) and the DP Mann–Whitney U null tables. Pass it as ``run_grid(..., warm_up=warm_up)``
    so that loky does not recycle a worker when a later cell loads them."""
    import_mbi()
    hypothesis.warm_up()


@dataclass(frozen=True)
class BinnedVariable:
    """A public discretisation of a continuous variable.

    Attributes
    ----------
    cuts : ndarray, shape (n_bins - 1,)
        Increasing interior cut points; bin ``k`` holds ``cuts[k-1] <= v < cuts[k]``, the first
        bin everything below ``cuts[0]``, the last everything at or above ``cuts[-1]``.
    values : ndarray, shape (n_bins,)
        The value a synthetic record in each bin takes (the bin centre point, as in the paper).
    split : float
        A public threshold that dichotomises the variable for the χ² test (a bin counts as
        "high" when its value is ≥ ``split``; choose it on a cut point).
    """

    cuts: np.ndarray
    values: np.ndarray
    split: float

    @classmethod
    def regular(cls, first_cut: float, last_cut: float, width: float, split: float):
        """Bins of equal ``width`` between ``first_cut`` and ``last_cut``, plus an open-ended
        bin below ``first_cut`` and one at or above ``last_cut``; each bin's value is its centre
        (the open-ended ones: ``first_cut − width/2`` and ``last_cut + width/2``), as the
        paper's Gaussian (2, 100, 1) and BMI (18, 40, 1) bins.

        Raises
        ------
        ValueError
            ``width`` ≤ 0, ``last_cut`` not above ``first_cut`` or not a whole number of widths
            from it, or ``split`` not one of the cuts.
        """
        first, last, width, split = (float(v) for v in (first_cut, last_cut, width, split))
        steps = (last - first) / width if width > 0 else math.nan
        if not (width > 0 and steps >= 1 and math.isclose(steps, round(steps))):
            raise ValueError(
                f"bins need width > 0 and last_cut - first_cut a positive multiple "
                f"of width, got first_cut={first_cut!r}, last_cut={last_cut!r}, "
                f"width={width!r}"
            )
        cuts = first + width * np.arange(round(steps) + 1)
        if not np.isclose(cuts, split).any():
            raise ValueError(
                f"split={split:g} must be one of the cuts {first:g}, "
                f"{first:g} + {width:g}, ..., {last:g}"
            )
        values = np.concatenate([[first - width / 2], cuts[:-1] + width / 2, [last + width / 2]])
        return cls(cuts=cuts, values=values, split=split)

    @property
    def n_bins(self) -> int:
        return len(self.values)

    def counts(self, v: np.ndarray) -> np.ndarray:
        """Per-bin counts of ``v`` (shape (..., n)) → shape (..., n_bins)."""
        idx = np.searchsorted(self.cuts, np.asarray(v, dtype=float), side="right")
        if idx.shape[-1] == 0:
            return np.zeros((*idx.shape[:-1], self.n_bins), dtype=np.int64)
        flat = idx.reshape(-1, idx.shape[-1])
        offsets = np.arange(flat.shape[0])[:, None] * self.n_bins
        out = np.bincount((flat + offsets).ravel(), minlength=flat.shape[0] * self.n_bins)
        return out.reshape(*idx.shape[:-1], self.n_bins)


#: Gaussian data: 100 bins labelled 1..100, bin k = [k, k+1) (open-ended first and last bins),
#: synthetic value k + 0.5 (paper §4.1: "discretized into 100 bins").
#: χ² compares the share of values ≥ 50 (the null mean) between the groups.
GAUSSIAN_BINS = BinnedVariable.regular(2, 100, 1, split=50)

#: Cardio BMI: 24 bins, first BMI < 18, then [18, 19), …, [39, 40), last BMI ≥ 40 (paper §4.1).
#: Synthetic values are the centres 17.5, 18.5, …, 39.5, 40.5.
#: χ² compares the share with BMI ≥ 25 (overweight, WHO) between the groups.
CARDIO_BINS = BinnedVariable.regular(18, 40, 1, split=25)

#: The chapter's parameters for the bins above: (first cut, last cut, width, split).
GAUSSIAN_BIN_SPEC = (2.0, 100.0, 1.0, 50.0)
CARDIO_BIN_SPEC = (18.0, 40.0, 1.0, 25.0)

#: Gaussian scenarios (paper §4.1): (mean, sd) of group x and group y.
GAUSSIAN = {"nonsignal": ((50.0, 2.0), (50.0, 2.0)), "signal": ((51.0, 1.0), (50.0, 1.0))}

#: Vectorized synthesizers by method name: ``f(counts (reps, cells), epsilon, shape, size, rngs)``
#: → synthetic counts (reps, cells) of the group × value-bin table (see synthtrust.synthesizers).
SYNTHESIZERS = {
    "perturbed_histogram": lambda c, e, shape, size, rngs, **_: perturbed_histogram(
        c, e, n_synthetic=size, random_state=rngs
    ),
    "smoothed_histogram": lambda c, e, shape, size, rngs, **_: smoothed_histogram(
        c, e, size, random_state=rngs
    ),
    "mwem": lambda c, e, shape, size, rngs, **_: mwem_counts(
        c, e, shape, n_synthetic=size, random_state=rngs
    ),
    "private_pgm": lambda c, e, shape, size, rngs, **options: private_pgm(
        c, e, shape, n_synthetic=size, random_state=rngs, **options
    ),
}

#: Methods of the study: the synthesizers, the DP-MWU test and the non-private reference.
METHODS = ("real", "dp_mwu", *SYNTHESIZERS)

#: Tests run on each synthetic dataset.
TESTS = ("mannwhitneyu", "ttest_ind", "median_test", "chi2")


@lru_cache(maxsize=8)
def cardio_pool(variable: str = "bmi", group: str = "cardio") -> tuple[np.ndarray, np.ndarray]:
    """A variable of the 70 000 cardio records and the two groups to compare.

    Parameters
    ----------
    variable : str
        ``"bmi"`` (kg/m², from weight and height; the paper's variable) or a numeric column of
        ``synthtrust.datasets.load("cardio")`` (e.g. ``"ap_hi"``, systolic blood pressure).
    group : str
        A binary column: group 0 = records whose value is the column's largest (``cardio``:
        disease present, the paper's grouping), group 1 = the others.

    Returns
    -------
    (values, group) : two read-only arrays of shape (70 000,)
        No record is dropped (the paper does not say it dropped implausible values).

    Raises
    ------
    ValueError
        ``variable`` or ``group`` is not a column (or BMI), or ``group`` has not two values.
    """
    df = datasets.load("cardio")
    for name, value in (("variable", variable), ("group", group)):
        if value not in df.columns and not (name == "variable" and value == "bmi"):
            raise ValueError(
                f"{name}={value!r} is not a column of the cardio data; expected "
                f"{'bmi or ' if name == 'variable' else ''}one of {list(df.columns)}"
            )
    if variable == "bmi":
        values = (df["weight"] / (df["height"] / 100.0) ** 2).to_numpy(dtype=float)
    else:
        values = df[variable].to_numpy(dtype=float)
    levels = np.unique(df[group].to_numpy())
    if len(levels) != 2:
        raise ValueError(f"group={group!r} must have two values, it has {len(levels)}")
    grouping = np.where(df[group].to_numpy() == levels[-1], 0, 1)
    values.setflags(write=False)
    grouping.setflags(write=False)
    return values, grouping


def original_samples(
    data: str,
    n: int,
    rngs: list[np.random.Generator],
    *,
    variable: str = "bmi",
    group: str = "cardio",
):
    """Draw one original dataset per replicate.

    Parameters
    ----------
    data : {"nonsignal", "signal", "cardio"}
        Gaussian non-signal, Gaussian signal (paper §4.1), or a simple random sample of ``n``
        records of the cardio data.
    n : int
        Original dataset size; Gaussian groups have sizes ``n // 2`` and ``n - n // 2``
        (group ratio 50 %).
    rngs : list of numpy.random.Generator
        One generator per replicate.
    variable, group : str
        The cardio variable and grouping (:func:`cardio_pool`).

    Returns
    -------
    list of (x, y)
        Raw values of group x and group y for every replicate (arrays of floats).
    """
    if data in GAUSSIAN:
        (mx, sx), (my, sy) = GAUSSIAN[data]
        nx = n // 2
        return [(r.normal(mx, sx, nx), r.normal(my, sy, n - nx)) for r in rngs]
    if data == "cardio":
        values, grouping = cardio_pool(variable, group)
        if n > len(values):
            raise ValueError(f"n={n} exceeds the {len(values)} cardio records")
        out = []
        for r in rngs:
            idx = r.choice(len(values), size=n, replace=False)
            out.append((values[idx][grouping[idx] == 0], values[idx][grouping[idx] == 1]))
        return out
    raise ValueError(f"unknown data {data!r}; expected one of 'nonsignal', 'signal', 'cardio'")


def cell_data(params: dict, rngs: list[np.random.Generator]):
    """The bins and the original datasets of a grid cell.

    ``params``: ``data``, ``n`` and the optional keys of :func:`with_data_options` (``bins``:
    first cut, last cut, width, split, default the paper's bins of ``data``; for cardio
    ``variable`` and ``group``, default BMI by disease status).

    Returns
    -------
    (BinnedVariable, list of (x, y))
        The cell's bins and :func:`original_samples` of every replicate.
    """
    data, spec = params["data"], params.get("bins")
    if spec is not None:
        bins = BinnedVariable.regular(*spec)
    else:
        bins = CARDIO_BINS if data == "cardio" else GAUSSIAN_BINS
    samples = original_samples(
        data,
        int(params["n"]),
        rngs,
        variable=params.get("variable", "bmi"),
        group=params.get("group", "cardio"),
    )
    return bins, samples


def _group_counts(samples, bins: BinnedVariable) -> np.ndarray:
    """(reps, 2, n_bins) counts of the raw samples."""
    return np.stack([np.stack([_one_counts(x, bins), _one_counts(y, bins)]) for x, y in samples])


def _one_counts(v: np.ndarray, bins: BinnedVariable) -> np.ndarray:
    return np.bincount(np.searchsorted(bins.cuts, v, side="right"), minlength=bins.n_bins)


def _tests_from_counts(counts: np.ndarray, bins: BinnedVariable) -> dict[str, tuple]:
    """Run every test of :data:`TESTS` on (reps, 2, n_bins) counts.

    Returns ``{test: (pvalue, feasible)}`` with arrays of shape (reps,). Feasibility follows
    the paper's supplement A.2: both groups present (all tests); for the t-test at least two
    records per group; for χ² (group × [value < split, value ≥ split], Yates-corrected as
    SciPy) values on both sides of the split and Cochran's rule — every expected count ≥ 1 and
    at least 80 % of them ≥ 5.
    """
    values = bins.values
    cx, cy = counts[:, 0], counts[:, 1]
    nx, ny = cx.sum(-1), cy.sum(-1)
    both = (nx > 0) & (ny > 0)
    mwu = hypothesis.mannwhitneyu_counts(cx, cy)
    tt = hypothesis.ttest_ind_counts(cx, cy, values)
    med = hypothesis.median_test_counts(cx, cy, values)
    high = values >= bins.split
    dx = np.stack([cx[:, ~high].sum(-1), cx[:, high].sum(-1)], axis=-1)
    dy = np.stack([cy[:, ~high].sum(-1), cy[:, high].sum(-1)], axis=-1)
    chi = hypothesis.chi2_counts(dx, dy)
    split_seen = ((dx + dy) > 0).all(-1)  # both sides of the split occur (SciPy raises otherwise)
    return {
        "mannwhitneyu": (mwu.pvalue, both & np.isfinite(mwu.pvalue)),
        "ttest_ind": (tt.pvalue, both & (nx > 1) & (ny > 1) & np.isfinite(tt.pvalue)),
        "median_test": (med.pvalue, both & np.isfinite(med.pvalue)),
        "chi2": (chi.pvalue, both & split_seen & _cochran(dx, dy) & np.isfinite(chi.pvalue)),
    }


def _cochran(cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
    """Cochran's rule on the 2 × (non-empty categories) table, per replicate."""
    col = cx + cy
    n = col.sum(-1, keepdims=True)
    rows = np.stack([cx.sum(-1), cy.sum(-1)], axis=-1)  # (reps, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = rows[..., :, None] * col[..., None, :] / n[..., None]
    nonempty = (col > 0)[..., None, :].repeat(2, axis=-2)
    n_cells = nonempty.sum((-1, -2))
    ge5 = ((expected >= 5) & nonempty).sum((-1, -2))
    lt1 = ((expected < 1) & nonempty).sum((-1, -2))
    return (lt1 == 0) & (ge5 >= 0.8 * n_cells)


def _tests_from_raw(samples, bins: BinnedVariable) -> dict[str, tuple]:
    """The non-private reference: MWU, t and median tests on the raw values, χ² on the split."""
    out = {t: ([], []) for t in TESTS}
    for x, y in samples:
        for name, res in (
            ("mannwhitneyu", hypothesis.mannwhitneyu(x, y)),
            ("ttest_ind", hypothesis.ttest_ind(x, y)),
            ("median_test", hypothesis.median_test(x, y)),
        ):
            out[name][0].append(float(res.pvalue))
            out[name][1].append(bool(np.isfinite(res.pvalue)))
    counts = _group_counts(samples, bins)
    out["chi2"] = _tests_from_counts(counts, bins)["chi2"]
    return {k: (np.asarray(p, dtype=float), np.asarray(f, dtype=bool)) for k, (p, f) in out.items()}


def _synthesize(method, counts, epsilon, size, rngs, **options):
    """Synthetic (reps, 2, n_bins) counts from original counts with one DP synthesizer."""
    reps, _, n_bins = counts.shape
    flat = counts.reshape(reps, 2 * n_bins)
    syn = SYNTHESIZERS[method](flat, float(epsilon), (2, n_bins), size, rngs, **options)
    return np.asarray(syn).reshape(reps, 2, n_bins)


def simulate_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """One grid cell of the study, for ``len(rngs)`` replicates.

    Parameters
    ----------
    params : dict
        ``data`` ("nonsignal", "signal", "cardio"), ``method`` (one of :data:`METHODS`), ``n``
        (original size), ``epsilon`` (ignored for "real"), ``m`` (synthetic size; only the
        smoothed histogram, else the original size), ``alpha``, and for "dp_mwu" ``delta``
        and ``n_sim``; for "private_pgm" optionally ``iters`` (mirror-descent steps, passed as
        ``max_iter`` to :func:`~synthtrust.synthesizers.private_pgm`);
        optionally ``bins`` (first cut, last cut, width, split: :meth:`BinnedVariable.regular`;
        default the paper's bins of ``data``) and, for cardio, ``variable`` and ``group``
        (:func:`cardio_pool`; default BMI by disease status).
    rngs : list of numpy.random.Generator
        One per replicate (:func:`synthtrust.run.experiment.run_grid` provides them).

    Returns
    -------
    pandas.DataFrame
        Long format: one row per (replicate, test) with columns ``test``, ``pvalue``,
        ``reject`` (p ≤ α) and ``feasible``; the runner adds the parameters and ``rep``.
    """
    method, n = params["method"], int(params["n"])
    bins, samples = cell_data(params, rngs)
    if method == "real":
        results = _tests_from_raw(samples, bins)
    elif method == "dp_mwu":
        res = [
            hypothesis.dp_mannwhitneyu(
                x,
                y,
                params["epsilon"],
                delta=params["delta"],
                alpha=params["alpha"],
                n_sim=params["n_sim"],
                random_state=r,
            )
            for (x, y), r in zip(samples, rngs, strict=True)
        ]
        p = np.array([float(r.pvalue) for r in res])
        results = {"dp_mwu": (p, np.isfinite(p))}
    elif method in SYNTHESIZERS:
        counts = _group_counts(samples, bins)
        size = int(params.get("m") or n)
        # the cell key stays "iters" (a cell's seed hashes its keys: experiment.cell_key)
        options = {"max_iter": int(params["iters"])} if params.get("iters") else {}
        syn = _synthesize(method, counts, params["epsilon"], size, rngs, **options)
        results = _tests_from_counts(syn, bins)
    else:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    reps = np.array([replicate_index(r, i) for i, r in enumerate(rngs)])
    frames = []
    for test, (p, feasible) in results.items():
        frames.append(
            pd.DataFrame(
                {
                    "rep": reps,
                    "test": test,
                    "pvalue": p,
                    "reject": np.where(feasible, p <= params["alpha"], False),
                    "feasible": feasible,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def build_grid(
    *,
    data: list[str],
    methods: list[str],
    sizes: list[int],
    epsilon: list[float],
    smoothed_original_size: int,
    smoothed_sizes: list[int],
    alpha: float,
    delta: float,
    n_sim: int,
    pgm_max_iter: int | None = None,
    bins=None,
    variable: str = "bmi",
    group: str = "cardio",
) -> list[dict]:
    """The explicit list of grid cells (Table 1 of the paper) for the given data scenarios.

    "real" runs once per (data, n) with ``epsilon = None``; the smoothed histogram runs on an
    original of ``smoothed_original_size`` with synthetic sizes ``m`` in ``smoothed_sizes``;
    every other method runs for each (n, ε) with ``m = n``. ``pgm_max_iter`` (Private-PGM's
    mirror-descent steps; None: the synthesizer's default) is added to Private-PGM cells only,
    as the cell key ``iters`` (kept: a cell's seed hashes its keys,
    :func:`~synthtrust.run.experiment.cell_key`).
    ``bins`` (first cut, last cut, width, split; None: the paper's bins of each data), and for
    cardio ``variable`` and ``group``, are added to the cells only where they differ from the
    paper's, so the paper's cells keep their cache keys.

    Raises
    ------
    ValueError
        An unknown method; ``bins`` not four numbers that :meth:`BinnedVariable.regular`
        accepts.
    """
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; expected a subset of {list(METHODS)}")
    common = {"alpha": float(alpha), "delta": float(delta), "n_sim": int(n_sim)}
    cells = []
    for d in data:
        for method in methods:
            if method == "real":
                cells += [
                    {
                        "data": d,
                        "method": method,
                        "n": int(n),
                        "m": int(n),
                        "epsilon": None,
                        **common,
                    }
                    for n in sizes
                ]
            elif method == "smoothed_histogram":
                cells += [
                    {
                        "data": d,
                        "method": method,
                        "n": int(smoothed_original_size),
                        "m": int(m),
                        "epsilon": float(e),
                        **common,
                    }
                    for m in smoothed_sizes
                    for e in epsilon
                ]
            else:
                cells += [
                    {
                        "data": d,
                        "method": method,
                        "n": int(n),
                        "m": int(n),
                        "epsilon": float(e),
                        **common,
                    }
                    for n in sizes
                    for e in epsilon
                ]
    if pgm_max_iter is not None:
        for cell in cells:
            if cell["method"] == "private_pgm":
                cell["iters"] = int(pgm_max_iter)
    return with_data_options(cells, bins=bins, variable=variable, group=group)


#: The preset keys :func:`run_error_rate_study` reads (``chapters/params/hypothesis_validity/``).
STUDY_KEYS = (
    "seed",
    "n_reps",
    "alpha",
    "epsilon",
    "sizes",
    "methods",
    "smoothed_original_size",
    "smoothed_sizes",
    "cardio_sizes",
    "dp_mwu_delta",
    "dp_mwu_n_sim",
    "pgm_max_iter",
    "gaussian_bins",
    "cardio_bins",
    "cardio_variable",
    "cardio_group",
)


def run_error_rate_study(
    params,
    data=("nonsignal", "signal"),
    *,
    n_jobs: int | None = None,
    dask=None,
    cache_dir=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two-column study of the chapter (Table 1 of Montoya Perez et al. 2024
    [``montoyaperez2024``]): every cell of :func:`build_grid` run for ``n_reps`` seeded
    replicates of :func:`simulate_cell` by :func:`~synthtrust.run.experiment.run_grid` (in
    parallel, cached), and the cells' Type I / Type II error rates.

    Parameters
    ----------
    params : mapping
        The chapter's preset values; the keys of :data:`STUDY_KEYS` are read (``seed``,
        ``n_reps``, ``alpha``, ``epsilon``, ``sizes``, …, ``cardio_group``, as in
        ``chapters/params/hypothesis_validity/default.yaml``).
    data : sequence of {"nonsignal", "signal"}, or ``["cardio"]``
        The scenarios. The Gaussian scenarios run on ``sizes`` with ``gaussian_bins``; the
        cardio data run alone, on ``cardio_sizes`` with ``cardio_bins``, ``cardio_variable``
        and ``cardio_group``.
    n_jobs, dask, cache_dir
        As :func:`~synthtrust.run.experiment.run_grid`; they change the speed, never the numbers.

    Returns
    -------
    (replicates, rates) : (DataFrame, DataFrame)
        ``replicates``: one row per (cell, replicate, test) with the cell's parameters, ``rep``,
        ``test``, ``pvalue``, ``reject`` and ``feasible``; ``rates``: :func:`error_rates` of
        them, one row per (data, method, n, m, epsilon, test).

    Raises
    ------
    KeyError
        ``params`` lacks a key of :data:`STUDY_KEYS` (the error names it).
    ValueError
        ``data`` mixes ``"cardio"`` with the Gaussian scenarios; and the errors of
        :func:`build_grid`.
    """
    data = list(data)
    cardio = "cardio" in data
    if cardio and data != ["cardio"]:
        raise ValueError(f"data must be Gaussian scenarios or ['cardio'] alone, got {data!r}")
    cells = build_grid(
        data=data,
        methods=params["methods"],
        sizes=params["cardio_sizes"] if cardio else params["sizes"],
        epsilon=params["epsilon"],
        smoothed_original_size=params["smoothed_original_size"],
        smoothed_sizes=params["smoothed_sizes"],
        alpha=params["alpha"],
        delta=params["dp_mwu_delta"],
        n_sim=params["dp_mwu_n_sim"],
        pgm_max_iter=params["pgm_max_iter"],
        bins=params["cardio_bins"] if cardio else params["gaussian_bins"],
        variable=params["cardio_variable"],
        group=params["cardio_group"],
    )
    raw = run_grid(
        simulate_cell,
        cells,
        params["n_reps"],
        params["seed"],
        n_jobs=n_jobs,
        dask=dask,
        cache_dir=cache_dir,
        chunk_size=50,
        warm_up=warm_up,
    )
    return raw, error_rates(raw)


def with_data_options(
    cells: list[dict], *, bins=None, variable: str = "bmi", group: str = "cardio"
) -> list[dict]:
    """Add the chapter's data options to grid cells, only where they differ from the paper's.

    ``bins`` (first cut, last cut, width, split; None: the paper's bins of each cell's data)
    becomes the key ``bins``; for cardio cells, ``variable`` and ``group`` (:func:`cardio_pool`)
    become keys when they are not BMI by disease status. Cells with the paper's options stay as
    they are, so they keep their seeds and cache keys. Modifies and returns ``cells``.

    Raises
    ------
    ValueError
        ``bins`` not four numbers that :meth:`BinnedVariable.regular` accepts.
    """
    if bins is not None:
        if len(bins) != 4:
            raise ValueError(f"bins must be (first cut, last cut, width, split), got {bins!r}")
        spec = tuple(float(v) for v in bins)
        BinnedVariable.regular(*spec)  # validate once, here
        for cell in cells:
            paper = CARDIO_BIN_SPEC if cell["data"] == "cardio" else GAUSSIAN_BIN_SPEC
            if spec != paper:
                cell["bins"] = spec
    for cell in cells:
        if cell["data"] == "cardio" and (variable, group) != ("bmi", "cardio"):
            cell["variable"], cell["group"] = str(variable), str(group)
    return cells


def error_rates(
    results: pd.DataFrame, min_feasible: float = 0.05, min_count: int = 1
) -> pd.DataFrame:
    """Proportion of Type I / Type II errors per cell and test, with Clopper–Pearson 95 % CIs.

    Parameters
    ----------
    results : DataFrame
        Output of ``run_grid(simulate_cell, ...)``.
    min_feasible : float
        A rate is reported only when at least this share of replicates met the test's
        requirements (the paper: 50 of 1000); otherwise ``rate`` is NaN.
    min_count : int
        ... and at least this many (the multivariate study:
        :data:`synthtrust.studies.hypothesis_validity.multivariate.MIN_FEASIBLE`).

    Returns
    -------
    DataFrame
        One row per (data, method, n, m, epsilon, test): ``error`` ("Type I" for the null
        scenario, "Type II" otherwise), ``rate`` (Type I = share rejected; Type II = share not
        rejected, among feasible replicates), ``lo``/``hi`` (95 % Clopper–Pearson),
        ``n_feasible``, ``n_reps``.
    """
    keys = ["data", "method", "n", "m", "epsilon", "test"]
    g = results.groupby(keys, dropna=False, sort=False)
    out = g.agg(
        n_reps=("reject", "size"), n_feasible=("feasible", "sum"), k=("reject", "sum")
    ).reset_index()
    null = out["data"].eq("nonsignal")
    out["error"] = np.where(null, "Type I", "Type II")
    errors = np.where(null, out["k"], out["n_feasible"] - out["k"]).astype(int)
    nf = out["n_feasible"].to_numpy(int)
    rate = np.where(nf > 0, errors / np.maximum(nf, 1), np.nan)
    lo, hi = clopper_pearson(errors, nf)
    enough = (nf >= min_feasible * out["n_reps"].to_numpy()) & (nf >= min_count)
    out["rate"] = np.where(enough, rate, np.nan)
    out["lo"] = np.where(enough, lo, np.nan)
    out["hi"] = np.where(enough, hi, np.nan)
    return out.drop(columns="k")


def failed_datasets(rates: pd.DataFrame) -> pd.DataFrame:
    """How many synthetic datasets a test could not run on (the paper's Tables S1/S2 count
    them for its multivariate study; the chapter shows the same for every study).

    A test cannot run on a synthetic dataset with one group only, a t-test on a group of fewer
    than two records, a χ² test whose table breaks Cochran's rule (an expected count below 1,
    or fewer than 80 % of them at least 5) or has values on one side of the split only
    (:func:`simulate_cell`'s ``feasible``). The error rates of :func:`error_rates` are
    computed on the other datasets only, as the paper's (supplement A.2).

    Parameters
    ----------
    rates : DataFrame
        Output of :func:`error_rates` (columns ``data``, ``method``, ``epsilon``, ``m``,
        ``test``, ``n_reps``, ``n_feasible``).

    Returns
    -------
    DataFrame
        Index (``data``, ``method``, ``epsilon``), columns (``m``, ``test``) — ``m`` is the
        synthetic dataset's size (the original's, except for the smoothed histogram) — and
        values the number of failed datasets out of ``n_reps``; only the rows of the
        synthesizers (not the real-data tests) with at least one failure, and only the
        (size, test) columns with one.
    """
    need = {"data", "method", "epsilon", "m", "test", "n_reps", "n_feasible"}
    if not need <= set(rates.columns):
        raise ValueError(
            f"rates must have the columns {sorted(need)} (from error_rates), got "
            f"{list(rates.columns)}"
        )
    syn = rates[rates["method"].isin(SYNTHESIZERS)]
    syn = syn.assign(failed=(syn["n_reps"] - syn["n_feasible"]).astype(int))
    table = syn.pivot_table(
        index=["data", "method", "epsilon"],
        columns=["m", "test"],
        values="failed",
        aggfunc="sum",
        fill_value=0,
    )
    table = table.loc[table.gt(0).any(axis=1), table.gt(0).any(axis=0)]
    return table.astype(int)


def spread_reference(rates: pd.DataFrame, epsilon: list[float]) -> pd.DataFrame:
    """Repeat the ε-free "real" rows once per ε so they draw as a flat reference line.

    ``rates`` is the output of :func:`error_rates`; rows of other methods are unchanged.
    """
    real = rates["method"].eq("real")
    spread = [rates.loc[real].assign(epsilon=float(e)) for e in epsilon]
    return pd.concat([rates.loc[~real], *spread], ignore_index=True)
