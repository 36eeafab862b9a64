"""The shape of the source tree: no runtime import cycle between the top-level packages of
watchpost, and no source file (migrations aside) longer than 400 lines.

Imports inside `if TYPE_CHECKING:` blocks do not run and are not counted.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import watchpost

SOURCE = Path(watchpost.__file__).parent
MAX_LINES = 400


def _modules() -> Iterator[Path]:
    for path in sorted(SOURCE.rglob("*.py")):
        if "migrations" not in path.relative_to(SOURCE).parts:
            yield path


def _package(path: Path) -> str:
    """The top-level package (or module) a file belongs to: `monitors`, `cli`, ..."""
    return path.relative_to(SOURCE).parts[0].removesuffix(".py")


def _imported(tree: ast.AST) -> Iterator[str]:
    """Modules a file imports at run time: absolute watchpost imports outside TYPE_CHECKING."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        yield from _imported(node)


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in _modules():
        source = _package(path)
        for module in _imported(ast.parse(path.read_text(encoding="utf-8"))):
            parts = module.split(".")
            if parts[0] == "watchpost" and len(parts) > 1 and parts[1] != source:
                graph.setdefault(source, set()).add(parts[1])
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while (member := stack.pop()) != node:
                component.append(member)
            component.append(node)
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_top_level_packages() -> None:
    assert _cycles(_package_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_source_file_over_the_line_limit() -> None:
    long = {
        str(path.relative_to(SOURCE)): lines
        for path in _modules()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}
