"""OpenDP (``opendp[mbi]``, PyPI) ``dp.mbi.MST`` / ``dp.mbi.AIM`` contingency tables on an integer-coded table.

Runs in the side environment ``.cache/peers/opendp`` (``requirements-opendp.txt``). OpenDP ≥ 0.14
ships MST and AIM in ``opendp.extras.mbi`` (the maintained successor of smartnoise-synth's
wrappers); its ``mbi`` extra pins the PyPI ``mbi==1.1.0`` (JAX, functional 1.x API) and
``polars==1.36.1``, so it cannot share an environment with the project's ``mbi==2.0.0`` either.

As a user runs it: a polars ``Context.compositor(data=LazyFrame, privacy_unit=unit_of(contributions=1),
privacy_loss=loss_of(rho=ρ))`` with ρ = ``cdp_rho(ε, δ)`` computed by the caller (the same
conversion as synthtrust, so all zCDP synthesizers get the same ρ), then
``query(rho=ρ).contingency_table(keys={column: range(levels)}, algorithm=dp.mbi.MST()|AIM(...))
.release()`` and ``ContingencyTable.synthesize(rows=n)``. Every key is given (the domain is
public), so no budget goes to key discovery and δ is used only in the ε→ρ conversion.
Library defaults otherwise: one-way marginals of all columns first (half of ρ), then MST
(10 % of the rest selects d−1 edges by report-noisy-max, 90 % measures them) or AIM
(``queries=3``: the workload of all 3-way marginals, ``max_size=80`` MB, ``rounds=16·d``);
estimation with mbi 1.1 ``mirror_descent``. OpenDP's noise is drawn from a cryptographic RNG:
runs cannot be seeded.

``fit_s`` = ``release()``; ``sample_s`` = ``synthesize`` + writing the CSV.
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
    ap.add_argument("--algo", choices=["mst", "aim"], required=True)
    ap.add_argument("--rho", type=float, required=True, help="zCDP budget (cdp_rho(ε, δ))")
    ap.add_argument("--queries", type=int, default=None, help="AIM: workload degree (default 3)")
    ap.add_argument(
        "--max-size", type=float, default=None, help="AIM: max model size MB (default 80)"
    )
    args = ap.parse_args(argv)

    import opendp.prelude as dp
    import polars as pl

    dp.enable_features("contrib")
    with open(args.domain, encoding="utf-8") as fh:
        sizes = {c: int(v) for c, v in json.load(fh).items()}
    frame = pl.read_csv(args.input)
    cols = frame.columns
    n_out = args.rows or frame.height
    keys = {c: list(range(sizes[c])) for c in cols}
    if args.algo == "mst":
        algorithm = dp.mbi.MST()
    else:
        kw = {}
        if args.queries is not None:
            kw["queries"] = args.queries
        if args.max_size is not None:
            kw["max_size"] = args.max_size
        algorithm = dp.mbi.AIM(**kw)

    t0 = time.perf_counter()
    context = dp.Context.compositor(
        data=frame.lazy(),
        privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(rho=args.rho),
    )
    table = (
        context.query(rho=args.rho)
        .select(*cols)
        .contingency_table(keys=keys, algorithm=algorithm)
        .release()
    )
    fit_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    out = table.synthesize(rows=n_out)
    out.select(cols).write_csv(args.output)
    sample_s = time.perf_counter() - t0

    notes = {
        "algo": args.algo,
        "rho": args.rho,
        "epsilon": args.epsilon,
        "delta": args.delta,
        "algorithm": repr(algorithm)[:300],
        "cliques": [list(c) for c in table.marginals],
    }
    _common.write_result(
        args.result,
        fit_s=fit_s,
        sample_s=sample_s,
        rows_in=frame.height,
        rows_out=n_out,
        versions=_common.versions("opendp", "mbi", "jax", "polars", "numpy"),
        notes=notes,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
