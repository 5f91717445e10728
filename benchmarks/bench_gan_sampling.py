"""Sampling a CTGAN in blocks of rows (``SAMPLE_BLOCK_ROWS``) vs in one pass (the previous
code), the records compared.

Chapter 2's generator comparison draws 50 000 records from each generator; CTGAN's one-pass
sampler held the (n, L) conditional vectors, the network's input, its logits, their float64 copy
and their Gumbel noise at once, L being the width of the one-hot records (312 codes on Adult,
1083 on credit-default). A CTGAN is fitted on each dataset's training half as in the chapter's
default preset (its code book, 3 epochs); then each variant samples in a fresh worker process
(spawned, one BLAS thread, as loky's workers), which reports the seconds of the sampling and
its peak resident memory during it (``synthtrust.run.estimate.measure``: the kernel's
high-water mark reset before, the model and PyTorch loaded included). Printed: both variants, the
ratios and whether the records are identical.

Usage::

    python benchmarks/bench_gan_sampling.py             # the four datasets (~3 min)
    python benchmarks/bench_gan_sampling.py --rows 200000
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from synthtrust import datasets
from synthtrust.run._environ import WORKER_ENV, environ
from synthtrust.run.estimate import measure
from synthtrust.studies.holdout_fidelity_privacy.generators import CodeBook, make_generator
from synthtrust.studies.holdout_fidelity_privacy.scores import DATASETS


def _sample(model, n: int, block_rows: int | None) -> tuple[str, float, float]:
    """(digest of the records, seconds, peak MB of this worker) of ``n`` records."""
    from synthtrust.synthesizers import _conditional_gan

    if block_rows is not None:
        _conditional_gan.SAMPLE_BLOCK_ROWS = block_rows
    out, seconds, peak = measure(lambda: model.sample(n))  # the peak of the sampling alone
    return hashlib.sha256(out.to_numpy().tobytes()).hexdigest(), seconds, peak


def _in_worker(model, n: int, block_rows: int | None):
    context = multiprocessing.get_context("spawn")
    with environ(WORKER_ENV), ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(_sample, model, n, block_rows).result()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    args = parser.parse_args(argv)
    from synthtrust.synthesizers._conditional_gan import SAMPLE_BLOCK_ROWS

    print(
        f"# CTGAN sampling of {args.rows} records: one pass (previous) vs blocks of "
        f"{SAMPLE_BLOCK_ROWS} rows\n"
    )
    header = f"{'dataset':<16} {'L':>5} {'sampler':<18} {'peak MB':>8} {'seconds':>8}  identical"
    print(header)
    print("-" * len(header))
    for name in args.datasets:
        train = datasets.holdout_split(name)[0]
        book = CodeBook().fit(train)
        model = make_generator(
            "ctgan",
            book.sizes_,
            epochs=args.epochs,
            epsilon=None,
            delta=None,
            random_state=np.random.default_rng(2021),
        ).fit(book.codes_)
        width = sum(book.sizes_.values())
        old = _in_worker(model, args.rows, args.rows)  # one block of all rows: the old path
        new = _in_worker(model, args.rows, None)
        same = old[0] == new[0]
        for label, (_, seconds, peak) in (("one pass (old)", old), ("blocks (new)", new)):
            print(f"{name:<16} {width:5d} {label:<18} {peak:8.0f} {seconds:8.2f}  {same}")
        print(
            f"{'':<16} {'':>5} {'ratio new/old':<18} {new[2] / old[2]:8.2f} {new[1] / old[1]:8.2f}"
        )
        if not same:
            raise SystemExit(f"{name}: the block sampler's records differ from one pass's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
