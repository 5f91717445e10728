"""Chapter 5, utility part — the paper's utility findings as verdicts on this run.

Houssiau et al. (2022) [``houssiau2022``], §4.3 and Tables 1–3: tailored generators beat the
general-purpose ones on the 3-way table, Φ suffices for the logistic regression, GAN-based
generators give overconfident models, 2-way marginals suffice for the random forest, and two
generators order the features no better than random (:data:`PAPER_UTILITY_FINDINGS`). Each
becomes verdict rows with their uncertainty over the utility runs (:func:`utility_verdict_rows`,
:mod:`synthtrust.verdicts`).
"""

from __future__ import annotations

import math

import pandas as pd

from synthtrust.studies.auditing.table4 import SECTION, by_replicate
from synthtrust.studies.auditing.utility.generators import TAILORED, UTILITY_GENERATORS
from synthtrust.studies.auditing.utility.jaro import expected_jaro_random_permutation
from synthtrust.studies.auditing.utility.table1 import PAPER_TABLE1
from synthtrust.studies.auditing.utility.table2 import PAPER_TABLE2
from synthtrust.studies.auditing.utility.table3 import PAPER_TABLE3
from synthtrust.verdicts import bootstrap_interval, finding, paired_interval

__all__ = ["PAPER_UTILITY_FINDINGS", "utility_verdict_rows"]

#: The utility findings of the paper (§4.3), one claim per row kind of
#: :func:`utility_verdict_rows`: (kind, claim).
PAPER_UTILITY_FINDINGS = [
    (
        "tailored_3way",
        "On the 3-way table (App. 1), tailored IPF and PGM beat every "
        "general-purpose generator except SynthPop (Table 1)",
    ),
    (
        "phi_sufficient",
        "When Φ suffices for the logistic regression (App. 2), IPF and PGM data "
        "give the real model's accuracy (0.341; Table 2)",
    ),
    (
        "gan_overconfident",
        "GAN-based generators give overconfident models: accuracy estimated on "
        "synthetic data exceeds accuracy on real data (PATEGAN App. 2 0.403 vs "
        "0.205, App. 3 0.460 vs 0.210; CTGAN App. 2 0.380 vs 0.288)",
    ),
    (
        "two_way_rf",
        "With only 2-way marginals (App. 3), IPF and PGM come within 0.007 of the "
        "real random forest's accuracy and keep the feature-importance order "
        "(Jaro ≥ 0.98; Table 3)",
    ),
    (
        "random_order",
        "PATEGAN (0.49) and PrivBayes (0.70) order features no better than random (0.70; Table 3)",
    ),
]

#: The claimed bands of the accuracy findings: |accuracy on synthetic-trained model − real
#: model's| below 0.01 in App. 2 (the paper's three accuracies agree to 3 decimals) and 0.007
#: in App. 3 (the paper's "within 0.007"); the "keeps the order" Jaro threshold.
ACCURACY_BAND = {2: 0.01, 3: 0.007}
JARO_KEPT = 0.98

#: The generators' names in the paper.
_PAPER_NAME = {
    "ipf": "IPF",
    "pgm": "Private-PGM",
    "mst": "MST",
    "privbayes": "PrivBayes",
    "pategan": "PATEGAN",
    "ctgan": "CTGAN",
}


