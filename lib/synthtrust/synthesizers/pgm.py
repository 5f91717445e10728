"""Private-PGM with all 1-way and 2-way marginals (the "demo" of McKenna et al., as used by
Montoya Perez et al. 2024), on mbi 2.0.

Mechanism, for one dataset of n records (n public, replace-one neighbours):

1. Measure K marginals (default: every 1-way and every 2-way marginal of the columns) with
   Laplace noise of scale b = 2/split(ε), split(ε) = ε/K — the paper's "Laplace distribution
   scaled by 2/split(ε) where split(ε) is the privacy budget divided by the number of marginal
   queries selected" (§4.2); 2 is the L1 sensitivity of a marginal under replace-one. ε/K each,
   ε in total (sequential composition).
2. Estimate a graphical model from the noisy marginals with mbi's ``MirrorDescent`` (Private-PGM,
   McKenna, Sheldon, Miklau ICML 2019, Alg. 1): ``LinearMeasurement(y, clique, stddev=√2·b)``
   (the true standard deviation of Laplace(b) noise, which mbi uses to weight the measurement
   [``mbi2026``]) and
   ``known_total=n`` (n is public, as in the reference demo which passed ``total=``); with
   ``total="estimate"`` mbi's minimum-variance estimate from the noisy marginals is used instead.
3. Generate records with ``model.synthetic_data(rows=m)`` (mbi's randomised rounding, method
   ``"round"``; ``"sample"`` = i.i.d.). mbi draws from numpy's *global* generator; we seed it from
   the replicate's generator inside a context that restores the previous global state
   (not thread-safe; use processes for parallelism, as ``synthtrust.run.experiment`` does).

Iterations: 5000 mirror-descent steps by default (``max_iter`` of :class:`PrivatePGM` and of
:func:`private_pgm`) (mbi's default is 1000; the reference
demo used 2500). Measured on the chapter's 2 × 100 domain against the exact constrained
least-squares optimum (scipy ``lsq_linear``): after 1000 steps the model is still 0.004 (TVD)
away from the optimum at n = 20 000, ε = 10 — five times the DP error of the optimum itself
(0.0007) — while 5000 steps bring it to 0.0004 (ε ≥ 0.1; at ε = 0.01 the optimum is pure noise,
TVD ≥ 0.36 from the data, and mirror descent approaches its sparse vertex slowly). mbi rounds
its ``iters`` (our ``max_iter``) up to a multiple of 50. Downstream, the Mann–Whitney Type I
error on the synthetic data (n = 1000 and 20 000, ε = 1 and 10, 300 replicates) did not change
between 1000, 2500, 5000 and 20 000 steps.

Speed: ``batched=False`` calls ``MirrorDescent().estimate`` and ``synthetic_data`` per replicate
(the reference path). ``batched=True`` (default) vectorizes over the replicates of a call, in one
of two ways, each the same model as ``estimate`` up to floating-point rounding:

* when the junction tree of the model's cliques is ONE node holding every column and there is
  more than one clique (e.g. all 1-/2-way marginals of a few small columns: chapter 1's
  2 × 8 × 24 × 3 × 2 table, ten pair cliques), :func:`_fit_dense` runs mbi's mirror descent on
  the dense joint table in numpy (the potentials enter only through their sum, the log-joint),
  and :func:`round_joint_counts` rounds the joints — 12–20× cheaper than ``batched=False`` at
  500 steps in chunks of 200 replicates, 5–9× in chunks of 10;
* otherwise mbi's own ``MirrorDescent`` step (``_init``/``_step``/``_finalize``) runs under
  ``jax.vmap`` (:func:`_fit_batched`; every fit with the same clique structure reuses the
  compiled code), sampled by :func:`round_joint_counts` when the model is one clique over the
  whole table (chapter 1's 2 × 100 table, where this beats the dense fit: 2.9 vs 4.6 ms CPU per
  replicate at 2500 steps) and by mbi per replicate else.

With ε large, the step size reaches the edge of stability, where rounding differences grow until
an Armijo rejection; the vectorized fits then differ from ``estimate`` by up to ~1e-3 in total
variation after 500 steps (mbi's vmapped fit as much as the dense one;
``benchmarks/bench_pgm_dense.py``, ``tests/synthesizers/test_pgm_dense.py``).
"""

