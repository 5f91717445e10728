"""What the chapter ``feature_importance`` shows of a run of the ``giles2022`` grid: the
reference bands of the similarity figures (:func:`baseline_bands`), the most important features
on real and synthetic data (:func:`top_features`, the paper's Figure 4) and the RBO of the two
PrivBayes variants side by side (:func:`privbayes_gap`).
"""

from __future__ import annotations

import pandas as pd

from synthtrust.studies.feature_importance.models import scores_from_json


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


def importance_scores(json_text: str) -> pd.Series:
    """An importance vector stored by :func:`importance_cell`/:func:`real_cell` (JSON)."""
    return scores_from_json(json_text)


def _shares(json_scores) -> pd.Series:
    """Mean importance share per feature over runs (each run's |scores| scaled to sum 1)."""
    frames = [importance_scores(j) for j in json_scores]
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
    return t.rename(columns={"privbayes": "ε-DP", "privbayes_ds": "paper-compatible"})
