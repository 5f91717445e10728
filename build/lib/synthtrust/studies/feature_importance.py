"""Chapter ``feature_importance``: Giles et al. (2022), "Faking feature importance: a cautionary
tale on the use of differentially-private synthetic data", re-run.

One grid cell = (dataset, generator); one replicate = the paper's App. A run for that cell:

1. the real table (:func:`~.feature_importance_data.load_table`) is feature-engineered
   (:func:`~.feature_importance_data.engineer_features`), split 70/30 and a random forest of 150
   trees is fitted on the 70 %; its MDI, permutation (PFI) and mean-|SHAP| importances are the
   *real* importances. The split and the forest are seeded from ``(seed, dataset, rep)`` only,
   so every generator of a replicate is compared with the same real ranking (as in the QUIPP
   pipeline, where run *i* uses seed *i* for everything);
2. for each privacy level (or subsample fraction) the generator is fitted on the real table and
   samples as many rows; the synthetic table goes through the same engineering, split and
   forest, and its importances are compared with the real ones: extrapolated RBO, correlated
   RBO (with the association matrix of the real training features), cosine, L2 and KL
   (:func:`compare_rankings`); the forest's AUC on the synthetic test split and its cross-AUC on
   the real test split (train on synthetic, test on real) are recorded;
3. the random-permutation baseline compares random permutations of the real ranking with it.

A synthetic table on which no forest can be trained (one class left, too few rows after the
pipeline's cleaning, all importances zero) is recorded with ``failed=True`` and NaN scores, as
the paper reports "PrivBayes fails" for Adult at ε = 10⁻⁴.
"""

from __future__ import annotations

import functools
import io
import json
import zlib

import numpy as np
import pandas as pd

from ..experiment import replicate_index
from ..importance import (
    association_matrix,
    compare_importances,
    correlated_rank_similarity,
    feature_importance,
    importance_ranking,
    random_permutation_rbo,
    rank_biased_overlap,
)
from .feature_importance_data import (
    DATASETS,
    engineer_features,
    load_table,
    nominal_features,
    study_domain,
)

__all__ = [
    "DATASETS",
    "GENERATORS",
    "MEASURES",
    "PAPER_FINDINGS",
    "PAPER_TABLE1",
    "build_grid",
    "compare_rankings",
    "baseline_bands",
    "fit_importances",
    "importance_cell",
    "make_generator",
    "paper_vs_run",
    "privbayes_gap",
    "privbayes_ledgers",
    "real_cell",
    "summarize",
    "top_features",
]

#: Generators: name -> (label in the chapter, differentially private at the nominal ε?).
GENERATORS = {
    "privbayes": ("PrivBayes (ε-DP)", True),
    "privbayes_ds": ("PrivBayes (paper-compatible, not DP)", False),
    "pate_ctgan": ("PATE-CTGAN", True),
    "mst": ("MST", True),
    "aim": ("AIM", True),
    "independent": ("Independent resampling", False),
    "subsample": ("Subsample", False),
}

#: The similarity measures of §3.2 / App. A (higher is closer for all but l2 and kl).
MEASURES = ("rbo", "corr_rbo", "cosine", "l2", "kl")

#: Table 1 of the paper (PATE-CTGAN): ε -> (moments order, training iterations). The λ column
#: was lost in the published text.
PAPER_TABLE1 = {
    0.001: (30000, 3077),
    0.01: (10000, 2802),
    0.1: (1000, 2791),
    0.4: (1000, 3025),
    1.0: (100, 2949),
    4.0: (100, 3054),
    10.0: (100, 2971),
}

