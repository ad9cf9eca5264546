"""The package's imports run one way: no circle, and each layer imports only the layers below it.

Read off the source with `ast`: every import at module level or under `if TYPE_CHECKING:` (an
import inside a function is a choice made at run time, for an optional dependency or a cheap start,
and is left out). The layers, bottom first: the runtime's MCP client; the typed wrappers' base; the
toolset core; the features; the toolset that composes them and the package's `toolset()`; then the
generator's stages, and the CLI on top.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import REPO

ROOT = REPO / "generator"
PACKAGE = ROOT / "mcpvend"
RUNTIME = "mcpvend.runtime"
FEATURES = ("strict", "textformats", "code", "frameworks", "routing", "audit", "semantic")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _loaded_at_import(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports at module level, in `if TYPE_CHECKING:` blocks, and in other top-level blocks (try, if)."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.If | ast.Try | ast.With):
            pending += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
            for handler in getattr(node, "handlers", []):
                pending += handler.body


@functools.cache  # read once per module: every test here asks the same question of the same files
def graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a package imported for one of its modules: that module)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    edges: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _loaded_at_import(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = package.split(".")
                if node.level:
                    base = base[: len(base) - node.level + 1]
                    prefix = ".".join([*base, node.module] if node.module else base)
                else:
                    prefix = node.module or ""
                targets = [
                    f"{prefix}.{alias.name}" if f"{prefix}.{alias.name}" in paths else prefix for alias in node.names
                ]
            edges[name] |= {t for t in targets if t in paths and t != name}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_module_of_the_package_imports_itself_back() -> None:
    assert circles(graph()) == []


def test_the_finder_would_see_a_circle() -> None:
    """The walk above can fail: two modules importing each other, one of them only for type checkers."""
    edges = {"a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert circles(edges) == [["a", "b"]]


def _layer(module: str) -> str:
    if not module.startswith(RUNTIME):
        return "generator"
    rest = module[len(RUNTIME) + 1 :].split(".")
    if rest == [""] or rest[0] == "":
        return "runtime-root"
    if rest[0] in FEATURES:
        return "feature"
    return {"client": "client", "core": "core", "wrappers": "wrappers"}.get(rest[0], "composition")


# What each layer may import of the package (by layer): the arrows point down only.
ALLOWED = {
    "runtime-root": set(),
    "client": {"client", "runtime-root"},
    "wrappers": {"wrappers", "client", "runtime-root"},
    "core": {"core", "wrappers", "client", "runtime-root"},
    "feature": {"feature", "core", "client", "runtime-root"},
    "composition": {"composition", "feature", "core", "client", "wrappers", "runtime-root"},
    "generator": {"generator", "composition", "feature", "core", "client", "wrappers", "runtime-root"},
}


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        if _layer(module) == layer
        for target in targets
        if _layer(target) not in ALLOWED[layer]
    )
    assert wrong == []


def test_a_feature_sees_a_toolset_only_through_the_core_seams() -> None:
    """A feature never imports the toolset that composes it, not even for its annotations."""
    edges = graph()
    composers = {f"{RUNTIME}.toolset", f"{RUNTIME}.package"}
    assert sorted(m for m, targets in edges.items() if _layer(m) == "feature" and targets & composers) == []
