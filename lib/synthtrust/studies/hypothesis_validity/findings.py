"""Chapter 1 — the paper's findings as verdicts on this run's intervals.

Each finding of Montoya Perez et al. (2024) [``montoyaperez2024``] that the chapter compares
is a claim that an error rate (or a difference of rates) lies in a region; this module turns
the run's error-rate tables into :func:`synthtrust.verdicts.finding` rows
(:mod:`synthtrust.verdicts`). A claim about several cells of the grid ("at every size and ε")
is decided by its :func:`decisive` cell, named in the row's note with the number of cells the
claim covers. Rates of different grid cells come from independent seeds
(:func:`synthtrust.run.experiment.replicate_rngs`), so comparisons between cells use
:func:`rate_difference` (Bonferroni-combined Clopper–Pearson intervals), never a paired
interval; the GAN rows pair the checkpoints of one generator
(:func:`synthtrust.studies.hypothesis_validity.gan.verdict_rows`).

This module holds the shared helpers and the rows of the two-column study (Gaussian and
cardio data, Figures 4, 5, 7 and 8): :func:`verdict_rows`. The multivariate rows are
:func:`synthtrust.studies.hypothesis_validity.multivariate.verdict_rows`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthtrust import verdicts
from synthtrust.verdicts import Interval, rate_difference

__all__ = [
    "ACCEPTABLE_TYPE2",
    "HIGH_TYPE2",
    "VALID_TYPE1",
    "cell_counts",
    "cell_interval",
    "cell_label",
    "cells",
    "claim_row",
    "decisive",
    "select_cells",
    "verdict_rows",
]

#: The paper's words as bands (Montoya Perez et al. 2024 [``montoyaperez2024``], §5–6):
#: "controls Type I error" / "close to α" = Type I below ``VALID_TYPE1 × α`` (0.075 at
#: α = 0.05); "high Type I error" = above α; "high Type II error" / "the effect is not found"
#: = Type II above :data:`HIGH_TYPE2` (the test misses the difference more often than it
#: finds it); "acceptable Type II error" = below :data:`ACCEPTABLE_TYPE2` (power 0.8, the
#: usual design target).
VALID_TYPE1 = 1.5
HIGH_TYPE2 = 0.5
ACCEPTABLE_TYPE2 = 0.2


def cell_interval(row) -> Interval | None:
    """The 95 % interval of one row of :func:`error_rates` (None when it has no rate).

    Clopper–Pearson over the row's feasible datasets (:func:`synthtrust.verdicts.
    rate_interval`); for a row of :func:`~synthtrust.studies.hypothesis_validity.gan.gan_error_rates`
    (it has ``n_generators``) the generator-level Clopper–Pearson band of that function, with
    ``n`` the number of generators (so that :func:`synthtrust.verdicts.replicates_to_decide`
    counts generators).
    """
    if not np.isfinite(row.rate):
        return None
    if hasattr(row, "n_generators"):
        p, g = float(row.rate), int(row.n_generators)
        return Interval(
            p, float(row.lo), float(row.hi), g, math.sqrt(p * (1 - p)), "clopper-pearson"
        )
    nf = int(row.n_feasible)
    return verdicts.rate_interval(round(row.rate * nf), nf)


def cell_counts(row) -> tuple[float, int] | None:
    """(errors, trials) behind a rate row: feasible datasets, or generators for a GAN row
    (then the errors are the pooled rate times the generators, fractional); None without a
    rate."""
    if row is None or not np.isfinite(row.rate):
        return None
    n = int(getattr(row, "n_generators", row.n_feasible))
    return float(row.rate) * n, n


def cell_label(row) -> str:
    """``"method, n = …, m = …, ε = …, test"`` of a rate row (m only where it is not n)."""
    text = f"{row.method}, n = {int(row.n):,}"
    text += f", m = {int(row.m):,}" if int(row.m) != int(row.n) else ""
    text += f", ε = {row.epsilon:g}" if pd.notna(row.epsilon) else ""
    return f"{text}, {row.test}"


def select_cells(rates: pd.DataFrame, **where) -> pd.DataFrame:
    """The rows of an error-rate table with ``column=value`` (ε compared with a tolerance) or
    ``column=predicate`` (a function of the column returning a boolean Series)."""
    sel = rates
    for col, want in where.items():
        v = sel[col]
        if callable(want):
            keep = want(v)
        elif col == "epsilon":
            keep = np.isclose(v.astype(float), float(want))
        else:
            keep = v.eq(want)
        sel = sel[np.asarray(keep, dtype=bool)]
    return sel


def cells(rates: pd.DataFrame, **where) -> list[tuple[str, Interval | None]]:
    """(label, :func:`cell_interval`) of the rows of :func:`select_cells`; the interval is
    None for a row without a rate (too few feasible datasets)."""
    rows = select_cells(rates, **where).itertuples(index=False)
    return [(cell_label(r), cell_interval(r)) for r in rows]


def decisive(cells_, claim_low: float, claim_high: float, *, every: bool = True):
    """The cell whose interval decides a claim about several cells.

    For "θ lies in (claim_low, claim_high) in *every* cell" (``every``) the claim holds if it
    holds in each cell, fails if it fails in one, and is undetermined otherwise; the cell
    returned is a failing one if any (the least favourable), else the undetermined or holding
    one nearest to a boundary, so :func:`synthtrust.verdicts.decide` on it gives the claim's
    verdict. For "... in *some* cell" (``every=False``) the mirror image. Each cell's interval
    is a 95 % one: a "fails" of an every-claim (a "holds" of a some-claim) picks one of
    ``len(cells_)`` cells, so its error rate is at most ``len(cells_)`` times 2.5 %.

    Parameters
    ----------
    cells_ : list of (str, Interval or None)
        Cells without an interval (None) are left out.
    claim_low, claim_high : float

    Returns
    -------
    (str, Interval) or None
        None when no cell has an interval.
    """
    known = [c for c in cells_ if c[1] is not None]
    if not known:
        return None
    rank = {"fails": 0, "undetermined": 1, "holds": 2}

    def key(cell):
        ci = cell[1]
        slack = min(ci.lower - claim_low, claim_high - ci.upper)
        return rank[verdicts.decide(ci.lower, ci.upper, claim_low, claim_high)], slack

    return min(known, key=key) if every else max(known, key=key)


def claim_row(name, paper, cells_, claim_low, claim_high, *, section="", every=True, note=""):
    """One :func:`synthtrust.verdicts.finding` on the :func:`decisive` cell of ``cells_``.

    The note names the cell and how many cells the claim covers. Cells without an interval
    cannot be decided: when the others would decide the claim the way a missing cell could
    overturn (every known cell holds an every-claim, or fails a some-claim), the row has no
    interval (``undetermined``, ``n = 0``) and the note says how many cells lack a rate.
    ``note`` is prepended to the row's note.
    """
    pick = decisive(cells_, claim_low, claim_high, every=every)
    missing = sum(ci is None for _, ci in cells_)
    prefix = f"{note}; " if note else ""
    if pick is None:
        why = (
            f"none of the {missing} cells has a rate (too few feasible datasets)"
            if missing
            else "the claim's cells are not in this run's grid"
        )
        return verdicts.finding(
            name, paper, None, claim_low, claim_high, section=section, note=prefix + why
        )
    label, ci = pick
    text = label
    if len(cells_) > 1:
        text = f"{'every' if every else 'some'} one of {len(cells_)} cells; decisive: {label}"
    verdict = verdicts.decide(ci.lower, ci.upper, claim_low, claim_high)
    if missing and verdict == ("holds" if every else "fails"):
        text = f"{missing} of {len(cells_)} cells have no rate (too few feasible datasets)"
        ci = None
    return verdicts.finding(
        name, paper, ci, claim_low, claim_high, section=section, note=prefix + text
    )


_SYNTH = {
    "perturbed_histogram": "Perturbed histogram",
    "private_pgm": "Private-PGM",
    "mwem": "MWEM",
}


def _mwu(rates: pd.DataFrame, data: str) -> pd.DataFrame:
    return rates[rates["data"].eq(data) & rates["test"].isin(["mannwhitneyu", "dp_mwu"])]


def _one(rates: pd.DataFrame, **where):
    sel = select_cells(rates, **where)
    return next(sel.itertuples(index=False), None)


def _gain_rows(cardio: pd.DataFrame, *, section: str, eps=0.1, small=500, big=20000) -> list:
    """Figure 7(b): Private-PGM and MWEM gain the most (in Type II error at ε = ``eps``) from
    an original of ``big`` rather than ``small`` records."""
    rate = {
        (m, n): cell_counts(_one(cardio, method=m, n=n, epsilon=eps))
        for m in ("private_pgm", "mwem", "perturbed_histogram", "dp_mwu")
        for n in (small, big)
    }
    missing = f"needs n = {small:,} and {big:,} at ε = {eps:g} in the cardio grid"
    rows = []
    for m in ("private_pgm", "mwem"):
        terms = [([rate[m, big]], [rate[m, small]])]
        names = [f"cardio_{m}_gain"]
        papers = [
            f"Cardio: {_SYNTH[m]}'s Type II error falls from n = {small:,} to {big:,} "
            f"at ε = {eps:g} (Fig. 7b); difference big − small below 0"
        ]
        for other, label in (
            ("perturbed_histogram", "the perturbed histogram"),
            ("dp_mwu", "the DP-MW U test"),
        ):
            terms.append(([rate[m, big], rate[other, small]], [rate[m, small], rate[other, big]]))
            names.append(f"cardio_{m}_gains_more_than_{other}")
            papers.append(
                f"Cardio: {_SYNTH[m]} gains more than {label} from the larger "
                f"original (Fig. 7b: it benefits the most); gain difference below 0"
            )
        for name, paper, (plus, minus) in zip(names, papers, terms, strict=True):
            ok = all(t is not None for t in plus + minus)
            ci = rate_difference(plus, minus) if ok else None
            note = "independent cells: Bonferroni-combined Clopper–Pearson" if ok else missing
            rows.append(
                verdicts.finding(name, paper, ci, -math.inf, 0.0, section=section, note=note)
            )
    return rows


def verdict_rows(
    gauss: pd.DataFrame, cardio: pd.DataFrame, *, alpha: float = 0.05, section: str = ""
) -> list[dict]:
    """The verdict rows of the two-column study (Figures 4, 5, 7 and 8, §5.1–5.2, §6).

    Parameters
    ----------
    gauss, cardio : DataFrame
        :func:`~synthtrust.studies.hypothesis_validity.simulation.error_rates` of the Gaussian
        (non-signal and signal) and cardio grids.
    alpha : float
        The tests' level; the bands of :data:`VALID_TYPE1` scale with it.
    section : str
        The MyST label of the chapter's verdict section.

    Returns
    -------
    list of dict
        :func:`synthtrust.verdicts.finding` rows; a claim about a cell the grid lacks (e.g.
        n = 20 000 on a small preset) is ``undetermined`` with ``n = 0`` and a note.
    """
    null, sig, card = _mwu(gauss, "nonsignal"), _mwu(gauss, "signal"), _mwu(cardio, "cardio")
    valid, inf = VALID_TYPE1 * alpha, math.inf
    rows = []

    def add(name, paper, rates, low, high, **where):
        rows.append(claim_row(name, paper, cells(rates, **where), low, high, section=section))

    add(
        "dp_mwu_type1_close_to_alpha",
        f"DP-MW U test: Type I close to α = {alpha:g} at every size and ε (Fig. 4a); read as "
        f"below {valid:g} in every cell",
        null,
        -inf,
        valid,
        method="dp_mwu",
    )
    for m, label in _SYNTH.items():
        add(
            f"{m}_type1_high_eps_below_5",
            f"{label}: high Type I error (above α) for ε < 5 (Fig. 4a); every cell with n < 20 000",
            null,
            alpha,
            inf,
            method=m,
            epsilon=lambda e: e < 5,
            n=lambda n: n < 20000,
        )
    for m in ("perturbed_histogram", "private_pgm"):
        add(
            f"{m}_type1_close_to_alpha_n20000_eps1",
            f"{_SYNTH[m]}: with n = 20 000, Type I close to α at ε = 1 (§5.1); read as below "
            f"{valid:g}",
            null,
            -inf,
            valid,
            method=m,
            n=20000,
            epsilon=1.0,
        )
    add(
        "mwem_type1_high_eps10",
        "MWEM: Type I above α for all sizes even at ε = 10 (Fig. 4a)",
        null,
        alpha,
        inf,
        method="mwem",
        epsilon=10.0,
    )
    add(
        "smoothed_type1_close_to_alpha",
        f"Smoothed histogram controls Type I error (Fig. 5a); read as below {valid:g} at every "
        "m and ε",
        null,
        -inf,
        valid,
        method="smoothed_histogram",
    )
    add(
        "smoothed_type2_high_eps_le_1",
        f"Smoothed histogram: high Type II error when ε ≤ 1 (Fig. 5b, §6); read as above "
        f"{HIGH_TYPE2:g} at every m",
        sig,
        HIGH_TYPE2,
        inf,
        method="smoothed_histogram",
        epsilon=lambda e: e <= 1,
    )
    rows += _gain_rows(card, section=section)
    big_m = {"m": lambda m: m.isin([500, 1000])}
    add(
        "cardio_smoothed_type2_acceptable_eps_ge_5",
        f"Cardio smoothed histogram: Type II acceptable for ε ≥ 5 with m = 500 or 1000 (Fig. 8); "
        f"read as below {ACCEPTABLE_TYPE2:g} in every such cell",
        card,
        -inf,
        ACCEPTABLE_TYPE2,
        method="smoothed_histogram",
        epsilon=lambda e: e >= 5,
        **big_m,
    )
    add(
        "cardio_smoothed_type2_high_eps_below_5",
        f"Cardio smoothed histogram: for ε < 5 the effect is not found (Fig. 8); read as Type II "
        f"above {HIGH_TYPE2:g} with m = 500 or 1000",
        card,
        HIGH_TYPE2,
        inf,
        method="smoothed_histogram",
        epsilon=lambda e: e < 5,
        **big_m,
    )
    return rows
