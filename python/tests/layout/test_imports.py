"""The package's modules import each other without a cycle, counting the imports inside functions (which
would otherwise hide one: an import deferred to call time still makes the two modules depend on each
other). Read from the source tree (python/src/dptext) with ``ast``: it imports nothing of the package, so
it needs neither Spark, nor the JVM, nor the installed package."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "dptext"


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The dotted name of each alias of an import statement in ``module``: ``import a.b, c`` gives a.b and
    c; ``from a import x, y`` gives a.x and a.y (each alias on its own, whether it is a module or a name
    defined in a); a relative import is resolved against the package of ``module`` (``module`` itself when
    it is a package's ``__init__``)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join([*package[: len(package) - node.level + 1], *([base] if base else [])])
    return [f"{base}.{alias.name}" if base else alias.name for alias in node.names]


def _imports(path: Path, module: str, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports anywhere in its body: for each alias, the module it
    names, else the nearest module enclosing it (``from dptext.errors import DpTextError``: dptext.errors;
    ``from dptext import a, b``: dptext.a and dptext.b when they are modules)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for name in _imported(node, module, path.name == "__init__.py"):
                while name and name not in modules:  # a name defined in a module, or outside the package
                    name = name.rpartition(".")[0]
                if name:
                    found.add(name)
    return found


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """The import arrows between the modules of ``package`` (a source folder), by module name."""
    files = {_module_name(p, package): p for p in package.rglob("*.py")}
    modules = set(files)
    top = package.name
    # The package itself (dptext/__init__.py) re-exports everything: leave it out, as its importers only
    # reach it through their own module names.
    return {m: _imports(p, m, modules) - {m, top} for m, p in files.items() if m != top}


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


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in {"__init__.py": "", **files}.items():
        (root / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "pkg" / name).write_text(text)
    return root / "pkg"


def test_every_name_of_an_import_is_an_arrow(tmp_path):
    package = _package(
        tmp_path,
        {
            "a.py": "import pkg.b, pkg.c\n",
            "b.py": "from pkg import c, d\nfrom pkg.e import VALUE, f\n",
            "c.py": "",
            "d.py": "",
            "e/__init__.py": "VALUE = 1\nfrom . import f, g\n",
            "e/f.py": "from .. import c, d\nfrom .g import thing\n",
            "e/g.py": "import os, pkg.c, json\nthing = 1\n",
        },
    )
    assert graph(package) == {
        "pkg.a": {"pkg.b", "pkg.c"},
        "pkg.b": {"pkg.c", "pkg.d", "pkg.e", "pkg.e.f"},
        "pkg.c": set(),
        "pkg.d": set(),
        "pkg.e": {"pkg.e.f", "pkg.e.g"},
        "pkg.e.f": {"pkg.c", "pkg.d", "pkg.e.g"},
        "pkg.e.g": {"pkg.c"},
    }


def test_a_cycle_through_the_second_name_of_an_import_is_caught(tmp_path):
    # b imports c; c imports b back, inside a function, as the second name of one statement. Reading
    # only the first module of ``from pkg import a, b`` (as this test once did) sees c -> a alone.
    package = _package(
        tmp_path,
        {"a.py": "", "b.py": "from pkg import c\n", "c.py": "def f():\n    from pkg import a, b\n"},
    )
    assert cycle(graph(package)) == ["pkg.b", "pkg.c", "pkg.b"]
    # The same through ``import pkg.a, pkg.b`` and through a relative ``from . import a, b``.
    for back in ("import pkg.a, pkg.b\n", "from . import a, b\n"):
        (package / "c.py").write_text(back)
        assert cycle(graph(package)) == ["pkg.b", "pkg.c", "pkg.b"], back


def test_no_module_of_the_package_imports_itself_back():
    edges = graph()
    assert "dptext.session" in edges and "dptext.engine.spark" in edges, sorted(edges)
    assert cycle(edges) is None, " -> ".join(cycle(edges) or [])
