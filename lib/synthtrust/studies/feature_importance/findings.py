"""The findings of ``giles2022`` (§5–6) as verdicts on this run: :func:`verdict_rows`.

Each finding the chapter compares with the paper becomes one or more rows of
:func:`synthtrust.verdicts.finding`: a quantity θ computed from the run's replicates, its 95 %
interval and the region the paper's sentence puts θ in. The quantities:

* a mean over runs (RBO, cosine, corrRBO of one cell): the bootstrap interval over runs
  (:func:`~synthtrust.verdicts.bootstrap_interval`);
* a comparison of two cells that share their runs: the paired bootstrap over the run index
  (:func:`~synthtrust.verdicts.paired_interval`). Two generators, ε values or fractions on one
  dataset share run *i*'s real split, forest and ranking, so what the runs have in common
  cancels. Two *datasets* have independent runs; pairing their run *i* is then arbitrary, and
  the paired bootstrap estimates the variance of the difference of two independent means
  (``var X + var Y``), as the two-sample bootstrap does;
* a share of runs (the two informative features stay the top two): Clopper–Pearson
  (:func:`~synthtrust.verdicts.rate_interval`);
* corrRBO ≥ RBO, a theorem (exercise 4 of the chapter): the smallest difference over every
  comparison of the run, exact (no sampling error).

A sentence about "every ε" or "ε ≤ 0.4" is decided at the cell where it is hardest, chosen
before looking at the results: the smallest ε of the run (or the largest ε ≤ 0.4); a trend in
ε compares the largest ε with the smallest on the same runs. Runs on which no forest could be
trained (``failed``) are left out, as in the means of the paper's figures; an ε at which fewer
than :data:`~synthtrust.verdicts.MIN_BOOTSTRAP_REPLICATES` runs trained one has no interval and
is not *measured*, so "the smallest ε" is the smallest measured one and the row's note names
the ε left out (the ε-DP PrivBayes at ε = 0.01 often keeps a single class). The PrivBayes
findings are checked twice: with the paper-compatible PrivBayes the paper ran
(``privbayes_ds``, finding names without a suffix) and with the ε-DP one (``privbayes``,
suffix ``_dp``). A finding on a cell this run's preset does not have (Adult, Artificial 3–4,
several ε or fractions) is a row with no interval, ``undetermined``, whose note names the
preset that runs it.

References
----------
Giles et al. (2022) [``giles2022``], §5.1–5.3, §6 and Figs 3–8.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from synthtrust import verdicts
from synthtrust.importance import importance_ranking
from synthtrust.studies.feature_importance.views import importance_scores

#: The PrivBayes variants the findings are checked with: generator -> (suffix of the finding's
#: name, the note's words for it).
PRIVBAYES = {
    "privbayes_ds": ("", "paper-compatible PrivBayes (the paper's)"),
    "privbayes": ("_dp", "ε-DP PrivBayes"),
}
#: The paper's real datasets, in the order of its §4.2.
REAL = ("adult", "household", "polish")
_LABEL = {"adult": "Adult", "household": "Household", "polish": "Polish"}


def _sd(x, axis=-1):
    return np.std(x, axis=axis, ddof=1)


class _Run:
    """One run's replicates of one importance method, and what every row shares (the seed of
    the bootstrap, the section label)."""

    def __init__(self, raw, real, method, seed, section):
        for col in ("dataset", "generator", "level", "rep", "method", "failed", "rbo"):
            if col not in raw.columns:
                raise ValueError(f"raw must have the column {col!r} (fi.similarity's output)")
        self.all = raw[raw.method == method]
        self.ok = self.all[~self.all.failed.astype(bool)]
        self.real = real[real.method == method]
        self.seed, self.section = seed, section

    # ---------------------------------------------------------------- cells of the run
    def _trained(self, dataset, generator) -> pd.DataFrame:
        """Per ε (or fraction) of ``generator`` on ``dataset``: its runs and those that trained
        a forest (columns ``runs``, ``trained``) and whether it was measured (``measured``,
        see :meth:`levels`), ascending."""
        c = self.all[(self.all.dataset == dataset) & (self.all.generator == generator)]
        c = c.dropna(subset=["level"]).assign(ok=lambda f: ~f.failed.astype(bool))
        t = c.groupby("level").ok.agg(runs="size", trained="sum")
        return t.assign(measured=t.trained >= np.minimum(t.runs, verdicts.MIN_BOOTSTRAP_REPLICATES))

    def levels(self, dataset, generator) -> list[float]:
        """The ε (or fractions) at which ``generator`` ran on ``dataset`` and was *measured*,
        ascending: at least :data:`~synthtrust.verdicts.MIN_BOOTSTRAP_REPLICATES` of its runs
        (all of them when it has fewer) trained a forest. A level where more runs failed has no
        interval, so "the smallest ε" of a finding is the smallest measured one (the note of
        the row names the levels left out, :meth:`unmeasured`)."""
        t = self._trained(dataset, generator)
        return [float(v) for v in t.index[t.measured]]

    def unmeasured(self, dataset, generator) -> str:
        """The note's words for the levels :meth:`levels` leaves out ("" when none)."""
        t = self._trained(dataset, generator)
        t = t[~t.measured]
        what = "fraction" if generator == "subsample" else "ε"
        return "".join(
            f"; {what} = {level:g} left out: {r.trained} of {r.runs} runs trained a forest"
            for level, r in zip(t.index, t.itertuples(), strict=True)
        )

    def values(self, dataset, generator, level, col="rbo") -> pd.Series:
        """``col`` of the non-failed runs of one cell, indexed by run (``level`` None:
        independent resampling)."""
        c = self.ok[(self.ok.dataset == dataset) & (self.ok.generator == generator)]
        c = c[c.level.isna()] if level is None else c[np.isclose(c.level, level)]
        return c.set_index("rep")[col].sort_index()

    def baseline(self, dataset) -> pd.Series:
        """Per run, the higher RBO of the two chance baselines: independent resampling and the
        random permutation of the real ranking."""
        perm = self.real[self.real.dataset == dataset].set_index("rep").rbo
        ind = self.values(dataset, "independent", None)
        both = pd.concat([perm.rename("perm"), ind.rename("ind")], axis=1)
        return both.max(axis=1).dropna().sort_index()

    def per_run_mean(self, dataset, generator, levels, col="rbo") -> pd.Series:
        """Per run, the mean of ``col`` over ``levels`` (its non-failed cells)."""
        cols = [self.values(dataset, generator, e, col).rename(e) for e in levels]
        return pd.concat(cols, axis=1).mean(axis=1).dropna() if cols else pd.Series(dtype=float)

    # ---------------------------------------------------------------- intervals and rows
    def mean(self, x) -> verdicts.Interval | None:
        x = np.asarray(x, dtype=float)
        return verdicts.bootstrap_interval(x, random_state=self.seed) if len(x) else None

    def paired(self, x: pd.Series, y: pd.Series, statistic=None, min_n=1):
        """Interval of ``statistic(x) - statistic(y)`` over the runs both have (None if fewer
        than ``min_n``)."""
        both = pd.concat([x.rename("x"), y.rename("y")], axis=1, join="inner").dropna()
        if len(both) < min_n:
            return None
        kw = {} if statistic is None else {"statistic": statistic}
        return verdicts.paired_interval(both.x, both.y, random_state=self.seed, **kw)

    def row(self, name, paper, interval, low=-math.inf, high=math.inf, note=""):
        return verdicts.finding(name, paper, interval, low, high, section=self.section, note=note)


