"""The package's modules import each other without a cycle.

A cycle (``aid`` imported ``cli`` for ``version`` while ``cli`` imported ``aid``) works only while
every import in it sits inside a function, and breaks the day one moves to the top of a file; it
also means neither module can be read, tested or replaced without the other.  So the graph is built
from the source with ``ast`` -- top-level and function-level imports alike, since a deferred
import is still a dependency -- and must be acyclic.  Imports under ``if TYPE_CHECKING:`` are left
out: they never run, and they are how two modules name each other's types without a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

PACKAGE = "interpreter"
PACKAGE_DIR = Path(__file__).resolve().parent.parent / PACKAGE


def module_names(package_dir: Path, package: str) -> dict[str, Path]:
    """Every module of the package (subpackages included) by dotted name: ``interpreter.aid``."""
    modules = {}
    for path in package_dir.rglob("*.py"):
        parts = [package, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _base_of(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module a ``from X import ...`` names, relative levels resolved."""
    if not node.level:
        return node.module or ""
    anchor = importer.split(".")
    if not is_package:
        anchor.pop()  # a module's `.` is its package; a package's `.` is itself
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _is_type_checking_guard(node: ast.If) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``: a block that only type checkers read."""
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: anywhere in the tree but a TYPE_CHECKING block's body."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking_guard(node):
            pending.extend(node.orelse)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return found


def imported_modules(source: str, importer: str, is_package: bool, known: Iterable[str]) -> set[str]:
    """The package's modules that ``source`` imports anywhere in its body (not only at the top).

    ``from pkg import name`` depends on ``pkg.name`` when that is a module, else on ``pkg`` itself
    (a name its ``__init__`` defines).  Modules outside the package are left out.
    """
    known = set(known)
    found = set()
    for node in runtime_imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _base_of(node, importer, is_package)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
    return {name for name in found if name in known and name != importer}


def import_graph(sources: Mapping[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module name -> the package modules it imports, from {name: (source text, is a package)}."""
    return {name: imported_modules(text, name, is_package, sources) for name, (text, is_package) in sources.items()}


def find_cycle(graph: Mapping[str, set[str]]) -> list[str]:
    """One import cycle as a closed path ``[a, b, ..., a]``, or ``[]`` when the graph is acyclic.

    A depth-first search with an explicit stack (no recursion): a node met again while it is
    still on the current path closes a cycle.
    """
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        on_path = {start}
        pending = [iter(sorted(graph[start]))]
        while pending:
            following = next(pending[-1], None)
            if following is None:
                finished = path.pop()
                done.add(finished)
                on_path.discard(finished)
                pending.pop()
                continue
            if following in on_path:
                return [*path[path.index(following):], following]
            if following not in done:
                path.append(following)
                on_path.add(following)
                pending.append(iter(sorted(graph.get(following, ()))))
    return []


def package_graph() -> dict[str, set[str]]:
    modules = module_names(PACKAGE_DIR, PACKAGE)
    return import_graph({
        name: (path.read_text(encoding="utf-8"), path.name == "__init__.py") for name, path in modules.items()
    })


def test_the_package_has_no_import_cycle():
    graph = package_graph()
    # the scan sees the package and its edges: the commands import the API, the loader the engine's package
    assert "interpreter.api" in graph["interpreter.cli_commands"]
    assert "interpreter.engine" in graph
    assert find_cycle(graph) == []


def test_a_cyclic_pair_is_found_through_a_function_level_import():
    # a imports b at the top; b imports a only inside a function, relatively: still a cycle
    sources = {
        "pkg": ("", True),
        "pkg.a": ("from pkg import b\n", False),
        "pkg.b": ("def later():\n    from .a import helper\n    return helper\n", False),
        "pkg.c": ("import pkg.a\n", False),
        "pkg.d": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import x\n", False),
    }
    graph = import_graph(sources)
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg.c": {"pkg.a"}, "pkg.d": set()}
    assert find_cycle(graph) == ["pkg.a", "pkg.b", "pkg.a"]


def test_imports_without_a_cycle_pass_and_names_from_the_package_point_at_its_init():
    sources = {
        "pkg": ("from .b import thing\n", True),
        "pkg.a": ("from . import thing\nfrom .b import other\nimport json\n", False),
        "pkg.b": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import T\nthing = other = 1\n", False),
        "pkg.sub": ("", True),
        "pkg.sub.c": ("from .. import a\nfrom ..sub import d\n", False),
        "pkg.sub.d": ("", False),
    }
    graph = import_graph(sources)
    # `from . import thing` in pkg.a: thing is no module, so pkg (its __init__) is what runs;
    # pkg.b names pkg.a for type checkers only, so a -> b is no cycle
    assert graph == {
        "pkg": {"pkg.b"},
        "pkg.a": {"pkg", "pkg.b"},
        "pkg.b": set(),
        "pkg.sub": set(),
        "pkg.sub.c": {"pkg.a", "pkg.sub.d"},
        "pkg.sub.d": set(),
    }
    assert find_cycle(graph) == []
