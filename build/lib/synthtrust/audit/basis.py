"""Marginal bins, their Gram matrices and the orthonormal basis of the unsafe statistics Φ⊥.

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
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import check_positive_int, check_random_state

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

_DENSE_MAX_CELLS = 200_000  # largest domain for which dense M-vectors are formed
#: Default largest number of bins (declared + candidate) of :func:`complement_basis`: its Gram
#: and eigen steps hold about four ``|𝒞|`` × ``|𝒞|`` float64 matrices (8 192 bins: about 2 GiB and a
#: minute of ``eigh`` on 2 cores).
MAX_GRAM_BINS = 8192


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _check_sizes(sizes, name: str = "sizes") -> tuple[int, ...]:
    if isinstance(sizes, Mapping):
        sizes = list(sizes.values())
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of domain sizes, got {type(sizes).__name__}")
    out = []
    for j, n in enumerate(sizes):
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
            raise TypeError(f"{name}[{j}] must be an integer domain size, got {n!r}")
        if n < 1:
            raise ValueError(f"{name}[{j}] must be >= 1, got {n!r}")
        out.append(int(n))
    if not out:
        raise ValueError(f"{name} is empty; at least one column is needed")
    return tuple(out)


def _check_codes(
    codes, sizes: tuple[int, ...], columns: tuple[str, ...] | None, name: str = "codes"
) -> np.ndarray:
    """Integer codes (n, d): a DataFrame (columns selected by name) or a 2-D array."""
    if isinstance(codes, CellCounts):
        codes = codes.codes
    if isinstance(codes, pd.DataFrame):
        if columns is not None:
            missing = [c for c in columns if c not in codes.columns]
            if missing:
                raise ValueError(
                    f"{name} lacks the column(s) {missing}; the card's columns are {list(columns)}"
                )
            codes = codes.loc[:, list(columns)]
        codes = codes.to_numpy()
    arr = np.asarray(codes)
    if arr.ndim != 2 or arr.shape[1] != len(sizes):
        raise ValueError(
            f"{name} must have shape (n, {len(sizes)}) (one column per card column), "
            f"got shape {arr.shape}"
        )
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold integer codes; got non-integral values")
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer codes, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    for j, n in enumerate(sizes):
        bad = (arr[:, j] < 0) | (arr[:, j] >= n)
        if bad.any():
            col = columns[j] if columns is not None else j
            raise ValueError(
                f"{name}: column {col!r} has codes outside 0..{n - 1}, "
                f"e.g. {arr[bad, j][:5].tolist()}"
            )
    return arr


def _check_counts(counts, n: int, name: str = "counts") -> np.ndarray:
    if counts is None:
        return np.ones(n)
    arr = np.asarray(counts, dtype=float)
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},) (one weight per row), got {arr.shape}")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be finite and >= 0")
    if arr.sum() <= 0:
        raise ValueError(f"{name} sum to 0: the dataset is empty")
    return arr


# --------------------------------------------------------------------------------------------
# a weighted set of cells
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CellCounts:
    """A dataset given as distinct cells and their counts.

    Attributes
    ----------
    codes : ndarray of int, shape (m, d)
        One row per cell, integer codes per column.
    counts : ndarray of int, shape (m,)
        How many records each cell holds (zeros allowed).
    columns : tuple of str
        Column names (the card's order).
    """

    codes: np.ndarray
    counts: np.ndarray
    columns: tuple[str, ...]

    @property
    def n(self) -> int:
        """Number of records N = Σ counts."""
        return int(np.sum(self.counts))

    def to_frame(self) -> pd.DataFrame:
        """The records as rows: each cell repeated ``counts`` times; columns named, int64."""
        rows = np.repeat(self.codes, np.asarray(self.counts, dtype=np.int64), axis=0)
        return pd.DataFrame(rows, columns=list(self.columns))


# --------------------------------------------------------------------------------------------
# bins
# --------------------------------------------------------------------------------------------
def all_cells(sizes) -> np.ndarray:
    """Every cell of Π_j {0..n_j − 1} in C order, shape (M, d); only for small domains.

    Raises
    ------
    ValueError
        M larger than 200 000.
    """
    sizes = _check_sizes(sizes)
    m = math.prod(sizes)
    if m > _DENSE_MAX_CELLS:
        raise ValueError(
            f"the domain has M = {m} cells; all_cells allows at most {_DENSE_MAX_CELLS}"
        )
    return np.stack(np.unravel_index(np.arange(m), sizes), axis=1).astype(np.int64)


class Bins:
    """Indicator functions 1[x_S = v] of marginal bins over a domain with sizes ``sizes``.

    Stored as an int array ``values`` of shape (B, d): ``values[i, a]`` is the value bin i
    requires of column a, or −1 when column a is not in the bin's clique. A row of −1's is the
    constant function 1 (the empty clique).

    Parameters
    ----------
    values : array of int, shape (B, d)
    sizes : sequence of int, length d
    columns : sequence of str, optional
        Column names, for labels and DataFrame input.

    Raises
    ------
    ValueError
        A value outside −1..n_a − 1, or a shape mismatch.
    """

    def __init__(self, values, sizes, columns=None):
        self.sizes = _check_sizes(sizes)
        d = len(self.sizes)
        vals = np.asarray(values, dtype=np.int64)
        if vals.size == 0:
            vals = vals.reshape(0, d)
        if vals.ndim != 2 or vals.shape[1] != d:
            raise ValueError(f"values must have shape (B, {d}), got {vals.shape}")
        hi = np.asarray(self.sizes)[None, :]
        if np.any(vals < -1) or np.any(vals >= hi):
            raise ValueError("values must lie in -1..n_a - 1 (−1: column not in the clique)")
        self.values = vals
        self.values.setflags(write=False)
        if columns is not None:
            columns = tuple(str(c) for c in columns)
            if len(columns) != d:
                raise ValueError(f"columns has {len(columns)} names for {d} sizes")
        self.columns = columns
        mask = vals >= 0
        keys = [tuple(np.flatnonzero(row)) for row in mask]
        uniq: dict[tuple[int, ...], int] = {}
        for k in keys:
            uniq.setdefault(k, len(uniq))
        self.cliques: tuple[tuple[int, ...], ...] = tuple(uniq)
        self.clique_index = np.array([uniq[k] for k in keys], dtype=np.int64)

    # constructors ---------------------------------------------------------------------------
    @classmethod
    def from_cliques(cls, cliques, sizes, columns=None) -> Bins:
        """All bins of each clique (tuples of column indices), clique by clique, values in C
        order. The empty clique ``()`` gives the constant."""
        sizes = _check_sizes(sizes)
        d = len(sizes)
        blocks = []
        for clique in cliques:
            s = tuple(sorted(int(a) for a in clique))
            if len(set(s)) != len(s) or any(a < 0 or a >= d for a in s):
                raise ValueError(
                    f"clique {tuple(clique)!r} must hold distinct indices in 0..{d - 1}"
                )
            dims = tuple(sizes[a] for a in s)
            block = np.full((math.prod(dims), d), -1, dtype=np.int64)
            if s:
                block[:, list(s)] = np.stack(np.unravel_index(np.arange(block.shape[0]), dims), 1)
            blocks.append(block)
        vals = np.concatenate(blocks) if blocks else np.empty((0, d), dtype=np.int64)
        return cls(vals, sizes, columns)

    @classmethod
    def constant(cls, sizes, columns=None) -> Bins:
        """The constant function 1 as a single bin."""
        return cls.from_cliques([()], sizes, columns)

    @classmethod
    def from_list(cls, bins, sizes, columns=None) -> Bins:
        """From a list of ``(clique, value_tuple)`` pairs, clique = tuple of column indices."""
        sizes = _check_sizes(sizes)
        vals = np.full((len(bins), len(sizes)), -1, dtype=np.int64)
        for i, (clique, value) in enumerate(bins):
            clique, value = tuple(clique), tuple(value)
            if len(clique) != len(value) or len(set(clique)) != len(clique):
                raise ValueError(f"bin {i}: clique {clique!r} and value {value!r} do not match")
            for a, v in zip(clique, value, strict=True):
                vals[i, int(a)] = int(v)
        return cls(vals, sizes, columns)

    def to_list(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The bins as ``(clique, value_tuple)`` pairs (clique = sorted column indices)."""
        out = []
        for row in self.values:
            s = tuple(int(a) for a in np.flatnonzero(row >= 0))
            out.append((s, tuple(int(row[a]) for a in s)))
        return out

    def concat(self, other: Bins) -> Bins:
        """These bins followed by ``other``'s (same sizes)."""
        if other.sizes != self.sizes:
            raise ValueError(f"cannot concatenate bins over sizes {self.sizes} and {other.sizes}")
        return Bins(
            np.concatenate([self.values, other.values]), self.sizes, self.columns or other.columns
        )

    def __len__(self) -> int:
        return self.values.shape[0]

    def __repr__(self) -> str:
        return f"Bins({len(self)} bins over {len(self.cliques)} cliques, sizes={self.sizes})"

    def clique_names(self, clique: tuple[int, ...]) -> tuple:
        """A clique as column names (indices when the bins have no names)."""
        return tuple(self.columns[a] for a in clique) if self.columns else tuple(clique)

    # evaluation -----------------------------------------------------------------------------
    def _groups(self):
        """(clique, rows of bins with that clique, ravelled value index of each bin)."""
        for c, clique in enumerate(self.cliques):
            rows = np.flatnonzero(self.clique_index == c)
            if clique:
                dims = tuple(self.sizes[a] for a in clique)
                flat = np.ravel_multi_index(tuple(self.values[rows][:, list(clique)].T), dims)
            else:
                dims, flat = (), np.zeros(len(rows), dtype=np.int64)
            yield clique, dims, rows, flat

    def frequencies(self, codes, counts=None) -> np.ndarray:
        """freq_D(bin) = (1/N) Σ_{x∈D} 1[x_S = v] for every bin, from marginal tables.

        Parameters
        ----------
        codes : array of int (n, d), DataFrame of codes or :class:`CellCounts`
        counts : array (n,), optional
            Weight (count) of each row; default 1 (taken from a :class:`CellCounts`).

        Returns
        -------
        ndarray, shape (B,)
        """
        if isinstance(codes, CellCounts) and counts is None:
            counts = codes.counts
        x = _check_codes(codes, self.sizes, self.columns)
        w = _check_counts(counts, x.shape[0])
        total = w.sum()
        out = np.empty(len(self))
        for clique, dims, rows, flat in self._groups():
            if not clique:
                out[rows] = 1.0
                continue
            idx = np.ravel_multi_index(tuple(x[:, list(clique)].T), dims)
            table = np.bincount(idx, weights=w, minlength=math.prod(dims)) / total
            out[rows] = table[flat]
        return out

    def pointwise(self, coef, codes) -> np.ndarray:
        """Σ_j coef_j 1[x ∈ bin_j] at each row x of ``codes``, by table look-ups.

        Parameters
        ----------
        coef : array, shape (B,) or (k, B)
        codes : array of int (n, d) or DataFrame

        Returns
        -------
        ndarray, shape (n,) or (n, k)
        """
        coef = np.asarray(coef, dtype=float)
        single = coef.ndim == 1
        c2 = coef[None, :] if single else coef
        if c2.ndim != 2 or c2.shape[1] != len(self):
            raise ValueError(
                f"coef must have shape ({len(self)},) or (k, {len(self)}), got {coef.shape}"
            )
        x = _check_codes(codes, self.sizes, self.columns)
        out = np.zeros((x.shape[0], c2.shape[0]))
        for clique, dims, rows, flat in self._groups():
            if not clique:
                out += c2[:, rows].sum(axis=1)[None, :]
                continue
            table = np.zeros((math.prod(dims), c2.shape[0]))
            np.add.at(table, flat, c2[:, rows].T)
            out += table[np.ravel_multi_index(tuple(x[:, list(clique)].T), dims)]
        return out[:, 0] if single else out

    def indicator(self, codes):
        """Sparse indicator matrix Z (n, B), Z[r, j] = 1[row r ∈ bin j] (scipy CSR)."""
        from scipy import sparse

        x = _check_codes(codes, self.sizes, self.columns)
        n = x.shape[0]
        rr, cc = [], []
        for clique, dims, rows, flat in self._groups():
            if not clique:
                for j in rows:
                    rr.append(np.arange(n))
                    cc.append(np.full(n, j))
                continue
            # several bins may share a value (repeated bins): one pass per repeat
            order = np.argsort(flat, kind="stable")
            fl, ro = flat[order], rows[order]
            idx = np.ravel_multi_index(tuple(x[:, list(clique)].T), dims)
            lookup = np.empty(math.prod(dims), dtype=np.int64)
            remaining_f, remaining_r = fl, ro
            while remaining_f.size:
                lookup[:] = -1
                keep = np.ones(remaining_f.size, dtype=bool)
                keep[1:] = remaining_f[1:] != remaining_f[:-1]
                lookup[remaining_f[keep]] = remaining_r[keep]
                col = lookup[idx]
                hit = col >= 0
                rr.append(np.flatnonzero(hit))
                cc.append(col[hit])
                remaining_f, remaining_r = remaining_f[~keep], remaining_r[~keep]
        r = np.concatenate(rr) if rr else np.empty(0, dtype=np.int64)
        c = np.concatenate(cc) if cc else np.empty(0, dtype=np.int64)
        return sparse.csr_matrix((np.ones(r.size), (r, c)), shape=(n, len(self)))

    def dense(self) -> np.ndarray:
        """Indicator vectors over all M cells, shape (B, M); only for small domains."""
        return self.indicator(all_cells(self.sizes)).T.toarray()


# --------------------------------------------------------------------------------------------
# Gram matrices and dimensions
# --------------------------------------------------------------------------------------------
def gram(bins_a: Bins, bins_b: Bins | None = None) -> np.ndarray:
    """Gram matrix ⟨1[x_S = v], 1[x_T = w]⟩_U of two sets of bins, analytically.

    ⟨1[x_S = v], 1[x_T = w]⟩_U = [v and w agree on S ∩ T] · Π_{a∈S∪T} 1/n_a
    (``houssiau2022``, §3.3 with the uniform inner product).

    Parameters
    ----------
    bins_a : Bins, B_a bins
    bins_b : Bins, optional, B_b bins over the same sizes (default ``bins_a``)

    Returns
    -------
    ndarray, shape (B_a, B_b)

    Raises
    ------
    ValueError
        The two sets of bins live on different domains.
    """
    if bins_b is None:
        bins_b = bins_a
    if not isinstance(bins_a, Bins) or not isinstance(bins_b, Bins):
        raise TypeError("bins_a and bins_b must be Bins")
    if bins_a.sizes != bins_b.sizes:
        raise ValueError(f"bins over different domains: sizes {bins_a.sizes} vs {bins_b.sizes}")
    a, b = bins_a.values, bins_b.values
    out = np.ones((a.shape[0], b.shape[0]))
    for j, n in enumerate(bins_a.sizes):
        ua, ub = a[:, j] >= 0, b[:, j] >= 0
        either = ua[:, None] | ub[None, :]
        out *= np.where(either, 1.0 / n, 1.0)
        clash = ua[:, None] & ub[None, :] & (a[:, j][:, None] != b[:, j][None, :])
        out[clash] = 0.0
    return out


def _closure(cliques) -> set[frozenset]:
    """Every subset of every clique, the empty set included."""
    out: set[frozenset] = {frozenset()}
    for clique in cliques:
        s = tuple(clique)
        for r in range(1, len(s) + 1):
            out.update(frozenset(c) for c in itertools.combinations(s, r))
    return out


def span_dimension(cliques, sizes) -> int:
    """Dimension of the span of the constant and all bins of ``cliques``.

    Σ_{U ∈ ↓cliques} Π_{a∈U} (n_a − 1), ↓ the set of all subsets (empty set included): the
    ANOVA decomposition under the uniform distribution. For all 2-way cliques this is
    1 + Σ_j (n_j − 1) + Σ_{i<j} (n_i − 1)(n_j − 1) (``houssiau2022``, App. 1: 119).

    Parameters
    ----------
    cliques : iterable of tuples of column indices
    sizes : sequence of int

    Returns
    -------
    int
    """
    sizes = _check_sizes(sizes)
    return sum(math.prod(sizes[a] - 1 for a in u) for u in _closure(cliques))


# --------------------------------------------------------------------------------------------
# candidate bins
# --------------------------------------------------------------------------------------------
def _card_parts(card):
    try:
        return tuple(card.columns), tuple(card.sizes), tuple(card.clique_indices)
    except AttributeError:
        raise TypeError(f"card must be a GeneratorCard, got {type(card).__name__}") from None


def candidate_bins(card, kind="next", *, n: int | None = None, random_state=None) -> Bins:
    """Candidate functions 𝒞 that probe Φ⊥ (``houssiau2022``, §3.3 and footnote 5).

    Parameters
    ----------
    card : GeneratorCard
    kind : "next", int or sequence of cliques
        ``"next"``: all bins of every (k+1)-subset of the columns, k the card's largest clique
        size (App. 1: all 3-way bins of a 2-way card); an int k: all bins of every k-subset;
        a sequence of cliques (tuples of column names): all bins of those cliques.
    n : int, optional
        Draw ``n`` of those bins uniformly at random without replacement (App. 3: 1000 of the
        17 799 3-way bins). Default: all of them.
    random_state : None, int or numpy Generator
        Used only with ``n``.

    Returns
    -------
    Bins
        Grouped by clique, cliques in ``itertools.combinations`` order.

    Raises
    ------
    ValueError
        ``kind`` not one of those forms, an order outside 1..d, an unknown column, or ``n``
        larger than the number of bins.
    """
    columns, sizes, cliques = _card_parts(card)
    d = len(columns)
    if isinstance(kind, str):
        if kind != "next":
            raise ValueError(
                f"kind must be 'next', an int order or a list of cliques, got {kind!r}"
            )
        order = max((len(c) for c in cliques), default=0) + 1
        if order > d:
            raise ValueError(
                f"kind='next': the card declares a clique over all {d} columns, so span(Φ) is "
                "every function of a record and there is nothing to probe"
            )
        subsets = list(itertools.combinations(range(d), order))
    elif isinstance(kind, numbers.Integral) and not isinstance(kind, bool):
        if not 1 <= kind <= d:
            raise ValueError(f"kind (an order) must be in 1..{d}, got {kind!r}")
        subsets = list(itertools.combinations(range(d), int(kind)))
    elif isinstance(kind, Sequence):
        subsets = []
        for clique in kind:
            if isinstance(clique, str) or not isinstance(clique, Sequence):
                raise TypeError(
                    f"each candidate clique must be a sequence of column names, got {clique!r}"
                )
            unknown = [c for c in clique if c not in columns]
            if unknown:
                raise ValueError(
                    f"candidate clique {tuple(clique)!r} names unknown column(s) "
                    f"{unknown}; the card's columns are {list(columns)}"
                )
            subsets.append(tuple(sorted(columns.index(c) for c in clique)))
    else:
        raise TypeError(
            f"kind must be 'next', an int or a list of cliques, got {type(kind).__name__}"
        )
    if n is None:
        return Bins.from_cliques(subsets, sizes, columns)
    n = check_positive_int(n, "n")
    table = np.array([math.prod(sizes[a] for a in s) for s in subsets], dtype=np.int64)
    total = int(table.sum())
    if n > total:
        raise ValueError(f"n = {n} exceeds the {total} candidate bins of kind {kind!r}")
    rng = check_random_state(random_state)
    picked = np.sort(rng.choice(total, size=n, replace=False))
    offsets = np.concatenate([[0], np.cumsum(table)])
    which = np.searchsorted(offsets, picked, side="right") - 1
    vals = np.full((n, d), -1, dtype=np.int64)
    for c in np.unique(which):
        rows = np.flatnonzero(which == c)
        s = subsets[c]
        local = picked[rows] - offsets[c]
        vals[np.ix_(rows, list(s))] = np.stack(
            np.unravel_index(local, tuple(sizes[a] for a in s)), axis=1
        )
    return Bins(vals, sizes, columns)


# --------------------------------------------------------------------------------------------
# the basis
# --------------------------------------------------------------------------------------------
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
        declared = _closure(self.card.clique_indices)
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
    columns, sizes, cliques = _card_parts(card)
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
