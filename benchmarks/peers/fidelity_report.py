"""One holdout-fidelity report of a peer (or of synthtrust), timed around the library's calls.

Runs inside the peer's side environment (``.cache/peers/<name>/``; synthtrust in the project's
``.venv``), launched by ``benchmarks/bench_fidelity_scale.py``::

    python fidelity_report.py --peer sdmetrics --train t.csv --holdout h.csv --synthetic s.csv \\
        --result r.json

Peers and what they compute (as their documentation and code say; the result JSON repeats it):

* ``synthtrust``: ``synthtrust.fidelity.holdout_report`` — every 1-, 2- and 3-way TVD of the
  synthetic and the holdout table against training, the exact Hamming DCR of every synthetic
  record to the full training and holdout tables (and the holdout's reference row); no sampling.
* ``mostlyai-qa``: ``mostlyai.qa.report`` — univariate/bivariate/trivariate accuracy on at most
  ``max_sample_size_accuracy`` rows (None: all), DCR/NNDR on embeddings of equally sized samples
  of the three tables (``max_sample_size_embeddings``; None: all, with a warning above 50 000).
* ``sdmetrics``: ``QualityReport`` (column shapes and pair trends; SDMetrics' own subsampling)
  and ``DCROverfittingProtection`` (range-scaled distances; run on a sample of
  ``--sdmetrics-dcr-rows`` synthetic rows against the full training and holdout tables).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time


def _read(path):
    import pandas as pd

    return pd.read_csv(path)


def synthtrust_report(train, holdout, synthetic, args) -> dict:
    from synthtrust.fidelity import holdout_report

    t0 = time.perf_counter()
    report = holdout_report(train, holdout, synthetic)
    seconds = time.perf_counter() - t0
    out = report.to_dict()
    return {
        "seconds": seconds,
        "metrics": {k: out[k] for k in ("tvd_1", "tvd_2", "tvd_3", "dcr_share")},
        "triples": len(out["tvd_per_triple"]),
        "samples": "nothing: every k-way TVD, exact DCR against the full tables",
    }


def mostlyai_qa_report(train, holdout, synthetic, args) -> dict:
    import warnings

    from mostlyai import qa

    kwargs = {}
    if args.embedding_rows:
        kwargs["max_sample_size_embeddings"] = args.embedding_rows
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, metrics = qa.report(
            syn_tgt_data=synthetic,
            trn_tgt_data=train,
            hol_tgt_data=holdout,
            report_path=args.result + ".html",
            **kwargs,
        )
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "metrics": {
            "accuracy": float(metrics.accuracy.overall),
            "dcr_share": float(metrics.distances.dcr_share),
        },
        "samples": "embeddings of "
        + (f"{args.embedding_rows:,}" if args.embedding_rows else "all")
        + " rows of each table (DCR/NNDR on embeddings); accuracy on all rows",
    }


def sdmetrics_report(train, holdout, synthetic, args) -> dict:
    import pandas as pd
    from sdmetrics.reports.single_table import QualityReport
    from sdmetrics.single_table import DCROverfittingProtection

    columns = {
        c: {"sdtype": "numerical" if pd.api.types.is_numeric_dtype(train[c]) else "categorical"}
        for c in train.columns
    }
    t0 = time.perf_counter()
    quality = QualityReport()
    quality.generate(train, synthetic, {"columns": columns}, verbose=False)
    t_quality = time.perf_counter() - t0
    rows = min(args.sdmetrics_dcr_rows, len(synthetic))
    sample = synthetic.sample(n=rows, random_state=0)
    t1 = time.perf_counter()
    metadata = {"tables": {"table": {"columns": columns}}}
    dcr = DCROverfittingProtection.compute_breakdown(train, sample, holdout, metadata, "table")
    t_dcr = time.perf_counter() - t1
    return {
        "seconds": t_quality + t_dcr,
        "seconds_quality": t_quality,
        "seconds_dcr": t_dcr,
        "metrics": {
            "quality": float(quality.get_score()),
            "closer_to_training": float(dcr["synthetic_data_percentages"]["closer_to_training"]),
        },
        "samples": f"QualityReport: its own subsampling; DCR: {rows:,} synthetic rows",
    }


PEERS = {
    "synthtrust": (synthtrust_report, ("synthtrust", "numpy", "pandas")),
    "mostlyai-qa": (mostlyai_qa_report, ("mostlyai-qa", "torch", "pandas")),
    "sdmetrics": (sdmetrics_report, ("sdmetrics", "pandas")),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--peer", required=True, choices=sorted(PEERS))
    for role in ("train", "holdout", "synthetic"):
        ap.add_argument(f"--{role}", required=True)
    ap.add_argument("--result", required=True)
    ap.add_argument("--embedding-rows", type=int, default=None)
    ap.add_argument("--sdmetrics-dcr-rows", type=int, default=1000)
    args = ap.parse_args()
    from importlib import metadata

    run, dists = PEERS[args.peer]
    tables = [_read(getattr(args, r)) for r in ("train", "holdout", "synthetic")]
    out = run(*tables, args)
    out["versions"] = {d: metadata.version(d) for d in dists}
    out["python"] = sys.version.split()[0]
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tmp = args.result + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
    os.replace(tmp, args.result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
