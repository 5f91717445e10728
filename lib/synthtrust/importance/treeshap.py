"""Exact path-dependent TreeSHAP in O(nodes × depth) per row: Owen's integral, Gauss–Legendre.

:func:`tree_shap_values` gives the same values as ``shap.TreeExplainer(model).shap_values(X)``
(``feature_perturbation="tree_path_dependent"``, ``model_output="raw"``) for the scikit-learn
trees and forests of :func:`fast_path_applies`, from the trees ``shap`` parses (so leaf values,
covers, the float32 cast of ``X`` and the missing-value branch are shap's). It is the algorithm
of :func:`synthtrust.importance.feature_importance` ``(method="shap")``; no library fits (see
below).

The game (Lundberg et al. 2020 [``lundberg2020``], Alg. 1): a row x, a leaf v with value
``w_v``, the distinct features j on v's path; for feature j, ``r_j`` is the product over its
edges on the path of ``cover(child) / cover(parent)`` and ``o_j`` ∈ {0, 1} says whether x
satisfies all of them. The expected output given the features in S is
``Σ_v w_v Π_{j∈S} o_j Π_{j∉S} r_j``, multilinear in the indicators of S, so the Shapley value
is the integral of the partial derivative of its multilinear extension along the diagonal
(Owen 1972 [``owen1972``]):

    φ_i(x) = Σ_{v: i on v's path} w_v (o_i − r_i) ∫_0^1 Π_{j≠i} ((1 − t) r_j + t o_j) dt.

The integrand is a polynomial of degree ≤ D − 1 (D: the most distinct features on a path of
the tree), so m = ⌈D / 2⌉ Gauss–Legendre nodes integrate it exactly. With ``F_j(t) = (1 − t) r_j
+ t o_j`` and ``Q_v(t) = Π_j F_j(t)`` (at the m nodes), one pass down the tree builds the
prefix products Q, one pass up sums ``H_c = Σ_{v below c} w_v Q_v``, and edge c (feature i)
adds ``(o_i − r_i) Σ_k ω_k H_c(t_k) / F_i(t_k)`` to φ_i: O(nodes × m) per row instead of
TreeSHAP's O(leaves × depth²). A feature split again below c takes the leaves under its next
split out of ``H_c`` (their r and o for the feature differ); its factor ``F`` in Q is replaced
(``r`` and ``o`` are products along the path). This is the idea of Linear TreeSHAP (Yu et al.
2022 [``yu2022``]), which evaluates the same polynomials at Chebyshev points with
a different weighting; the quadrature and the bookkeeping here are our own.

Speed: the per-node factors ``F_c / F_prev`` and ``ω_k (1 − r_c) / F_c`` depend on the tree only
(``o`` is 0 or 1), so they are tabulated once per tree; rows are processed in blocks of
:data:`BLOCK`, innermost, so each table entry is read once per block (numba-compiled, one
thread). For a probability forest (every leaf's values sum to one constant) the first class is
``−Σ`` of the others (the φ of a constant game is 0), which halves the work of a binary forest.

Libraries checked (2026-11) before writing this: ``fasttreeshap`` 0.1.6 and its numpy-2 fork
``fasttreeshap-fixed`` (Yang 2021: v2 stores O(2^D) values per leaf, not feasible for fully grown
trees with D ≈ 20–25 distinct features on a path; v1 is about 1.5× shap by the paper),
``woodelf-explainer`` 0.4.8 (decision patterns, O(2^D) space per leaf), xgboost's
``pred_contribs`` (the same O(leaves × depth²) TreeSHAP as shap) and ``treeshap`` 0.1.2 (exact
TreeSHAP for XGBoost, LightGBM and ONNX models; a source distribution needing Rust).

Agreement with ``shap``: within 1e-9 absolute on every φ (about 1e-13 measured on the Adult
forest; ``tests/test_treeshap.py``, ``benchmarks/bench_treeshap.py``).

References: Lundberg et al. (2020) [``lundberg2020``]; Owen (1972) [``owen1972``]; Yu et al.
(2022) [``yu2022``].
"""

from __future__ import annotations

from functools import cache

import numba
import numpy as np

__all__ = ["BLOCK", "distinct_rows", "fast_path_applies", "tree_shap_values"]

#: Rows processed together (innermost loop): on the Adult forest 16 and 32 were 1.5× and 1.2× slower
#: than 64, 128 no faster; with 64 the per-block arrays of an Adult tree take about 1.5 MB.
BLOCK = 64

