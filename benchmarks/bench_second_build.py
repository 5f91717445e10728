"""A second ``synthtrust book`` with nothing changed: every chapter run again from the task cache
(the previous behaviour, ``build(rerun=True)``) vs the chapters whose inputs are unchanged not
run at all (``build()``, :mod:`synthtrust.run.fingerprint`), in the same process, the runs'
numbers compared.

It needs a finished build in ``--out`` (made by ``make book`` or ``synthtrust book --preset P``;
with ``--first`` it makes one). Printed: each variant's wall seconds, how many chapters it ran,
and ``synthtrust compare`` of every chapter's run before and after it (``identical`` expected:
the rerun reads its tasks from the cache, the reuse leaves the run folders as they were).

Usage::

    python benchmarks/bench_second_build.py --preset smoke --first   # ~8 min on 2 cores
    python benchmarks/bench_second_build.py --out _build              # after `make book`
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

from synthtrust.run import book
from synthtrust.run.compare import compare_runs

ROOT = Path(__file__).resolve().parents[1]


def _snapshot(runs: Path, into: Path) -> Path:
    shutil.copytree(runs, into)
    return into


def _same(before: Path, after: Path, chapters: list[str]) -> str:
    found = {name: compare_runs(before / name, after / name).identical for name in chapters}
    bad = [name for name, same in found.items() if not same]
    return "identical" if not bad else "NOT identical: " + ", ".join(bad)


def _timed_build(preset: str, out: Path, rerun: bool) -> tuple[float, int]:
    ran = []

    def counting(name, **kwargs):
        ran.append(name)
        from synthtrust.run.runner import run_chapter

        return run_chapter(name, **kwargs)

    t0 = time.perf_counter()
    # without rerun, only a chapter whose inputs changed reaches the runner
    book.build(preset=preset, out=out, run_chapter=counting, rerun=rerun, progress=False)
    return time.perf_counter() - t0, len(ran)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="default")
    parser.add_argument("--out", type=Path, default=ROOT / "_build")
    parser.add_argument("--first", action="store_true", help="make the first build here too")
    args = parser.parse_args(argv)
    runs = args.out / "runs" / args.preset
    chapters = book.toc_chapters(ROOT)
    if args.first:
        seconds, n = _timed_build(args.preset, args.out, rerun=True)
        print(f"first build: {seconds:.1f} s, {n} chapters run")
    missing = [c for c in chapters if not (runs / c / f"{c}.ipynb").is_file()]
    if missing:
        print(f"no finished build in {args.out} (missing {missing}); run with --first")
        return 2
    out = args.out.resolve()  # named without the machine's folders in the printed table
    shown = out.relative_to(ROOT) if out.is_relative_to(ROOT) else Path(out.name)
    print(f"# a second `synthtrust book --preset {args.preset}`, nothing changed ({shown})\n")
    header = f"{'variant':<40} {'seconds':>8} {'chapters run':>13}  runs before/after"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        before = _snapshot(runs, Path(tmp) / "before")
        old, n_old = _timed_build(args.preset, args.out, rerun=True)
        print(f"{'every chapter from the cache (previous)':<40} {old:8.1f} {n_old:13d}  "
              f"{_same(before, runs, chapters)}")  # fmt: skip
        middle = _snapshot(runs, Path(tmp) / "middle")
        new, n_new = _timed_build(args.preset, args.out, rerun=False)
        print(f"{'unchanged chapters not run (fingerprint)':<40} {new:8.1f} {n_new:13d}  "
              f"{_same(middle, runs, chapters)}")  # fmt: skip
    print(f"{'ratio new/old':<40} {new / old:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
