"""Marginal bins: the indicator functions 1[x_S = v] of a clique S and a value tuple v.

Houssiau et al. (2022) [``houssiau2022``], §3.3: the statistic of a bin on a dataset D is the
bin's frequency in D, a cell of the S-marginal. :class:`Bins` stores a set of bins as one int
array and evaluates them from marginal tables (frequencies, pointwise combinations, sparse
indicators), so no vector of length M is formed except on request for small domains.
"""

from __future__ import annotations

import math

import numpy as np

from .cells import CellCounts, all_cells, check_card_codes, check_cell_counts, check_sizes

__all__ = ["Bins"]


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
        self.sizes = check_sizes(sizes)
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
        sizes = check_sizes(sizes)
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
        sizes = check_sizes(sizes)
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
        x = check_card_codes(codes, self.sizes, self.columns)
        w = check_cell_counts(counts, x.shape[0])
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
        x = check_card_codes(codes, self.sizes, self.columns)
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

        x = check_card_codes(codes, self.sizes, self.columns)
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
