"""The Polish dataset (SD2011, the social diagnosis survey shipped with the R package
synthpop) in the study of ``giles2022`` (§4.2.3), as the paper's pipeline
(alan-turing-institute/QUIPP-pipeline, ``datasets/polish_data_2011/data_prep.R``) used it:
synthpop's factor levels, the prepared table, its PUBLIC domain and App. A's Featuretools
recipe (67 features: arithmetic of the numeric pairs and percentiles), in pandas.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from synthtrust import datasets
from synthtrust._validation import check_frame
from synthtrust.domain import Categorical, Domain, Numeric
from synthtrust.studies.feature_importance.data._steps import (
    finish,
    nominal_codes,
    numeric_column,
    target_values,
)

# --------------------------------------------------------------------------------------------
# Public category lists
# --------------------------------------------------------------------------------------------
# synthpop's SD2011 factor levels (wkabint after QUIPP's recoding of both YES answers)
_POLISH_CATEGORIES = {
    "smoke": ["YES", "NO"],
    "sex": ["MALE", "FEMALE"],
    "edu": ["PRIMARY/NO EDUCATION", "VOCATIONAL/GRAMMAR", "SECONDARY", "POST-SECONDARY OR HIGHER"],
    "sport": ["YES", "NO"],
    "marital": [
        "SINGLE",
        "MARRIED",
        "WIDOWED",
        "DIVORCED",
        "LEGALLY SEPARATED",
        "DE FACTO SEPARATED",
    ],
    "region": [
        "Dolnoslaskie",
        "Kujawsko-pomorskie",
        "Lodzkie",
        "Lubelskie",
        "Lubuskie",
        "Malopolskie",
        "Mazowieckie",
        "Opolskie",
        "Podkarpackie",
        "Podlaskie",
        "Pomorskie",
        "Slaskie",
        "Swietokrzyskie",
        "Warminsko-mazurskie",
        "Wielkopolskie",
        "Zachodnio-pomorskie",
    ],
    "wkabint": ["YES", "NO"],
    "ls": [
        "DELIGHTED",
        "PLEASED",
        "MOSTLY SATISFIED",
        "MIXED",
        "MOSTLY DISSATISFIED",
        "UNHAPPY",
        "TERRIBLE",
    ],
}
_POLISH_CATEGORIES = {k: sorted(v) for k, v in _POLISH_CATEGORIES.items()}


# --------------------------------------------------------------------------------------------
# Feature-engineering recipe (App. A; QUIPP examples/*-ensemble.py configurations)
# --------------------------------------------------------------------------------------------
_POLISH_COLUMNS = [
    "smoke",
    "sex",
    "age",
    "edu",
    "weight",
    "height",
    "bmi",
    "sport",
    "marital",
    "region",
    "wkabint",
    "income",
    "ls",
]
_POLISH_NUMERIC = ["age", "weight", "height", "bmi", "income"]
POLISH_NOMINAL = ["smoke", "sex", "edu", "sport", "marital", "region", "ls"]
# complete cases are required on these (QUIPP data_prep.R, vars_classification)
_POLISH_COMPLETE = ["smoke", "sex", "age", "edu", "sport", "marital", "wkabint", "ls"]


def polish_feature_names() -> list[str]:
    """The 67 columns of Polish's engineered ``X`` (``giles2022`` App. A), in order.

    The 12 base columns (``wkabint``, the target, left out), then on the five numeric columns
    ``a ADD b``, ``a SUB b``, ``a MULT b`` for each pair, ``a DIV b`` for each ordered pair and
    ``PERCENTILE(a)``; see :func:`~.engineering.engineer_features`.
    """
    out = [c for c in _POLISH_COLUMNS if c != "wkabint"]
    pairs = list(itertools.combinations(_POLISH_NUMERIC, 2))
    for op in ("ADD", "SUB", "MULT"):
        out += [f"{a} {op} {b}" for a, b in pairs]
    out += [f"{a} DIV {b}" for a, b in itertools.permutations(_POLISH_NUMERIC, 2)]
    out += [f"PERCENTILE({a})" for a in _POLISH_NUMERIC]
    return out


def prepare_polish() -> pd.DataFrame:
    """Polish's prepared table, 4 895 × 13, read from ``data/`` (``giles2022`` §4.2.3).

    As QUIPP's ``data_prep.R``: 13 SD2011 columns, both "YES, TO ..." answers of ``wkabint``
    merged into ``"YES"``, complete cases on the classification variables; the uncached table
    behind :func:`~.tables.load_table`, which describes it.
    """
    raw = datasets.load("sd2011")
    df = raw[_POLISH_COLUMNS].copy()
    df["wkabint"] = df["wkabint"].replace(
        {"YES, TO EU COUNTRY": "YES", "YES, TO NON-EU COUNTRY": "YES"}
    )
    df = df.dropna(subset=_POLISH_COMPLETE)
    for col in _POLISH_CATEGORIES:
        df[col] = df[col].astype(object)
    return df.reset_index(drop=True)


def polish_domain() -> Domain:
    """Polish's PUBLIC domain: synthpop's SD2011 factor levels and documented bounds.

    Numeric columns in 10 equal-width, clipped bins (``income`` with two more below 0,
    [−8, −7) for synthpop's −8 and [−7, 0)), weight, height, bmi and income with the missing
    token ``"NA"``. See
    :func:`~.domains.study_domain` and the bounds table of :mod:`.domains`.
    """
    c = _POLISH_CATEGORIES
    income_edges = [-8.0, -7.0] + list(np.linspace(0, 20_000, 11))
    return Domain(
        {
            "smoke": Categorical(c["smoke"]),
            "sex": Categorical(c["sex"]),
            "age": Numeric((16, 100, 10), integer=True, clip=True),
            "edu": Categorical(c["edu"]),
            "weight": Numeric((30, 200, 10), integer=True, clip=True, missing="NA"),
            "height": Numeric((100, 220, 10), integer=True, clip=True, missing="NA"),
            "bmi": Numeric((10, 60, 10), clip=True, missing="NA"),
            "sport": Categorical(c["sport"]),
            "marital": Categorical(c["marital"]),
            "region": Categorical(c["region"]),
            "wkabint": Categorical(c["wkabint"]),
            "income": Numeric(income_edges, integer=True, clip=True, missing="NA"),
            "ls": Categorical(c["ls"]),
        }
    )


def engineer_polish(frame: pd.DataFrame) -> tuple:
    """Polish's App. A feature engineering (``giles2022``): ``(X, y)``, X with 67 columns.

    Rows with a missing value are dropped; categorical columns become label codes over the
    public category lists; the numeric pairs are added, subtracted, multiplied and divided,
    and each numeric column gets its percentile rank (:func:`polish_feature_names`); rows
    made infinite by a division are dropped. See :func:`~.engineering.engineer_features`.

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame, or a numeric column holds non-numbers.
    ValueError
        A column is missing, a value is outside its public categories, or ``wkabint`` is not
        ``"YES"``/``"NO"``.
    """
    name = "polish"
    check_frame(frame, f"frame for dataset {name!r}", _POLISH_COLUMNS, min_rows=0)
    df = frame[_POLISH_COLUMNS].dropna().reset_index(drop=True)
    y = target_values(df, name)
    out = {}
    for c in _POLISH_COLUMNS:
        if c == "wkabint":
            continue
        if c in _POLISH_CATEGORIES:
            out[c] = nominal_codes(df[c], _POLISH_CATEGORIES[c], c)
        else:
            out[c] = numeric_column(df, c)
    pairs = list(itertools.combinations(_POLISH_NUMERIC, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        for a, b in pairs:
            out[f"{a} ADD {b}"] = out[a] + out[b]
        for a, b in pairs:
            out[f"{a} SUB {b}"] = out[a] - out[b]
        for a, b in pairs:
            out[f"{a} MULT {b}"] = out[a] * out[b]
        for a, b in itertools.permutations(_POLISH_NUMERIC, 2):
            out[f"{a} DIV {b}"] = out[a] / out[b]
    for a in _POLISH_NUMERIC:
        # featuretools Percentile: rank(pct=True), ties averaged, over the complete rows
        out[f"PERCENTILE({a})"] = out[a].rank(pct=True)
    X = pd.DataFrame(out)
    return finish(name, X, y, polish_feature_names())
