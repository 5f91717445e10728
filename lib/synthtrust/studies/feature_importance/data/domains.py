"""The PUBLIC domain of each prepared table of the study of ``giles2022`` (bounds and
category lists from documentation, never from the rows) that a DP synthesizer encodes the
table with (:func:`study_domain`); the per-dataset domains are in :mod:`.adult`,
:mod:`.household`, :mod:`.polish` and :mod:`.artificial`.

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

from synthtrust.domain import Domain
from synthtrust.studies.feature_importance.data.adult import adult_domain
from synthtrust.studies.feature_importance.data.artificial import artificial_domain
from synthtrust.studies.feature_importance.data.household import household_domain
from synthtrust.studies.feature_importance.data.polish import polish_domain
from synthtrust.studies.feature_importance.data.specs import check_name


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
    check_name(name)
    if name == "adult":
        return adult_domain()
    if name == "household":
        return household_domain()
    if name == "polish":
        return polish_domain()
    return artificial_domain(int(name.rsplit("_", 1)[1]))
