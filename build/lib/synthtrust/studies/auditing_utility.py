"""Chapter 5, utility part — Tables 1–3 of Houssiau et al. (2022) [``houssiau2022``], §4.2–4.3:
what the tailored (decomposable) generators and the general-purpose ones are worth to the three
census analyses of §4.1.

What
----
Every generator is trained on a sample of the ONS 2011 Census Microdata Teaching File and the
analyst's three tasks are run on its output:

* **Application 1** (Table 1): the 3-way table Economic Activity × Occupation × Sex (200 cells,
  normalised) and the "gender gap" P(Sex = male) − P(Sex = female) among the economically active
  (ONS Economic Activity codes 1 employee, 2 self-employed) in each of the 10 occupation levels
  (an empty group counts 0); RMSE of each against the real data (:func:`app1_metrics`).
* **Application 2** (Table 2): ``LogisticRegression(random_state=0)`` of Approximated Social Grade
  on one-hot Ethnic Group, Country of Birth and Family Composition; accuracy of the model
  trained on synthetic data on the real test split, and the accuracy an analyst would estimate
  on a synthetic holdout (:func:`app2_metrics`).
* **Application 3** (Table 3): ``RandomForestClassifier(random_state=0,
  class_weight="balanced_subsample")`` of Health on one-hot Marital Status / Occupation /
  Industry / Region and standardised Hours worked per week / Age; the same two accuracies, and
  the Jaro similarity between the order of the six features by permutation importance
  (``permutation_importance(n_repeats=10, random_state=0)``, ascending argsort written as a
  6-character string) and the real model's order (:func:`app3_metrics`).

Generators (:data:`UTILITY_GENERATORS`): the real train split itself (``real``); the tailored,
decomposable generators fed only the application's card (:func:`synthtrust.studies.auditing.card`)
— ``ipf`` (:class:`~synthtrust.synthesizers.IPF`, L1 tolerance 1e-3 counts as the reference's
utility runs) and ``pgm`` (noise-free Private-PGM, :class:`~synthtrust.synthesizers.PGMMarginals`)
— which see only the application's columns; and the general-purpose generators trained once on
all 17 attributes: ``cart`` (sequential CART, the paper's SynthPop), ``mst`` (ε = 1000,
δ = 1e-5), ``privbayes`` (ε = 1000) and ``patectgan`` (ε = 1000, the project's stand-in for the
paper's PATEGAN).

Protocol, as the reference notebooks: the census sample is split by
``train_test_split(test_size=0.1, random_state=1)`` (:func:`census_split`); general-purpose
generators train on the 90 % split; IPF and PGM train on the full sample for App. 1 and on the
train split for App. 2 and 3; every generator emits as many rows as the full sample. The real
App. 1 answers are those of the full sample; the real models (App. 2–3) are trained on the
train split and scored on the test split. A model trained on synthetic data is fitted on 3/4 of
it and its "estimated" accuracy is measured on the remaining 1/4
(``train_test_split(random_state=0, stratify=y)``). Every number is averaged over the runs.

Source: Houssiau et al. (2022) [``houssiau2022``], §4.1–4.3, Tables 1–3, and the utility
notebooks of its public code (which fix the split, the models and the Jaro computation).

Where this departs from the paper, and why
------------------------------------------
* **Data.** The paper used the full teaching file (569 741 rows); only a random 10 000-row sample
  and the first 50 000 rows are available here, so each generator emits 10 000 (or 50 000)
  rows and the real test split has 1 000 (5 000) rows: the accuracy of a model then has a
  binomial standard error of about 0.015 (0.007), and the 3-way RMSE has a sampling floor of
  about 7e-4 at 10 000 rows, above the paper's IPF value (5.4e-4). Compare orderings and
  ratios, not digits.
* **Sampling noise shows.** IPF draws its records i.i.d. from the fitted table; noise-free
  Private-PGM generates by randomised rounding (mbi's ``synthetic_data``), which reproduces the
  model's marginals almost exactly. At 569 741 rows the two are indistinguishable (Table 1:
  5.39e-4 and 5.35e-4); at 10 000 rows PGM's 3-way RMSE is visibly below IPF's although both
  fit the same maximum-entropy distribution.
* **PATE-CTGAN for PATEGAN.** The paper's PATEGAN came through the ``reprosyn`` package, whose
  PATE-GAN (a TensorFlow port of the ``synthetic_data_release`` code, in the versions we could
  read) trains one WGAN-GP critic, 10 steps per generator step on random batches of the whole
  training set with Gaussian-noised labels, for 100 generator iterations of a small tanh MLP:
  no disjoint teacher shards, no vote aggregation, no privacy accountant. The project has
  :class:`~synthtrust.synthesizers.PATECTGAN` (Rosenblatt et al. 2020 [``rosenblatt2020``],
  after PATE-GAN, Jordon et al. 2019 [``jordon2019``]): a CTGAN-style generator with
  conditional vectors, independent teachers on disjoint shards, a noisy vote whose λ is chosen
  so that the labels carry information, and a moments accountant; it is capped here at
  ``pate_max_iterations`` generator iterations (default 300: about 25 s on 2 CPU cores for
  9 000 rows). It is a different and better-trained GAN, so its numbers are not the paper's
  PATEGAN numbers; finding 6 (GANs give overconfident models) is checked on it.
* **No CTGAN.** The paper's non-private CTGAN (10 epochs) is not run: the ``ctgan`` package is
  BUSL-1.1 licensed and its ``rdt`` dependency pins pandas < 3. Its published numbers stay in
  :data:`PAPER_TABLE1`–:data:`PAPER_TABLE3` and the tables show them beside an empty cell.
* **PrivBayes** is the project's ε-DP :class:`~synthtrust.synthesizers.PrivBayes` (degree from
  θ-usefulness at the actual ε, replace-one noise), not DataSynthesizer through reprosyn (whose
  settings besides ε the paper does not report).
* **Sequential CART** splits integer codes by thresholds (sklearn) where synthpop's ``rpart``
  splits factors by category subsets (see :class:`~synthtrust.synthesizers.SequentialCART`).
* **Encoding.** Columns are the census domain's integer codes
  (:func:`synthtrust.domain.dataset_domain`, −9 first as code 0) rather than the strings of the
  reference's metadata; one-hot encodings are the same up to column order, and the two
  standardised numeric features (Hours, Age) are monotone recodings of the ONS values, to which
  trees are invariant.
* **Feature importance** is computed where the reference code computes it: on the synthetic
  1/4 holdout for a model trained on synthetic data (the published Jaro values come from
  there), on the real test split for the real model. The Table 3 caption says "on the test split
  of real data"; that variant is computed on request (``real_test_importance=True``:
  ``app3_jaro_real_test``, about 3 s more per replicate on random10k).
* **Jaro similarity**, not "distance" (§4.3's wording); the random baseline for two random
  orders of six features is exactly 9019/12960 ≈ 0.6959 (:func:`expected_jaro_random_permutation`),
  which the paper rounds to 0.70.
* The reference's IPF ran unseeded (``np.random.random(seed)``); here every draw is seeded from
  :func:`synthtrust.experiment.run_grid`'s replicate generator.

The Jaro similarity is written here (:func:`jaro_similarity`, twenty lines on strings of six
characters) rather than taken from ``rapidfuzz``: rapidfuzz follows Winkler's ``strcmp95`` and
rounds the number of transpositions down, which gives other values for a fifth of the orders of
six features and a random baseline of 9113/12960 instead of the paper's 9019/12960.
"""

