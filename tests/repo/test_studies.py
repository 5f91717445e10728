"""``lib/synthtrust/studies`` holds one package per chapter, and a chapter uses only its own.

A chapter notebook (``chapters/<name>.md``, its exercises page) and the modules of its study
package import the library and ``synthtrust.studies.<name>``, never another chapter's package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from _repo import ROOT

STUDIES = ROOT / "lib" / "synthtrust" / "studies"
#: ``import synthtrust.studies.X``, ``from synthtrust.studies.X... import``,
#: ``from synthtrust.studies import X`` (also in a notebook's code).
_NOTEBOOK_IMPORT = re.compile(
    r"^\s*(?:from\s+synthtrust\.studies\.(\w+)|import\s+synthtrust\.studies\.(\w+)"
    r"|from\s+synthtrust\.studies\s+import\s+([\w ,()]+))",
    re.M,
)


def chapters() -> list[str]:
    return sorted(p.stem for p in (ROOT / "chapters").glob("*.md"))


def studied_packages(source: str) -> set[str]:
    """The chapter packages of ``synthtrust.studies`` that ``source`` (Python or a notebook's
    Markdown) imports."""
    found = set()
    for m in _NOTEBOOK_IMPORT.finditer(source):
        if m.group(3):
            found |= {n.split(" as ")[0].strip(" ()") for n in m.group(3).split(",")} - {""}
        else:
            found.add(m.group(1) or m.group(2))
    return found


def _module_imports(path: Path) -> set[str]:
    """Chapter packages imported by a module of the package (absolute or relative)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = path.relative_to(STUDIES.parent.parent).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module.split(".") if node.module else []
            if node.level:
                base = list(package[: len(package) - node.level + 1]) + base
            names = [".".join(base + [a.name]) for a in node.names] + [".".join(base)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["synthtrust", "studies"] and len(parts) > 2:
                found.add(parts[2])
    return found


def test_studies_holds_one_package_per_chapter_and_nothing_else():
    entries = {p.name for p in STUDIES.iterdir() if p.name != "__pycache__"}
    assert entries == {"__init__.py", *chapters()}
    assert all((STUDIES / name / "__init__.py").is_file() for name in chapters())


def test_a_chapter_imports_only_its_own_study_package():
    problems = []
    for name in chapters():
        sources = [ROOT / "chapters" / f"{name}.md", ROOT / "exercises" / f"{name}.md"]
        for path in sources:
            if path.is_file():
                other = studied_packages(path.read_text(encoding="utf-8")) - {name}
                problems += [f"{path.relative_to(ROOT)} imports studies.{o}" for o in other]
        for path in sorted((STUDIES / name).rglob("*.py")):
            other = _module_imports(path) - {name}
            problems += [f"{path.relative_to(ROOT)} imports studies.{o}" for o in other]
    assert problems == []


def test_the_import_finder_sees_every_form(tmp_path):
    notebook = (
        "```{code-cell}\nfrom synthtrust.studies.auditing import audits as au\n"
        "import synthtrust.studies.dp_auditing.promises\n"
        "from synthtrust.studies import (hypothesis_validity, feature_importance as fi)\n```\n"
        "Prose naming synthtrust.studies.evaluation_protocols is not an import.\n"
    )
    assert studied_packages(notebook) == {
        "auditing",
        "dp_auditing",
        "hypothesis_validity",
        "feature_importance",
    }
    module = STUDIES / "auditing" / "power.py"
    assert "auditing" in _module_imports(module)
    assert _module_imports(STUDIES / "__init__.py") == set()
