"""The experiment of ``giles2022`` App. A on a grid of (dataset, generator) cells: the grid
(:func:`build_grid`), the real side of a replicate (:func:`real_cell`: the real forest, its
importances and the random-permutation baseline), the synthetic side of a cell
(:func:`importance_cell`), the measures of each synthetic replicate against its real one
(:func:`similarity`) and the mean and sd over replicates (:func:`summarize`).

The real forest of a replicate is fitted once, in :func:`real_cell`, not in every cell's task:
the synthetic tasks need only the real split (cheap), and :func:`similarity` compares the stored
importances (JSON with every float exact) after both grids ran. A cell is one (dataset,
generator, level): a task is one replicate of one level (a few minutes on Adult at the paper's
scale), and a level's replicates draw from their own random streams, so adding or removing a
level leaves the other levels' numbers as they are. On a Dask cluster the TreeSHAP of each
forest runs in blocks of :data:`SHAP_BLOCK_ROWS` rows, one cluster task each.
"""

from __future__ import annotations

import functools
import json
import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from synthtrust._jax import import_mbi
from synthtrust._optional import import_if_installed
from synthtrust.importance import association_matrix, random_permutation_rbo
from synthtrust.run.experiment import replicate_index
from synthtrust.studies.feature_importance.data import (
    DATASETS,
    engineer_features,
    load_table,
    nominal_features,
)
from synthtrust.studies.feature_importance.generators import GENERATORS, make_generator
from synthtrust.studies.feature_importance.models import (
    MEASURES,
    compare_rankings,
    fit_importances,
    forest_auc,
    scores_from_json,
    scores_to_json,
    split_table,
)

_MIN_ROWS = 20  # fewer rows after the pipeline's cleaning: no forest is trained (failed)


#: The generators whose fits need more than the tables and the forests: ``{name: library}``.
_NEEDS = {"mst": "mbi", "aim": "mbi", "pate_ctgan": "torch"}


@dataclass(frozen=True)
class WarmUp:
    """What the study's tasks load once per worker process, loaded before its first task
    (``run_grid(..., warm_up=WarmUp(...))``): every dataset's table and the compiled TreeSHAP,
    and with ``mbi`` JAX and mbi (MST, AIM), with ``torch`` PyTorch when installed
    (PATE-CTGAN).

    loky takes a worker's memory after its first task as the reference and recycles a worker
    grown 300 MB beyond it; loaded lazily by later tasks, these made loky recycle workers in the
    middle of the grids. A worker loads only what its grid needs (:func:`warm_up_for`):
    JAX and mbi add about 110 MB to a worker, PyTorch about 180 MB (measured on Adult's
    workers), which the real forests and the PrivBayes cells do not need. Equal warm-ups
    compare equal, so successive grids with the same needs keep their workers.
    Calling it raises what :func:`load_table` raises for a dataset it cannot read.
    """

    mbi: bool = True
    torch: bool = True

    def __call__(self) -> None:
        for name in DATASETS:
            load_table(name)
        if self.mbi:
            import_mbi()
        if self.torch:
            import_if_installed("torch", "PATE-CTGAN")
        x = np.arange(40.0)
        X = pd.DataFrame({"a": x % 2, "b": x % 3})
        fit_importances(X, pd.Series((x % 2).astype(int)), methods=("shap",), rf_n_estimators=2)


#: Everything any task of the study may need.
warm_up = WarmUp()


def warm_up_for(cells) -> WarmUp:
    """The :class:`WarmUp` of a grid's cells: mbi for MST and AIM, PyTorch for PATE-CTGAN
    (cells without a ``generator``, the real side, need neither)."""
    needs = {_NEEDS.get(cell.get("generator")) for cell in cells}
    return WarmUp(mbi="mbi" in needs, torch="torch" in needs)


def _stable_seed(*parts) -> int:
    """A 31-bit seed from strings/ints (stable across processes, unlike ``hash``)."""
    return zlib.crc32(json.dumps(parts).encode()) & 0x7FFFFFFF


