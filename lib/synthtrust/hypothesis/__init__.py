"""Vectorized two-sample hypothesis tests (SciPy-exact) and the DP Mann–Whitney U test.

Spec: Montoya Perez et al. 2024 ("Does differentially private synthetic data lead to synthetic
discoveries?") [``montoyaperez2024``], §3.4 and §4: SciPy defaults, two-sided tests —
``mannwhitneyu``, ``ttest_ind``, ``median_test``, ``chi2_contingency`` — and, as the reference
point, the DP Mann–Whitney U test of Couch, Kazan, Shi, Bray, Groce (CCS 2019) [``couch2019``]
with 65 % of ε (and all of δ = 1e-6) spent on the smaller group size. No code of the authors was
found; the DP test is reconstructed from the paper, the same lab's DP-ANOVA helper
(``campbza/anova``, ``ptr.py`` in its history) and a third-party C++ port
(``jrachels/Differentially-Private-Nonparametric-Hypothesis-Testing`` @ 62c9be2).

Three layers
------------
1. **Raw samples** with a leading replicate axis: ``x`` of shape ``(..., n_x)``, ``y`` of shape
   ``(..., n_y)`` (leading shapes broadcast; 1-D input = one replicate, returns scalars).
   :func:`mannwhitneyu`, :func:`ttest_ind`, :func:`median_test`, :func:`chi2_contingency`
   (tables ``(..., r, c)``) and :func:`chi2_two_groups` (categorical values).
2. **Per-bin counts** (the chapter's data are group × bin tables): ``cx``, ``cy`` of shape
   ``(..., n_bins)`` with nonnegative integer counts per *ordered* bin, ``values`` of shape
   ``(n_bins,)`` the value of every bin (bin centres).  :func:`mannwhitneyu_counts`,
   :func:`ttest_ind_counts`, :func:`median_test_counts`, :func:`chi2_counts`.  Each equals SciPy
   applied to ``np.repeat(values, counts)`` of every replicate, in O(n_bins) per replicate,
   vectorized with NumPy (no Python loop over replicates).
3. **DP Mann–Whitney U**: :func:`dp_mannwhitneyu` (raw) and :func:`dp_mannwhitneyu_counts`,
   vectorized over replicates, with an exact vectorized sampler of the null U
   (:func:`simulate_null_u`).

Agreement with SciPy (1.17) and documented deviations
-----------------------------------------------------
* Every replicate gives what the SciPy function returns for *that replicate alone* (1-D call),
  to 1e-10 absolute and relative.  ``mannwhitneyu``'s ``method='auto'`` choice (exact null
  distribution when ``min(n_x, n_y) <= 8`` and there are no ties, else tie-corrected normal
  approximation with continuity correction) is therefore made **per replicate**; SciPy itself,
  given an N-D array, would make one choice for the whole array (exact only if *no* replicate
  has ties).  The exact path is implemented here (exact integer q-binomial coefficients), not
  delegated to SciPy.
* Where SciPy *raises* for a degenerate replicate, the replicate gets ``nan`` here:
  ``median_test`` when every value is <= the grand median ("All values are below the grand
  median"), ``chi2_contingency`` when a row or column of the table sums to zero.
  Where SciPy returns ``nan``/``inf`` we return the same: ``ttest_ind`` of two constant groups
  with equal values → ``nan``; with different values → ``±inf``, p = 0; ``n_x = n_y = 1`` →
  ``nan``; ``mannwhitneyu`` with all values equal → U = n_x n_y / 2, p = 1.
* Counts path, replicates with an empty group: statistic and p-value ``nan`` (SciPy would raise
  or warn).  The counts path computes means and variances from bin sums; for a group whose
  values all fall in one bin it uses the exact mean and zero variance.  SciPy's ``ttest_ind``
  on a constant non-dyadic sample such as ``[0.1] * 3`` sees rounding noise in the variance
  (e.g. ``ttest_ind([0.1]*3, [0.1]*5)`` gives t = 1.94, p = 0.10 instead of nan); the counts
  path returns the exact-arithmetic answer (nan, or ±inf with p = 0) in that case.
* :func:`chi2_counts` / :func:`chi2_two_groups` build the 2 × k table of the categories that
  occur in the replicate (what ``pandas.crosstab`` or ``np.unique`` give), so categories absent
  from a replicate are dropped, dof = k_present − 1 (Yates' correction when dof = 1, as SciPy),
  and a replicate with a single category gets SciPy's dof = 0 answer (statistic 0, p = 1).
* The paper used SciPy 1.6.3, whose ``mannwhitneyu`` default was not two-sided; it reports
  two-sided tests, so we implement SciPy's current defaults with an explicit two-sided
  alternative.

Modules
-------
One concept each, all re-exported here: ``mannwhitney``, ``ttest``, ``median`` and ``chi2``
(the SciPy-equal tests), ``null_u`` (samplers of the null U), ``dp_mannwhitney`` (the DP test),
``results`` (result objects) and ``_inputs`` (input validation).
"""

from __future__ import annotations

from .chi2 import chi2_contingency, chi2_counts, chi2_two_groups
from .dp_mannwhitney import dp_mannwhitneyu, dp_mannwhitneyu_counts
from .mannwhitney import mannwhitneyu, mannwhitneyu_counts, mwu_exact_cdf
from .median import median_test, median_test_counts
from .null_u import NULL_EXACT_MAX_N as NULL_EXACT_MAX_N
from .null_u import simulate_null_u
from .null_u import warm_up as warm_up
from .results import (
    Chi2Result,
    DPMannWhitneyUResult,
    MannWhitneyUResult,
    MedianTestResult,
    TTestResult,
)
from .ttest import ttest_ind, ttest_ind_counts

__all__ = [
    "Chi2Result",
    "DPMannWhitneyUResult",
    "MannWhitneyUResult",
    "MedianTestResult",
    "TTestResult",
    "chi2_contingency",
    "chi2_counts",
    "chi2_two_groups",
    "dp_mannwhitneyu",
    "dp_mannwhitneyu_counts",
    "mannwhitneyu",
    "mannwhitneyu_counts",
    "median_test",
    "median_test_counts",
    "mwu_exact_cdf",
    "simulate_null_u",
    "ttest_ind",
    "ttest_ind_counts",
]
