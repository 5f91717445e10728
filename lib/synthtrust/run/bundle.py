"""A results bundle: the chapter runs of a book build in one ``.tar.gz``, published beside the
site, to rebuild the site from and to compare a rerun with.

``synthtrust book`` writes ``<out>/results-<version>.tar.gz`` (:func:`write_bundle`). It holds,
under ``<chapter>/``, each chapter's run folder as ``synthtrust run`` wrote it: the executed
``<chapter>.ipynb``, ``results/`` (the tables and ``verdicts.csv``) and ``manifest.json``
(parameters, seed, versions, commit); and a top-level ``bundle.json``::

    {"version": "0.1.0", "commit": "<40 hex digits>", "dirty": false, "preset": "default",
     "chapters": ["hypothesis_validity", ...], "created_at": "2026-12-03T10:00:00+00:00"}

``synthtrust book --from-results FILE`` builds the site from a bundle without running a chapter
(:func:`extract_bundle`, then the build's own staging: ``synthtrust.run.book``), and
``synthtrust compare FILE#CHAPTER RUN_DIR`` compares a chapter of a bundle with a run folder
(:func:`chapter_run`).

A bundle is checked before anything is extracted (:func:`read_bundle`): a gzip-compressed tar
holding ``bundle.json`` with the keys above, each listed chapter's notebook, and nothing but
regular files and folders under the listed chapters. Extraction then goes through the standard
library's ``data`` filter (``tarfile``, PEP 706), which refuses absolute paths, paths that leave
the destination, links and device files. Every refusal is a ValueError of one line that names
the file and what is wrong with it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import json
import os
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from synthtrust import __version__
from synthtrust._atomic import atomic_path
from synthtrust.run.manifest import git_info

__all__ = [
    "BUNDLE_JSON",
    "KEYS",
    "Bundle",
    "bundle_name",
    "chapter_run",
    "extract_bundle",
    "read_bundle",
    "split_chapter",
    "write_bundle",
]

#: The bundle's own description, at the top of the archive.
BUNDLE_JSON = "bundle.json"
#: The keys of :data:`BUNDLE_JSON`.
KEYS = ("version", "commit", "dirty", "preset", "chapters", "created_at")
#: What a bundle keeps of a run folder besides ``<chapter>.ipynb``: the manifest and the
#: results (a run's lock file, a failed notebook and hidden files stay behind).
RUN_FILES = ("manifest.json", "results")
#: The separator of ``FILE#CHAPTER`` (a chapter of a bundle where a run folder is expected).
CHAPTER_SEPARATOR = "#"


def bundle_name(version: str = __version__) -> str:
    """The file name of the bundle of package version ``version``: ``results-<version>.tar.gz``."""
    return f"results-{version}.tar.gz"


@dataclass(frozen=True)
class Bundle:
    """What :func:`read_bundle` found in a bundle.

    Attributes
    ----------
    path : pathlib.Path
        The bundle file.
    version : str
        The synthtrust version that wrote it.
    commit : str
        The git commit of the checkout that wrote it (``"unknown"`` outside a git work tree).
    dirty : bool or None
        Whether tracked files differed from that commit (None: unknown).
    preset : str
        The preset every chapter ran with.
    chapters : tuple of str
        The chapters it holds, in the build's order.
    created_at : str
        When it was written (ISO 8601, with the UTC offset).
    files : tuple of str
        The archive's regular files (``bundle.json`` and ``<chapter>/...``), in archive order.
    """

    path: Path
    version: str
    commit: str
    dirty: bool | None
    preset: str
    chapters: tuple[str, ...]
    created_at: str
    files: tuple[str, ...]


class _Refused(ValueError):
    """A bundle refused; :func:`_refuse` adds the file's name."""


def _refuse(path, problem: str) -> ValueError:
    return ValueError(" ".join(f"bundle {path}: {problem}".split()))


def _check_chapter_name(name) -> str:
    if not isinstance(name, str) or not name or name.startswith(".") or "/" in name:
        raise _Refused(f"chapter names must be folder names, got {name!r}")
    return name


# ------------------------------------------------------------------------------------- write
def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes, mtime: float) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), int(mtime), 0o644
    tar.addfile(info, io.BytesIO(data))


