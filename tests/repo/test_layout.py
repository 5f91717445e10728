"""The repository's house rules that a reviewer would otherwise check by hand: generic checks
in _validation, a test file per module, and nothing that points outside the repository. How
long a module is, is guidance (CONTRIBUTING.md: one concept a module), not a rule here."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _repo import ROOT

#: References to the development machine or to notes that are not part of the repository.
#: Written so that this file does not match itself (``[/]`` is ``/``, ``[.]`` is ``.``).
FOREIGN = re.compile(r"[.][.]/shared|[/]work[/]|REFERENCE[.]md|DESIGN[.]md|[Ss]ession [0-9]")


def _tracked_files() -> list[Path]:
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_nothing_points_outside_the_repository():
    hits = []
    for path in _tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary data
        for number, line in enumerate(text.splitlines(), 1):
            if FOREIGN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}")
    assert hits == []


def test_the_pattern_catches_what_it_should():
    # Split literals, so that the repository-wide grep does not find them here.
    dots, machine, notes, log = "..", "/wo", "REFERENCE", "in session"
    for text in (dots + "/shared/papers", machine + "rk/main/lib", notes + ".md", log + " 3"):
        assert FOREIGN.search(text), text
    assert not FOREIGN.search("the PrivacyLedger records each session of noise")


# ------------------------------------------------------------------------- the tests' own layout
#: Folders of tests/ that do not mirror a package of lib/synthtrust: the chapters' end-to-end
#: tests, the repository-level tests (layout, imports, README, site, wheel, cluster, privacy gate,
#: estimator vocabulary) and the test data.
NON_PACKAGE_FOLDERS = {"chapters", "repo", "fixtures"}


def _modules(package: Path) -> set[str]:
    """Names a test file of ``package`` may be named after: its modules (a leading underscore
    dropped, ``_torch_tables.py`` -> ``torch_tables``) and its sub-packages."""
    names = {p.stem.lstrip("_") for p in package.glob("*.py") if p.name != "__init__.py"}
    return names | {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}


def _names_a_module(name: str, folder: str, modules: set[str]) -> bool:
    """``test_<mod>.py``; ``test_<folder>_<mod>.py`` when ``test_<mod>.py`` is taken elsewhere
    (file names must be unique across tests/, e.g. tests/privacy/test_privacy_pate.py next to
    tests/synthesizers/test_pate.py); ``test_<mod>_<topic>.py`` for a further file on one module
    (e.g. tests/synthesizers/test_aim_fast_paths.py, tests/test_cli_audit.py)."""
    if folder and name.startswith(folder + "_") and name[len(folder) + 1 :] in modules:
        return True
    return any(name == m or name.startswith(m + "_") for m in modules)


def layout_problems(tests: Path, package: Path) -> list[str]:
    """What breaks the rule that tests/ mirrors lib/synthtrust: ``tests/X/test_Y.py`` tests
    ``lib/synthtrust/X/Y.py`` (``tests/test_Y.py`` a top-level module), file names are unique
    (pytest's "prepend" import mode, no ``__init__.py`` in tests/) and no helper module shadows
    an importable package."""
    problems = []
    files = sorted(p for p in tests.rglob("*.py") if "__pycache__" not in p.parts)
    seen: dict[str, Path] = {}
    for path in files:
        rel = path.relative_to(tests)
        if rel.parts[0] == "fixtures":
            continue
        if path.name == "__init__.py":
            problems.append(f"{rel}: no __init__.py in tests/ (prepend import mode)")
        if path.name != "conftest.py":
            if path.name in seen:
                problems.append(f"{rel}: same file name as {seen[path.name]}")
            seen[path.name] = rel
        if not path.name.startswith("test_"):
            continue
        folders = rel.parts[:-1]
        if folders and folders[0] in NON_PACKAGE_FOLDERS:
            continue
        mirror = package.joinpath(*folders)
        if not (mirror / "__init__.py").is_file():
            problems.append(f"{rel}: no package lib/synthtrust/{'/'.join(folders)}")
            continue
        folder = folders[-1] if folders else ""
        if not _names_a_module(path.stem[len("test_") :], folder, _modules(mirror)):
            problems.append(f"{rel}: names no module of {mirror.relative_to(package.parent)}")
    return problems


def _importable_elsewhere(name: str, tests: Path) -> bool:
    """Whether ``import name`` finds something outside tests/ (a package the helper shadows)."""
    import importlib.machinery
    import sys

    if name in sys.builtin_module_names:
        return True
    path = [p for p in sys.path if p and not Path(p).resolve().is_relative_to(tests.resolve())]
    return importlib.machinery.PathFinder.find_spec(name, path) is not None


def missing_test_files(tests: Path, package: Path) -> list[str]:
    """The modules of ``package`` without a test file of their own: ``X/Y.py`` (a leading
    underscore dropped) wants ``tests/X/test_Y.py``, ``test_Y_<topic>.py`` or, when that name
    is taken elsewhere, ``test_<folder>_Y.py``. Package ``__init__.py`` and ``__main__.py``
    files are tested through their modules (``python -m synthtrust.cli`` by the CLI tests)."""
    missing = []
    for path in sorted(package.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):  # tested through their package
            continue
        folders = path.relative_to(package).parts[:-1]
        stem = path.stem.lstrip("_")
        names = [stem] + ([f"{folders[-1]}_{stem}"] if folders else [])
        here = tests.joinpath(*folders)
        if not any(
            (here / f"test_{n}.py").is_file() or any(here.glob(f"test_{n}_*.py")) for n in names
        ):
            missing.append(path.relative_to(package.parent).as_posix())
    return missing


def test_every_module_has_its_test_file():
    assert missing_test_files(ROOT / "tests", ROOT / "lib" / "synthtrust") == []


def test_the_missing_test_file_rule_sees_a_module_without_one(tmp_path):
    package, tests = tmp_path / "lib" / "synthtrust", tmp_path / "tests"
    for rel in ("__init__.py", "a.py", "_b.py", "c.py", "sub/__init__.py", "sub/d.py"):
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).touch()
    for rel in ("test_a.py", "test_b_topic.py", "sub/test_sub_d.py"):
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).touch()
    assert missing_test_files(tests, package) == ["synthtrust/c.py"]


def test_tests_mirror_the_package():
    tests, package = ROOT / "tests", ROOT / "lib" / "synthtrust"
    assert layout_problems(tests, package) == []
    helpers = [
        p.stem
        for p in tests.rglob("*.py")
        if "fixtures" not in p.relative_to(tests).parts and p.name != "conftest.py"
    ]
    assert len(helpers) > 100
    assert [name for name in helpers if _importable_elsewhere(name, tests)] == []


def test_the_layout_rule_catches_a_wrong_layout(tmp_path):
    package = tmp_path / "lib" / "synthtrust"
    for name in ("__init__.py", "cli.py", "privacy/__init__.py", "privacy/pate.py"):
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).touch()
    tests = tmp_path / "tests"
    for name in ("test_cli.py", "privacy/test_privacy_pate.py", "repo/test_anything.py"):
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).touch()
    assert layout_problems(tests, package) == []
    for name in (
        "test_nothing.py",
        "privacy/test_ledger.py",
        "audit/test_card.py",
        "x/test_cli.py",
    ):
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).touch()
    assert layout_problems(tests, package) == [
        "audit/test_card.py: no package lib/synthtrust/audit",
        "privacy/test_ledger.py: names no module of synthtrust/privacy",
        "test_nothing.py: names no module of synthtrust",
        "x/test_cli.py: same file name as test_cli.py",
        "x/test_cli.py: no package lib/synthtrust/x",
    ]


def private_checks(package: Path) -> list[str]:
    """``module:function`` (or ``module:Class.method``) of every function whose name starts
    with ``_check`` outside ``_validation.py``, at module level or in a class."""
    import ast

    found = []
    for path in sorted(package.rglob("*.py")):
        if path.name == "_validation.py":
            continue
        module = path.relative_to(package).as_posix()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            members = (
                [(f"{node.name}.", m) for m in node.body]
                if isinstance(node, ast.ClassDef)
                else [("", node)]
            )
            found += [
                f"{module}:{owner}{m.name}"
                for owner, m in members
                if isinstance(m, ast.FunctionDef) and m.name.startswith("_check")
            ]
    return found


def test_no_two_modules_define_the_same_private_check():
    found = private_checks(ROOT / "lib" / "synthtrust")
    assert len(found) > 5  # the walk sees the modules' own checks
    functions = [name.split(":")[1] for name in found if "." not in name.split(":")[1]]
    assert len(functions) == len(set(functions)), "two modules define the same private check"


def test_the_private_check_finder_sees_functions_and_methods(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "_validation.py").write_text("def _check_a(): pass\n")
    (tmp_path / "sub" / "m.py").write_text(
        "def _check_b(): pass\ndef check_c(): pass\n"
        "class K:\n    def _check_d(self): pass\n    def _fit(self): pass\n"
    )
    assert private_checks(tmp_path) == ["sub/m.py:_check_b", "sub/m.py:K._check_d"]


# ------------------------------------------------------------- HTML only in the presentation
#: An HTML element in a string: what building HTML in Python source looks like.
HTML_TAG = re.compile(
    r"<(?:p|div|span|table|thead|tbody|tr|td|th|ul|ol|li|h[1-6]|a|script|style|details|"
    r"summary|pre|code|figure|img|br|section|html|body|head)[\s>/]",
    re.I,
)
#: pandas' and Altair's HTML writers.
HTML_WRITERS = frozenset({"to_html", "style"})


def html_builders(package: Path) -> list[str]:
    """``module:line`` for each string (docstrings aside) holding an HTML element, and each use
    of ``.to_html`` or ``.style``, in the modules of ``package`` outside ``presentation/``."""
    import ast

    hits = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent)
        if "presentation" in rel.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if (text and id(node) not in docstrings and HTML_TAG.search(node.value)) or (
                isinstance(node, ast.Attribute) and node.attr in HTML_WRITERS
            ):
                hits.append(f"{rel.as_posix()}:{node.lineno}")
    return hits


def test_no_module_outside_the_presentation_builds_html():
    assert html_builders(ROOT / "lib" / "synthtrust") == []


def test_the_html_rule_sees_a_tag_an_f_string_and_a_styler(tmp_path):
    package = tmp_path / "synthtrust"
    (package / "presentation").mkdir(parents=True)
    (package / "presentation" / "page.py").write_text('PAGE = "<p>allowed here</p>"\n')
    (package / "a.py").write_text('"""A docstring may show <p>markup</p>."""\nX = "<div>"\n')
    (package / "b.py").write_text('def f(x):\n    return f"<td class={x}>"\n')
    (package / "c.py").write_text("def g(frame):\n    return frame.style.format()\n")
    (package / "d.py").write_text('LESS = "a < b and p > q"\nREGEX = r"<script[^>]"\n')
    assert html_builders(package) == ["synthtrust/a.py:2", "synthtrust/b.py:2", "synthtrust/c.py:2"]
