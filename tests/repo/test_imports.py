"""The package's import graph, read with the standard library's ``ast``: no module imports
another that (directly or through others) imports it back — counting imports inside functions
too, since a lazy import is still a dependency."""

from __future__ import annotations

import ast
from pathlib import Path

from _repo import ROOT

PACKAGE = ROOT / "lib" / "synthtrust"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _targets(module: str, path: Path, node) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    if node.level:
        base = package
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        target = f"{base}.{node.module}" if node.module else base
    else:
        target = node.module
    return [target] + [f"{target}.{a.name}" for a in node.names]


def import_graph() -> dict[str, set[str]]:
    """module -> the package modules it imports (anywhere in its source)."""
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, path, node):
                    while target not in modules and "." in target:
                        target = target.rpartition(".")[0]
                    if target in modules and target != module:
                        deps.add(target)
        graph[module] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_and_relative_imports():
    graph = import_graph()
    # report imports fidelity lazily, inside a function; synthesizers/__init__ relatively
    assert "synthtrust.fidelity" in graph["synthtrust.presentation.report"]
    assert "synthtrust.synthesizers.gan" in graph["synthtrust.synthesizers"]


def test_no_import_cycle_in_the_package():
    assert cycles(import_graph()) == []


# ------------------------------------------------------------ private names stay in their module
def private_imports(module: str, path: Path, source: str, modules) -> list[str]:
    """``module: name from target`` for each private name (``_x``, not a module) that ``source``
    imports from another module of the package; what several modules share is public in a
    private module (scikit-learn's ``_base.py`` pattern), never a ``_name`` reached across."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        target = _targets(module, path, node)[0]
        if target not in modules:
            continue
        for alias in node.names:
            private = alias.name.startswith("_") and not alias.name.startswith("__")
            if private and f"{target}.{alias.name}" not in modules:
                found.append(f"{module}: {alias.name} from {target}")
    return found


def test_the_private_import_finder_sees_relative_and_absolute_imports():
    modules = {"synthtrust.a", "synthtrust.a.b", "synthtrust.a._c", "synthtrust.d"}
    path = PACKAGE / "a" / "b.py"
    source = (
        "from ._c import shared, _hidden\n"
        "from synthtrust.d import _x as _x, y\n"
        "from . import _c\n"  # a private module, not a private name
        "import numpy as _np\n"
    )
    assert private_imports("synthtrust.a.b", path, source, modules) == [
        "synthtrust.a.b: _hidden from synthtrust.a._c",
        "synthtrust.a.b: _x from synthtrust.d",
    ]


def test_no_module_imports_a_private_name_from_another():
    modules = _modules()
    found = [
        hit
        for module, path in modules.items()
        for hit in private_imports(module, path, path.read_text(encoding="utf-8"), modules)
    ]
    assert found == []
