"""The five artificial datasets of ``giles2022`` §5.1 (QUIPP
``generators/artificial/generate.py``): the ``make_classification`` recipe, their PUBLIC
domain (categorical codes 0..4, or continuous features bounded at ±12) and their "feature
engineering" (none: ``X`` is the feature columns). The settings of each set are
:data:`~.specs.ARTIFICIAL` / ``ARTIFICIAL_SETTINGS``; the cached, public entry point is
:func:`~.tables.make_artificial`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust._validation import check_frame
from synthtrust.domain import Categorical, Domain, Numeric, Ordinal
from synthtrust.studies.feature_importance.data._steps import finish, numeric_column, target_values
from synthtrust.studies.feature_importance.data.specs import ARTIFICIAL_SETTINGS


def artificial_table(k: int) -> pd.DataFrame:
    """Artificial dataset ``k`` (1..5) of ``giles2022`` §5.1, 10 000 rows, made afresh.

    ``make_classification`` with the settings of ``ARTIFICIAL_SETTINGS[k]`` (``random_state``
    123); categorical sets cut each feature into 5 equal-width bins (codes 0..4). The uncached
    table behind :func:`~.tables.make_artificial`, which describes it.
    """
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import KBinsDiscretizer

    n_features, n_informative, n_redundant, categorical, keep = ARTIFICIAL_SETTINGS[k]
    X, y = make_classification(
        n_samples=10_000,
        n_classes=2,
        weights=[0.5, 0.5],
        n_clusters_per_class=1,
        n_features=n_features,
        n_informative=n_informative,
        n_redundant=n_redundant,
        n_repeated=0,
        flip_y=0.1,
        class_sep=1.0,
        hypercube=True,
        shift=0.0,
        scale=1.0,
        shuffle=False,
        random_state=123,
    )
    columns = {}
    for j in range(n_features):
        if categorical:
            binner = KBinsDiscretizer(n_bins=5, encode="ordinal", strategy="uniform")
            columns[f"X{j}"] = binner.fit_transform(X[:, [j]]).ravel().astype(np.int64)
        else:
            columns[f"X{j}"] = X[:, j]
    df = pd.DataFrame(columns)
    if keep:
        df = df[list(keep)]
    df["label"] = y.astype(np.int64)
    return df


#: Bound of the continuous artificial features (see study_domain).
_ARTIFICIAL_BOUND = 12.0


def artificial_domain(k: int) -> Domain:
    """The PUBLIC domain of artificial dataset ``k`` (1..5), features then ``label``.

    A categorical feature is :class:`~synthtrust.domain.Ordinal` 0..4; a continuous one
    (Artificial 4) 10 equal-width bins over ±12, clipped; ``label`` is categorical 0/1. See
    :func:`~.domains.study_domain` for the bound.
    """
    n_features, _, _, categorical, keep = ARTIFICIAL_SETTINGS[k]
    names = list(keep) if keep else [f"X{j}" for j in range(n_features)]
    b = _ARTIFICIAL_BOUND
    spec = Ordinal(0, 4) if categorical else Numeric((-b, b, 10), clip=True)
    specs = {c: spec for c in names}
    specs["label"] = Categorical([0, 1])
    return Domain(specs)


def engineer_artificial(name: str, frame: pd.DataFrame) -> tuple:
    """``(X, y)`` of an artificial dataset: its feature columns and ``label``, no engineering.

    Rows with a missing value are dropped; categorical features become int64, continuous
    ones float64.

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame, or a feature holds non-numbers.
    ValueError
        A column is missing, a categorical feature holds a non-integer, or a label is not 0/1.
    """
    domain = artificial_domain(int(name.rsplit("_", 1)[1]))
    features = [c for c in domain.columns if c != "label"]
    check_frame(frame, f"frame for dataset {name!r}", features + ["label"], min_rows=0)
    df = frame[features + ["label"]].dropna().reset_index(drop=True)
    y = target_values(df, name)
    out = {}
    for c in features:
        x = numeric_column(df, c)
        if isinstance(domain[c], Ordinal):
            if not (x == np.round(x)).all():
                raise ValueError(f"column {c!r}: categorical codes must be integers 0..4")
            out[c] = x.astype(np.int64)
        else:
            out[c] = x
    return finish(name, pd.DataFrame(out), y, features)
