"""The feature engineering of ``giles2022`` App. A (QUIPP
``metrics/utility-metrics/feature_importance.py`` with the ``examples/*-ensemble.py``
Featuretools configurations), re-implemented in pandas (Featuretools 0.x does not run on
pandas 3): :func:`engineer_features` dispatches to the recipe of each dataset (in
:mod:`.adult`, :mod:`.household`, :mod:`.polish`, :mod:`.artificial`); :func:`feature_names`
gives its fixed output columns and :func:`nominal_features` the nominal ones (for an
association matrix).
"""

from __future__ import annotations

import pandas as pd

from synthtrust.domain import Ordinal
from synthtrust.studies.feature_importance.data.adult import adult_feature_names, engineer_adult
from synthtrust.studies.feature_importance.data.artificial import engineer_artificial
from synthtrust.studies.feature_importance.data.domains import study_domain
from synthtrust.studies.feature_importance.data.household import (
    HOUSEHOLD_NOMINAL_LEVEL,
    engineer_household,
    household_feature_names,
)
from synthtrust.studies.feature_importance.data.polish import (
    POLISH_NOMINAL,
    engineer_polish,
    polish_feature_names,
)
from synthtrust.studies.feature_importance.data.specs import check_name


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
    check_name(name)
    if name == "adult":
        return engineer_adult(frame)
    if name == "household":
        return engineer_household(frame)
    if name == "polish":
        return engineer_polish(frame)
    return engineer_artificial(name, frame)


def feature_names(name: str) -> list[str]:
    """The columns of ``X`` from :func:`engineer_features` ``(name, ...)``, in order (fixed;
    they do not depend on the data). Raises ValueError for an unknown name."""
    check_name(name)
    if name == "adult":
        return adult_feature_names()
    if name == "household":
        return household_feature_names()
    if name == "polish":
        return polish_feature_names()
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
    check_name(name)
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
        base = set(HOUSEHOLD_NOMINAL_LEVEL)
    elif name == "polish":
        base = set(POLISH_NOMINAL)
    else:
        domain = study_domain(name)
        return [c for c in names if isinstance(domain[c], Ordinal)]
    return [c for c in names if c in base or ".MODE(" in c or c.startswith("MODE(")]