from __future__ import annotations

import contextlib
import functools
import math

import numpy as np

from .._jax import configure_jax, import_mbi
from .._validation import check_choice, check_epsilon, check_positive_int, one_of, optional
from ..privacy.ledger import PrivacyLedger
from ..privacy.mechanisms import laplace
from .base import (
    BaseSynthesizer,
    as_count_matrix,
    check_cliques_param,
    check_marginals,
    check_shape,
    replicate_generators,
)

__all__ = ["PrivatePGM", "private_pgm"]

DEFAULT_MAX_ITER = 5000
_SENSITIVITY = 2.0  # L1 sensitivity of one marginal under replace-one neighbours
_TOTALS = ("public", "estimate")
_METHODS = ("round", "sample")


# --------------------------------------------------------------------------------------------
# validation and structure
# --------------------------------------------------------------------------------------------
def _names(ndim: int) -> tuple[str, ...]:
    return tuple(f"x{i}" for i in range(ndim))


def _domain(shape):
    mbi = import_mbi()
    return mbi.Domain(_names(len(shape)), tuple(shape))


def _marginal_counts(mat: np.ndarray, shape, axes: tuple[int, ...]) -> np.ndarray:
    """(R, C) joint counts -> (R, size of marginal) in C order over ``axes`` (increasing)."""
    r = mat.shape[0]
    drop = tuple(1 + a for a in range(len(shape)) if a not in axes)
    return mat.reshape((r,) + tuple(shape)).sum(axis=drop).reshape(r, -1).astype(float)


@contextlib.contextmanager
def global_numpy_seed(seed: int):
    """Seed numpy's global RandomState (used by mbi's synthetic_data) and restore it afterwards."""
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _synthetic_counts(model, rows: int, seed: int, method: str, shape) -> np.ndarray:
    with global_numpy_seed(seed):
        data = model.synthetic_data(rows=int(rows), method=method).to_dict()
    codes = tuple(np.asarray(data[name], dtype=np.int64) for name in _names(len(shape)))
    flat = np.ravel_multi_index(codes, tuple(shape))
    return np.bincount(flat, minlength=int(np.prod(shape))).astype(np.int64)


# --------------------------------------------------------------------------------------------
# measurement and estimation
# --------------------------------------------------------------------------------------------
def _measure(mat, shape, cliques, epsilon, rngs, ledger=None, names=None):
    """Noisy marginals per clique, each (R, size), by the Laplace mechanism with ε/K each (K
    cliques; scale b = 2K/ε). Replicate i draws the noise of every marginal in clique order
    from ``rngs[i]``; ``ledger`` (optional) receives replicate 0's K entries. Returns (list, b).
    """
    k = len(cliques)
    b = _SENSITIVITY / (epsilon / k)
    names = names if names is not None else _names(len(shape))
    true = [_marginal_counts(mat, shape, cl) for cl in cliques]
    noisy = [np.empty(t.shape) for t in true]
    for i, rng in enumerate(rngs):
        for t, out, cl in zip(true, noisy, cliques, strict=True):
            out[i] = laplace(
                t[i],
                sensitivity=_SENSITIVITY,
                epsilon=epsilon / k,
                random_state=rng,
                ledger=ledger if i == 0 else None,
                note=f"marginal ({', '.join(str(names[a]) for a in cl)}); split(eps) = eps/{k}",
            )
    return noisy, b


def _measurements(noisy_row, cliques, stddev):
    mbi = import_mbi()
    return [
        mbi.LinearMeasurement(np.asarray(y, dtype=float), tuple(f"x{a}" for a in cl), stddev=stddev)
        for y, cl in zip(noisy_row, cliques, strict=True)
    ]


def _fit_one(domain, noisy_row, cliques, stddev, total, max_iter):
    """One mbi MirrorDescent().estimate call (the reference path)."""
    mbi = import_mbi()
    ms = _measurements(noisy_row, cliques, stddev)
    return mbi.estimation.MirrorDescent().estimate(domain, ms, known_total=total, iters=max_iter)


