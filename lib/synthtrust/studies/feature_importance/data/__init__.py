"""Data of chapter ``feature_importance``: the eight datasets of Giles et al. (2022),
"Faking feature importance: a cautionary tale on the use of differentially-private synthetic
data" (``giles2022``), prepared as the paper's pipeline (alan-turing-institute/QUIPP-pipeline)
prepared them, their public domains, and the paper's feature engineering (App. A).

* :data:`DATASETS` — what the chapter knows about each dataset (sizes, target, id column);
* :func:`load_table` — the prepared table a synthesizer is fitted on (before feature
  engineering);
* :func:`make_artificial` — the five artificial sets of §5.1;
* :func:`study_domain` — the PUBLIC domain (bounds and category lists from documentation,
  never from the rows) a DP synthesizer encodes the table with;
* :func:`engineer_features` — App. A's Featuretools "deep feature synthesis", re-implemented in
  pandas (Featuretools 0.x does not run on pandas 3): Adult 141, Household 39, Polish 67
  features. The output columns never depend on the data, so a synthetic table gives exactly
  the columns of the real one;
* :func:`nominal_features` — the engineered columns to treat as nominal in an association
  matrix (:func:`synthtrust.importance.association_matrix`).

Modules (one concept each): :mod:`.specs` (:data:`DATASETS`), :mod:`.tables` (the prepared
tables), :mod:`.domains` (the public domains, with the table of their bounds and sources),
:mod:`.engineering` (App. A's feature engineering) and its shared :mod:`._steps`, and one module
per source dataset: :mod:`.adult`, :mod:`.household`, :mod:`.polish`, :mod:`.artificial`.
"""

from __future__ import annotations

from synthtrust.studies.feature_importance.data.domains import study_domain
from synthtrust.studies.feature_importance.data.engineering import (
    engineer_features,
    feature_names,
    nominal_features,
)
from synthtrust.studies.feature_importance.data.specs import ARTIFICIAL, DATASETS, DataSpec
from synthtrust.studies.feature_importance.data.tables import load_table, make_artificial

__all__ = [
    "ARTIFICIAL",
    "DATASETS",
    "DataSpec",
    "engineer_features",
    "feature_names",
    "load_table",
    "make_artificial",
    "nominal_features",
    "study_domain",
]
