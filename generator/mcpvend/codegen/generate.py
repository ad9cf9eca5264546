"""`mcpvend generate`: lockfiles in, a typed Python package out, swapped in atomically.

Offline by construction: only lockfiles are read. The output carries `.mcpvend.json` (see
`state`), so that `generate --check` on an unchanged tree answers without generating anything.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from mcpvend.codegen import state
from mcpvend.codegen.render import black_format, render
from mcpvend.codegen.state import STATE
from mcpvend.codegen.vendor import vendored_runtime
from mcpvend.config import Config
from mcpvend.errors import MCPVendError
from mcpvend.lock import lockfile
from mcpvend.lock.agreement import refuse_mismatches
from mcpvend.lock.lockfile import Lockfile, as_served
from mcpvend.lock.schema_checks import hazard
from mcpvend.runtime import MCP_REQUIREMENT, PUBLIC
from mcpvend.runtime.client.files import read_text
from mcpvend.runtime.core.patterns import holds_unbounded

if TYPE_CHECKING:
    from mcpvend.codegen.models import Models
    from mcpvend.codegen.plan import ToolPlan

DO_NOT_EDIT = "# Do not edit: run `mcpvend generate`."
GITATTRIBUTES = ".gitattributes"
# Code hosts collapse these files in pull-request diffs; the lockfiles beside them are what to review.
DEFAULT_GITATTRIBUTES = (
    "# Written by mcpvend: generated files, collapsed in pull-request diffs.\n* linguist-generated=true\n"
)


@dataclass(frozen=True)
class Report:
    status: Literal["generated", "up to date", "stale"]
    output: Path
    servers: int
    tools: int
    stale: tuple[str, ...] = ()


def generate(config: Config, *, check: bool, full: bool = False) -> Report:
    """Write (or, with `check`, compare) the package for every configured server's lockfile.

    A server configured otherwise than its lockfile says is refused first (`SourceMismatch`), check or not.
    The hashes recorded in `.mcpvend.json` make the no-change path fast, but they are part of the
    output a pull request can edit: `full` trusts none of them and regenerates everything (CI).
    """
    paths = {server.name: lockfile.path_for(config.lockfiles, server.name) for server in config.select(())}
    texts = {name: lockfile.read_text(path) for name, path in paths.items()}
    # A config edited since `lock` would give a package that runs what the config no longer says.
    refuse_mismatches(config.servers, {name: document for name, text in texts.items() if (document := _json(text))})
    if os.path.lexists(config.output) and not config.output.is_dir():
        raise MCPVendError(f"{config.output}: the output is not a directory")
    if not check:  # imported here: the pre-commit path (--check, unchanged) never writes
        from mcpvend.codegen.outdir import check_writable

        check_writable(config.output)  # before the code generator runs, not after
    inputs = {name: state.fingerprint(config, name, paths[name], text) for name, text in texts.items()}
    key = state.config_key(config.path, config.lockfiles, {name: text.encode() for name, text in texts.items()})
    previous = None if full else state.read_state(config.output)
    # Writing, a record of another config is rewritten; checking, the state file is not compared.
    recorded = previous is not None and (check or previous.get("config") == key)
    if recorded and (counted := state.fresh_tools(config.output, previous, inputs)) is not None:
        # The lockfiles are byte for byte those the output was made from, and verified then: the
        # pre-commit path canonicalizes nothing (`--full`, which CI runs, trusts no record).
        return Report("up to date", config.output, len(texts), counted)
    locks = {name: lockfile.parse_for(name, paths[name], text) for name, text in texts.items()}
    for lock in locks.values():
        _refuse_hazards(lock)
    tools = sum(len(lock.tools) for lock in locks.values())
    files = build(config, locks, inputs, key, previous)
    if check:
        stale = tuple(state.differences(config.output, files))
        return Report("stale" if stale else "up to date", config.output, len(locks), tools, stale)
    from mcpvend.codegen.outdir import replace_tree

    replace_tree(config.output, files)
    return Report("generated", config.output, len(locks), tools)


def _json(text: str) -> dict[str, Any] | None:
    """A lockfile's JSON, unverified (that is `lockfile.parse`'s work, on the path that regenerates)."""
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return document if isinstance(document, dict) else None


def build(
    config: Config,
    locks: dict[str, Lockfile],
    inputs: dict[str, str],
    key: str,
    previous: dict[str, Any] | None = None,
) -> dict[str, str]:
    """Every file of the package, by path relative to the output directory.

    A server whose inputs match the `previous` state keeps its files from disk (each checked
    against its recorded hash), so one changed lockfile regenerates one server, not all; so does
    the vendored runtime when the toolchain is the same (formatting it takes over a second).
    """
    from mcpvend.codegen import naming
    from mcpvend.codegen.plan import comment_text

    runtime = state.reusable(config.output, previous, "_runtime/") if state.same_toolchain(previous) else None
    files: dict[str, str] = {
        "py.typed": "",
        GITATTRIBUTES: _gitattributes(config.output),
        **(runtime or vendored_runtime()),
    }
    packages = naming.subpackages(locks)
    summary = []
    for name, lock in locks.items():
        relative = os.path.relpath(lock.path, config.base_dir).replace(os.sep, "/")
        same_inputs = previous is not None and previous["servers"].get(name) == inputs[name]
        reused = state.reusable(config.output, previous, f"{packages[name]}/") if same_inputs else None
        if reused is not None:
            files.update(reused)
        else:
            header = f"# Generated by mcpvend from {comment_text(relative)}.\n{DO_NOT_EDIT}"
            try:
                server_files = _server_files(name, lock, relative, header, config.servers[name].rename, packages[name])
            except MCPVendError as exc:  # the code generator's own may run to many lines: the first says why
                raise MCPVendError(f"server '{name}': {str(exc).splitlines()[0]}") from None
            if config.semantic:
                from mcpvend.codegen.vectors import server_vectors
                from mcpvend.runtime.semantic.vectors import FILE as VECTORS

                recorded = config.output / packages[name] / VECTORS
                server_files[VECTORS] = server_vectors(
                    name, lock.tools, recorded, verify=previous is None, model=config.search_model
                )
            files.update({f"{packages[name]}/{path}": text for path, text in server_files.items()})
        summary.append({"name": name, "subpackage": packages[name], "tool_count": len(lock.tools)})
    header = "\n".join(
        ["# Generated by mcpvend from:"]
        + [f"#   {comment_text(os.path.relpath(lock.path, config.base_dir))}" for lock in locks.values()]
        + [DO_NOT_EDIT]
    )
    files["__init__.py"] = black_format(
        render(
            "package_init.py.jinja",
            header=header,
            servers=[{**s, "subpackage_literal": repr(s["subpackage"])} for s in summary],
            mcp_requirement=MCP_REQUIREMENT,
            runtime_imports=_runtime_imports(),
            public_names=[repr(name) for name in sorted(PUBLIC)],
            public_modules=[(repr(name), repr(module)) for name, module in sorted(PUBLIC.items())],
            search_model=repr(_search_model(config)),
        )
    )
    files[STATE] = state.render_state(inputs, files, sum(len(lock.tools) for lock in locks.values()), key)
    return files


def _search_model(config: Config) -> str | None:
    """`[search] model` as the package finds it at run time: relative to the package's own directory (so a
    checkout may move), or absolute where the two are on no common path."""
    if config.search_model is None:
        return None
    try:
        return os.path.relpath(config.search_model, config.output).replace(os.sep, "/")
    except ValueError:  # another drive (Windows)
        return config.search_model.as_posix()


def _runtime_imports() -> list[str]:
    """The package root's imports for type checkers: every public name, and `toolset`'s class, by module."""
    by_module: dict[str, list[str]] = {"package": ["PackageToolsets"]}
    for name, module in PUBLIC.items():
        by_module.setdefault(module, []).append(name)
    return [f"from ._runtime.{m} import {', '.join(sorted(names))}" for m, names in sorted(by_module.items())]


def _gitattributes(output: Path) -> str:
    """Ours, unless the output already has one: a user's own settings are kept."""
    try:
        return read_text(output / GITATTRIBUTES)
    except (OSError, UnicodeDecodeError):
        return DEFAULT_GITATTRIBUTES


