"""The Adult dataset (UCI census income) in the study of ``giles2022`` (§4.2.1), as the
paper's pipeline (alan-turing-institute/QUIPP-pipeline) used it: the public categories of UCI
``adult.names``, the prepared table, its PUBLIC domain and App. A's Featuretools recipe (141
features: three parent entities ``education``, ``Workclass``, ``Occupation``), in pandas.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthtrust import datasets
from synthtrust._validation import check_frame
from synthtrust.domain import Categorical, Domain, Numeric, Ordinal
from synthtrust.studies.feature_importance.data._steps import (
    finish,
    group_mode,
    group_skew,
    nominal_codes,
    numeric_column,
    target_values,
)

# --------------------------------------------------------------------------------------------
# Public category lists
# --------------------------------------------------------------------------------------------
# UCI adult.names; "?" (unknown) kept as a category of its own
_ADULT_CATEGORIES = {
    "workclass": [
        "Private",
        "Self-emp-not-inc",
        "Self-emp-inc",
        "Federal-gov",
        "Local-gov",
        "State-gov",
        "Without-pay",
        "Never-worked",
        "?",
    ],
    "education": [
        "Bachelors",
        "Some-college",
        "11th",
        "HS-grad",
        "Prof-school",
        "Assoc-acdm",
        "Assoc-voc",
        "9th",
        "7th-8th",
        "12th",
        "Masters",
        "1st-4th",
        "10th",
        "Doctorate",
        "5th-6th",
        "Preschool",
    ],
    "marital-status": [
        "Married-civ-spouse",
        "Divorced",
        "Never-married",
        "Separated",
        "Widowed",
        "Married-spouse-absent",
        "Married-AF-spouse",
    ],
    "occupation": [
        "Tech-support",
        "Craft-repair",
        "Other-service",
        "Sales",
        "Exec-managerial",
        "Prof-specialty",
        "Handlers-cleaners",
        "Machine-op-inspct",
        "Adm-clerical",
        "Farming-fishing",
        "Transport-moving",
        "Priv-house-serv",
        "Protective-serv",
        "Armed-Forces",
        "?",
    ],
    "relationship": [
        "Wife",
        "Own-child",
        "Husband",
        "Not-in-family",
        "Other-relative",
        "Unmarried",
    ],
    "sex": ["Female", "Male"],
    "native": [
        "United-States",
        "Cambodia",
        "England",
        "Puerto-Rico",
        "Canada",
        "Germany",
        "Outlying-US(Guam-USVI-etc)",
        "India",
        "Japan",
        "Greece",
        "South",
        "China",
        "Cuba",
        "Iran",
        "Honduras",
        "Philippines",
        "Italy",
        "Poland",
        "Jamaica",
        "Vietnam",
        "Mexico",
        "Portugal",
        "Ireland",
        "France",
        "Dominican-Republic",
        "Laos",
        "Ecuador",
        "Taiwan",
        "Haiti",
        "Columbia",
        "Hungary",
        "Guatemala",
        "Nicaragua",
        "Scotland",
        "Thailand",
        "Yugoslavia",
        "El-Salvador",
        "Trinadad&Tobago",
        "Peru",
        "Hong",
        "Holand-Netherlands",
        "?",
    ],
}
_ADULT_CATEGORIES = {k: sorted(v) for k, v in _ADULT_CATEGORIES.items()}


# --------------------------------------------------------------------------------------------
# Feature-engineering recipe (App. A; QUIPP examples/*-ensemble.py configurations)
# --------------------------------------------------------------------------------------------
_ADULT_NUMERIC = ["age", "fnlwgt", "capital-gain", "capital-loss", "hours"]
ADULT_NOMINAL = ["marital-status", "relationship", "sex", "native"]
# parent entity name -> its key in the rows (QUIPP normalized_entities)
_ADULT_GROUPS = {"education": "education-num", "Workclass": "workclass", "Occupation": "occupation"}
_ADULT_BASE = [
    "age",
    "workclass",
    "fnlwgt",
    "education.education",
    "marital-status",
    "occupation",
    "relationship",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours",
    "native",
]
_ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours",
    "native",
    "label",
]


def adult_feature_names() -> list[str]:
    """The 141 columns of Adult's engineered ``X`` (``giles2022`` App. A), in order.

    The 12 base columns, then for each parent entity (``education``, ``Workclass``,
    ``Occupation``) its 43 aggregates, named as Featuretools writes them
    (``education.MEAN(adults.age)``); see :func:`~.engineering.engineer_features`.
    """
    keys = list(_ADULT_GROUPS.values())
    out = list(_ADULT_BASE)
    for parent, key in _ADULT_GROUPS.items():
        out.append(f"{parent}.COUNT(adults)")
        for col in _ADULT_NUMERIC:
            for agg in ("SUM", "STD", "MAX", "SKEW", "MIN", "MEAN"):
                out.append(f"{parent}.{agg}(adults.{col})")
        for col in ADULT_NOMINAL + [k for k in keys if k != key]:
            for agg in ("NUM_UNIQUE", "MODE"):
                out.append(f"{parent}.{agg}(adults.{col})")
    return out


def prepare_adult() -> pd.DataFrame:
    """Adult's prepared table, 32 561 × 14, read from ``data/`` (``giles2022`` §4.2.1).

    The first 32 561 rows of the UCI file, unknown values as the category ``"?"``, ``race``
    dropped, columns renamed and ``label`` = 1 for ``>50K``; the uncached table behind
    :func:`~.tables.load_table`, which describes it. A ``ValueError`` guards the data file
    (other missing values, or an income other than ``<=50K``/``>50K``).
    """
    raw = datasets.load("adult").iloc[:32_561].copy()
    # datasets.load reads "?" as NaN; the file's only empty cells are these "?"
    unknown = ["workclass", "occupation", "native-country"]
    raw[unknown] = raw[unknown].astype(object).where(raw[unknown].notna(), "?")
    if raw.isna().any().any():  # pragma: no cover - guards the data file
        raise ValueError("adult: unexpected missing values besides '?'")
    df = raw.drop(columns="race").rename(
        columns={"hours-per-week": "hours", "native-country": "native", "income": "label"}
    )
    labels = df["label"].astype(str)
    if not labels.isin(["<=50K", ">50K"]).all():  # pragma: no cover
        raise ValueError("adult: income must be '<=50K' or '>50K'")
    df["label"] = (labels == ">50K").astype(np.int64)
    for col in _ADULT_CATEGORIES:
        df[col] = df[col].astype(object)
    return df[_ADULT_COLUMNS].reset_index(drop=True)


def adult_domain() -> Domain:
    """Adult's PUBLIC domain: UCI's category lists (``"?"`` included) and documented bounds.

    Numeric columns in 10 equal-width, clipped bins; ``education-num`` one code per value
    1..16; ``label`` categorical 0/1. See :func:`~.domains.study_domain` and the bounds table
    of :mod:`.domains`.
    """
    c = _ADULT_CATEGORIES
    return Domain(
        {
            "age": Numeric((17, 90, 10), integer=True, clip=True),
            "workclass": Categorical(c["workclass"]),
            "fnlwgt": Numeric((0, 1_500_000, 10), integer=True, clip=True),
            "education": Categorical(c["education"]),
            "education-num": Ordinal(1, 16),
            "marital-status": Categorical(c["marital-status"]),
            "occupation": Categorical(c["occupation"]),
            "relationship": Categorical(c["relationship"]),
            "sex": Categorical(c["sex"]),
            "capital-gain": Numeric((0, 99_999, 10), integer=True, clip=True),
            "capital-loss": Numeric((0, 5_000, 10), integer=True, clip=True),
            "hours": Numeric((1, 99, 10), integer=True, clip=True),
            "native": Categorical(c["native"]),
            "label": Categorical([0, 1]),
        }
    )


def engineer_adult(frame: pd.DataFrame) -> tuple:
    """Adult's App. A feature engineering (``giles2022``): ``(X, y)``, X with 141 columns.

    Rows with a missing value are dropped; the categorical columns become label codes over
    the public category lists; every parent entity adds its count, numeric aggregates,
    NUM_UNIQUE and MODE columns (:func:`adult_feature_names`). The recipe is described under
    :func:`~.engineering.engineer_features`.

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame, or a numeric column holds non-numbers.
    ValueError
        A column is missing, a value is outside its public categories, ``education-num`` is
        not an integer in 1..16, or a label is not 0/1.
    """
    name = "adult"
    check_frame(frame, f"frame for dataset {name!r}", _ADULT_COLUMNS, min_rows=0)
    df = frame[_ADULT_COLUMNS].dropna().reset_index(drop=True)
    y = target_values(df, name)
    codes = {c: nominal_codes(df[c], _ADULT_CATEGORIES[c], c) for c in _ADULT_CATEGORIES}
    num = {c: numeric_column(df, c) for c in _ADULT_NUMERIC + ["education-num"]}
    edu_num = num["education-num"]
    if not (edu_num.isin(np.arange(1, 17))).all():
        bad = pd.unique(edu_num[~edu_num.isin(np.arange(1, 17))])[:5]
        raise ValueError(f"column 'education-num': value(s) {bad.tolist()!r} not integers 1..16")
    keys = {
        "education-num": edu_num.astype(np.int64).to_numpy(),
        "workclass": codes["workclass"],
        "occupation": codes["occupation"],
    }
    out = {c: num[c] for c in _ADULT_NUMERIC}
    for c in ("workclass", "marital-status", "occupation", "relationship", "sex", "native"):
        out[c] = codes[c]
    # the education entity carries `education`: featuretools' normalize_entity keeps the
    # first row's value for each education-num (equal to the row's own in the real data)
    first = pd.Series(codes["education"]).groupby(keys["education-num"]).first()
    out["education.education"] = first.reindex(keys["education-num"]).to_numpy()
    numeric_frame = pd.DataFrame({c: num[c] for c in _ADULT_NUMERIC})
    for parent, key in _ADULT_GROUPS.items():
        k = keys[key]
        grouped = numeric_frame.groupby(k)
        stats = {
            "SUM": grouped.sum(),
            "STD": grouped.std(ddof=1),
            "MAX": grouped.max(),
            "SKEW": group_skew(grouped),
            "MIN": grouped.min(),
            "MEAN": grouped.mean(),
        }
        out[f"{parent}.COUNT(adults)"] = (
            pd.Series(k).map(pd.Series(k).value_counts()).to_numpy().astype(np.int64)
        )
        for col in _ADULT_NUMERIC:
            for agg, table in stats.items():
                out[f"{parent}.{agg}(adults.{col})"] = table[col].reindex(k).to_numpy()
        for col in ADULT_NOMINAL + [kk for kk in keys if kk != key]:
            values = keys[col] if col in keys else codes[col]
            vf = pd.DataFrame({"k": k, "v": values})
            nunique = vf.groupby("k")["v"].nunique()
            out[f"{parent}.NUM_UNIQUE(adults.{col})"] = (
                nunique.reindex(k).to_numpy().astype(np.int64)
            )
            out[f"{parent}.MODE(adults.{col})"] = (
                group_mode(k, values).reindex(k).to_numpy().astype(np.int64)
            )
    X = pd.DataFrame(out)
    return finish(name, X, y, adult_feature_names())
