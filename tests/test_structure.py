"""The shape of the source tree: no runtime import cycle between the top-level packages of
watchpost, no source file (migrations aside) longer than 400 lines, no HTTP in the
domains (only the modules that serve HTTP import fastapi, starlette or watchpost.http), and
every module named in docs/architecture.md.

Imports inside `if TYPE_CHECKING:` blocks do not run and are not counted.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import watchpost

SOURCE = Path(watchpost.__file__).parent
MAX_LINES = 400
ARCHITECTURE = SOURCE.parents[1] / "docs" / "architecture.md"


HTTP_MODULES = ("fastapi", "starlette", "watchpost.http")
SERVES_HTTP = {
    "http": "the HTTP layer itself",
    "app.py": "builds the FastAPI app",
    "routes.py": "mounts the routers",
    "cli.py": "starts the HTTP server",
    "public_pages": "the public status pages, served as HTML",
    "console": "the operator console, served as HTML",
    "ingestion/state.py": "the ingestion endpoints' dependencies (the source token)",
    "ingestion/otlp_export.py": "the OTLP endpoints' work on the request (its body)",
    "logsearch/tail.py": "the live tail's Server-Sent Events response",
    "subscriptions/limits.py": "sign-up rate limits keyed by the request's address",
    "subscriptions/pages.py": "the sign-up pages' HTML responses",
    "subscriptions/visitor.py": "the public page's access checks on the request",
}
"""Besides every *endpoint*.py (the routes): the modules (or packages) that serve HTTP, and
why. Every other module is a domain's: the API and the console call it alike."""


def _modules(source: Path = SOURCE) -> Iterator[Path]:
    for path in sorted(source.rglob("*.py")):
        if "migrations" not in path.relative_to(source).parts:
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


def _http_importers(source: Path) -> dict[str, list[str]]:
    """Modules outside SERVES_HTTP and the endpoints that import HTTP, with what they import."""
    found: dict[str, list[str]] = {}
    for path in _modules(source):
        relative = path.relative_to(source)
        if "endpoint" in path.name or {relative.parts[0], relative.as_posix()} & SERVES_HTTP.keys():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        http = [m for m in _imported(tree) if m.startswith(HTTP_MODULES)]
        if http:
            found[relative.as_posix()] = http
    return found


def test_no_domain_module_imports_http() -> None:
    assert _http_importers(SOURCE) == {}


def test_every_http_exception_exists() -> None:
    assert [name for name in SERVES_HTTP if not (SOURCE / name).exists()] == []


def test_the_http_import_finder_finds_a_service_importing_fastapi(tmp_path: Path) -> None:
    (tmp_path / "monitors").mkdir()
    for name in ("service.py", "endpoints.py", "lists.py"):
        (tmp_path / "monitors" / name).write_text("from fastapi import Request\n")
    (tmp_path / "monitors" / "lists.py").write_text("from watchpost.listing import Page\n")
    (tmp_path / "cli.py").write_text("def serve() -> None:\n    import starlette\n")
    (tmp_path / "sources.py").write_text("import starlette.types\n")
    assert _http_importers(tmp_path) == {
        "monitors/service.py": ["fastapi"],
        "sources.py": ["starlette.types"],
    }


def _folder_block(tree: list[str], folders: tuple[str, ...]) -> str | None:
    """The lines of a folder in the Folders tree: from its `name/` line to the next line
    indented no deeper (the whole tree for src/watchpost itself); None when not there."""
    start, end, indent = 0, len(tree), -1
    for folder in folders:
        for i in range(start + 1 if indent >= 0 else 0, end):
            line = tree[i]
            depth = len(line) - len(line.lstrip())
            if depth > indent and re.match(rf"{re.escape(folder)}/(\s|$)", line.lstrip()):
                start, indent = i, depth
                end = next(
                    (
                        j
                        for j in range(i + 1, end)
                        if tree[j].strip() and len(tree[j]) - len(tree[j].lstrip()) <= depth
                    ),
                    end,
                )
                break
        else:
            return None
    return "\n".join(tree[start:end])


def _unnamed(source: Path, architecture: str) -> list[str]:
    """Modules the Folders tree does not name: each file by its name within its package's
    folder (a package's __init__.py by the folder's line; migration versions by the word `versions`)."""
    tree = architecture.split("## Folders", 1)[1].split("```")[1].splitlines()
    unnamed = []
    for path in sorted(source.rglob("*.py")):
        relative = path.relative_to(source)
        folders = relative.parts[:-1]
        if "versions" in folders:
            folders, name = folders[: folders.index("versions")], "versions"
        else:
            name = "" if path.name == "__init__.py" else path.name
        block = _folder_block(tree, folders)
        if block is None or (name and not re.search(rf"(?<![\w.]){re.escape(name)}", block)):
            unnamed.append(relative.as_posix())
    return unnamed


def test_every_module_is_named_in_the_architecture() -> None:
    assert _unnamed(SOURCE, ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_the_architecture_check_finds_an_unnamed_module(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    for name in ("__init__.py", "store.py", "sql.py", "app.py"):
        (tmp_path / ("logs" if name != "app.py" else "") / name).write_text("")
    (tmp_path / "monitors").mkdir()
    (tmp_path / "monitors" / "__init__.py").write_text("")
    doc = (
        "## Folders\n\n```\nsrc/watchpost/\n  app.py  the app\n  logs/   logs\n"
        "    store.py  the store\n  db/\n    sql.py  not logs'\n```\n"
    )
    assert _unnamed(tmp_path, doc) == ["logs/sql.py", "monitors/__init__.py"]
