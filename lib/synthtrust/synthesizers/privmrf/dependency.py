"""PrivMRF's dependency measure: contingency tables of integer codes and the R-score
R(a, b) = ½‖P(a, b) − P(a)P(b)‖₁ of every attribute pair, as the unnormalised statistic n·R with
its add/remove-one sensitivity.

Source: Cai et al. (PVLDB 2021) [``cai2021``], §4; ``tools.dp_TVD`` of the authors' code.
"""

from __future__ import annotations

import itertools

import numpy as np

#: L2 sensitivity of n·R(a, b) for one pair under add/remove-one (see r_score_statistics)
R_SENSITIVITY = 2.0


def clique_counts(codes: np.ndarray, sizes, clique) -> np.ndarray:
    """Contingency table of ``codes[:, clique]`` flattened in C order (float)."""
    clique = list(clique)
    shape = tuple(int(sizes[a]) for a in clique)
    if not clique:
        return np.array([float(codes.shape[0])])
    flat = np.ravel_multi_index(tuple(codes[:, a] for a in clique), shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(float)


def r_score_statistics(codes: np.ndarray, sizes) -> np.ndarray:
    """n·R(a, b) for every attribute pair: ½‖C_ab − C_a C_bᵀ/n‖₁ on the count tables.

    R(a, b) = ½‖P(a, b) − P(a)P(b)‖₁ is the dependency ("R-score", the authors' pairwise TVD) of
    a pair. The unnormalised statistic n·R has sensitivity ≤ 2 under add/remove-one: adding a
    record changes the joint table by 1 in L1 and the product table C_a C_bᵀ/n by at most
    n/(n+1) + (2n+1)/(n+1) < 3, so n·R moves by at most ½(1 + 3) = 2.

    Parameters
    ----------
    codes : int array, shape (rows, d)
        Integer codes, column j in 0..sizes[j]−1.
    sizes : sequence of int, length d

    Returns
    -------
    ndarray, shape (d, d), symmetric, zero diagonal, units of records (divide by n for R).

    Source: Cai et al. (2021) §4 (R-score); ``tools.dp_TVD`` of the authors' code.
    """
    codes = np.asarray(codes)
    n, d = codes.shape
    out = np.zeros((d, d))
    if n == 0:
        return out
    ones = [clique_counts(codes, sizes, (a,)) for a in range(d)]
    for a, b in itertools.combinations(range(d), 2):
        joint = clique_counts(codes, sizes, (a, b)).reshape(int(sizes[a]), int(sizes[b]))
        prod = np.outer(ones[a], ones[b]) / n
        out[a, b] = out[b, a] = 0.5 * np.abs(joint - prod).sum()
    return out
