"""Extremal datasets: move a dataset as far as possible along g while keeping Φ fixed.

Houssiau et al. (2022) [``houssiau2022``], §3.3, Eq. 4: from a starting dataset D* with
φ(D*) = ψ, D±_β = Θ⁻¹(Θ(D*) ± α±_β β) with α± the largest moves that still give a valid
dataset. As in the paper's code (residual form, and the linear-programme form as an option):

* D* holds ``copies`` records of each cell of a support 𝒮 of m cells (App. 1–2: every cell and
  1000 copies; App. 3: 10 000 random cells and 10 copies);
* g = Σ_i β_i b_i is evaluated on 𝒮 and regressed (least squares on 𝒮) on the indicators of the
  declared bins plus a column of ones; the residual g⊥ changes no declared marginal and not N;
* ``method="residual"``: c⁺ = c* + round(α⁺ g⊥), α⁺ = min_{g⊥<0} c*_x / (−g⊥_x), and
  c⁻ = c* − round(α⁻ g⊥), α⁻ = min_{g⊥>0} c*_x / g⊥_x: one cell reaches 0 on each side and the
  declared marginals move only by the rounding;
* ``method="lp"``: maximise (minimise) Σ_x c_x g(x) over counts c ≥ 0 with exactly the declared
  marginals and N of D* (``scipy.optimize.linprog``, HiGHS; if the vertex found is not integral
  the integer programme is solved with ``scipy.optimize.milp``): exact marginals, and at least
  as extreme as the residual pair before its rounding.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int, check_random_state
from .basis import Bins, CellCounts, ComplementBasis, all_cells
from .cells import check_card_codes

__all__ = ["ExtremalPair", "extremal_pair", "sample_cells"]

_FULL_SUPPORT_MAX = 100_000  # largest M for which support=None takes every cell
_METHODS = ("residual", "lp")


@dataclass(frozen=True, eq=False)
class ExtremalPair:
    """The extremal datasets D⁻ and D⁺ of Eq. 4 (``houssiau2022``) around D*.

    Attributes
    ----------
    star, minus, plus : CellCounts
        D*, D⁻, D⁺ as counts over the same support cells (zeros kept).
    g_star, g_minus, g_plus : float
        g(D) = (1/N) Σ_{x∈D} g(x) with g = Σ_i β_i b_i; g_minus < g_star < g_plus.
    alpha_minus, alpha_plus : float
        Signed multipliers of g⊥: c± ≈ c* + α± g⊥ (α⁻ < 0 < α⁺, the paper's α±_β in count
        units). For ``method="lp"`` the least-squares multiplier ⟨c± − c*, g⊥⟩ / ‖g⊥‖².
    beta : ndarray, shape (k,)
    g_values, g_perp : ndarray, shape (m,)
        g and its residual g⊥ on the support cells.
    method : str
    """

    star: CellCounts
    minus: CellCounts
    plus: CellCounts
    g_star: float
    g_minus: float
    g_plus: float
    alpha_minus: float
    alpha_plus: float
    beta: np.ndarray
    g_values: np.ndarray
    g_perp: np.ndarray
    method: str

    @property
    def support(self) -> np.ndarray:
        """The support cells, shape (m, d)."""
        return self.star.codes

    def __repr__(self) -> str:
        return (
            f"ExtremalPair(method={self.method!r}, cells={len(self.g_values)}, "
            f"N-={self.minus.n}, N*={self.star.n}, N+={self.plus.n}, "
            f"g-={self.g_minus:.4g}, g*={self.g_star:.4g}, g+={self.g_plus:.4g})"
        )


def sample_cells(sizes, size: int, random_state=None) -> np.ndarray:
    """``size`` distinct cells drawn uniformly without replacement, shape (size, d), sorted in
    C order.

    Raises
    ------
    ValueError
        ``size`` larger than the number of cells.
    """
    sizes = tuple(int(n) for n in sizes)
    size = check_positive_int(size, "support")
    m = math.prod(sizes)
    if size > m:
        raise ValueError(f"support = {size} exceeds the {m} cells of the domain")
    rng = check_random_state(random_state)
    if m < 2**62:
        flat = np.sort(rng.choice(m, size=size, replace=False))
        return np.stack(np.unravel_index(flat, sizes), axis=1).astype(np.int64)
    cells = np.empty((0, len(sizes)), dtype=np.int64)
    while cells.shape[0] < size:  # m ≫ size: duplicates are rare
        draw = np.stack([rng.integers(0, n, size) for n in sizes], axis=1)
        cells = np.unique(np.concatenate([cells, draw]), axis=0)
    keep = np.sort(rng.choice(cells.shape[0], size=size, replace=False))
    return cells[keep]


def _support(card, support, random_state) -> np.ndarray:
    if support is None:
        if card.cells > _FULL_SUPPORT_MAX:
            raise ValueError(
                f"support=None takes every cell, but the card has M = {card.cells} cells "
                f"(at most {_FULL_SUPPORT_MAX}); pass an int (random cells) or an array of cells"
            )
        return all_cells(card.sizes)  # every cell, in C order
    if isinstance(support, numbers.Integral) and not isinstance(support, bool):
        return sample_cells(card.sizes, int(support), random_state)
    cells = check_card_codes(support, card.sizes, tuple(card.column_names), "support")
    if np.unique(cells, axis=0).shape[0] != cells.shape[0]:
        raise ValueError("support has repeated cells; give each cell once (counts go in copies)")
    return cells


def _copies(copies, m: int) -> np.ndarray:
    if isinstance(copies, numbers.Integral) and not isinstance(copies, bool):
        return np.full(m, check_positive_int(copies, "copies"), dtype=np.int64)
    arr = np.asarray(copies)
    if arr.shape != (m,) or arr.dtype.kind not in "iu" or np.any(arr < 1):
        raise ValueError(
            f"copies must be an int >= 1 or an int array of shape ({m},) with "
            f"entries >= 1 (the starting counts), got {arr.dtype} {arr.shape}"
        )
    return arr.astype(np.int64)


def _residual(z, g: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """g minus its least-squares projection on the columns of the sparse matrix z."""
    a = (z.T @ z).toarray()
    w, u = np.linalg.eigh(a)
    keep = w > rtol * w.max()
    q = np.asarray(z @ (u[:, keep] / np.sqrt(w[keep])))
    r = g - q @ (q.T @ g)
    return r - q @ (q.T @ r)  # second pass: orthogonal to working precision


def _solve_lp(objective: np.ndarray, z, target: np.ndarray) -> np.ndarray:
    """argmax_c objective·c s.t. zᵀc = target, c ≥ 0, c integer."""
    from scipy.optimize import Bounds, LinearConstraint, linprog, milp

    a_eq = z.T.tocsr()
    res = linprog(-objective, A_eq=a_eq, b_eq=target, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"the linear programme failed: {res.message}")
    c = res.x
    if np.all(np.abs(c - np.round(c)) < 1e-7):
        return np.round(c).astype(np.int64)
    res = milp(
        -objective,
        constraints=LinearConstraint(a_eq, target, target),
        integrality=np.ones(len(objective)),
        bounds=Bounds(0, np.inf),
    )
    if res.status != 0 or res.x is None:
        raise RuntimeError(f"the integer programme failed: {res.message}")
    return np.round(res.x).astype(np.int64)


def extremal_pair(
    card,
    basis: ComplementBasis,
    beta,
    *,
    support=None,
    copies=1000,
    method: str = "residual",
    random_state=None,
) -> ExtremalPair:
    """Extremal datasets D⁻, D⁺ for the direction g = Σ_i β_i b_i (``houssiau2022``, §3.3,
    Eq. 4).

    Parameters
    ----------
    card : GeneratorCard
        The card whose declared marginals (and N) D⁻ and D⁺ keep.
    basis : ComplementBasis
        Built for ``card`` (:func:`~synthtrust.audit.basis.complement_basis`).
    beta : array, shape (k,)
        Coefficients over the basis, not all 0 (the paper's code uses all ones).
    support : None, int or array of int (m, d)
        The cells of D*: every cell (None; M ≤ 100 000), ``support`` cells drawn uniformly
        without replacement (int), or the given distinct cells (array or DataFrame of codes).
    copies : int or int array (m,)
        Records per support cell in D* (R; 1000 in App. 1–2, 10 in App. 3), or the starting
        counts themselves (e.g. the counts of the real data on its distinct cells).
    method : {"residual", "lp"}
        Residual construction with rounding (the paper's runs) or the exact integer
        (linear) programme.
    random_state : None, int or numpy Generator
        Draws the support when it is an int.

    Returns
    -------
    ExtremalPair

    Raises
    ------
    TypeError, ValueError
        Bad arguments; a basis built for another card; β all 0; and "the statistic is in the
        card's span" when ‖g⊥‖² = mean_𝒮 g⊥² < 1e-10 · mean_𝒮 g²: on this support g is fixed by
        the declared marginals and no pair exists.
    RuntimeError
        The (integer) linear programme fails (``method="lp"``).
    """
    if not isinstance(basis, ComplementBasis):
        raise TypeError(f"basis must be a ComplementBasis, got {type(basis).__name__}")
    if basis.card != card:
        raise ValueError("basis was built for another card; build it with complement_basis(card)")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    beta = np.asarray(beta, dtype=float)
    if beta.shape != (basis.dim,):
        raise ValueError(
            f"beta must have shape ({basis.dim},) (one coefficient per basis "
            f"function), got {beta.shape}"
        )
    if not np.all(np.isfinite(beta)) or not np.any(beta != 0):
        raise ValueError("beta must be finite and not all 0")
    cells = _support(card, support, random_state)
    m = cells.shape[0]
    start = _copies(copies, m)
    g = basis.function_values(cells, beta)
    phi = Bins(basis.phi_bins.values, card.sizes, card.column_names)
    z = phi.indicator(cells)  # declared bins + constant, (m, |Φ| + 1)
    r = _residual(z, g)
    if np.mean(r**2) < 1e-10 * max(np.mean(g**2), np.finfo(float).tiny):
        raise ValueError(
            "the statistic is in the card's span on this support: g = Σ β_i b_i is fixed by "
            "the declared marginals, so no pair exists (use a larger support)"
        )
    if method == "residual":
        neg, pos = r < 0, r > 0
        a_plus = float(np.min(start[neg] / -r[neg]))
        a_minus = float(np.min(start[pos] / r[pos]))
        plus = np.maximum(start + np.round(a_plus * r), 0).astype(np.int64)
        minus = np.maximum(start - np.round(a_minus * r), 0).astype(np.int64)
        alpha_plus, alpha_minus = a_plus, -a_minus
    else:
        target = np.asarray(z.T @ start, dtype=float)
        plus = _solve_lp(r, z, target)
        minus = _solve_lp(-r, z, target)
        rr = float(r @ r)
        alpha_plus = float((plus - start) @ r) / rr
        alpha_minus = float((minus - start) @ r) / rr
    columns = tuple(card.column_names)

    def stat(c):
        return float(c @ g / c.sum())

    return ExtremalPair(
        star=CellCounts(cells, start, columns),
        minus=CellCounts(cells, minus, columns),
        plus=CellCounts(cells, plus, columns),
        g_star=stat(start),
        g_minus=stat(minus),
        g_plus=stat(plus),
        alpha_minus=alpha_minus,
        alpha_plus=alpha_plus,
        beta=beta,
        g_values=g,
        g_perp=r,
        method=method,
    )
