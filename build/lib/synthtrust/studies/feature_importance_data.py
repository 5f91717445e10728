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

Public bounds of the numeric columns (the domain's sources)
-----------------------------------------------------------
Numeric columns are cut into equal-width bins (10; Household 8, QUIPP's DataSynthesizer
``histogram_bins``) over these bounds; integer columns whose public range has at most
QUIPP's ``category_threshold`` values (Adult/Polish 20, Household 12) get one code per value
(:class:`~synthtrust.domain.Ordinal`), as DataSynthesizer treats them as categorical.
``clip`` = values outside the bounds go to the end bins (the row is kept).

=========  ==============  =============  ===================================================
dataset    column          bounds         source / reason
=========  ==============  =============  ===================================================
Adult      age             17–90          UCI adult.names (extraction: AGE>16); CPS top-codes
                                          age at 90
Adult      fnlwgt          0–1 500 000    stated generous range of a CPS person weight
                                          (persons represented by a record), clip
Adult      education-num   1–16           UCI: one number per education level (Ordinal)
Adult      capital-gain    0–99 999       CPS top code 99 999
Adult      capital-loss    0–5 000        stated generous range, clip
Adult      hours           1–99           CPS hours per week, top-coded at 99
Polish     age             16–100         SD2011 covers persons aged 16+; 100 a generous top
Polish     weight          30–200 kg      adult body weight, generous; clip; NA allowed
Polish     height          100–220 cm     adult body height, generous; clip; NA allowed
Polish     bmi             10–60 kg/m²    WHO classes span 16–40; clip (the file holds a data
                                          error of 450); NA allowed
Polish     income          −8; 0–20 000   monthly net income (PLN); −8 = synthpop's "not
                                          applicable" code gets a bin of its own [−8, −7)
                                          (decoded exactly), then [−7, 0) (empty in the
                                          data) and 10 bins over 0–20 000; NA allowed
Household  rooms           1–12           rooms of the dwelling (Ordinal)
Household  r4m1, r4t1      0–11           persons younger than 12 (Ordinal)
Household  r4m3            0–11           females in the household (Ordinal)
Household  r4t3            1–17           persons in the household, 8 bins of 2
Household  hogar_nin       0–11           children aged 0–19 (Ordinal)
Household  bedrooms        0–11           bedrooms (Ordinal)
Household  qmobilephone    0–11           mobile phones (Ordinal)
Household  escolari        0–24           years of schooling, 8 bins
Household  edjefe          0–24           years of education of the male head, 8 bins
Household  meaneduc        0–24           mean years of education of adults, 8 bins, clip
                                          (the file holds one household with 37); NA allowed
Household  dependency      0–12           dependants per working-age member, 8 bins, clip
Household  overcrowding    0–12           persons per room, 8 bins, clip
Household  age             0–104          age in years, 8 bins of 13 years
Artif.     X (continuous)  −12–12         see :func:`study_domain` (make_classification), clip
=========  ==============  =============  ===================================================

Categorical columns list every category the documentation gives (UCI adult.names plus Adult's
``"?"``; synthpop's SD2011 factor levels; the Kaggle codebook's one-hot blocks), sorted, so
that a category's code is the one scikit-learn's ``LabelEncoder`` gives it on the real data
(QUIPP label-encodes this way) and is the same in real and synthetic data.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import datasets
from ..domain import Categorical, Domain, Numeric, Ordinal

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


# --------------------------------------------------------------------------------------------
# What the chapter knows about each dataset
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DataSpec:
    """One dataset of the study.

    Attributes
    ----------
    label : str
        Display name as in ``giles2022`` ("Adult", "Household", "Polish", "Artificial 1", ...).
    target : str
        The class column of :func:`load_table`.
    kind : str
        ``"real"`` or ``"artificial"``.
    rows : int
        Rows of the prepared table (:func:`load_table`).
    features : int
        Columns of ``X`` from :func:`engineer_features` (App. A: 141 / 39 / 67).
    id_column : str or None
        The household key (``"idhogar"``) that groups rows, or None.
    identifiers : tuple of str
        Columns of :func:`load_table` that are not attributes (Household: ``Id`` and
        ``idhogar``); :func:`study_domain` covers every other column, so a synthesizer is fitted
        on ``load_table(name).drop(columns=list(spec.identifiers))``.
    model_rows : int
        Rows of ``X`` on the real data (Household: households).
    classes : tuple of int
        The values of ``y``.
    """

    label: str
    target: str
    kind: str
    rows: int
    features: int
    id_column: str | None = None
    identifiers: tuple = ()
    model_rows: int = 0
    classes: tuple = (0, 1)


#: The QUIPP file each artificial set comes from (paper numbering -> ``generate.py`` output).
ARTIFICIAL: dict[int, str] = {
    1: "artificial_1",
    2: "artificial_2",
    3: "artificial_5",
    4: "artificial_6",
    5: "artificial_7",
}

# paper k -> (n_features, n_informative, n_redundant, categorical?, kept columns or None)
_ARTIFICIAL_SETTINGS: dict[int, tuple] = {
    1: (5, 5, 0, True, None),
    2: (5, 1, 4, True, None),
    3: (15, 15, 0, True, None),
    4: (15, 15, 0, False, None),
    5: (15, 5, 5, True, ("X0", "X9", "X10")),
}

DATASETS: dict[str, DataSpec] = {
    "adult": DataSpec("Adult", "label", "real", 32_561, 141, model_rows=32_561),
    "household": DataSpec(
        "Household",
        "Target",
        "real",
        9_554,
        39,
        id_column="idhogar",
        identifiers=("Id", "idhogar"),
        model_rows=2_581,
        classes=(1, 2, 3, 4),
    ),
    "polish": DataSpec("Polish", "wkabint", "real", 4_895, 67, model_rows=4_171),
}
for _k, (_nf, _ni, _nr, _cat, _keep) in _ARTIFICIAL_SETTINGS.items():
    _n = len(_keep) if _keep else _nf
    DATASETS[f"artificial_{_k}"] = DataSpec(
        f"Artificial {_k}", "label", "artificial", 10_000, _n, model_rows=10_000
    )


def _check_name(name) -> DataSpec:
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown dataset name={name!r}; expected one of {', '.join(DATASETS)}")
    return DATASETS[name]


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

# Kaggle codebook one-hot blocks, label-encoded by position (QUIPP clean.py)
_HOUSEHOLD_ONEHOT = {
    # outside wall: block/brick, socket (wood, zinc or absbesto), prefabricated/cement,
    # waste material, wood, zinc, natural fibers, other
    "pared": [
        "paredblolad",
        "paredzocalo",
        "paredpreb",
        "pareddes",
        "paredmad",
        "paredzinc",
        "paredfibras",
        "paredother",
    ],
    # floor: mosaic/ceramic/terrazo, cement, other, natural material, no floor, wood
    "piso": ["pisomoscer", "pisocemento", "pisoother", "pisonatur", "pisonotiene", "pisomadera"],
    "epared": ["epared1", "epared2", "epared3"],  # walls bad / regular / good
    "etecho": ["etecho1", "etecho2", "etecho3"],  # roof bad / regular / good
    "eviv": ["eviv1", "eviv2", "eviv3"],  # floor bad / regular / good
    # < 10 years, free/coupled union, married, divorced, separated, widow(er), single
    "estadocivil": [f"estadocivil{i}" for i in range(1, 8)],
    # household head, spouse, son/daughter, stepson/daughter, son/daughter in law,
    # grandson/daughter, mother/father, father/mother in law, brother/sister,
    # brother/sister in law, other family member, other non-family member
    "parentesco": [f"parentesco{i}" for i in range(1, 13)],
    # none, incomplete primary, complete primary, incomplete academic secondary, complete
    # academic secondary, incomplete technical secondary, complete technical secondary,
    # undergraduate, postgraduate
    "instlevel": [f"instlevel{i}" for i in range(1, 10)],
}

# QUIPP clean.py, "small" variant: columns dropped from the Kaggle train.csv
_HOUSEHOLD_DROP = [
    "planpri",
    "public",
    "noelec",
    "coopele",
    "v14a",
    "hacapo",
    "hacdor",
    "male",
    "hogar_mayor",
    "hogar_total",
    "tipovivi1",
    "tipovivi2",
    "tipovivi3",
    "tipovivi4",
    "tipovivi5",
    "area1",
    "area2",
    "SQBescolari",
    "SQBage",
    "SQBhogar_total",
    "SQBedjefe",
    "SQBhogar_nin",
    "SQBovercrowding",
    "SQBdependency",
    "SQBmeaned",
    "agesq",
    "tamhog",
    "tamviv",
    "computer",
    "refrig",
    "sanitario1",
    "sanitario2",
    "sanitario3",
    "sanitario5",
    "sanitario6",
    "abastaguadentro",
    "abastaguafuera",
    "abastaguano",
    "elimbasu1",
    "elimbasu2",
    "elimbasu3",
    "elimbasu4",
    "elimbasu5",
    "elimbasu6",
    "r4h1",
    "r4h2",
    "r4h3",
    "mobilephone",
    "television",
    "r4m2",
    "energcocinar1",
    "energcocinar2",
    "energcocinar3",
    "energcocinar4",
    "r4t2",
    "techozinc",
    "techoentrepiso",
    "techocane",
    "techootro",
    "hogar_adul",
    "lugar1",
    "lugar2",
    "lugar3",
    "lugar4",
    "lugar5",
    "lugar6",
    "edjefa",
    "hhsize",
    "v2a1",
    "v18q1",
    "rez_esc",
]

# --------------------------------------------------------------------------------------------
# Feature-engineering recipes (App. A; QUIPP examples/*-ensemble.py configurations)
# --------------------------------------------------------------------------------------------
_ADULT_NUMERIC = ["age", "fnlwgt", "capital-gain", "capital-loss", "hours"]
_ADULT_NOMINAL = ["marital-status", "relationship", "sex", "native"]
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

_HOUSEHOLD_LEVEL = [
    "pared",
    "piso",
    "cielorazo",
    "epared",
    "etecho",
    "eviv",
    "rooms",
    "r4m1",
    "r4m3",
    "r4t1",
    "r4t3",
    "hogar_nin",
    "bedrooms",
    "qmobilephone",
    "dependency",
    "edjefe",
    "meaneduc",
    "overcrowding",
]
_HOUSEHOLD_MEMBER_NUMERIC = ["escolari", "age"]
_HOUSEHOLD_MEMBER_NOMINAL = ["v18q", "dis", "female", "estadocivil", "parentesco", "instlevel"]
_HOUSEHOLD_NOMINAL_LEVEL = ["pared", "piso", "cielorazo", "epared", "etecho", "eviv"]
#: QUIPP drops engineered columns with fewer than 30 % non-missing values (``na_thresh``).
_NA_THRESH = 0.30
#: Columns the 30 % rule removes on the REAL household data: none (QUIPP's run raises if the
#: original loses a column), so every engineered column is kept; see engineer_features.
_HOUSEHOLD_FIXED_DROPS: tuple[str, ...] = ()

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
_POLISH_NOMINAL = ["smoke", "sex", "edu", "sport", "marital", "region", "ls"]
# complete cases are required on these (QUIPP data_prep.R, vars_classification)
_POLISH_COMPLETE = ["smoke", "sex", "age", "edu", "sport", "marital", "wkabint", "ls"]


def _adult_feature_names() -> list[str]:
    keys = list(_ADULT_GROUPS.values())
    out = list(_ADULT_BASE)
    for parent, key in _ADULT_GROUPS.items():
        out.append(f"{parent}.COUNT(adults)")
        for col in _ADULT_NUMERIC:
            for agg in ("SUM", "STD", "MAX", "SKEW", "MIN", "MEAN"):
                out.append(f"{parent}.{agg}(adults.{col})")
        for col in _ADULT_NOMINAL + [k for k in keys if k != key]:
            for agg in ("NUM_UNIQUE", "MODE"):
                out.append(f"{parent}.{agg}(adults.{col})")
    return out


def _household_feature_names() -> list[str]:
    out = list(_HOUSEHOLD_LEVEL) + ["COUNT(members)"]
    for col in _HOUSEHOLD_MEMBER_NUMERIC:
        for agg in ("MIN", "MAX", "STD", "SUM"):
            out.append(f"{agg}(members.{col})")
    for col in _HOUSEHOLD_MEMBER_NOMINAL:
        for agg in ("MODE", "NUM_UNIQUE"):
            out.append(f"{agg}(members.{col})")
    return out


def _polish_feature_names() -> list[str]:
    out = [c for c in _POLISH_COLUMNS if c != "wkabint"]
    pairs = list(itertools.combinations(_POLISH_NUMERIC, 2))
    for op in ("ADD", "SUB", "MULT"):
        out += [f"{a} {op} {b}" for a, b in pairs]
    out += [f"{a} DIV {b}" for a, b in itertools.permutations(_POLISH_NUMERIC, 2)]
    out += [f"PERCENTILE({a})" for a in _POLISH_NUMERIC]
    return out


# --------------------------------------------------------------------------------------------
# Prepared tables
# --------------------------------------------------------------------------------------------
def _prepare_adult() -> pd.DataFrame:
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


def _prepare_household() -> pd.DataFrame:
    data = datasets.load("costa_rica_poverty").copy()
    # every member takes the Target of the household head (Kaggle: scoring on heads only)
    heads = data.loc[data["parentesco1"] == 1].drop_duplicates("idhogar")
    head_target = heads.set_index("idhogar")["Target"]
    unequal = data.groupby("idhogar")["Target"].transform("nunique") > 1
    fix = unequal & data["idhogar"].isin(head_target.index)
    data.loc[fix, "Target"] = data.loc[fix, "idhogar"].map(head_target).to_numpy()
    # yes/no -> 1/0 (Kaggle data description), then numbers
    for col in ("dependency", "edjefe", "edjefa"):
        data[col] = data[col].astype(str).replace({"yes": "1", "no": "0"}).astype(np.float64)
    data["v18q1"] = data["v18q1"].fillna(0)
    data["rez_esc"] = data["rez_esc"].fillna(0)
    data = data.drop(columns=_HOUSEHOLD_DROP)
    for block, cols in _HOUSEHOLD_ONEHOT.items():
        onehot = data[cols].to_numpy()
        if block == "instlevel":  # 3 members have no education level: dropped (clean.py)
            keep = onehot.sum(axis=1) == 1
            data, onehot = data.loc[keep], onehot[keep]
        if not (onehot.sum(axis=1) == 1).all():  # pragma: no cover - guards the data file
            raise ValueError(f"household: one-hot block {block!r} is not exactly one-hot")
        data = data.drop(columns=cols)
        data[block] = onehot.argmax(axis=1).astype(np.int64)
    target = data.pop("Target")
    data["Target"] = target.astype(np.int64)
    data["Id"] = data["Id"].astype(object)
    data["idhogar"] = data["idhogar"].astype(object)
    return data.reset_index(drop=True)


def _prepare_polish() -> pd.DataFrame:
    raw = datasets.load("sd2011")
    df = raw[_POLISH_COLUMNS].copy()
    df["wkabint"] = df["wkabint"].replace(
        {"YES, TO EU COUNTRY": "YES", "YES, TO NON-EU COUNTRY": "YES"}
    )
    df = df.dropna(subset=_POLISH_COMPLETE)
    for col in _POLISH_CATEGORIES:
        df[col] = df[col].astype(object)
    return df.reset_index(drop=True)


@functools.lru_cache(maxsize=8)
def _table(name: str) -> pd.DataFrame:
    if name == "adult":
        return _prepare_adult()
    if name == "household":
        return _prepare_household()
    if name == "polish":
        return _prepare_polish()
    return _artificial(int(name.rsplit("_", 1)[1]))


def load_table(name: str) -> pd.DataFrame:
    """The prepared table of one dataset, before feature engineering (what a synthesizer is
    fitted on, with the target).

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`: ``"adult"``, ``"household"``, ``"polish"``,
        ``"artificial_1"`` .. ``"artificial_5"``.

    Returns
    -------
    pandas.DataFrame
        A fresh copy (the prepared table is cached), with a RangeIndex:

        * ``adult`` — 32 561 × 14: the first 32 561 rows of ``adult.csv.gz`` (UCI
          ``adult.data``), ``race`` dropped, ``hours-per-week`` → ``hours``,
          ``native-country`` → ``native``, ``income`` → ``label`` (int64, 1 = ``>50K``; mean
          0.24081). Unknown values stay the category ``"?"`` (QUIPP's ``adult.csv``); §4.2.1.
        * ``household`` — 9 554 × 29 (QUIPP ``generators/household_poverty/clean.py``, "small"
          variant; §4.2.2): every member takes the Target of the household head where members
          disagree; ``dependency``/``edjefe`` yes/no → 1/0; 72 columns dropped; the one-hot
          blocks pared, piso, epared, etecho, eviv, estadocivil, parentesco, instlevel become
          integer labels 0..k-1 (position in the block; parentesco 0 = household head); the
          3 members without an education level dropped. ``Id`` and ``idhogar`` are strings;
          ``Target`` 1..4 (1 = extreme poverty).
        * ``polish`` — 4 895 × 13 (QUIPP ``datasets/polish_data_2011/data_prep.R``; §4.2.3):
          SD2011's smoke, sex, age, edu, weight, height, bmi, sport, marital, region, wkabint,
          income, ls; both "YES, TO ..." answers of ``wkabint`` → ``"YES"`` (YES 315 / NO
          4 580); complete cases on smoke, sex, age, edu, sport, marital, wkabint, ls (weight,
          height, bmi and income keep their NaN; income keeps synthpop's −8 "not applicable").
          The class column is ``wkabint`` (QUIPP ``polish-*-ensemble.py``:
          ``"label_column": "wkabint"``; §4.2.3 "intention ... to work abroad").
        * ``artificial_k`` — :func:`make_artificial` ``(k)``.

    Raises
    ------
    ValueError
        An unknown name (the message lists the known ones).
    FileNotFoundError
        A data file missing from ``data/``.
    """
    _check_name(name)
    return _table(name).copy()


# --------------------------------------------------------------------------------------------
# Artificial data (§5.1)
# --------------------------------------------------------------------------------------------
def _artificial(k: int) -> pd.DataFrame:
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import KBinsDiscretizer

    n_features, n_informative, n_redundant, categorical, keep = _ARTIFICIAL_SETTINGS[k]
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


def _check_k(k) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(
            f"k must be an integer 1..5 (paper numbering), got {type(k).__name__} {k!r}"
        )
    if not 1 <= int(k) <= 5:
        raise ValueError(f"k must be 1..5 (Artificial 1..5 of giles2022 §5.1), got {k!r}")
    return int(k)


def make_artificial(k: int) -> pd.DataFrame:
    """Artificial dataset ``k`` of ``giles2022`` §5.1 (QUIPP ``generators/artificial/generate.py``
    through privgem's ``make_table``).

    All five: ``sklearn.datasets.make_classification(n_samples=10000, weights=[.5, .5],
    n_clusters_per_class=1, flip_y=0.1, class_sep=1, hypercube=True, shuffle=False,
    random_state=123)``; a categorical column is the feature cut into 5 equal-width bins over
    its range (``KBinsDiscretizer(n_bins=5, encode='ordinal', strategy='uniform')``).

    ====  ===============  ==============================================================
    k     QUIPP file       settings
    ====  ===============  ==============================================================
    1     artificial_1     5 informative features, all categorical
    2     artificial_2     1 informative + 4 redundant (linear copies), categorical
    3     artificial_5     15 informative, categorical
    4     artificial_6     15 informative, continuous
    5     artificial_7     15 features (5 informative, 5 redundant, 5 noise), categorical;
                           only X0 (informative), X9 (redundant), X10 (noise) kept
    ====  ===============  ==============================================================

    Parameters
    ----------
    k : int
        1..5, the paper's numbering.

    Returns
    -------
    pandas.DataFrame, 10 000 rows
        Columns ``X0, X1, ...`` (int64 codes 0..4, or float64 for k = 4) and ``label`` (int64
        0/1). A fresh copy of a cached table.

    Raises
    ------
    TypeError
        ``k`` not an integer.
    ValueError
        ``k`` outside 1..5.
    """
    return _table(f"artificial_{_check_k(k)}").copy()


# --------------------------------------------------------------------------------------------
# Public domains
# --------------------------------------------------------------------------------------------
#: Bound of the continuous artificial features (see study_domain).
_ARTIFICIAL_BOUND = 12.0


def _adult_domain() -> Domain:
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


def _household_domain() -> Domain:
    n = 8
    cat = {b: Categorical(list(range(len(cols)))) for b, cols in _HOUSEHOLD_ONEHOT.items()}
    return Domain(
        {
            "rooms": Ordinal(1, 12),
            "v18q": Categorical([0, 1]),
            "r4m1": Ordinal(0, 11),
            "r4m3": Ordinal(0, 11),
            "r4t1": Ordinal(0, 11),
            "r4t3": Numeric((1, 17, n), integer=True, clip=True),
            "escolari": Numeric((0, 24, n), integer=True, clip=True),
            "cielorazo": Categorical([0, 1]),
            "dis": Categorical([0, 1]),
            "female": Categorical([0, 1]),
            "hogar_nin": Ordinal(0, 11),
            "dependency": Numeric((0, 12, n), clip=True),
            "edjefe": Numeric((0, 24, n), integer=True, clip=True),
            "meaneduc": Numeric((0, 24, n), clip=True, missing="NA"),
            "bedrooms": Ordinal(0, 11),
            "overcrowding": Numeric((0, 12, n), clip=True),
            "qmobilephone": Ordinal(0, 11),
            "age": Numeric((0, 104, n), integer=True, clip=True),
            **cat,
            "Target": Categorical([1, 2, 3, 4]),
        }
    )


def _polish_domain() -> Domain:
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


def _artificial_domain(k: int) -> Domain:
    n_features, _, _, categorical, keep = _ARTIFICIAL_SETTINGS[k]
    names = list(keep) if keep else [f"X{j}" for j in range(n_features)]
    b = _ARTIFICIAL_BOUND
    spec = Ordinal(0, 4) if categorical else Numeric((-b, b, 10), clip=True)
    specs = {c: spec for c in names}
    specs["label"] = Categorical([0, 1])
    return Domain(specs)


def study_domain(name: str) -> Domain:
    """The PUBLIC domain of a prepared table: what a DP synthesizer may know without looking
    at the rows.

    Bounds come from documentation or stated generous public ranges (the module docstring's
    table), never from the data's min/max (which would leak; DataSynthesizer, used by QUIPP,
    reads them from the data). Numeric columns get equal-width bins (10; Household 8, QUIPP's
    ``histogram_bins``); integer columns with at most ``category_threshold`` public values
    (Adult/Polish 20, Household 12) one code per value; categorical columns their full public
    category list, sorted (Adult's includes ``"?"``; a category absent from the data is still
    listed). Polish weight/height/bmi/income and Household meaneduc allow missing values (code
    "NA"). The target is a :class:`~synthtrust.domain.Categorical` column.

    Artificial sets: categorical features :class:`~synthtrust.domain.Ordinal` 0..4 (the 5
    bins); continuous features (Artificial 4) ``Numeric((-12, 12, 10), clip=True)``. In
    ``make_classification`` an informative feature is ``sum_i A_ij z_i + c_j`` with
    ``A_ij ~ U[-1, 1]``, ``z_i ~ N(0, 1)`` and a centroid ``c_j = ±class_sep = ±1``, so its
    standard deviation is about ``sqrt(n_informative / 3) = sqrt(5) ≈ 2.2``; the bound
    ``1 + 5·sqrt(5) ≈ 12`` is five such standard deviations beyond the centroid (rarer values
    are clipped into the end bins).

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.

    Returns
    -------
    Domain
        Covers every column of :func:`load_table` ``(name)`` except the identifiers
        (:attr:`DataSpec.identifiers`: Household's ``Id`` and ``idhogar``), in the table's
        order (Household: the 27 attributes).

    Raises
    ------
    ValueError
        An unknown name.
    """
    _check_name(name)
    if name == "adult":
        return _adult_domain()
    if name == "household":
        return _household_domain()
    if name == "polish":
        return _polish_domain()
    return _artificial_domain(int(name.rsplit("_", 1)[1]))


# --------------------------------------------------------------------------------------------
# Feature engineering helpers
# --------------------------------------------------------------------------------------------
def _check_frame(name: str, frame, required: list[str]) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(
            f"frame for dataset {name!r} is missing column(s) {missing}; required: {required}"
        )


def _numeric(frame: pd.DataFrame, col: str) -> pd.Series:
    s = frame[col]
    if pd.api.types.is_bool_dtype(s.dtype):
        raise TypeError(f"column {col!r} must be numeric, got booleans")
    try:
        return pd.to_numeric(s, errors="raise").astype(np.float64)
    except (TypeError, ValueError):
        bad = s[pd.to_numeric(s, errors="coerce").isna() & s.notna()].unique()[:5]
        raise TypeError(f"column {col!r} must be numeric, got value(s) {list(bad)!r}") from None


def _nominal_codes(s: pd.Series, categories: list, col: str) -> np.ndarray:
    """Label codes of a column against a public category list: the position in the list
    (for the integer categories 0..k-1 of Household, the value itself). No missing rows."""
    if all(isinstance(c, (int, np.integer)) for c in categories):
        values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=float)
    else:
        values = s.to_numpy(dtype=object)
    codes = pd.Index(list(categories)).get_indexer(values)
    if (codes < 0).any():
        bad = pd.unique(s.to_numpy(dtype=object)[codes < 0])[:5]
        raise ValueError(
            f"column {col!r}: value(s) {list(bad)!r} not in the public categories "
            f"{list(categories)}"
        )
    return codes.astype(np.int64)