#: What the paper reports (§5–6), for the side-by-side table: (key, finding).
PAPER_FINDINGS = [
    (
        "a1_top2",
        "Artificial 1: the two informative features stay the synthetic top two at every ε (§5.1)",
    ),
    ("a5_high", "Artificial 5: every measure ≥ 0.95 at every ε, order X0 > X9 > X10 kept (§5.1)"),
    (
        "a2_rbo",
        "Artificial 2 (redundant copies): RBO below Artificial 1's, corrRBO stays high (§5.1)",
    ),
    ("trend", "Real data: PrivBayes similarity rises with ε (§5.2)"),
    (
        "low_eps",
        "For ε ≤ 0.4 PrivBayes is at or below the baselines on the real datasets (§5.2, §6)",
    ),
    (
        "independent",
        "Independent resampling beats the synthesizers at low ε, especially on "
        "Household and Polish (§5.2)",
    ),
    ("corr_ge_rbo", "corrRBO ≥ RBO everywhere (§5.2)"),
    ("cos_sd", "The cosine varies less than RBO across runs (§5.2)"),
    ("subsample", "Subsample RBO rises, and its sd falls, with the fraction (Fig. 6)"),
    (
        "a34",
        "Artificial 3 and 4 (15 informative features): similarity drops towards the "
        "baselines, Artificial 4 (continuous) at or below Artificial 3 (§5.1)",
    ),
    ("adult", "Adult: PrivBayes above the baselines for ε > 0.1 (§5.2)"),
    ("household_low", "Household has the lowest similarity of the real datasets (§5.2)"),
    ("pb_vs_pate", "PrivBayes beats PATE-CTGAN at medium and high ε (§5.2)"),
    ("auc", "Synthetic AUC is below the real AUC but close at high ε (§5.3)"),
]

_MIN_ROWS = 20  # fewer rows after the pipeline's cleaning: no forest is trained (failed)


# --------------------------------------------------------------------------------------------
# models and importances
# --------------------------------------------------------------------------------------------
def _stable_seed(*parts) -> int:
    """A 31-bit seed from strings/ints (stable across processes, unlike ``hash``)."""
    return zlib.crc32(json.dumps(parts).encode()) & 0x7FFFFFFF


def _split(X: pd.DataFrame, y: pd.Series, test_size: float, seed: int):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=test_size, random_state=seed)


def _forest(n_trees: int, seed: int):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=n_trees, random_state=seed, n_jobs=1)


def fit_importances(
    X: pd.DataFrame,
    y: pd.Series,
    *,
    methods,
    rf_trees: int = 150,
    test_size: float = 0.3,
    pfi_repeats: int = 5,
    shap_rows: int | None = None,
    random_state: int = 0,
) -> dict:
    """The paper's App. A model: a 70/30 split, a random forest, and its importances.

    Parameters
    ----------
    X : DataFrame (rows, features), numeric
    y : Series (rows,), int class labels
    methods : sequence of {"mdi", "permutation", "shap"}
        SHAP is mean |φ| over the test rows (at most ``shap_rows`` of them, the first ones of the
        shuffled split), averaged over the classes of a multiclass target; permutation
        importance is sklearn's ``permutation_importance`` on the test split, ``pfi_repeats``
        repeats, accuracy.
    rf_trees : int
        Trees of ``RandomForestClassifier`` (paper: 150).
    test_size : float
        Share of rows in the test split (paper: 0.3).
    random_state : int
        Seed of the split, the forest and the permutations (one seed, as the QUIPP pipeline).

    Returns
    -------
    dict with ``model``, ``X_test``, ``y_test`` and ``importances`` ({method: Series indexed by
    the columns of ``X``}).

    Raises
    ------
    ValueError
        Fewer than two classes in the training split (no importance can be learned).
    """
    X_train, X_test, y_train, y_test = _split(X, y, test_size, random_state)
    if y_train.nunique() < 2:
        raise ValueError(
            f"y has {y_train.nunique()} class in the training split; a classifier needs at least 2"
        )
    model = _forest(rf_trees, random_state).fit(X_train, y_train)
    imps = {}
    for method in methods:
        rows = X_test if (method != "shap" or shap_rows is None) else X_test.iloc[:shap_rows]
        imps[method] = feature_importance(
            model,
            rows,
            y_test.loc[rows.index] if method == "permutation" else None,
            method,
            n_repeats=pfi_repeats,
            random_state=random_state,
            multiclass="mean",
        )
    return {"model": model, "X_test": X_test, "y_test": y_test, "importances": imps}


def compare_rankings(
    real: pd.Series, synthetic: pd.Series, association: pd.DataFrame, p: float = 0.8
) -> dict[str, float]:
    """The paper's similarity measures of two importance vectors (§3.2, App. A).

    Parameters
    ----------
    real, synthetic : Series indexed by the same features
    association : DataFrame (features × features)
        |association| of the real training features (:func:`synthtrust.importance.association_matrix`);
        NaN entries (a constant column) count as 0.
    p : float
        RBO persistence (paper: 0.8).

    Returns
    -------
    dict: ``rbo`` (extrapolated RBO of the two rankings, ``webber2010`` Eq. 32), ``corr_rbo``
    (the correlated rank similarity, extrapolated), ``cosine``, ``l2`` and ``kl``
    (:func:`synthtrust.importance.compare_importances`).
    """
    s, t = importance_ranking(real), importance_ranking(synthetic)
    out = {
        "rbo": rank_biased_overlap(s, t, p).ext,
        "corr_rbo": correlated_rank_similarity(s, t, association.fillna(0.0), p, ext=True),
    }
    out.update(compare_importances(real, synthetic))
    return out


