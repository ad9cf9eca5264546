"""The vendored runtime's contract: what it may import, and which SDK names it may touch.

A generated package promises to run with `mcp` alone; the runtime is copied into it, so every
import of the runtime must be the standard library, `mcp`, or a distribution `mcp` itself
requires. Private SDK modules and attributes change without notice between releases: they may
appear in annotations (under TYPE_CHECKING) and nowhere else.
"""

from __future__ import annotations

import ast
import functools
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from conftest import REPO
from mcpvend.runtime import MCP_REQUIREMENT

RUNTIME = REPO / "generator" / "mcpvend" / "runtime"
MODULES = sorted(RUNTIME.rglob("*.py"))
IDS = [p.relative_to(RUNTIME).as_posix() for p in MODULES]
# module -> what it may import inside a function, for a feature the caller asked for.
OPTIONAL: dict[str, set[str]] = {
    # toolset(ranker="hybrid"), or a package generated with [search] semantic = true
    "semantic/minilm.py": {
        "numpy",
        "safetensors",
        "tokenizers",
        "threadpoolctl",
    },  # mcpvend_minilm: found, not imported
    "semantic/vectors.py": {"numpy"},
    "semantic/hybrid.py": {"numpy"},
    "code/sandbox.py": {"pydantic_monty"},  # toolset(mode="code")
}
# An adapter imports its framework at the top; the rest of the runtime (adapters.py) imports an adapter
# only inside the function that asks for it (test_adapters_are_imported_only_when_asked_for), and
# names the frameworks' types in annotations only.
FRAMEWORKS: dict[str, set[str]] = {
    "frameworks/pydantic_ai_toolset.py": {"pydantic_ai", "pydantic_core"},
    "frameworks/openai_agents_server.py": {"agents"},
    "frameworks/langchain_tools.py": {"langchain_core"},
    "frameworks/langchain_agent.py": {"langchain", "langchain_core"},
}


@functools.cache  # reading every installed distribution takes seconds; the answer is the same per run
def allowed() -> frozenset[str]:
    """Import names of the standard library, `mcp`, `mcp`'s own (non-extra) requirements here, and
    jsonschema's: its `referencing` registry is what keeps a validator from reading a `$ref`'s URL."""
    distributions = {"mcp"}
    for owner in ("mcp", "jsonschema"):
        for text in metadata.requires(owner) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                distributions.add(requirement.name.lower().replace("_", "-"))
    names = {
        module
        for module, owners in metadata.packages_distributions().items()
        if any(owner.lower().replace("_", "-") in distributions for owner in owners)
    }
    return frozenset(sys.stdlib_module_names) | names


def _type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports(tree: ast.Module) -> list[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import with (under TYPE_CHECKING?, inside a function?)."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool, bool]] = []

    def visit(node: ast.AST, typing_only: bool, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                found.append((child, typing_only, in_function))
            inner_function = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            visit(child, typing_only or (isinstance(child, ast.If) and _type_checking(child)), inner_function)

    visit(tree, False, False)
    return found


@pytest.mark.parametrize("path", MODULES, ids=IDS)
def test_the_runtime_imports_only_the_standard_library_and_mcp_with_what_it_requires(path: Path) -> None:
    permitted = allowed()
    assert {"mcp", "mcp_types", "pydantic", "anyio", "httpx2", "jsonschema"} <= permitted
    assert not {"black", "jinja2", "click", "datamodel_code_generator", "rich", "mcpvend"} & permitted
    frameworks = set().union(*FRAMEWORKS.values())
    assert not frameworks & permitted
    own = FRAMEWORKS.get(path.relative_to(RUNTIME).as_posix(), set())
    for node, typing_only, in_function in imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            continue  # the runtime's own modules
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        for name in names:
            top = name.split(".")[0]
            optional = in_function and top in OPTIONAL.get(path.relative_to(RUNTIME).as_posix(), set())
            annotation = typing_only and top in frameworks
            assert top in permitted or optional or top in own or annotation, f"{path.name}:{node.lineno} imports {name}"


# The one module of frameworks/ that the runtime imports at load time: ToolSet's base, whose methods import the rest.
ADAPTERS = RUNTIME / "frameworks" / "adapters.py"


def test_adapters_are_imported_only_when_asked_for() -> None:
    """`import generated` must not need any framework: only the method that builds an adapter imports it."""
    seen = 0
    for path in MODULES:
        if path.parent.name == "frameworks" and path != ADAPTERS:
            continue
        for node, typing_only, in_function in imports(ast.parse(path.read_text(encoding="utf-8"))):
            module = node.module or "" if isinstance(node, ast.ImportFrom) else ""
            if path == ADAPTERS:  # its own imports of the adapters: inside the methods
                loaded = not (in_function or typing_only) and module not in ("__future__", "typing")
                assert not loaded, f"adapters.py:{node.lineno} imports {module} at load time"
                seen += in_function and f"frameworks/{module}.py" in FRAMEWORKS
            elif module.startswith(("frameworks", "..frameworks")) and module != "frameworks.adapters":
                seen += 1
                assert in_function or typing_only, f"{path.name}:{node.lineno} imports .{module} at load time"
    assert seen >= len(FRAMEWORKS)


# The standard library's regular-expression parser: the bounded-pattern check walks its tree, and Python
# offers no public one. Named here so that no other private module slips in beside it.
PRIVATE_STDLIB = {"patterns.py": {"re._parser", "re._constants"}}


@pytest.mark.parametrize("path", MODULES, ids=IDS)
def test_private_sdk_modules_and_names_appear_in_annotations_only(path: Path) -> None:
    for node, typing_only, _ in imports(ast.parse(path.read_text(encoding="utf-8"))):
        if typing_only or (isinstance(node, ast.ImportFrom) and node.level):
            continue
        modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        private = [m for m in modules if any(p.startswith("_") for p in m.split(".")) and m != "__future__"]
        private = [m for m in private if m not in PRIVATE_STDLIB.get(path.name, set())]
        if isinstance(node, ast.ImportFrom):
            private += [a.name for a in node.names if a.name.startswith("_")]
        assert not private, f"{path.name}:{node.lineno} imports private {private}"


def test_no_private_attribute_of_another_library_is_read_or_written() -> None:
    """`x._name` only where the runtime defines `_name` itself (`ClientSession._tool_output_schemas` was one)."""
    trees = {path.name: ast.parse(path.read_text(encoding="utf-8")) for path in MODULES}
    own: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                own.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _on_self(node):
                own.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                own.add(node.target.id)
    foreign = [
        f"{name}:{node.lineno} .{node.attr}"
        for name, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and node.attr not in own
    ]
    assert foreign == []


def _on_self(node: ast.Attribute) -> bool:
    return isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")


def test_mcp_is_pinned_to_the_minor_range_the_generated_package_names() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    (line,) = [line for line in text.splitlines() if line.strip().startswith('"mcp>=')]
    assert Requirement(line.split('"')[1]) == Requirement(MCP_REQUIREMENT)
    specifier = Requirement(MCP_REQUIREMENT).specifier
    assert metadata.version("mcp") in specifier  # the suite runs on what it promises
    lower, upper = sorted(specifier, key=lambda s: s.operator)  # "<" sorts before ">="
    assert (lower.operator, upper.operator) == ("<", ">=")
    assert lower.version.split(".")[:2] == [upper.version.split(".")[0], str(int(upper.version.split(".")[1]) + 1)]
    assert f"Needs `{MCP_REQUIREMENT}` at run time" in (REPO / "generated" / "__init__.py").read_text(encoding="utf-8")
