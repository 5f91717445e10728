"""The orthonormal basis of the unsafe statistics Φ⊥, computed from bin Gram matrices.

Houssiau et al. (2022) [``houssiau2022``], §3.3, audit a generator along directions of Φ⊥, the
functions of a record that the generator card does *not* declare. Functions f: 𝒳 → ℝ on the
record space 𝒳 = Π_j {0, …, n_j − 1} (M = ``|𝒳|`` cells) carry the uniform inner product

    ⟨f, h⟩_U = (1/M) Σ_{x∈𝒳} f(x) h(x),

and the statistic of a function on a dataset D of N records is f(D) = (1/N) Σ_{x∈D} f(x)
(their Eq. 3, g_β(D) = βᵀΘ(D)). A *bin* is the indicator 1[x_S = v] of a clique S of columns
and a value tuple v ∈ 𝒳_S; its statistic is the bin's frequency in D (a cell of the S-marginal).
Φ is the span of the declared bins plus the constant; a candidate set 𝒞 of bins spans the part
of Φ⊥ that is probed. The basis b_1..b_k of span(Φ ∪ 𝒞) ⊖ span(Φ) is computed from bin Gram
matrices only, so no vector of length M is ever formed (App. 3 of the paper has M = 1.56·10⁶):

1. ⟨1[x_S = v], 1[x_T = w]⟩_U = [v, w agree on S ∩ T] · Π_{a∈S∪T} 1/n_a  (:func:`gram`);
2. an orthonormal basis Q of span(Φ) from the eigen-decomposition of G_ΦΦ;
3. R = G_𝒞𝒞 − (QᵀG_Φ𝒞)ᵀ(QᵀG_Φ𝒞), the Gram matrix of the candidates' residuals;
4. R = VΛVᵀ, keep λ > rtol · scale; b = (𝒞 − proj_Φ 𝒞) V Λ^{-1/2}.

Each b_i is then a coefficient vector θ_i over bins, and b_i(D) = Σ_j θ_ij freq_D(bin_j) needs
only the marginal tables of D (:meth:`ComplementBasis.statistic`).

Dimensions follow from the ANOVA (Hoeffding) decomposition under the uniform distribution:
the bins of the cliques 𝒮 span ⊕_{U ∈ ↓𝒮} V_U, the pure-interaction subspaces of every subset
U of a clique (↓𝒮, the empty set included), with dim V_U = Π_{a∈U} (n_a − 1)
(:func:`span_dimension`). For a 2-way card this is 1 + Σ_j (n_j − 1) + Σ_{i<j} (n_i − 1)(n_j − 1).

This module holds the basis itself (:class:`ComplementBasis`, :func:`complement_basis`,
:func:`complement_basis_dense`) and re-exports its parts, each in a module of its own: the
record space (``cells``: :class:`CellCounts`, :func:`all_cells`), the bins (``bins``:
:class:`Bins`), their Gram matrices and dimensions (``gram``: :func:`gram`,
:func:`span_dimension`) and the candidate bins (``candidates``: :func:`candidate_bins`).
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .bins import Bins
from .candidates import candidate_bins, card_parts
from .cells import CellCounts, all_cells, check_card_codes  # noqa: F401 (extremal, two_step use them)
from .gram import downward_closure_masks, gram, span_dimension

__all__ = [
    "MAX_GRAM_BINS",
    "Bins",
    "ComplementBasis",
    "all_cells",
    "candidate_bins",
    "complement_basis",
    "complement_basis_dense",
    "gram",
    "span_dimension",
]

#: Default largest number of bins (declared + candidate) of :func:`complement_basis`: its Gram
#: and eigen steps hold about four ``|𝒞|`` × ``|𝒞|`` float64 matrices (8 192 bins: about 2 GiB and a
#: minute of ``eigh`` on 2 cores).
MAX_GRAM_BINS = 8192


@dataclass(frozen=True, eq=False)
class ComplementBasis:
    """Orthonormal basis b_1..b_k of span(Φ ∪ 𝒞) ⊖ span(Φ) under ⟨·,·⟩_U (``houssiau2022``,
    §3.3), each b_i a combination of bins: b_i = Σ_j coef[i, j] · all_bins[j].

    Attributes
    ----------
    card : GeneratorCard
    bins : Bins
        The candidate bins 𝒞 (``|𝒞|`` of them).
    phi_bins : Bins
        The declared bins followed by the constant (``|Φ|`` + 1 of them).
    all_bins : Bins
        ``bins`` then ``phi_bins``; the columns of ``coef``.
    coef : ndarray, shape (k, ``|𝒞|`` + ``|Φ|`` + 1)
    eigenvalues : ndarray, shape (k,)
        The kept eigenvalues λ of the residual Gram matrix R, decreasing.
    phi_rank : int
        dim span(Φ) (the constant included), from the Gram matrix.
    """

    card: object
    bins: Bins
    phi_bins: Bins
    all_bins: Bins
    coef: np.ndarray
    eigenvalues: np.ndarray
    phi_rank: int
    rtol: float = field(default=1e-10)

    @property
    def dim(self) -> int:
        """k, the number of basis functions."""
        return self.coef.shape[0]

    def __repr__(self) -> str:
        return (
            f"ComplementBasis(dim={self.dim}, candidates={len(self.bins)}, "
            f"phi_bins={len(self.phi_bins) - 1}, phi_rank={self.phi_rank}, "
            f"cells={self.card.cells})"
        )

    def _weights(self, weights) -> np.ndarray:
        w = np.asarray(weights, dtype=float)
        if w.shape != (self.dim,):
            raise ValueError(
                f"weights must have shape ({self.dim},) (one per basis function), got {w.shape}"
            )
        if not np.all(np.isfinite(w)):
            raise ValueError("weights must be finite")
        return w

    def evaluate(self, frequencies) -> np.ndarray:
        """b_i(D) = Σ_j coef[i, j] · freq_D(all_bins[j]).

        Parameters
        ----------
        frequencies : array, shape (..., len(all_bins))
            Bin frequencies, e.g. from ``all_bins.frequencies(codes)``.

        Returns
        -------
        ndarray, shape (..., k)
        """
        f = np.asarray(frequencies, dtype=float)
        if f.shape[-1:] != (len(self.all_bins),):
            raise ValueError(
                f"frequencies must have last axis {len(self.all_bins)}, got shape {f.shape}"
            )
        return f @ self.coef.T

    def statistic(self, codes, counts=None) -> np.ndarray:
        """b_i(D) = (1/N) Σ_{x∈D} b_i(x) for i = 1..k (Eq. 3), from the marginal tables of D.

        Parameters
        ----------
        codes : array of int (n, d), DataFrame with the card's columns, or CellCounts
        counts : array (n,), optional
            Count of each row (a weighted set of cells); default 1.

        Returns
        -------
        ndarray, shape (k,)
        """
        return self.evaluate(self.all_bins.frequencies(codes, counts))

    def function_values(self, codes, weights=None) -> np.ndarray:
        """Pointwise values b_i(x) (shape (n, k)) or, with ``weights`` w, Σ_i w_i b_i(x)
        (shape (n,)) at each row x of ``codes``."""
        if weights is None:
            return self.all_bins.pointwise(self.coef, codes)
        return self.all_bins.pointwise(self._weights(weights) @ self.coef, codes)

    def dense(self) -> np.ndarray:
        """The basis functions as M-vectors over :func:`all_cells`, shape (k, M); small
        domains only."""
        return self.coef @ self.all_bins.dense()

    def energy_by_clique(self, weights, *, normalize: bool = True) -> pd.Series:
        """Where f = Σ_i w_i b_i lives: its energy per pure-interaction subspace.

        Under the uniform distribution every function splits orthogonally into pure
        interactions, f = Σ_U f_U with f_U depending on x_U only and centred along each column
        of U (the ANOVA / Hoeffding decomposition); bins of a clique S span ⊕_{U⊆S} V_U. Since
        f ⊥ Φ, f_U = 0 for every U inside a declared clique, and ‖f‖²_U = Σ_U ‖f_U‖²_U = ‖w‖²
        exactly (orthogonal parts: shares are ≥ 0 and add up to 1). With "next" candidates over
        a complete k-way card the sets U are the candidate cliques themselves, so this answers
        "which undeclared marginal carries the leak".

        f_U is computed from the bins alone: 1[x_S = v] contributes
        Π_{a∈S∖U} (1/n_a) · Π_{a∈U} (1[x_a = v_a] − 1/n_a) to V_U (U ⊆ S).

        Parameters
        ----------
        weights : array, shape (k,)
            Coefficients of f over the basis (e.g. β* of Eq. 6).
        normalize : bool
            Shares of ‖f‖² (default) or the energies ‖f_U‖²_U themselves.

        Returns
        -------
        pandas.Series
            Indexed by U (tuples of column names), largest first; U ranges over the subsets
            of candidate cliques that no declared clique contains.

        Raises
        ------
        ValueError
            ``weights`` of the wrong shape, non-finite, or all 0 with ``normalize``.
        """
        a = self._weights(weights) @ self.coef
        declared = downward_closure_masks(self.card.clique_indices)
        sets: list[tuple[int, ...]] = []
        seen: set[frozenset] = set()
        for clique in self.bins.cliques:
            for r in range(1, len(clique) + 1):
                for u in itertools.combinations(clique, r):
                    fu = frozenset(u)
                    if fu not in declared and fu not in seen:
                        seen.add(fu)
                        sets.append(u)
        vals = self.all_bins.values
        used = vals >= 0
        sizes = np.asarray(self.all_bins.sizes, dtype=float)
        energies = []
        for u in sets:
            rows = np.flatnonzero(used[:, list(u)].all(axis=1))
            dims = tuple(self.all_bins.sizes[j] for j in u)
            rest = used[rows].copy()
            rest[:, list(u)] = False
            scale = np.prod(np.where(rest, 1.0 / sizes[None, :], 1.0), axis=1)
            table = np.zeros(math.prod(dims))
            np.add.at(
                table, np.ravel_multi_index(tuple(vals[rows][:, list(u)].T), dims), a[rows] * scale
            )
            t = table.reshape(dims)
            for ax in range(len(u)):
                t = t - t.mean(axis=ax, keepdims=True)
            energies.append(float(np.mean(t**2)))
        names = [self.all_bins.clique_names(u) for u in sets]
        out = pd.Series(
            energies,
            index=pd.Index(names, tupleize_cols=False),
            dtype=float,
            name="share" if normalize else "energy",
        )
        if normalize:
            total = out.sum()
            if total <= 0:
                raise ValueError("weights are all 0: f = 0 has no energy to share")
            out = out / total
        return out.sort_values(ascending=False, kind="stable")


def complement_basis(
    card, candidates="next", *, rtol: float = 1e-10, max_bins: int = MAX_GRAM_BINS
) -> ComplementBasis:
    """Orthonormal basis of span(Φ ∪ 𝒞) ⊖ span(Φ) from bin Gram matrices
    (``houssiau2022``, §3.3; no vector of length M is formed).

    Parameters
    ----------
    card : GeneratorCard
        Φ = span of its declared bins and the constant.
    candidates : Bins or a ``kind`` of :func:`candidate_bins`
        The candidate bins 𝒞 (default "next": all (k+1)-way bins).
    rtol : float
        Eigenvalues of G_ΦΦ below rtol · max are dropped; eigenvalues of the residual Gram
        matrix R below rtol · max(λ_max(R), max_j ⟨c_j, c_j⟩_U) are dropped.
    max_bins : int
        Refuse more than ``max_bins`` declared + candidate bins (default
        :data:`MAX_GRAM_BINS`) rather than exhaust memory.

    Returns
    -------
    ComplementBasis

    Raises
    ------
    TypeError, ValueError
        Bad ``card``, ``candidates`` over another domain, ``rtol`` outside (0, 1); more than
        ``max_bins`` bins (the message gives the counts, the memory needed and how to draw a
        random subset of candidates).

    Notes
    -----
    Memory grows with (``|Φ|`` + ``|𝒞|``)² and time with (``|Φ|`` + ``|𝒞|``)³: App. 3 of the paper (1365
    declared bins, 1000 random candidates) needs a few seconds; all its 17 799 3-way bins would
    need about 10 GiB, hence the paper's (and the guard's) random subset.
    """
    columns, sizes, cliques = card_parts(card)
    if isinstance(rtol, bool) or not isinstance(rtol, numbers.Real) or not 0 < rtol < 1:
        raise ValueError(f"rtol must be a real number in (0, 1), got {rtol!r}")
    cand = candidates if isinstance(candidates, Bins) else candidate_bins(card, candidates)
    if cand.sizes != sizes:
        raise ValueError(f"candidates are over sizes {cand.sizes}, the card's are {sizes}")
    if len(cand) == 0:
        raise ValueError("candidates is empty; at least one candidate bin is needed")
    cand = Bins(cand.values, sizes, columns)
    phi = Bins.from_cliques(list(cliques) + [()], sizes, columns)
    total = len(phi) + len(cand)
    if total > max_bins:
        raise ValueError(
            f"{len(phi):,} declared and {len(cand):,} candidate bins exceed max_bins={max_bins:,}: "
            f"the Gram step would need about {4 * 8 * len(cand) ** 2 / 2**30:.1f} GiB; probe a "
            f"random subset, candidate_bins(card, kind, n=1000) (CLI: --n-candidates 1000), or "
            f"raise max_bins"
        )
    g_pp, g_pc, g_cc = gram(phi), gram(phi, cand), gram(cand)
    w, u = np.linalg.eigh(g_pp)
    keep = w > rtol * w.max()
    q = u[:, keep] / np.sqrt(w[keep])  # |Φ| × r, orthonormal functions spanning Φ
    t = q.T @ g_pc  # r × |𝒞|
    r = g_cc - t.T @ t
    r = (r + r.T) / 2
    lam, v = np.linalg.eigh(r)
    tol = rtol * max(lam.max(), float(np.diag(g_cc).max()))
    keep_c = lam > tol
    lam, v = lam[keep_c][::-1], v[:, keep_c][:, ::-1]
    c_coef = v / np.sqrt(lam)  # |𝒞| × k
    p_coef = -q @ (t @ c_coef)  # |Φ| × k
    coef = np.concatenate([c_coef, p_coef], axis=0).T
    return ComplementBasis(
        card=card,
        bins=cand,
        phi_bins=phi,
        all_bins=cand.concat(phi),
        coef=coef,
        eigenvalues=lam,
        phi_rank=int(keep.sum()),
        rtol=rtol,
    )


def complement_basis_dense(phi, candidates=None, *, rtol: float = 1e-10) -> np.ndarray:
    """Orthonormal basis of span(Φ ∪ 𝒞) ⊖ span(Φ) for functions given as M-vectors.

    For small domains and any functions, not only bins — e.g. the moment card of Example 3 of
    ``houssiau2022`` (X ∈ {0..10}, Φ = span{1, x, x²}: dim Φ⊥ = 8).

    Parameters
    ----------
    phi : array, shape (p, M)
        The declared functions as rows (the constant is added).
    candidates : array, shape (q, M), optional
        Default: the M cell indicators, so the result spans all of Φ⊥.
    rtol : float
        Singular values below rtol · max are dropped.

    Returns
    -------
    ndarray, shape (k, M)
        Rows orthonormal under ⟨f, h⟩_U = (1/M) Σ f h and orthogonal to Φ.
    """
    phi = np.atleast_2d(np.asarray(phi, dtype=float))
    m = phi.shape[1]
    cand = np.eye(m) if candidates is None else np.atleast_2d(np.asarray(candidates, float))
    if cand.shape[1] != m:
        raise ValueError(f"candidates have {cand.shape[1]} cells, phi has {m}")
    phi = np.concatenate([phi, np.ones((1, m))])
    uphi, s, _ = np.linalg.svd(phi.T, full_matrices=False)
    uphi = uphi[:, s > rtol * s.max()]
    resid = cand.T - uphi @ (uphi.T @ cand.T)
    ur, sr, _ = np.linalg.svd(resid, full_matrices=False)
    scale = max(sr.max(initial=0.0), np.linalg.norm(cand, axis=1).max())
    ur = ur[:, sr > rtol * scale]
    return ur.T * np.sqrt(m)
