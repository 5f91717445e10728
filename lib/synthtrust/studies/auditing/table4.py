"""Chapter 5 — Table 4 and the audit findings of the paper, beside this run's audits.

Houssiau et al. (2022) [``houssiau2022``], §4.4 and Table 4: the paper's p-values and findings
(:data:`PAPER_TABLE4`, :data:`PAPER_FINDINGS`), the audits of
:func:`synthtrust.studies.auditing.audits.audit_cell` summarised per (application, generator)
(:func:`summarize`), laid out as Table 4 (:func:`table4`), and the findings as verdicts with
their uncertainty (:func:`verdict_rows`, :mod:`synthtrust.verdicts`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthtrust.studies.auditing.generators import GENERATORS, PAPER_GENERATORS
from synthtrust.verdicts import finding, paired_interval, rate_interval

__all__ = [
    "PAPER_FINDINGS",
    "PAPER_TABLE4",
    "REJECTION_BAND",
    "SECTION",
    "summarize",
    "table4",
    "verdict_rows",
]


#: Table 4 of the paper: generator -> p-values of the audit in applications 1, 2, 3. ("MST" in
#: the paper = noise-free Private-PGM. App. 2 honest "MST": the notebook printed 0.9431.)
PAPER_TABLE4 = {
    "ipf_honest": (0.54, 0.67, 0.67),
    "ipf_dishonest": (8.9e-34, 2.9e-37, 5.7e-35),
    "pgm_honest": (0.89, 0.95, 0.47),
    "pgm_dishonest": (5.4e-66, 3.0e-69, 2.3e-33),
    "cart": (5.1e-35, 3.9e-38, 3.7e-34),
}

#: What the paper reports about the audits (§4.4, Table 4), one claim per row kind of
#: :func:`verdict_rows`: (kind, claim). Remark 1 (not detecting a leak is no evidence of
#: decomposability) and footnote 6 (MST's data-dependent selection) are properties of the test
#: and of MST, not measurements, and get no row.
PAPER_FINDINGS = [
    (
        "honest",
        "Honest IPF and honest Private-PGM pass the audit in all three applications "
        "(p ≥ 0.47; Table 4)",
    ),
    (
        "dishonest",
        "Dishonest IPF and Private-PGM are rejected in every application (p ≤ 2.3e-33; Table 4)",
    ),
    (
        "cart",
        "SynthPop (sequential CART) is rejected in every application (p ≤ 5.1e-35; Table 4)",
    ),
    (
        "pgm_strongest",
        "Dishonest Private-PGM gives the smallest p-values in App. 1 and 2 "
        "(5.4e-66, 3.0e-69; Table 4)",
    ),
]

#: The rejection rate that separates "passes" (below) from "is rejected" (above) in the
#: verdicts: the paper ran one audit per cell, so its "passes" and "is rejected" are read as
#: "in most audits".
REJECTION_BAND = 0.5

#: The MyST label of the chapter's section that shows the verdicts.
SECTION = "auditing-verdicts"


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (application, generator): the audits' median t, p and log₁₀ p, the share
    rejected, the most frequent leak and its mean share, the mean audit time, and the paper's
    p-value (:data:`PAPER_TABLE4`; NaN beyond the paper) with its log₁₀.

    Columns: ``app``, ``generator``, ``label``, ``audits``, ``t``, ``p``, ``log10_p``,
    ``rejected`` (share), ``leak``, ``leak_share``, ``seconds``, ``paper_p``,
    ``paper_log10_p``, ``expected`` (the paper's verdict: True = rejected, None = not
    audited), ``agrees`` (every audit's verdict equals the paper's; None beyond the paper).

    Raises
    ------
    ValueError
        ``results`` lacks the columns of :func:`audit_cell`.
    """
    need = {"app", "generator", "t", "p", "log10_p", "rejected", "leak", "leak_share", "seconds"}
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (from audit_cell), "
            f"got {list(results.columns)}"
        )
    rows = []
    order = {g: i for i, g in enumerate(GENERATORS)}
    for (app, gen), grp in results.groupby(["app", "generator"], sort=False):
        paper = PAPER_TABLE4.get(gen)
        paper_p = paper[int(app) - 1] if paper else math.nan
        expected = GENERATORS[gen][1]
        rejected = grp["rejected"].astype(bool)
        rows.append(
            {
                "app": int(app),
                "generator": gen,
                "label": GENERATORS[gen][0],
                "audits": len(grp),
                "t": float(grp["t"].median()),
                "p": float(grp["p"].median()),
                "log10_p": float(grp["log10_p"].median()),
                "rejected": float(rejected.mean()),
                "leak": grp["leak"].mode().iloc[0],
                "leak_share": float(grp["leak_share"].mean()),
                "seconds": float(grp["seconds"].mean()),
                "paper_p": paper_p,
                "paper_log10_p": math.log10(paper_p) if paper else math.nan,
                "expected": expected,
                "agrees": None if expected is None else bool((rejected == expected).all()),
                "_order": order[gen],
            }
        )
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    return out.sort_values(["app", "_order"]).drop(columns="_order").reset_index(drop=True)