def _missing(what: str) -> str:
    return f"not in this run: {what}; the `paper` preset runs it"


def _top2(json_scores) -> pd.Series:
    return json_scores.map(lambda j: frozenset(importance_ranking(importance_scores(j))[:2]))


# ------------------------------------------------------------------------ the artificial data
def _artificial(run: _Run, gen: str, sfx: str, words: str) -> list[dict]:
    rows = []
    a1 = run.levels("artificial_1", gen)
    paper = (
        "Artificial 1: the two informative features stay the synthetic top two at every ε "
        "(§5.1); share of runs at the smallest ε, claimed > 50 %"
    )
    interval, note = None, _missing(f"Artificial 1 with the {words}")
    if a1:
        ref = _top2(run.real[run.real.dataset == "artificial_1"].set_index("rep").importance)
        syn = _top2(run.values("artificial_1", gen, a1[0], "importance"))
        common = syn.index.intersection(ref.index)
        if len(common):
            hits = int(sum(syn[r] == ref[r] for r in common))
            interval = verdicts.rate_interval(hits, len(common))
            note = f"{words}; ε = {a1[0]:g}, the smallest of this run" + run.unmeasured(
                "artificial_1", gen
            )
    rows.append(run.row("a1_top2" + sfx, paper, interval, 0.5, math.inf, note))

    a5 = run.levels("artificial_5", gen)
    where = (
        f"{words}; ε = {a5[0]:g}, the smallest of this run" + run.unmeasured("artificial_5", gen)
        if a5
        else ""
    )
    absent = _missing(f"Artificial 5 with the {words}")
    for col, label in (("rbo", "RBO"), ("cosine", "cosine")):
        x = run.values("artificial_5", gen, a5[0], col) if a5 else []
        rows.append(
            run.row(
                f"a5_{col}{sfx}",
                f"Artificial 5: every measure ≥ 0.95 at every ε (§5.1); mean {label} at the "
                "smallest ε, claimed > 0.95",
                run.mean(x),
                0.95,
                math.inf,
                (
                    where
                    + ("; corrRBO ≥ RBO, so the RBO row decides corrRBO" if col == "rbo" else "")
                )
                if len(x)
                else absent,
            )
        )
    x = run.values("artificial_5", gen, a5[0]) if a5 else []
    kept = verdicts.rate_interval(int((x > 1 - 1e-9).sum()), len(x)) if len(x) else None
    rows.append(
        run.row(
            "a5_order" + sfx,
            "Artificial 5: the order X0 > X9 > X10 is kept at every ε (§5.1); share of runs "
            "keeping it at the smallest ε, claimed > 50 %",
            kept,
            0.5,
            math.inf,
            where + "; RBO_ext = 1 exactly when the order is the real one" if len(x) else absent,
        )
    )

    a2 = sorted(set(run.levels("artificial_2", gen)) & set(a1))
    diff, corr = None, None
    if a2:
        diff = run.paired(
            run.values("artificial_2", gen, a2[0]), run.values("artificial_1", gen, a2[0])
        )
        corr = run.mean(run.values("artificial_2", gen, a2[0], "corr_rbo"))
    where = (
        f"{words}; ε = {a2[0]:g}, the smallest of this run"
        if a2
        else _missing(f"Artificial 1 and 2 with the {words}")
    )
    rows.append(
        run.row(
            "a2_rbo_below_a1" + sfx,
            "Artificial 2 (redundant copies): RBO below Artificial 1's at small ε (§5.1); "
            "mean RBO of Artificial 2 − Artificial 1, claimed < 0",
            diff,
            high=0.0,
            note=where + ("; two datasets: independent runs paired by index" if a2 else ""),
        )
    )
    rows.append(
        run.row(
            "a2_corr_rbo" + sfx,
            "Artificial 2: corrRBO stays high at small ε (§5.1); mean corrRBO at the smallest ε, "
            "read here as > 0.9",
            corr,
            0.9,
            math.inf,
            where,
        )
    )

    a3, a4 = run.levels("artificial_3", gen), run.levels("artificial_4", gen)
    common = sorted(set(a3) & set(a4))
    diff = None
    if common:
        e = common[-1]
        diff = run.paired(run.values("artificial_4", gen, e), run.values("artificial_3", gen, e))
    rows.append(
        run.row(
            "a4_below_a3" + sfx,
            "Artificial 3 and 4 (15 informative features): Artificial 4 (continuous) at or below "
            "Artificial 3, especially at large ε (§5.1); mean RBO of Artificial 4 − 3 at the "
            "largest ε, claimed < 0",
            diff,
            high=0.0,
            note=f"{words}; ε = {common[-1]:g}; two datasets: independent runs paired by index"
            if common
            else _missing("Artificial 3 and 4"),
        )
    )
    return rows


