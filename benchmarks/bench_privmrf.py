"""PrivMRF's estimation engines on the thyroid data: mbi 2.0's JAX ``MirrorDescent`` (the engine
before the numpy port) against the numpy mirror descent, in one process.

Run from the repository root::

    .venv/bin/python benchmarks/bench_privmrf.py                  # ε = 1 and 10 (~15 min)
    .venv/bin/python benchmarks/bench_privmrf.py --epsilons 1     # ε = 1 only
    .venv/bin/python benchmarks/bench_privmrf.py --engines numpy  # the package only

Data: ``hypothyroid_allhypo`` as the evaluation-protocols chapter encodes it
(:func:`synthtrust.studies.evaluation_protocols.benchmark.prepare`: 3 772 × 23 integer codes, public
domain), δ = 1e-5, ``random_state`` 0; every run fits on the whole table and samples as many
rows. Both engines draw the same noise (the same ledger); their fits differ only in the
estimation (the same iterates up to rounding, Cai et al. 2021 [``cai2021``] stopping rule),
so the measured marginals and the steps per estimation should agree.

Engines:

* ``mbi``: :class:`MbiPrivMRF`, PrivMRF whose estimation is mbi 2.0's ``MirrorDescent``
  [``mbi2026``] (``_init``, ``_multi_step`` chunks of ``CALLBACK_EVERY`` = 50 steps, ``_finalize``):
  one JIT compilation per estimation, because the measured cliques change every time;
* ``numpy``: :class:`~synthtrust.synthesizers.privmrf.PrivMRF` as shipped.

Printed per run: fit and sample wall seconds (the machine may be shared: the load average is
printed before each run), CPU seconds of the process during the run, the mean over all column
pairs of ½‖p − q‖₁ between the real and the synthetic 2-way marginals
(:func:`~synthtrust.studies.evaluation_protocols.benchmark.two_way_tvd`) and the steps per estimation
(``iterations_``). The mbi runs come first, so the numpy runs do not pay JAX's start-up.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from _report import Report, load  # benchmarks/ is on sys.path when run as a script

from synthtrust._jax import configure_jax, import_mbi
from synthtrust.studies.evaluation_protocols import benchmark as ep
from synthtrust.synthesizers.marginal import FittedModel
from synthtrust.synthesizers.privmrf import PrivMRF

DATASET, DELTA, SEED = "hypothyroid_allhypo", 1e-5, 0


class MbiPrivMRF(PrivMRF):
    """PrivMRF with mbi 2.0's JAX ``MirrorDescent`` as estimation engine (the warm start of the
    next estimation is the mbi model itself)."""

    def _estimate(self, warm, ratio: float, min_it: float) -> tuple:
        jax = configure_jax()
        import jax.numpy as jnp

        mbi = import_mbi()
        ms = [
            mbi.LinearMeasurement(y, tuple(self._names[a] for a in m), stddev=self._sigma_of[m])
            for m, y in self._measured.items()
        ]
        total = self._total()
        self.total_ = total
        loss_fn = mbi.marginal_loss.from_linear_measurements(ms, self._mbi_domain)
        est = mbi.estimation.MirrorDescent()
        state = est._init(self._mbi_domain, loss_fn, total, warm_start=warm)
        state = jax.tree.map(jnp.copy, state)  # _multi_step donates the warm start's buffers
        target = ratio * 0.5 * sum(y.size for y in self._measured.values())
        every = mbi.estimation.CALLBACK_EVERY
        done = 0
        while done < int(self.max_iter):
            state = est._multi_step(state, loss_fn, total, ())
            done += every
            if float(state.loss) < target and done > min_it:
                break
        self.iterations_.append(done)
        model = est._finalize(state, total)
        return model, model

    def _candidate_marginals(self, fitted, queried):
        """The package's candidate marginals, on the mbi model's potentials as a FittedModel."""
        pos = {a: i for i, a in enumerate(self._names)}
        pots = {
            tuple(pos[a] for a in cl): np.asarray(fitted.potentials[cl].values, dtype=float)
            for cl in fitted.potentials.cliques
        }
        model = FittedModel(tuple(self._sizes), tuple(pots), pots, float(fitted.total))
        return super()._candidate_marginals(model, queried)


ENGINES = {"mbi": MbiPrivMRF, "numpy": PrivMRF}


def run(cls, codes, sizes: dict, epsilon: float) -> dict:
    """Fit + sample one engine; wall and CPU seconds, 2-way TVD, steps per estimation."""
    cpu0, t0 = time.process_time(), time.perf_counter()
    model = cls(epsilon, DELTA, domain=sizes, random_state=SEED).fit(codes)
    fit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    synth = model.sample(len(codes))[list(codes.columns)]
    sample_s = time.perf_counter() - t0
    return dict(
        fit_s=fit_s,
        sample_s=sample_s,
        cpu_s=time.process_time() - cpu0,
        tvd=ep.two_way_tvd(codes, synth, sizes),
        iterations=model.iterations_,
        rho=model.ledger_.total_rho,
        marginals=len(model.measured_cliques_),
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 10.0])
    ap.add_argument("--engines", nargs="+", choices=sorted(ENGINES), default=list(ENGINES))
    ap.add_argument("--output", type=Path, default=None, help="also write the report here")
    args = ap.parse_args(argv)

    rep = Report.start("bench_privmrf.py", argv)
    codes, sizes, _ = ep.prepare(DATASET)
    rep(f"data: {DATASET} {len(codes):,} x {codes.shape[1]}; delta = {DELTA:g}; seed {SEED}")
    rows = []
    for engine in args.engines:
        for eps in args.epsilons:
            before = os.getloadavg()[0]
            r = run(ENGINES[engine], codes, sizes, eps)
            rep(
                f"   {engine:5s} eps={eps:<4g} fit {r['fit_s']:.1f} s, sample {r['sample_s']:.1f} s, "
                f"cpu {r['cpu_s']:.1f} s, TVD {r['tvd']:.4f}, {r['marginals']} marginals, "
                f"steps {r['iterations']}; load before {before:.1f}"
            )
            rows.append(
                [
                    engine,
                    f"{eps:g}",
                    f"{r['fit_s']:.1f}",
                    f"{r['sample_s']:.1f}",
                    f"{r['cpu_s']:.1f}",
                    f"{r['tvd']:.4f}",
                    str(sum(r["iterations"])),
                    f"{r['rho']:.6g}",
                ]
            )
    rep()
    rep.table(["engine", "ε", "fit s", "sample s", "CPU s", "2-way TVD", "steps", "ρ"], rows)
    rep(f"benchmark finished; {load()}")
    if args.output is not None:
        rep.save(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