def _visible(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """``tar.add``'s filter: leave out hidden files and folders (``.lock``, caches)."""
    return None if Path(info.name).name.startswith(".") else info


def write_bundle(
    path: str | os.PathLike,
    runs: Mapping[str, str | os.PathLike],
    *,
    preset: str,
    root: str | os.PathLike | None = None,
) -> Path:
    """Write the results bundle of some chapter runs; return its path.

    Parameters
    ----------
    path : path
        The bundle to write (conventionally ``<build folder>/`` :func:`bundle_name`), through a
        temporary file and a rename: a reader never sees half a bundle, and a failure leaves an
        older bundle as it was.
    runs : mapping
        Chapter name -> its run folder, holding ``<name>.ipynb`` and, as ``synthtrust run``
        writes them, ``manifest.json`` and ``results/`` (kept when present, hidden files left
        out, symbolic links followed). The bundle lists the chapters in this order.
    preset : str
        The preset the chapters ran with (recorded in ``bundle.json``).
    root : path, optional
        Where to read the git commit (default: the current directory).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ValueError
        ``runs`` is empty, a chapter name is not a folder name, or a run folder lacks its
        notebook.
    """
    if not runs:
        raise ValueError("runs must name at least one chapter run, got none")
    folders = {}
    for name, run in runs.items():
        try:
            _check_chapter_name(name)
        except _Refused as err:
            raise ValueError(f"runs: {err}") from None
        notebook = Path(run) / f"{name}.ipynb"
        if not notebook.is_file():
            raise ValueError(f"runs: chapter {name!r}: {run} holds no {notebook.name}")
        folders[name] = Path(run)
    git = git_info(root)
    created = _dt.datetime.now().astimezone()
    info = {
        "version": __version__,
        "commit": git["commit"],
        "dirty": git["dirty"],
        "preset": preset,
        "chapters": list(folders),
        "created_at": created.isoformat(timespec="seconds"),
    }
    text = json.dumps(info, indent=2) + "\n"
    with atomic_path(path) as tmp, tarfile.open(tmp, "w:gz", dereference=True) as tar:
        _add_bytes(tar, BUNDLE_JSON, text.encode("utf-8"), created.timestamp())
        for name, run in folders.items():
            tar.add(run / f"{name}.ipynb", arcname=f"{name}/{name}.ipynb")
            for item in RUN_FILES:
                if (run / item).exists():
                    tar.add(run / item, arcname=f"{name}/{item}", filter=_visible)
    return Path(path)


# -------------------------------------------------------------------------------------- read
def _open(path: Path) -> tarfile.TarFile:
    if not path.is_file():
        raise _Refused("no such file" if not path.exists() else "is not a file")
    try:
        tar = tarfile.open(path, "r:gz")
        tar.getmembers()  # reads the whole index: a truncated archive fails here
    except (tarfile.TarError, OSError, EOFError) as err:
        raise _Refused(f"not a tar.gz file ({err})") from None
    return tar


def _description(tar: tarfile.TarFile) -> dict:
    try:
        member = tar.getmember(BUNDLE_JSON)
    except KeyError:
        raise _Refused(f"no {BUNDLE_JSON}: not a bundle that `synthtrust book` wrote") from None
    if not member.isfile():
        raise _Refused(f"{BUNDLE_JSON} is not a regular file")
    try:
        info = json.loads(tar.extractfile(member).read().decode("utf-8"))
    except (ValueError, UnicodeDecodeError, tarfile.TarError, OSError, EOFError) as err:
        raise _Refused(f"{BUNDLE_JSON} is not JSON ({err})") from None
    if not isinstance(info, dict):
        raise _Refused(f"{BUNDLE_JSON} is not a JSON object")
    missing = [key for key in KEYS if key not in info]
    if missing:
        raise _Refused(f"{BUNDLE_JSON} lacks {', '.join(missing)}")
    chapters = info["chapters"]
    if not isinstance(chapters, list) or not chapters:
        raise _Refused(f"{BUNDLE_JSON} lists no chapters (chapters: {chapters!r})")
    for name in chapters:
        _check_chapter_name(name)
    if len(set(chapters)) != len(chapters):
        raise _Refused(f"{BUNDLE_JSON} lists a chapter twice: {chapters}")
    for key in ("version", "commit", "preset", "created_at"):
        if not isinstance(info[key], str):
            raise _Refused(f"{BUNDLE_JSON}: {key} must be a string, got {info[key]!r}")
    if not (info["dirty"] is None or isinstance(info["dirty"], bool)):
        raise _Refused(f"{BUNDLE_JSON}: dirty must be true, false or null, got {info['dirty']!r}")
    return info


def _check_members(tar: tarfile.TarFile, chapters: list[str]) -> list[str]:
    """The archive's regular files, once every member is checked to be a regular file or a
    folder under a listed chapter, and every chapter to have its notebook."""
    files = []
    for member in tar.getmembers():
        name = member.name
        if name == BUNDLE_JSON:
            files.append(name)
            continue
        if not (member.isfile() or member.isdir()):
            raise _Refused(f"{name} is not a regular file or folder (links are not extracted)")
        top, _, rest = name.partition("/")
        if top not in chapters or ".." in Path(name).parts or name.startswith("/"):
            raise _Refused(f"{name} is outside the chapters it lists ({', '.join(chapters)})")
        if member.isfile():
            files.append(name)
    for name in chapters:
        if f"{name}/{name}.ipynb" not in files:
            raise _Refused(f"chapter {name!r} has no {name}/{name}.ipynb")
    return files


def read_bundle(path: str | os.PathLike) -> Bundle:
    """Check a results bundle and return what it holds, extracting nothing.

    Parameters
    ----------
    path : path
        A bundle written by :func:`write_bundle` (``synthtrust book``).

    Returns
    -------
    Bundle

    Raises
    ------
    ValueError
        One line that names the file and what is wrong: no such file, not a tar.gz file, no
        ``bundle.json`` (or one that is not a JSON object with the :data:`KEYS`, a non-empty
        list of chapters among them), a chapter without its notebook, a member that is not a
        regular file or folder, or one outside the listed chapters.
    """
    path = Path(path)
    try:
        with _open(path) as tar:
            info = _description(tar)
            files = _check_members(tar, info["chapters"])
    except _Refused as err:
        raise _refuse(path, str(err)) from None
    return Bundle(
        path=path,
        version=info["version"],
        commit=info["commit"],
        dirty=info["dirty"],
        preset=info["preset"],
        chapters=tuple(info["chapters"]),
        created_at=info["created_at"],
        files=tuple(files),
    )


def extract_bundle(
    path: str | os.PathLike,
    dest: str | os.PathLike,
    chapters: Iterable[str] | None = None,
) -> dict[str, Path]:
    """Extract a bundle's chapter runs into ``dest``; return chapter -> run folder.

    Parameters
    ----------
    path : path
        The bundle, checked first (:func:`read_bundle`).
    dest : path
        The folder to extract into (created; ``<dest>/<chapter>/`` is each run folder, with
        ``<chapter>.ipynb``, ``results/`` and ``manifest.json``; ``bundle.json`` is not
        extracted). Existing files of the same names are replaced.
    chapters : iterable of str, optional
        The chapters to extract (default: all, in the bundle's order).

    Returns
    -------
    dict of str to pathlib.Path
        The run folders, in the bundle's order.

    Raises
    ------
    ValueError
        The bundle is refused (:func:`read_bundle`), a chapter asked for is not in it, or a
        member fails the ``data`` extraction filter; one line naming the file.
    """
    bundle = read_bundle(path)
    wanted = list(bundle.chapters) if chapters is None else list(dict.fromkeys(chapters))
    absent = [name for name in wanted if name not in bundle.chapters]
    if absent:
        held = ", ".join(bundle.chapters)
        raise _refuse(path, f"no chapter {', '.join(map(repr, absent))} (it holds {held})")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "r:gz") as tar:
        members = [m for m in tar.getmembers() if m.name.partition("/")[0] in wanted]
        try:
            tar.extractall(dest, members=members, filter="data")
        except tarfile.FilterError as err:  # the checks above let through nothing it refuses
            raise _refuse(path, f"unsafe member ({err})") from None
    return {name: dest / name for name in bundle.chapters if name in wanted}


