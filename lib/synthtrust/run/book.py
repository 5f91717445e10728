"""Build the book: run every chapter, stage the executed notebooks, build an offline site.

``build()`` is what ``synthtrust book`` and ``make book`` call (``docs/ARCHITECTURE.md``,
"Building the book offline"):

1. every chapter is executed by ``synthtrust.run.runner.run_chapter`` (papermill) into its run
   folder, which holds ``<chapter>.ipynb``;
2. the book is staged into ``<out>/stage/``: ``_config.yml``, ``_toc.yml``, ``intro.md``,
   ``references.bib`` and the *executed* notebooks as ``chapters/<chapter>.ipynb`` (never the
   MyST ``.md`` sources, so the two cannot collide); when ``_toc.yml`` lists ``scorecard``,
   the page is written from the runs' ``results/verdicts.csv`` (:mod:`synthtrust.presentation.scorecard`);
3. the offline assets go to ``<out>/stage/site_assets/`` (not ``_static``: Jupyter Book injects
   every script under ``_static`` into every page): the Vega bundle
   (:func:`synthtrust.presentation.charts.vega_bundle_js`) and MathJax 3 (``es5/`` from npm, fetched by
   ``make assets``);
4. ``jupyter-book build`` runs on the stage with execution off (and, by default, warnings
   as errors); the site is moved to ``<out>/html/``.

``build()`` also writes the runs into the results bundle ``<out>/results-<version>.tar.gz``
(:mod:`synthtrust.run.bundle`) before it stages them; ``build_from_results()`` (``synthtrust book
--from-results FILE``) extracts a bundle and goes through steps 2-4 alone, with no chapter run.
Each chapter page ends with a line naming the synthtrust version, the commit and the preset
that made its numbers (:func:`synthtrust.presentation.provenance.provenance_line`, from the
run's ``manifest.json``; the staged
``_config.yml`` carries the lines to the ``synthtrust._sphinx`` extension, which writes them),
so a site rebuilt from a bundle names the bundle's runs, not the machine that rebuilt it.

Errors raise :class:`BookBuildError` with the tail of the build log.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from synthtrust._validation import check_folder
from synthtrust.presentation import charts, scorecard
from synthtrust.presentation.provenance import provenance_line
from synthtrust.run import bundle
from synthtrust.run._grid_records import profile_table
from synthtrust.run.runner import RUNTIME_KEYS

__all__ = [
    "ASSETS_DIR",
    "BOOK_FILES",
    "BookBuildError",
    "build",
    "build_from_results",
    "build_site",
    "find_root",
    "mathjax_source",
    "stage",
    "toc_chapters",
]

#: Book sources copied into the stage (paths relative to the book root).
BOOK_FILES = ("_config.yml", "_toc.yml", "intro.md", "references.bib")
#: Optional folders of the book root copied into the stage when present (figures for prose).
BOOK_DIRS = ("images", "figures", "guides", "api", "exercises")
#: The stage's assets folder (``html_static_path``). Must not be named ``_static``.
ASSETS_DIR = "site_assets"
#: MathJax 3 files installed by ``make assets`` (relative to the book root).
MATHJAX_ES5 = Path(".cache/node/node_modules/mathjax/es5")
MATHJAX_ENTRY = "tex-chtml.js"
MATHJAX_PATH = f"mathjax/{MATHJAX_ENTRY}"  # relative to the site's _static/
EXTENSION = "synthtrust._sphinx"
#: The Sphinx setting (``synthtrust._sphinx``) that maps a chapter page to its provenance line.
PROVENANCE_CONFIG = "synthtrust_provenance"
#: Where ``build_from_results`` extracts a bundle's runs (inside the build folder).
FROM_RESULTS_DIR = "from-results"

_LOG_TAIL_LINES = 60
_CDN = re.compile(r"""<script[^>]+src\s*=\s*["']?(?:https?:)?//|cdn\.jsdelivr\.net""", re.I)
#: One state of a tqdm bar as ``run_grid`` draws it: ``label: 40%|████      | 2/5 [00:03<00:04, ...]``.
_PROGRESS_BAR = re.compile(r"^[^\n]*\d+%\|[^\n]*\| *\d+/\d+ \[[^\n]*\]\s*$")