@functools.lru_cache(maxsize=16)
def _batched_functions(domain, clique_names):
    """jit(vmap(...)) of mbi MirrorDescent's init / 50-step block / finalize for one structure."""
    jax = configure_jax()
    mbi = import_mbi()
    est = mbi.estimation.MirrorDescent()
    every = mbi.estimation.CALLBACK_EVERY

    def init(loss_fn, total):
        return est._init(domain, loss_fn, total)

    def block(state, loss_fn, total):
        def step(s, _):
            return est._step(s, loss_fn, total), None

        return jax.lax.scan(step, state, None, length=every)[0]

    def finalize(state, total):
        return est._finalize(state, total)

    return jax.jit(jax.vmap(init)), jax.jit(jax.vmap(block)), jax.jit(jax.vmap(finalize)), every


def _loss_template(domain, noisy, cliques, stddev):
    """mbi's loss of replicate 0's measurements: its cliques (mbi's maximal cliques, the
    model's) and Lipschitz constant are the same for every replicate (same σ, same cliques)."""
    mbi = import_mbi()
    template = _measurements([y[0] for y in noisy], cliques, stddev)
    return mbi.marginal_loss.from_linear_measurements(template, domain)


def _fit_batched(domain, noisy, cliques, stddev, totals, max_iter):
    """mbi's MirrorDescent vectorized over replicates; returns one MarkovRandomField per replicate."""
    jax = configure_jax()
    import jax.numpy as jnp

    mbi = import_mbi()
    r = noisy[0].shape[0]
    template = _measurements([y[0] for y in noisy], cliques, stddev)
    loss0 = mbi.marginal_loss.from_linear_measurements(template, domain)
    data = tuple(
        mbi.LinearMeasurement(jnp.asarray(y), m.clique, stddev=jnp.full(r, float(stddev)))
        for y, m in zip(noisy, template, strict=True)
    )
    loss = mbi.MarginalLossFn(
        loss0.cliques, loss0.loss_fn, data, jnp.full(r, float(loss0.lipschitz))
    )
    init, block, finalize, every = _batched_functions(domain, tuple(m.clique for m in template))
    tot = jnp.asarray(totals, dtype=float)
    state = init(loss, tot)
    for _ in range(math.ceil(max_iter / every)):
        state = block(state, loss, tot)
    return jax.tree.map(np.asarray, finalize(state, tot))


def _split_models(models, r: int) -> list:
    """One MarkovRandomField per replicate from a batched (vmapped) one."""
    jax = configure_jax()
    return [jax.tree.map(lambda x, i=i: x[i], models) for i in range(r)]


def _sample_models(models, rows, rngs, method, shape) -> np.ndarray:
    """(R, cells) synthetic counts, one mbi ``synthetic_data`` call per replicate model."""
    return np.stack(
        [
            _synthetic_counts(model, int(r), int(rng.integers(2**32)), method, shape)
            for model, r, rng in zip(models, rows, rngs, strict=True)
        ]
    )


def _sample_batched(models, domain, rows, rngs, method, shape) -> np.ndarray:
    """Synthetic counts from a batched model: :func:`round_joint_counts` when the model is one
    clique over the whole domain and ``method="round"``, else mbi per replicate."""
    cliques = tuple(models.cliques)
    whole = len(cliques) == 1 and set(cliques[0]) == set(domain.attributes)
    order = _sampling_order(domain, cliques) if whole else None
    if method != "round" or order is None:
        return _sample_models(_split_models(models, len(rngs)), rows, rngs, method, shape)
    clique = cliques[0]
    values = np.asarray(models.marginals[clique].values)  # (R, *clique shape), clique order
    joint = np.moveaxis(
        values, [1 + clique.index(a) for a in domain.attributes], range(1, values.ndim)
    )
    return _sample_dense(joint, order, rows, rngs, method)


# --------------------------------------------------------------------------------------------
# vectorized randomized rounding for models whose one clique is the whole domain
# --------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=16)
def _sampling_order(domain, cliques) -> tuple[int, ...] | None:
    """Axes in mbi's sampling order (reversed elimination order) if the junction tree of
    ``cliques`` is a single node holding every attribute, else None."""
    mbi = import_mbi()
    jtree, elimination = mbi.junction_tree.make_junction_tree(domain, [tuple(c) for c in cliques])
    nodes = list(jtree.nodes)
    if len(nodes) != 1 or set(nodes[0]) != set(domain.attributes):
        return None
    return tuple(domain.attributes.index(a) for a in elimination[::-1])


