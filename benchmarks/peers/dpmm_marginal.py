"""dpmm (0.1.9, PyPI; SAS, Mahiou et al., TPDP 2025) MST, AIM or PrivBayes+PGM on an integer-coded table.

Runs in the side environment ``.cache/peers/dpmm`` (``requirements-dpmm.txt``). dpmm vendors an old,
NumPy-only Private-PGM (``dpmm.models.base.mbi``: ``FactoredInference``-era API) and pins
``numpy==1.26.4``, ``pandas==2.1.0``, ``scikit-learn==1.5.0``, ``opendp==0.12.1``, Python < 3.12;
no JAX, no torch (torch is an optional inference backend), no git dependency.

As a user runs it on an already discrete table: ``{MST,AIM,PrivBayes}Pipeline(epsilon=ε, delta=δ,
disable_processing=True, ...)`` (no DP discretiser: the domain is public and given),
``fit(df, domain={column: levels}, random_state=seed)``, ``generate(n_records=n,
random_state=seed)``. Library defaults otherwise: ``compress=True`` (domain compression as in the
MST paper), ``n_jobs=-1`` (a multiprocessing pool over all cores for measurement/selection),
MST 5000 mirror-descent steps, AIM ``degree=2``, ``max_cells=10000``, ``rounds=16·d``, 1000 steps
per round; PrivBayes+PGM ``degree=2`` (zCDP: Gaussian-measured conditionals, estimated with PGM).
``--max-model-size`` (MB) caps the junction tree for AIM (the pipeline passes ``None`` = no cap
unless given).

``fit_s`` = ``fit``; ``sample_s`` = ``generate`` + writing the CSV.
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common  # noqa: E402


def main(argv=None) -> int:
    ap = _common.parser(__doc__.splitlines()[0])
    ap.add_argument("--algo", choices=["mst", "aim", "privbayes"], required=True)
    ap.add_argument("--max-model-size", type=float, default=None)
    ap.add_argument("--n-jobs", type=int, default=-1)
    args = ap.parse_args(argv)

    import pandas as pd
    from dpmm.pipelines import AIMPipeline, MSTPipeline, PrivBayesPipeline

    cls = {"mst": MSTPipeline, "aim": AIMPipeline, "privbayes": PrivBayesPipeline}[args.algo]
    df = pd.read_csv(args.input)
    with open(args.domain, encoding="utf-8") as fh:
        domain = {c: int(v) for c, v in json.load(fh).items()}
    domain = {c: domain[c] for c in df.columns}
    n_out = args.rows or len(df)
    model = cls(
        epsilon=args.epsilon,
        delta=args.delta,
        disable_processing=True,
        max_model_size=args.max_model_size,
        n_jobs=args.n_jobs,
    )

    t0 = time.perf_counter()
    model.fit(df, domain=domain, random_state=args.seed)
    fit_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    out = model.generate(n_records=n_out, random_state=args.seed)
    out[list(df.columns)].to_csv(args.output, index=False)
    sample_s = time.perf_counter() - t0

    gen = getattr(model.gen, "generator", None)
    cliques = getattr(gen, "cliques", None) or getattr(gen, "selected_cliques", None)
    notes = {
        "algo": args.algo,
        "epsilon": args.epsilon,
        "delta": args.delta,
        "seed": args.seed,
        "max_model_size": args.max_model_size,
        "n_jobs": args.n_jobs,
        "cliques": [list(c) for c in cliques] if cliques else None,
    }
    _common.write_result(
        args.result,
        fit_s=fit_s,
        sample_s=sample_s,
        rows_in=len(df),
        rows_out=n_out,
        versions=_common.versions("dpmm", "numpy", "pandas", "scikit-learn", "opendp"),
        notes=notes,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
