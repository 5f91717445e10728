"""Shared, standard-library-only helpers of the peer scripts in ``benchmarks/peers/``.

Each peer script runs inside its own side virtual environment (``.cache/peers/<name>/``), so this
module may import nothing but the standard library. The protocol with ``bench_synthesizers.py``:

* input: an integer-coded CSV (header = column names) and the public domain sizes as JSON;
* output: the synthetic table as CSV (``--output``) and a result JSON (``--result``) with
  ``fit_s``, ``sample_s`` (wall seconds measured around the library's calls only: no imports,
  no CSV reading), ``maxrss_self_mb`` / ``maxrss_children_mb`` (``getrusage``), ``versions``
  and ``notes`` (what the library did: structure, parameters, privacy accounting).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
from importlib import metadata


def parser(description: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--input", required=True, help="integer-coded CSV of the real table")
    ap.add_argument("--domain", required=True, help="JSON {column: number of levels}")
    ap.add_argument("--output", required=True, help="where to write the synthetic CSV")
    ap.add_argument("--result", required=True, help="where to write the result JSON")
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--delta", type=float, default=1e-9)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rows", type=int, default=None, help="rows to sample (default: as input)")
    return ap


def versions(*dists: str) -> dict:
    out = {"python": platform.python_version()}
    for d in dists:
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


def maxrss_mb(who: int) -> float:
    """ru_maxrss in MB (Linux reports KiB)."""
    return resource.getrusage(who).ru_maxrss / 1024.0


def write_result(path: str, **fields) -> None:
    fields.setdefault("maxrss_self_mb", maxrss_mb(resource.RUSAGE_SELF))
    fields.setdefault("maxrss_children_mb", maxrss_mb(resource.RUSAGE_CHILDREN))
    fields.setdefault("pid", os.getpid())
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(fields, fh, indent=1, default=str)
    os.replace(tmp, path)
    print(
        json.dumps({k: v for k, v in fields.items() if k != "notes"}, default=str), file=sys.stderr
    )