# ------------------------------------------------------------------ a chapter as a run folder
def split_chapter(value: str | os.PathLike) -> tuple[Path, str] | None:
    """``(bundle, chapter)`` if ``value`` is ``FILE#CHAPTER`` and ``FILE`` an existing file,
    else None (a run folder whose name holds ``#`` stays a run folder)."""
    text = os.fspath(value)
    file, separator, chapter = text.rpartition(CHAPTER_SEPARATOR)
    if not separator or not Path(file).is_file():
        return None
    return Path(file), chapter


@contextlib.contextmanager
def chapter_run(path: str | os.PathLike, chapter: str) -> Iterator[Path]:
    """A chapter of a bundle as a run folder, extracted into a temporary folder that is removed
    on exit.

    Parameters
    ----------
    path : path
        The bundle.
    chapter : str
        One of its chapters.

    Yields
    ------
    pathlib.Path
        The run folder: ``<chapter>.ipynb``, ``results/`` and ``manifest.json`` as the run
        wrote them.

    Raises
    ------
    ValueError
        As :func:`extract_bundle`: the bundle is refused or does not hold ``chapter``.
    """
    with tempfile.TemporaryDirectory(prefix="synthtrust-bundle-") as tmp:
        yield extract_bundle(path, tmp, [chapter])[chapter]
