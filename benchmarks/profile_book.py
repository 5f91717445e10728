"""The profile of a book build, chapter by chapter and grid by grid, from its run manifests.

``make book`` (``synthtrust book``) runs every chapter into ``_build/runs/<preset>/<chapter>/``;
each run's ``manifest.json`` keeps its wall time and, for each ``run_grid`` call, the tasks it
computed, their core-seconds and the peak memory of a task's process
(``synthtrust.run._grid_records``). This prints them as the Markdown table of
``benchmarks/README.md``: the wall time of each chapter against the book's 60-minute target,
and where the time goes.

Usage::

    python benchmarks/profile_book.py                 # _build/runs/default
    python benchmarks/profile_book.py --runs _build/runs/smoke
    python benchmarks/profile_book.py --bundle _build/results-0.1.0.tar.gz
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from synthtrust.run import book, bundle
from synthtrust.run._grid_records import profile_table

ROOT = Path(__file__).resolve().parents[1]
#: The README's target for ``make book`` on the default preset (issue: the main job within the
#: hour), in seconds.
TARGET_S = 3600.0


def _manifests(runs: Path) -> dict[str, dict]:
    """Chapter -> manifest of the runs in ``runs``, in the order of ``_toc.yml``."""
    found = {}
    for chapter in book.toc_chapters(ROOT):
        path = runs / chapter / "manifest.json"
        if path.is_file():
            found[chapter] = json.loads(path.read_text(encoding="utf-8"))
    if not found:
        raise SystemExit(f"profile_book: no chapter run with a manifest.json in {runs}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--runs", type=Path, default=ROOT / "_build" / "runs" / "default")
    source.add_argument("--bundle", type=Path, default=None, help="a results bundle instead")
    args = parser.parse_args(argv)
    if args.bundle is not None:
        held = bundle.read_bundle(args.bundle)
        manifests = {}
        for chapter in held.chapters:
            with bundle.chapter_run(args.bundle, chapter) as run:
                manifests[chapter] = json.loads((run / "manifest.json").read_text())
        where = f"{args.bundle} (commit {held.commit[:7]}, preset {held.preset})"
    else:
        manifests = _manifests(args.runs)
        where = str(args.runs)
    print(f"# book profile: {where}\n")
    print(profile_table(manifests, grids=True))
    wall = sum(float(m.get("wall_time_s") or 0.0) for m in manifests.values())
    print(
        f"\nchapters' wall time: {wall / 60:.1f} min of the {TARGET_S / 60:.0f}-minute target "
        f"(ratio {wall / TARGET_S:.2f}); `make book` adds the site build"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
