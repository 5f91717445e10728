"""Chapter 5, utility part — the utility runs summarised per generator, and the paper's tables
beside them.

Houssiau et al. (2022) [``houssiau2022``], Tables 1–3: the mean and standard deviation of each
metric of :func:`synthtrust.studies.auditing.utility.experiment.utility_cell` per generator
(:func:`summarize_utility`), and the layout "paper | this run" that Tables 1, 2 and 3 share, with
this run's 95 % interval and the runs behind it (:func:`paper_vs_run`, :func:`paper_vs_run_view`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthtrust.presentation.verdict_tables import estimate_html
from synthtrust.studies.auditing.utility.generators import UTILITY_GENERATORS
from synthtrust.verdicts import bootstrap_interval

__all__ = ["PAPER_LABELS", "paper_vs_run", "paper_vs_run_view", "summarize_utility"]

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


def _run_interval(values: pd.Series, random_state) -> tuple[float, float]:
    """95 % BCa interval of the mean of a metric's finite values over the runs (NaN, NaN when
    there are none); ``(-inf, inf)`` below ``verdicts.MIN_BOOTSTRAP_REPLICATES`` runs."""
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan, math.nan
    ci = bootstrap_interval(x, random_state=random_state)
    return ci.lower, ci.upper


def paper_vs_run(
    results: pd.DataFrame,
    paper: dict,
    metrics: list[tuple[str, str]],
    paper_rows: bool,
    *,
    random_state=0,
) -> pd.DataFrame:
    """The "paper | this run" layout shared by Tables 1, 2 and 3 (``houssiau2022``), with this
    run's 95 % interval of each mean and the number of runs behind it.

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
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap resampling of the intervals.

    Returns
    -------
    pandas.DataFrame
        One row per generator (its label, :data:`PAPER_LABELS` order); columns a MultiIndex
        ``(title, "paper" | "this run" | "lower" | "upper")`` per metric, then
        ``("runs", "")``. This run's values are means over the runs, ``lower``/``upper`` the
        ends of the 95 % BCa bootstrap interval of the mean
        (:func:`synthtrust.verdicts.bootstrap_interval`; infinite below 10 runs); NaN where a
        side has no value.

    Raises
    ------
    ValueError
        As :func:`summarize_utility`: ``results`` lacks its columns.
    """
    s = summarize_utility(results).set_index("generator")
    order = [g for g in PAPER_LABELS if g in s.index or (paper_rows and g in paper)]
    sides = ("paper", "this run", "lower", "upper")
    cols = pd.MultiIndex.from_tuples(
        [(title, side) for title, _ in metrics for side in sides] + [("runs", "")]
    )
    data = []
    for g in order:
        row = []
        runs = results[results["generator"] == g]
        for i, (_, col) in enumerate(metrics):
            row.append(paper[g][i] if g in paper else math.nan)
            row.append(float(s.loc[g, col]) if g in s.index else math.nan)
            row.extend(_run_interval(runs[col], random_state))
        row.append(int(s.loc[g, "runs"]) if g in s.index else 0)
        data.append(row)
    return pd.DataFrame(data, index=[PAPER_LABELS[g] for g in order], columns=cols)


def _number(value: float, fmt: str) -> str:
    return "—" if math.isnan(value) else fmt.format(value)


def _interval(lower: float, upper: float, fmt: str) -> str:
    if not (math.isfinite(lower) and math.isfinite(upper)):
        return "—"
    return f"{fmt.format(lower)}–{fmt.format(upper)}"


def paper_vs_run_view(table: pd.DataFrame, fmt: str, *, html: bool = False) -> pd.DataFrame:
    """:func:`paper_vs_run`'s table as the page shows it: per metric the paper's value, this
    run's mean and its 95 % interval (``"0.0408–0.056"``), then the runs; every number written
    with ``fmt`` (e.g. ``"{:.3g}"``), "—" where a side has none or the interval is infinite
    (fewer than 10 runs). With ``html``, this run's mean and interval share one column, the
    interval in small type under the mean
    (:func:`synthtrust.presentation.verdict_tables.estimate_html`), which keeps a three-metric
    table within a page's width; the runs column is then left out
    when every generator that ran ran as often (the page states that number).

    Raises
    ------
    ValueError
        ``table`` is not laid out as :func:`paper_vs_run` returns it.
    """
    titles = list(dict.fromkeys(t for t, _ in table.columns if t != "runs"))
    want = [(t, side) for t in titles for side in ("paper", "this run", "lower", "upper")]
    if list(table.columns) != [*want, ("runs", "")]:
        raise ValueError(f"table must be laid out as paper_vs_run's, got {list(table.columns)}")
    out = {}
    for t in titles:
        out[(t, "paper")] = [_number(v, fmt) for v in table[(t, "paper")]]
        means = [_number(v, fmt) for v in table[(t, "this run")]]
        ci = [
            _interval(lo, hi, fmt)
            for lo, hi in zip(table[(t, "lower")], table[(t, "upper")], strict=True)
        ]
        if html:
            out[(t, "this run (95 % CI)")] = [
                estimate_html(m, c) for m, c in zip(means, ci, strict=True)
            ]
        else:
            out[(t, "this run")], out[(t, "95 % interval")] = means, ci
    runs = table[("runs", "")]
    if not html or runs[runs > 0].nunique() > 1:
        out[("runs", "")] = [str(int(n)) for n in runs]
    view = pd.DataFrame(out, index=table.index)
    view.columns = pd.MultiIndex.from_tuples(view.columns)
    return view
