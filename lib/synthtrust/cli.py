"""Command line: ``synthtrust list | run | book``.

Examples::

    synthtrust list
    synthtrust run hypothesis_validity --preset smoke
    synthtrust run hypothesis_validity -p epsilon "[0.1,1]" -p n_reps 200 --out runs/x
    synthtrust run hypothesis_validity --dask tcp://scheduler:8786
    synthtrust book --preset default

Set ``SYNTHTRUST_DEBUG=1`` to see the traceback of such errors.

Errors in what was asked (unknown chapter, preset or parameter, bad values) print
``synthtrust: error: <message>`` and exit with status 2; a chapter that fails while running
exits with status 1 and names the failed notebook.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

__all__ = ["build_parser", "main"]


def _positive_or_all(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be >= 1, or -1 for all cores")
    return value


# --------------------------------------------------------------------------------------------
# list
# --------------------------------------------------------------------------------------------
def _add_list(sub) -> None:
    p = sub.add_parser("list", help="list the chapters and their parameter presets")
    p.set_defaults(handler=_cmd_list)


def _cmd_list(args) -> int:
    from synthtrust import runner

    chapters = runner.list_chapters()
    if not chapters:
        print(f"no chapters found under {runner.chapters_dir()}")
        return 0
    width = max(len(c) for c in chapters)
    for chapter in chapters:
        print(f"{chapter:<{width}}  presets: {', '.join(runner.presets(chapter))}")
    return 0


# --------------------------------------------------------------------------------------------
# run
# --------------------------------------------------------------------------------------------
def _add_run(sub) -> None:
    p = sub.add_parser(
        "run",
        help="execute one chapter notebook with a preset and overrides",
        description="Execute chapters/CHAPTER.md with papermill; write CHAPTER.ipynb, results/ "
        "and manifest.json into the run folder.",
    )
    p.add_argument("chapter", metavar="CHAPTER", help="chapter name (see `synthtrust list`)")
    p.add_argument(
        "--preset", default="default", help="smoke, default or paper (default: %(default)s)"
    )
    p.add_argument(
        "-p",
        "--param",
        nargs=2,
        action="append",
        default=[],
        metavar=("KEY", "VALUE"),
        help="override a preset parameter; VALUE is YAML: 200, 0.5, '[0.1,1]', text",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="run folder (default: _build/runs/PRESET/CHAPTER/)",
    )
    p.add_argument(
        "--n-jobs",
        type=_positive_or_all,
        default=None,
        metavar="N",
        help="parallel workers (default: all cores; 1 = no parallelism)",
    )
    p.add_argument(
        "--dask",
        default=None,
        metavar="ADDR",
        help="run replicates on Dask: 'local' (LocalCluster) or tcp://host:port",
    )
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="joblib cache of finished replicates (default: .cache/joblib)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.set_defaults(handler=_cmd_run)


def _cmd_run(args) -> int:
    from synthtrust import runner

    overrides = {}
    for key, value in args.param:
        try:
            overrides[key] = runner.parse_value(value)
        except ValueError as exc:
            raise ValueError(f"-p {key}: {exc}") from None
    out = runner.run_chapter(
        args.chapter,
        preset=args.preset,
        overrides=overrides,
        out=args.out,
        n_jobs=args.n_jobs,
        dask=args.dask,
        progress=not args.no_progress,
        cache_dir=args.cache_dir,
    )
    print(f"notebook: {out / (args.chapter + '.ipynb')}")
    print(f"results:  {out / 'results'}")
    print(f"manifest: {out / 'manifest.json'}")
    return 0


# --------------------------------------------------------------------------------------------
# book
# --------------------------------------------------------------------------------------------
def _add_book(sub) -> None:
    p = sub.add_parser("book", help="run every chapter and build the Jupyter Book")
    p.add_argument(
        "--preset", default="default", help="preset for every chapter (default: %(default)s)"
    )
    p.add_argument(
        "--out", type=Path, default=None, metavar="DIR", help="build folder (default: _build/)"
    )
    p.add_argument(
        "--n-jobs", type=_positive_or_all, default=None, metavar="N", help="parallel workers"
    )
    p.add_argument("--dask", default=None, metavar="ADDR", help="'local' or tcp://host:port")
    p.set_defaults(handler=_cmd_book)


def _cmd_book(args) -> int:
    from synthtrust import book  # lazy: pulls in the book toolchain only when asked

    failures = (getattr(book, "BookBuildError", RuntimeError), FileNotFoundError)
    try:
        site = book.build(preset=args.preset, out=args.out, n_jobs=args.n_jobs, dask=args.dask)
    except failures as exc:
        print(f"synthtrust: error: {exc}", file=sys.stderr)
        return 1
    print(f"book: {site}")
    return 0


# --------------------------------------------------------------------------------------------
# Subcommands. To add one (e.g. `fidelity --train --holdout --synthetic`, `audit`): write
# `_add_<name>(sub)` that declares its arguments and `set_defaults(handler=_cmd_<name>)`, and
# a `_cmd_<name>(args) -> int` that imports its module lazily; then list `_add_<name>` here.
# Raise ValueError/TypeError for bad input: main() turns them into `synthtrust: error:`, exit 2.
# --------------------------------------------------------------------------------------------
_SUBCOMMANDS = (_add_list, _add_run, _add_book)


def build_parser() -> argparse.ArgumentParser:
    """The ``synthtrust`` argument parser."""
    from synthtrust import __version__

    parser = argparse.ArgumentParser(
        prog="synthtrust",
        description="Can we trust differentially private synthetic data? Run the book's chapters.",
    )
    parser.add_argument("--version", action="version", version=f"synthtrust {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``synthtrust`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors (argparse exits with 2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    from synthtrust.runner import ChapterExecutionError

    try:
        return args.handler(args)
    except (ValueError, TypeError) as exc:
        if os.environ.get("SYNTHTRUST_DEBUG"):
            raise
        print(f"synthtrust: error: {exc}", file=sys.stderr)
        return 2
    except ChapterExecutionError as exc:
        print(f"synthtrust: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            "synthtrust: interrupted; rerun the same command to resume from the cache",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
