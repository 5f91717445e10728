"""Holdout-based fidelity (k-way TVD) and privacy (DCR share) of mixed-type synthetic data.

Platzer & Reutterer (2021), "Holdout-based fidelity and privacy assessment of mixed-type
synthetic data" [``platzer2021``], Sec. 2, computed as the paper's public code does
(``mostly-ai/paper-fidelity-accuracy`` @ c31860c [``mostlyai2024``]: ``fidelity.ipynb``,
``privacy.ipynb``), with the fixes listed under "Deviations" below.

A table is split at random into a training half T, given to a synthesizer, and a holdout half H,
never shown to it. The synthetic table S is scored against T, and H is scored against T the same
way: H is what an independent sample of the same population scores, the target.

Fidelity ``F^k(T, S)`` (Sec. 2.1, Figure 7)
    Every column is discretized with statistics of T alone (:func:`discretize`), with at most
    c = 100 / 10 / 5 categories for k = 1 / 2 / 3; for each of the C(d, k) combinations of k
    columns the total variation distance ½ Σ ``|p − q|`` between the k-way relative frequencies of T
    and S is computed (:func:`tvd`), and ``F^k`` is the mean over the combinations.

Privacy: distance to closest record (Sec. 2.2, Figure 8)
    Every column is discretized once more (numeric: 100 quantile bins of the **pooled**
    T + H + S values), every synthetic record gets its Hamming distance (number of differing
    attributes) to the nearest record of T and to the nearest record of H, and the share of
    synthetic records closer to T than to H is reported, ties counted with weight
    n_T / (n_T + n_H) (:func:`dcr`). For an ideal synthesizer the share is ≈ 50 % with equal
    halves; a synthesizer that copies training records scores ≫ 50 %.

:func:`holdout_report` computes both for S and for H and returns a :class:`HoldoutReport`
(``to_dict``, ``to_json``, ``summary``; the HTML page: :func:`synthtrust.presentation.report.render_holdout_html`).

Reproduction
------------
With the paper's splits (``data/paper-fidelity-accuracy/splits``) and the holdout scored as
synthetic, :func:`holdout_report` gives the reference code's published holdout rows exactly
(``privacy_c100.csv``: n_closer / n_further / n_equal, share, mean DCRs; ``tradeoff.csv``: F3)
for adult, bank-marketing and credit-default, and for online-shoppers once its two boolean
columns are cast to int (see "Deviations"); adult: F1 1.0 %, F2 1.6 %, F3 2.1 %, share 50.0 %,
mean DCR 2.27 / 2.27 as in Figures 7 and 8 (``tests/fidelity/test_holdout.py``).

Deviations from the reference code (its traps, fixed here)
----------------------------------------------------------
* k-way cells are tuples of categories, not labels concatenated without a separator (which
  collide: ``"1" + "11" == "11" + "1"``).
* Missing values are the explicit category :data:`MISSING` in every column (the reference turns
  NaN into the string ``"nan"`` in numeric columns and fails on NaN in text columns).
* Ties in the top-c categories are broken by ``str(value)`` (reference: first appearance), so
  the result does not depend on the row order.
* Boolean columns are categorical. The reference treats them as numeric: its quantile bins of
  0/1 values merge False and True into one bin, so the column drops out of the DCR (and the TVD
  code fails on bool with current pandas). To reproduce its numbers, cast bool columns to int.
* A constant numeric column is one bin (reference: every value becomes "nan").
* Quantiles are ``numpy.quantile`` (linear), i.e. pandas ≥ 3's ``Series.quantile`` and
  ``pd.qcut`` (which rounds inexact probabilities i / c up); the reference ran an older pandas.
  The four datasets' published numbers are reproduced exactly either way (integer data).
* Combinations are enumerated in the training table's column order (reference: names sorted);
  the mean is the same. Values outside the training range are :data:`OTHER`, as in the
  reference.

Speed
-----
The nearest-neighbour search is exact and brute force but bit-sliced: for every column and
every category the set of target records holding that category is a bitset (one bit per
record, 64 records per machine word); a synthetic record's per-target match counts are the sum
of d such bitsets, added with carry-save adders on the bit planes, and the maximum count (the
minimum distance) is read off the planes from the top. Columns with few values are grouped and
their match counts tabulated once per combination; identical synthetic records are searched
once. 64 record pairs cost a few word operations. On adult (24 421 × 24 421 × 24 421, 15
columns) DCR and share take ≈ 0.3 s on 2 cores, ≈ 27× faster than one-hot encoding +
scikit-learn's brute-force 1-NN (``benchmarks/bench_fidelity.py``). Results do not depend on
``n_jobs``.
"""

from __future__ import annotations

from ._tables import MISSING, OTHER, TVD_BINS, check_tables
from .binning import discretize
from .closest import DCRResult, dcr
from .holdout import HoldoutReport, holdout_report
from .kway import tvd

__all__ = [
    "DCRResult",
    "HoldoutReport",
    "MISSING",
    "OTHER",
    "TVD_BINS",
    "check_tables",
    "dcr",
    "discretize",
    "holdout_report",
    "tvd",
]