class BookBuildError(RuntimeError):
    """The book could not be built; the message holds the reason and the build log's tail."""


def _say(progress: bool, message: str) -> None:
    if progress:
        print(f"[synthtrust book] {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------ sources
def find_root(root: str | os.PathLike | None = None) -> Path:
    """The book root: ``root`` if given, else ``$SYNTHTRUST_ROOT`` if set, else the current
    directory if it holds ``_config.yml`` and ``_toc.yml``, else the repository this package is
    installed from (editable install).

    Raises
    ------
    FileNotFoundError
        If the folder lacks one of :data:`BOOK_FILES`.
    """
    if root is not None:
        candidates = [Path(root)]
    elif os.environ.get("SYNTHTRUST_ROOT"):  # as synthtrust.run.runner.repo_root()
        candidates = [Path(os.environ["SYNTHTRUST_ROOT"]).expanduser()]
    else:
        candidates = [Path.cwd(), Path(__file__).resolve().parents[3]]
    for candidate in candidates:
        if all((candidate / name).is_file() for name in ("_config.yml", "_toc.yml")):
            root_path = candidate.resolve()
            missing = [name for name in BOOK_FILES if not (root_path / name).is_file()]
            if missing:
                raise FileNotFoundError(f"book root {root_path} lacks {missing}")
            return root_path
    where = " or ".join(str(c) for c in candidates)
    raise FileNotFoundError(
        f"no book found in {where}: a book root holds {', '.join(BOOK_FILES)}; "
        "run from the repository root or pass root="
    )


def _toc_files(entries: Iterable[Any]) -> list[str]:
    files = []
    for entry in entries or []:
        if not isinstance(entry, Mapping):
            continue
        if "file" in entry:
            files.append(str(entry["file"]))
        for key in ("chapters", "sections", "parts", "subtrees", "entries"):
            files.extend(_toc_files(entry.get(key, [])))
    return files


def _chapter_name(file: str) -> str | None:
    path = Path(file)
    if path.suffix in (".md", ".ipynb"):
        path = path.with_suffix("")
    parts = path.parts
    if len(parts) == 2 and parts[0] == "chapters":
        return parts[1]
    return None


def toc_chapters(root: str | os.PathLike | None = None) -> list[str]:
    """Names of the chapters listed in the book's ``_toc.yml`` (entries ``chapters/<name>``),
    in order."""
    toc = yaml.safe_load((find_root(root) / "_toc.yml").read_text(encoding="utf-8")) or {}
    files = _toc_files([toc])
    return [name for name in map(_chapter_name, files) if name is not None]


def _filter_toc(toc: Any, keep: set[str]) -> Any:
    """Drop ``chapters/<name>`` entries whose name is not in ``keep`` (other entries stay); the
    kept entries nested under a dropped one move up to its place."""
    if isinstance(toc, list):
        out = []
        for entry in toc:
            if isinstance(entry, Mapping) and "file" in entry:
                name = _chapter_name(str(entry["file"]))
                if name is not None and name not in keep:
                    out.extend(_filter_toc(list(entry.get("sections", [])), keep))
                    continue
            out.append(_filter_toc(entry, keep))
        return [e for e in out if not (isinstance(e, Mapping) and _is_empty_group(e))]
    if isinstance(toc, Mapping):
        return {k: _filter_toc(v, keep) for k, v in toc.items()}
    return toc


def _is_empty_group(entry: Mapping) -> bool:
    groups = [k for k in ("chapters", "sections", "parts") if k in entry]
    return "file" not in entry and bool(groups) and all(not entry[k] for k in groups)


def mathjax_source(root: str | os.PathLike | None = None) -> Path:
    """The MathJax 3 ``es5`` folder installed by ``make assets``.

    Raises
    ------
    FileNotFoundError
        If it is missing, telling to run ``make assets``.
    """
    es5 = find_root(root) / MATHJAX_ES5
    if not (es5 / MATHJAX_ENTRY).is_file():
        raise FileNotFoundError(
            f"MathJax 3 not found at {es5 / MATHJAX_ENTRY}: run `make assets` "
            "(npm install --prefix .cache/node mathjax@3) first; the site serves MathJax itself"
        )
    return es5


def _merge_list(values: Any, required: str) -> list:
    values = list(values) if isinstance(values, (list, tuple)) else ([values] if values else [])
    return values if required in values else [*values, required]


def _staged_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` with the settings the offline build depends on enforced."""
    config = copy.deepcopy(dict(config))
    config.setdefault("execute", {})
    config["execute"] = dict(config["execute"] or {}, execute_notebooks="off")
    config["only_build_toc_files"] = True
    sphinx = dict(config.get("sphinx") or {})
    sphinx["extra_extensions"] = _merge_list(sphinx.get("extra_extensions"), EXTENSION)
    cfg = dict(sphinx.get("config") or {})
    static = [p for p in _merge_list(cfg.get("html_static_path"), ASSETS_DIR) if p != "_static"]
    cfg["html_static_path"] = static
    cfg["html_js_files"] = _merge_list(cfg.get("html_js_files"), charts.VEGA_BUNDLE_FILENAME)
    cfg["synthtrust_vega_bundle"] = charts.VEGA_BUNDLE_FILENAME
    cfg["mathjax_path"] = MATHJAX_PATH
    cfg["html_context"] = dict(cfg.get("html_context") or {})
    cfg["html_context"].setdefault("default_mode", "light")
    sphinx["config"] = cfg
    config["sphinx"] = sphinx
    return config


def _check_offline_outputs(name: str, notebook: Path) -> None:
    """Fail if an executed notebook's outputs load scripts from the network (a chart made
    without ``synthtrust.presentation.charts.enable()``)."""
    try:
        nb = json.loads(notebook.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise BookBuildError(f"chapter {name!r}: cannot read notebook {notebook}: {err}") from err
    for index, cell in enumerate(nb.get("cells", [])):
        for output in cell.get("outputs", []) or []:
            html = (output.get("data") or {}).get("text/html")
            if html is None:
                continue
            text = "".join(html) if isinstance(html, list) else str(html)
            if _CDN.search(text):
                raise BookBuildError(
                    f"chapter {name!r}: cell {index} of {notebook} loads a script from the "
                    "network (Altair's default renderer?). Call synthtrust.presentation.charts.enable() at "
                    "the top of the chapter so charts render offline."
                )


def _is_progress_output(output: Mapping[str, Any]) -> bool:
    """True if a notebook output is a stderr stream holding only progress bars (tqdm's states,
    separated by carriage returns or newlines): what the run printed while it worked, which the
    runner already showed on the terminal and which says nothing on the page."""
    if output.get("output_type") != "stream" or output.get("name") != "stderr":
        return False
    text = output.get("text", "")
    states = [s for s in re.split(r"[\r\n]+", "".join(text)) if s.strip()]
    return bool(states) and all(_PROGRESS_BAR.match(s) for s in states)


_RUNTIME_LINE = re.compile(rf"^({'|'.join(RUNTIME_KEYS)}) = .*$\n?", re.M)


def _portable_parameters(source: str) -> str:
    """Papermill's injected parameters without the runtime keys (the run's folders and
    workers, paths of the machine that built the book): the downloaded notebook reruns the
    preset's parameters with the notebook's own defaults for those."""
    kept = _RUNTIME_LINE.sub("", source).rstrip("\n")
    return (
        kept + "\n# runtime keys (results_dir, cache_dir, n_jobs, dask): the notebook's defaults\n"
    )


def _stage_notebook(src: Path, dst: Path) -> None:
    """Copy an executed notebook, hiding papermill's injected-parameters cell (the page shows
    its parameters in prose) and dropping its runtime keys (:func:`_portable_parameters`: the
    page offers the notebook for download, and it must run on the reader's machine), and
    dropping the progress bars the run left in its outputs (:func:`_is_progress_output`)."""
    nb = json.loads(src.read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        tags = cell.get("metadata", {}).get("tags", [])
        if "injected-parameters" in tags:
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else source
            cell["source"] = _portable_parameters(source)
            if "remove-cell" not in tags:
                cell["metadata"]["tags"] = [*tags, "remove-cell"]
        if "outputs" in cell:
            cell["outputs"] = [o for o in cell["outputs"] if not _is_progress_output(o)]
    dst.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def _provenance_lines(notebooks: Mapping[str, str | os.PathLike]) -> dict[str, str]:
    """``{"chapters/<name>": provenance line}`` of the chapters whose notebook has a
    ``manifest.json`` beside it (its run folder's)."""
    lines = {}
    for name, notebook in notebooks.items():
        path = Path(notebook).parent / "manifest.json"
        if not path.is_file():
            continue
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise BookBuildError(
                f"chapter {name!r}: cannot read its manifest {path}: {err}"
            ) from err
        if not isinstance(manifest, dict):
            raise BookBuildError(f"chapter {name!r}: its manifest {path} is not a JSON object")
        lines[f"chapters/{name}"] = provenance_line(manifest)
    return lines


def stage(
    notebooks: Mapping[str, str | os.PathLike],
    root: str | os.PathLike | None = None,
    out: str | os.PathLike | None = None,
) -> Path:
    """Stage the book with executed notebooks and offline assets; return the stage folder.

    Parameters
    ----------
    notebooks : mapping
        Chapter name -> executed ``.ipynb``; each is copied to ``chapters/<name>.ipynb``.
        ``_toc.yml`` is restricted to these chapters. The notebook's folder is the chapter's
        run folder: its ``manifest.json``, when present, gives the page's provenance line
        (:func:`provenance`) and its ``results/verdicts.csv`` the scorecard's rows.
    root : path, optional
        Book root (see :func:`find_root`).
    out : path, optional
        Build folder; the stage is ``<out>/stage`` (default ``<root>/_build``). It is
        recreated from scratch.

    Raises
    ------
    FileNotFoundError
        If a notebook, a book file or MathJax (``make assets``) is missing.
    ValueError
        If a notebook is not an ``.ipynb`` file.
    BookBuildError
        If a notebook's outputs load scripts from the network, or a manifest cannot be read.
    """
    root_path = find_root(root)
    es5 = mathjax_source(root_path)
    out_path = Path(out) if out is not None else root_path / "_build"
    stage_dir = out_path / "stage"
    for name, notebook in notebooks.items():
        notebook = Path(notebook)
        if not notebook.is_file():
            raise FileNotFoundError(f"chapter {name!r}: executed notebook {notebook} not found")
        if notebook.suffix != ".ipynb":
            raise ValueError(f"chapter {name!r}: expected an executed .ipynb, got {notebook}")
        _check_offline_outputs(name, notebook)
    lines = _provenance_lines(notebooks)

    if stage_dir.exists():
        shutil.rmtree(stage_dir)
    (stage_dir / "chapters").mkdir(parents=True)

    config = yaml.safe_load((root_path / "_config.yml").read_text(encoding="utf-8")) or {}
    staged = _staged_config(config)
    if lines:
        staged["sphinx"]["config"][PROVENANCE_CONFIG] = lines
    (stage_dir / "_config.yml").write_text(
        "# Staged by synthtrust.run.book from the book's _config.yml (offline settings enforced).\n"
        + yaml.safe_dump(staged, sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    toc = yaml.safe_load((root_path / "_toc.yml").read_text(encoding="utf-8")) or {}
    (stage_dir / "_toc.yml").write_text(
        yaml.safe_dump(_filter_toc(toc, set(notebooks)), sort_keys=False, allow_unicode=True),
        encoding="utf-8",
    )
    for name in BOOK_FILES:
        if name not in ("_config.yml", "_toc.yml"):
            shutil.copy2(root_path / name, stage_dir / name)
    for folder in BOOK_DIRS:
        if (root_path / folder).is_dir():
            shutil.copytree(root_path / folder, stage_dir / folder)
    for name, notebook in notebooks.items():
        _stage_notebook(Path(notebook), stage_dir / "chapters" / f"{name}.ipynb")

    files = _toc_files([toc])
    if scorecard.PAGE in files:
        order = [n for n in map(_chapter_name, files) if n in notebooks]  # the book's order
        run_dirs = {name: Path(notebooks[name]).parent for name in order}
        scorecard.write_scorecard(run_dirs, stage_dir / f"{scorecard.PAGE}.md")

    assets = stage_dir / ASSETS_DIR
    charts.write_vega_bundle(assets / charts.VEGA_BUNDLE_FILENAME)
    shutil.copytree(es5, assets / "mathjax")
    return stage_dir


# -------------------------------------------------------------------------------------- build
def _jupyter_book() -> str:
    local = Path(sys.executable).parent / "jupyter-book"
    if local.is_file():
        return str(local)
    found = shutil.which("jupyter-book")
    if found is None:
        raise BookBuildError(
            "jupyter-book not found next to this Python or on PATH; install the package's "
            "dependencies (make install)"
        )
    return found


def _warnings(log: str) -> list[str]:
    return [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]


def build_site(
    stage_dir: str | os.PathLike,
    html_dir: str | os.PathLike,
    *,
    strict: bool = True,
    progress: bool = True,
) -> Path:
    """Run ``jupyter-book build`` on a staged book and move the site to ``html_dir``.

    With ``strict`` (default) every Sphinx warning (e.g. a missing reference or citation)
    fails the build (``-W --keep-going``). The full log is written to
    ``<stage>/jupyter-book.log``.

    Raises
    ------
    BookBuildError
        If the build exits non-zero or produces no ``intro.html``; the message lists the
        warnings and the log's tail.
    """
    stage_dir = Path(stage_dir).resolve()
    html_dir = Path(html_dir).resolve()
    command = [_jupyter_book(), "build", str(stage_dir), "--builder", "html", "--all"]
    command += ["--path-output", str(stage_dir)]
    if strict:
        command += ["-W", "--keep-going"]
    _say(progress, "jupyter-book build " + str(stage_dir))
    started = time.perf_counter()
    proc = subprocess.run(
        command,
        cwd=stage_dir,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    log_file = stage_dir / "jupyter-book.log"
    log_file.write_text(proc.stdout, encoding="utf-8")
    built = stage_dir / "_build" / "html"
    if proc.returncode != 0 or not (built / "intro.html").is_file():
        warnings = _warnings(proc.stdout)
        tail = "\n".join(proc.stdout.splitlines()[-_LOG_TAIL_LINES:])
        raise BookBuildError(
            f"jupyter-book build failed (exit code {proc.returncode}) after "
            f"{time.perf_counter() - started:.0f} s.\n"
            + (
                f"Warnings/errors ({len(warnings)}):\n" + "\n".join(warnings[:40]) + "\n"
                if warnings
                else ""
            )
            + f"--- last {_LOG_TAIL_LINES} lines of {log_file} ---\n{tail}"
        )
    warnings = _warnings(proc.stdout)
    if warnings:
        _say(progress, f"{len(warnings)} warning(s), see {log_file}:\n" + "\n".join(warnings))
    if html_dir.exists():
        shutil.rmtree(html_dir)
    html_dir.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(built), str(html_dir))
    _say(progress, f"site built in {time.perf_counter() - started:.1f} s: {html_dir}")
    return html_dir


def _default_run_chapter() -> Callable[..., Path]:
    try:
        from synthtrust.run.runner import run_chapter
    except ImportError as err:  # pragma: no cover - until runner.py exists
        raise BookBuildError(f"synthtrust.run.runner is not available: {err}") from err
    return run_chapter


def build(
    preset: str = "default",
    out: str | os.PathLike | None = None,
    n_jobs: int | None = None,
    dask: str | None = None,
    chapters: Iterable[str] | None = None,
    *,
    root: str | os.PathLike | None = None,
    strict: bool = True,
    progress: bool = True,
    run_chapter: Callable[..., str | os.PathLike] | None = None,
    rerun: bool = False,
) -> Path:
    """Run the chapters and build the offline website; return the site folder.

    A chapter whose run folder holds a finished run made from the same inputs (its notebook,
    parameters, the package's code and data, the datasets and the library versions:
    :mod:`synthtrust.run.fingerprint`) is not run again, so a second build with nothing changed
    only rebuilds the site; ``rerun=True`` runs every chapter.

    Parameters
    ----------
    preset : str
        Parameter preset of every chapter (``"smoke"``, ``"default"``, ``"paper"``).
    out : path, optional
        Build folder (default ``<root>/_build``): chapter runs go to
        ``<out>/runs/<preset>/<chapter>/`` (the runner's default layout), the stage to
        ``<out>/stage`` and the site to ``<out>/html``.
    n_jobs : int, optional
        Parallel workers of each chapter run (passed to the runner).
    dask : str, optional
        Dask scheduler address, or ``"local"`` (passed to the runner).
    chapters : iterable of str, optional
        Chapters to run and publish, a subset of those in ``_toc.yml`` (default: all of them,
        in toc order). The staged toc lists only these.
    root : path, optional
        Book root (see :func:`find_root`).
    strict : bool
        Treat Sphinx warnings (missing references, citations, ...) as errors.
    progress : bool
        Print progress to stderr.
    run_chapter : callable, optional
        ``run_chapter(name, preset=, out=, n_jobs=, dask=, progress=) -> run folder`` holding
        ``<name>.ipynb``; default ``synthtrust.run.runner.run_chapter``.
    rerun : bool
        Run every selected chapter even where its run is up to date.

    Returns
    -------
    pathlib.Path
        ``<out>/html``; its ``intro.html`` is the front page. Beside it, the results bundle
        ``<out>/results-<version>.tar.gz`` (:func:`synthtrust.run.bundle.write_bundle`: every
        run folder and ``bundle.json``), written once the chapters have run, before the site
        is built.

    Raises
    ------
    ValueError
        If a requested chapter is not in ``_toc.yml``, no chapter is selected, a chapter has no
        preset ``preset`` or ``out`` cannot be a folder (all checked before the first run).
    FileNotFoundError
        If MathJax is missing (run ``make assets``) or a run produced no notebook.
    BookBuildError
        If a chapter run fails (message names the chapter; the runner's exception is the
        cause) or ``jupyter-book build`` fails (message with the log's tail).

    See Also
    --------
    build_from_results : the site again from a bundle, without running a chapter.
    """
    started = time.perf_counter()
    root_path = find_root(root)
    mathjax_source(root_path)  # fail before spending time on the chapters
    listed = toc_chapters(root_path)
    if chapters is None:
        selected = listed
    else:
        if isinstance(chapters, str):
            chapters = [chapters]
        selected = list(dict.fromkeys(chapters))
        unknown = [c for c in selected if c not in listed]
        if unknown:
            raise ValueError(
                f"chapters {unknown} are not in {root_path / '_toc.yml'}; allowed: {listed}"
            )
    if not selected:
        raise ValueError(f"no chapter selected; _toc.yml lists {listed}")
    if run_chapter is None:  # every chapter's preset, before the first one runs for minutes
        from synthtrust.run.runner import check_runtime, load_params

        check_runtime(n_jobs, dask)
        for name in selected:
            load_params(name, preset)
    runner = run_chapter or _default_run_chapter()

    out_path = check_folder(Path(out) if out is not None else root_path / "_build", "out")
    notebooks: dict[str, Path] = {}
    for name in selected:
        _say(progress, f"running chapter {name!r} (preset {preset!r})")
        t0 = time.perf_counter()
        run_out = out_path / "runs" / preset / name
        if not rerun and _up_to_date(name, preset, run_out):
            notebooks[name] = run_out / f"{name}.ipynb"
            _say(progress, f"chapter {name!r} is up to date, not run: {notebooks[name]}")
            continue
        try:
            run_dir = Path(
                runner(
                    name, preset=preset, out=run_out, n_jobs=n_jobs, dask=dask, progress=progress
                )
            )
        except Exception as err:
            raise BookBuildError(
                f"chapter {name!r} (preset {preset!r}) failed: {type(err).__name__}: {err}"
            ) from err
        notebook = run_dir / f"{name}.ipynb" if run_dir.is_dir() else run_dir
        if not notebook.is_file():
            raise FileNotFoundError(
                f"chapter {name!r}: the run returned {run_dir}, which holds no {name}.ipynb"
            )
        notebooks[name] = notebook
        _say(progress, f"chapter {name!r} done in {time.perf_counter() - t0:.1f} s: {notebook}")

    runs = {name: notebook.parent for name, notebook in notebooks.items()}
    results = bundle.write_bundle(
        out_path / bundle.bundle_name(), runs, preset=preset, root=root_path
    )
    _say(progress, f"results bundle: {results}")
    html = _publish(notebooks, root_path, out_path, strict=strict, progress=progress)
    _say(progress, "chapter runs (their manifests' wall time and grids):\n" + _profile(runs))
    _say(progress, f"book done in {time.perf_counter() - started:.1f} s")
    return html


def _up_to_date(name: str, preset: str, run_out: Path) -> bool:
    """Whether ``run_out`` holds a finished run of chapter ``name`` on ``preset`` made from the
    inputs a run would have now (False for a chapter or preset the runner does not know)."""
    from synthtrust.run import runner
    from synthtrust.run.fingerprint import up_to_date

    if name not in runner.list_chapters() or preset not in runner.presets(name):
        return False
    return up_to_date(run_out, name, runner.run_inputs_digest(name, preset))


def _profile(runs: Mapping[str, Path]) -> str:
    """The table of the chapters' wall times and grids from their ``manifest.json``
    (:func:`synthtrust.run._grid_records.profile_table`); a run without one is left out."""
    manifests = {}
    for name, run in runs.items():
        path = Path(run) / "manifest.json"
        with contextlib.suppress(OSError, ValueError):
            manifests[name] = json.loads(path.read_text(encoding="utf-8"))
    return profile_table(manifests)


def _publish(notebooks, root_path: Path, out_path: Path, *, strict: bool, progress: bool) -> Path:
    """Steps 2-4 of the build, shared by :func:`build` and :func:`build_from_results`: stage
    the executed notebooks, build the site into ``<out>/html``."""
    stage_dir = stage(notebooks, root=root_path, out=out_path)
    return build_site(stage_dir, out_path / "html", strict=strict, progress=progress)


def build_from_results(
    results: str | os.PathLike,
    out: str | os.PathLike | None = None,
    *,
    root: str | os.PathLike | None = None,
    strict: bool = True,
    progress: bool = True,
) -> Path:
    """Build the offline website from a results bundle, running no chapter; return the site
    folder.

    The bundle's runs are extracted into ``<out>/from-results/`` (made anew), then staged and
    built as :func:`build` stages and builds its own runs, with the book's sources (``_toc.yml``
    restricted to the bundle's chapters, ``intro.md``, the guides, the API pages) from
    ``root``. Each chapter page names the bundle's run (version, commit, preset), not this
    checkout.

    Parameters
    ----------
    results : path
        A bundle written by :func:`build` (``results-<version>.tar.gz``).
    out : path, optional
        Build folder (default ``<root>/_build``): the runs go to ``<out>/from-results``, the
        stage to ``<out>/stage`` and the site to ``<out>/html``; ``<out>/runs`` is left alone.
    root : path, optional
        Book root (see :func:`find_root`).
    strict : bool
        Treat Sphinx warnings as errors.
    progress : bool
        Print progress to stderr.

    Returns
    -------
    pathlib.Path
        ``<out>/html``.

    Raises
    ------
    ValueError
        One line naming the bundle, if it is refused (:func:`synthtrust.run.bundle.read_bundle`:
        no such file, not a tar.gz file, no ``bundle.json``, a chapter without its notebook,
        ...) or holds a chapter that ``_toc.yml`` does not list; or if ``out`` cannot be a
        folder.
    FileNotFoundError
        If MathJax is missing (run ``make assets``).
    BookBuildError
        If ``jupyter-book build`` fails.
    """
    started = time.perf_counter()
    held = bundle.read_bundle(results)  # a bad bundle first: it is what the user gave
    root_path = find_root(root)
    mathjax_source(root_path)
    listed = toc_chapters(root_path)
    unknown = [name for name in held.chapters if name not in listed]
    if unknown:
        raise ValueError(
            f"bundle {results}: chapter {', '.join(map(repr, unknown))} is not in "
            f"{root_path / '_toc.yml'}, which lists {', '.join(listed)}"
        )
    out_path = check_folder(Path(out) if out is not None else root_path / "_build", "out")
    runs_dir = out_path / FROM_RESULTS_DIR
    if runs_dir.exists():
        shutil.rmtree(runs_dir)
    runs = bundle.extract_bundle(held.path, runs_dir)
    _say(
        progress,
        f"{len(runs)} chapter runs of {held.path} (synthtrust {held.version}, commit "
        f"{held.commit[:7]}, preset {held.preset!r}) in {runs_dir}",
    )
    notebooks = {name: run / f"{name}.ipynb" for name, run in runs.items()}
    html = _publish(notebooks, root_path, out_path, strict=strict, progress=progress)
    _say(progress, f"book from results done in {time.perf_counter() - started:.1f} s")
    return html