def _auc(model, X: pd.DataFrame, y: pd.Series, classes) -> float:
    """ROC AUC of ``model`` on (X, y): binary on P(last class), else one-vs-one (Hand & Till);
    NaN when ``y`` has a single class. Classes the model never saw get probability 0."""
    from sklearn.metrics import roc_auc_score

    if y.nunique() < 2:
        return float("nan")
    proba = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    proba = proba.reindex(columns=classes, fill_value=0.0).to_numpy()
    if len(classes) == 2:
        return float(roc_auc_score(y, proba[:, 1]))
    present = sorted(set(y))
    sub = proba[:, [list(classes).index(c) for c in present]]
    total = sub.sum(axis=1, keepdims=True)  # rows with no mass on the present classes: uniform
    sub = np.where(total > 0, sub / np.where(total > 0, total, 1.0), 1.0 / len(present))
    if len(present) == 2:
        return float(roc_auc_score(y, sub[:, 1]))
    return float(roc_auc_score(y, sub, multi_class="ovo", labels=present))


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------
def make_generator(name: str, level, dataset: str, params: dict, random_state):
    """An unfitted generator for one cell.

    ``level`` is ε for the DP generators (and the paper-compatible PrivBayes), the fraction for
    ``"subsample"`` and None for ``"independent"``. ``params`` holds the preset keys
    ``privbayes_degree``, ``privbayes_beta``, ``pate_max_iterations`` and ``delta``.

    Raises ValueError for an unknown name (the message lists :data:`GENERATORS`).
    """
    from .. import synthesizers as syn

    domain = study_domain(dataset)
    if name in ("privbayes", "privbayes_ds"):
        extra = (
            {"noise": "datasynthesizer-0.1.3", "max_cells": 2**24} if name == "privbayes_ds" else {}
        )
        return syn.PrivBayes(
            level,
            degree=params["privbayes_degree"],
            beta=params["privbayes_beta"],
            domain=domain,
            random_state=random_state,
            **extra,
        )
    if name == "pate_ctgan":
        return syn.PATECTGAN(
            level,
            domain=domain,
            max_iterations=params["pate_max_iterations"],
            random_state=random_state,
        )
    if name in ("mst", "aim"):
        cls = syn.MST if name == "mst" else syn.AIM
        return cls(level, params["delta"], domain=domain, random_state=random_state)
    if name == "independent":
        return syn.IndependentMarginals(random_state=random_state)
    if name == "subsample":
        return syn.Subsample(level, random_state=random_state)
    raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(GENERATORS)}")


def _synthesize(name: str, level, dataset: str, real: pd.DataFrame, params: dict, rng):
    spec = DATASETS[dataset]
    gen = make_generator(name, level, dataset, params, rng)
    # the DP generators never see the identifiers (they are not in the public domain); the
    # resampling baselines keep drawing the real ones (Household's grouping into households)
    resample = name in ("independent", "subsample")
    train = real if resample else real.drop(columns=list(spec.identifiers))
    return gen.fit(train).sample() if name == "subsample" else gen.fit(train).sample(len(real))


# --------------------------------------------------------------------------------------------
# the experiment
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# what the chapter shows
# --------------------------------------------------------------------------------------------
def baseline_bands(raw: pd.DataFrame, real: pd.DataFrame, method: str) -> pd.DataFrame:
    """The reference bands of the similarity figures, per dataset and measure.

    ``kind`` is ``"independent"`` (mean ± sd over runs of independent resampling),
    ``"permutation"`` (mean over runs of the random permutation of the real ranking) or
    ``"subsample"`` (one row per fraction). Columns: dataset, measure, kind, label, mean, lo, hi.
    """
    rows = []
    measures = ("rbo", "corr_rbo", "cosine")
    ok = raw[(raw.method == method) & ~raw.failed]
    for (dataset, gen, level), d in ok[ok.generator.isin(["independent", "subsample"])].groupby(
        ["dataset", "generator", "level"], dropna=False
    ):
        label = "independent resampling" if gen == "independent" else f"subsample {level:.0%}"
        for m in measures:
            mean, sd = d[m].mean(), d[m].std(ddof=1) if len(d) > 1 else 0.0
            rows.append(
                {
                    "dataset": dataset,
                    "measure": m,
                    "kind": gen,
                    "label": label,
                    "mean": mean,
                    "lo": mean - sd,
                    "hi": mean + sd,
                }
            )
    for dataset, d in real[real.method == method].groupby("dataset"):
        for m in measures:
            mean = d[m].mean()
            rows.append(
                {
                    "dataset": dataset,
                    "measure": m,
                    "kind": "permutation",
                    "label": "random permutation",
                    "mean": mean,
                    "lo": mean,
                    "hi": mean,
                }
            )
    return pd.DataFrame(rows, columns=["dataset", "measure", "kind", "label", "mean", "lo", "hi"])