def _group_mode(keys: np.ndarray, codes: np.ndarray) -> pd.Series:
    """Mode of ``codes`` per key; ties go to the smallest code (featuretools' ``Mode`` is
    ``Series.mode()[0]``, the smallest of the tied values, and codes follow the sorted public
    category order)."""
    counts = pd.DataFrame({"k": keys, "v": codes}).groupby(["k", "v"]).size()
    counts = counts.reset_index(name="n").sort_values(
        ["k", "n", "v"], ascending=[True, False, True]
    )
    return counts.drop_duplicates("k").set_index("k")["v"]


def _group_skew(grouped) -> pd.Series:
    """Bias-corrected skewness per group as featuretools 0.x computed it with the pandas of its
    time: NaN for fewer than 3 values, 0 for a constant group (pandas 3 returns NaN there)."""
    skew = grouped.skew()
    n = grouped.count()
    spread = grouped.max() - grouped.min()
    return skew.where(~((n >= 3) & (spread == 0)), 0.0)


def _finish(name: str, X: pd.DataFrame, y: pd.Series, columns: list[str]) -> tuple:
    spec = DATASETS[name]
    X = X[columns]
    # QUIPP: drop columns derived from the label (name contains the label column's name)
    X = X[[c for c in X.columns if spec.target not in c]]
    X = X.replace([np.inf, -np.inf], np.nan)
    keep = X.notna().all(axis=1).to_numpy() & y.notna().to_numpy()
    X = X.loc[keep].reset_index(drop=True)
    y = y.loc[keep].reset_index(drop=True).astype(np.int64)
    if X.shape[1] != spec.features:  # pragma: no cover - guards the recipe
        raise AssertionError(f"{name}: {X.shape[1]} features, expected {spec.features}")
    return X, y


