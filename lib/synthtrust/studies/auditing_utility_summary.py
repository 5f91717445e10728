"""Chapter 5, utility part — the utility runs summarised per generator, and the paper's tables
beside them.

Houssiau et al. (2022) [``houssiau2022``], Tables 1–3: the mean and standard deviation of each
metric of :func:`synthtrust.studies.auditing_utility.utility_cell` per generator
(:func:`summarize_utility`), and the layout "paper | this run" that Tables 1, 2 and 3 share.
"""

from __future__ import annotations

import math

import pandas as pd

from .auditing_utility_generators import UTILITY_GENERATORS

__all__ = ["PAPER_LABELS", "summarize_utility"]

#: Labels of the paper's rows.
PAPER_LABELS: dict[str, str] = dict(UTILITY_GENERATORS)

#: Output columns of :func:`utility_cell` holding the metrics (means in the tables).
UTILITY_METRICS = (
    "app1_rmse_3way",
    "app1_rmse_gender_gap",
    "app2_acc_real",
    "app2_acc_synthetic",
    "app3_acc_real",
    "app3_acc_synthetic",
    "app3_jaro",
    "app3_jaro_real_test",
)


def summarize_utility(results: pd.DataFrame) -> pd.DataFrame:
    """One row per generator (in :data:`UTILITY_GENERATORS` order): ``generator``, ``label``,
    ``runs``, the mean of every metric of :func:`utility_cell`, the standard deviation of each
    (``<metric>_sd``, NaN for one run), ``fit_seconds`` and ``seconds`` (means).

    Raises
    ------
    ValueError
        ``results`` lacks the columns of :func:`utility_cell` and ``generator``.
    """
    need = {"generator", *UTILITY_METRICS, "fit_seconds", "seconds"}
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (from utility_cell), "
            f"got {list(results.columns)}"
        )
    rows = []
    for gen in [g for g in UTILITY_GENERATORS if g in set(results["generator"])]:
        grp = results[results["generator"] == gen]
        row = {"generator": gen, "label": UTILITY_GENERATORS[gen], "runs": len(grp)}
        for m in UTILITY_METRICS:
            vals = pd.to_numeric(grp[m], errors="coerce")
            row[m] = float(vals.mean())
            row[f"{m}_sd"] = float(vals.std(ddof=1)) if len(vals) > 1 else math.nan
        row["fit_seconds"] = float(grp["fit_seconds"].mean())
        row["seconds"] = float(grp["seconds"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def paper_vs_run(
    results: pd.DataFrame, paper: dict, metrics: list[tuple[str, str]], paper_rows: bool
) -> pd.DataFrame:
    """The "paper | this run" layout shared by Tables 1, 2 and 3 (``houssiau2022``).

    Parameters
    ----------
    results : pandas.DataFrame
        Utility runs, as :func:`summarize_utility` takes them.
    paper : dict
        ``{generator: (value of metric 1, value of metric 2, ...)}``, the paper's numbers.
    metrics : list of (str, str)
        ``(column title, metric column of the summary)`` of each metric, in table order.
    paper_rows : bool
        Also list generators the paper reports but this run lacks (NaN for this run).

    Returns
    -------
    pandas.DataFrame
        One row per generator (its label, :data:`PAPER_LABELS` order); columns a MultiIndex
        ``(title, "paper" | "this run")``; this run's values are means over the runs; NaN
        where a side has no value.

    Raises
    ------
    ValueError
        As :func:`summarize_utility`: ``results`` lacks its columns.
    """
    s = summarize_utility(results).set_index("generator")
    order = [g for g in PAPER_LABELS if g in s.index or (paper_rows and g in paper)]
    cols = pd.MultiIndex.from_tuples(
        [(title, side) for title, _ in metrics for side in ("paper", "this run")]
    )
    data = []
    for g in order:
        row = []
        for i, (_, col) in enumerate(metrics):
            row.append(paper[g][i] if g in paper else math.nan)
            row.append(float(s.loc[g, col]) if g in s.index else math.nan)
        data.append(row)
    return pd.DataFrame(data, index=[PAPER_LABELS[g] for g in order], columns=cols)