def _scores(json_text: str) -> pd.Series:
    """An importance vector stored by :func:`importance_cell`/:func:`real_cell` (JSON)."""
    return pd.read_json(io.StringIO(json_text), typ="series")


def _shares(json_scores) -> pd.Series:
    """Mean importance share per feature over runs (each run's |scores| scaled to sum 1)."""
    frames = [_scores(j) for j in json_scores]
    frames = [f.abs() / f.abs().sum() for f in frames if len(f) and f.abs().sum() > 0]
    return pd.concat(frames, axis=1).mean(axis=1) if frames else pd.Series(dtype=float)


def top_features(raw: pd.DataFrame, real: pd.DataFrame, method: str, k: int = 15) -> pd.DataFrame:
    """The ``k`` most important real features of each dataset and their mean share of importance
    on the real data and on the synthetic data of each PrivBayes variant at its largest ε (the
    paper's Figure 4). Columns: dataset, source ("real data" or a generator name), feature,
    share."""
    rows = []
    for dataset, d in real[real.method == method].groupby("dataset"):
        ref = _shares(d.importance).sort_values(ascending=False)
        top = list(ref.index[:k])
        rows += [
            {"dataset": dataset, "source": "real data", "feature": f, "share": ref[f]} for f in top
        ]
        syn = raw[
            (raw.dataset == dataset)
            & (raw.method == method)
            & ~raw.failed
            & raw.generator.isin(["privbayes", "privbayes_ds"])
        ]
        for gen, g in syn.groupby("generator"):
            sh = _shares(g[g.level == g.level.max()].importance)
            rows += [
                {"dataset": dataset, "source": gen, "feature": f, "share": float(sh.get(f, 0.0))}
                for f in top
            ]
    return pd.DataFrame(rows, columns=["dataset", "source", "feature", "share"])


def privbayes_gap(summary: pd.DataFrame, method: str) -> pd.DataFrame:
    """Mean RBO of the correct and the paper-compatible PrivBayes at each ε, per dataset."""
    d = summary[(summary.method == method) & summary.generator.isin(["privbayes", "privbayes_ds"])]
    t = d.pivot_table(index=["dataset", "level"], columns="generator", values="rbo_mean")
    t = t.reset_index().rename(columns={"level": "ε"})
    t.columns.name = None
    return t.rename(
        columns={"dataset": "dataset", "privbayes": "ε-DP", "privbayes_ds": "paper-compatible"}
    )


def privbayes_ledgers(
    dataset: str, epsilon: float, degree: int, beta: float, seed: int
) -> dict[str, float]:
    """Fit the paper-compatible PrivBayes once on ``dataset`` at the nominal ``epsilon`` and
    return ``{"nominal": ε, "actual": the ledger's total ε}``."""
    params = {"privbayes_degree": degree, "privbayes_beta": beta}
    table = load_table(dataset).drop(columns=list(DATASETS[dataset].identifiers))
    gen = make_generator("privbayes_ds", float(epsilon), dataset, params, seed).fit(table)
    return {"nominal": float(epsilon), "actual": float(gen.ledger.total_epsilon)}


def _top_sets(json_scores, k: int) -> list[frozenset]:
    out = []
    for j in json_scores:
        s = _scores(j)
        out.append(frozenset(importance_ranking(s)[:k]) if len(s) else frozenset())
    return out


def _verdict(ok) -> str:
    return "not in this run" if ok is None else ("yes" if ok else "no")