# ------------------------------------------------------------------------------ the real data
def _real_trends(run: _Run, gen: str, sfx: str, words: str) -> list[dict]:
    """Per real dataset: the rise with ε, ε ≤ 0.4 against the baselines, independent resampling
    at the smallest ε, Adult above the baselines for ε > 0.1."""
    rows = []
    for d in REAL:
        levels = run.levels(d, gen)
        diff = None
        if len(levels) > 1:
            diff = run.paired(run.values(d, gen, levels[-1]), run.values(d, gen, levels[0]))
        rows.append(
            run.row(
                f"trend_{d}{sfx}",
                f"{_LABEL[d]}: PrivBayes similarity rises with ε (§5.2); mean RBO at the largest "
                "ε − at the smallest, same runs, claimed > 0",
                diff,
                0.0,
                math.inf,
                f"{words}; ε = {levels[-1]:g} vs {levels[0]:g}" + run.unmeasured(d, gen)
                if diff
                else _missing(f"{_LABEL[d]} at two values of ε with the {words}"),
            )
        )
    for d in REAL:
        low = [e for e in run.levels(d, gen) if e <= 0.4]
        diff = run.paired(run.values(d, gen, low[-1]), run.baseline(d)) if low else None
        rows.append(
            run.row(
                f"low_eps_{d}{sfx}",
                f"{_LABEL[d]}: for ε ≤ 0.4 PrivBayes is at or below the baselines (§5.2, §6); "
                "mean RBO at the largest ε ≤ 0.4 − the higher baseline of the same run, read "
                "here as < 0.05",
                diff,
                high=0.05,
                note=f"{words}; ε = {low[-1]:g}; baseline: the higher of independent resampling "
                "and the random permutation" + run.unmeasured(d, gen)
                if diff
                else _missing(f"{_LABEL[d]} at ε ≤ 0.4 with the {words}"),
            )
        )
    for d in ("household", "polish"):
        levels = run.levels(d, gen)
        diff = None
        if levels:
            diff = run.paired(run.values(d, "independent", None), run.values(d, gen, levels[0]))
        rows.append(
            run.row(
                f"independent_{d}{sfx}",
                f"{_LABEL[d]}: independent resampling beats the synthesizers at low ε (§5.2); "
                "mean RBO of independent resampling − PrivBayes at the smallest ε, claimed > 0",
                diff,
                0.0,
                math.inf,
                f"{words}; ε = {levels[0]:g}" + run.unmeasured(d, gen)
                if diff
                else _missing(f"{_LABEL[d]} with the {words} and independent resampling"),
            )
        )
    high = [e for e in run.levels("adult", gen) if e > 0.1]
    diff = run.paired(run.values("adult", gen, high[0]), run.baseline("adult")) if high else None
    rows.append(
        run.row(
            "adult_above_baselines" + sfx,
            "Adult: PrivBayes above the baselines for ε > 0.1 (§5.2); mean RBO at the smallest "
            "ε > 0.1 − the higher baseline of the same run, claimed > 0",
            diff,
            0.0,
            math.inf,
            f"{words}; ε = {high[0]:g}" if diff else _missing(f"Adult at ε > 0.1 with the {words}"),
        )
    )
    return rows


