"""Two runs of a chapter compared file by file: does a change of code keep the numbers?

A run folder (what ``synthtrust run --out DIR`` writes) holds ``results/`` (the tables the
chapter writes), ``CHAPTER.ipynb`` (the executed notebook, whose glued values the page quotes)
and ``manifest.json`` (parameters, seed, commit). :func:`compare_runs` reads two run folders
and says which results files and glued values are equal, which differ (for a table: in which
columns and how many rows) and which exist in one run only. Wall-clock times differ between any
two runs, so the columns, JSON keys and glued values whose names match :data:`TIMING`
(``seconds``, ``fit_sample_s``, ``wall``, ``audit_time``, ``cpu``, ...) are left out unless asked
otherwise. A column that a later commit renamed into the field's vocabulary
(:data:`synthtrust.run.experiment.FROZEN_NAMES`, e.g. ``pgm_iters`` → ``pgm_max_iter``) is
compared under its new name, and the summary says so.

Use it to show that a refactoring leaves every number of the book as it was (run the chapters
at the commit before and after, then compare), or that a rerun on another machine, backend or
``n_jobs`` reproduces a published run (the package's results do not depend on them). A
published run is a chapter of a results bundle (:mod:`synthtrust.run.bundle`), named
``results-0.1.0.tar.gz#auditing`` where a run folder is expected.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from synthtrust._result import ResultMixin
from synthtrust._validation import check_input_folder, check_real, check_regex
from synthtrust.run import bundle
from synthtrust.run.experiment import FROZEN_NAMES

__all__ = ["TIMING", "RunComparison", "compare_runs"]

TIMING = r"(^|[\W_])(seconds|s|hours|wall|time|cpu)($|[\W_])"
"""Names of the wall-clock and CPU times the chapters write: columns and keys ``seconds``,
``fit_seconds``, ``fit_sample_s``, ``seconds a fit``, ``core-seconds``, ``hours for 0.5 ×
claim``; glued values ``wall``, ``wall_s``, ``gan_wall``, ``audit_time``, ``cpu``,
``adult_s_mst``. Left out of the comparison by default."""

#: ``{frozen name: today's name}``: the columns of an older run read under today's names.
RENAMED = {frozen: today for today, frozen in FROZEN_NAMES.items()}

_TABLES = {".csv": pd.read_csv, ".parquet": pd.read_parquet}


@dataclass(frozen=True)
class RunComparison(ResultMixin):
    """What :func:`compare_runs` found.

    Attributes
    ----------
    before, after : str
        The two run folders, each followed by its chapter and commit when its manifest says.
    equal_files : list of str
        Results files (paths relative to ``results/``) equal in both runs.
    differing_files : dict of str to str
        Results files that differ, with what differs (columns, rows, JSON keys or bytes).
    only_before, only_after : list of str
        Results files that exist in one run only.
    equal_glued : list of str
        Names of the glued values equal in both notebooks (their ``text/plain`` form); names
        matching ``ignore`` are left out.
    differing_glued : dict of str to list of str
        Glued values that differ, or exist in one notebook only (``None`` on the other side):
        ``name -> [before, after]``.
    differing_parameters : list of str
        Keys of the manifests' ``parameters`` whose values differ (the runs were asked for
        different things: their numbers may differ for that reason).
    ignore : str or None
        The pattern of the column, key and glued value names left out.
    atol : float
        Numbers of the results tables within this of each other counted as equal (0: exact).
    renamed : list of str
        ``"old -> new"`` for each column of the results tables, and each parameter of the
        manifests, read under its new name (:data:`RENAMED`).
    """

    before: str
    after: str
    equal_files: list[str]
    differing_files: dict[str, str]
    only_before: list[str]
    only_after: list[str]
    equal_glued: list[str]
    differing_glued: dict[str, list]
    differing_parameters: list[str]
    ignore: str | None = field(default=TIMING)
    atol: float = 0.0
    renamed: list[str] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        """True when every results file and glued value is in both runs and equal."""
        return not (
            self.differing_files or self.only_before or self.only_after or self.differing_glued
        )

    def summary(self) -> str:
        """The comparison as a few lines of text (what ``synthtrust compare`` prints)."""
        lines = [
            f"before: {self.before}",
            f"after:  {self.after}",
            f"results files: {len(self.equal_files)} equal, {len(self.differing_files)} "
            f"differing, {len(self.only_before)} only before, {len(self.only_after)} only after",
            f"glued values:  {len(self.equal_glued)} equal, {len(self.differing_glued)} differing",
        ]
        lines += [f"  differs: {path}: {what}" for path, what in self.differing_files.items()]
        lines += [f"  only before: {path}" for path in self.only_before]
        lines += [f"  only after: {path}" for path in self.only_after]
        lines += [f"  glued {n}: {b!r} -> {a!r}" for n, (b, a) in self.differing_glued.items()]
        if self.differing_parameters:
            lines.append(f"parameters differ: {', '.join(self.differing_parameters)}")
        if self.renamed:
            lines.append(f"names compared under their new names: {', '.join(self.renamed)}")
        lines.append(f"left out: names matching {self.ignore!r}" if self.ignore else "")
        within = f" (numbers to within {self.atol:g})" if self.atol else ""
        lines.append(("identical" if self.identical else "NOT identical") + within)
        return "\n".join(line for line in lines if line)


def compare_runs(before, after, *, ignore: str | None = TIMING, atol: float = 0.0) -> RunComparison:
    """Compare two run folders of a chapter, results file by results file and glued value by
    glued value.

    Parameters
    ----------
    before, after : str or path-like
        Run folders (``synthtrust run --out``), each with a ``results/`` folder; the notebook
        is ``CHAPTER.ipynb`` (the chapter named by ``manifest.json``) or the folder's only
        ``.ipynb``. Either may be a chapter of a results bundle, ``FILE#CHAPTER`` (e.g.
        ``results-0.1.0.tar.gz#auditing``: :func:`synthtrust.run.bundle.chapter_run`).
    ignore : str or None, default :data:`TIMING`
        Regular expression (``re.search``) of the column names (CSV, Parquet), keys (JSON, at
        any depth) and glued value names left out; None compares everything.
    atol : float ≥ 0, default 0
        Absolute tolerance of the numbers in results tables (CSV, Parquet): ``|x − y| ≤
        atol`` counts as equal, for a rerun whose last digits may differ (another machine's
        floating point, a closed form in place of a root-finder). Glued values, JSON and
        other files are always compared exactly.

    Returns
    -------
    RunComparison
        Tables (``.csv``, ``.parquet``) are equal when they have the same columns, row index,
        dtypes and values (NaN equal to NaN), JSON files when their values are equal, other
        files when their bytes are.

    Raises
    ------
    ValueError
        ``before`` or ``after`` is not a folder with a ``results/`` folder (nor a chapter of a
        bundle that :func:`synthtrust.run.bundle.read_bundle` accepts and that holds it, or is
        a bundle without ``#CHAPTER``), a results file or a notebook cannot be read, ``ignore``
        is empty or not a regular expression, or ``atol`` is negative or not finite.
    TypeError
        ``ignore`` is neither a string nor None, or ``atol`` not a real number.

    Examples
    --------
    >>> comparison = compare_runs("runs/before/auditing", "runs/after/auditing")  # doctest: +SKIP
    >>> comparison.identical  # doctest: +SKIP
    True
    >>> compare_runs("results-0.1.0.tar.gz#auditing", "runs/after/auditing")  # doctest: +SKIP
    """
    pattern = None if ignore is None else check_regex(ignore, "ignore")
    atol = check_real(atol, "atol", low=0.0)
    with contextlib.ExitStack() as stack:
        runs, shown = [], []
        for path, name in ((before, "before"), (after, "after")):
            runs.append(_run_folder(path, name, stack))
            shown.append(path if bundle.split_chapter(path) else runs[-1])
        return _compare_folders(runs, shown, pattern, ignore, atol)


def _run_folder(path, name: str, stack: contextlib.ExitStack) -> Path:
    """``path`` as a run folder: a chapter of a bundle (``FILE#CHAPTER``) extracted for as long
    as ``stack`` lasts, or a folder holding ``results/``."""
    spec = bundle.split_chapter(path)
    if spec is not None:
        return stack.enter_context(bundle.chapter_run(*spec))
    if Path(path).is_file() and Path(path).name.endswith((".tar.gz", ".tgz")):
        chapters = ", ".join(bundle.read_bundle(path).chapters)
        raise ValueError(
            f"{name}: {path} is a results bundle; name one of its chapters ({chapters}) as "
            f"{path}#CHAPTER"
        )
    what = (
        "a run folder (what `synthtrust run --out DIR` wrote) or a chapter of a results bundle "
        "(results-VERSION.tar.gz#CHAPTER)"
    )
    return check_input_folder(path, name, containing="results", what=what)


def _compare_folders(runs: list[Path], shown: list, pattern, ignore, atol: float):
    """:func:`compare_runs` on two run folders; ``shown`` is how the summary names them."""
    files = [_results_files(run) for run in runs]
    equal, differing, renamed = [], {}, set()
    for rel in sorted(files[0].keys() & files[1].keys()):
        what = _file_difference(files[0][rel], files[1][rel], pattern, atol, renamed)
        if what is None:
            equal.append(rel)
        else:
            differing[rel] = what
    manifests = [_manifest(run) for run in runs]
    glued = [_glued_values(run, manifest) for run, manifest in zip(runs, manifests, strict=True)]
    names = sorted(n for n in glued[0].keys() | glued[1].keys() if not _matches(pattern, n))
    parameters = [m.get("parameters", {}) for m in manifests]
    return RunComparison(
        before=_label(shown[0], manifests[0]),
        after=_label(shown[1], manifests[1]),
        equal_files=equal,
        differing_files=differing,
        only_before=sorted(files[0].keys() - files[1].keys()),
        only_after=sorted(files[1].keys() - files[0].keys()),
        equal_glued=[n for n in names if glued[0].get(n) == glued[1].get(n)],
        differing_glued={
            n: [glued[0].get(n), glued[1].get(n)]
            for n in names
            if glued[0].get(n) != glued[1].get(n)
        },
        differing_parameters=_differing_parameters(*parameters, renamed),
        ignore=ignore,
        atol=atol,
        renamed=sorted(f"{old} -> {RENAMED[old]}" for old in renamed),
    )


def _differing_parameters(before: dict, after: dict, renamed: set) -> list[str]:
    """The keys whose values differ, a frozen key of ``before`` read under its new name where
    ``after`` has the new name and not the old one (added to ``renamed``)."""
    moved = {k for k in before if k in RENAMED and RENAMED[k] in after and k not in after}
    renamed.update(moved)
    before = {RENAMED[k] if k in moved else k: v for k, v in before.items()}
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def _results_files(run: Path) -> dict[str, Path]:
    results = run / "results"
    return {p.relative_to(results).as_posix(): p for p in results.rglob("*") if p.is_file()}


def _manifest(run: Path) -> dict:
    path = run / "manifest.json"
    return _read_json(path) if path.is_file() else {}


def _label(run: Path, manifest: dict) -> str:
    commit = (manifest.get("git") or {}).get("commit")
    facts = [manifest.get("chapter"), manifest.get("preset"), commit and commit[:7]]
    facts = [f for f in facts if f]
    return f"{run} ({', '.join(facts)})" if facts else str(run)


def _file_difference(a: Path, b: Path, pattern, atol: float = 0.0, renamed=None) -> str | None:
    """What differs between two results files of the same name, or None when they are equal.
    The before table's columns of :data:`RENAMED` are read under their new names (added to the
    set ``renamed``) where the after table has the new name and not the old one."""
    if a.suffix in _TABLES:
        read = _TABLES[a.suffix]
        before, after = _read(read, a), _read(read, b)
        old = [
            c
            for c in before.columns
            if c in RENAMED and RENAMED[c] in after.columns and c not in after.columns
        ]
        if renamed is not None:
            renamed.update(old)
        before = before.rename(columns={c: RENAMED[c] for c in old})
        return frame_difference(before, after, pattern, atol)
    if a.suffix == ".json":
        where = json_difference(_read_json(a), _read_json(b), pattern)
        return None if where is None else f"JSON values differ at {where}"
    return None if a.read_bytes() == b.read_bytes() else "bytes differ"


def _read(read, path: Path):
    """``read(path)``, its failure a ValueError naming the file."""
    try:
        return read(path)
    except (ValueError, OSError) as exc:  # pyarrow's and json's errors are ValueErrors too
        raise ValueError(f"cannot read {path}: {exc}") from None


def _read_json(path: Path):
    return _read(lambda p: json.loads(p.read_text(encoding="utf-8")), path)


def frame_difference(
    a: pd.DataFrame, b: pd.DataFrame, ignore=None, atol: float = 0.0
) -> str | None:
    """What differs between two tables, or None when they are equal.

    Columns whose names match ``ignore`` (a compiled pattern or None) are left out; the rest
    must be the same columns in the same order, with the same row index, dtypes and values
    (NaN equal to NaN; numbers of float columns within ``atol`` of each other). The answer
    names the differing columns and counts the rows.
    """
    if ignore is not None:
        a = a[[c for c in a.columns if not _matches(ignore, c)]]
        b = b[[c for c in b.columns if not _matches(ignore, c)]]
    if set(a.columns) != set(b.columns):
        gone, new = _names(set(a.columns) - set(b.columns)), _names(set(b.columns) - set(a.columns))
        return f"columns differ (only before: {gone}; only after: {new})"
    if list(a.columns) != list(b.columns):
        return "the same columns in another order"
    if len(a) != len(b):
        return f"{len(a)} rows before, {len(b)} after"
    if not a.index.equals(b.index):
        return "row index differs"
    columns = [c for c in a.columns if not a[c].equals(b[c])]
    if atol:
        columns = [c for c in columns if not _close(a[c], b[c], atol)]
    if not columns:
        return None
    values = [~_same_values(a[c], b[c]) for c in columns]
    rows = int(pd.concat(values, axis=1).any(axis=1).sum())
    kind = f"values differ in {rows} of {len(a)} rows" if rows else "dtypes differ"
    return f"{kind}, columns {_names(columns)}"


def _matches(pattern, name) -> bool:
    return pattern is not None and pattern.search(str(name)) is not None


def _close(x: pd.Series, y: pd.Series, atol: float) -> bool:
    """Two float columns of the same dtype equal up to ``atol`` (NaN equal to NaN)."""
    if x.dtype != y.dtype or not pd.api.types.is_float_dtype(x):
        return False
    u, v = x.to_numpy(float), y.to_numpy(float)
    both = np.isnan(u) & np.isnan(v)
    with np.errstate(invalid="ignore"):  # inf - inf: equal infinities are caught by u == v
        return bool(np.all(both | (np.abs(u - v) <= atol) | (u == v)))


def _same_values(x: pd.Series, y: pd.Series) -> pd.Series:
    x, y = x.reset_index(drop=True).astype(object), y.reset_index(drop=True).astype(object)
    return (x == y) | (x.isna() & y.isna())


def _names(names) -> str:
    return ", ".join(map(str, sorted(names, key=str))) or "none"


def json_difference(a, b, ignore=None, where: str = "$") -> str | None:
    """The first place (``$.key[0]...``) where two JSON values differ, keys matching
    ``ignore`` (a compiled pattern or None) left out at any depth; None when they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = [k for k in a.keys() | b.keys() if not _matches(ignore, k)]
        for key in sorted(keys):
            if key not in a or key not in b:
                return f"{where}.{key}"
            found = json_difference(a[key], b[key], ignore, f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = json_difference(x, y, ignore, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if type(a) is type(b) and a == b else where


def _glued_values(run: Path, manifest: dict) -> dict[str, str]:
    """``{name: text/plain}`` of the values the notebook glued (myst-nb's ``glue``)."""
    notebook = run / f"{manifest.get('chapter')}.ipynb"
    if not notebook.is_file():
        found = sorted(run.glob("*.ipynb"))
        if len(found) != 1:
            return {}
        notebook = found[0]
    glued = {}
    for cell in _read_json(notebook).get("cells", []):
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                data = output.get("data", {})
                text = [v for k, v in data.items() if k.endswith("text/plain")]
                glued[name] = "".join(text[0]) if text else json.dumps(data, sort_keys=True)
    return glued