def _synthesize(name: str, level, dataset: str, real: pd.DataFrame, params: dict, rng):
    spec = DATASETS[dataset]
    gen = make_generator(name, level, dataset, params, rng)
    # the DP generators never see the identifiers (they are not in the public domain); the
    # resampling baselines keep drawing the real ones (Household's grouping into households)
    resample = name in ("independent", "subsample")
    train = real if resample else real.drop(columns=list(spec.identifiers))
    gen.fit(train)
    # add/remove generators (MST, AIM) draw their own noisy size: n is not public for them
    from synthtrust.synthesizers.base import released_sample

    synth = gen.sample() if name == "subsample" else released_sample(gen, len(real))
    return synth, float(getattr(gen, "iterations_", np.nan))


def build_grid(
    *, datasets_: list[str], generators: dict[str, list], pate_datasets: list[str], extra: dict
) -> list[dict]:
    """Grid cells (dataset × generator × level) for :func:`importance_cell`, in the order of
    ``generators``, then its levels, then ``datasets_``.

    Parameters
    ----------
    datasets_ : dataset names (keys of :data:`DATASETS`)
    generators : {generator name: list of levels}
        ε values, subsample fractions, or ``[None]`` for independent resampling.
    pate_datasets : datasets on which ``"pate_ctgan"`` runs (the paper: the real ones only)
    extra : dict
        Preset keys every cell carries (importance methods, forest size, ...).

    Returns
    -------
    list of dict
        ``{"dataset", "generator", "level", **extra}``; ``level`` is a float, or None for
        independent resampling.

    Raises ValueError for an unknown dataset or generator, or a level outside its range.
    """
    for name in list(datasets_) + list(pate_datasets):
        if name not in DATASETS:
            raise ValueError(f"unknown dataset {name!r}; the chapter uses {', '.join(DATASETS)}")
    cells = []
    for gen, levels in generators.items():
        if gen not in GENERATORS:
            raise ValueError(f"unknown generator {gen!r}; expected one of {', '.join(GENERATORS)}")
        levels = [None if v is None else float(v) for v in levels]
        for v in levels:
            if gen == "subsample" and not (v is not None and 0 < v <= 1):
                raise ValueError(f"subsample fraction must be in (0, 1], got {v!r}")
            if gen not in ("independent", "subsample") and not (v is not None and v > 0):
                raise ValueError(f"epsilon of {gen} must be > 0, got {v!r}")
        names = pate_datasets if gen == "pate_ctgan" else datasets_
        cells += [
            {"dataset": d, "generator": gen, "level": v, **extra} for v in levels for d in names
        ]
    return cells


#: SHAP rows per cluster task when a replicate runs on a Dask cluster (about 3 min of TreeSHAP on
#: Adult with 150 trees); results do not depend on it
SHAP_BLOCK_ROWS = 500


# two entries: a hit needs the same (dataset, rep) twice in a row in one worker, which the
# cell-major task order makes rare; eight kept up to eight of Adult's splits (tens of MB each)
# and grew a worker past loky's 300 MB recycling limit
@functools.lru_cache(maxsize=2)
def _real_split(dataset: str, seed: int, rep: int, test_size: float) -> dict:
    """The real side of a replicate before any forest: the real table (``real``), its engineered
    features and target (``X``, ``y``), their split (``X_train`` in the table's row order, ``X_test``, ``y_test``), the
    target's ``classes`` and the replicate's model seed ``rseed`` (split and forest are seeded
    from (seed, dataset, rep) only)."""
    real = load_table(dataset)
    X, y = engineer_features(dataset, real)
    rseed = _stable_seed("real", seed, dataset, rep)
    _, X_test, _, y_test = split_table(X, y, test_size, rseed)
    return {
        "real": real,
        "X": X,
        "y": y,
        "X_train": X.drop(index=X_test.index),
        "X_test": X_test,
        "y_test": y_test,
        "classes": sorted(y.unique()),
        "rseed": rseed,
    }