from __future__ import annotations

import itertools
import math
import numbers
import time
import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pandas as pd

from .auditing import CENSUS, application

__all__ = [
    "APP1_COLUMNS",
    "APP2_FEATURES",
    "APP2_TARGET",
    "APP3_CATEGORIC",
    "APP3_FEATURES",
    "APP3_NUMERIC",
    "APP3_TARGET",
    "GENERAL_PURPOSE",
    "PAPER_LABELS",
    "PAPER_TABLE1",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_UTILITY_FINDINGS",
    "TAILORED",
    "UTILITY_GENERATORS",
    "CensusSplit",
    "app1_metrics",
    "app2_metrics",
    "app3_metrics",
    "build_utility_grid",
    "census_split",
    "expected_jaro_random_permutation",
    "feature_order",
    "gender_gap",
    "jaro_random_permutation_sd",
    "jaro_similarity",
    "make_utility_generator",
    "rmse",
    "summarize_utility",
    "table1",
    "table2",
    "table3",
    "three_way_table",
    "utility_cell",
    "utility_findings",
]

# --------------------------------------------------------------------------------------------
# the applications' columns (census column names)
# --------------------------------------------------------------------------------------------
#: Application 1: (Economic Activity, Occupation, Sex), the reference's order.
APP1_COLUMNS: tuple = tuple(application(1).columns)
#: Application 2: the features of the logistic regression and its target.
APP2_FEATURES: tuple = tuple(application(2).columns[:3])
APP2_TARGET: str = application(2).columns[3]
#: Application 3: the random forest's standardised features, its one-hot features (the
#: reference's ``numeric`` and ``categoric``), their order in the importance strings (numeric
#: first: character "0" = Hours worked per week, ..., "5" = Region) and the target, Health.
APP3_NUMERIC: tuple = ("Hours worked per week", "Age")
APP3_CATEGORIC: tuple = ("Marital Status", "Occupation", "Industry", "Region")
APP3_FEATURES: tuple = APP3_NUMERIC + APP3_CATEGORIC
APP3_TARGET: str = "Health"

#: ONS Economic Activity codes of the economically active in work (1 employee, 2 self-employed)
_ACTIVE = (1, 2)
#: ONS Sex codes (1 male, 2 female)
_MALE, _FEMALE = 1, 2

# --------------------------------------------------------------------------------------------
# generators and the paper's numbers
# --------------------------------------------------------------------------------------------
#: Generators of the utility study: name -> label. ``real`` is the real train split itself.
UTILITY_GENERATORS: dict[str, str] = {
    "real": "Real data",
    "ipf": "IPF",
    "pgm": "Private-PGM (noise-free)",
    "mst": "MST (ε = 1000)",
    "patectgan": "PATE-CTGAN (ε = 1000; paper: PATEGAN)",
    "privbayes": "PrivBayes (ε = 1000)",
    "cart": "Sequential CART (paper: SynthPop)",
}
#: Decomposable generators fitted to the application's card only (one fit per application).
TAILORED = ("ipf", "pgm")
#: Generators fitted once on all 17 attributes, serving the three applications.
GENERAL_PURPOSE = ("cart", "mst", "privbayes", "patectgan")

#: Labels of the paper's rows (CTGAN is not run here: see the module docstring).
PAPER_LABELS: dict[str, str] = {**UTILITY_GENERATORS, "ctgan": "CTGAN (not run)"}

#: Table 1 (App. 1): generator -> (RMSE of the 3-way table, RMSE of the gender gap).
PAPER_TABLE1: dict[str, tuple] = {
    "ipf": (5.39e-4, 4.77e-2),
    "pgm": (5.35e-4, 4.94e-2),
    "mst": (1.04e-3, 8.68e-2),
    "patectgan": (1.29e-2, 0.570),
    "privbayes": (8.97e-3, 0.284),
    "ctgan": (3.62e-3, 0.170),
    "cart": (9.60e-5, 4.61e-3),
}
#: Table 2 (App. 2): generator -> (accuracy on real data, accuracy estimated on synthetic data).
PAPER_TABLE2: dict[str, tuple] = {
    "real": (0.341, 0.341),
    "ipf": (0.341, 0.341),
    "pgm": (0.341, 0.340),
    "mst": (0.312, 0.297),
    "patectgan": (0.205, 0.403),
    "privbayes": (0.312, 0.306),
    "ctgan": (0.288, 0.380),
    "cart": (0.341, 0.340),
}
#: Table 3 (App. 3): generator -> (accuracy on real data, accuracy estimated on synthetic data,
#: Jaro similarity of the feature-importance order).
PAPER_TABLE3: dict[str, tuple] = {
    "real": (0.441, 0.441, 1.0),
    "ipf": (0.434, 0.436, 0.98),
    "pgm": (0.438, 0.370, 1.0),
    "mst": (0.258, 0.266, 0.83),
    "ctgan": (0.329, 0.383, 0.89),
    "patectgan": (0.210, 0.460, 0.49),
    "privbayes": (0.215, 0.222, 0.70),
    "cart": (0.437, 0.473, 0.98),
}

#: The utility findings of the paper (§4.3), checked by :func:`utility_findings`: (key, finding).
PAPER_UTILITY_FINDINGS = [
    (
        "tailored_3way",
        "On the 3-way table (App. 1), tailored IPF and PGM beat every "
        "general-purpose generator except SynthPop (Table 1)",
    ),
    (
        "phi_sufficient",
        "When Φ suffices for the logistic regression (App. 2), IPF and PGM data "
        "give the real model's accuracy (0.341; Table 2)",
    ),
    (
        "gan_overconfident",
        "GAN-based generators give overconfident models: accuracy estimated on "
        "synthetic data exceeds accuracy on real data (PATEGAN App. 2 0.403 vs "
        "0.205, App. 3 0.460 vs 0.210; CTGAN App. 2 0.380 vs 0.288)",
    ),
    (
        "two_way_rf",
        "With only 2-way marginals (App. 3), IPF and PGM come within 0.007 of the "
        "real random forest's accuracy and keep the feature-importance order "
        "(Jaro ≥ 0.98; Table 3)",
    ),
    (
        "random_order",
        "PATEGAN (0.49) and PrivBayes (0.70) order features no better than random (0.70; Table 3)",
    ),
]