def _real_comparisons(run: _Run, gen: str, sfx: str, words: str) -> list[dict]:
    """Household lowest of the real datasets; PrivBayes against PATE-CTGAN; the AUC gap."""
    rows = []
    hh = run.levels("household", gen)
    for other in ("adult", "polish"):
        common = sorted(set(hh) & set(run.levels(other, gen)))
        diff = None
        if common:
            diff = run.paired(
                run.per_run_mean("household", gen, common), run.per_run_mean(other, gen, common)
            )
        rows.append(
            run.row(
                f"household_below_{other}{sfx}",
                f"Household has the lowest similarity of the real datasets (§5.2); mean RBO over "
                f"ε of Household − {_LABEL[other]}, claimed < 0",
                diff,
                high=0.0,
                note=f"{words}; ε ∈ {{{', '.join(f'{e:g}' for e in common)}}}; two datasets: "
                "independent runs paired by index"
                if diff
                else _missing(f"Household and {_LABEL[other]} with the {words}"),
            )
        )
    for d in REAL:
        common = [e for e in run.levels(d, gen) if e >= 1 and e in run.levels(d, "pate_ctgan")]
        diff = None
        if common:
            diff = run.paired(
                run.per_run_mean(d, gen, common), run.per_run_mean(d, "pate_ctgan", common)
            )
        rows.append(
            run.row(
                f"pb_vs_pate_{d}{sfx}",
                f"{_LABEL[d]}: PrivBayes beats PATE-CTGAN at medium and high ε (§5.2); mean RBO "
                "of PrivBayes − PATE-CTGAN over the common ε ≥ 1, same runs, claimed > 0",
                diff,
                0.0,
                math.inf,
                f"{words}; ε ∈ {{{', '.join(f'{e:g}' for e in common)}}}"
                if diff
                else _missing(f"PATE-CTGAN and the {words} at a common ε ≥ 1 on {_LABEL[d]}"),
            )
        )
    datasets = sorted(run.ok[run.ok.generator == gen].dataset.unique())
    gap = None
    if datasets:
        top = {d: run.levels(d, gen)[-1] for d in datasets}
        real = pd.concat([run.values(d, gen, e, "auc_real") for d, e in top.items()])
        syn = pd.concat([run.values(d, gen, e, "auc_synthetic") for d, e in top.items()])
        gap = run.paired(real.groupby(level=0).mean(), syn.groupby(level=0).mean())
    rows.append(
        run.row(
            "auc_gap" + sfx,
            "Synthetic AUC is below the real AUC but close at high ε (§5.3); real − synthetic "
            "AUC at the largest ε, mean over the datasets, read here as in (0, 0.1)",
            gap,
            0.0,
            0.1,
            f"{words}; datasets: {', '.join(datasets)}" if gap else _missing(f"the {words}"),
        )
    )
    return rows