def _importance_options(params: dict) -> dict:
    keys = ("rf_n_estimators", "test_size", "pfi_repeats", "shap_rows")
    return {
        "methods": tuple(params["methods"]),
        **{k: params[k] for k in keys},
        "shap_block_rows": SHAP_BLOCK_ROWS,
    }


def _row(base: dict, **values) -> dict:
    return {**base, **values}


def importance_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """``len(rngs)`` replicates of the synthetic side of one cell (dataset × generator × level,
    :func:`build_grid`); tidy rows, compared with the real side by :func:`similarity`.

    Returns
    -------
    DataFrame with one row per replicate × importance method and columns ``rep``, ``method``,
    ``failed`` (no forest could be trained), ``iterations`` (training iterations the
    generator ran, its ``iterations_``; NaN for the others), ``rows`` (rows of the engineered
    synthetic table),
    ``auc_synthetic``, ``auc_cross`` (on the real test split) and ``importance``
    (:func:`scores_to_json` of the synthetic model's scores);
    :func:`~synthtrust.run.experiment.run_grid` adds the cell's parameters (``level`` among them).
    """
    out = []
    for i, rng in enumerate(rngs):
        rep = replicate_index(rng, i)
        side = _real_split(params["dataset"], params["seed"], rep, params["test_size"])
        out += _synthetic_rows(params, side, rng, {"rep": rep})
    return pd.DataFrame(out)


def _synthetic_rows(params: dict, side: dict, rng, base: dict) -> list[dict]:
    name, gen, level = params["dataset"], params["generator"], params["level"]
    synth, iterations = _synthesize(gen, level, name, side["real"], params, rng)
    base = {**base, "iterations": iterations}
    Xs, ys = engineer_features(name, synth)
    options = _importance_options(params)
    try:
        if len(Xs) < _MIN_ROWS:
            raise ValueError(f"{len(Xs)} rows after the pipeline's cleaning")
        sfit = fit_importances(Xs, ys, **options, random_state=side["rseed"])
    except ValueError:
        nan = {"auc_synthetic": np.nan, "auc_cross": np.nan, "importance": "{}"}
        return [_row(base, method=m, failed=True, rows=len(Xs), **nan) for m in options["methods"]]
    classes = side["classes"]
    auc = {
        "auc_synthetic": forest_auc(sfit["model"], sfit["X_test"], sfit["y_test"], classes),
        "auc_cross": forest_auc(sfit["model"], side["X_test"], side["y_test"], classes),
    }
    return [
        _row(
            base,
            method=m,
            failed=False,
            rows=len(Xs),
            **auc,
            importance=scores_to_json(sfit["importances"][m]),
        )
        for m in options["methods"]
    ]


def real_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """The real side of each replicate of one dataset: the real forest's importances, its AUC,
    the association matrix of the real training features, and the random-permutation baseline
    (mean of ``permutation_draws`` random permutations of the real ranking against itself; the
    cosine gives the real sorted scores to the permuted names).

    Returns one row per replicate × method with ``rep``, ``method``, ``auc_real``,
    ``importance`` (:func:`scores_to_json`), ``association`` (JSON ``{"columns", "data"}``, every
    float exactly) and the permutation baseline's ``rbo``, ``corr_rbo`` and ``cosine``.
    """
    options = _importance_options(params)
    rows = []
    for i, rng in enumerate(rngs):
        rep = replicate_index(rng, i)
        side = _real_split(params["dataset"], params["seed"], rep, params["test_size"])
        fit = fit_importances(side["X"], side["y"], **options, random_state=side["rseed"])
        assoc = association_matrix(side["X_train"], categorical=nominal_features(params["dataset"]))
        assoc = assoc.fillna(0.0)
        assoc_json = json.dumps({"columns": list(assoc.columns), "data": assoc.to_numpy().tolist()})
        auc = forest_auc(fit["model"], fit["X_test"], fit["y_test"], side["classes"])
        for m in options["methods"]:
            imp = fit["importances"][m]
            perm = random_permutation_rbo(
                imp,
                params["rbo_p"],
                params["permutation_draws"],
                association=assoc,
                random_state=rng,
            )
            rows.append(
                {
                    "rep": rep,
                    "method": m,
                    "auc_real": auc,
                    "importance": scores_to_json(imp),
                    "association": assoc_json,
                    **{k: float(np.mean(v)) for k, v in perm.items()},
                }
            )
    return pd.DataFrame(rows)