def format_pvalue(p: float, log10_p: float) -> str:
    """A p-value as Table 4 writes it: ``"0.031"`` (two significant digits) or ``"10^-412"``.

    The power-of-ten form, from ``log10_p`` rounded to an integer, is used when ``p`` is 0
    (underflow) or ``log10_p`` ≤ −300; ``"n/a"`` when ``log10_p`` is not finite.
    """
    if not np.isfinite(log10_p):
        return "n/a"
    if p > 0 and log10_p > -300:
        return f"{p:.2g}"
    return f"10^{log10_p:.0f}"


def table4(results: pd.DataFrame) -> pd.DataFrame:
    """Table 4 of the paper beside this run: rows = generators (labels), columns = ("App. k",
    "paper" / "this run"), p-values as text; a p-value below 1e-300 is written 10^x from
    log₁₀ p. Built from :func:`summarize` (median over replicates).
    """
    s = summarize(results)
    if s.empty:
        return pd.DataFrame()
    out = {}
    for r in s.itertuples(index=False):
        paper = "—" if not np.isfinite(r.paper_p) else f"{r.paper_p:.2g}"
        out.setdefault((f"App. {r.app}", "paper"), {})[r.label] = paper
        out.setdefault((f"App. {r.app}", "this run"), {})[r.label] = format_pvalue(r.p, r.log10_p)
    frame = pd.DataFrame(out)
    frame.columns = pd.MultiIndex.from_tuples(frame.columns)
    labels = [GENERATORS[g][0] for g in GENERATORS if GENERATORS[g][0] in frame.index]
    return frame.loc[labels].fillna("")


def by_replicate(a: pd.DataFrame, b: pd.DataFrame, col_a: str, col_b: str | None = None):
    """The values of ``a[col_a]`` and ``b[col_b]`` (default ``col_a``) on the replicates both
    frames hold, matched by their ``rep`` column and in ``rep`` order: the pairs that
    :func:`~synthtrust.verdicts.paired_interval` resamples together.

    Returns
    -------
    tuple of two numpy arrays of float, of equal length (0 when no replicate is shared).
    """
    x = a.set_index("rep")[col_a]
    y = b.set_index("rep")[col_a if col_b is None else col_b]
    reps = x.index.intersection(y.index).sort_values()
    return x.loc[reps].to_numpy(float), y.loc[reps].to_numpy(float)