def _round_first(weights: np.ndarray, rows: int, rng: np.random.Generator) -> np.ndarray:
    """mbi's randomized rounding of one column: integer parts of the quota rows·w/Σw, then the
    remaining units to distinct cells drawn without replacement ∝ the fractional parts
    (successive sampling, drawn here as Gumbel top-k)."""
    quota = weights * (rows / weights.sum())
    counts = np.floor(quota)
    frac = quota - counts
    counts = counts.astype(np.int64)
    extra = rows - int(counts.sum())
    if extra > 0:
        with np.errstate(divide="ignore"):
            keys = np.log(frac) + rng.gumbel(size=frac.shape)
        counts[np.argpartition(-keys, extra - 1)[:extra]] += 1
    return counts


def _round_next(parents: np.ndarray, cond: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Counts of the next column given parent-configuration counts, by mbi's stratified draws.

    ``parents`` (P,) counts n_p; ``cond`` (P, K) non-negative conditional weights. In parent group
    p, record k (a random rank 0..n_p−1) gets u_k = (k + U_k)/n_p and value
    #{v : F_p(v) <= u_k} (capped at K−1), F_p the conditional CDF; so the number of records below
    the cut x = n_p·F_p(v) is floor(x) + [U_floor(x) < frac(x)]. Returns (P, K) counts.
    """
    mass = cond.sum(axis=1, keepdims=True)
    cdf = np.divide(np.cumsum(cond, axis=1), mass, out=np.zeros_like(cond), where=mass > 0)
    n = parents[:, None]
    cut = n * cdf[:, :-1]
    whole = np.floor(cut)
    starts = np.concatenate([[0], np.cumsum(parents)[:-1]])[:, None]
    u = np.append(rng.random(int(parents.sum())), 0.0)  # + 1 slot for empty trailing groups
    k = np.minimum(whole.astype(np.int64), np.maximum(n - 1, 0))
    below = np.minimum(whole + (u[starts + k] < cut - whole), n)
    below = np.concatenate([np.zeros_like(n), below, n], axis=1)
    return np.diff(below, axis=1).astype(np.int64)


def round_joint_counts(
    joint: np.ndarray, order: tuple[int, ...], rows: int, rng: np.random.Generator
) -> np.ndarray:
    """Synthetic counts from a model whose single clique is the whole domain, with the same
    distribution as mbi's ``synthetic_data(rows, method="round")`` without materialising records.

    Parameters
    ----------
    joint : ndarray, shape (k_0, …, k_{d−1})
        The model's (non-negative) joint marginal, axes in domain order.
    order : tuple of int
        Sampling order of the axes (mbi: reversed elimination order).
    rows : int
        Records to generate.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray int64 of ``joint``'s shape, summing to ``rows``: the first column in ``order`` by
    randomized rounding (:func:`_round_first`), each next one by stratified conditional draws
    given all previous ones (:func:`_round_next`) — mbi's algorithm [``mbi2026``], whose
    parents are all earlier columns when the junction tree is one node.
    """
    j = np.transpose(np.asarray(joint, dtype=float), order)
    counts = _round_first(j.reshape(j.shape[0], -1).sum(axis=1), rows, rng)
    for axis in range(1, j.ndim):
        head = j.reshape(j.shape[: axis + 1] + (-1,)).sum(axis=-1)
        counts = _round_next(counts, head.reshape(counts.size, -1), rng).reshape(-1)
    return np.transpose(counts.reshape(j.shape), np.argsort(order))


# --------------------------------------------------------------------------------------------
# dense mirror descent for models whose junction tree is one node holding every column
# --------------------------------------------------------------------------------------------
_DENSE_ENTRIES = 1 << 20  # replicate × cell entries per working array of one chunk (8 MB)


@functools.lru_cache(maxsize=64)
def _dense_plan(sizes: tuple[int, ...], axes: tuple[int, ...], needed: tuple) -> tuple:
    """A reduction tree that computes the marginals ``needed`` (cliques ⊆ ``axes``) of a table
    over ``axes`` with few full passes: repeatedly sum out the axis absent from the most
    remaining cliques (ties: the largest axis), serving those cliques from the smaller table.

    Returns ``((position of the summed axis in axes, child axes, index that inserts that axis
    back into a child array, child plan), ...)``; the clique equal to ``axes`` (if needed) is
    the table itself.
    """
    rest = [c for c in needed if c != axes]
    children = []
    while rest:
        drop = max(axes, key=lambda a: (sum(a not in c for c in rest), sizes[a]))
        child = tuple(a for a in axes if a != drop)
        served = tuple(c for c in rest if drop not in c)
        pos = axes.index(drop)
        expand = (slice(None),) * pos + (None,)
        children.append((pos, child, expand, _dense_plan(sizes, child, served)))
        rest = [c for c in rest if drop in c]
    return tuple(children)


def _dense_marginals(table: np.ndarray, axes: tuple, plan: tuple, out: dict) -> None:
    """Fill ``out[clique]`` with the marginals of ``table`` (shape (*levels of axes, R)) along
    ``plan`` (:func:`_dense_plan`); the replicate axis stays last."""
    out[axes] = table
    for pos, child, _, sub in plan:
        _dense_marginals(np.add.reduce(table, axis=pos), child, sub, out)


def _dense_gather(terms: dict, axes: tuple, plan: tuple):
    """Σ of ``terms`` (clique -> array (*levels of the clique, R)) of the cliques in the subtree
    of ``plan``, broadcast to ``axes`` (shape (*levels, R) or broadcastable to it; None if the
    subtree holds no term). The adjoint of :func:`_dense_marginals`."""
    acc = terms.get(axes)
    for _, child, expand, sub in plan:
        part = _dense_gather(terms, child, sub)
        if part is not None:
            acc = part[expand] if acc is None else acc + part[expand]
    return acc


def _dense_chunks(reps: int, cells: int) -> list[slice]:
    """Near-equal chunks of replicates, each of c to 2c − 1 replicates, c = the larger of 2 and
    ``_DENSE_ENTRIES / cells`` (one chunk if ``reps`` < 2c; a chunk of one replicate is padded
    by :func:`_mirror_descent_dense`)."""
    k = max(1, reps // max(2, _DENSE_ENTRIES // cells))
    bounds = [i * reps // k for i in range(k + 1)]
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _mirror_descent_dense(shape, ys, cliques, prec, totals, alpha, steps) -> np.ndarray:
    """Private-PGM's mirror descent on the dense joint table, vectorized over replicates.

    Parameters
    ----------
    shape : tuple of int
        Levels per column (d columns).
    ys : list of ndarray, each (size of clique, R)
        Noisy marginals (C order over the clique's axes), one per measurement.
    cliques : list of tuple of int
        The measurements' axes (increasing).
    prec : float
        1/σ², σ the noise standard deviation of every measurement (records).
    totals : ndarray (R,)
        N per replicate (records).
    alpha : ndarray (R,)
        Initial step sizes, 2/(L·N) (L: the Lipschitz constant of ∇L, mbi's).
    steps : int
        Mirror-descent steps.

    Returns
    -------
    ndarray (R, *shape): the fitted joint N·softmax(Φ) of each replicate.

    Notes
    -----
    The model's log-joint is Φ = Σ_c θ_c (potentials broadcast to the table); the potentials
    enter the oracle, the loss and the step only through Φ, so Φ is the state. A step, per
    replicate (McKenna, Sheldon & Miklau 2019 [``mckenna2019``], Alg. 1, with mbi 2.0's step
    rule [``mbi2026``]): g_M = (μ_M − y_M)/σ² (∂L/∂μ of L = Σ_M ½‖(μ_M − y_M)/σ‖²);
    Φ' = Φ − α·Σ_M bcast(g_M); μ' = N·softmax(Φ') summed onto each measured clique; accept if
    L(μ) − L(μ') ≥ ½·α·Σ_M ⟨g_M, μ_M − μ'_M⟩ (then α ← 1.01α) else keep Φ (α ← α/2). The
    replicate axis is last, so every reduction adds whole rows of replicates in a fixed order and
    replicate i's iterates do not depend on the others (a chunk of one replicate is padded to
    two so that no reduction runs along a contiguous axis of cells).
    """
    reps = totals.shape[0]
    if reps == 1:  # the same arithmetic as in any larger chunk
        ys = [np.repeat(y, 2, axis=1) for y in ys]
        return _mirror_descent_dense(
            shape, ys, cliques, prec, np.repeat(totals, 2), np.repeat(alpha, 2), steps
        )[:1]
    full = tuple(range(len(shape)))
    plan = _dense_plan(tuple(shape), full, tuple(cliques))
    sizes = [y.shape[0] for y in ys]
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    views = [
        (c, slice(int(o), int(o) + s), tuple(shape[a] for a in c) + (reps,))
        for c, o, s in zip(cliques, offsets, sizes, strict=True)
    ]
    y_flat = np.concatenate(ys, axis=0)  # (S, R)
    smallest = views[int(np.argmin(sizes))][1]  # rows of the smallest marginal, for Σ exp

    def exp_shifted(phi):
        """exp(phi − max phi) per replicate, into ``work`` (each replicate's largest cell is 1:
        no overflow, and Σ ≥ 1)."""
        np.subtract(phi, np.maximum.reduce(phi, axis=full), out=work)
        np.exp(work, out=work)

    def oracle(phi):
        """Flat measured marginals (S, R) of N·softmax(phi)."""
        exp_shifted(phi)
        margs = {}
        _dense_marginals(work, full, plan, margs)
        mu = np.empty_like(y_flat)
        for c, rows, _ in views:
            mu[rows] = margs[c].reshape(-1, reps)
        z = np.add.reduce(mu[smallest], axis=0)
        mu *= totals / z
        return mu

    def loss_of(res):
        return 0.5 * prec * np.add.reduce(res * res, axis=0)

    phi = np.zeros(tuple(shape) + (reps,))
    cand = np.empty_like(phi)
    work = np.empty_like(phi)
    mu = oracle(phi)
    res = mu - y_flat
    loss = loss_of(res)
    for _ in range(steps):
        step = (alpha * prec) * res  # α·g, flat (S, R)
        terms = {c: step[rows].reshape(shp) for c, rows, shp in views}
        parts = [terms[full]] if full in terms else []
        for _, child, expand, sub in plan:
            part = _dense_gather(terms, child, sub)
            if part is not None:
                parts.append(part[expand])
        np.subtract(phi, parts[0], out=cand)
        for part in parts[1:]:
            cand -= part
        mu2 = oracle(cand)
        res2 = mu2 - y_flat
        loss2 = loss_of(res2)
        dot = prec * np.add.reduce(res * (mu - mu2), axis=0)
        ok = loss - loss2 >= 0.5 * alpha * dot
        alpha = np.where(ok, 1.01 * alpha, 0.5 * alpha)
        if not ok.any():
            continue
        keep = ~ok
        if keep.any():
            cand[..., keep] = phi[..., keep]
            mu2[:, keep] = mu[:, keep]
            res2[:, keep] = res[:, keep]
        phi, cand = cand, phi
        mu, res = mu2, res2
        loss = np.where(ok, loss2, loss)
    exp_shifted(phi)
    work *= totals / work.sum(axis=full)
    return np.moveaxis(work, -1, 0).copy()


def _dense_order(domain, cliques) -> tuple[int, ...] | None:
    """The sampling order if the batched path fits the model densely (:func:`_fit_dense`),
    else None: when the junction tree of the model's ``cliques`` (mbi's maximal measured
    cliques) is one node holding every column and there is more than one clique. With a single
    clique (chapter 1's 2 × 100 table) mbi's vmapped step is one XLA-compiled loop over the same
    table and was measured faster (2.9 vs 4.6 ms CPU per replicate at 2500 steps, chunks of 50:
    ``benchmarks/bench_pgm_dense.py``), so that structure stays on :func:`_fit_batched`."""
    if len(cliques) < 2:
        return None
    return _sampling_order(domain, cliques)


def _fit_dense(domain, noisy, cliques, stddev, totals, max_iter, loss0) -> np.ndarray:
    """:func:`_mirror_descent_dense` in chunks of replicates: the same model as mbi's
    ``MirrorDescent().estimate`` (same loss, initial step 2/(L·N) with mbi's Lipschitz constant
    L of ``loss0``, step rule, and ``max_iter`` rounded up to a multiple of 50) up to rounding, for
    a structure whose junction tree is one node. Returns the joints, (R, *shape), records."""
    mbi = import_mbi()
    shape = tuple(domain.shape)
    cells = math.prod(shape)
    steps = math.ceil(max_iter / mbi.estimation.CALLBACK_EVERY) * mbi.estimation.CALLBACK_EVERY
    prec = 1.0 / max(float(stddev), 1e-12) ** 2
    totals = np.asarray(totals, dtype=float)
    alpha = 2.0 / (float(loss0.lipschitz) * totals)
    out = np.empty((totals.shape[0],) + shape)
    for part in _dense_chunks(totals.shape[0], cells):
        ys = [np.ascontiguousarray(np.asarray(y, dtype=float)[part].T) for y in noisy]
        out[part] = _mirror_descent_dense(
            shape, ys, list(cliques), prec, totals[part], alpha[part], steps
        )
    return out


def _sample_dense(joints, order, rows, rngs, method) -> np.ndarray:
    """(R, cells) synthetic counts from dense joints (R, *shape): :func:`round_joint_counts`
    (mbi's ``"round"``) or a multinomial draw (``"sample"``: i.i.d. records from the joint, as
    mbi's ``"sample"`` on a one-node model)."""
    out = []
    for joint, r, rng in zip(joints, rows, rngs, strict=True):
        if method == "round":
            out.append(round_joint_counts(joint, order, int(r), rng).reshape(-1))
        else:
            p = joint.reshape(-1) / joint.sum()
            out.append(rng.multinomial(int(r), p))
    return np.stack(out).astype(np.int64)


def _totals(mat, noisy, cliques, stddev, total) -> np.ndarray:
    if total == "public":
        return mat.sum(axis=1).astype(float)
    mbi = import_mbi()
    out = np.empty(mat.shape[0])
    for i in range(mat.shape[0]):
        ms = _measurements([y[i] for y in noisy], cliques, stddev)
        out[i] = mbi.estimation.minimum_variance_unbiased_total(ms)
    return out


# --------------------------------------------------------------------------------------------
# functional form
# --------------------------------------------------------------------------------------------
def private_pgm(
    counts,
    epsilon: float,
    shape,
    *,
    n_synthetic: int | None = None,
    marginals=None,
    max_iter: int = DEFAULT_MAX_ITER,
    total: str = "public",
    synthetic_method: str = "round",
    batched: bool = True,
    random_state=None,
    ledger: PrivacyLedger | None = None,
) -> np.ndarray:
    """Synthetic counts from Private-PGM (all 1-/2-way marginals), vectorized over replicates.

    Parameters
    ----------
    counts : array (reps, cells) or (cells,)
        True joint counts, C order over ``shape``.
    epsilon : float
        ε > 0 per replicate, split equally over the K measured marginals.
    shape : tuple of int
        Levels per column.
    n_synthetic : int, optional
        Records per synthetic dataset (default n of the replicate).
    marginals : list of tuples of axes, optional
        Default all 1-way and 2-way marginals.
    max_iter : int
        Mirror-descent steps (default 5000; rounded up to a multiple of 50 by mbi).
    total : {"public", "estimate"}
        ``known_total`` = n (public) or mbi's estimate from the noisy marginals.
    synthetic_method : {"round", "sample"}
        mbi's ``synthetic_data`` method.
    batched : bool
        True: mirror descent vectorized over replicates — dense in numpy for a one-node junction
        tree with several cliques (:func:`_fit_dense`), else mbi's vmapped with JAX; False: one
        mbi ``estimate`` and ``synthetic_data`` per replicate.
    random_state : int, Generator, None, or one per replicate
        Replicate i draws the Laplace noise of all marginals (in marginal order), then its
        synthetic data: one integer that seeds mbi's sampler, or the vectorized rounding's draws
        (a one-clique or dense model with ``batched=True``).
    ledger : PrivacyLedger, optional
        Receives ONE replicate's K entries (ε/K each).

    Returns
    -------
    ndarray int64, shape of ``counts``; row i sums to ``n_synthetic`` (or n_i).
    """
    epsilon = check_epsilon(epsilon)
    mat, was_1d = as_count_matrix(counts)
    shape = check_shape(shape, mat.shape[1])
    cliques = check_marginals(marginals, len(shape))
    max_iter = check_positive_int(max_iter, "max_iter")
    check_choice(total, "total", _TOTALS)
    check_choice(synthetic_method, "synthetic_method", _METHODS)
    if n_synthetic is not None:
        n_synthetic = check_positive_int(n_synthetic, "n_synthetic")
    rngs = replicate_generators(random_state, mat.shape[0])
    domain = _domain(shape)
    noisy, b = _measure(mat, shape, cliques, epsilon, rngs, ledger)
    stddev = math.sqrt(2.0) * b
    totals = _totals(mat, noisy, cliques, stddev, total)
    rows = mat.sum(axis=1) if n_synthetic is None else np.full(mat.shape[0], n_synthetic)
    if batched:
        loss0 = _loss_template(domain, noisy, cliques, stddev)
        order = _dense_order(domain, tuple(loss0.cliques))
        if order is not None:
            joints = _fit_dense(domain, noisy, cliques, stddev, totals, max_iter, loss0)
            out = _sample_dense(joints, order, rows, rngs, synthetic_method)
        else:
            models = _fit_batched(domain, noisy, cliques, stddev, totals, max_iter)
            out = _sample_batched(models, domain, rows, rngs, synthetic_method, shape)
    else:
        models = [
            _fit_one(domain, [y[i] for y in noisy], cliques, stddev, float(totals[i]), max_iter)
            for i in range(mat.shape[0])
        ]
        out = _sample_models(models, rows, rngs, synthetic_method, shape)
    return out[0] if was_1d else out


# --------------------------------------------------------------------------------------------
# estimator
# --------------------------------------------------------------------------------------------
class PrivatePGM(BaseSynthesizer):
    """Private-PGM synthesizer measuring all 1-way and 2-way marginals with Laplace noise.

    Parameters
    ----------
    epsilon : float
        Total ε > 0; each of the K marginals gets ε/K and Laplace scale 2K/ε.
    domain : dict {column: levels}, synthtrust.domain.Domain or None
        The public domain (see :mod:`synthtrust.synthesizers.tabular`).
    marginals : list of tuples of column names, optional
        Default: every 1-way and 2-way marginal.
    max_iter : int
        Mirror-descent steps (default 5000).
    total : {"public", "estimate"}
        ``known_total`` given to mbi: the public n, or mbi's estimate.
    synthetic_method : {"round", "sample"}
    random_state : int, Generator or None

    Fitted attributes
    -----------------
    ``model_`` (mbi ``MarkovRandomField``), ``measurements_`` (the noisy
    marginals: list of mbi ``LinearMeasurement``), ``ledger_`` (K entries of ε/K).
    """

    _description = (
        "Private-PGM: Laplace(2K/ε) on all 1-/2-way marginals, mbi MirrorDescent, synthetic_data"
    )

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "marginals": optional(check_cliques_param),
        "max_iter": check_positive_int,
        "total": one_of(*_TOTALS),
        "synthetic_method": one_of(*_METHODS),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        *,
        domain=None,
        marginals=None,
        max_iter: int = DEFAULT_MAX_ITER,
        total: str = "public",
        synthetic_method: str = "round",
        random_state=None,
    ):
        self.marginals = marginals
        self.max_iter = max_iter
        self.total = total
        self.synthetic_method = synthetic_method
        super().__init__(epsilon, domain=domain, random_state=random_state)

    def _fit_counts(self, counts, n):
        cliques = self._marginal_axes()
        eps = float(self.epsilon)
        mat = counts[None, :]
        noisy, b = _measure(
            mat, self.shape_, cliques, eps, [self._rng], self.ledger_, self.columns_
        )
        stddev = math.sqrt(2.0) * b
        total = float(_totals(mat, noisy, cliques, stddev, self.total)[0])
        self.model_ = _fit_one(
            _domain(self.shape_), [y[0] for y in noisy], cliques, stddev, total, int(self.max_iter)
        )
        self.measurements_ = _measurements([y[0] for y in noisy], cliques, stddev)
        self.cliques_ = [tuple(self.columns_[a] for a in cl) for cl in cliques]

    def _sample_counts(self, n):
        seed = int(self._rng.integers(2**32))
        return _synthetic_counts(self.model_, n, seed, self.synthetic_method, self.shape_)
