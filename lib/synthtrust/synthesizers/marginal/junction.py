"""Numpy inference on a fitted model: the junction tree of a clique structure with its message
schedule (:class:`TreePlan`), and :class:`JunctionTree`, the calibrated tree of a
:class:`~.model.FittedModel` that gives the marginal of any clique and synthetic records.

Source: mbi's ``make_junction_tree`` and ``MarkovRandomField.synthetic_data(method="round")``
[``mbi2026``]; McKenna, Sheldon & Miklau (ICML 2019) [``mckenna2019``].
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..._jax import import_mbi
from .counts import Clique
from .elimination import small_tree_order
from .factors import align_factor, contract_factors, logsumexp_keep, sum_to
from .model import FittedModel
from .sample import conditional_sample, round_sample


class TreePlan:
    """Junction tree of a clique structure with a precomputed message schedule (numpy).

    mbi's junction tree (``make_junction_tree``: maximal cliques of the graph triangulated by an
    elimination order, mbi's greedy one unless :func:`.elimination.small_tree_order` finds one with
    fewer cells); components joined by empty separators. Nodes are tuples of column
    positions sorted in one global order, so a separator's columns appear in the same order in both
    of its nodes and every alignment is a reshape. The order is the column positions, or with
    ``by_size`` the number of levels (then the positions): the largest column of a node is its last
    axis, so numpy's reductions and broadcasts run long inner loops (≈10× faster on wide nodes whose
    last position has 2 levels).
    """

    def __init__(self, sizes: Sequence[int], cliques: Sequence[Clique], by_size: bool = False):
        mbi = import_mbi()
        self.sizes = tuple(int(s) for s in sizes)
        d = len(self.sizes)
        domain = mbi.Domain(tuple(range(d)), self.sizes)
        cliques = [tuple(c) for c in cliques]
        order = small_tree_order(self.sizes, cliques)
        jtree, elim = mbi.junction_tree.make_junction_tree(domain, cliques, order)
        key = (lambda a: (self.sizes[a], a)) if by_size else None
        nodes = sorted(tuple(sorted(c, key=key)) for c in jtree.nodes)
        index = {c: i for i, c in enumerate(nodes)}
        adj: dict[int, set] = {i: set() for i in range(len(nodes))}
        for u, v in jtree.edges:
            iu, iv = index[tuple(sorted(u, key=key))], index[tuple(sorted(v, key=key))]
            adj[iu].add(iv)
            adj[iv].add(iu)
        seen, comps = set(), []
        for i in range(len(nodes)):
            if i in seen:
                continue
            stack, comp = [i], []
            seen.add(i)
            while stack:
                k = stack.pop()
                comp.append(k)
                for j in adj[k]:
                    if j not in seen:
                        seen.add(j)
                        stack.append(j)
            comps.append(comp)
        for c0, c1 in itertools.pairwise(comps):
            adj[c0[0]].add(c1[0])
            adj[c1[0]].add(c0[0])
        self.nodes = nodes
        self.adj = adj
        self.order = tuple(reversed(list(elim)))
        self.shapes = [tuple(self.sizes[a] for a in c) for c in nodes]
        parent = {0: None}
        bfs = [0]
        for k in bfs:
            for j in sorted(adj[k]):
                if j not in parent:
                    parent[j] = k
                    bfs.append(j)
        self.parent = parent
        self.bfs = bfs
        self.up = [(k, parent[k]) for k in reversed(bfs[1:])]
        self.down = [(parent[k], k) for k in bfs[1:]]
        # message i -> j: sum axes in node i, broadcast shape in node j
        self.msg = {}
        for i, j in self.up + self.down:
            sep = set(nodes[i]) & set(nodes[j])
            axes = tuple(t for t, a in enumerate(nodes[i]) if a not in sep)
            shape = tuple(self.sizes[a] if a in sep else 1 for a in nodes[j])
            self.msg[(i, j)] = (axes, shape)

    def host(self, clique: Sequence[int]) -> int | None:
        """Index of the smallest node containing ``clique`` (None if none does)."""
        best, size = None, None
        for i, c in enumerate(self.nodes):
            if set(clique) <= set(c):
                n = math.prod(self.shapes[i])
                if best is None or n < size:
                    best, size = i, n
        return best

    def embed(self, clique: Clique, node: int) -> tuple[tuple, tuple]:
        """(axes of ``node`` not in ``clique``, broadcast shape in ``node`` of an array over
        ``clique`` whose axes follow the node's column order)."""
        c = set(clique)
        nd = self.nodes[node]
        return (
            tuple(t for t, a in enumerate(nd) if a not in c),
            tuple(self.sizes[a] if a in c else 1 for a in nd),
        )

    def calibrate(self, log_psi: list, total: float) -> list:
        """Node beliefs (counts summing to ``total``) from node log-potentials (Hugin schedule:
        upward messages, then downward messages with the upward one subtracted).

        Works in place: the arrays of ``log_psi`` (float64, node shapes, owned by the caller and
        not read again) become the beliefs, so the calibration holds one table per node and one
        node-sized temporary at a time, not three copies of the tree."""
        msgs = {}
        acc = log_psi
        for i, j in self.up:
            axes, shape = self.msg[(i, j)]
            m = logsumexp_keep(acc[i], axes).reshape(shape)
            msgs[(i, j)] = m.copy() if not axes else m  # never a view of a table updated later
            acc[j] += m
        for i, j in self.down:
            axes, shape = self.msg[(i, j)]
            back = self.msg[(j, i)][1]
            acc[j] += logsumexp_keep(acc[i] - msgs[(j, i)].reshape(back), axes).reshape(shape)
        for b in acc:
            b -= b.max()
            np.exp(b, out=b)
            s = b.sum()
            if s > 0 and np.isfinite(s):
                b *= total / s
            else:
                b.fill(total / b.size)
        return acc


class JunctionTree:
    """Calibrated junction tree of a :class:`FittedModel`, in numpy.

    Built once per fitted model (message passing in log space over mbi's junction tree of the
    model cliques, components joined by empty separators). Gives the marginal of any clique
    (:meth:`marginal`, counts summing to the model total) and synthetic records (:meth:`sample`).
    """

    def __init__(self, model: FittedModel):
        self.sizes = tuple(model.sizes)
        self.total = float(model.total)
        plan = TreePlan(self.sizes, model.cliques)
        self.nodes, self.adj, self.order = plan.nodes, plan.adj, plan.order
        log_psi = [np.zeros(shape) for shape in plan.shapes]
        for cl, pot in model.log_potentials.items():
            host = plan.host(cl)
            log_psi[host] += align_factor(np.asarray(pot, dtype=float), cl, self.nodes[host])
        self._beliefs = plan.calibrate(log_psi, self.total)
        self._cond_cache: dict = {}
        self._sum_cache: dict = {}

    # -- marginals ------------------------------------------------------------------------------
    def _host(self, clique) -> int | None:
        best = None
        for i, c in enumerate(self.nodes):
            if set(clique) <= set(c) and (
                best is None or self._beliefs[i].size < self._beliefs[best].size
            ):
                best = i
        return best

    def _cond(self, k: int, p: int) -> np.ndarray:
        """P(node k | separator with p) = belief_k / belief_k summed onto the separator."""
        key = (k, p)
        if key not in self._cond_cache:
            nk = self.nodes[k]
            s = tuple(a for a in nk if a in self.nodes[p])
            b = self._beliefs[k]
            den = align_factor(sum_to(b, nk, s), s, nk)
            # 0 where the separator has no mass; one node-sized array (no quotient temporary)
            self._cond_cache[key] = np.divide(b, den, out=np.zeros_like(b), where=den > 0)
        return self._cond_cache[key]

    def marginal(self, clique: Sequence[int]) -> np.ndarray:
        """Model marginal over ``clique`` (positions, any order): ndarray of shape
        ``tuple(sizes[a] for a in clique)``, counts summing to the model total."""
        clique = tuple(clique)
        if len(clique) == 0:
            return np.array(self.total)
        host = self._host(clique)
        if host is not None:
            return sum_to(self._beliefs[host], self.nodes[host], clique)
        q = set(clique)
        alive, parent, bfs = self._subtree(q)
        root = bfs[0]
        msgs: dict = {}
        for k in reversed(bfs):
            p = parent[k]
            nk = self.nodes[k]
            factors = [(nk, self._beliefs[k] if p is None else self._cond(k, p))]
            carried = set()
            for j in self.adj[k]:
                if parent.get(j) == k and j in alive:
                    attrs, arr = msgs[j]
                    factors.append((attrs, arr))
                    carried |= set(attrs)
            present = set(nk) | carried
            if p is None:
                keep = clique
            else:
                s = [a for a in nk if a in self.nodes[p]]
                keep = tuple(s + sorted((present & q) - set(s)))
            msgs[k] = (keep, contract_factors(factors, keep))
        return msgs[root][1]

    def _subtree(self, q: set) -> tuple[set, dict, list]:
        """(nodes, parent of each, breadth-first order from the root ``min(nodes)``) of the
        smallest subtree whose nodes cover every column of ``q`` (removable leaves pruned)."""
        alive = set(range(len(self.nodes)))
        changed = True
        while changed:
            changed = False
            for k in sorted(alive):
                deg = sum(1 for j in self.adj[k] if j in alive)
                if deg > 1 or len(alive) == 1:
                    continue
                needed = [a for a in self.nodes[k] if a in q]
                if all(any(a in self.nodes[j] for j in alive if j != k) for a in needed):
                    alive.remove(k)
                    changed = True
        root = min(alive)
        parent = {root: None}
        bfs = [root]
        for k in bfs:
            for j in sorted(self.adj[k]):
                if j in alive and j not in parent:
                    parent[j] = k
                    bfs.append(j)
        return alive, parent, bfs

    def marginals(self, cliques: Sequence[Sequence[int]]) -> dict:
        """The marginals of many cliques at once: ``{tuple(clique): marginal(clique)}`` (equal to
        :meth:`marginal` up to rounding).

        A clique inside a node is summed from its smallest host (as :meth:`marginal`). The pairs
        (a, b) in no common node are grouped by their source column a (the one with fewer levels):
        one sweep from a's host outwards carries P(a, separator) from node to node, P(a, s') =
        Σ_s P(a, s)·P(s' | s) and P(a, b) = Σ_s P(a, s)·P(b | s), where P(· | s) are projections
        of the node conditionals cached across sources; no array of |a|·|node| cells is formed, and
        each node is visited once per source instead of once per pair. Larger cliques in no node
        fall back to :meth:`marginal`.
        """
        out: dict = {}
        pending: dict = {}
        for c in map(tuple, cliques):
            if c in out:
                continue
            host = self._host(c) if len(set(c)) == len(c) else None
            if host is not None:
                out[c] = self._reduce(("b", host), self._beliefs[host], self.nodes[host], c)
                continue
            if len(c) != 2 or c[0] == c[1]:
                out[c] = self.marginal(c)
                continue
            a, b = sorted(c, key=lambda x: (self.sizes[x], x))
            pending.setdefault(a, set()).add(b)
        wanted = {tuple(c) for c in cliques}
        for a, targets in pending.items():
            for b, m in self._pair_sweep(a, targets).items():
                if (a, b) in wanted:
                    out[(a, b)] = m
                if (b, a) in wanted:
                    out[(b, a)] = m.T
        return out

    def _reduce(self, tag: tuple, base: np.ndarray, attrs: tuple, keep: tuple) -> np.ndarray:
        """``sum_to(base, attrs, keep)`` through cached partial sums: the columns not kept are
        summed out one at a time, largest first, and every intermediate table is cached under
        (``tag``, its columns), so the marginals of one node share their first reductions."""
        while sum(1 for x in attrs if x not in keep) > 1:
            drop = max((x for x in attrs if x not in keep), key=lambda x: (self.sizes[x], x))
            rest = tuple(x for x in attrs if x != drop)
            key = (tag, rest)
            if key not in self._sum_cache:
                self._sum_cache[key] = sum_to(base, attrs, rest)
            base, attrs = self._sum_cache[key], rest
        return sum_to(base, attrs, keep)

    def clique_marginals(self, cliques: Sequence[Sequence[int]]) -> dict:
        """The marginals of many cliques of any size at once: ``{tuple(clique):
        marginal(clique)}`` (equal to :meth:`marginal` up to rounding).

        Cliques inside a node and pairs go to :meth:`marginals`. A larger clique in no node is
        contracted over the smallest subtree covering it (as :meth:`marginal`), but every node
        factor first loses the columns that are neither in the clique nor in a separator with
        another node of the subtree: the root's belief and the conditionals P(node | separator
        with its parent) are summed down through :meth:`_reduce`, whose partial sums are cached
        and shared by all cliques that meet the node. The contraction then runs on tables of a
        few columns instead of whole nodes (PrivMRF's candidate marginals, Cai et al. 2021
        [``cai2021``] §5: hundreds of 3- to 6-way subsets of the attribute-graph cliques, each
        scored by a separate variable elimination before).
        """
        out: dict = {}
        batched = []
        for c in map(tuple, cliques):
            if c in out:
                continue
            if len(c) <= 2 or len(set(c)) < len(c) or self._host(c) is not None:
                batched.append(c)
            else:
                out[c] = self._covered_marginal(c)
        out.update(self.marginals(batched))
        return out

    def _covered_marginal(self, clique: tuple) -> np.ndarray:
        """:meth:`marginal` of a clique in no node (distinct columns), from node factors
        reduced to the clique's columns and the subtree's separators (see
        :meth:`clique_marginals`)."""
        q = set(clique)
        _, parent, bfs = self._subtree(q)
        factors = []
        for k in bfs:
            nk = self.nodes[k]
            near = [parent[k]] + [j for j in bfs if parent[j] == k]
            need = q | {a for j in near if j is not None for a in self.nodes[j]}
            keep = tuple(a for a in nk if a in need)
            if parent[k] is None:
                arr = self._reduce(("b", k), self._beliefs[k], nk, keep)
            else:
                arr = self._reduce(("c", k, parent[k]), self._cond(k, parent[k]), nk, keep)
            factors.append((keep, arr))
        return contract_factors(factors, clique)

    def _pair_sweep(self, a: int, targets: set) -> dict:
        """{b: P(a, b)} for columns b sharing no node with a (see :meth:`marginals`)."""
        start = self._host((a,))
        parent, bfs = {start: None}, [start]
        for k in bfs:
            for j in sorted(self.adj[k]):
                if j not in parent:
                    parent[j] = k
                    bfs.append(j)
        first = {}  # b -> the node nearest to a's host that contains b
        for k in bfs:
            for b in self.nodes[k]:
                if b in targets and b not in first:
                    first[b] = k
        needed = set()
        for k in first.values():
            while k is not None and k not in needed:
                needed.add(k)
                k = parent[k]
        carried: dict = {}  # node k without a -> ((a,) + separator with its parent, P(a, sep))
        found = {}
        for k in bfs:
            if k not in needed:
                continue
            nk = self.nodes[k]
            if a not in nk:
                sep_attrs, msg = carried[k]
                s = sep_attrs[1:]
                for b in (b for b, n in first.items() if n == k):
                    keep = tuple(sorted(set(s) | {b}))
                    cond = self._reduce(("c", k, parent[k]), self._cond(k, parent[k]), nk, keep)
                    found[b] = contract_factors([(sep_attrs, msg), (keep, cond)], (a, b))
            for j in self.adj[k]:
                if parent.get(j) != k or j not in needed or a in self.nodes[j]:
                    continue
                s2 = tuple(x for x in nk if x in self.nodes[j])
                if a in nk:
                    carried[j] = (
                        (a,) + s2,
                        self._reduce(("b", k), self._beliefs[k], nk, (a,) + s2),
                    )
                else:
                    keep = tuple(sorted(set(s) | set(s2)))
                    cond = self._reduce(("c", k, parent[k]), self._cond(k, parent[k]), nk, keep)
                    carried[j] = (
                        (a,) + s2,
                        contract_factors([(sep_attrs, msg), (keep, cond)], (a,) + s2),
                    )
        return found

    # -- sampling -------------------------------------------------------------------------------
    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` synthetic records, int64 array (n, d).

        mbi's ``synthetic_data(method="round")`` algorithm [``mbi2026``]: columns in reverse
        elimination order; the first column of each component by randomised rounding of its
        marginal scaled to ``n`` (integer parts, the remaining units drawn without replacement ∝
        fractional parts, shuffled); every next column conditionally on its already generated
        neighbours (its parents, which share a junction-tree node with it), within each parent
        configuration by stratified uniforms (rank + U)/group size on a random order — so the
        conditional frequencies match the model almost exactly. A parent configuration of model
        probability 0 falls back to the column's marginal. All randomness from ``rng``.
        """
        d = len(self.sizes)
        out = np.zeros((n, d), dtype=np.int64)
        used: list[int] = []
        for col in self.order:
            near = set()
            for c in self.nodes:
                if col in c:
                    near |= set(c)
            parents = tuple(a for a in used if a in near)
            host = self._host(parents + (col,))
            if host is not None:
                marg = sum_to(self._beliefs[host], self.nodes[host], parents + (col,))
            else:  # not expected (parents ∪ {col} is a clique of the chordal graph)
                marg = self.marginal(parents + (col,))
            k = self.sizes[col]
            if not parents:
                out[:, col] = round_sample(marg.reshape(-1), n, rng)
            else:
                out[:, col] = conditional_sample(
                    marg.reshape(-1, k),
                    out[:, list(parents)],
                    [self.sizes[a] for a in parents],
                    rng,
                )
            used.append(col)
        return out