def _server_files(
    name: str, lock: Lockfile, relative: str, header: str, renames: Mapping[str, str], subpackage: str
) -> dict[str, str]:
    # The code generator and formatter load only when something must be generated.
    from mcpvend.codegen import naming
    from mcpvend.codegen.models import StemsTaken, generate_models
    from mcpvend.codegen.plan import import_lines, model_imports, runtime_imports, tool_plans
    from mcpvend.codegen.stubs import server_stubs

    tools = lock.tools
    wire_names = [t["name"] for t in tools]
    unknown = sorted(set(renames) - set(wire_names))
    if unknown:
        raise MCPVendError(f"rename names tool {unknown[0]!r}, which {relative} does not have")
    methods = naming.method_names(wire_names, renames)
    taken: set[str] = set()
    while True:  # ends: each round refuses stems not refused before, and suffixed ones are not property names
        stems = naming.class_names(methods, taken)
        try:
            models = (
                generate_models([(stems[t["name"]], t) for t in tools], header + "\n") if tools else _no_models(header)
            )
        except StemsTaken as exc:
            taken |= exc.stems
            continue
        break
    plans = tool_plans(tools, methods, stems, models)
    wrappers = black_format(
        render(
            "tools.py.jinja",
            header=header,
            server=name,
            tools=plans,
            import_groups=import_lines(plans, models),
            model_imports=model_imports(plans, models),
            runtime_imports=runtime_imports(plans),
        )
    )
    _check_docstrings(wrappers, plans, tools)
    manifest = {
        "server": name,
        "lockfile": relative,
        "protocolVersion": lock.document["protocolVersion"],
        "serverCapabilities": lock.document["server"]["capabilities"],
        **(
            {"instructions": lock.document["server"]["instructions"]}
            if "instructions" in lock.document["server"]
            else {}
        ),
        "source": lock.document["source"],
        "clientCapabilities": lock.document.get("clientCapabilities", []),
        "tools": [
            {
                "method": plan.method,
                "input": plan.input_class,
                "output": plan.output_class,
                "tool": tool,
                **({"checked": True} if holds_unbounded(tool["inputSchema"]) else {}),
            }
            for plan, tool in zip(plans, tools, strict=True)
        ],
    }
    return {
        "__init__.py": black_format(render("server_init.py.jinja", header=header, server=name, tool_count=len(tools))),
        "models.py": black_format(models.source),
        "tools.py": wrappers,
        "manifest.json": json.dumps(as_served(manifest), indent=2, ensure_ascii=False) + "\n",
        "stubs.pyi": server_stubs(header, name, subpackage, tools, methods, stems),
    }


def _refuse_hazards(lock: Lockfile) -> None:
    """`lock` never records such a tool, but a lockfile is also what a pull request can change: the code
    generator would read the file or URL a `$ref` names into the generated code, or recurse past the stack."""
    for tool in lock.tools:
        if (why := hazard(tool)) is not None:
            raise MCPVendError(f"{lock.path}: tool {tool['name']!a}: {why}, and `mcpvend lock` records no such tool")


def _no_models(header: str) -> Models:
    from mcpvend.codegen.models import Models

    return Models(f"{header}\n", {}, frozenset(), frozenset(), {})


def _check_docstrings(source: str, plans: list[ToolPlan], tools: list[dict[str, Any]]) -> None:
    """The docstring of every wrapper must be the reviewed description, character for character."""
    methods = {
        node.name: ast.get_docstring(node, clean=False)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.AsyncFunctionDef) and not node.decorator_list
    }
    for plan, tool in zip(plans, tools, strict=True):
        expected = tool.get("description")
        if methods.get(plan.method) != (expected if isinstance(expected, str) else None):
            raise MCPVendError(f"internal error: the docstring of {plan.method} lost characters")
