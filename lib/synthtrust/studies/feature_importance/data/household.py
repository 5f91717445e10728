"""The Household dataset (Kaggle "Costa Rican household poverty level prediction") in the
study of ``giles2022`` (§4.2.2), as the paper's pipeline (alan-turing-institute/QUIPP-pipeline,
``generators/household_poverty/clean.py``, "small" variant) used it: the codebook's one-hot
blocks, the prepared table, its PUBLIC domain and App. A's Featuretools recipe (39 features,
one row per household), in pandas.
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
    nominal_codes,
    numeric_column,
    target_values,
)

# --------------------------------------------------------------------------------------------
# Public category lists
# --------------------------------------------------------------------------------------------
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
# Feature-engineering recipe (App. A; QUIPP examples/*-ensemble.py configurations)
# --------------------------------------------------------------------------------------------
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
HOUSEHOLD_NOMINAL_LEVEL = ["pared", "piso", "cielorazo", "epared", "etecho", "eviv"]
#: QUIPP drops engineered columns with fewer than 30 % non-missing values (``na_thresh``).
_NA_THRESH = 0.30
#: Columns the 30 % rule removes on the REAL household data: none (QUIPP's run raises if the
#: original loses a column), so every engineered column is kept; see engineer_features.
_HOUSEHOLD_FIXED_DROPS: tuple[str, ...] = ()


def household_feature_names() -> list[str]:
    """The 39 columns of Household's engineered ``X`` (``giles2022`` App. A), in order.

    The 18 household-level variables, ``COUNT(members)``, MIN/MAX/STD/SUM of escolari and
    age, then MODE and NUM_UNIQUE of each member-level nominal variable
    (``MODE(members.instlevel)``); see :func:`~.engineering.engineer_features`.
    """
    out = list(_HOUSEHOLD_LEVEL) + ["COUNT(members)"]
    for col in _HOUSEHOLD_MEMBER_NUMERIC:
        for agg in ("MIN", "MAX", "STD", "SUM"):
            out.append(f"{agg}(members.{col})")
    for col in _HOUSEHOLD_MEMBER_NOMINAL:
        for agg in ("MODE", "NUM_UNIQUE"):
            out.append(f"{agg}(members.{col})")
    return out


def prepare_household() -> pd.DataFrame:
    """Household's prepared table, 9 554 × 29, read from ``data/`` (``giles2022`` §4.2.2).

    As QUIPP's ``clean.py`` ("small" variant): members take their head's ``Target``, yes/no
    become 1/0, the codebook's one-hot blocks become integer labels 0..k-1 and the three
    members without an education level are dropped; the uncached table behind
    :func:`~.tables.load_table`, which describes it. A ``ValueError`` guards the data file (a
    block that is not exactly one-hot).
    """
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


def household_domain() -> Domain:
    """Household's PUBLIC domain: its 27 columns, ``Target`` included (not ``Id``, ``idhogar``).

    Small integer counts one code per value (:class:`~synthtrust.domain.Ordinal`), other
    numeric columns in 8 equal-width, clipped bins (``meaneduc`` with the missing token
    ``"NA"``), the one-hot blocks their labels 0..k-1, ``Target`` 1..4. See
    :func:`~.domains.study_domain` and the bounds table of :mod:`.domains`.
    """
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


def engineer_household(frame: pd.DataFrame) -> tuple:
    """Household's App. A feature engineering (``giles2022``): ``(X, y)``, one row a household.

    Members are grouped by ``idhogar`` (without that column every row is a household of its
    own, as for synthetic data); only households with a head (``parentesco == 0``) in
    ``frame`` are kept; a column with under 30 % non-missing values is set to 0. Columns as
    :func:`household_feature_names`; the recipe is described under
    :func:`~.engineering.engineer_features`.

    Raises
    ------
    TypeError
        ``frame`` is not a DataFrame, or a numeric column holds non-numbers.
    ValueError
        A column is missing, a value is outside its public categories, or a ``Target``
        outside 1..4.
    """
    name = "household"
    members = _HOUSEHOLD_MEMBER_NUMERIC + _HOUSEHOLD_MEMBER_NOMINAL
    required = list(dict.fromkeys(_HOUSEHOLD_LEVEL + members + ["Target"]))
    check_frame(frame, f"frame for dataset {name!r}", required, min_rows=0)
    df = frame[required].copy()
    if "idhogar" in frame.columns:
        df["idhogar"] = frame["idhogar"].to_numpy()
    else:  # synthetic data: every individual is a household of its own
        df["idhogar"] = np.arange(len(frame))
    domain = household_domain()
    nominal = HOUSEHOLD_NOMINAL_LEVEL + _HOUSEHOLD_MEMBER_NOMINAL
    # households with a head, taken before any row is dropped (QUIPP filter_hh)
    parent = pd.to_numeric(df["parentesco"], errors="coerce")
    with_head = pd.unique(df.loc[parent == 0, "idhogar"].to_numpy(dtype=object))
    df = df.dropna().reset_index(drop=True)
    y_all = target_values(df, name)
    for c in nominal:
        df[c] = nominal_codes(df[c], list(domain[c].categories), c)
    for c in required:
        if c not in nominal and c != "Target":
            df[c] = numeric_column(df, c)
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
        mode = group_mode(keys, df[col].to_numpy())
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
    return finish(
        name, X.reset_index(drop=True), y.reset_index(drop=True), household_feature_names()
    )