def _target_values(frame: pd.DataFrame, name: str) -> pd.Series:
    spec = DATASETS[name]
    col = spec.target
    s = frame[col]
    if name == "polish":
        mapped = s.map({"YES": 1, "NO": 0})
        bad = s.notna() & mapped.isna()
        if bad.any():
            raise ValueError(
                f"column {col!r}: value(s) {list(pd.unique(s[bad])[:5])!r} not in ['NO', 'YES']"
            )
        return mapped.astype(np.float64)
    num = pd.to_numeric(s, errors="coerce")
    bad = s.notna() & ~num.isin(list(spec.classes))
    if bad.any():
        raise ValueError(
            f"column {col!r}: value(s) {list(pd.unique(s[bad])[:5])!r} not in the "
            f"classes {list(spec.classes)}"
        )
    return num.astype(np.float64)


# --------------------------------------------------------------------------------------------
# The three recipes
# --------------------------------------------------------------------------------------------
def _engineer_adult(frame: pd.DataFrame) -> tuple:
    name = "adult"
    _check_frame(name, frame, _ADULT_COLUMNS)
    df = frame[_ADULT_COLUMNS].dropna().reset_index(drop=True)
    y = _target_values(df, name)
    codes = {c: _nominal_codes(df[c], _ADULT_CATEGORIES[c], c) for c in _ADULT_CATEGORIES}
    num = {c: _numeric(df, c) for c in _ADULT_NUMERIC + ["education-num"]}
    edu_num = num["education-num"]
    if not (edu_num.isin(np.arange(1, 17))).all():
        bad = pd.unique(edu_num[~edu_num.isin(np.arange(1, 17))])[:5]
        raise ValueError(f"column 'education-num': value(s) {list(bad)!r} not integers 1..16")
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
            "SKEW": _group_skew(grouped),
            "MIN": grouped.min(),
            "MEAN": grouped.mean(),
        }
        out[f"{parent}.COUNT(adults)"] = (
            pd.Series(k).map(pd.Series(k).value_counts()).to_numpy().astype(np.int64)
        )
        for col in _ADULT_NUMERIC:
            for agg, table in stats.items():
                out[f"{parent}.{agg}(adults.{col})"] = table[col].reindex(k).to_numpy()
        for col in _ADULT_NOMINAL + [kk for kk in keys if kk != key]:
            values = keys[col] if col in keys else codes[col]
            vf = pd.DataFrame({"k": k, "v": values})
            nunique = vf.groupby("k")["v"].nunique()
            out[f"{parent}.NUM_UNIQUE(adults.{col})"] = (
                nunique.reindex(k).to_numpy().astype(np.int64)
            )
            out[f"{parent}.MODE(adults.{col})"] = (
                _group_mode(k, values).reindex(k).to_numpy().astype(np.int64)
            )
    X = pd.DataFrame(out)
    return _finish(name, X, y, _adult_feature_names())


