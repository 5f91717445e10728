"""smartnoise-synth (1.0.8, PyPI) MST or AIM on an integer-coded table.

Runs in the side environment ``.cache/peers/smartnoise`` (``requirements-smartnoise.txt``).
smartnoise-synth 1.0.8 depends on ``mbi>=1.1.0,<2`` from PyPI (the JAX functional mbi 1.x API:
``estimation.mirror_descent``, ``LinearMeasurement``), not on a git commit of private-pgm, so it
installs offline from PyPI — but it cannot share an environment with the project's ``mbi==2.0.0``
(the mbi 1.x and 2.0 APIs are incompatible). It also pulls ``opacus<0.15`` and therefore torch:
pin ``torch==2.13.0`` (the CPU wheel on disk) or pip downloads a multi-GB CUDA build.

As a user runs it: ``Synthesizer.create("mst"|"aim", epsilon=ε, delta=δ)`` then
``fit(df, categorical_columns=<all columns>, preprocessor_eps=0)`` and ``sample(n)``. All columns are
declared categorical, so smartnoise's transformer maps the *observed* values of each column to
0..k−1 (the category sets are read from the data without noise; no budget is spent on
preprocessing). MST: ``cdp_rho(ε, δ)``, 1-way + tree 2-way measurements, mirror descent 5000 steps;
AIM: smartnoise defaults (``degree=2``, ``max_model_size=80``, ``max_cells=10000``, ``rounds=16·d``)
unless given. The Gaussian noise comes from OpenDP (cryptographic RNG, cannot be seeded) and the
selection/decompression use NumPy's *global* generator (seeded here with ``--seed``): runs are not
reproducible. JAX runs in its default float32 (smartnoise does not enable x64).

``fit_s`` = ``fit`` (preprocessing + select/measure/estimate); ``sample_s`` = ``sample`` + writing
the CSV.
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def main(argv=None) -> int:
    ap = _common.parser(__doc__.splitlines()[0])
    ap.add_argument("--algo", choices=["mst", "aim"], required=True)
    ap.add_argument("--max-model-size", type=float, default=None, help="AIM only (default 80 MB)")
    ap.add_argument("--rounds", type=int, default=None, help="AIM only (default 16·d)")
    args = ap.parse_args(argv)

    import numpy as np
    import pandas as pd
    from snsynth import Synthesizer

    np.random.seed(args.seed)
    df = pd.read_csv(args.input)
    n_out = args.rows or len(df)
    kwargs = {}
    if args.algo == "aim":
        if args.max_model_size is not None:
            kwargs["max_model_size"] = args.max_model_size
        if args.rounds is not None:
            kwargs["rounds"] = args.rounds
    synth = Synthesizer.create(args.algo, epsilon=args.epsilon, delta=args.delta, **kwargs)

    t0 = time.perf_counter()
    synth.fit(df, categorical_columns=list(df.columns), preprocessor_eps=0.0)
    fit_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    out = synth.sample(n_out)
    out = pd.DataFrame(out, columns=df.columns) if not isinstance(out, pd.DataFrame) else out
    out.to_csv(args.output, index=False)
    sample_s = time.perf_counter() - t0

    notes = {
        "algo": args.algo,
        "epsilon": args.epsilon,
        "delta": args.delta,
        "seed_global_numpy": args.seed,
        "opendp_noise_unseeded": True,
    }
    if args.algo == "aim":
        notes.update(
            max_model_size=getattr(synth, "max_model_size", None),
            rounds=getattr(synth, "rounds", None),
            degree=getattr(synth, "degree", None),
            max_cells=getattr(synth, "max_cells", None),
        )
    _common.write_result(
        args.result,
        fit_s=fit_s,
        sample_s=sample_s,
        rows_in=len(df),
        rows_out=n_out,
        versions=_common.versions("smartnoise-synth", "mbi", "jax", "numpy", "pandas", "opendp"),
        notes=notes,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