def verdict_rows(results: pd.DataFrame, *, random_state=None) -> list[dict]:
    """The audit findings of :data:`PAPER_FINDINGS` as verdict rows
    (:func:`synthtrust.verdicts.finding`), one per cell of the paper's statements.

    * ``table4_<generator>_app<k>`` for each generator of Table 4 and application k = 1, 2, 3:
      θ = the share of this run's audits of the cell that reject at the preset's α, with its
      Clopper–Pearson interval over the audits. The paper ran one audit per cell and reports
      "passes" (honest IPF and Private-PGM) or "is rejected" (dishonest ones, sequential
      CART); a rate claim needs a band, and :data:`REJECTION_BAND` = 0.5 reads them as "in
      most audits": θ < 0.5 for an honest generator (whose rate is the test's Type I error,
      at most α if it is decomposable), θ > 0.5 for the others.
    * ``table4_pgm_strongest_app<k>_vs_<other>`` for k = 1, 2 and ``other`` = dishonest IPF,
      sequential CART: θ = mean paired difference of log₁₀ p between the dishonest
      Private-PGM's audit and the other generator's with the same replicate index (the same
      D* in App. 1–2), claimed < 0 (Table 4's smallest p-values).

    A cell this run did not audit gives an undetermined row with n = 0 and a note.

    Parameters
    ----------
    results : pandas.DataFrame
        The audits: :func:`~synthtrust.studies.auditing.audits.audit_cell` rows after
        :func:`~synthtrust.run.experiment.run_grid` (columns ``app``, ``generator``, ``rep``,
        ``rejected``, ``log10_p``; ``alpha`` if present is quoted).
    random_state : int, numpy.random.Generator or None
        Seed of the paired bootstrap (a fixed int gives the same table on a rerun).

    Returns
    -------
    list of dict
        The rows, in the order above (15 + 4).

    Raises
    ------
    ValueError
        ``results`` lacks one of the columns above.
    """
    need = {"app", "generator", "rep", "rejected", "log10_p"}
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (audit_cell after run_grid), "
            f"got {list(results.columns)}"
        )
    level = f"α = {results['alpha'].iloc[0]:g}" if "alpha" in results and len(results) else "α"
    not_run = "not audited in this preset (the paper preset audits every cell)"

    def cell(app, gen):
        return results[(results["app"] == app) & (results["generator"] == gen)]

    rows = []
    for app in (1, 2, 3):
        for gen in PAPER_GENERATORS:
            label, rejected = GENERATORS[gen]
            grp = cell(app, gen)
            n_rejected = int(grp["rejected"].astype(bool).sum())
            side = "above" if rejected else "below"
            paper = (
                f"{label} {'is rejected' if rejected else 'passes'} in App. {app} (Table 4: "
                f"p = {PAPER_TABLE4[gen][app - 1]:.2g}); θ = share of audits rejected at "
                f"{level}, claimed {side} {REJECTION_BAND:g}"
            )
            claim = (REJECTION_BAND, math.inf) if rejected else (-math.inf, REJECTION_BAND)
            rows.append(
                finding(
                    f"table4_{gen}_app{app}",
                    paper,
                    rate_interval(n_rejected, len(grp)) if len(grp) else None,
                    *claim,
                    section=SECTION,
                    note="" if len(grp) else not_run,
                )
            )
    for app in (1, 2):
        pgm = cell(app, "pgm_dishonest")
        for other in ("ipf_dishonest", "cart"):
            x, y = by_replicate(pgm, cell(app, other), "log10_p")
            finite = bool(np.isfinite(x).all() and np.isfinite(y).all())
            paper = (
                f"Dishonest Private-PGM gives a smaller p-value than {GENERATORS[other][0]} in "
                f"App. {app} (Table 4: {PAPER_TABLE4['pgm_dishonest'][app - 1]:.2g} vs "
                f"{PAPER_TABLE4[other][app - 1]:.2g}); θ = mean paired difference of log₁₀ p, "
                "claimed < 0"
            )
            note = not_run if not len(x) else "" if finite else "an audit gave log₁₀ p = −∞"
            rows.append(
                finding(
                    f"table4_pgm_strongest_app{app}_vs_{other}",
                    paper,
                    paired_interval(x, y, random_state=random_state) if note == "" else None,
                    -math.inf,
                    0.0,
                    section=SECTION,
                    note=note,
                )
            )
    return rows