def paper_vs_run(
    summary: pd.DataFrame,
    raw: pd.DataFrame,
    real: pd.DataFrame,
    method: str,
    generator: str = "privbayes_ds",
) -> pd.DataFrame:
    """Each finding of :data:`PAPER_FINDINGS` checked on this run's results: ``method``'s
    importances, ``generator`` as the PrivBayes of the findings (default: the
    paper-compatible one the paper ran; ``"privbayes"`` asks whether a finding holds under
    correct DP). Failed runs are left out. Columns: key, paper, this_run, reproduced ("yes",
    "no" or "not in this run")."""
    s = summary[(summary.method == method) & (summary.n > summary.failed)]
    r = raw[(raw.method == method) & ~raw.failed]
    pb = s[s.generator == generator]
    out = {}

    def cell(dataset, gen=generator):
        return s[(s.dataset == dataset) & (s.generator == gen)].sort_values("level")

    a1 = r[(r.dataset == "artificial_1") & (r.generator == generator)]
    if len(a1):
        ref = dict(
            zip(
                real[(real.dataset == "artificial_1") & (real.method == method)].rep,
                _top_sets(
                    real[(real.dataset == "artificial_1") & (real.method == method)].importance, 2
                ),
                strict=True,
            )
        )
        hit = [ref[rep] == t for rep, t in zip(a1.rep, _top_sets(a1.importance, 2), strict=True)]
        by = pd.Series(hit, index=a1.level.to_numpy()).groupby(level=0).mean()
        out["a1_top2"] = (
            ", ".join(f"ε={e:g}: {v:.0%}" for e, v in by.items())
            + " of runs keep the real top two",
            bool(by.min() >= 0.5),
        )
    a5 = cell("artificial_5")
    if len(a5):
        low = a5[["rbo_mean", "corr_rbo_mean", "cosine_mean"]].min().min()
        same = r[(r.dataset == "artificial_5") & (r.generator == generator)].rbo
        kept = float((same > 1 - 1e-9).mean())  # RBO_ext = 1 iff the order is the real one
        out["a5_high"] = (
            f"smallest mean over ε and measures {low:.2f}; the real order kept in "
            f"{kept:.0%} of runs",
            bool(low >= 0.95 and kept >= 0.9),
        )
    a1s, a2s = cell("artificial_1"), cell("artificial_2")
    if len(a1s) and len(a2s):
        e = a1s.level.min()
        r1 = a1s[a1s.level == e].rbo_mean.iloc[0]
        r2, c2 = a2s[a2s.level == e][["rbo_mean", "corr_rbo_mean"]].iloc[0]
        out["a2_rbo"] = (
            f"at ε={e:g}: RBO {r2:.2f} (Artificial 2) vs {r1:.2f} (Artificial 1); corrRBO {c2:.2f}",
            bool(r2 < r1 and c2 >= 0.9),
        )
    reals = [d for d in pb.dataset.unique() if DATASETS[d].kind == "real"]
    trend = {}
    for d in reals:
        c = cell(d)
        if c.level.nunique() > 1:
            trend[d] = float(c[["level", "rbo_mean"]].corr(method="spearman").iloc[0, 1])
    if trend:
        out["trend"] = (
            "Spearman correlation of the mean RBO with ε: "
            + ", ".join(f"{DATASETS[d].label} {v:+.2f}" for d, v in trend.items()),
            bool(all(v > 0 for v in trend.values())),
        )
    bands = baseline_bands(raw, real, method)
    low_eps = []
    for d in reals:
        c = cell(d)
        c = c[c.level <= 0.4]
        b = bands[
            (bands.dataset == d)
            & (bands.measure == "rbo")
            & bands.kind.isin(["independent", "permutation"])
        ]
        if len(c) and len(b):
            low_eps.append((d, c.rbo_mean.max(), b["mean"].max()))
    if low_eps:
        out["low_eps"] = (
            "for ε ≤ 0.4, best PrivBayes mean RBO vs best baseline: "
            + ", ".join(f"{DATASETS[d].label} {a:.2f} vs {b:.2f}" for d, a, b in low_eps),
            bool(all(a <= b + 0.05 for _, a, b in low_eps)),
        )
    ind = []
    for d in [d for d in ("household", "polish") if d in reals]:
        c, i = cell(d), cell(d, "independent")
        if len(c) and len(i):
            ind.append((d, i.rbo_mean.iloc[0], c.rbo_mean.iloc[0], c.level.iloc[0]))
    if ind:
        out["independent"] = (
            "mean RBO, independent resampling vs PrivBayes at its smallest ε: "
            + ", ".join(f"{DATASETS[d].label} {a:.2f} vs {b:.2f} (ε={e:g})" for d, a, b, e in ind),
            bool(all(a > b for _, a, b, _ in ind)),
        )
    if len(r):
        share = float((r.corr_rbo >= r.rbo - 1e-12).mean())
        out["corr_ge_rbo"] = (
            f"corrRBO ≥ RBO in {share:.1%} of {len(r):,} comparisons (a theorem: exercise 4)",
            share == 1.0,
        )
    sds = s[s.generator.isin([generator, "pate_ctgan"])]
    if len(sds) and sds.n.max() > 1:
        c_sd, r_sd = sds.cosine_sd.median(), sds.rbo_sd.median()
        out["cos_sd"] = (f"median sd: cosine {c_sd:.3f}, RBO {r_sd:.3f}", bool(c_sd < r_sd))
    sub = s[s.generator == "subsample"]
    if sub.level.nunique() > 1:
        parts, ok = [], True
        for d, g in sub.groupby("dataset"):
            g = g.sort_values("level")
            ok &= bool(
                g.rbo_mean.is_monotonic_increasing and g.rbo_sd.dropna().is_monotonic_decreasing
            )
            parts.append(
                f"{DATASETS[d].label}: "
                + " → ".join(
                    f"{m:.2f}±{sd:.2f}" for m, sd in zip(g.rbo_mean, g.rbo_sd, strict=True)
                )
            )
        out["subsample"] = ("; ".join(parts), ok)
    out.update(_more_findings(s, bands, generator))
    if len(pb):
        top = pb[pb.level == pb.level.max()]
        gap = top.auc_real_mean - top.auc_synthetic_mean
        out["auc"] = (
            f"at ε={pb.level.max():g}, real AUC − synthetic AUC: median "
            f"{gap.median():+.3f} (range {gap.min():+.3f} to {gap.max():+.3f})",
            bool((gap > 0).mean() >= 0.5 and gap.median() < 0.1),
        )
    rows = []
    for key, paper in PAPER_FINDINGS:
        text, ok = out.get(key, ("not in this run's grid", None))
        rows.append({"key": key, "paper": paper, "this_run": text, "reproduced": _verdict(ok)})
    return pd.DataFrame(rows)


