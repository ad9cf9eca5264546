"""Code mode's typed API: each tool's stub from `stubs.pyi`, and the text the model and the type checker read.

`mcpvend generate` writes one `stubs.pyi` per server (reviewed like the rest of the package):
`TypedDict`s for the schemas, one `async def` per tool. This module reads them back, finds each
tool's function and the classes it needs, and renders any set of tools as one stub text, in a
fixed order, so the same tools always give the same bytes (prompt caches keep hitting).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import keyword
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..core.catalog import Entry

STUBS = "stubs.pyi"
SEPARATOR = "__"  # no subpackage holds two underscores and no method starts with one: a name splits one way
SEARCH_TOOLS = "search_tools"
SEARCH_STUB = (
    "async def search_tools(query: str, limit: int = 5) -> str:\n"
    '    """The stubs of the tools that best match `query`; call them by name."""'
)
_WORDS = re.compile(r"[A-Za-z0-9]+")
_HASH_LENGTHS = (6, 12, 64)  # a parameter's hash suffix at its first, second and later moves; then a count


def function_name(subpackage: str, method: str) -> str:
    """A tool's function in the sandbox: its server's subpackage and its wrapper's method, which are unique."""
    return f"{subpackage}{SEPARATOR}{method}"


def parameter_names(keys: Iterable[str]) -> dict[str, str]:
    """The keyword each top-level property is passed as: the key when it is a plain ASCII identifier.

    A keyword gets a trailing `_` (`from_`); any other key its ASCII words joined by `_`. A name
    that another key already is, or also becomes, takes a hash of its own key, and is checked again:
    while it still meets another name, it takes a longer hash, then a count. The mapping is one-to-one,
    and depends only on the set of keys (the generator and the runtime both use it).
    """
    keys = list(dict.fromkeys(keys))
    plain = {k for k in keys if k.isascii() and k.isidentifier() and not keyword.iskeyword(k)}
    wanted = {k: k if k in plain else _candidate(k) for k in keys}
    names = dict(wanted)
    levels = dict.fromkeys(keys, 0)
    while True:  # ends: each move gives a key a name it has not had; plain keys never move
        owners: dict[str, list[str]] = {}
        for key, name in names.items():
            owners.setdefault(name, []).append(key)
        moving = [key for group in owners.values() if len(group) > 1 for key in _leaving(group, plain, levels)]
        if not moving:
            return names
        for key in moving:
            levels[key] += 1
            names[key] = f"{wanted[key]}_{_suffix(key, levels[key])}"


def _leaving(group: list[str], plain: set[str], levels: Mapping[str, int]) -> list[str]:
    """The keys that must give up the name they share: all but the plain key that is the name, else
    all but the only one that has it unsuffixed (if just one does)."""
    keeping = [k for k in group if k in plain] or [k for k in group if levels[k] == 0]
    return [k for k in group if len(keeping) != 1 or k != keeping[0]]


def _candidate(key: str) -> str:
    """An identifier from the ASCII words of any key; a keyword among them (`from`, `if !`) gets a `_`."""
    name = "_".join(_WORDS.findall(key)) or "p"
    name = f"p_{name}" if name[0].isdigit() else name
    return f"{name}_" if keyword.iskeyword(name) else name


def _suffix(key: str, level: int) -> str:
    """What a key's name takes at its `level`-th move (from 1): a hash of the key, longer each time, then a count."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    count = level - len(_HASH_LENGTHS) + 1
    return digest[: _HASH_LENGTHS[min(level, len(_HASH_LENGTHS)) - 1]] + (f"_{count}" if count > 1 else "")


@dataclass(frozen=True)
class Definition:
    """A top-level statement of a stub file: a class, a type alias or a function, with every name it uses."""

    name: str
    source: str  # its whole lines, comments included
    uses: frozenset[str]


class ServerStubs:
    """One `stubs.pyi`: its type definitions and its functions, by name, in file order."""

    def __init__(self, text: str) -> None:
        tree = ast.parse(text)
        lines = text.splitlines()
        self.imports: dict[str, str] = {}  # name -> module
        self.types: dict[str, Definition] = {}
        self.functions: dict[str, Definition] = {}
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
                self.imports.update({alias.asname or alias.name: node.module for alias in node.names})
                continue
            name = _defined(node)
            if name is None:
                continue
            source = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            uses = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
            kind = self.functions if isinstance(node, ast.AsyncFunctionDef) else self.types
            kind[name] = Definition(name, source, uses)

    def needs(self, function: str) -> list[str]:
        """The type definitions a function's signature needs, directly or through other types, in file order."""
        found: set[str] = set()
        pending = [self.functions[function]]
        while pending:
            for name in pending.pop().uses & self.types.keys():
                if name not in found:
                    found.add(name)
                    pending.append(self.types[name])
        return [name for name in self.types if name in found]


