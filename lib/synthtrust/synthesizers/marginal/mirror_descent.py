"""The mirror-descent iteration of Private-PGM estimation, in two backends: one jitted JAX program
per clique structure (mbi's loss and message passing) and a numpy port (no compilation; one
exponential a junction-tree node a step, columns laid out by size). Both follow the same iterates
up to rounding: Armijo line search, one oracle call per step.

Source: McKenna, Sheldon & Miklau (ICML 2019) [``mckenna2019``], Alg. 1; mbi 2.0's
``MirrorDescent`` [``mbi2026``].
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..._jax import configure_jax, import_mbi
from .counts import Clique
from .junction import TreePlan
from .measurement import Measurement
from .reduction import SharedBroadcast, SharedReduction


@functools.lru_cache(maxsize=1)
def fit_program():
    """One jitted program: mirror-descent initialisation, ``steps`` steps, final potentials.

    The algorithm of mbi's ``MirrorDescent`` (McKenna, Sheldon & Miklau, ICML 2019, Alg. 1):
    μ = oracle(θ) (marginals of the potentials θ, scaled to the total N); g = ∂L/∂μ;
    θ' = θ − α·g; Armijo test L(μ) − L(μ') ≥ ½·α·⟨g, μ − μ'⟩: accept (α ← 1.01α) or keep θ
    (α ← α/2); initial α = 2/(L_lip·N). Our step carries the marginals of the accepted potentials,
    so it calls the oracle (mbi's default message passing) once per step instead of twice — the
    same iterates at about half the run time. Compiled once per clique structure (cliques and
    measurement cliques are static); ``steps``, the noisy values, σ and N are dynamic.
    """
    jax = configure_jax()
    mbi = import_mbi()
    state_cls = mbi.estimation.MirrorDescentState
    est = mbi.estimation.MirrorDescent()

    def run(potentials, loss_fn, total, steps):
        oracle = est._oracle(loss_fn.cliques, potentials.domain)
        mu = oracle(potentials, total)

        def step(_, s):
            loss, grad = jax.value_and_grad(loss_fn)(s.mu)
            theta = s.potentials - s.alpha * grad
            mu2 = oracle(theta, total)
            loss2 = loss_fn(mu2)
            ok = loss - loss2 >= 0.5 * s.alpha * grad.dot(s.mu - mu2)
            alpha = jax.lax.select(ok, 1.01 * s.alpha, 0.5 * s.alpha)
            pots, marg = jax.lax.cond(ok, lambda: (theta, mu2), lambda: (s.potentials, s.mu))
            return state_cls(marg, pots, alpha, jax.lax.select(ok, loss2, loss))

        alpha = 2.0 / (loss_fn.lipschitz * total)
        state = jax.lax.fori_loop(0, steps, step, state_cls(mu, potentials, alpha, loss_fn(mu)))
        return state.potentials, state.loss

    return jax.jit(run)


class DescentState(NamedTuple):
    """The state of a numpy mirror-descent run between steps (as mbi's ``MirrorDescentState``,
    plus the gradient, so that a step calls the marginal oracle once).

    Attributes
    ----------
    theta : list of ndarray
        Log-potentials, one array per potential clique (shape: the clique's levels).
    mu : list of ndarray
        Their marginals (counts summing to the total N; same shapes).
    loss : float
        L(mu), the L2 loss Σ_M ½‖(Q_M μ − y_M)/σ_M‖² (dimensionless).
    grad : list of ndarray
        ∂L/∂μ at ``mu`` (same shapes, 1/records).
    alpha : float
        The next step size (the Armijo line search's current α).
    """

    theta: list
    mu: list
    loss: float
    grad: list
    alpha: float


#: numpy's pairwise summation (``pairwise_sum`` of its add loop): runs of at most this many
#: elements are summed with 8 accumulators, longer runs are split in two at a multiple of 8
_PW_BLOCK = 128
_add_reduce = np.add.reduce
_max_reduce = np.maximum.reduce
_min_reduce = np.minimum.reduce


class _SegmentSums:
    """The sums of consecutive segments of a flat float64 vector, each equal bit for bit to
    ``np.add.reduce`` of the segment, in a few vectorized calls instead of one call a segment.

    numpy sums a contiguous run by pairwise summation: a run of n < 8 elements sequentially
    from 0; 8 ≤ n ≤ 128 with 8 accumulators r_j = a_j + a_{j+8} + … over the whole rows of 8,
    then ((r_0 + r_1) + (r_2 + r_3)) + ((r_4 + r_5) + (r_6 + r_7)), then the n mod 8 last
    elements one by one; a longer run as the sum of its two halves (the first of n//2 rounded
    down to a multiple of 8 elements). Here every run of at most 128 elements ("leaf") is laid
    out in a zero-padded (rows, leaves, 8) gather summed over the rows (an outer-axis reduction:
    sequential, and a zero added changes nothing), the accumulators are combined column-wise and
    the tail is added by another outer-axis reduction; the halves of longer segments are then
    added level by level. With few segments, or segments so unequal that the padding would
    dominate, the segments are summed one call each (``vectorized`` False).

    Parameters
    ----------
    lengths : sequence of int
        Segment lengths (cells; the segments are consecutive from index 0).
    zero : int
        Index of a cell of every summed vector that holds 0.0 (the padding).
    """

    def __init__(self, lengths: Sequence[int], zero: int):
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.intp)
        self.bounds = [(int(s), int(s) + int(n)) for s, n in zip(starts, lengths, strict=True)]
        leaves: list = []  # (start, length) of each run of at most _PW_BLOCK elements
        adds: list = []  # (height, left id, right id): ids < len(leaves) are leaves

        def split(s: int, n: int) -> tuple[int, int]:  # (id, height) of the run's sum
            if n <= _PW_BLOCK:
                leaves.append((s, n))
                return ("leaf", len(leaves) - 1), 0
            n2 = n // 2
            n2 -= n2 % 8
            (left, hl), (right, hr) = split(s, n2), split(s + n2, n - n2)
            adds.append((1 + max(hl, hr), left, right))
            return ("add", len(adds) - 1), 1 + max(hl, hr)

        tops = [split(int(s), int(n))[0] for s, n in zip(starts, lengths, strict=True)]
        nl = max(len(leaves), 2)  # two leaves at least: a (…, 1) reduction would be pairwise
        rows = max([n // 8 for _, n in leaves] + [0])
        gathered = rows * nl * 8 + 7 * nl
        self.vectorized = len(lengths) >= 4 and gathered <= 4 * sum(lengths) + 4096
        if not self.vectorized:
            return
        main = np.full((rows, nl, 8), zero, dtype=np.intp)
        tail = np.full((7, nl), zero, dtype=np.intp)
        for i, (s, n) in enumerate(leaves):
            full = n // 8
            main[:full, i, :] = s + np.arange(full * 8).reshape(full, 8)
            tail[: n % 8, i] = s + full * 8 + np.arange(n % 8)
        self.main, self.tail = main, tail
        self.main_buf = np.empty(main.shape)
        self.tail_buf = np.empty((8, nl))
        ids = {("leaf", i): i for i in range(len(leaves))}
        self.levels = []  # (ids to write, left ids, right ids) of the halves' sums, by height
        for h in sorted({a[0] for a in adds}):
            out, left, right = [], [], []
            for k, (hk, lt, rt) in enumerate(adds):
                if hk == h:
                    ids[("add", k)] = nl + k
                    out.append(nl + k)
                    left.append(ids[lt])
                    right.append(ids[rt])
            self.levels.append(tuple(np.array(v, dtype=np.intp) for v in (out, left, right)))
        self.n_vals = nl + len(adds)
        roots = np.array([ids[t] for t in tops], dtype=np.intp)
        self.roots = None if np.array_equal(roots, np.arange(len(lengths))) else roots

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The segment sums of ``x`` (float64 vector; its ``zero`` cell must hold 0.0): an
        array of one float a segment."""
        if not self.vectorized:
            return np.array([_add_reduce(x[s:e]) for s, e in self.bounds])
        tb = self.tail_buf
        if self.main.shape[0]:
            r = _add_reduce(x.take(self.main, out=self.main_buf), axis=0)
            r = r[:, 0::2] + r[:, 1::2]
            r = r[:, 0::2] + r[:, 1::2]
            np.add(r[:, 0], r[:, 1], out=tb[0])
        else:
            tb[0] = 0.0
        x.take(self.tail, out=tb[1:])
        leaf = _add_reduce(tb, axis=0)
        if not self.levels:
            return leaf if self.roots is None else leaf[self.roots]
        vals = np.empty(self.n_vals)
        vals[: leaf.size] = leaf
        for out, left, right in self.levels:
            vals[out] = vals[left] + vals[right]
        return vals[self.roots]


class NumpyMirrorDescent:
    """The mirror-descent iteration of :func:`fit_program` in numpy.

    Same loss (mbi's L2 loss over the merged measurements, each routed to the smallest potential
    clique containing it), same oracle (message passing on mbi's junction tree:
    :meth:`marginals`), same Armijo step rule and initial step; no compilation, so a new clique
    structure costs nothing. With a plan built ``by_size`` (as :class:`PGMFitter` does) the wide
    node arrays have their largest column last, which keeps numpy's reductions fast; a potential
    is transposed to its node's column order and its marginal back to the clique's order.

    Layout (everything static is worked out here, so that a step is a fixed sequence of numpy
    calls on preallocated buffers): the log-potentials θ and the gradient g are flat float64
    vectors, one segment a potential clique in the clique's column order (C order); the
    marginals μ are a flat vector with the same segments in the host node's column order (the
    memory layout of the node arrays they are summed from); a node's array is summed onto the
    cliques it hosts through shared partial sums (:class:`.SharedReduction`: a node hosting one
    clique gives the bits of a per-clique implementation, several differ by the order of the
    additions). θ − αg,
    the gradient (gathers of the measurement residuals), the Armijo inner product ⟨g, μ − μ'⟩
    and the per-clique sums (:class:`_SegmentSums`) are a few vectorized calls each; only the
    message passing, the node reductions and the per-measurement residual norms
    (BLAS ``ddot``) remain one call each. Per-clique lists (:class:`DescentState`,
    :meth:`marginals`, :meth:`loss_grad`) are copied in and out at the edges.
    """

    def __init__(
        self, plan: TreePlan, cliques: Sequence[Clique], measurements: Sequence[Measurement]
    ):
        self.plan = plan
        sizes = plan.sizes
        self.cliques = [tuple(c) for c in cliques]
        nk = len(self.cliques)
        # --- potential cliques: host node, axes summed out, broadcast shape, axis permutation
        self.pot_embed = []
        self.cshape, self.nshape, self.inv = [], [], []
        for c in self.cliques:
            h = plan.host(c)
            perm = tuple(sorted(range(len(c)), key=lambda t: plan.nodes[h].index(c[t])))
            self.pot_embed.append((h, *plan.embed(c, h), perm))
            self.cshape.append(tuple(sizes[a] for a in c))
            self.nshape.append(tuple(sizes[c[t]] for t in perm))
            self.inv.append(tuple(int(t) for t in np.argsort(perm)))
        cell = [math.prod(s) for s in self.cshape]
        off = np.concatenate([[0], np.cumsum(cell)]).astype(np.intp)
        self.seg = [(int(off[k]), int(off[k + 1])) for k in range(nk)]
        n = self.n_cells = int(off[-1])

        # --- measurements, routed as CliqueVector.parent (first smallest clique containing them)
        self.meas = []
        routed = [[] for _ in range(nk)]
        for j, m in enumerate(measurements):
            cands = [i for i, c in enumerate(self.cliques) if set(m.clique) <= set(c)]
            k = min(cands, key=lambda i: cell[i])
            pc = self.cliques[k]
            axes = tuple(t for t, a in enumerate(pc) if a not in m.clique)
            shape = tuple(sizes[a] if a in m.clique else 1 for a in pc)
            w = None if m.weights is None else np.asarray(m.weights, dtype=float)
            prec = 1.0 / max(float(m.stddev), 1e-12) ** 2
            self.meas.append((k, axes, shape, w, np.asarray(m.values, dtype=float), prec))
            routed[k].append(j)
        self._init_measurements(routed, off)

        # --- node log-potentials: per node the sum of its hosted potentials (their axes in the
        # node: `spans`), through shared partial sums
        hosted = [[] for _ in plan.nodes]
        for k, (h, *_) in enumerate(self.pot_embed):
            hosted[h].append(k)
        spans = [
            [[t for t in range(len(plan.nodes[h])) if t not in self.pot_embed[k][1]] for k in ks]
            for h, ks in enumerate(hosted)
        ]
        self.buffers = [np.empty(shape) for shape in plan.shapes]
        self.node_fill = [  # None: a node hosting no potential
            SharedBroadcast(shape, span) if span else None
            for shape, span in zip(plan.shapes, spans, strict=True)
        ]

        # --- message passing schedule: upward edges (child, parent) and the matching downward
        index = {e: t for t, e in enumerate(plan.up)}
        self.up_plan = []
        for i, j in plan.up:
            axes, pshape = plan.msg[(i, j)]
            self.up_plan.append((i, j, axes, pshape))
        self.down_plan = []
        for j, i in plan.down:
            axes, cshape = plan.msg[(j, i)]
            self.down_plan.append((j, i, axes, cshape, index[(i, j)], math.prod(cshape) == 1))
        self.root = plan.bfs[0]

        # --- buffers: 0 and 1 alternate between the current and the trial point of a step, 2
        # serves the per-clique-list methods. μ buffers hold [μ | 0.0 | partial-measurement sums]
        self.theta_buf = [np.zeros(n + 1) for _ in range(3)]
        self.grad_buf = [np.zeros(n + 1) for _ in range(3)]
        self.mu_buf = [np.zeros(n + 1 + self.n_partial) for _ in range(3)]
        self.node_views = [  # per θ buffer, per node: the views of its hosted potentials
            [[views[k] for k in ks] for ks in hosted]
            for views in (self._theta_terms(b) for b in self.theta_buf)
        ]
        self.mu_node = [
            [b[s:e].reshape(self.nshape[k]) for k, (s, e) in enumerate(self.seg)]
            for b in self.mu_buf
        ]
        self.partial_out = [
            [b[s:e].reshape(shape) for s, e, shape in self.partial_slots] for b in self.mu_buf
        ]
        self.node_sums = [  # per node: its hosted potentials' marginals from shared sums
            (
                h,
                SharedReduction(plan.shapes[h], spans[h]),
                [[v[k] for k in ks] for v in self.mu_node],
            )
            for h, ks in enumerate(hosted)
            if ks
        ]
        self.sums = _SegmentSums(cell, n)
        self.scale_index = np.repeat(np.arange(nk), cell)
        self.step_buf = np.empty(n)
        self.diff_buf = np.zeros(n + 1)
        self.prod_buf = np.zeros(n + 1)
        self._init_dot(routed, off)

    # -- static set-up -----------------------------------------------------------------------
    def _init_measurements(self, routed: list, off: np.ndarray) -> None:
        """Index arrays of the loss: residuals r = V·w − y of all measurements in one vector
        (each measurement's cells in the order of its potential clique's columns, C order);
        V gathered from the μ buffer, where a measurement that sums out columns first writes
        its reduction (in node column order) after the marginals."""
        sizes = self.plan.sizes
        m_cells = [math.prod(s) for _, _, s, *_ in self.meas]
        moff = np.concatenate([[0], np.cumsum(m_cells)]).astype(np.intp)
        nm = int(moff[-1])
        n = int(off[-1])
        gather = np.empty(nm, dtype=np.intp)
        self.partial_slots = []  # (start, stop, node-order shape) in the μ buffer
        self.partial = []  # (clique, node axes summed out, slot)
        pos = n + 1
        for j, (k, axes, _, *_rest) in enumerate(self.meas):
            h, _, _, perm = self.pot_embed[k]
            c = self.cliques[k]
            if not axes:
                gather[moff[j] : moff[j + 1]] = (
                    off[k]
                    + np.transpose(
                        np.arange(m_cells[j]).reshape(self.nshape[k]), self.inv[k]
                    ).ravel()
                )
                continue
            kept_c = [t for t in range(len(c)) if t not in axes]  # clique positions kept
            node_pos = [perm.index(t) for t in range(len(c))]  # clique axis -> node-order axis
            axes_n = tuple(sorted(node_pos[t] for t in axes))
            kept_n = sorted(node_pos[t] for t in kept_c)  # node-order axes kept, in order
            nshape = tuple(sizes[c[perm[a]]] for a in kept_n)
            q = [kept_n.index(node_pos[t]) for t in kept_c]  # node-order result -> clique order
            gather[moff[j] : moff[j + 1]] = (
                pos + np.transpose(np.arange(m_cells[j]).reshape(nshape), q).ravel()
            )
            self.partial_slots.append((pos, pos + m_cells[j], nshape))
            self.partial.append((k, axes_n, len(self.partial_slots) - 1))
            pos += m_cells[j]
        self.n_partial = pos - n - 1
        self.meas_gather = gather
        self.meas_y = np.concatenate([y for *_, y, _ in self.meas]) if self.meas else np.zeros(0)
        weighted = any(w is not None for _, _, _, w, _, _ in self.meas)
        self.meas_w = (
            np.concatenate(
                [
                    np.ones(c) if w is None else w
                    for (_, _, _, w, _, _), c in zip(self.meas, m_cells, strict=True)
                ]
            )
            if weighted
            else None
        )
        self.meas_prec = np.repeat([p for *_, p in self.meas], m_cells).astype(float)
        self.half_prec = [0.5 * p for *_, p in self.meas]
        self.resid = np.empty(nm)
        self.resid_views = [self.resid[moff[j] : moff[j + 1]] for j in range(len(self.meas))]
        self.gvec = np.zeros(nm + 1)  # [gradient of the measured values | 0.0]
        # gradient of clique k = Σ over its measurements (in order) of the broadcast gradient
        # of the measured values: one gather per rank
        depth = max([len(r) for r in routed] + [1])
        self.grad_gather = np.full((depth, n), nm, dtype=np.intp)
        for k, js in enumerate(routed):
            s = int(off[k])
            for t, j in enumerate(js):
                shape = self.meas[j][2]
                idx = np.broadcast_to(np.arange(m_cells[j]).reshape(shape), self.cshape[k])
                self.grad_gather[t, s : s + idx.size] = moff[j] + idx.ravel()
        self.grad_tmp = np.empty(n)

    def _init_dot(self, routed: list, off: np.ndarray) -> None:
        """Order of the cells in ⟨g, μ − μ'⟩: per clique, the memory order numpy gives the
        product g_k·(μ_k − μ'_k) of a C-ordered gradient and a marginal laid out in node order
        (found by forming that product on zeros), so that its pairwise sum is the same."""
        gidx, didx = [], []
        for k in range(len(self.cliques)):
            cs = self.cshape[k]
            g = None
            for j in routed[k]:
                gv = np.zeros(self.meas[j][2])
                g = gv if g is None else g + gv
            if g is None:
                g = np.zeros(cs)
            a = np.transpose(np.zeros(self.nshape[k]), self.inv[k])
            p = g * (a - a)
            order = sorted(
                range(len(cs)), key=lambda t: (-abs(p.strides[t]) if cs[t] > 1 else 0, t)
            )
            cpos = np.arange(p.size).reshape(cs)
            npos = np.transpose(np.arange(p.size).reshape(self.nshape[k]), self.inv[k])
            gidx.append(off[k] + np.transpose(cpos, order).ravel())
            didx.append(off[k] + np.transpose(npos, order).ravel())
        gidx, didx = np.concatenate(gidx).astype(np.intp), np.concatenate(didx).astype(np.intp)
        self.dot_g = None if np.array_equal(gidx, np.arange(gidx.size)) else gidx
        self.dot_mu = didx

    def _theta_terms(self, buf: np.ndarray) -> list:
        """Views of a θ buffer: each potential transposed to its node's column order and
        shaped to broadcast in the node."""
        out = []
        for k, (_, _, shape, perm) in enumerate(self.pot_embed):
            s, e = self.seg[k]
            out.append(np.transpose(buf[s:e].reshape(self.cshape[k]), perm).reshape(shape))
        return out

    # -- the oracle on the flat buffers ------------------------------------------------------
    def _fill_nodes(self, b: int) -> list:
        """Node log-potentials of θ buffer ``b`` (into the node buffers): per node the sum of
        its hosted potentials broadcast to the node (:class:`.SharedBroadcast`)."""
        for buf, fill, terms in zip(self.buffers, self.node_fill, self.node_views[b], strict=True):
            if fill is None:
                buf.fill(0.0)
            else:
                fill(terms, buf)
        return self.buffers

    def _linear_pass(self, total: float, b: int) -> bool:
        """Hugin message passing in linear space on the node buffers (filled by
        :meth:`_fill_nodes`), the potential marginals written into μ buffer ``b`` and scaled to
        ``total``; False (buffer undefined) when a node's mass underflows, as
        :meth:`_linear_marginals` returns None."""
        acc = self.buffers
        ups = []
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for i, j, axes, pshape in self.up_plan:
                a = acc[i]
                m = _max_reduce(a, axis=None)
                if not math.isfinite(m):
                    return False
                np.subtract(a, m, out=a)
                np.exp(a, out=a)
                u = _add_reduce(a, axis=axes)
                ups.append(u)
                acc[j] += np.log(u.reshape(pshape))
            a = acc[self.root]
            m = _max_reduce(a, axis=None)
            if not math.isfinite(m):
                return False
            np.subtract(a, m, out=a)
            np.exp(a, out=a)
            for j, i, axes, cshape, t, single in self.down_plan:
                sent = ups[t].reshape(cshape)
                ratio = _add_reduce(acc[j], axis=axes).reshape(cshape) / sent
                if single:  # one cell: ratio / max = 1 exactly, nothing to multiply
                    if not 0.0 < float(ratio.flat[0]) < math.inf:
                        return False
                    continue
                top = _max_reduce(ratio, axis=None)
                if not 0.0 < top < math.inf:  # a non-finite or zero ratio: the full rule
                    if np.isinf(ratio[sent > 0]).any():  # a subnormal message
                        return False
                    ratio[~np.isfinite(ratio)] = 0.0  # the child has no mass there
                    top = ratio.max()
                    if not top > 0:
                        return False
                np.divide(ratio, top, out=ratio)
                np.multiply(acc[i], ratio, out=acc[i])
            self._reduce_to_cliques(acc, b)
            mu = self.mu_buf[b]
            scales = np.divide(total, self.sums(mu))
            # a subnormal node mass passes s > 0 but makes total / s overflow: finite scales only
            if not (_min_reduce(scales) > 0.0 and _max_reduce(scales) < math.inf):
                return False
        n = self.n_cells
        np.multiply(mu[:n], scales.take(self.scale_index), out=mu[:n])
        return True

    def _reduce_to_cliques(self, node_arrays: list, b: int) -> None:
        """Each node array summed onto its hosted potential cliques (node column order), into
        μ buffer ``b``, through the node's shared partial sums (:class:`.SharedReduction`)."""
        for h, reduction, outs in self.node_sums:
            reduction(node_arrays[h], outs[b])

    def _marginals_flat(self, total: float, b: int) -> None:
        """μ buffer ``b`` = the marginals of θ buffer ``b`` (:meth:`_linear_pass`, or the
        log-space calibration of the plan when it underflows)."""
        self._fill_nodes(b)
        if not self._linear_pass(total, b):
            log_psi = [x.copy() for x in self._fill_nodes(b)]
            self._reduce_to_cliques(self.plan.calibrate(log_psi, total), b)

    def _loss_grad_flat(self, b: int) -> float:
        """L(μ) of μ buffer ``b``, and ∂L/∂μ into gradient buffer ``b`` (clique column order)."""
        mu = self.mu_buf[b]
        nodes, outs = self.mu_node[b], self.partial_out[b]
        for k, axes, slot in self.partial:
            _add_reduce(nodes[k], axis=axes, out=outs[slot])
        r = self.resid
        mu.take(self.meas_gather, out=r)
        if self.meas_w is not None:
            np.multiply(r, self.meas_w, out=r)
        np.subtract(r, self.meas_y, out=r)
        val = 0.0
        for h, rv in zip(self.half_prec, self.resid_views, strict=True):
            val += h * float(rv.dot(rv))
        gv = self.gvec[:-1]
        np.multiply(r, self.meas_prec, out=gv)
        if self.meas_w is not None:
            np.multiply(gv, self.meas_w, out=gv)
        g = self.grad_buf[b][: self.n_cells]
        self.gvec.take(self.grad_gather[0], out=g)
        for idx in self.grad_gather[1:]:
            np.add(g, self.gvec.take(idx, out=self.grad_tmp), out=g)
        return val

    def _armijo_dot(self, c: int, o: int) -> float:
        """⟨g, μ − μ'⟩ of the gradient and marginals of buffer ``c`` and the marginals of
        buffer ``o``: per clique the pairwise sum of the product in the memory order numpy
        gives it (:meth:`_init_dot`), the clique sums added in order."""
        n = self.n_cells
        d = self.diff_buf[:n]
        np.subtract(self.mu_buf[c][:n], self.mu_buf[o][:n], out=d)
        p = self.prod_buf
        g = self.grad_buf[c][:n] if self.dot_g is None else self.grad_buf[c].take(self.dot_g)
        np.multiply(g, d.take(self.dot_mu), out=p[:n])
        return sum(self.sums(p).tolist())

    # -- per-clique lists in and out ---------------------------------------------------------
    def _load_theta(self, theta: list, b: int) -> None:
        buf = self.theta_buf[b]
        for (s, e), shape, t in zip(self.seg, self.cshape, theta, strict=True):
            np.copyto(buf[s:e].reshape(shape), t)

    def _load_mu(self, mu: list, b: int) -> None:
        for k, (out, v) in enumerate(zip(self.mu_node[b], mu, strict=True)):
            np.copyto(out, np.transpose(v, self.pot_embed[k][3]))

    def _load_grad(self, grad: list, b: int) -> None:
        buf = self.grad_buf[b]
        for (s, e), shape, gk in zip(self.seg, self.cshape, grad, strict=True):
            np.copyto(buf[s:e].reshape(shape), 0.0 if gk is None else gk)

    def _clique_list(self, buf: np.ndarray) -> list:
        """Copies of the segments of a clique-ordered buffer, one array a clique."""
        flat = buf[: self.n_cells].copy()
        return [
            flat[s:e].reshape(shape) for (s, e), shape in zip(self.seg, self.cshape, strict=True)
        ]

    def _mu_list(self, b: int) -> list:
        """Copies of the marginals of μ buffer ``b`` in clique column order (views of one
        node-ordered copy, as the node reductions lay them out)."""
        flat = self.mu_buf[b][: self.n_cells].copy()
        return [
            np.transpose(flat[s:e].reshape(ns), inv)
            for (s, e), ns, inv in zip(self.seg, self.nshape, self.inv, strict=True)
        ]

    def marginals(self, theta: list, total: float) -> list:
        """Marginals of the potential cliques (counts summing to ``total``; one array a clique,
        axes in the clique's order) of the model with log-potentials ``theta`` (one array a
        clique): :meth:`_marginals_flat`, the same oracle as a step's (the linear pass, or the
        plan's log-space calibration when that underflows, not expected for fitted models)."""
        self._load_theta(theta, 2)
        self._marginals_flat(total, 2)
        return self._mu_list(2)

    def _linear_marginals(self, theta: list, total: float) -> list | None:
        """Hugin message passing with one exponential per node: the same marginals as
        :meth:`TreePlan.calibrate` (up to rounding) at about a third of its cost.

        Upward, a node whose children have sent their messages (added in log space) becomes
        E = exp(ψ − max ψ) and sends u = log Σ_{node∖sep} E; downward, a child's E is multiplied by
        Σ_{parent∖sep} E_parent / Σ_{child∖sep} E_child (the Hugin update, scaled to max 1). Only
        each node's shape matters: every potential marginal is normalised by its node's sum. None
        when a node's mass underflows, to zero or to a subnormal number whose reciprocal
        overflows (then the caller falls back to log space)."""
        self._load_theta(theta, 2)
        self._fill_nodes(2)
        return self._mu_list(2) if self._linear_pass(total, 2) else None

    def loss_grad(self, mu: list) -> tuple[float, list]:
        """L(μ) = Σ_M ½‖(Q_M μ_M − y_M)/σ_M‖² (dimensionless) and ∂L/∂μ (1/records; one array a
        potential clique, zeros for a clique no measurement is routed to) of the marginals
        ``mu`` (counts, one array a potential clique)."""
        self._load_mu(mu, 2)
        val = self._loss_grad_flat(2)
        return val, self._clique_list(self.grad_buf[2])

    def start(self, theta: list, total: float, lipschitz: float) -> DescentState:
        """The state before the first step: the marginals, loss and gradient at ``theta`` (list
        of log-potentials, one array per potential clique) and the initial step α = 2/(L·N)
        (L: ``lipschitz``, the Lipschitz constant of ∇L; N: ``total``, records)."""
        mu = self.marginals(theta, total)
        loss, g = self.loss_grad(mu)
        return DescentState(theta, mu, loss, g, 2.0 / (lipschitz * total))

    def steps(self, state: DescentState, total: float, steps: int) -> DescentState:
        """``steps`` mirror-descent steps from ``state`` (α carried, so a run split into chunks
        follows the same iterates as one run).

        A step: θ' = θ − α·g; μ' = marginals(θ'); L(μ'), g'; accept when
        L(μ) − L(μ') ≥ ½·α·⟨g, μ − μ'⟩ (then α ← 1.01·α), else keep θ and α ← α/2 (McKenna,
        Sheldon & Miklau 2019 [``mckenna2019``], Alg. 1; mbi's ``MirrorDescent``
        [``mbi2026``]). The current and the trial point live in buffers 0 and 1, swapped on
        acceptance; the returned state holds copies."""
        c, o = 0, 1
        self._load_theta(state.theta, c)
        self._load_mu(state.mu, c)
        self._load_grad(state.grad, c)
        loss, alpha = state.loss, state.alpha
        n = self.n_cells
        tb, gb, step = self.theta_buf, self.grad_buf, self.step_buf
        for _ in range(steps):
            np.multiply(gb[c][:n], alpha, out=step)
            np.subtract(tb[c][:n], step, out=tb[o][:n])
            self._marginals_flat(total, o)
            loss2 = self._loss_grad_flat(o)
            dot = self._armijo_dot(c, o)
            if loss - loss2 >= 0.5 * alpha * dot:
                c, o = o, c
                loss, alpha = loss2, 1.01 * alpha
            else:
                alpha = 0.5 * alpha
        return DescentState(
            self._clique_list(tb[c]), self._mu_list(c), loss, self._clique_list(gb[c]), alpha
        )

    def run(self, theta: list, total: float, steps: int, lipschitz: float) -> list:
        """``steps`` mirror-descent steps from ``theta`` (list of log-potentials); the final
        log-potentials."""
        return self.steps(self.start(theta, total, lipschitz), total, steps).theta
