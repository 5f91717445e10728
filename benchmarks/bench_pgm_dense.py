"""Private-PGM on a one-node junction tree: the dense numpy mirror descent (the package's
``batched=True`` path, ``pgm._fit_dense``) against mbi, in one process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_pgm_dense.py            # ~6 CPU-min
    .venv/bin/python benchmarks/bench_pgm_dense.py --quick    # 20 replicates, n = 50 only

Two workloads, both from chapter 1 (``chapters/hypothesis_validity.md``):

* **multivariate** — :func:`synthtrust.studies.hypothesis_validity.multivariate.multivariate_cell`'s
  Private-PGM call: the 2 × 8 × 24 × 3 × 2 = 2304-cell table of the signal scenario, all 15
  one- and two-way marginals, 500 mirror-descent steps (``multivariate_pgm_max_iter``), m = n.
  ``old``: ``private_pgm(..., batched=False)``, one mbi ``MirrorDescent().estimate`` and one mbi
  ``synthetic_data`` per replicate (what the study ran before); ``new``: ``private_pgm(...)``
  (dense path), in chunks of 10 replicates (the chapter's ``chunk_size``) and in one chunk of
  200.
* **two-column** — chapter 1's 2 × 100 table (a group and a binned value), 2500 steps, ε = 1,
  chunks of 50 replicates (the chapter's ``chunk_size``). ``old``: mbi's ``MirrorDescent``
  vmapped over replicates with JAX (``pgm._fit_batched``) and the vectorized rounding, which
  ``private_pgm`` still runs for this one-clique structure; ``new``: the dense fit and the same
  rounding (``pgm._fit_dense``, ``pgm._sample_dense``), the measurement that decided that.

Printed: CPU seconds per replicate (``time.process_time`` of the whole ``private_pgm`` call,
JAX threads included; JAX is compiled before timing) and the max total-variation distance
between the two fitted models over the cell's replicates (the same noisy marginals: the model's
joint from mbi's ``estimate`` or vmapped run against the dense one, divided by N).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
from _report import ROOT, Report, load, machine  # benchmarks/ is on sys.path when run as a script
from scipy.stats import norm

from synthtrust.studies.hypothesis_validity import multivariate as hm
from synthtrust.synthesizers import pgm, private_pgm
from synthtrust.synthesizers.base import check_marginals

MV_MAX_ITER, TWO_MAX_ITER = 500, 2500
SHAPE2 = (2, 100)


def _gens(seed: int, reps: int) -> list[np.random.Generator]:
    return [np.random.default_rng([seed, i]) for i in range(reps)]


def _cpu(fn) -> tuple[float, object]:
    t = time.process_time()
    out = fn()
    return time.process_time() - t, out


def _joint(model, domain) -> np.ndarray:
    return np.asarray(model.project(domain.attributes).datavector(flatten=False))


def _models(counts, shape, eps, seed, max_iter, vmapped: bool):
    """The old and the dense models of every replicate, from the same noisy marginals."""
    domain = pgm._domain(shape)
    cliques = check_marginals(None, len(shape))
    noisy, b = pgm._measure(counts, shape, cliques, eps, _gens(seed, len(counts)))
    sd = math.sqrt(2.0) * b
    tot = counts.sum(axis=1).astype(float)
    dense = pgm._fit_dense(
        domain, noisy, cliques, sd, tot, max_iter, pgm._loss_template(domain, noisy, cliques, sd)
    )
    if vmapped:
        models = pgm._fit_batched(domain, noisy, cliques, sd, tot, max_iter)
        old = [_joint(m, domain) for m in pgm._split_models(models, len(counts))]
    else:
        old = [
            _joint(
                pgm._fit_one(domain, [y[i] for y in noisy], cliques, sd, tot[i], max_iter), domain
            )
            for i in range(len(counts))
        ]
    return max(0.5 * np.abs(o - d).sum() / t for o, d, t in zip(old, dense, tot, strict=True))


def _old_two_column(counts, eps, rngs, max_iter):
    """The vmapped JAX path of ``private_pgm`` before the dense one (same draws, same sampler)."""
    domain = pgm._domain(SHAPE2)
    cliques = check_marginals(None, 2)
    noisy, b = pgm._measure(counts, SHAPE2, cliques, eps, rngs)
    sd = math.sqrt(2.0) * b
    tot = counts.sum(axis=1).astype(float)
    models = pgm._fit_batched(domain, noisy, cliques, sd, tot, max_iter)
    return pgm._sample_batched(models, domain, tot, rngs, "round", SHAPE2)


def _new_two_column(counts, eps, rngs, max_iter):
    """The dense path on the two-column table (``private_pgm`` keeps a single clique on the
    vmapped path: ``pgm._dense_order``), with the same draws and the same sampler."""
    domain = pgm._domain(SHAPE2)
    cliques = check_marginals(None, 2)
    noisy, b = pgm._measure(counts, SHAPE2, cliques, eps, rngs)
    sd = math.sqrt(2.0) * b
    tot = counts.sum(axis=1).astype(float)
    loss0 = pgm._loss_template(domain, noisy, cliques, sd)
    joints = pgm._fit_dense(domain, noisy, cliques, sd, tot, max_iter, loss0)
    order = pgm._sampling_order(domain, tuple(loss0.cliques))
    return pgm._sample_dense(joints, order, tot, rngs, "round")


def _two_column_counts(n: int, reps: int, seed: int) -> np.ndarray:
    """(reps, 200) counts: two groups of n/2, a value binned into 100 bins (normal, sd 15)."""
    edges = np.linspace(-50, 50, 101)
    mass = np.diff(norm.cdf(edges, scale=15.0))
    mass[0] += norm.cdf(-50, scale=15.0)
    mass[-1] += norm.sf(50, scale=15.0)
    rng = np.random.default_rng(seed)
    out = np.empty((reps, 200), dtype=np.int64)
    for i in range(reps):
        out[i, :100] = rng.multinomial(n // 2, mass)
        out[i, 100:] = rng.multinomial(n - n // 2, np.roll(mass, 2))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="20 replicates, n = 50 only")
    ap.add_argument("--output", type=Path, default=None, help="also write the report here")
    args = ap.parse_args()
    reps = 20 if args.quick else 200
    sizes = [50] if args.quick else [50, 1000, 20000]
    rep = Report()
    rep(f"machine: {machine()}; {load()}")
    rep()

    # warm-up: imports, JAX compilation of mbi's estimator (both paths), the copula
    warm = hm.joint_counts(hm.original_samples("signal", 50, _gens(0, 2)))
    private_pgm(warm, 1.0, hm.SHAPE, max_iter=50, random_state=_gens(0, 2), batched=False)
    private_pgm(warm, 1.0, hm.SHAPE, max_iter=50, random_state=_gens(0, 2))

    rep(f"multivariate: {hm.SHAPE} = 2304 cells, 15 marginals, {MV_MAX_ITER} steps, {reps} reps")
    rows = []
    for n in sizes:
        counts = hm.joint_counts(hm.original_samples("signal", n, _gens(1, reps)))
        for eps in (0.1, 10.0):
            t_old, _ = _cpu(
                lambda c=counts, e=eps, n=n: private_pgm(
                    c,
                    e,
                    hm.SHAPE,
                    n_synthetic=n,
                    max_iter=MV_MAX_ITER,
                    random_state=_gens(2, reps),
                    batched=False,
                )
            )
            t_10, out10 = _cpu(
                lambda c=counts, e=eps, n=n: np.vstack(
                    [
                        private_pgm(
                            c[i : i + 10],
                            e,
                            hm.SHAPE,
                            n_synthetic=n,
                            max_iter=MV_MAX_ITER,
                            random_state=_gens(2, reps)[i : i + 10],
                        )
                        for i in range(0, reps, 10)
                    ]
                )
            )
            t_all, out_all = _cpu(
                lambda c=counts, e=eps, n=n: private_pgm(
                    c, e, hm.SHAPE, n_synthetic=n, max_iter=MV_MAX_ITER, random_state=_gens(2, reps)
                )
            )
            same = bool(np.array_equal(out10, out_all))
            tvd = _models(counts, hm.SHAPE, eps, 2, MV_MAX_ITER, vmapped=False)
            rows.append(
                [
                    n,
                    eps,
                    f"{t_old / reps:.4f}",
                    f"{t_10 / reps:.4f}",
                    f"{t_all / reps:.4f}",
                    f"{t_old / t_10:.1f}x",
                    f"{t_old / t_all:.1f}x",
                    f"{tvd:.1e}",
                    same,
                ]
            )
            rep(f"  n={n} eps={eps}: done; {load()}")
    rep()
    rep.table(
        [
            "n",
            "eps",
            "old s/rep",
            "new s/rep (10)",
            "new s/rep (200)",
            "speed-up (10)",
            "speed-up (200)",
            "max TVD",
            "chunks equal",
        ],
        rows,
    )
    rep()

    reps2 = 50 if args.quick else 1000
    rep(
        f"two-column: {SHAPE2} = 200 cells, 3 marginals, {TWO_MAX_ITER} steps, eps = 1, "
        f"{reps2} reps in chunks of 50"
    )
    _old_two_column(_two_column_counts(100, 2, 0), 1.0, _gens(0, 2), 50)  # compile
    _old_two_column(_two_column_counts(100, 50, 0), 1.0, _gens(0, 50), 50)  # compile (R = 50)
    rows = []
    for n in (100, 1000) if args.quick else (100, 1000, 20000):
        counts = _two_column_counts(n, reps2, 3)
        gens = _gens(4, reps2)
        t_old, _ = _cpu(
            lambda c=counts, g=gens: [
                _old_two_column(c[i : i + 50], 1.0, g[i : i + 50], TWO_MAX_ITER)
                for i in range(0, len(c), 50)
            ]
        )
        t_new, _ = _cpu(
            lambda c=counts, g=gens: [
                _new_two_column(c[i : i + 50], 1.0, g[i : i + 50], TWO_MAX_ITER)
                for i in range(0, len(c), 50)
            ]
        )
        tvd = _models(counts[:50], SHAPE2, 1.0, 4, TWO_MAX_ITER, vmapped=True)
        rows.append(
            [
                n,
                f"{t_old / reps2:.5f}",
                f"{t_new / reps2:.5f}",
                f"{t_old / t_new:.2f}x",
                f"{tvd:.1e}",
            ]
        )
        rep(f"  n={n}: done; {load()}")
    rep()
    rep.table(["n", "old (JAX vmap) s/rep", "new (dense) s/rep", "speed-up", "max TVD"], rows)
    rep.finish(args.output, ROOT / "benchmarks" / "results_pgm_dense.txt", not args.quick)


if __name__ == "__main__":
    main()