# --------------------------------------------------------------------------------------------
# Jaro similarity
# --------------------------------------------------------------------------------------------
def _jaro_counts(a: str, b: str) -> tuple[int, int]:
    """(m, k): the number of matching characters and the number of matched characters out of
    order (k = 2t, t the transpositions) of the Jaro similarity of ``a`` and ``b``."""
    la, lb = len(a), len(b)
    window = max(max(la, lb) // 2 - 1, 0)
    used_b = [False] * lb
    matched_a = []
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(i + window + 1, lb)):
            if not used_b[j] and b[j] == ch:
                used_b[j] = True
                matched_a.append(ch)
                break
    matched_b = [ch for ch, used in zip(b, used_b, strict=True) if used]
    return len(matched_a), sum(x != y for x, y in zip(matched_a, matched_b, strict=True))


def _jaro_fraction(a: str, b: str) -> Fraction:
    if not a and not b:
        return Fraction(1)
    m, k = _jaro_counts(a, b)
    if m == 0:
        return Fraction(0)
    return (Fraction(m, len(a)) + Fraction(m, len(b)) + Fraction(2 * m - k, 2 * m)) / 3


def jaro_similarity(a: str, b: str) -> float:
    """Jaro similarity of two strings (Jaro 1989), in [0, 1]; 1 for two empty strings.

    Characters match if they are equal and at most ⌊max(|a|, |b|)/2⌋ − 1 positions apart (each
    character used once, greedily from the left); with m matches and t = k/2, k the number of
    matched characters out of order, the similarity is (m/|a| + m/|b| + (m − t)/m) / 3, and 0
    if m = 0. Examples: MARTHA / MARHTA = 0.9444 (k = 2), DIXON / DICKSONX = 0.7667.

    This is the definition of the reference's Jaro function (Rosetta Code's), which produced the
    paper's Table 3, with one fix: the window is never negative (Rosetta's gives 0 for two equal
    one-character strings). t may be a half-integer: ``rapidfuzz`` and Winkler's ``strcmp95``
    round t = k/2 down, which changes 144 of the 720 orders of six features (abcdef / abcefd:
    0.9167 here, 0.9444 there) and moves the random baseline from 9019/12960 to 9113/12960, so
    they cannot reproduce the paper's numbers.

    Raises
    ------
    TypeError
        ``a`` or ``b`` not a str.
    """
    if not isinstance(a, str) or not isinstance(b, str):
        raise TypeError(
            f"jaro_similarity compares two str, got {type(a).__name__} and {type(b).__name__}"
        )
    return float(_jaro_fraction(a, b))


def _check_perm_length(n) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or not 1 <= n <= 8:
        raise ValueError(
            f"n must be an integer in 1..8 (n! permutations are enumerated), got {n!r}"
        )
    return int(n)


@lru_cache(maxsize=8)
def _random_jaro_values(n: int) -> tuple:
    """Exact Jaro similarity of every permutation of n distinct characters with the identity."""
    alphabet = "".join(chr(ord("a") + i) for i in range(n))
    return tuple(_jaro_fraction(alphabet, "".join(p)) for p in itertools.permutations(alphabet))


def expected_jaro_random_permutation(n: int = 6) -> Fraction:
    """Expected Jaro similarity of two independent uniformly random orders of n distinct items,
    exactly (a :class:`fractions.Fraction`), by enumerating the n! permutations (the Jaro
    similarity is invariant under renaming the characters, so the mean over pairs equals the
    mean against a fixed order).

    n = 6 (the six features of Application 3): 9019/12960 ≈ 0.6959, the paper's "0.70"
    baseline (the reference estimated 0.6959 from 100 000 random draws).

    Raises
    ------
    ValueError
        ``n`` not an integer in 1..8.
    """
    vals = _random_jaro_values(_check_perm_length(n))
    return sum(vals, Fraction(0)) / len(vals)


def jaro_random_permutation_sd(n: int = 6) -> float:
    """Standard deviation of the Jaro similarity of two random orders of n items (enumeration;
    n = 6: about 0.12). Used by :func:`utility_findings` for "no better than random".

    Raises
    ------
    ValueError
        ``n`` not an integer in 1..8.
    """
    vals = _random_jaro_values(_check_perm_length(n))
    mean = sum(vals, Fraction(0)) / len(vals)
    return math.sqrt(float(sum(((v - mean) ** 2 for v in vals), Fraction(0)) / len(vals)))


def feature_order(importances) -> str:
    """The reference's feature order: ``np.argsort`` of the importances (ascending: the least
    important feature first; ties in input order), written as a string of digits.

    Raises
    ------
    ValueError
        Not a 1-d array of 1..10 finite values.
    """
    imp = np.asarray(importances, dtype=float)
    if imp.ndim != 1 or not 1 <= imp.size <= 10 or not np.isfinite(imp).all():
        raise ValueError(f"importances must be 1..10 finite values, got {importances!r}")
    return "".join(str(int(i)) for i in np.argsort(imp, kind="stable"))


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CensusSplit:
    """A census sample encoded with the public census domain, and the paper's split.

    Attributes
    ----------
    dataset : str
        ``census2011_random10k`` or ``census2011_first50k``.
    full, train, test : pandas.DataFrame
        int64 codes of the 17 attributes (``Person ID`` dropped; −9 is code 0), index 0..n−1;
        ``train``/``test`` = ``train_test_split(full, test_size=0.1, random_state=1)``.
    sizes : dict
        {column: number of codes}.

    Treat the frames as read-only: :func:`census_split` caches them.
    """

    dataset: str
    full: pd.DataFrame
    train: pd.DataFrame
    test: pd.DataFrame
    sizes: dict


_CENSUS_DATASETS = ("census2011_random10k", "census2011_first50k")


def census_split(dataset: str = "census2011_random10k", n_rows: int | None = None) -> CensusSplit:
    """The census sample and its 90/10 split (the reference's ``split_data``:
    ``train_test_split(test_size=0.1, random_state=1)``), encoded with
    ``dataset_domain("census2011")``; cached.

    Parameters
    ----------
    dataset : "census2011_random10k" or "census2011_first50k"
    n_rows : int or None
        Use a random subset of this many rows (``DataFrame.sample(n_rows, random_state=0)``),
        e.g. for a quick run; None: every row.

    Returns
    -------
    CensusSplit
        random10k: 10 000 rows, 9 000 / 1 000.

    Raises
    ------
    ValueError
        Unknown dataset; ``n_rows`` not an integer in 20..len(file).
    """
    if dataset not in _CENSUS_DATASETS:
        raise ValueError(f"dataset must be one of {_CENSUS_DATASETS}, got {dataset!r}")
    if n_rows is not None and (
        isinstance(n_rows, bool) or not isinstance(n_rows, numbers.Integral)
    ):
        raise ValueError(f"n_rows must be an integer or None, got {n_rows!r}")
    return _census_split(dataset, None if n_rows is None else int(n_rows))