def utility_verdict_rows(results: pd.DataFrame, *, random_state=None) -> list[dict]:
    """The utility findings of :data:`PAPER_UTILITY_FINDINGS` as verdict rows
    (:func:`synthtrust.verdicts.finding`), one per generator (pair) a finding names.

    Every generator ran on the same census split in each run, so two generators' values with
    the same replicate index (``rep``) are compared as pairs
    (:func:`~synthtrust.verdicts.paired_interval`, mean paired difference); single means use
    :func:`~synthtrust.verdicts.bootstrap_interval`.

    * ``utility_app1_<t>_below_<o>`` (t = IPF, PGM; o = MST, PrivBayes, PATEGAN, CTGAN): 3-way
      RMSE of t minus that of o, claimed < 0.
    * ``utility_app2_<t>_real_accuracy``, ``utility_app3_<t>_real_accuracy``: the accuracy on
      the real test split of t's model minus the real model's, claimed within
      ±:data:`ACCURACY_BAND` (0.01 in App. 2, 0.007 in App. 3).
    * ``utility_app<k>_<g>_overconfident`` (PATEGAN App. 2 and 3, CTGAN App. 2): accuracy
      estimated on the synthetic holdout minus accuracy on real data, claimed > 0.
    * ``utility_app3_<t>_jaro``: mean Jaro similarity of the feature orders, claimed above
      :data:`JARO_KEPT`.
    * ``utility_app3_<g>_jaro_random`` (PATEGAN, PrivBayes): mean Jaro similarity, claimed
      below a random order's mean 9019/12960 ≈ 0.696 ("no better than random").

    A generator this run did not train (not in the preset's generators) gives an undetermined
    row with n = 0 and a note.

    Parameters
    ----------
    results : pandas.DataFrame
        :func:`~synthtrust.studies.auditing.utility.experiment.utility_cell` rows after
        :func:`~synthtrust.run.experiment.run_grid` (``generator``, ``rep`` and the metrics).
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap (a fixed int gives the same table on a rerun).

    Returns
    -------
    list of dict
        19 rows, in the order above.

    Raises
    ------
    ValueError
        ``results`` lacks ``generator``, ``rep`` or a metric.
    """
    need = {
        "generator",
        "rep",
        "app1_rmse_3way",
        "app2_acc_real",
        "app2_acc_synthetic",
        "app3_acc_real",
        "app3_acc_synthetic",
        "app3_jaro",
    }
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (utility_cell after run_grid), "
            f"got {list(results.columns)}"
        )
    by = {g: grp.sort_values("rep") for g, grp in results.groupby("generator")}

    def missing(*gens) -> str:
        absent = [g for g in gens if g not in by]
        return (
            f"{UTILITY_GENERATORS[absent[0]]} is not in this preset's generators" if absent else ""
        )

    def row(name, paper, gens, claim, interval):
        note = missing(*gens)
        return finding(
            name, paper, None if note else interval(), *claim, section=SECTION, note=note
        )

    def paired(gx, cx, gy, cy):
        return lambda: paired_interval(
            *by_replicate(by[gx], by[gy], cx, cy), random_state=random_state
        )

    def mean(g, col):
        return lambda: bootstrap_interval(by[g][col].to_numpy(float), random_state=random_state)

    rows = []
    for t in TAILORED:
        for o in ("mst", "privbayes", "pategan", "ctgan"):
            paper = (
                f"Tailored {_PAPER_NAME[t]} gives a lower 3-way RMSE than {_PAPER_NAME[o]} "
                f"(App. 1, Table 1: {PAPER_TABLE1[t][0]:.2e} vs {PAPER_TABLE1[o][0]:.2e}); "
                "θ = mean paired difference of RMSEs, claimed < 0"
            )
            rows.append(
                row(
                    f"utility_app1_{t}_below_{o}",
                    paper,
                    (t, o),
                    (-math.inf, 0.0),
                    paired(t, "app1_rmse_3way", o, "app1_rmse_3way"),
                )
            )
    for app, paper_table in ((2, PAPER_TABLE2), (3, PAPER_TABLE3)):
        band = ACCURACY_BAND[app]
        for t in TAILORED:
            col = f"app{app}_acc_real"
            paper = (
                f"{_PAPER_NAME[t]} data give the real model's accuracy in App. {app} (Table "
                f"{app}: {paper_table[t][0]:.3f} vs {paper_table['real'][0]:.3f}); θ = its "
                f"accuracy minus the real model's on the same test split, claimed within "
                f"±{band:g}"
            )
            rows.append(
                row(
                    f"utility_app{app}_{t}_real_accuracy",
                    paper,
                    (t, "real"),
                    (-band, band),
                    paired(t, col, "real", col),
                )
            )
    for g, app in (("pategan", 2), ("pategan", 3), ("ctgan", 2)):
        table = PAPER_TABLE2 if app == 2 else PAPER_TABLE3
        paper = (
            f"{_PAPER_NAME[g]}'s model is overconfident in App. {app}: accuracy estimated on "
            f"synthetic data {table[g][1]:.3f} vs {table[g][0]:.3f} on real data (Table {app}); "
            "θ = estimated minus real accuracy, claimed > 0"
        )
        rows.append(
            row(
                f"utility_app{app}_{g}_overconfident",
                paper,
                (g,),
                (0.0, math.inf),
                paired(g, f"app{app}_acc_synthetic", g, f"app{app}_acc_real"),
            )
        )
    for t in TAILORED:
        paper = (
            f"{_PAPER_NAME[t]} keeps the feature-importance order in App. 3 (Table 3: Jaro "
            f"{PAPER_TABLE3[t][2]:.2f}); θ = mean Jaro similarity, claimed above {JARO_KEPT:g}"
        )
        rows.append(
            row(f"utility_app3_{t}_jaro", paper, (t,), (JARO_KEPT, math.inf), mean(t, "app3_jaro"))
        )
    random_jaro = float(expected_jaro_random_permutation(6))
    for g in ("pategan", "privbayes"):
        paper = (
            f"{_PAPER_NAME[g]} orders the features no better than random in App. 3 (Table 3: "
            f"Jaro {PAPER_TABLE3[g][2]:.2f}; a random order 0.70); θ = mean Jaro similarity, "
            f"claimed below a random order's {random_jaro:.3f}"
        )
        rows.append(
            row(
                f"utility_app3_{g}_jaro_random",
                paper,
                (g,),
                (-math.inf, random_jaro),
                mean(g, "app3_jaro"),
            )
        )
    return rows
