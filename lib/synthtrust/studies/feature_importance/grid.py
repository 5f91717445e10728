"""The experiment of ``giles2022`` App. A on a grid of (dataset, generator) cells: the grid
(:func:`build_grid`), the real side of a replicate (cached; :func:`real_cell` with the
random-permutation baseline), the synthetic side of every level of a cell
(:func:`importance_cell`) and the mean and sd over replicates (:func:`summarize`).
"""

from __future__ import annotations

import functools
import json
import zlib

import numpy as np
import pandas as pd

from ...experiment import replicate_index
from ...importance import association_matrix, random_permutation_rbo
from ..feature_importance_data import DATASETS, engineer_features, load_table, nominal_features
from .generators import GENERATORS, make_generator
from .models import MEASURES, _auc, compare_rankings, fit_importances

_MIN_ROWS = 20  # fewer rows after the pipeline's cleaning: no forest is trained (failed)


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
    return gen.fit(train).sample() if name == "subsample" else gen.fit(train).sample(len(real))


def build_grid(
    *, datasets_: list[str], generators: dict[str, list], pate_datasets: list[str], extra: dict
) -> list[dict]:
    """Grid cells (dataset × generator) for :func:`importance_cell`.

    Parameters
    ----------
    datasets_ : dataset names (keys of :data:`DATASETS`)
    generators : {generator name: list of levels}
        ε values, subsample fractions, or ``[None]`` for independent resampling.
    pate_datasets : datasets on which ``"pate_ctgan"`` runs (the paper: the real ones only)
    extra : dict
        Preset keys every cell carries (importance methods, forest size, ...).

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
        cells += [{"dataset": d, "generator": gen, "levels": levels, **extra} for d in names]
    return cells


def _reference(params: dict, rep: int):
    """:func:`_real_reference` for a cell's parameters."""
    return _real_reference(
        params["dataset"],
        params["seed"],
        rep,
        tuple(params["methods"]),
        params["rf_trees"],
        params["test_size"],
        params["pfi_repeats"],
        params["shap_rows"],
    )


@functools.lru_cache(maxsize=4)
def _real_reference(
    dataset: str,
    seed: int,
    rep: int,
    methods: tuple,
    rf_trees: int,
    test_size: float,
    pfi_repeats: int,
    shap_rows,
):
    """The real side of one replicate (cached: every cell of a replicate compares with it): the
    prepared table, the fitted model and its importances, the association matrix of the real
    training features, the classes of the target and the replicate's model seed."""
    real = load_table(dataset)
    X, y = engineer_features(dataset, real)
    rseed = _stable_seed("real", seed, dataset, rep)
    fit = fit_importances(
        X,
        y,
        methods=methods,
        rf_trees=rf_trees,
        test_size=test_size,
        pfi_repeats=pfi_repeats,
        shap_rows=shap_rows,
        random_state=rseed,
    )
    X_train = X.drop(index=fit["X_test"].index)
    assoc = association_matrix(X_train, categorical=nominal_features(dataset)).fillna(0.0)
    classes = sorted(y.unique())
    return real, fit, assoc, classes, rseed


def _row(base: dict, **values) -> dict:
    return {**base, **values}


def importance_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """``len(rngs)`` replicates of one cell (dataset × generator, every level); tidy rows.

    Returns
    -------
    DataFrame with one row per replicate × level × importance method and columns ``rep``,
    ``level`` (ε or fraction; NaN for independent resampling), ``method``, ``failed``, the
    :data:`MEASURES`, ``auc_synthetic``, ``auc_cross``, ``auc_real``, ``rows`` (rows of the
    engineered synthetic table) and ``importance`` (JSON {feature: score} of the synthetic
    model); :func:`~synthtrust.experiment.run_grid` adds the cell's parameters.
    """
    out = []
    for i, rng in enumerate(rngs):
        rep = replicate_index(rng, i)
        real, fit, assoc, classes, rseed = _reference(params, rep)
        for level in params["levels"]:
            base = {"rep": rep, "level": np.nan if level is None else level}
            out += _synthetic_rows(params, level, real, fit, assoc, classes, rseed, rng, base)
    return pd.DataFrame(out)


def _synthetic_rows(params, level, real, fit, assoc, classes, rseed, rng, base) -> list[dict]:
    name, gen = params["dataset"], params["generator"]
    synth = _synthesize(gen, level, name, real, params, rng)
    Xs, ys = engineer_features(name, synth)
    methods = tuple(params["methods"])
    try:
        if len(Xs) < _MIN_ROWS:
            raise ValueError(f"{len(Xs)} rows after the pipeline's cleaning")
        sfit = fit_importances(
            Xs,
            ys,
            methods=methods,
            rf_trees=params["rf_trees"],
            test_size=params["test_size"],
            pfi_repeats=params["pfi_repeats"],
            shap_rows=params["shap_rows"],
            random_state=rseed,
        )
    except ValueError:
        nan = dict.fromkeys(MEASURES + ("auc_synthetic", "auc_cross"), np.nan)
        return [
            _row(
                base,
                method=m,
                failed=True,
                rows=len(Xs),
                importance="{}",
                **nan,
                auc_real=_auc(fit["model"], fit["X_test"], fit["y_test"], classes),
            )
            for m in methods
        ]
    auc = {
        "auc_synthetic": _auc(sfit["model"], sfit["X_test"], sfit["y_test"], classes),
        "auc_cross": _auc(sfit["model"], fit["X_test"], fit["y_test"], classes),
        "auc_real": _auc(fit["model"], fit["X_test"], fit["y_test"], classes),
    }
    rows = []
    for m in methods:
        s_imp = sfit["importances"][m]
        try:
            scores = compare_rankings(fit["importances"][m], s_imp, assoc, params["rbo_p"])
            failed = False
        except ValueError:  # all-zero synthetic importances (e.g. a constant prediction)
            scores, failed = dict.fromkeys(MEASURES, np.nan), True
        rows.append(
            _row(
                base,
                method=m,
                failed=failed,
                rows=len(Xs),
                **scores,
                **auc,
                importance=s_imp.to_json(),
            )
        )
    return rows


def real_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """The real side of each replicate of one dataset: the real importances (JSON), the real
    AUC, and the random-permutation baseline (mean of ``permutation_draws`` random permutations
    of the real ranking against itself; the cosine gives the real sorted scores to the permuted
    names).

    Returns one row per replicate × method with ``rep``, ``method``, ``auc_real``,
    ``importance`` and the permutation baseline's ``rbo``, ``corr_rbo`` and ``cosine``.
    """
    methods = tuple(params["methods"])
    rows = []
    for i, rng in enumerate(rngs):
        rep = replicate_index(rng, i)
        real, fit, assoc, classes, _ = _reference(params, rep)
        auc = _auc(fit["model"], fit["X_test"], fit["y_test"], classes)
        for m in methods:
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
                    "importance": imp.to_json(),
                    **{k: float(np.mean(v)) for k, v in perm.items()},
                }
            )
    return pd.DataFrame(rows)


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