def _defined(node: ast.stmt) -> str | None:
    if isinstance(node, ast.ClassDef | ast.AsyncFunctionDef):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id  # a TypedDict in functional syntax (keys that are not identifiers)
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id  # a type alias
    return None


class CodeApi:
    """The stubs of a toolset's tools, by server and wire name; renders any subset as one stub text."""

    def __init__(self, servers: Mapping[str, ServerStubs], functions: Mapping[tuple[str, str], str]) -> None:
        self.servers = dict(servers)
        self.functions = dict(functions)  # (server, wire name) -> function name

    def function(self, entry: Entry) -> str | None:
        """The sandbox function of a tool, or None when its server's stubs do not have it."""
        name = self.functions.get((entry.server, entry.name))
        stubs = self.servers.get(entry.server)
        return name if stubs is not None and name in stubs.functions else None

    def render(self, entries: Sequence[Entry], *extra: str) -> str:
        """The stubs of these tools, in the given order: imports, then each tool's new types and its function.

        A type two servers define under one name is written once (the generator prefixes every
        type with its server, so that only happens to hand-made stubs); `extra` are appended.
        """
        imports: dict[str, set[str]] = {}
        written: set[str] = set()
        blocks: list[str] = []
        for entry in entries:
            name = self.function(entry)
            if name is None:
                continue
            stubs = self.servers[entry.server]
            for type_name in stubs.needs(name):
                if type_name not in written:
                    written.add(type_name)
                    blocks.append(stubs.types[type_name].source)
                    _imported(stubs, stubs.types[type_name], imports)
            blocks.append(stubs.functions[name].source)
            _imported(stubs, stubs.functions[name], imports)
        header = [f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(imports.items())]
        return "\n".join([*header, *blocks, *extra])

    def arguments(self, entry: Entry, keywords: Mapping[str, Any]) -> dict[str, Any]:
        """The wire arguments for the keywords a snippet passed (`from_=` is the property `from`)."""
        properties = entry.input_schema.get("properties")
        keys = list(properties) if isinstance(properties, Mapping) else []
        wire = {name: key for key, name in parameter_names(keys).items()}
        return {wire.get(name, name): value for name, value in keywords.items()}


def _imported(stubs: ServerStubs, definition: Definition, imports: dict[str, set[str]]) -> None:
    for name in definition.uses & stubs.imports.keys():
        imports.setdefault(stubs.imports[name], set()).add(name)


def load(package: str, servers: Sequence[tuple[str, str, Sequence[Mapping[str, Any]]]]) -> CodeApi | None:
    """The stubs of a generated package's servers: (server, subpackage, manifest tools) each.

    None when a subpackage has no `stubs.pyi` (generated before code mode): code mode is then
    not offered, and everything else works as before.
    """
    parsed: dict[str, ServerStubs] = {}
    functions: dict[tuple[str, str], str] = {}
    for server, subpackage, tools in servers:
        stubs = read_stubs(f"{package}.{subpackage}")
        if stubs is None:
            return None
        parsed[server] = stubs
        for item in tools:
            functions[(server, str(item["tool"]["name"]))] = function_name(subpackage, str(item["method"]))
    return CodeApi(parsed, functions)


@functools.cache
def read_stubs(subpackage: str) -> ServerStubs | None:
    """A subpackage's stubs, read and parsed once per process (they are part of the installed package)."""
    stub_file = resources.files(subpackage).joinpath(STUBS)
    return ServerStubs(stub_file.read_text(encoding="utf-8")) if stub_file.is_file() else None