def _more_findings(s: pd.DataFrame, bands: pd.DataFrame, generator: str) -> dict:
    """Findings of :func:`paper_vs_run` that compare datasets or synthesizers (mean RBO)."""
    out = {}

    def rbo(dataset, gen=generator):
        c = s[(s.dataset == dataset) & (s.generator == gen)]
        return c.set_index("level").rbo_mean.sort_index()

    a3, a4 = rbo("artificial_3"), rbo("artificial_4")
    if len(a3) and len(a4):
        e = max(a3.index.max(), a4.index.max())
        out["a34"] = (
            f"mean RBO at ε={e:g}: Artificial 3 {a3.get(e, np.nan):.2f}, "
            f"Artificial 4 {a4.get(e, np.nan):.2f}",
            bool(a4.get(e, np.nan) <= a3.get(e, np.nan)),
        )
    curves = {d: rbo(d) for d in ("adult", "household", "polish")}
    hi = curves["adult"][curves["adult"].index > 0.1]
    base = bands[
        (bands.dataset == "adult")
        & (bands.measure == "rbo")
        & bands.kind.isin(["independent", "permutation"])
    ]["mean"].max()
    if len(hi) and np.isfinite(base):
        out["adult"] = (
            f"for ε > 0.1, smallest mean RBO {hi.min():.2f} vs best baseline {base:.2f}",
            bool(hi.min() > base),
        )
    reals = {d: c.mean() for d, c in curves.items() if len(c)}
    if len(reals) > 1 and "household" in reals:
        out["household_low"] = (
            "mean RBO over ε: "
            + ", ".join(f"{DATASETS[d].label} {v:.2f}" for d, v in reals.items()),
            bool(reals["household"] == min(reals.values())),
        )
    pairs = []
    for d, a in curves.items():
        b = rbo(d, "pate_ctgan")
        common = [e for e in a.index if e in b.index and e >= 1]
        pairs += [(d, e, a[e], b[e]) for e in common]
    if pairs:
        out["pb_vs_pate"] = (
            "mean RBO, PrivBayes vs PATE-CTGAN: "
            + ", ".join(f"{DATASETS[d].label} ε={e:g} {x:.2f} vs {y:.2f}" for d, e, x, y in pairs),
            bool(np.mean([x > y for _, _, x, y in pairs]) > 0.5),
        )
    return out
