"""Chapter 2 — what the page shows of the generator comparison: one table per dataset, this
run's numbers beside the paper's, in per cent.

:func:`~synthtrust.studies.holdout_fidelity_privacy.scores.generator_comparison` computes; this module
only formats, so that the chapter's cells stay a few lines each.

Source: Platzer and Reutterer (2021) [``platzer2021``], §4, Figures 7 and 8.
"""

from __future__ import annotations

import math

import pandas as pd

from synthtrust.presentation.verdict_tables import estimate_html

__all__ = ["COMPARISON_METRICS", "generator_comparison_tables"]

#: Column title of each metric of the comparison, in table order.
COMPARISON_METRICS = {"tvd_1": "F¹ (%)", "tvd_2": "F² (%)", "tvd_3": "F³ (%)"}


def _percent(value: float) -> str:
    return "—" if math.isnan(value) else f"{100 * value:.1f}"


def _share(row) -> str:
    if math.isnan(row.share_lower):
        return _percent(row.dcr_share)
    interval = f"{100 * row.share_lower:.1f}–{100 * row.share_upper:.1f}"
    return estimate_html(_percent(row.dcr_share), interval)


def generator_comparison_tables(comparison: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The generator comparison as the page shows it: one table per dataset, in the order of
    ``comparison``.

    Parameters
    ----------
    comparison : DataFrame
        :func:`~synthtrust.studies.holdout_fidelity_privacy.scores.generator_comparison`'s frame.

    Returns
    -------
    dict of str to DataFrame
        ``{dataset: table}``; a table's index is the comparison's ``row``, its columns
        ``(title, "this run" | "paper")`` for F¹, F², F³ and ``("share (%)", "this run (95 %
        CI)" | "paper")``: text in per cent with one decimal, "—" where a side has no number,
        this run's share with its Clopper–Pearson interval under it
        (:func:`synthtrust.presentation.verdict_tables.estimate_html`).

    Raises
    ------
    ValueError
        ``comparison`` lacks a column of that frame.
    """
    need = {"dataset", "row", "dcr_share", "share_lower", "share_upper", "paper_dcr_share"}
    need |= {c for m in COMPARISON_METRICS for c in (m, f"paper_{m}")}
    if not need <= set(comparison.columns):
        raise ValueError(
            f"comparison must have the columns {sorted(need)} (from generator_comparison), "
            f"got {list(comparison.columns)}"
        )
    tables = {}
    for dataset, rows in comparison.groupby("dataset", sort=False):
        out = {}
        for metric, title in COMPARISON_METRICS.items():
            out[(title, "this run")] = [_percent(v) for v in rows[metric]]
            out[(title, "paper")] = [_percent(v) for v in rows[f"paper_{metric}"]]
        out[("share (%)", "this run (95 % CI)")] = [_share(r) for r in rows.itertuples()]
        out[("share (%)", "paper")] = [_percent(v) for v in rows["paper_dcr_share"]]
        table = pd.DataFrame(out, index=pd.Index(rows["row"].tolist()))
        table.columns = pd.MultiIndex.from_tuples(table.columns)
        tables[dataset] = table
    return tables