#: scikit-learn models whose trees ``shap`` parses with numerical ``x <= threshold`` splits.
_SKLEARN_MODELS = (
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
)


def fast_path_applies(explainer, model) -> bool:
    """Whether :func:`tree_shap_values` computes ``explainer.shap_values``.

    Parameters
    ----------
    explainer : shap.TreeExplainer
        Built on ``model``.
    model : fitted estimator

    Returns
    -------
    bool
        True for the scikit-learn trees and forests of ``_SKLEARN_MODELS`` explained with the
        tree-path-dependent perturbation on the raw output (shap's defaults without data);
        False otherwise (the caller uses ``shap``).
    """
    ens = explainer.model
    types = getattr(ens, "threshold_types", None)
    return (
        type(model).__module__.startswith("sklearn.")
        and type(model).__name__ in _SKLEARN_MODELS
        and explainer.feature_perturbation == "tree_path_dependent"
        and ens.model_output == "raw"
        and ens.tree_limit is None
        and (types is None or not np.any(types))
        and bool(np.all(ens.node_sample_weight[ens.children_left >= 0] > 0))
    )


@cache
def _gauss_legendre(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of the m-point Gauss–Legendre rule on [0, 1]."""
    x, w = np.polynomial.legendre.leggauss(m)
    return (x + 1.0) / 2.0, w / 2.0


def tree_shap_values(ensemble, X) -> np.ndarray:
    """Path-dependent SHAP values of every row of ``X``.

    Rows that are equal after the cast to ``ensemble.input_dtype`` (bit for bit) have the same
    φ, which is computed once (:func:`distinct_rows`): the kernel treats every row on its own,
    with the same operations, so the values are those of the row-by-row computation to the last
    bit (``tests/importance/test_treeshap.py``). Synthetic tables with few distinct rows (the
    artificial datasets of chapter 4: about 7 % of them distinct) cost that much less.

    Parameters
    ----------
    ensemble : shap.explainers._tree.TreeEnsemble
        ``shap.TreeExplainer(model).model`` for a model accepted by :func:`fast_path_applies`.
    X : DataFrame or array (n_rows, n_features)
        Cast to ``ensemble.input_dtype`` (float32 for scikit-learn) as shap does; NaN takes the
        default child.

    Returns
    -------
    ndarray (n_rows, n_features, n_outputs)
        φ of each row, feature and output (class), in the units of the model's output.
    """
    rows = np.ascontiguousarray(np.asarray(X).astype(ensemble.input_dtype))
    first, inverse = distinct_rows(rows)
    if len(first) == len(rows):
        return _every_row(ensemble, rows)
    return _every_row(ensemble, rows[first])[inverse]


def distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-d array, bit for bit (``-0.0`` and ``0.0`` differ, NaNs with
    the same bits are equal).

    Parameters
    ----------
    rows : ndarray (n_rows, n_columns)

    Returns
    -------
    first : ndarray of int (n_distinct,)
        The first index of each distinct row, ascending.
    inverse : ndarray of int (n_rows,)
        ``rows[first][inverse]`` equals ``rows``.
    """
    rows = np.ascontiguousarray(rows)
    n = rows.shape[0]
    if n == 0 or rows.shape[1] == 0:  # no rows, or rows without columns (all equal)
        return np.arange(min(n, 1)), np.zeros(n, dtype=np.intp)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # distinct rows in order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]


def _every_row(ensemble, rows: np.ndarray) -> np.ndarray:
    """:func:`tree_shap_values` of every row of ``rows`` (already cast), one by one."""
    XT = np.ascontiguousarray(rows.T, dtype=np.float64)
    values = np.asarray(ensemble.values, dtype=np.float64)
    derived = _constant_leaf_sums(ensemble)
    if derived:
        values = values[:, :, 1:]
    out = np.zeros((XT.shape[1], XT.shape[0], values.shape[2]))
    for tree in range(values.shape[0]):
        structure = _preorder(
            ensemble.children_left[tree],
            ensemble.children_right[tree],
            ensemble.children_default[tree],
            ensemble.features[tree],
            ensemble.thresholds[tree],
            ensemble.node_sample_weight[tree],
            np.ascontiguousarray(values[tree]),
        )
        deepest = structure[-1]
        if deepest == 0:  # a single leaf: every φ is 0
            continue
        t, w = _gauss_legendre(max(1, (int(deepest) + 1) // 2))
        _accumulate(XT, *structure[:-1], t, w, out)
    if derived:
        out = np.concatenate([-out.sum(axis=2, keepdims=True), out], axis=2)
    return out


def _constant_leaf_sums(ensemble) -> bool:
    """Whether every tree has several outputs whose sum is the same on all its leaves (a
    probability forest): then φ of the first output is −Σ of the others."""
    values = np.asarray(ensemble.values)
    if values.shape[2] < 2:
        return False
    leaves = (ensemble.children_left < 0) & (ensemble.node_sample_weight > 0)
    sums = np.where(leaves, values.sum(axis=2), np.nan)
    spread = np.nanmax(sums, axis=1) - np.nanmin(sums, axis=1)
    return bool(np.all(spread <= 1e-12 * np.nanmax(np.abs(sums), axis=1)))


@numba.njit(cache=False)
def _preorder(left, right, default, feature, threshold, cover, value):  # pragma: no cover
    """The reachable nodes relabelled in preorder, with per edge (into node i): its depth, the
    parent's feature and threshold, whether i is the left or the default child, the cover ratio
    r, the nearest ancestor edge on the same feature (``prev``, −1 if none) and r̃ (the product
    of r over the same-feature edges down to i); and D, the most distinct features on a path."""
    n_nodes = left.shape[0]
    order = np.empty(n_nodes, np.int64)
    pos_of = np.full(n_nodes, -1, np.int64)
    stack = np.empty(n_nodes, np.int64)
    top, n = 0, 0
    stack[0] = 0
    while top >= 0:
        node = stack[top]
        top -= 1
        pos_of[node] = n
        order[n] = node
        n += 1
        if left[node] >= 0:
            stack[top + 1] = right[node]
            stack[top + 2] = left[node]
            top += 2
    depth = np.zeros(n, np.int64)
    prev = np.full(n, -1, np.int64)
    feat = np.zeros(n, np.int64)
    thr = np.zeros(n)
    is_left = np.zeros(n, np.bool_)
    is_default = np.zeros(n, np.bool_)
    leaf = np.zeros(n, np.bool_)
    ratio = np.ones(n)
    rtil = np.ones(n)
    distinct = np.zeros(n, np.int64)
    val = np.empty((n, value.shape[1]))
    path = np.empty(n, np.int64)
    deepest = 0
    for i in range(n):
        node = order[i]
        val[i] = value[node]
        d = depth[i]
        path[d] = i
        if i > 0:
            for k in range(d - 1, 0, -1):
                if feat[path[k]] == feat[i]:
                    prev[i] = path[k]
                    break
            if prev[i] >= 0:
                rtil[i] = ratio[i] * rtil[prev[i]]
            else:
                rtil[i] = ratio[i]
                distinct[i] += 1
            deepest = max(deepest, distinct[i])
        leaf[i] = left[node] < 0
        if not leaf[i]:
            for child in (left[node], right[node]):
                c = pos_of[child]
                depth[c] = depth[i] + 1
                feat[c] = feature[node]
                thr[c] = threshold[node]
                is_left[c] = child == left[node]
                is_default[c] = child == default[node]
                ratio[c] = cover[child] / cover[node]
                distinct[c] = distinct[i]
    return depth, prev, feat, thr, is_left, is_default, leaf, ratio, rtil, val, deepest


@numba.njit(cache=False)
def _accumulate(
    XT, depth, prev, feat, thr, is_left, is_default, leaf, ratio, rtil, val, t, w, out
):  # pragma: no cover
    """Add one tree's φ of every row (columns of ``XT``) into ``out`` (rows, features, outputs).

    Per row: Q[d] the prefix product at the open node of depth d, H[d] the Σ w_v Q_v of its
    leaves so far, S[d] the part of H[d] under the next split on the same feature; ``hot`` says
    whether the row satisfies every same-feature edge down to the node (o = 1)."""
    n, n_out, m = depth.shape[0], val.shape[1], t.shape[0]
    # tables of the tree: Q[d] = Q[d-1] * mul1 (o = 1) or mul0 (o = 0) while the feature's
    # earlier edges are satisfied, else * r; edge i adds Σ_k coef_k (H - S)[k] to φ
    mul1, mul0, coef1 = np.ones((n, m)), np.ones((n, m)), np.zeros((n, m))
    coef0 = -w / (1.0 - t)
    for i in range(1, n):
        a = prev[i]
        for k in range(m):
            f1 = (1.0 - t[k]) * rtil[i] + t[k]
            f_prev = (1.0 - t[k]) * rtil[a] + t[k] if a >= 0 else 1.0
            mul1[i, k] = f1 / f_prev
            mul0[i, k] = (1.0 - t[k]) * rtil[i] / f_prev
            coef1[i, k] = w[k] * (1.0 - rtil[i]) / f1
    levels = depth.max() + 1
    B = BLOCK
    Q = np.empty((levels, m, B))
    H = np.empty((levels, n_out, m, B))
    S = np.empty((levels, n_out, m, B))
    hot = np.ones((n, B), np.bool_)
    o = np.empty(B, np.bool_)
    s = np.empty(B)
    stack = np.empty(levels, np.int64)
    n_rows = XT.shape[1]
    for b0 in range(0, n_rows, B):
        nb = min(B, n_rows - b0)
        Q[0] = 1.0
        H[0] = 0.0
        S[0] = 0.0
        top = 0
        stack[0] = 0
        for i in range(1, n):
            d = depth[i]
            while top >= d:  # the open nodes at depth >= d are complete: their edges add to φ
                _close(stack[top], top, hot, H, S, coef1, coef0, prev, depth, feat, out, b0, nb, s)
                top -= 1
            f, a, ri = feat[i], prev[i], ratio[i]
            th, goes_left, goes_default = thr[i], is_left[i], is_default[i]
            for r in range(nb):
                xv = XT[f, b0 + r]
                o[r] = goes_default if xv != xv else (xv <= th) == goes_left
            if a >= 0:
                for r in range(nb):
                    hot[i, r] = o[r] and hot[a, r]
            else:
                for r in range(nb):
                    hot[i, r] = o[r]
            for k in range(m):
                m1, m0 = mul1[i, k], mul0[i, k]
                if a >= 0:
                    for r in range(nb):
                        factor = (m1 if o[r] else m0) if hot[a, r] else ri
                        Q[d, k, r] = Q[d - 1, k, r] * factor
                else:
                    for r in range(nb):
                        Q[d, k, r] = Q[d - 1, k, r] * (m1 if o[r] else m0)
            if not leaf[i]:
                top += 1
                stack[top] = i
                H[d] = 0.0
                S[d] = 0.0
                continue
            # a leaf: H_i = w_i Q_i, added to φ, its parent's H and its prev's S
            for r in range(nb):
                s[r] = 0.0
            for k in range(m):
                c1, c0 = coef1[i, k], coef0[k]
                for r in range(nb):
                    s[r] += (c1 if hot[i, r] else c0) * Q[d, k, r]
            for j in range(n_out):
                v = val[i, j]
                for r in range(nb):
                    out[b0 + r, f, j] += s[r] * v
                for k in range(m):
                    for r in range(nb):
                        H[d - 1, j, k, r] += Q[d, k, r] * v
                if a >= 0:
                    da = depth[a]
                    for k in range(m):
                        for r in range(nb):
                            S[da, j, k, r] += Q[d, k, r] * v
        while top >= 1:
            _close(stack[top], top, hot, H, S, coef1, coef0, prev, depth, feat, out, b0, nb, s)
            top -= 1


@numba.njit(cache=False, inline="always")
def _close(i, d, hot, H, S, coef1, coef0, prev, depth, feat, out, b0, nb, s):  # pragma: no cover
    """Edge into the internal node i (open at depth d): add Σ_k coef_k (H - S)[d, k] to φ, H[d]
    to the parent's H and, below an earlier split on the same feature, to that split's S."""
    f, a, m = feat[i], prev[i], coef0.shape[0]
    da = depth[a] if a >= 0 else 0
    for j in range(H.shape[1]):
        for r in range(nb):
            s[r] = 0.0
        for k in range(m):
            c1, c0 = coef1[i, k], coef0[k]
            for r in range(nb):
                h = H[d, j, k, r]
                s[r] += (c1 if hot[i, r] else c0) * (h - S[d, j, k, r])
                H[d - 1, j, k, r] += h
            if a >= 0:
                for r in range(nb):
                    S[da, j, k, r] += H[d, j, k, r]
        for r in range(nb):
            out[b0 + r, f, j] += s[r]
