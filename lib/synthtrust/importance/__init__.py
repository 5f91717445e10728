"""Feature importance, and how far two importance rankings agree.

Giles et al. (2022), "Faking feature importance: a cautionary tale on the use of differentially
private synthetic data", compare the feature importance of a random forest trained on the real
data with that of one trained on DP synthetic data. This package gives the pieces:

* :func:`feature_importance` — impurity (MDI), permutation and mean-``|SHAP|`` importance of a fitted
  model, as a pandas Series;
* :func:`importance_ranking` — features by decreasing importance;
* :func:`rank_biased_overlap` — the RBO family of Webber, Moffat & Zobel (2010): lower bound,
  extrapolated point estimate, upper bound, residual, for rankings of any (uneven) lengths;
  :func:`average_overlap` and :func:`top_weightness` (their Eq. 21);
* :func:`association_matrix` and :func:`correlated_rank_similarity` — the "correlated rank
  similarity" of the QUIPP pipeline used by Giles et al.: an RBO whose overlap at depth d counts
  two different features as partly the same when they are associated in the real data;
* :func:`compare_importances` — L2 distance, cosine similarity and KL divergence of two importance
  vectors;
* :func:`random_permutation_rbo`, :func:`random_permutation_cosine` and
  :func:`expected_rbo_random_permutation` — the "random feature permutation" baseline of Giles et
  al. (2022, App. A): a uniformly random reordering of the real ranking compared with the real one.

Sources: Giles et al. (2022) [``giles2022``]; Webber, Moffat & Zobel (2010) [``webber2010``];
SHAP values of trees: Lundberg et al. (2020) [``lundberg2020``].

Notation (Webber et al. 2010, §4): S, T rankings without duplicates, S_{:d} the first d items,
X_d = ``|S_{:d} ∩ T_{:d}|`` the overlap at depth d, A_d = X_d / d the agreement, 0 < p < 1 the
persistence: RBO = (1 − p) Σ_{d≥1} p^{d−1} A_d (Eq. 7). Rankings here are finite prefixes of
possibly longer (conceptually infinite) rankings; the bounds say how large the full RBO can be.
"""

from __future__ import annotations

from synthtrust.importance.baselines import (
    expected_rbo_random_permutation,
    random_permutation_cosine,
    random_permutation_rbo,
)
from synthtrust.importance.correlated import association_matrix, correlated_rank_similarity
from synthtrust.importance.rbo import (
    RBOResult,
    average_overlap,
    rank_biased_overlap,
    top_weightness,
)
from synthtrust.importance.scores import compare_importances, feature_importance, importance_ranking

__all__ = [
    "RBOResult",
    "association_matrix",
    "average_overlap",
    "compare_importances",
    "correlated_rank_similarity",
    "expected_rbo_random_permutation",
    "feature_importance",
    "importance_ranking",
    "random_permutation_cosine",
    "random_permutation_rbo",
    "rank_biased_overlap",
    "top_weightness",
]
