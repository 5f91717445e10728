"""The numpy mirror descent of Private-PGM (``NumpyMirrorDescent``, McKenna, Sheldon & Miklau
2019, Alg. 1 [``mckenna2019``]; mbi 2.0's ``MirrorDescent`` [``mbi2026``]): the flat-buffer
implementation of the package against the previous one (kept below as
:class:`PreviousNumpyMirrorDescent`, only for the ratio), in one process, on the same problems.

Run from the repository root::

    .venv/bin/python benchmarks/bench_mirror_descent.py                  # all three (~2 CPU-min)
    .venv/bin/python benchmarks/bench_mirror_descent.py --cases aim large
    .venv/bin/python benchmarks/bench_mirror_descent.py --aim-steps 200  # quicker, partial

Problems:

* ``aim``: every Private-PGM fit of one AIM fit (:class:`~synthtrust.synthesizers.AIM`, ε = 15,
  δ = 1e-5, ``random_state`` 0) on 2 000 rows of ``cardio`` (as the evaluation-protocols
  chapter encodes and subsamples it, subset seed 0): the measurements, step counts and warm
  starts of each :meth:`PGMFitter.fit` call are recorded, then each fit is replayed with both
  implementations (``--aim-steps`` caps the steps of a replay);
* ``privmrf``: the first ``--privmrf-estimations`` estimations of PrivMRF on ``hypothyroid_allhypo``
  (ε = 10, δ = 1e-5, seed 0, as ``bench_privmrf_select.py``), recorded at
  :meth:`PGMFitter.start` (the fit is stopped there) and replayed for ``--privmrf-steps`` steps
  each (a whole fit takes ~5 CPU-min per implementation);
* ``large``: one synthetic model with a junction tree of a few hundred thousand cells (12
  columns of 9 levels, 3-way cliques on a ring with chords, noisy marginals of random data),
  ``--large-steps`` steps.

Every replay starts from the same potentials and runs the same number of steps. Printed per
case: CPU seconds (``time.process_time``; the 2 cores may be shared, the load average is
printed) per step and in total for each implementation, the ratio, the junction-tree cells, and
the largest difference of the final potentials, max |θ_new − θ_old| / max |θ_old| (0 = bit for
bit); ``same decisions`` says whether the losses and step sizes α after the last step agree
exactly.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from _report import ROOT, Report, load  # benchmarks/ is on sys.path when run as a script

from synthtrust.studies.evaluation_protocols import benchmark as ep
from synthtrust.synthesizers import AIM
from synthtrust.synthesizers import marginal as mg
from synthtrust.synthesizers.marginal import estimate
from synthtrust.synthesizers.marginal.counts import Clique
from synthtrust.synthesizers.marginal.junction import TreePlan
from synthtrust.synthesizers.marginal.measurement import Measurement
from synthtrust.synthesizers.marginal.mirror_descent import DescentState, NumpyMirrorDescent
from synthtrust.synthesizers.privmrf import PrivMRF

DELTA, SEED = 1e-5, 0
RESULTS = ROOT / "benchmarks" / "results_mirror_descent.txt"


# ------------------------------------------------------------------------------------------
# previous implementation, kept for the ratio (not used by the package)
# ------------------------------------------------------------------------------------------
class PreviousNumpyMirrorDescent:
    """PREVIOUS IMPLEMENTATION, kept for the ratio: the package's ``NumpyMirrorDescent``
    before the flat buffers (verbatim but for the name; not used by the package).

    The mirror-descent iteration of :func:`fit_program` in numpy.

    Same loss (mbi's L2 loss over the merged measurements, each routed to the smallest potential
    clique containing it), same oracle (message passing on mbi's junction tree:
    :meth:`marginals`), same Armijo step rule and initial step; no compilation, so a new clique
    structure costs nothing. With a plan built ``by_size`` (as :class:`PGMFitter` does) the wide
    node arrays have their largest column last, which keeps numpy's reductions fast; a potential
    is transposed to its node's column order and its marginal back to the clique's order.
    """

    def __init__(
        self, plan: TreePlan, cliques: Sequence[Clique], measurements: Sequence[Measurement]
    ):
        self.plan = plan
        sizes = plan.sizes
        self.cliques = [tuple(c) for c in cliques]
        self.pot_embed = []  # (host node, axes summed out, broadcast shape, axis permutation)
        for c in self.cliques:
            h = plan.host(c)
            perm = tuple(sorted(range(len(c)), key=lambda t: plan.nodes[h].index(c[t])))
            self.pot_embed.append((h, *plan.embed(c, h), perm))
        cell = [math.prod(sizes[a] for a in c) for c in self.cliques]
        self.meas = []
        for m in measurements:
            cands = [i for i, c in enumerate(self.cliques) if set(m.clique) <= set(c)]
            k = min(cands, key=lambda i: cell[i])  # first smallest, as CliqueVector.parent
            pc = self.cliques[k]
            axes = tuple(t for t, a in enumerate(pc) if a not in m.clique)
            shape = tuple(sizes[a] if a in m.clique else 1 for a in pc)
            w = None if m.weights is None else np.asarray(m.weights, dtype=float)
            prec = 1.0 / max(float(m.stddev), 1e-12) ** 2
            self.meas.append((k, axes, shape, w, np.asarray(m.values, dtype=float), prec))

        # node log-potentials: which potentials add into which node; one reusable buffer a node
        self.node_terms = [[] for _ in plan.nodes]
        for k, (h, _, shape, perm) in enumerate(self.pot_embed):
            self.node_terms[h].append((k, shape, perm))
        self.buffers = [np.empty(shape) for shape in plan.shapes]

    def _node_log_potentials(self, theta: list) -> list:
        """Σ of the potentials hosted by each node, broadcast to the node (in the buffers)."""
        for buf, terms in zip(self.buffers, self.node_terms, strict=True):
            parts = [np.transpose(theta[k], perm).reshape(shape) for k, shape, perm in terms]
            if not parts:
                buf.fill(0.0)
            elif len(parts) == 1:
                buf[...] = parts[0]
            else:
                np.add(parts[0], parts[1], out=buf)
                for part in parts[2:]:
                    buf += part
        return self.buffers

    def _potential_marginals(self, node_arrays: list) -> list:
        """The node arrays summed onto each potential clique (axes in the clique's order)."""
        out = []
        for h, axes, _, perm in self.pot_embed:
            v = node_arrays[h].sum(axis=axes) if axes else node_arrays[h].copy()
            out.append(np.transpose(v, np.argsort(perm)))
        return out

    def marginals(self, theta: list, total: float) -> list:
        """Marginals of the potential cliques (counts summing to ``total``) of the model with
        log-potentials ``theta``: :meth:`_linear_marginals`, or the plan's log-space calibration
        when that underflows (not expected for fitted models)."""
        out = self._linear_marginals(theta, total)
        if out is None:
            log_psi = [b.copy() for b in self._node_log_potentials(theta)]
            out = self._potential_marginals(self.plan.calibrate(log_psi, total))
        return out

    def _linear_marginals(self, theta: list, total: float) -> list | None:
        """Hugin message passing with one exponential per node: the same marginals as
        :meth:`TreePlan.calibrate` (up to rounding) at about a third of its cost.

        Upward, a node whose children have sent their messages (added in log space) becomes
        E = exp(ψ − max ψ) and sends u = log Σ_{node∖sep} E; downward, a child's E is multiplied by
        Σ_{parent∖sep} E_parent / Σ_{child∖sep} E_child (the Hugin update, scaled to max 1). Only
        each node's shape matters: every potential marginal is normalised by its node's sum. None
        when a node's mass underflows, to zero or to a subnormal number whose reciprocal
        overflows (then the caller falls back to log space)."""
        plan = self.plan
        acc = self._node_log_potentials(theta)
        up = {}

        def to_linear(i: int) -> bool:
            m = acc[i].max()
            if not np.isfinite(m):
                return False
            np.subtract(acc[i], m, out=acc[i])
            np.exp(acc[i], out=acc[i])
            return True

        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for i, j in plan.up:
                if not to_linear(i):
                    return None
                axes, shape = plan.msg[(i, j)]
                up[(i, j)] = acc[i].sum(axis=axes).reshape(shape)
                acc[j] += np.log(up[(i, j)])
            if not to_linear(plan.bfs[0]):
                return None
            for j, i in plan.down:
                axes, shape = plan.msg[(j, i)]
                sent = up[(i, j)].reshape(shape)
                ratio = acc[j].sum(axis=axes).reshape(shape) / sent
                if np.isinf(ratio[sent > 0]).any():  # a subnormal message: the ratio overflows
                    return None
                ratio[~np.isfinite(ratio)] = 0.0  # the child has no mass there: 0 · ratio = 0
                top = ratio.max()
                if not top > 0:
                    return None
                acc[i] *= ratio / top
            out = self._potential_marginals(acc)
            scales = [total / v.sum() for v in out]
        # a subnormal node mass passes s > 0 but makes total / s overflow: only finite scales
        if not all(np.isfinite(c) and c > 0 for c in scales):
            return None
        return [v * c for v, c in zip(out, scales, strict=True)]

    def loss_grad(self, mu: list) -> tuple[float, list]:
        """L(μ) = Σ_M ½‖(Q_M μ_M − y_M)/σ_M‖² and ∂L/∂μ (one array per potential clique)."""
        val = 0.0
        g = [None] * len(mu)
        for k, axes, shape, w, y, prec in self.meas:
            v = (mu[k].sum(axis=axes) if axes else mu[k]).ravel()
            r = (v if w is None else w * v) - y
            val += 0.5 * prec * float(r @ r)
            gv = (prec * r if w is None else prec * r * w).reshape(shape)
            g[k] = gv if g[k] is None else g[k] + gv
        return val, g

    def start(self, theta: list, total: float, lipschitz: float) -> DescentState:
        """The state before the first step: the marginals, loss and gradient at ``theta`` (list
        of log-potentials, one array per potential clique) and the initial step α = 2/(L·N)
        (L: ``lipschitz``, the Lipschitz constant of ∇L; N: ``total``, records)."""
        mu = self.marginals(theta, total)
        loss, g = self.loss_grad(mu)
        return DescentState(theta, mu, loss, g, 2.0 / (lipschitz * total))

    def steps(self, state: DescentState, total: float, steps: int) -> DescentState:
        """``steps`` mirror-descent steps from ``state`` (α carried, so a run split into chunks
        follows the same iterates as one run)."""
        theta, mu, loss, g, alpha = state.theta, state.mu, state.loss, state.grad, state.alpha
        for _ in range(steps):
            theta2 = [t - alpha * gi for t, gi in zip(theta, g, strict=True)]
            mu2 = self.marginals(theta2, total)
            loss2, g2 = self.loss_grad(mu2)
            dot = sum(float(np.sum(gi * (a - b))) for gi, a, b in zip(g, mu, mu2, strict=True))
            if loss - loss2 >= 0.5 * alpha * dot:
                theta, mu, loss, g, alpha = theta2, mu2, loss2, g2, 1.01 * alpha
            else:
                alpha = 0.5 * alpha
        return DescentState(theta, mu, loss, g, alpha)

    def run(self, theta: list, total: float, steps: int, lipschitz: float) -> list:
        """``steps`` mirror-descent steps from ``theta`` (list of log-potentials); the final
        log-potentials."""
        return self.steps(self.start(theta, total, lipschitz), total, steps).theta


# ------------------------------------------------------------------------------------------
# the problems
# ------------------------------------------------------------------------------------------
class _Stop(Exception):
    """Raised to stop a PrivMRF fit once its estimations are recorded."""


def aim_problems() -> tuple[list, float]:
    """The Private-PGM fits of one AIM fit on cardio: a list of (sizes, measurements, steps,
    warm start) and the CPU seconds of the AIM fit (with the package's implementation)."""
    codes, sizes, _ = ep.prepare("cardio", 2000, SEED)
    rec = []
    fit = estimate.PGMFitter.fit

    def recording(self, measurements, *, max_iter, warm_start=None):
        rec.append((self.sizes, list(measurements), int(max_iter), warm_start))
        return fit(self, measurements, max_iter=max_iter, warm_start=warm_start)

    estimate.PGMFitter.fit = recording
    try:
        c0 = time.process_time()
        AIM(15.0, DELTA, domain=sizes, random_state=SEED).fit(codes)
        cpu = time.process_time() - c0
    finally:
        estimate.PGMFitter.fit = fit
    return [(s, ms, it, None, w) for s, ms, it, w in rec], cpu


def privmrf_problems(count: int) -> list:
    """The first ``count`` estimations of PrivMRF on thyroid at ε = 10: (sizes, measurements,
    None, total, warm start)."""
    codes, sizes, _ = ep.prepare("hypothyroid_allhypo")
    rec = []
    start = estimate.PGMFitter.start

    def recording(self, measurements, total, *, warm_start=None):
        rec.append((self.sizes, list(measurements), None, float(total), warm_start))
        if len(rec) >= count:
            raise _Stop
        return start(self, measurements, total, warm_start=warm_start)

    estimate.PGMFitter.start = recording
    try:
        PrivMRF(10.0, DELTA, domain=sizes, random_state=SEED).fit(codes)
    except _Stop:
        pass
    finally:
        estimate.PGMFitter.start = start
    return rec


def large_problem() -> tuple:
    """A synthetic model of a few hundred thousand junction-tree cells."""
    rng = np.random.default_rng(SEED)
    d, k = 12, 9
    sizes = (k,) * d
    X = rng.integers(0, k, size=(20_000, d))
    cliques = [(i, (i + 1) % d, (i + 2) % d) for i in range(0, d, 2)]
    cliques += [(0, 6), (3, 9), (1, 7), (4, 10)]
    cliques += [(i,) for i in range(d)]
    ms = []
    for c in cliques:
        c = tuple(sorted(c))
        y = mg.true_marginal(X, sizes, c) + rng.normal(0, 20.0, k ** len(c))
        ms.append(Measurement(c, y, 20.0))
    return sizes, ms, None, None, None


# ------------------------------------------------------------------------------------------
# the replay
# ------------------------------------------------------------------------------------------
def replay(problem: tuple, steps: int | None) -> dict:
    """One problem with both implementations from the same potentials: CPU seconds, cells and
    the largest difference of the final potentials."""
    sizes, ms, max_iter, total, warm = problem
    fitter = estimate.PGMFitter(sizes, backend="numpy")
    merged, loss, cliques, theta = fitter._problem(ms, warm)
    total = float(mg.total_estimate(ms)) if total is None else total
    n = int(max_iter if steps is None else min(max_iter or steps, steps))
    plan = TreePlan(sizes, cliques, by_size=True)
    out = {"cells": sum(math.prod(s) for s in plan.shapes), "steps": n}
    states = {}
    for name, cls in (("old", PreviousNumpyMirrorDescent), ("new", NumpyMirrorDescent)):
        c0 = time.process_time()
        md = cls(plan, cliques, merged)
        st = md.start([t.copy() for t in theta], total, float(loss.lipschitz))
        states[name] = md.steps(st, total, n)
        out[name] = time.process_time() - c0
    old, new = states["old"], states["new"]
    top = max(float(np.abs(t).max()) for t in old.theta)
    diff = max(float(np.abs(a - b).max()) for a, b in zip(old.theta, new.theta, strict=True))
    out["diff"] = diff / top if top > 0 else diff
    out["same"] = old.loss == new.loss and old.alpha == new.alpha
    return out


def summarize(name: str, results: list) -> list:
    """One table row for a case."""
    steps = sum(r["steps"] for r in results)
    old, new = sum(r["old"] for r in results), sum(r["new"] for r in results)
    cells = [r["cells"] for r in results]
    span = f"{min(cells):,}" if min(cells) == max(cells) else f"{min(cells):,}-{max(cells):,}"
    return [
        name,
        str(len(results)),
        f"{steps:,}",
        span,
        f"{1e3 * old / steps:.3f}",
        f"{1e3 * new / steps:.3f}",
        f"{old:.2f}",
        f"{new:.2f}",
        f"{old / new:.2f}x",
        f"{max(r['diff'] for r in results):.1e}",
        str(all(r["same"] for r in results)),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=["aim", "privmrf", "large"])
    ap.add_argument("--aim-steps", type=int, default=None, help="cap on the steps of a fit")
    ap.add_argument("--privmrf-estimations", type=int, default=3)
    ap.add_argument("--privmrf-steps", type=int, default=50)
    ap.add_argument("--large-steps", type=int, default=200)
    ap.add_argument("--output", type=Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)

    rep = Report.start("bench_mirror_descent.py", argv)
    rows = []
    if "aim" in args.cases:
        probs, cpu = aim_problems()
        rep(f"aim: AIM eps=15 on cardio (2,000 rows): {len(probs)} PGM fits, fit CPU {cpu:.1f} s")
        res = [replay(p, args.aim_steps) for p in probs]
        for i, r in enumerate(res):
            if i % 10 == 0 or i == len(res) - 1:
                rep(
                    f"   fit {i:2d}: {r['cells']:>7,} cells, {r['steps']} steps, old "
                    f"{1e3 * r['old'] / r['steps']:.3f} ms/step, new "
                    f"{1e3 * r['new'] / r['steps']:.3f} ms/step, diff {r['diff']:.1e}"
                )
        rows.append(summarize("AIM cardio eps=15", res))
    if "privmrf" in args.cases:
        probs = privmrf_problems(args.privmrf_estimations)
        res = [replay(p, args.privmrf_steps) for p in probs]
        for i, r in enumerate(res):
            rep(
                f"privmrf estimation {i}: {r['cells']:,} cells, {r['steps']} steps, old "
                f"{1e3 * r['old'] / r['steps']:.1f} ms/step, new "
                f"{1e3 * r['new'] / r['steps']:.1f} ms/step, diff {r['diff']:.1e}; {load()}"
            )
        rows.append(summarize("PrivMRF thyroid eps=10", res))
    if "large" in args.cases:
        r = replay(large_problem(), args.large_steps)
        rep(f"large: {r['cells']:,} cells, {r['steps']} steps; {load()}")
        rows.append(summarize("large synthetic", [r]))
    rep()
    rep.table(
        [
            "case",
            "fits",
            "steps",
            "tree cells",
            "old ms/step",
            "new ms/step",
            "old CPU s",
            "new CPU s",
            "old/new",
            "max rel dθ",
            "same decisions",
        ],
        rows,
    )
    rep(f"benchmark finished; {load()}")
    full = args.aim_steps is None and set(args.cases) == {"aim", "privmrf", "large"}
    rep.finish(args.output, RESULTS, full)
    return 0


if __name__ == "__main__":
    sys.exit(main())
