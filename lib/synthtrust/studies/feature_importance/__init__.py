"""Chapter ``feature_importance``: Giles et al. (2022), "Faking feature importance: a cautionary
tale on the use of differentially-private synthetic data" (``giles2022``), re-run.

One grid cell = (dataset, generator); one replicate = the paper's App. A run for that cell:

1. the real table (:func:`~synthtrust.studies.feature_importance.data.load_table`) is feature-engineered
   (:func:`~synthtrust.studies.feature_importance.data.engineer_features`), split 70/30 and a random forest of 150
   trees is fitted on the 70 %; its MDI, permutation (PFI) and mean-|SHAP| importances are the
   *real* importances. The split and the forest are seeded from ``(seed, dataset, rep)`` only,
   so every generator of a replicate is compared with the same real ranking (as in the QUIPP
   pipeline, where run *i* uses seed *i* for everything);
2. for each privacy level (or subsample fraction) the generator is fitted on the real table and
   samples as many rows; the synthetic table goes through the same engineering, split and
   forest (:func:`importance_cell`); the forest's AUC on the synthetic test split and its
   cross-AUC on the real test split (train on synthetic, test on real) are recorded;
   :func:`similarity` then compares its importances with the real ones: extrapolated RBO,
   correlated RBO (with the association matrix of the real training features), cosine, L2 and
   KL (:func:`compare_rankings`);
3. the random-permutation baseline compares random permutations of the real ranking with it.

A synthetic table on which no forest can be trained (one class left, too few rows after the
pipeline's cleaning, all importances zero) is recorded with ``failed=True`` and NaN scores, as
the paper reports "PrivBayes fails" for Adult at ε = 10⁻⁴.

Modules (one concept each): :mod:`.models` (the forest, its importances and the similarity
measures), :mod:`.generators`, :mod:`.grid` (the grid and its replicates), :mod:`.views` (the
chapter's tables and figures), :mod:`.findings` (the paper's findings as verdicts on this run)
and :mod:`.study` (the whole grid behind one call, :func:`.study.run_importance_study`).
"""

from __future__ import annotations

from synthtrust.studies.feature_importance.data import DATASETS
from synthtrust.studies.feature_importance.data import engineer_features as engineer_features
from synthtrust.studies.feature_importance.data import load_table as load_table
from synthtrust.studies.feature_importance.data import nominal_features as nominal_features
from synthtrust.studies.feature_importance.data import study_domain as study_domain
from synthtrust.studies.feature_importance.findings import verdict_rows
from synthtrust.studies.feature_importance.generators import (
    GENERATORS,
    PAPER_TABLE1,
    make_generator,
    privbayes_ledgers,
)
from synthtrust.studies.feature_importance.grid import (
    SHAP_BLOCK_ROWS,
    WarmUp,
    build_grid,
    importance_cell,
    real_cell,
    similarity,
    summarize,
    warm_up,
    warm_up_for,
)
from synthtrust.studies.feature_importance.models import MEASURES, compare_rankings, fit_importances
from synthtrust.studies.feature_importance.views import baseline_bands, privbayes_gap, top_features

__all__ = [
    "WarmUp",
    "DATASETS",
    "GENERATORS",
    "MEASURES",
    "PAPER_TABLE1",
    "SHAP_BLOCK_ROWS",
    "build_grid",
    "compare_rankings",
    "baseline_bands",
    "fit_importances",
    "importance_cell",
    "make_generator",
    "privbayes_gap",
    "privbayes_ledgers",
    "real_cell",
    "similarity",
    "summarize",
    "top_features",
    "verdict_rows",
    "warm_up",
    "warm_up_for",
]