def _association(text: str) -> pd.DataFrame:
    d = json.loads(text)
    return pd.DataFrame(d["data"], index=d["columns"], columns=d["columns"])


def similarity(synthetic: pd.DataFrame, real: pd.DataFrame) -> pd.DataFrame:
    """The paper's measures (:data:`MEASURES`, :func:`compare_rankings` with each row's
    ``rbo_p``) of every synthetic replicate against the real replicate it belongs to.

    Parameters
    ----------
    synthetic : DataFrame
        :func:`~synthtrust.run.experiment.run_grid` over :func:`importance_cell` (with the cells'
        ``dataset``, ``level`` and ``rbo_p`` columns).
    real : DataFrame
        :func:`~synthtrust.run.experiment.run_grid` over :func:`real_cell` for the same datasets,
        seed and replicates (``dataset``, ``rep``, ``method``, ``auc_real``, ``importance``,
        ``association``).

    Returns
    -------
    DataFrame
        ``synthetic`` with the :data:`MEASURES` and ``auc_real``, and ``level`` as floats (NaN
        for independent resampling's None); a replicate whose synthetic importances are all
        zero (e.g. a constant prediction) becomes ``failed`` with NaN measures, as one on which
        no forest could be trained.

    Raises
    ------
    ValueError
        A synthetic replicate without its real replicate.
    """
    keys = ["dataset", "rep", "method"]
    ref = real.set_index(keys)
    missing = synthetic.set_index(keys).index.difference(ref.index)
    if len(missing):
        dataset, rep, method = missing[0]
        raise ValueError(
            f"real has no replicate for (dataset, rep, method) ({dataset!r}, {int(rep)}, "
            f"{method!r}); run real_cell over the same datasets, seed and replicates"
        )
    parsed: dict = {}
    rows = []
    for row in synthetic.itertuples(index=False):
        key = (row.dataset, row.rep, row.method)
        if key not in parsed:
            parsed[key] = (
                scores_from_json(ref.at[key, "importance"]),
                _association(ref.at[key, "association"]),
            )
        scores, failed = dict.fromkeys(MEASURES, np.nan), bool(row.failed)
        if not failed:
            try:
                real_scores, association = parsed[key]
                imp = scores_from_json(row.importance)
                scores = compare_rankings(real_scores, imp, association, row.rbo_p)
            except ValueError:  # all-zero synthetic importances
                scores, failed = dict.fromkeys(MEASURES, np.nan), True
        rows.append({"failed": failed, **scores, "auc_real": ref.at[key, "auc_real"]})
    extra = pd.DataFrame(rows, index=synthetic.index)
    level = pd.to_numeric(synthetic["level"]).astype(float)
    return synthetic.drop(columns=["failed"]).assign(level=level).join(extra)


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd (n − 1) of every measure over replicates per dataset, generator, level and
    method, with the number of replicates and of failed ones; failed replicates are left out of
    the means (as the paper's "fails")."""
    by = ["dataset", "generator", "level", "method"]
    ok = results[~results.failed]
    cols = list(MEASURES) + ["auc_synthetic", "auc_cross", "auc_real"]
    g = ok.groupby(by, dropna=False)[cols]
    out = g.mean().add_suffix("_mean").join(g.std(ddof=1).add_suffix("_sd"))
    counts = results.groupby(by, dropna=False).agg(n=("rep", "size"), failed=("failed", "sum"))
    return counts.join(out).reset_index()
