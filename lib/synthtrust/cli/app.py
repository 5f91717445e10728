"""Command line: ``synthtrust list | run | book | fidelity | audit | dp-audit | compare``.

Examples::

    synthtrust list
    synthtrust run hypothesis_validity --preset smoke
    synthtrust run hypothesis_validity -p epsilon "[0.1,1]" -p n_reps 200 --out runs/x
    synthtrust run hypothesis_validity --dask tcp://scheduler:8786
    synthtrust book --preset default
    synthtrust book --from-results _build/results-0.1.0.tar.gz
    synthtrust fidelity --train t.csv --holdout h.csv --synthetic s.csv --json r.json --html r.html
    synthtrust audit --generator mygen:MyGenerator --card card.yaml --json a.json --html a.html
    synthtrust dp-audit --mode replay --generator mygen:MyGenerator --epsilon 1 --strict
    synthtrust dp-audit --mode one-run --generator mygen:MyGenerator --epsilon 1 --canaries 1000
    synthtrust compare runs/before/auditing _build/runs/default/auditing
    synthtrust compare results-0.1.0.tar.gz#auditing _build/runs/default/auditing

Set ``SYNTHTRUST_DEBUG=1`` to see the traceback of such errors.

Errors in what was asked (unknown chapter, preset or parameter, bad values) print
``synthtrust: error: <message>`` and exit with status 2; a chapter that fails while running
exits with status 1 and names the failed notebook. A run stopped by SIGTERM or SIGINT (Ctrl-C)
shuts its kernel down with the kernel's workers, prints ``synthtrust: stopped by SIGTERM; N of
M tasks cached, rerun to resume`` and exits with 128 + the signal's number (143, 130).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from synthtrust._atomic import atomic_path
from synthtrust._validation import check_codes, check_folder
from synthtrust.cli.arguments import (
    candidate_choice,
    int_at_least,
    json_object,
    nonnegative_float,
    nonnegative_int,
    positive_float,
    positive_int,
    positive_or_all,
    regex,
    separator,
)
from synthtrust.cli.user_generator import GeneratorFactory
from synthtrust.run import estimate

__all__ = ["build_parser", "main"]


# --------------------------------------------------------------------------------------------
# list
# --------------------------------------------------------------------------------------------
def _add_list(sub) -> None:
    p = sub.add_parser("list", help="list the chapters and their parameter presets")
    p.set_defaults(handler=_cmd_list)


def _cmd_list(args) -> int:
    from synthtrust.run import runner

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
        "and manifest.json into the run folder. SIGTERM (a scheduler's time limit, timeout) or "
        "Ctrl-C stops the run within seconds, with its kernel, loky workers and Dask cluster: "
        "it prints how many tasks are cached and exits with 143 or 130; the same command "
        "resumes from the cache.",
    )
    p.add_argument("chapter", metavar="CHAPTER", help="chapter name (see `synthtrust list`)")
    p.add_argument(
        "--preset",
        default="default",
        help="a preset of the chapter: smoke, default, paper, or course where the chapter has "
        "one (default: %(default)s)",
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
    _add_parallel_options(p, dask=True)
    p.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="joblib cache of finished replicates (default: .cache/joblib)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.add_argument(
        "--estimate",
        action="store_true",
        help="print the run's tasks, core-hours and memory per task from a few timed tasks, "
        "instead of running it",
    )
    p.add_argument(
        "--estimate-tasks",
        type=positive_int,
        default=estimate.DEFAULT_TASKS,
        metavar="K",
        help="tasks timed per grid with --estimate, at least one per "
        f"{estimate.CELLS_PER_TASK} cells of the grid (default: %(default)s)",
    )
    p.add_argument(
        "--estimate-timeout",
        type=positive_float,
        default=600.0,
        metavar="SECONDS",
        help="with --estimate, stop a timed task after this long and count it as a lower bound "
        "(default: %(default)s)",
    )
    p.set_defaults(handler=_cmd_run)


def _cmd_run(args) -> int:
    from synthtrust.run import runner

    overrides = {}
    for key, value in args.param:
        try:
            overrides[key] = runner.parse_value(value)
        except ValueError as exc:
            raise ValueError(f"-p {key}: {exc}") from None
    if args.estimate:
        print(
            runner.estimate_chapter(
                args.chapter,
                preset=args.preset,
                overrides=overrides,
                n_tasks=args.estimate_tasks,
                timeout=args.estimate_timeout,
                progress=not args.no_progress,
            )
        )
        return 0
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
    table = out / "results" / "verdicts.csv"
    if table.is_file():
        from synthtrust import verdicts

        print(f"verdicts: {verdicts.summarize(verdicts.read_verdicts(table))['text']}")
    else:
        print("verdicts: none (the chapter wrote no results/verdicts.csv)")
    return 0


# --------------------------------------------------------------------------------------------
# book
# --------------------------------------------------------------------------------------------
def _add_book(sub) -> None:
    p = sub.add_parser(
        "book",
        help="run every chapter and build the Jupyter Book (or build it from a results bundle)",
        description="Run every chapter of _toc.yml on a preset into DIR/runs/PRESET/, write "
        "their run folders into the results bundle DIR/results-VERSION.tar.gz and build the "
        "offline site into DIR/html/. With --from-results FILE, build the site from such a "
        "bundle instead, running no chapter: each page names the version, commit and preset "
        "of the bundle's runs.",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--preset", default=None, help="preset for every chapter (default: default)"
    )
    source.add_argument(
        "--from-results",
        type=Path,
        default=None,
        metavar="FILE",
        help="build the site from this results bundle (results-VERSION.tar.gz), no chapter run",
    )
    p.add_argument(
        "--out", type=Path, default=None, metavar="DIR", help="build folder (default: _build/)"
    )
    p.add_argument(
        "--rerun",
        action="store_true",
        help="run every chapter, also those whose run is up to date (same notebook, "
        "parameters, code, data and library versions as their last run)",
    )
    _add_parallel_options(p, dask=True)
    p.set_defaults(handler=_cmd_book)


def _cmd_book(args) -> int:
    from synthtrust.run import book  # lazy: pulls in the book toolchain only when asked

    if args.from_results is not None and (
        args.n_jobs is not None or args.dask is not None or args.rerun
    ):
        raise ValueError(
            "--from-results runs no chapter: --n-jobs, --dask and --rerun do not apply"
        )
    failures = (getattr(book, "BookBuildError", RuntimeError), FileNotFoundError)
    try:
        if args.from_results is not None:
            site = book.build_from_results(args.from_results, out=args.out)
        else:
            preset = args.preset or "default"
            site = book.build(
                preset=preset, out=args.out, n_jobs=args.n_jobs, dask=args.dask, rerun=args.rerun
            )
    except failures as exc:
        print(f"synthtrust: error: {exc}", file=sys.stderr)
        return 1
    print(f"book: {site}")  # the build says where it wrote the results bundle (stderr)
    return 0


# --------------------------------------------------------------------------------------------
# fidelity
# --------------------------------------------------------------------------------------------
_ROLES = ("train", "holdout", "synthetic")


def _add_parallel_options(p: argparse.ArgumentParser, *, dask: bool) -> None:
    """``--n-jobs`` (and with ``dask``, ``--dask``), shared by run, book and fidelity."""
    p.add_argument(
        "--n-jobs",
        type=positive_or_all,
        default=None,
        metavar="N",
        help="parallel workers (default: all cores; 1 = no parallelism)",
    )
    if dask:
        p.add_argument(
            "--dask",
            default=None,
            metavar="ADDR",
            help="run replicates on Dask: 'local' (LocalCluster) or tcp://host:port",
        )


def _add_fidelity(sub) -> None:
    p = sub.add_parser(
        "fidelity",
        help="holdout-based fidelity and privacy report of one synthetic table",
        description="Score a synthetic table against the training table it was made from and a "
        "holdout table from the same population (Platzer & Reutterer 2021): k-way TVD "
        "(k = 1, 2, 3) against the holdout's reference, the distances to the closest training "
        "and holdout records (DCR) and the share of synthetic records closer to training. "
        "Files: CSV (.gz/.bz2/.xz/.zip ok) or Parquet (.parquet/.pq), with the same columns.",
    )
    p.add_argument(
        "--train",
        type=Path,
        required=True,
        metavar="FILE",
        help="the training table the synthesizer was fitted on",
    )
    p.add_argument(
        "--holdout",
        type=Path,
        required=True,
        metavar="FILE",
        help="records of the same population not shown to the synthesizer",
    )
    p.add_argument(
        "--synthetic",
        type=Path,
        required=True,
        metavar="FILE",
        help="the synthetic table to assess",
    )
    p.add_argument(
        "--json", type=Path, default=None, metavar="OUT.json", help="write the metrics as JSON"
    )
    p.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="OUT.html",
        help="write the report with charts as a self-contained HTML page",
    )
    p.add_argument(
        "--max-rows",
        type=positive_int,
        default=None,
        metavar="N",
        help="use at most N rows of each table (random subsample drawn with --seed)",
    )
    _add_parallel_options(p, dask=False)
    p.add_argument("--no-progress", action="store_true", help="hide progress bars")
    p.add_argument(
        "--seed",
        type=nonnegative_int,
        default=None,
        metavar="N",
        help="seed of the random parts (subsampling); default: fresh entropy",
    )
    p.add_argument(
        "--sep",
        type=separator,
        default=None,
        metavar="DELIM",
        help="CSV delimiter of the three files: ',' ';' '|' or tab (default: ',', tab for .tsv)",
    )
    p.set_defaults(handler=_cmd_fidelity)


def _write_atomic(path: Path, write) -> None:
    """Call ``write(tmp)`` on a temporary file next to ``path``, then rename it to ``path``
    (:func:`synthtrust._atomic.atomic_path`)."""
    with atomic_path(path) as tmp:
        write(tmp)


def _write_outputs(outputs) -> None:
    """For each ``(flag, path, write)`` with a path, :func:`_write_atomic` it and print where;
    an OSError (no permission, a file in the way) becomes a one-line error naming the flag."""
    for flag, out, write in outputs:
        if out is None:
            continue
        try:
            _write_atomic(out, write)
        except OSError as exc:  # e.g. no permission: a clear error, not a traceback
            raise ValueError(f"--{flag}: cannot write {out}: {exc}") from None
        print(f"{flag}: {out}")


def _text(render):
    """A writer for :func:`_write_outputs`: the text ``render()`` returns, in UTF-8."""
    return lambda tmp: Path(tmp).write_text(render(), encoding="utf-8")


def _cmd_fidelity(args) -> int:
    from synthtrust import datasets

    paths = {role: getattr(args, role) for role in _ROLES}
    _check_outputs(args, inputs=paths.values())

    try:
        same = os.path.samefile(paths["synthetic"], paths["holdout"])
    except OSError:
        same = False
    tables = {}
    for role, path in paths.items():
        if role == "synthetic" and same:
            tables[role] = tables["holdout"]  # the holdout scored as synthetic: read once
            continue
        try:
            tables[role] = datasets.read_table(path, sep=args.sep)
        except (FileNotFoundError, ValueError) as exc:
            raise ValueError(f"--{role}: {exc}") from None
    from synthtrust.fidelity import check_tables

    where = {role: f"the {role} file {paths[role]}" for role in _ROLES}
    _, tables, _ = check_tables(tables, where)

    from synthtrust.fidelity import holdout_report
    from synthtrust.presentation.report import render_holdout_html

    for role in _ROLES:
        n, k = tables[role].shape
        print(f"{role + ':':<10} {paths[role]}  ({n:,} rows, {k} columns)")
    report = holdout_report(
        tables["train"],
        tables["holdout"],
        tables["synthetic"],
        max_rows=args.max_rows,
        n_jobs=args.n_jobs,
        random_state=args.seed,
        synthetic_is_holdout=True if same else None,
        progress=not args.no_progress,
    )
    print(report.summary())
    _write_outputs(
        (
            ("json", args.json, _text(lambda: report.to_json() + "\n")),
            ("html", args.html, _text(lambda: render_holdout_html(report))),
        )
    )
    return 0


# --------------------------------------------------------------------------------------------
# audit
# --------------------------------------------------------------------------------------------
def _add_generator_options(p: argparse.ArgumentParser) -> None:
    """``--generator MODULE:CLASS`` and ``--params JSON``, shared by audit and dp-audit."""
    p.add_argument(
        "--generator",
        required=True,
        metavar="MODULE:CLASS",
        help="the generator class (its module importable from the working directory)",
    )
    p.add_argument(
        "--params",
        type=json_object,
        default={},
        metavar="JSON",
        help="constructor parameters as a JSON object (random_state is set per "
        "training if the class takes it)",
    )


def _add_report_options(p: argparse.ArgumentParser, *, html: str, strict: str) -> None:
    """``--n-jobs``/``--dask``, ``--json``, ``--html`` and ``--strict`` of audit and dp-audit."""
    _add_parallel_options(p, dask=True)
    p.add_argument(
        "--json", type=Path, default=None, metavar="OUT.json", help="write the result as JSON"
    )
    p.add_argument("--html", type=Path, default=None, metavar="OUT.html", help=html)
    p.add_argument("--strict", action="store_true", help=strict)


def _add_audit(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="audit a generator against the statistics its card declares",
        description="Test whether a black-box generator uses only the marginals its card "
        "declares (Houssiau et al. 2022): train it on pairs of datasets with the same declared "
        "marginals and size that differ as much as possible outside them, and compare its "
        "outputs with Student's t. The generator class is trained on integer-coded tables "
        "(the card's columns, codes 0..size-1) and must return such tables from sample(n).",
    )
    _add_generator_options(p)
    p.add_argument(
        "--card",
        type=Path,
        required=True,
        metavar="CARD.yaml",
        help="the generator card: columns with domain sizes and declared marginals (YAML or JSON)",
    )
    p.add_argument(
        "--data",
        type=Path,
        default=None,
        metavar="REAL.csv",
        help="audit around the real data: start from its cells and counts (codes of "
        "the card's columns); default: every cell (or --support random cells)",
    )
    p.add_argument(
        "--candidates",
        type=candidate_choice,
        default="next",
        metavar="next|K",
        help="probed statistics: 'next' (one order above the card) or all K-way bins",
    )
    p.add_argument(
        "--n-candidates",
        type=positive_int,
        default=None,
        metavar="N",
        help="probe N of those bins drawn at random (seeded by --seed; default: all, "
        "up to 8192 bins with the declared ones)",
    )
    p.add_argument(
        "--support",
        type=positive_int,
        default=None,
        metavar="N",
        help="random support cells of the starting dataset (default: all cells)",
    )
    p.add_argument(
        "--copies",
        type=positive_int,
        default=1000,
        metavar="R",
        help="records per support cell of the starting dataset (default: %(default)s)",
    )
    p.add_argument(
        "--k-select",
        type=int_at_least(2),
        default=10,
        metavar="K1",
        help="trainings per side to select the direction (default: %(default)s)",
    )
    p.add_argument(
        "--k-audit",
        type=int_at_least(2),
        default=10,
        metavar="K2",
        help="fresh trainings per side for the test (default: %(default)s)",
    )
    p.add_argument("--alpha", type=float, default=0.01, help="level (default: %(default)s)")
    p.add_argument(
        "--seed",
        type=nonnegative_int,
        default=None,
        metavar="N",
        help="root seed of the supports and trainings; default: fresh entropy",
    )
    _add_report_options(
        p,
        html="write the report (verdict, box plot, leak) as an offline HTML page",
        strict="exit with status 1 when the audit rejects the generator",
    )
    p.set_defaults(handler=_cmd_audit)


def _real_cells(path: Path, card):
    """(support cells, counts) of a real table's rows over the card's columns."""
    import numpy as np

    from synthtrust import datasets

    try:
        table = datasets.read_table(path)
    except (FileNotFoundError, ValueError) as exc:
        raise ValueError(f"--data: {exc}") from None
    try:
        codes = check_codes(table, card.columns, "the table")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"--data {path} (on the card's domain): {exc}") from None
    cells, counts = np.unique(codes, axis=0, return_counts=True)
    return cells, counts


def _cmd_audit(args) -> int:
    from synthtrust.audit import GeneratorCard, audit, candidate_bins
    from synthtrust.presentation.report import render_audit_html

    _check_outputs(args, inputs=[args.card] + ([args.data] if args.data else []))
    try:
        card = GeneratorCard.load(args.card)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"--card {args.card}: {exc}") from None
    factory = GeneratorFactory(args.generator, args.params)
    support, copies = args.support, args.copies
    if args.data is not None:
        support, copies = _real_cells(args.data, card)
    candidates = args.candidates
    if args.n_candidates is not None:
        candidates = candidate_bins(card, candidates, n=args.n_candidates, random_state=args.seed)
    print(
        f"card: {args.card} ({len(card.column_names)} columns, {len(card.marginals)} "
        f"declared marginals); generator: {args.generator}"
    )
    try:
        result = audit(
            factory,
            card,
            candidates=candidates,
            support=support,
            copies=copies,
            k_select=args.k_select,
            k_audit=args.k_audit,
            alpha=args.alpha,
            random_state=args.seed,
            n_jobs=args.n_jobs,
            dask=args.dask,
            name=args.generator,
        )
    except RuntimeError as exc:  # a training of the user's generator raised
        raise ValueError(str(exc)) from None
    print(result.summary())
    _write_outputs(
        (
            ("json", args.json, _text(result.to_json)),
            ("html", args.html, _text(lambda: render_audit_html(result))),
        )
    )
    return 1 if args.strict and result.rejected else 0


# --------------------------------------------------------------------------------------------
# dp-audit
# --------------------------------------------------------------------------------------------
def _add_dp_audit(sub) -> None:
    p = sub.add_parser(
        "dp-audit",
        help="test whether a generator keeps its epsilon promise",
        description="Empirical DP auditing: fit the generator many times on two neighbouring "
        "datasets (the worst case: --base-records copies of (0, 0, 0) and the canary (1, 1, 1), "
        "codes of columns c0, c1, c2 with 2 levels; or --data, your table), score every fit, and "
        "bound the epsilon its code spends (Clopper-Pearson, 1 - alpha). 'violation' if the bound "
        "exceeds the claim; 'underpowered' if no result of this many fits could. A pilot (one "
        "untimed warm-up fit, then 4 timed fits on each dataset) estimates the cost first. --mode "
        "replay instead fits it once on each dataset with one seed (--seed), records every noisy "
        "measurement (synthtrust.privacy calls; laplace/normal draws of its random_state "
        "Generator added to a query) and reports a 'violation' if the calls differ, a sensitivity "
        "exceeds the declared one, or the epsilon the observed sensitivities imply exceeds the "
        "claim. --mode one-run fits it once with --canaries canaries, each in by a fair coin, "
        "and bounds epsilon from the right guesses (Steinke et al. 2023). The class is "
        "constructed with epsilon= (--epsilon), delta= (--delta, only when > 0), domain= (the "
        "datasets' levels) and random_state= (the fit's seed), each only when its signature "
        "takes it; --params adds arguments and overrides these.",
    )
    p.add_argument("--mode", default="game", choices=("game", "replay", "one-run"),
                   help="the distinguishing game (default), the grey-box replay of two fits, or "
                   "one fit with many canaries")  # fmt: skip
    p.add_argument("--canaries", type=int_at_least(10), default=1000, metavar="M",
                   help="one-run: canaries (default: %(default)s)")  # fmt: skip
    p.add_argument("--guesses", type=positive_int, metavar="K",
                   help="one-run: canaries guessed in, the highest scores (default: 5%% of M)")  # fmt: skip
    _add_generator_options(p)
    p.add_argument("--epsilon", type=positive_float, required=True, help="the claimed epsilon")
    p.add_argument("--delta", type=float, default=0.0, help="the claimed delta (default: 0)")
    p.add_argument(
        "--neighbouring",
        default=None,
        choices=("add-remove", "replace-one"),
        help="the neighbouring relation of the claim (default: the class's 'neighbouring' "
        "attribute, as synthtrust's synthesizers declare it; required otherwise)",
    )
    base = p.add_mutually_exclusive_group()
    base.add_argument(
        "--base-records",
        type=positive_int,
        default=10,
        metavar="N",
        help="records of the base table (default: %(default)s; 1000 or more finds noise that "
        "shrinks with n)",
    )
    base.add_argument(
        "--data",
        type=Path,
        metavar="FILE",
        help="audit on your table (CSV/Parquet of integer codes) with a rare record as canary",
    )
    p.add_argument("--domain", type=json_object, help="levels of --data: '{\"col\": k}' (max+1)")
    p.add_argument(
        "--score",
        default="auto",
        choices=("auto", "count", "marginal-lr", "whitebox", "learned"),
        help="the attack (default: white-box if the class has audit_view(), else count)",
    )
    p.add_argument(
        "--fits",
        type=int_at_least(40),
        default=2000,
        metavar="N",
        help="fits in both worlds together, at least 40 (default: %(default)s)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="level (default: %(default)s)")
    p.add_argument(
        "--seed", type=nonnegative_int, default=0, metavar="N", help="root seed (default: 0)"
    )
    p.add_argument("--target", type=positive_float, metavar="F", help="pilot audit of 400 fits, "
                   "then --fits what a bound of F x the claim needs (mu for zCDP)")  # fmt: skip
    p.add_argument("--max-hours", type=positive_float, default=2.0, metavar="H",
                   help="refuse to start when the pilot fits extrapolate beyond H hours "
                   "(default: 2)")  # fmt: skip
    p.add_argument("--cache", type=Path, default=None, metavar="DIR",
                   help="keep finished fits here; a rerun resumes an interrupted audit")  # fmt: skip
    _add_report_options(
        p,
        html="write the report (verdict, bound or recorded calls) as an offline HTML page",
        strict="exit with status 1 on a violation and 3 when underpowered (replay: nothing "
        "recorded)",
    )
    p.set_defaults(handler=_cmd_dp_audit)


def _check_outputs(args, inputs=()) -> None:
    """Fail before the work, not after it: ``--json`` and ``--html`` must be two file names,
    none of the ``inputs``, whose nearest existing folder is writable."""
    inputs = {Path(p).resolve() for p in inputs}
    flags = (("--json", args.json), ("--html", getattr(args, "html", None)))
    outs = [(flag, out) for flag, out in flags if out]
    for flag, path in outs:
        if path.is_dir():
            raise ValueError(f"{flag} {path} is a directory; give a file name")
        if path.resolve() in inputs:
            raise ValueError(f"{flag} {path} is one of the input files; give another file name")
        check_folder(path.resolve().parent, f"{flag}: cannot write {path} into")
    if len(outs) == 2 and outs[0][1].resolve() == outs[1][1].resolve():
        raise ValueError(f"--json and --html name the same file {args.json}")


def _cmd_dp_audit(args) -> int:
    import synthtrust.cli.dp_audit as command
    from synthtrust.presentation import report

    _check_outputs(args)
    if args.cache is not None:
        check_folder(args.cache, "--cache")
    run, render = {
        "game": (command.run_dp_audit, report.render_dp_audit_html),
        "replay": (command.run_replay_audit, report.render_replay_audit_html),
        "one-run": (command.run_one_run_audit, report.render_one_run_audit_html),
    }[args.mode]
    result = run(args)
    _write_outputs(
        (
            ("json", args.json, _text(result.to_json)),
            ("html", args.html, _text(lambda: render(result))),
        )
    )
    if not args.strict:
        return 0
    return {"violation": 1, "underpowered": 3, "nothing recorded": 3}.get(result.verdict, 0)


# --------------------------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------------------------
def _add_compare(sub) -> None:
    from synthtrust.run.compare import TIMING

    p = sub.add_parser(
        "compare",
        help="compare two run folders of a chapter, file by file",
        description="Compare the results files and glued values of two runs of a chapter (e.g. "
        "before and after a change of code, or a rerun against a published run: "
        "`synthtrust compare results-0.1.0.tar.gz#auditing runs/auditing`). Exit status: "
        "0 identical, 1 something differs.",
    )
    p.add_argument(
        "before",
        metavar="BEFORE",
        help="a run folder (run --out), or a chapter of a results bundle (what `synthtrust "
        "book` writes and a release publishes) as FILE#CHAPTER, e.g. "
        "results-0.1.0.tar.gz#auditing",
    )
    p.add_argument(
        "after",
        metavar="AFTER",
        help="the run folder to compare with it (or a bundle's chapter, FILE#CHAPTER)",
    )
    p.add_argument(
        "--ignore",
        type=regex,
        default=TIMING,
        metavar="REGEX",
        help="names of the columns, JSON keys and glued values left out (default: the timings, "
        "%(default)r)",
    )
    p.add_argument("--all", action="store_true", help="leave nothing out, timings included")
    p.add_argument(
        "--atol",
        type=nonnegative_float,
        default=0.0,
        metavar="X",
        help="numbers of the results tables within X of each other count as equal (default: 0, "
        "exact)",
    )
    p.add_argument(
        "--json", type=Path, default=None, metavar="OUT.json", help="write the comparison as JSON"
    )
    p.set_defaults(handler=_cmd_compare)


def _cmd_compare(args) -> int:
    from synthtrust.run.compare import compare_runs

    _check_outputs(args)
    result = compare_runs(
        args.before, args.after, ignore=None if args.all else args.ignore, atol=args.atol
    )
    print(result.summary())
    _write_outputs((("json", args.json, _text(lambda: result.to_json() + "\n")),))
    return 0 if result.identical else 1


# --------------------------------------------------------------------------------------------
# Subcommands. To add one (e.g. `fidelity --train --holdout --synthetic`, `audit`): write
# `_add_<name>(sub)` that declares its arguments and `set_defaults(handler=_cmd_<name>)`, and
# a `_cmd_<name>(args) -> int` that imports its module lazily; then list `_add_<name>` here.
# Raise ValueError/TypeError for bad input: main() turns them into `synthtrust: error:`, exit 2.
# --------------------------------------------------------------------------------------------
_SUBCOMMANDS = (
    _add_list,
    _add_run,
    _add_book,
    _add_fidelity,
    _add_audit,
    _add_dp_audit,
    _add_compare,
)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (the usage is one ``--help`` away)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``synthtrust`` argument parser, with ``--version`` and one subcommand per command.

    The subcommands (``list``, ``run``, ``book``, ``fidelity``, ``audit``, ``dp-audit``,
    ``compare``) are required; each sets ``handler`` to the function that runs it. Usage errors
    exit with status 2 and a one-line message.
    """
    from synthtrust import __version__

    parser = _Parser(
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
    from synthtrust.run._lock import FolderLockedError
    from synthtrust.run._stop import RunStopped
    from synthtrust.run.runner import ChapterExecutionError

    try:
        return args.handler(args)
    except (ValueError, TypeError, OSError) as exc:  # bad input, unreadable/unwritable paths
        if os.environ.get("SYNTHTRUST_DEBUG"):
            raise
        print(f"synthtrust: error: {exc}", file=sys.stderr)
        return 2
    except (ChapterExecutionError, FolderLockedError) as exc:
        print(f"synthtrust: error: {exc}", file=sys.stderr)
        return 1
    except RunStopped as exc:  # SIGTERM or SIGINT: the run's processes are gone
        print(f"synthtrust: {exc}", file=sys.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print(
            "synthtrust: interrupted; rerun the same command to resume from the cache",
            file=sys.stderr,
        )
        return 130