def _engineer_household(frame: pd.DataFrame) -> tuple:
    name = "household"
    members = _HOUSEHOLD_MEMBER_NUMERIC + _HOUSEHOLD_MEMBER_NOMINAL
    required = list(dict.fromkeys(_HOUSEHOLD_LEVEL + members + ["Target"]))
    _check_frame(name, frame, required)
    df = frame[required].copy()
    if "idhogar" in frame.columns:
        df["idhogar"] = frame["idhogar"].to_numpy()
    else:  # synthetic data: every individual is a household of its own
        df["idhogar"] = np.arange(len(frame))
    domain = _household_domain()
    nominal = _HOUSEHOLD_NOMINAL_LEVEL + _HOUSEHOLD_MEMBER_NOMINAL
    # households with a head, taken before any row is dropped (QUIPP filter_hh)
    parent = pd.to_numeric(df["parentesco"], errors="coerce")
    with_head = pd.unique(df.loc[parent == 0, "idhogar"].to_numpy(dtype=object))
    df = df.dropna().reset_index(drop=True)
    y_all = _target_values(df, name)
    for c in nominal:
        df[c] = _nominal_codes(df[c], list(domain[c].categories), c)
    for c in required:
        if c not in nominal and c != "Target":
            df[c] = _numeric(df, c)
    df["Target"] = y_all
    # household entity: first member's household-level values (featuretools normalize_entity)
    hh = df.drop_duplicates("idhogar", keep="first").set_index("idhogar")
    order = hh.index
    out = {c: hh[c] for c in _HOUSEHOLD_LEVEL}
    grouped = df.groupby("idhogar", sort=False)
    out["COUNT(members)"] = grouped.size().reindex(order).astype(np.int64)
    for col in _HOUSEHOLD_MEMBER_NUMERIC:
        g = grouped[col]
        for agg, s in (
            ("MIN", g.min()),
            ("MAX", g.max()),
            ("STD", g.std(ddof=1)),
            ("SUM", g.sum()),
        ):
            out[f"{agg}(members.{col})"] = s.reindex(order).astype(np.float64)
    keys = pd.Index(order).get_indexer(df["idhogar"])
    for col in _HOUSEHOLD_MEMBER_NOMINAL:
        mode = _group_mode(keys, df[col].to_numpy())
        out[f"MODE(members.{col})"] = pd.Series(
            mode.reindex(np.arange(len(order))).to_numpy(), index=order
        ).astype(np.int64)
        nunique = pd.DataFrame({"k": keys, "v": df[col].to_numpy()}).groupby("k")["v"].nunique()
        out[f"NUM_UNIQUE(members.{col})"] = pd.Series(
            nunique.reindex(np.arange(len(order))).to_numpy(), index=order
        ).astype(np.int64)
    X = pd.DataFrame(out, index=order)
    y = hh["Target"]
    # QUIPP drops a column with < 30 % non-missing values. To keep the columns fixed, such a
    # column is set to the constant 0 instead: a tree never splits on a constant, so its MDI,
    # permutation and SHAP importances are 0 and predictions are those without it. On the real
    # data no column qualifies (_HOUSEHOLD_FIXED_DROPS is empty); on one-member households
    # (synthetic data without idhogar) the STD columns are all missing and become 0.
    thresh = int(len(X) * _NA_THRESH)
    for c in X.columns:
        if c in _HOUSEHOLD_FIXED_DROPS or X[c].notna().sum() < thresh:
            X[c] = 0.0
    X = X.replace([np.inf, -np.inf], np.nan)
    complete = X.notna().all(axis=1) & y.notna()
    headed = pd.Series(X.index.isin(with_head), index=X.index)
    keep = complete & headed
    X, y = X.loc[keep], y.loc[keep]
    return _finish(
        name, X.reset_index(drop=True), y.reset_index(drop=True), _household_feature_names()
    )


