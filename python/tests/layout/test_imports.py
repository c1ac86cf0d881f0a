"""The package's modules import each other without a cycle, counting the imports inside functions (which
would otherwise hide one: an import deferred to call time still makes the two modules depend on each
other). Read from the source with ``ast``, so it needs neither Spark nor the installed package's extras."""

from __future__ import annotations

import ast
from pathlib import Path

import dptext

PACKAGE = Path(dptext.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in its body (``from dptext import x`` names a
    module when x is one, else the package)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
        else:
            continue
        for name in names:
            if name in modules:
                found.add(name)
                break
    return found


def graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(files)
    # The package itself (dptext/__init__.py) re-exports everything: leave it out, as its importers only
    # reach it through their own module names.
    return {m: _imports(p, modules) - {m, "dptext"} for m, p in files.items() if m != "dptext"}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of the graph, as its modules in order, or None (depth-first search with three colours)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return [*stack[stack.index(n) :], n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        state[m] = 2
        stack.pop()
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_search_finds_a_cycle_through_an_import_inside_a_function():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_no_module_of_the_package_imports_itself_back():
    edges = graph()
    assert "dptext.session" in edges and "dptext.engine.spark" in edges, sorted(edges)
    assert cycle(edges) is None, " -> ".join(cycle(edges) or [])
