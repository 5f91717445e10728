"""The prepared tables of the study of ``giles2022`` — what a synthesizer is fitted on,
before feature engineering — as the paper's pipeline (alan-turing-institute/QUIPP-pipeline)
prepared them: :func:`load_table` for every dataset and :func:`make_artificial` for the five
artificial sets of §5.1, both fresh copies of one cached table per dataset.
"""

from __future__ import annotations

import functools

import pandas as pd

from synthtrust._validation import check_int_range
from synthtrust.studies.feature_importance.data.adult import prepare_adult
from synthtrust.studies.feature_importance.data.artificial import artificial_table
from synthtrust.studies.feature_importance.data.household import prepare_household
from synthtrust.studies.feature_importance.data.polish import prepare_polish
from synthtrust.studies.feature_importance.data.specs import check_name


@functools.lru_cache(maxsize=8)
def _table(name: str) -> pd.DataFrame:
    if name == "adult":
        return prepare_adult()
    if name == "household":
        return prepare_household()
    if name == "polish":
        return prepare_polish()
    return artificial_table(int(name.rsplit("_", 1)[1]))


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
    check_name(name)
    return _table(name).copy()


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
    return _table(f"artificial_{check_int_range(k, 'k', 1, 5)}").copy()