def _engineer_polish(frame: pd.DataFrame) -> tuple:
    name = "polish"
    _check_frame(name, frame, _POLISH_COLUMNS)
    df = frame[_POLISH_COLUMNS].dropna().reset_index(drop=True)
    y = _target_values(df, name)
    out = {}
    for c in _POLISH_COLUMNS:
        if c == "wkabint":
            continue
        if c in _POLISH_CATEGORIES:
            out[c] = _nominal_codes(df[c], _POLISH_CATEGORIES[c], c)
        else:
            out[c] = _numeric(df, c)
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
    return _finish(name, X, y, _polish_feature_names())


def _engineer_artificial(name: str, frame: pd.DataFrame) -> tuple:
    domain = study_domain(name)
    features = [c for c in domain.columns if c != "label"]
    _check_frame(name, frame, features + ["label"])
    df = frame[features + ["label"]].dropna().reset_index(drop=True)
    y = _target_values(df, name)
    out = {}
    for c in features:
        x = _numeric(df, c)
        if isinstance(domain[c], Ordinal):
            if not (x == np.round(x)).all():
                raise ValueError(f"column {c!r}: categorical codes must be integers 0..4")
            out[c] = x.astype(np.int64)
        else:
            out[c] = x
    return _finish(name, pd.DataFrame(out), y, features)