def _spread(run: _Run, gen: str, sfx: str, words: str) -> list[dict]:
    """corrRBO ≥ RBO (a theorem) and sd(cosine) < sd(RBO) over the cells of one generator."""
    ok = run.ok[run.ok.generator == gen]
    exact = None
    if len(ok):
        low = float((ok.corr_rbo - ok.rbo).min())
        exact = verdicts.Interval(low, low, low, len(ok), 0.0, "exact")
    rows = [
        run.row(
            "corr_ge_rbo" + sfx,
            "corrRBO ≥ RBO everywhere (§5.2); the smallest corrRBO − RBO over the run's "
            "comparisons, claimed ≥ 0 (up to rounding, 1e-9)",
            exact,
            -1e-9,
            math.inf,
            f"{words}; a theorem (exercise 4): checked on every comparison, no sampling error"
            if exact
            else _missing(f"the {words}"),
        )
    ]
    cells = ok.groupby(["dataset", "level"])[["cosine", "rbo"]]
    sd = cells.std(ddof=1)[cells.size() > 1].dropna()
    diff = run.paired(sd.cosine, sd.rbo, min_n=2) if len(sd) else None
    rows.append(
        run.row(
            "cos_sd" + sfx,
            "The cosine varies less than RBO across runs (§5.2); mean over the cells (dataset × "
            "ε) of sd(cosine) − sd(RBO), claimed < 0",
            diff,
            high=0.0,
            note=f"{words}; the units are the {len(sd)} cells, each sd over its runs"
            if diff
            else _missing(f"two cells with two runs of the {words}"),
        )
    )
    return rows


def _subsample(run: _Run) -> list[dict]:
    """Fig. 6: subsample RBO rises, and its sd falls, with the fraction (per real dataset)."""
    rows = []
    for d in REAL:
        frac = run.levels(d, "subsample")
        rise = fall = None
        if len(frac) > 1:
            big, small = run.values(d, "subsample", frac[-1]), run.values(d, "subsample", frac[0])
            rise = run.paired(big, small)
            fall = run.paired(big, small, _sd, min_n=3)
        where = (
            f"fractions {frac[-1]:g} vs {frac[0]:g}, same runs"
            if len(frac) > 1
            else _missing(f"{_LABEL[d]} subsampled at two fractions")
        )
        rows.append(
            run.row(
                f"subsample_rises_{d}",
                f"{_LABEL[d]}: subsample RBO rises with the fraction (Fig. 6); mean RBO at the "
                "largest fraction − at the smallest, claimed > 0",
                rise,
                0.0,
                math.inf,
                where,
            )
        )
        rows.append(
            run.row(
                f"subsample_sd_falls_{d}",
                f"{_LABEL[d]}: the sd of subsample RBO falls with the fraction (Fig. 6); sd at "
                "the largest fraction − at the smallest, claimed < 0",
                fall,
                high=0.0,
                note=where if fall or len(frac) < 2 else _missing("three runs for an sd"),
            )
        )
    return rows


def verdict_rows(
    raw: pd.DataFrame,
    real: pd.DataFrame,
    method: str,
    *,
    seed: int,
    section: str = "",
) -> list[dict]:
    """The paper's findings (§5–6) as verdict rows on this run (see the module docstring).

    Parameters
    ----------
    raw : DataFrame
        One row per synthetic replicate (:func:`~.grid.similarity`'s output): ``dataset``,
        ``generator``, ``level`` (NaN for independent resampling), ``rep``, ``method``,
        ``failed``, the measures and the AUCs, ``importance`` (JSON).
    real : DataFrame
        The real side of each replicate (:func:`~.grid.real_cell`): ``dataset``, ``rep``,
        ``method``, ``importance`` and the random permutation's ``rbo``.
    method : str
        The importance method the findings are read on (the paper's figures: ``"shap"``).
    seed : int
        Seed of every bootstrap (the same rows on a rerun).
    section : str, optional
        MyST label of the chapter's section that shows the rows.

    Returns
    -------
    list of dict
        Rows of :func:`synthtrust.verdicts.finding`, the PrivBayes findings once per variant of
        :data:`PRIVBAYES` (names with its suffix), then the subsampling findings.

    Raises
    ------
    ValueError
        ``raw`` without the columns of :func:`~.grid.similarity`'s output.
    """
    run = _Run(raw, real, method, seed, section)
    rows = []
    for part in (_artificial, _real_trends, _real_comparisons, _spread):
        for gen, (sfx, words) in PRIVBAYES.items():
            rows += part(run, gen, sfx, words)
    return rows + _subsample(run)
