"""Private-PGM estimation on a fixed domain (the estimation step of MST, AIM, MWEM+PGM):
:class:`PGMFitter` (merged repeated measurements, a canonical measurement order, warm starts, the
choice of backend) and the closed-form estimate from 1-way measurements only.

Source: McKenna, Sheldon & Miklau (ICML 2019) [``mckenna2019``], Alg. 1; mbi 2.0's
``MirrorDescent`` and ``from_linear_measurements`` [``mbi2026``].
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from ..._jax import import_mbi
from .junction import TreePlan
from .measurement import Measurement, total_estimate
from .mirror_descent import DescentState, NumpyMirrorDescent, fit_program
from .model import FittedModel, expand_potentials


@dataclasses.dataclass(frozen=True)
class _WeightedQuery:
    """Diagonal query ``datavector * weights``; hashed by value, so equal weights reuse the
    compiled program (mbi's ``WeightedQuery`` hashes by identity)."""

    weights: tuple

    def __call__(self, f):
        import jax.numpy as jnp

        return f.datavector() * jnp.asarray(self.weights)

    def op_norm_sq(self) -> float:
        return float(max(w * w for w in self.weights))


def merge_measurements(measurements: Sequence[Measurement]) -> list[Measurement]:
    """One measurement per (clique, weights): inverse-variance average of repeated measurements.

    ½Σ_i‖Wμ − y_i‖²/σ_i² = ½‖Wμ − ȳ‖²/σ̄² + const with 1/σ̄² = Σ 1/σ_i², ȳ = σ̄² Σ y_i/σ_i², so
    the fitted model is unchanged, and the compiled structure depends only on the set of cliques.
    Sorted by (size, clique).
    """
    groups: dict = {}
    for m in measurements:
        key = (m.clique, None if m.weights is None else m.weights.tobytes())
        groups.setdefault(key, []).append(m)
    out = []
    for (clique, _), ms in groups.items():
        if len(ms) == 1:
            out.append(ms[0])
            continue
        prec = np.array([1.0 / m.stddev**2 for m in ms])
        y = sum(p * m.values for p, m in zip(prec, ms, strict=True)) / prec.sum()
        out.append(Measurement(clique, y, float(1.0 / math.sqrt(prec.sum())), ms[0].weights))
    out.sort(key=lambda m: (len(m.clique), m.clique, m.weights is not None))
    return out


#: CPU-cost model of one fit (seconds), measured on the 2-core machine (adult, AIM models of
#: 12 000 to 6.2 million cells, MST): numpy ≈ max_iter·(4e-4 + 1.8e-8·cells) (one exponential a
#: node, columns ordered by size: :meth:`NumpyMirrorDescent.marginals`); JAX ≈ compile (1 +
#: 0.4·nodes) + max_iter·(1e-4 + 3e-8·cells) (1.5–6e-8 measured). So numpy except for small
#: models run for very many steps (MST on adult: 10 000 steps on 28 000 cells, numpy ≈ 5.5
#: CPU-s, JAX ≈ 8.7).
_COST = {
    "np_step": 4e-4,
    "np_cell": 1.8e-8,
    "jax_compile": 1.0,
    "jax_node": 0.4,
    "jax_step": 1e-4,
    "jax_cell": 3e-8,
}
_BACKENDS = ("auto", "jax", "numpy")


def choose_backend(cells: int, nodes: int, max_iter: int) -> str:
    """ "numpy" when the estimated numpy run time is below JAX's compile + run time, else "jax".

    A deterministic function of the structure and ``max_iter`` (never of what is already
    compiled), so a fit is reproducible: the two backends follow the same iterates up to
    rounding, but an Armijo test decided differently by rounding makes long runs differ
    slightly."""
    c = _COST
    t_np = max_iter * (c["np_step"] + c["np_cell"] * cells)
    t_jax = (
        c["jax_compile"]
        + c["jax_node"] * nodes
        + max_iter * (c["jax_step"] + c["jax_cell"] * cells)
    )
    return "numpy" if t_np < t_jax else "jax"


class PGMFitter:
    """Private-PGM estimation on a fixed domain (the Private-PGM step of MST, AIM, MWEM+PGM).

    Parameters
    ----------
    sizes : sequence of int
        Levels per column (columns are named 0..d-1 inside mbi).
    backend : {"auto", "jax", "numpy"}
        "jax": :func:`fit_program` (mbi's loss and message passing, jitted; one compilation per new
        clique structure); "numpy": :class:`NumpyMirrorDescent` (same iterates up to
        rounding, no compilation; the faster one in our measurements except for small models run
        for very many steps); "auto" (default): :func:`choose_backend`.

    :meth:`fit` takes a list of :class:`Measurement` and returns a :class:`FittedModel`: mbi's
    L2 loss Σ_M ½‖(Q_M μ − y_M)/σ_M‖² (``from_linear_measurements``, ``stddev`` = the real noise
    std) minimised over the marginal polytope by mirror descent with Armijo line search (McKenna,
    Sheldon & Miklau, ICML 2019, Alg. 1; mbi ``MirrorDescent``), with ``known_total`` =
    :func:`total_estimate` (add/remove DP: the true number of records is not public).

    Speed: repeated measurements of a clique are merged exactly (:func:`merge_measurements`) and sorted, so a
    JAX program compiled for a set of cliques is reused whenever the same set comes back in the
    process (AIM and MWEM+PGM re-measure cliques; refits and repeated fits share structures).
    """

    def __init__(self, sizes: Sequence[int], backend: str = "auto"):
        if backend not in _BACKENDS:
            raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
        self.sizes = tuple(int(s) for s in sizes)
        self.backend = backend
        mbi = import_mbi()
        self._mbi = mbi
        self.domain = mbi.Domain(tuple(range(len(self.sizes))), self.sizes)

    def _linear(self, m: Measurement):
        mbi = self._mbi
        if m.weights is None:
            return mbi.LinearMeasurement(m.values, m.clique, stddev=float(m.stddev))
        q = _WeightedQuery(tuple(float(w) for w in m.weights))
        return mbi.LinearMeasurement(m.values, m.clique, stddev=float(m.stddev), query=q)

    def fit(
        self,
        measurements: Sequence[Measurement],
        *,
        max_iter: int,
        warm_start: FittedModel | None = None,
    ) -> FittedModel:
        """Estimate the model with ``max_iter`` mirror-descent steps, starting from
        ``warm_start``'s potentials (expanded to the new cliques) or from zero potentials
        (uniform). Without measurements: the uniform model with total 1 (as mbi).

        Raises
        ------
        FloatingPointError
            Non-finite potentials after the optimisation (a guard; not expected).
        """
        total = total_estimate(measurements)
        if not measurements:
            return FittedModel(self.sizes, (), {}, total)
        merged, loss, cliques, theta = self._problem(measurements, warm_start)
        plan = TreePlan(self.sizes, cliques, by_size=True)
        backend = self.backend
        if backend == "auto":
            backend = choose_backend(
                sum(math.prod(s) for s in plan.shapes), len(plan.nodes), int(max_iter)
            )
        if backend == "numpy":
            out = NumpyMirrorDescent(plan, cliques, merged).run(
                theta, float(total), int(max_iter), float(loss.lipschitz)
            )
        else:
            potentials = _clique_vector(self.domain, cliques, theta)
            pots, _ = fit_program()(potentials, loss, float(total), int(max_iter))
            out = [np.asarray(pots[cl].values, dtype=float) for cl in cliques]
        return fitted_model(self.sizes, cliques, out, total)

    def start(
        self,
        measurements: Sequence[Measurement],
        total: float,
        *,
        warm_start: FittedModel | None = None,
    ) -> tuple[NumpyMirrorDescent, DescentState]:
        """The numpy mirror descent of :meth:`fit` set up to be run chunk by chunk, with a given
        ``total`` N (records) instead of :func:`total_estimate`: the iteration (its ``cliques``
        are the potential cliques) and the state before the first step. Advance it with
        ``md.steps(state, total, k)``; :func:`fitted_model` turns ``state.theta`` into the model.
        ``measurements`` must not be empty."""
        merged, loss, cliques, theta = self._problem(measurements, warm_start)
        md = NumpyMirrorDescent(TreePlan(self.sizes, cliques, by_size=True), cliques, merged)
        return md, md.start(theta, float(total), float(loss.lipschitz))

    def _problem(self, measurements: Sequence[Measurement], warm_start: FittedModel | None):
        """The merged measurements (:func:`merge_measurements`), mbi's loss over them, its potential cliques
        and the initial log-potentials (``warm_start``'s expanded to them, else zeros)."""
        merged = merge_measurements(measurements)
        lms = [self._linear(m) for m in merged]
        loss = self._mbi.marginal_loss.from_linear_measurements(lms, self.domain)
        cliques = tuple(tuple(c) for c in loss.cliques)
        start = expand_potentials(warm_start, cliques)
        theta = []
        for cl in cliques:
            shape = tuple(self.sizes[a] for a in cl)
            v = start[cl] if start[cl] is not None else np.zeros(shape)
            theta.append(np.array(np.broadcast_to(v, shape), dtype=float))
        return merged, loss, cliques, theta


def fitted_model(
    sizes: Sequence[int], cliques: Sequence, potentials: Sequence[np.ndarray], total: float
) -> FittedModel:
    """The :class:`FittedModel` with log-``potentials`` (one array per clique of ``cliques``).

    Raises
    ------
    FloatingPointError
        Non-finite potentials (a guard on the optimisation; not expected).
    """
    if not all(np.isfinite(v).all() for v in potentials):
        raise FloatingPointError(
            "mirror descent produced non-finite potentials (not expected; "
            "please report the data shape, epsilon and random_state)"
        )
    cliques = tuple(tuple(c) for c in cliques)
    return FittedModel(tuple(sizes), cliques, dict(zip(cliques, potentials, strict=True)), total)


def _clique_vector(domain, cliques: Sequence, arrays: Sequence[np.ndarray]):
    """mbi ``CliqueVector`` over ``domain`` with one array per clique of column positions
    (position i is ``domain.attributes[i]``; each array's axes follow its clique's order)."""
    mbi = import_mbi()
    names = [tuple(domain.attributes[a] for a in cl) for cl in cliques]
    tables = {
        cl: mbi.Factor(domain.project(cl), np.asarray(v, dtype=float))
        for cl, v in zip(names, arrays, strict=True)
    }
    return mbi.CliqueVector(domain, names, tables)


def mbi_model(model: FittedModel, marginals: Sequence[np.ndarray], domain):
    """mbi ``MarkovRandomField`` over ``domain`` (attributes in column-position order) of
    ``model``, with ``marginals`` (counts of ``model.cliques``, summing to ``model.total``), as
    mbi's ``MirrorDescent`` returns it: what mbi's ``project`` and ``synthetic_data`` take."""
    pots = [model.log_potentials[c] for c in model.cliques]
    return import_mbi().MarkovRandomField(
        potentials=_clique_vector(domain, model.cliques, pots),
        marginals=_clique_vector(domain, model.cliques, marginals),
        total=float(model.total),
    )


def _project_to_simplex(z: np.ndarray, v: np.ndarray, total: float) -> np.ndarray:
    """argmin_μ Σ_j (μ_j − z_j)²/(2 v_j) s.t. μ ≥ 0, Σ μ = total (v_j > 0: per-cell variances)."""
    # KKT: μ_j = max(0, z_j − λ v_j); breakpoints t_j = z_j / v_j, active = {t_j > λ}.
    t = z / v
    order = np.argsort(-t)
    zs, vs, ts = z[order], v[order], t[order]
    cz, cv = np.cumsum(zs), np.cumsum(vs)
    lam = (cz - total) / cv
    nxt = np.append(ts[1:], -np.inf)
    ok = (lam < ts) & (lam >= nxt)
    k = int(np.flatnonzero(ok)[0]) if ok.any() else len(z) - 1
    mu = np.maximum(0.0, z - lam[k] * v)
    s = mu.sum()
    return mu * (total / s) if s > 0 else np.full(len(z), total / len(z))


def independent_estimate(one_way: Sequence[Measurement], total: float) -> list[np.ndarray]:
    """The Private-PGM estimate from 1-way measurements only, in closed form.

    With only 1-way cliques the model is a product of independent columns and the L2 loss
    Σ_i ½‖(W_i μ_i − y_i)/σ_i‖² separates: each μ_i is the weighted Euclidean projection of
    ``y_i / w_i`` onto {μ ≥ 0, Σ μ = total} (what mirror descent converges to). Returns the list of
    μ_i (counts summing to ``total``).
    """
    out = []
    for m in one_way:
        w = np.ones(m.values.size) if m.weights is None else m.weights
        out.append(_project_to_simplex(m.values / w, 1.0 / w**2, float(total)))
    return out