@lru_cache(maxsize=4)
def _census_split(dataset: str, n_rows: int | None) -> CensusSplit:
    from sklearn.model_selection import train_test_split

    from synthtrust import datasets
    from synthtrust.domain import dataset_domain

    dom = dataset_domain(CENSUS)
    raw = datasets.load(dataset).drop(columns="Person ID")
    if n_rows is not None:
        if not 20 <= n_rows <= len(raw):
            raise ValueError(f"n_rows must be in 20..{len(raw)} for {dataset}, got {n_rows}")
        raw = raw.sample(n=n_rows, random_state=0)
    full = dom.encode(raw[dom.columns]).reset_index(drop=True)
    train, test = train_test_split(full, test_size=0.1, random_state=1)
    return CensusSplit(
        dataset, full, train.reset_index(drop=True), test.reset_index(drop=True), dict(dom.sizes)
    )


@lru_cache(maxsize=1)
def _codes_of() -> dict:
    """ONS value -> code of the columns the metrics name (Economic Activity, Sex)."""
    from synthtrust.domain import dataset_domain

    dom = dataset_domain(CENSUS)
    out = {}
    for col in ("Economic Activity", "Sex"):
        spec = dom[col]
        values = list(spec.categories) if hasattr(spec, "categories") else None
        if values is None:  # pragma: no cover - Categorical always has categories
            raise RuntimeError(f"{col} is not categorical")
        codes = spec.encode(pd.Series(values), column=col)
        out[col] = {v: int(c) for v, c in zip(values, codes, strict=True)}
    return out


def _sizes() -> dict:
    from synthtrust.domain import dataset_domain

    return dict(dataset_domain(CENSUS).sizes)


# --------------------------------------------------------------------------------------------
# Application 1
# --------------------------------------------------------------------------------------------
def _check_columns(frame, columns, what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(
            f"{what} must be a pandas DataFrame of census codes, got {type(frame).__name__}"
        )
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what} lacks the column(s) {missing} (has {list(frame.columns)})")
    if len(frame) == 0:
        raise ValueError(f"{what} has no rows")


def three_way_table(codes: pd.DataFrame) -> np.ndarray:
    """Normalised 3-way table of Application 1: shares of the records in each cell of Economic
    Activity × Occupation × Sex, shape (10, 10, 2) (census codes; sums to 1).

    Parameters
    ----------
    codes : pandas.DataFrame
        Census codes (:func:`census_split`) with at least the three columns.

    Raises
    ------
    TypeError, ValueError
        Not a DataFrame, a missing column, no rows, codes outside the domain.
    """
    _check_columns(codes, APP1_COLUMNS, "codes")
    sizes = _sizes()
    shape = tuple(sizes[c] for c in APP1_COLUMNS)
    idx = [codes[c].to_numpy(dtype=np.int64) for c in APP1_COLUMNS]
    for c, v, k in zip(APP1_COLUMNS, idx, shape, strict=True):
        if v.min() < 0 or v.max() >= k:
            raise ValueError(f"column {c!r} has codes outside 0..{k - 1}")
    counts = np.bincount(np.ravel_multi_index(idx, shape), minlength=math.prod(shape))
    return counts.reshape(shape) / len(codes)


def gender_gap(codes: pd.DataFrame) -> np.ndarray:
    """Gender gap by occupation (Application 1): for each of the 10 Occupation codes, the share
    of men minus the share of women among the records with Economic Activity 1 or 2 (ONS codes:
    employee, self-employed) in that occupation; 0 for an empty group (as the reference).

    Returns
    -------
    ndarray, shape (10,)
        Indexed by Occupation code (code 0 = ONS −9).

    Raises
    ------
    TypeError, ValueError
        As :func:`three_way_table`.
    """
    table = three_way_table(codes)  # checks
    ea, sex = _codes_of()["Economic Activity"], _codes_of()["Sex"]
    active = table[[ea[v] for v in _ACTIVE]].sum(axis=0)  # (occupation, sex)
    total = active.sum(axis=1)
    diff = active[:, sex[_MALE]] - active[:, sex[_FEMALE]]
    return np.divide(diff, total, out=np.zeros_like(diff), where=total > 0)


