"""Sequential CART synthesis, after synthpop's ``syn.cart`` (Nowok, Raab & Dibben 2016
[``nowok2016``]): the non-decomposable "SynthPop" generator audited by Houssiau et al. (2022)
[``houssiau2022``], §4.4.

Not differentially private: every synthetic value is a value of the training data
(``ledger_ is None``).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from .._validation import (
    check_is_fitted,
    check_positive_int,
    check_random_state,
    check_random_state_param,
)
from ._code_tables import CodeTableGenerator
from .base import check_domain_param, not_dp_card

__all__ = ["SequentialCART"]

_NOT_DP = (
    "not DP: every synthetic value is drawn from the training values in a leaf of a tree fitted "
    "to the training data; no privacy guarantee and no privacy budget"
)


class SequentialCART(CodeTableGenerator):
    """synthpop-like sequential CART synthesizer (``syn(method = c("sample", "cart", ...))``).

    Columns are synthesised in the order of the training table's columns (synthpop's default
    visit sequence):

    1. the first column: ``n`` values drawn uniformly with replacement from its training values
       (synthpop's ``"sample"``: its empirical marginal);
    2. each next column j: a ``sklearn.tree.DecisionTreeClassifier(min_samples_leaf=...)`` is
       fitted at :meth:`fit` to predict column j from columns 0..j−1 of the training data; at
       :meth:`sample` every synthetic row goes down that tree with its synthetic columns
       0..j−1, and its value of column j is a training value of column j drawn uniformly from
       the training rows that fell in the same leaf (synthpop's ``syn.cart``: ``rpart`` leaves,
       values "sampled from the leaf"). Drawing is vectorised by leaf (rows grouped by leaf,
       one uniform index into the leaf's pool each).

    Differences from synthpop (R): ``rpart`` splits a factor by *subsets of its categories*,
    sklearn's trees split the integer codes by *thresholds* (codes are treated as ordered), so
    the trees differ and an unordered factor may need more splits; synthpop's defaults are
    ``minbucket = 5`` (here ``min_samples_leaf``) and ``cp = 1e-8`` (no pruning to speak of; here
    the trees grow until the leaf size stops them, sklearn's Gini criterion as rpart's default
    for factors). No smoothing (synthpop smooths numeric columns only). The audit of the paper
    used synthpop's defaults on integer-coded categorical columns.

    Parameters
    ----------
    min_samples_leaf : int ≥ 1
        Smallest number of training rows in a leaf (synthpop's ``minbucket``, default 5).
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        A Domain encodes raw tables in :meth:`fit` and decodes :meth:`sample`; a dict checks
        the codes; None uses the integer codes as they are.
    random_state : None, int, SeedSequence or numpy Generator
        Seeds the generator created at :meth:`fit`: the trees' ``random_state`` (one int per
        column, drawn from it) and every draw of :meth:`sample`.

    Fitted attributes
    -----------------
    ``columns_``, ``domain_`` ({column: levels}), ``n_records_``, ``trees_`` (list: None for the
    first column, then the fitted ``DecisionTreeClassifier`` of each next column),
    ``n_leaves_`` (list of leaf counts, 1 for the first column). ``ledger_ is None`` (not DP).

    Raises
    ------
    TypeError, ValueError
        ``min_samples_leaf`` not an integer ≥ 1; a bad ``domain`` or ``random_state``; at
        :meth:`fit`, the input errors of
        :func:`~synthtrust.synthesizers.base.frame_to_codes` (not a DataFrame, no rows, NaN,
        non-integer codes, codes outside the domain) or of ``Domain.encode``.
    """

    _description = (
        "sequential CART (synthpop syn.cart): first column from its empirical marginal, "
        "each next column drawn from the training values in the leaf of a "
        "classification tree on the previous columns"
    )

    _parameter_constraints = {
        "min_samples_leaf": check_positive_int,
        "domain": check_domain_param,
        "random_state": check_random_state_param,
    }

    def __init__(self, *, min_samples_leaf: int = 5, domain=None, random_state=None):
        self.min_samples_leaf = min_samples_leaf
        self.domain = domain
        self.random_state = random_state

    # -- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y=None):
        """Fit one tree per column after the first; returns ``self``.

        Parameters
        ----------
        X : pandas.DataFrame, shape (n_records, n_columns)
            Integer codes (raw values when ``domain`` is a Domain).
        y : ignored

        Raises
        ------
        TypeError, ValueError
            See the class docstring.
        """
        from sklearn.tree import DecisionTreeClassifier

        self._validate_params()
        columns, domain, codes = self._codes(X)
        data = np.column_stack(codes)
        rng = check_random_state(self.random_state)
        self._rng = rng
        self.columns_ = list(columns)
        self.domain_ = dict(domain)
        self.n_records_ = int(data.shape[0])
        self._data = data
        trees, pools, n_leaves = [None], [None], [1]
        for j in range(1, data.shape[1]):
            tree = DecisionTreeClassifier(
                min_samples_leaf=int(self.min_samples_leaf),
                random_state=int(rng.integers(2**31 - 1)),
            )
            tree.fit(data[:, :j], data[:, j])
            leaf = tree.apply(data[:, :j])
            order = np.argsort(leaf, kind="stable")
            leaves, starts, counts = np.unique(leaf[order], return_index=True, return_counts=True)
            # pool of leaf L: data[order[start[L] : start[L] + count[L]], j]
            start = np.full(tree.tree_.node_count, -1, dtype=np.int64)
            count = np.zeros(tree.tree_.node_count, dtype=np.int64)
            start[leaves] = starts
            count[leaves] = counts
            trees.append(tree)
            pools.append((data[order, j], start, count))
            n_leaves.append(int(leaves.size))
        self.trees_ = trees
        self.n_leaves_ = n_leaves
        self._pools = pools
        self._fitted = True
        return self

    def _sample_matrix(self, n: int, rng: np.random.Generator) -> np.ndarray:
        data = self._data
        out = np.empty((n, data.shape[1]), dtype=np.int64)
        out[:, 0] = data[rng.integers(0, data.shape[0], size=n), 0]
        for j in range(1, data.shape[1]):
            values, start, count = self._pools[j]
            leaf = self.trees_[j].apply(out[:, :j])
            pick = start[leaf] + np.floor(rng.random(n) * count[leaf]).astype(np.int64)
            out[:, j] = values[np.minimum(pick, start[leaf] + count[leaf] - 1)]
        return out

    def leaves(self, j: int, X) -> np.ndarray:
        """Leaf (node id of ``trees_[j]``) of each row of ``X`` for column ``j`` ≥ 1: ``X`` is a
        DataFrame of codes with the fitted columns (or an array (rows, ≥ j)); int64 (rows,)."""
        check_is_fitted(self)
        if (
            isinstance(j, bool)
            or not isinstance(j, numbers.Integral)
            or not 1 <= j < len(self.columns_)
        ):
            raise ValueError(
                f"j must be an integer in 1..{len(self.columns_) - 1} "
                f"(a column with a tree), got {j!r}"
            )
        arr = X[self.columns_].to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
        return self.trees_[j].apply(np.asarray(arr[:, :j], dtype=np.int64)).astype(np.int64)

    # -- documentation ----------------------------------------------------------------------------
    def card(self) -> dict:
        """A small generator card: name, description, parameters and the privacy status."""
        return not_dp_card(
            self,
            _NOT_DP,
            {"min_samples_leaf": self.min_samples_leaf},
            lambda: {
                "domain": self.domain_,
                "n_records": self.n_records_,
                "columns": list(self.columns_),
                "n_leaves": list(self.n_leaves_),
            },
        )