def engineer_features(name: str, frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """The paper's feature engineering (``giles2022`` App. A; QUIPP
    ``metrics/utility-metrics/feature_importance.py`` with the ``examples/*-ensemble.py``
    Featuretools configurations), in plain pandas.

    The same function serves the real and the synthetic table; its output columns (names and
    order) are fixed, so both give the same ``X`` columns.

    * **Adult** (141): the rows are grouped by three "parent entities": ``education`` (key
      ``education-num``, carrying ``education``), ``Workclass`` and ``Occupation``. Each
      parent adds 43 columns: ``COUNT(adults)``; SUM, STD, MAX, SKEW, MIN, MEAN of age,
      fnlwgt, capital-gain, capital-loss, hours; NUM_UNIQUE and MODE of marital-status,
      relationship, sex, native and the other two keys. Names as Featuretools writes them,
      the rows' entity called ``adults``: ``education.MEAN(adults.age)``,
      ``Workclass.MODE(adults.sex)``. The 12 base columns are age, workclass, fnlwgt,
      ``education.education`` (the education of the first row with that education-num, as
      Featuretools' ``normalize_entity``), marital-status, occupation, relationship, sex,
      capital-gain, capital-loss, hours, native; ``education-num`` is excluded (QUIPP
      ``features_to_exclude``). 12 + 3·43 = 141.
    * **Household** (39), one row per household (``idhogar``): the 18 household-level
      variables (pared, piso, cielorazo, epared, etecho, eviv, rooms, r4m1, r4m3, r4t1, r4t3,
      hogar_nin, bedrooms, qmobilephone, dependency, edjefe, meaneduc, overcrowding; the
      first member's values), ``COUNT(members)``, MIN/MAX/STD/SUM of escolari and age, MODE
      and NUM_UNIQUE of v18q, dis, female, estadocivil, parentesco, instlevel (e.g.
      ``MAX(members.escolari)``, ``MODE(members.instlevel)``). Rows: members with a missing
      value are dropped; households kept only if they had a head (``parentesco == 0``) in
      ``frame``; households with a missing feature dropped (STD of a one-member household is
      missing, so the real data keep 2 581 households). QUIPP's data-dependent rule "drop
      columns with < 30 % non-missing values" drops nothing on the real data; here such a
      column is set to 0 instead of dropped (a forest never splits on a constant column, so
      its importances are 0 and predictions are unchanged) to keep the columns fixed.
      **Without an** ``idhogar`` **column** (synthetic data: the synthesizer never sees the
      id) every row is a household of its own — this reproduces the one-member households
      that DataSynthesizer's random id strings created in QUIPP (§5.2: "households have one
      member each"): only the heads' rows remain, the STD columns are all missing and become
      0.
    * **Polish** (67): the 12 base columns, and on age, weight, height, bmi, income: ``a ADD
      b``, ``a SUB b``, ``a MULT b`` for the 10 unordered pairs, ``a DIV b`` for the 20
      ordered pairs, ``PERCENTILE(a)`` (rank / n, ties averaged, over the complete rows) —
      Featuretools' operator names as QUIPP rewrote them (``"age MULT bmi"``, §5.2).
      Rows with a missing value are dropped first; ±inf (division by 0) becomes missing and
      those rows are dropped too.
    * **Artificial**: ``X`` = the feature columns, ``y`` = ``label``; no engineering.

    In every case: rows with a missing value are dropped (QUIPP ``drop_na``), columns whose
    name contains the target's name removed, ±inf → NaN. Categorical columns and every
    MODE column of a categorical are label codes over the sorted PUBLIC category list of
    :func:`study_domain` (Adult's ``"?"`` included; Household's are their 0..k-1 labels), so
    a category has the same code in real and synthetic data and, on the real data, the code
    scikit-learn's ``LabelEncoder`` gives it (QUIPP's encoding). MODE ties go to the smallest
    code (Featuretools' ``Series.mode()[0]``). Skewness is the bias-corrected sample skewness,
    NaN below 3 rows and 0 for a constant group (the pandas Featuretools 0.x ran on); STD has
    ``ddof=1``.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`.
    frame : pandas.DataFrame
        A table like :func:`load_table` ``(name)`` (real, synthetic or resampled): at least
        its attribute columns and the target (extra columns ignored; Household's ``Id`` and
        ``idhogar`` optional). Values as :func:`load_table` has them or as
        ``study_domain(name).decode`` gives them.

    Returns
    -------
    X : pandas.DataFrame, shape (m, DATASETS[name].features)
        float64/int64 columns, no missing value, fresh RangeIndex. m ≤ rows of ``frame``
        (Household: number of kept households). On the real data: Adult 32 561 × 141,
        Household 2 581 × 39, Polish 4 171 × 67, artificial 10 000 × 5/5/15/15/3.
    y : pandas.Series, int64, length m
        The class, aligned with ``X``: Adult 1 = >50K; Polish 1 = intends to work abroad
        (``wkabint == "YES"``); Household the poverty level 1..4 (as in the data, not 0..3);
        artificial 0/1.

    Raises
    ------
    ValueError
        An unknown name; ``frame`` lacks required columns (named); a category outside the
        public list, or a target value outside the classes (named with the column).
    TypeError
        ``frame`` not a DataFrame; a non-numeric value in a numeric column.
    """
    _check_name(name)
    if name == "adult":
        return _engineer_adult(frame)
    if name == "household":
        return _engineer_household(frame)
    if name == "polish":
        return _engineer_polish(frame)
    return _engineer_artificial(name, frame)


def feature_names(name: str) -> list[str]:
    """The columns of ``X`` from :func:`engineer_features` ``(name, ...)``, in order (fixed;
    they do not depend on the data). Raises ValueError for an unknown name."""
    _check_name(name)
    if name == "adult":
        return _adult_feature_names()
    if name == "household":
        return _household_feature_names()
    if name == "polish":
        return _polish_feature_names()
    return [c for c in study_domain(name).columns if c != "label"]


def nominal_features(name: str) -> list[str]:
    """The columns of ``X`` to treat as nominal in an association matrix
    (:func:`synthtrust.importance.association_matrix` ``(X, categorical=...)``; corrRBO of
    ``giles2022`` §3.2, QUIPP: "the metadata categoricals plus the MODE columns").

    Adult (25): workclass, ``education.education``, marital-status, occupation,
    relationship, sex, native and the 18 MODE columns. Household (12): pared, piso,
    cielorazo, epared, etecho, eviv and the 6 MODE columns. Polish (7): smoke, sex, edu,
    sport, marital, region, ls. Artificial: every categorical feature (all for 1, 2, 3, 5;
    none for the continuous Artificial 4).

    Raises
    ------
    ValueError
        An unknown name.
    """
    _check_name(name)
    names = feature_names(name)
    if name == "adult":
        base = {
            "workclass",
            "education.education",
            "marital-status",
            "occupation",
            "relationship",
            "sex",
            "native",
        }
    elif name == "household":
        base = set(_HOUSEHOLD_NOMINAL_LEVEL)
    elif name == "polish":
        base = set(_POLISH_NOMINAL)
    else:
        domain = study_domain(name)
        return [c for c in names if isinstance(domain[c], Ordinal)]
    return [c for c in names if c in base or ".MODE(" in c or c.startswith("MODE(")]