def rmse(a, b) -> float:
    """Root mean squared difference of two arrays of the same shape (flattened)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"rmse needs arrays of the same shape, got {a.shape} and {b.shape}")
    return float(np.sqrt(np.mean((a.ravel() - b.ravel()) ** 2)))


def app1_metrics(synthetic: pd.DataFrame, real: pd.DataFrame) -> dict:
    """Table 1's two numbers for one synthetic dataset: ``rmse_3way`` (RMSE over the 200 cells
    of the normalised 3-way table) and ``rmse_gender_gap`` (RMSE over the 10 occupations of the
    gender gap), synthetic against real (census codes)."""
    return {
        "rmse_3way": rmse(three_way_table(synthetic), three_way_table(real)),
        "rmse_gender_gap": rmse(gender_gap(synthetic), gender_gap(real)),
    }


# --------------------------------------------------------------------------------------------
# Applications 2 and 3: models trained on synthetic data
# --------------------------------------------------------------------------------------------
def _one_hot(columns, sizes):
    from sklearn.preprocessing import OneHotEncoder

    return OneHotEncoder(categories=[list(range(sizes[c])) for c in columns])


def _logistic_pipeline(sizes):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    pre = ColumnTransformer([("encode", _one_hot(APP2_FEATURES, sizes), list(APP2_FEATURES))])
    return Pipeline([("preprocess", pre), ("model", LogisticRegression(random_state=0))])


def _forest_pipeline(sizes, n_estimators: int = 100):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    pre = ColumnTransformer(
        [
            ("encode", _one_hot(APP3_CATEGORIC, sizes), list(APP3_CATEGORIC)),
            ("rescale", StandardScaler(), list(APP3_NUMERIC)),
        ]
    )
    forest = RandomForestClassifier(
        n_estimators=n_estimators, random_state=0, n_jobs=1, class_weight="balanced_subsample"
    )
    return Pipeline([("preprocess", pre), ("model", forest)])


def _synthetic_split(X: pd.DataFrame, y: pd.Series):
    """3/4 – 1/4 split of a synthetic dataset (``random_state=0``), stratified by the target
    as the reference; plain when a class has fewer than 2 records (stratification impossible)."""
    from sklearn.model_selection import train_test_split

    stratify = y if y.value_counts().min() >= 2 else None
    return train_test_split(X, y, random_state=0, stratify=stratify)


def _fit(make, X, y):
    if y.nunique() < 2:  # a synthetic training split with a single class
        from sklearn.dummy import DummyClassifier

        return DummyClassifier(strategy="constant", constant=y.iloc[0]).fit(X, y)
    with warnings.catch_warnings():
        # lbfgs stops at 100 iterations on some synthetic sets, as in the reference notebooks
        from sklearn.exceptions import ConvergenceWarning

        warnings.simplefilter("ignore", ConvergenceWarning)
        return make().fit(X, y)


def _accuracy(model, X, y) -> float:
    return float(np.mean(np.asarray(model.predict(X)) == y.to_numpy()))


def _train_and_score(make, features, target, synthetic, train, test):
    """(model, acc on the real test split, acc estimated on the synthetic holdout, holdout X, y).
    ``synthetic=None``: the real model (trained on ``train``; both accuracies on ``test``)."""
    if synthetic is None:
        model = _fit(make, train[list(features)], train[target])
        acc = _accuracy(model, test[list(features)], test[target])
        return model, acc, acc, test[list(features)], test[target]
    _check_columns(synthetic, (*features, target), "synthetic")
    X_tr, X_ho, y_tr, y_ho = _synthetic_split(synthetic[list(features)], synthetic[target])
    model = _fit(make, X_tr, y_tr)
    return (
        model,
        _accuracy(model, test[list(features)], test[target]),
        _accuracy(model, X_ho, y_ho),
        X_ho,
        y_ho,
    )


def app2_metrics(
    synthetic: pd.DataFrame | None,
    train: pd.DataFrame,
    test: pd.DataFrame,
    sizes: dict | None = None,
) -> dict:
    """Table 2's two numbers: the logistic regression of Approximated Social Grade on one-hot
    Ethnic Group, Country of Birth and Family Composition (``LogisticRegression(random_state=0)``,
    lbfgs, 100 iterations as the reference) trained on 3/4 of ``synthetic``.

    Parameters
    ----------
    synthetic : DataFrame of census codes, or None
        None: the real model, trained on ``train`` (both accuracies are its test accuracy).
    train, test : DataFrame
        The real split (:func:`census_split`).
    sizes : dict, optional
        {column: codes}; default the census domain's.

    Returns
    -------
    dict
        ``acc_real`` (on the real test split), ``acc_synthetic`` (on the synthetic 1/4 holdout).
    """
    sizes = sizes or _sizes()
    _, acc_real, acc_synth, _, _ = _train_and_score(
        lambda: _logistic_pipeline(sizes), APP2_FEATURES, APP2_TARGET, synthetic, train, test
    )
    return {"acc_real": acc_real, "acc_synthetic": acc_synth}


def _importance(model, X, y, n_repeats: int) -> np.ndarray:
    from sklearn.dummy import DummyClassifier
    from sklearn.inspection import permutation_importance

    if isinstance(model, DummyClassifier):  # predicts one class: no feature matters
        return np.zeros(X.shape[1])
    res = permutation_importance(model, X, y, n_repeats=n_repeats, random_state=0, n_jobs=1)
    return np.asarray(res.importances_mean, dtype=float)


def app3_metrics(
    synthetic: pd.DataFrame | None,
    train: pd.DataFrame,
    test: pd.DataFrame,
    real_order: str | None = None,
    *,
    sizes: dict | None = None,
    n_repeats: int = 10,
    n_estimators: int = 100,
    real_test_importance: bool = True,
) -> dict:
    """Table 3's numbers: the random forest of Health (``RandomForestClassifier(random_state=0,
    class_weight="balanced_subsample")``, one-hot Marital Status / Occupation / Industry /
    Region, ``StandardScaler`` on Hours worked per week and Age) trained on 3/4 of
    ``synthetic``; permutation importance of the six features
    (``permutation_importance(n_repeats=10, random_state=0)``).

    Parameters
    ----------
    synthetic : DataFrame of census codes, or None
        None: the real model (trained on ``train``; its importances on ``test``).
    train, test : DataFrame
        The real split.
    real_order : str, optional
        The real model's feature order (``order`` of ``app3_metrics(None, ...)``); the Jaro
        similarities are NaN without it.
    sizes : dict, optional
    n_repeats, n_estimators : int
        The reference's 10 permutations and sklearn's default 100 trees.
    real_test_importance : bool
        Also compute the importances of the synthetic model on the real test split (the Table 3
        caption's wording).

    Returns
    -------
    dict
        ``acc_real``, ``acc_synthetic``, ``order`` (ascending argsort of the importances on the
        synthetic holdout, as the reference; on the test split for the real model), ``jaro``
        (its Jaro similarity with ``real_order``), ``order_real_test`` and ``jaro_real_test``
        (importances on the real test split; equal to the former for the real model, "" / NaN
        if not computed).
    """
    sizes = sizes or _sizes()
    model, acc_real, acc_synth, X_ho, y_ho = _train_and_score(
        lambda: _forest_pipeline(sizes, n_estimators),
        APP3_FEATURES,
        APP3_TARGET,
        synthetic,
        train,
        test,
    )
    order = feature_order(_importance(model, X_ho, y_ho, n_repeats))
    if synthetic is None:
        order_rt = order
    elif real_test_importance:
        order_rt = feature_order(
            _importance(model, test[list(APP3_FEATURES)], test[APP3_TARGET], n_repeats)
        )
    else:
        order_rt = ""
    ref = order if synthetic is None and real_order is None else real_order
    return {
        "acc_real": acc_real,
        "acc_synthetic": acc_synth,
        "order": order,
        "jaro": jaro_similarity(ref, order) if ref else math.nan,
        "order_real_test": order_rt,
        "jaro_real_test": jaro_similarity(ref, order_rt) if ref and order_rt else math.nan,
    }


@lru_cache(maxsize=4)
def _real_reference(dataset: str, n_rows: int | None, n_estimators: int) -> dict:
    """The real models' results (deterministic: every model has ``random_state=0``)."""
    split = census_split(dataset, n_rows)
    return {
        "app2": app2_metrics(None, split.train, split.test, split.sizes),
        "app3": app3_metrics(
            None, split.train, split.test, sizes=split.sizes, n_estimators=n_estimators
        ),
    }


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------
def make_utility_generator(
    name: str,
    app=None,
    random_state=None,
    *,
    epsilon: float = 1000.0,
    delta: float = 1e-5,
    ipf_tol: float = 1e-3,
    pgm_iters=None,
    pate_max_iterations: int = 300,
):
    """An unfitted generator of the utility study, working on census codes.

    * ``ipf`` / ``pgm`` (``app`` required): IPF (L1 tolerance ``ipf_tol`` counts, 10⁴ sweeps at
      most) or noise-free Private-PGM (``pgm_iters`` steps, default the application's: 1000, or
      200 in App. 3) fitted to the card's declared marginals
      (:data:`synthtrust.studies.auditing.APPLICATIONS`), domain = the application's columns;
    * ``cart``: sequential CART (``min_samples_leaf=5``, synthpop's ``minbucket``);
    * ``mst``: MST at (ε, δ); ``privbayes``: PrivBayes at ε (degree by θ-usefulness);
    * ``patectgan``: PATE-CTGAN at (ε, δ), at most ``pate_max_iterations`` generator iterations;

    the last four with the 17-attribute census domain.

    Raises
    ------
    ValueError
        Unknown ``name`` (or ``real``, which is no generator); ``ipf``/``pgm`` without ``app``.
    """
    from synthtrust import synthesizers as syn

    if name not in UTILITY_GENERATORS or name == "real":
        gens = [g for g in UTILITY_GENERATORS if g != "real"]
        raise ValueError(f"unknown generator {name!r}; expected one of {', '.join(gens)}")
    if name in TAILORED:
        if app is None:
            raise ValueError(f"{name} is tailored to an application: pass app=1, 2 or 3")
        a = application(app)
        sizes = _sizes()
        dom = {c: sizes[c] for c in a.columns}
        marginals = [tuple(m) for m in a.marginals]
        if name == "ipf":
            return syn.IPF.honest(
                marginals,
                domain=dom,
                tol=float(ipf_tol),
                max_iter=10_000,
                random_state=random_state,
            )
        return syn.PGMMarginals.honest(
            marginals, domain=dom, iters=int(pgm_iters or a.pgm_iters), random_state=random_state
        )
    sizes = _sizes()
    if name == "cart":
        return syn.SequentialCART(min_samples_leaf=5, domain=sizes, random_state=random_state)
    if name == "mst":
        return syn.MST(float(epsilon), float(delta), domain=sizes, random_state=random_state)
    if name == "privbayes":
        return syn.PrivBayes(float(epsilon), domain=sizes, random_state=random_state)
    return syn.PATECTGAN(
        float(epsilon),
        float(delta),
        domain=sizes,
        max_iterations=int(pate_max_iterations),
        random_state=random_state,
    )


# --------------------------------------------------------------------------------------------
# the experiment
# --------------------------------------------------------------------------------------------
#: Output columns of :func:`utility_cell` holding the metrics (means in the tables).
_METRICS = (
    "app1_rmse_3way",
    "app1_rmse_gender_gap",
    "app2_acc_real",
    "app2_acc_synthetic",
    "app3_acc_real",
    "app3_acc_synthetic",
    "app3_jaro",
    "app3_jaro_real_test",
)


def build_utility_grid(
    *,
    generators,
    dataset: str = "census2011_random10k",
    n_rows: int | None = None,
    epsilon: float = 1000.0,
    delta: float = 1e-5,
    ipf_tol: float = 1e-3,
    pgm_iters=(1000, 1000, 200),
    pate_max_iterations: int = 300,
    n_estimators: int = 100,
    real_test_importance: bool = False,
    include_real: bool = True,
) -> list[dict]:
    """Grid cells for :func:`utility_cell`: one per generator (plus ``real`` first).

    Parameters
    ----------
    generators : list of str
        Keys of :data:`UTILITY_GENERATORS`.
    dataset, n_rows
        The census sample (:func:`census_split`).
    epsilon, delta
        The DP generators' budget (the paper: 1000 and 1e-5).
    ipf_tol, pgm_iters, pate_max_iterations
        IPF's L1 tolerance (counts), the noise-free PGM's steps per application (App. 1, 2, 3),
        PATE-CTGAN's cap on generator iterations.
    n_estimators : int
        Trees of App. 3's forest (sklearn's default 100, as the reference).
    real_test_importance : bool
        Also order the features of each synthetic model by their permutation importance on the
        real test split (``app3_jaro_real_test``; the Table 3 caption's wording), about 3 s more
        per replicate on random10k.
    include_real : bool
        Add the ``real`` cell.

    Returns
    -------
    list of dict
        Keys ``generator``, ``dataset``, ``n_rows``, ``epsilon``, ``delta``, ``ipf_tol``,
        ``pgm_iters``, ``pate_max_iterations``, ``n_estimators``, ``real_test_importance``.

    Raises
    ------
    ValueError
        An unknown generator; ``pgm_iters`` not 3 values.
    """
    gens = list(generators)
    unknown = [g for g in gens if g not in UTILITY_GENERATORS]
    if unknown:
        raise ValueError(
            f"unknown generator(s) {unknown}; expected keys of UTILITY_GENERATORS: "
            f"{', '.join(UTILITY_GENERATORS)}"
        )
    pgm_iters = list(pgm_iters)
    if len(pgm_iters) != 3:
        raise ValueError(f"pgm_iters must hold 3 values (App. 1, 2, 3), got {pgm_iters!r}")
    if include_real and "real" not in gens:
        gens = ["real", *gens]
    census_split(dataset, n_rows)  # validates dataset and n_rows early
    return [
        {
            "generator": g,
            "dataset": dataset,
            "n_rows": n_rows,
            "epsilon": float(epsilon),
            "delta": float(delta),
            "ipf_tol": float(ipf_tol),
            "pgm_iters": [int(i) for i in pgm_iters],
            "pate_max_iterations": int(pate_max_iterations),
            "n_estimators": int(n_estimators),
            "real_test_importance": bool(real_test_importance),
        }
        for g in gens
    ]


def utility_cell(params: dict, rngs: list[np.random.Generator]) -> pd.DataFrame:
    """``len(rngs)`` replicates of one generator's utility on the three applications.

    A replicate draws one seed from its generator; a general-purpose generator is fitted once
    on the train split (all 17 attributes) and samples ``len(full)`` rows that serve the three
    applications; a tailored one (IPF, PGM) is fitted once per application on the
    application's columns (App. 1: the full sample; App. 2–3: the train split), with seeds drawn
    in turn. ``real`` uses the train split as its "synthetic" data (its rows are identical
    across replicates). The models of App. 2–3 have ``random_state=0`` (as the reference): the
    replicate's randomness is the generator's. Results do not depend on ``n_jobs``. The real
    models (the reference order of App. 3's features) are fitted once per process and cached;
    their time (about 10 s on random10k, 70 s on first50k) is not in ``seconds``.

    Parameters
    ----------
    params : dict
        A cell of :func:`build_utility_grid` (``generator`` required; the other keys default
        to its defaults).
    rngs : list of numpy.random.Generator

    Returns
    -------
    pandas.DataFrame
        One wide row per replicate: ``app1_rmse_3way``, ``app1_rmse_gender_gap`` (against the
        full sample), ``app2_acc_real``, ``app2_acc_synthetic``, ``app3_acc_real``,
        ``app3_acc_synthetic``, ``app3_order`` (importance order on the synthetic holdout),
        ``app3_jaro`` (its Jaro similarity with ``app3_real_order``), ``app3_order_real_test``,
        ``app3_jaro_real_test`` (importances on the real test split; "" and NaN unless
        ``real_test_importance``), ``app3_real_order``,
        ``n_synthetic`` (rows emitted), ``seed``, ``fit_seconds`` (fitting and sampling),
        ``seconds`` (the whole replicate).

    Raises
    ------
    ValueError
        Unknown generator or dataset.
    """
    name = params["generator"]
    if name not in UTILITY_GENERATORS:
        raise ValueError(
            f"unknown generator {name!r}; expected one of {', '.join(UTILITY_GENERATORS)}"
        )
    dataset = params.get("dataset", "census2011_random10k")
    n_rows = params.get("n_rows")
    n_estimators = int(params.get("n_estimators", 100))
    split = census_split(dataset, n_rows)
    real = _real_reference(dataset, None if n_rows is None else int(n_rows), n_estimators)
    real_order = real["app3"]["order"]
    n_out = len(split.full)
    pgm_iters = list(params.get("pgm_iters") or (1000, 1000, 200))
    opts = {
        "epsilon": float(params.get("epsilon", 1000.0)),
        "delta": float(params.get("delta", 1e-5)),
        "ipf_tol": float(params.get("ipf_tol", 1e-3)),
        "pate_max_iterations": int(params.get("pate_max_iterations", 300)),
    }
    rows = []
    for rng in rngs:
        seed = int(rng.integers(2**31 - 1))
        t0 = time.perf_counter()
        if name == "real":
            synth = {1: split.train, 2: split.train, 3: split.train}
        elif name in TAILORED:
            synth, seeds = {}, np.random.SeedSequence(seed).generate_state(3)
            for app in (1, 2, 3):
                a = application(app)
                gen = make_utility_generator(
                    name, app, int(seeds[app - 1]), pgm_iters=pgm_iters[app - 1], **opts
                )
                data = split.full if app == 1 else split.train
                synth[app] = gen.fit(data[list(a.columns)]).sample(n_out)
        else:
            gen = make_utility_generator(name, None, seed, **opts)
            out = gen.fit(split.train).sample(n_out)
            synth = {1: out, 2: out, 3: out}
        fit_seconds = time.perf_counter() - t0
        m1 = app1_metrics(synth[1], split.full)
        if name == "real":
            m2, m3 = real["app2"], real["app3"]
        else:
            m2 = app2_metrics(synth[2], split.train, split.test, split.sizes)
            m3 = app3_metrics(
                synth[3],
                split.train,
                split.test,
                real_order,
                sizes=split.sizes,
                n_estimators=n_estimators,
                real_test_importance=bool(params.get("real_test_importance")),
            )
        rows.append(
            {
                "app1_rmse_3way": m1["rmse_3way"],
                "app1_rmse_gender_gap": m1["rmse_gender_gap"],
                "app2_acc_real": m2["acc_real"],
                "app2_acc_synthetic": m2["acc_synthetic"],
                "app3_acc_real": m3["acc_real"],
                "app3_acc_synthetic": m3["acc_synthetic"],
                "app3_order": m3["order"],
                "app3_jaro": m3["jaro"],
                "app3_order_real_test": m3["order_real_test"],
                "app3_jaro_real_test": m3["jaro_real_test"],
                "app3_real_order": real_order,
                "n_synthetic": n_out,
                "seed": seed,
                "fit_seconds": fit_seconds,
                "seconds": time.perf_counter() - t0,
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# summaries, tables and findings
# --------------------------------------------------------------------------------------------
def summarize_utility(results: pd.DataFrame) -> pd.DataFrame:
    """One row per generator (in :data:`UTILITY_GENERATORS` order): ``generator``, ``label``,
    ``runs``, the mean of every metric of :func:`utility_cell`, the standard deviation of each
    (``<metric>_sd``, NaN for one run), ``fit_seconds`` and ``seconds`` (means).

    Raises
    ------
    ValueError
        ``results`` lacks the columns of :func:`utility_cell` and ``generator``.
    """
    need = {"generator", *_METRICS, "fit_seconds", "seconds"}
    if not need <= set(results.columns):
        raise ValueError(
            f"results must have the columns {sorted(need)} (from utility_cell), "
            f"got {list(results.columns)}"
        )
    rows = []
    for gen in [g for g in UTILITY_GENERATORS if g in set(results["generator"])]:
        grp = results[results["generator"] == gen]
        row = {"generator": gen, "label": UTILITY_GENERATORS[gen], "runs": len(grp)}
        for m in _METRICS:
            vals = pd.to_numeric(grp[m], errors="coerce")
            row[m] = float(vals.mean())
            row[f"{m}_sd"] = float(vals.std(ddof=1)) if len(vals) > 1 else math.nan
        row["fit_seconds"] = float(grp["fit_seconds"].mean())
        row["seconds"] = float(grp["seconds"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def _paper_vs_run(
    results: pd.DataFrame, paper: dict, metrics: list[tuple[str, str]], paper_rows: bool
) -> pd.DataFrame:
    s = summarize_utility(results).set_index("generator")
    order = [g for g in PAPER_LABELS if g in s.index or (paper_rows and g in paper)]
    cols = pd.MultiIndex.from_tuples(
        [(title, side) for title, _ in metrics for side in ("paper", "this run")]
    )
    data = []
    for g in order:
        row = []
        for i, (_, col) in enumerate(metrics):
            row.append(paper[g][i] if g in paper else math.nan)
            row.append(float(s.loc[g, col]) if g in s.index else math.nan)
        data.append(row)
    return pd.DataFrame(data, index=[PAPER_LABELS[g] for g in order], columns=cols)


def table1(results: pd.DataFrame, *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 1 (Application 1) beside this run: rows = generators (labels; ``real`` = the train
    split against the full sample, which the paper does not show), columns ("3-way marginal
    RMSE" | "Gender gap RMSE", "paper" | "this run"), means over the runs. ``paper_rows``: also
    list the paper's generators that were not run (CTGAN), with NaN for this run."""
    return _paper_vs_run(
        results,
        PAPER_TABLE1,
        [("3-way marginal RMSE", "app1_rmse_3way"), ("Gender gap RMSE", "app1_rmse_gender_gap")],
        paper_rows,
    )


def table2(results: pd.DataFrame, *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 2 (Application 2) beside this run: columns ("Accuracy on real data" | "Accuracy
    estimated on synthetic data", "paper" | "this run"), means over the runs."""
    return _paper_vs_run(
        results,
        PAPER_TABLE2,
        [
            ("Accuracy on real data", "app2_acc_real"),
            ("Accuracy estimated on synthetic data", "app2_acc_synthetic"),
        ],
        paper_rows,
    )


def table3(results: pd.DataFrame, *, paper_rows: bool = True) -> pd.DataFrame:
    """Table 3 (Application 3) beside this run: columns ("Accuracy on real data" | "Accuracy
    estimated on synthetic data" | "Similarity in feature ordering", "paper" | "this run"),
    means over the runs (the Jaro similarity is averaged over runs, as the reference's
    "average similarity"; importances on the synthetic holdout, as the reference code)."""
    return _paper_vs_run(
        results,
        PAPER_TABLE3,
        [
            ("Accuracy on real data", "app3_acc_real"),
            ("Accuracy estimated on synthetic data", "app3_acc_synthetic"),
            ("Similarity in feature ordering", "app3_jaro"),
        ],
        paper_rows,
    )


def _binomial_se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 0.0) / n) if n > 0 else math.nan


def utility_findings(results: pd.DataFrame, n_test: int | None = None) -> pd.DataFrame:
    """The utility findings of :data:`PAPER_UTILITY_FINDINGS` (spec findings 4–8) checked on this
    run: columns ``key``, ``paper``, ``this_run`` (what the run shows) and ``holds`` (True /
    False; None when the run lacks the generators to test it).

    Criteria (means over runs):

    * ``tailored_3way``: the larger of IPF's and PGM's 3-way RMSE is below the smallest of the
      general-purpose generators other than sequential CART (needs IPF or PGM and one of MST,
      PrivBayes, PATE-CTGAN).
    * ``phi_sufficient``: IPF's and PGM's App. 2 accuracy on real data is within
      max(0.01, 2·SE) of the real model's, SE the binomial standard error on the real test split
      (``n_test`` rows; default the run's dataset's test split).
    * ``gan_overconfident``: PATE-CTGAN's estimated accuracy exceeds its accuracy on real data in
      App. 2 and App. 3 (None without PATE-CTGAN).
    * ``two_way_rf``: IPF's and PGM's App. 3 accuracy on real data within max(0.007, 2·SE) of the
      real forest's, and their mean Jaro ≥ 0.98.
    * ``random_order``: the mean Jaro of PATE-CTGAN and PrivBayes (those run) is at most the
      random baseline 9019/12960 plus 2 standard errors of a random order (sd/√runs): "no
      better than random".
    """
    s = summarize_utility(results).set_index("generator")
    if n_test is None:
        n_test = _test_size(results)
    have = set(s.index)
    base = float(expected_jaro_random_permutation(6))
    rows = []

    def val(g, m):
        return float(s.loc[g, m])

    for key, text in PAPER_UTILITY_FINDINGS:
        holds, shown = None, "not run"
        tailored = [g for g in TAILORED if g in have]
        if key == "tailored_3way":
            others = [g for g in ("mst", "privbayes", "patectgan") if g in have]
            if tailored and others:
                worst = max(val(g, "app1_rmse_3way") for g in tailored)
                best = min(val(g, "app1_rmse_3way") for g in others)
                holds = bool(worst < best)
                shown = "; ".join(
                    f"{UTILITY_GENERATORS[g]} {val(g, 'app1_rmse_3way'):.2e}"
                    for g in [*tailored, *others, *(["cart"] if "cart" in have else [])]
                )
        elif key in ("phi_sufficient", "two_way_rf"):
            app = "app2" if key == "phi_sufficient" else "app3"
            if tailored and "real" in have:
                ref = val("real", f"{app}_acc_real")
                se = _binomial_se(ref, n_test)
                tol = max(0.01 if app == "app2" else 0.007, 2 * se)
                gaps = {g: val(g, f"{app}_acc_real") - ref for g in tailored}
                holds = all(abs(d) <= tol for d in gaps.values())
                shown = (
                    f"real {ref:.3f}; "
                    + "; ".join(
                        f"{UTILITY_GENERATORS[g]} {ref + d:.3f} ({d:+.3f})" for g, d in gaps.items()
                    )
                    + f"; tolerance ±{tol:.3f} (2 SE = {2 * se:.3f} on {n_test} test rows)"
                )
                if app == "app3":
                    jaros = {g: val(g, "app3_jaro") for g in tailored}
                    holds = bool(holds and all(j >= 0.98 for j in jaros.values()))
                    shown += "; Jaro " + ", ".join(
                        f"{UTILITY_GENERATORS[g]} {j:.2f}" for g, j in jaros.items()
                    )
                holds = bool(holds)
        elif key == "gan_overconfident":
            if "patectgan" in have:
                g = "patectgan"
                pairs = [
                    (a, val(g, f"{a}_acc_synthetic"), val(g, f"{a}_acc_real"))
                    for a in ("app2", "app3")
                ]
                holds = all(est > real for _, est, real in pairs)
                shown = "; ".join(
                    f"{UTILITY_GENERATORS[g]} App. {a[-1]}: estimated {est:.3f} vs real {real:.3f}"
                    for a, est, real in pairs
                )
            else:
                shown = "PATE-CTGAN not run (CTGAN is not run here)"
        elif key == "random_order":
            gens = [g for g in ("patectgan", "privbayes") if g in have]
            if gens:
                sd = jaro_random_permutation_sd(6)
                checks = []
                for g in gens:
                    lim = base + 2 * sd / math.sqrt(int(s.loc[g, "runs"]))
                    checks.append((g, val(g, "app3_jaro"), lim))
                holds = all(j <= lim for _, j, lim in checks)
                shown = f"random baseline {base:.4f}; " + "; ".join(
                    f"{UTILITY_GENERATORS[g]} {j:.2f} (limit {lim:.2f})" for g, j, lim in checks
                )
        rows.append(
            {
                "key": key,
                "paper": text,
                "this_run": shown,
                "holds": None if holds is None else bool(holds),
            }
        )
    out = pd.DataFrame(rows)
    out["holds"] = pd.Series([r["holds"] for r in rows], dtype=object)  # True/False/None
    return out


def _test_size(results: pd.DataFrame) -> int:
    if {"dataset", "n_rows"} <= set(results.columns) and len(results):
        r = results.iloc[0]
        n_rows = r["n_rows"]
        n_rows = (
            None
            if n_rows is None or (isinstance(n_rows, float) and math.isnan(n_rows))
            else int(n_rows)
        )
        return len(census_split(str(r["dataset"]), n_rows).test)
    if "n_synthetic" in results.columns and len(results):
        return int(math.ceil(int(results["n_synthetic"].iloc[0]) * 0.1))
    return 1000
