"""`stubs.pyi` of one server: the typed API code mode shows the model and type-checks snippets against.

One `async def` per tool, keyword-only, returning the `TypedDict` of its `outputSchema` (else
`str`), with the reviewed description as its docstring. datamodel-code-generator makes every type
decision (in TypedDict mode, one call per server, like the models); its output is then read with
`ast` and written again: every type takes its server's prefix, so the stubs of several servers
share one namespace, and each field's description becomes a one-line comment, escaped, so that no
text can reach outside it. The same lockfile always gives the same bytes.
"""

from __future__ import annotations

import ast
import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcpvend.codegen.plan import comment_text, docstring_literal
from mcpvend.codegen.render import black_format
from mcpvend.codegen.schema_prep import for_codegen
from mcpvend.errors import MCPVendError
from mcpvend.runtime.code.api import CodeApi, ServerStubs, function_name, parameter_names
from mcpvend.schema_walk import subschemas

TYPING_MODULES = frozenset({"typing", "typing_extensions"})  # what Monty's type checker and a model both know
_MARKERS = {"NotRequired": False, "Required": True}
# Lines are never wrapped: a description stays a comment on its field's line, a type stays whole.
LINE_LENGTH = 100_000


def type_prefix(subpackage: str) -> str:
    """What every type of a server starts with: its subpackage, capitalized, and `_` (`Demo_`, `My_server_`).

    Subpackages are distinct lower-case names and generated types start with a capital, so no two
    servers' types can meet.
    """
    return f"{subpackage[:1].upper()}{subpackage[1:]}_"


def for_stubs(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema as the sandbox sees values: plain JSON (no `format` types), objects as TypedDicts.

    `additionalProperties` goes when it is a boolean or sits beside declared properties: a TypedDict
    rejects unknown keys in a literal either way, and `extra_items` would need `typing_extensions`.
    """
    prepared = for_codegen(schema)
    for node in subschemas(prepared):
        node.pop("format", None)
        extra = node.get("additionalProperties")
        if isinstance(extra, bool) or (extra is not None and node.get("properties")):
            del node["additionalProperties"]
    return prepared


@dataclass(frozen=True)
class _Field:
    key: str
    annotation: str
    required: bool
    description: str | None


def server_stubs(
    header: str, server: str, subpackage: str, tools: Sequence[Mapping[str, Any]], methods: Mapping[str, str],
    stems: Mapping[str, str],
) -> str:  # fmt: skip
    """The `stubs.pyi` of one server; `methods` and `stems` as the wrappers and models use them, by wire name."""
    prefix = type_prefix(subpackage)
    tree = _generate([(stems[t["name"]], t) for t in tools]) if tools else ast.Module(body=[], type_ignores=[])
    definitions, typing_names = _rewrite(tree, prefix)
    written: set[str] = set()
    blocks: list[str] = []
    for tool in tools:
        stem = f"{prefix}{stems[tool['name']]}"
        function = _function(tool, function_name(subpackage, methods[tool["name"]]), stem, definitions)
        for name in _needs(ast.parse(function), definitions):
            if name not in written:
                written.add(name)
                blocks.append(definitions[name])
        blocks.append(function)
    used = {n.id for block in blocks for n in ast.walk(ast.parse(block)) if isinstance(n, ast.Name)}
    imports = [
        f"from {module} import {', '.join(sorted(names & used))}" for module, names in typing_names if names & used
    ]
    doc = f'"""Code-mode API of server {server}: its tools as async functions, for `run_code`."""'
    source = black_format("\n".join([header, doc, *imports, *blocks]) + "\n", pyi=True, line_length=LINE_LENGTH)
    _check(source, tools, subpackage, methods)
    return source


def _generate(tools: Sequence[tuple[str, Mapping[str, Any]]]) -> ast.Module:
    """datamodel-code-generator's TypedDicts for `(class stem, tool)` pairs, parsed."""
    from datamodel_code_generator import LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType, InputFileType, NamingStrategy

    documents = []
    for stem, tool in tools:
        document = {"name": stem, "inputSchema": for_stubs(dict(tool["inputSchema"]))}
        if isinstance(tool.get("outputSchema"), dict):
            document["outputSchema"] = for_stubs(tool["outputSchema"])
        documents.append(document)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            source = generate(
                json.dumps(documents),
                input_file_type=InputFileType.MCPTools,
                output_model_type=DataModelType.TypingTypedDict,
                target_python_version=PythonVersion.PY_311,
                naming_strategy=NamingStrategy.FullPath,
                disable_timestamp=True,
                formatters=[],
                enum_field_as_literal=LiteralType.All,
                use_standard_collections=True,
                use_union_operator=True,
                use_field_description=True,
            )
        except Exception as exc:
            raise MCPVendError(f"datamodel-code-generator failed on the stubs: {type(exc).__name__}: {exc}") from exc
    if not isinstance(source, str):
        raise MCPVendError("datamodel-code-generator returned several modules where one was expected")
    return ast.parse(source)


def _rewrite(tree: ast.Module, prefix: str) -> tuple[dict[str, str], list[tuple[str, set[str]]]]:
    """Each type definition's source, by its prefixed name, and the typing names imported, by module.

    A name imported from anywhere else (a type the sandbox would not know) becomes `Any`.
    """
    defined = {name for node in tree.body if (name := _target(node)) is not None}
    renamed = {name: f"{prefix}{name}" for name in defined}
    typing_names: dict[str, set[str]] = {}
    foreign: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            names = {alias.asname or alias.name for alias in node.names}
            if node.module in TYPING_MODULES:
                typing_names.setdefault(str(node.module), set()).update(names)
            else:
                foreign |= names
    present = set().union(*typing_names.values())
    typing_names.setdefault("typing", set()).update({"Any", "NotRequired"} - present)  # the rewrite may write them
    for found in ast.walk(tree):
        if isinstance(found, ast.Name):
            found.id = renamed.get(found.id, "Any" if found.id in foreign else found.id)
        elif isinstance(found, ast.ClassDef):
            found.name = renamed[found.name]
        elif isinstance(found, ast.Call) and _is_typed_dict_call(found):
            first = found.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.args[0] = ast.Constant(renamed.get(first.value, first.value))
    definitions = {}
    for statement in tree.body:
        name = _target(statement)  # renamed by now
        if name is not None:
            definitions[name] = _class(statement) if isinstance(statement, ast.ClassDef) else ast.unparse(statement)
    return definitions, sorted(typing_names.items())


def _target(node: ast.stmt) -> str | None:
    if isinstance(node, ast.ClassDef):
        return node.name
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        return node.targets[0].id
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.target.id
    return None


def _is_typed_dict_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "TypedDict" and bool(node.args)


def _class(node: ast.ClassDef) -> str:
    """A TypedDict class, each field's description (a docstring after it) as a comment on its line."""
    keywords = [ast.unparse(k) for k in node.keywords if k.arg != "total"]  # each field says it instead
    bases = [ast.unparse(b) for b in node.bases] + keywords
    lines = [f"class {node.name}({', '.join(bases)}):"]
    for field in _class_fields(node):
        marked = field.annotation if field.required else f"NotRequired[{field.annotation}]"
        lines.append(f"    {field.key}: {marked}{_comment(field.description)}")
    return "\n".join(lines) if len(lines) > 1 else f"{lines[0]} ..."


def _class_fields(node: ast.ClassDef) -> list[_Field]:
    total = _total(node.keywords)
    fields: list[_Field] = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            annotation, required = _unmarked(item.annotation, total)
            fields.append(_Field(item.target.id, annotation, required, None))
        elif isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant) and fields:
            text = item.value.value
            if isinstance(text, str) and fields[-1].description is None:
                last = fields[-1]
                fields[-1] = _Field(last.key, last.annotation, last.required, text)
    return fields


def _total(keywords: list[ast.keyword]) -> bool:
    return not any(k.arg == "total" and isinstance(k.value, ast.Constant) and not k.value.value for k in keywords)


def _unmarked(annotation: ast.expr, total: bool) -> tuple[str, bool]:
    """`NotRequired[T]` as (T, False), `Required[T]` as (T, True), else (T, total)."""
    marker = annotation.value if isinstance(annotation, ast.Subscript) else None
    if isinstance(annotation, ast.Subscript) and isinstance(marker, ast.Name) and marker.id in _MARKERS:
        return ast.unparse(annotation.slice), _MARKERS[marker.id]
    return ast.unparse(annotation), total


def _comment(text: str | None) -> str:
    """`  # text` on one line: whitespace runs become one space, anything invisible an escape (`\\u200b`),
    so that no text can end the comment or hide in it."""
    words = " ".join(text.split()) if isinstance(text, str) else ""
    return f"  # {comment_text(words)}" if words else ""


def _input_fields(definition: str | None) -> list[_Field] | None:
    """The fields of a tool's input TypedDict (class or functional syntax); None when it is not one."""
    if definition is None:
        return []
    node = ast.parse(definition).body[0]
    if isinstance(node, ast.ClassDef):
        return _class_fields(node)
    call = node.value if isinstance(node, ast.Assign) else None
    if isinstance(call, ast.Call) and _is_typed_dict_call(call) and len(call.args) > 1:
        total = _total(call.keywords)
        items = call.args[1]
        if isinstance(items, ast.Dict):
            return [
                _Field(key.value, *_unmarked(value, total), None)
                for key, value in zip(items.keys, items.values, strict=True)
                if isinstance(key, ast.Constant) and isinstance(key.value, str)
            ]
    return None


def _function(tool: Mapping[str, Any], name: str, stem: str, definitions: Mapping[str, str]) -> str:
    """`async def name(*, required..., optional = ...) -> Output` with the reviewed description as docstring."""
    fields = _input_fields(definitions.get(f"{stem}Input"))
    given = tool["inputSchema"].get("properties")
    properties: Mapping[str, Any] = given if isinstance(given, dict) else {}
    if fields is None:  # not an object of named properties (a map): any keywords
        params = ["    **arguments: Any,"]
    else:
        keywords = parameter_names(f.key for f in fields)
        ordered = [f for f in fields if f.required] + [f for f in fields if not f.required]
        params = ["    *,"] if ordered else []
        for field in ordered:
            found = properties.get(field.key)
            described: Mapping[str, Any] = found if isinstance(found, dict) else {}
            text = described.get("description") if isinstance(described.get("description"), str) else ""
            if "default" in described:
                text = f"{text} (default: {json.dumps(described['default'], ensure_ascii=False)})".strip()
            default = "" if field.required else " = ..."
            params.append(f"    {keywords[field.key]}: {field.annotation}{default},{_comment(text)}")
    output = f"{stem}Output" if isinstance(tool.get("outputSchema"), dict) and f"{stem}Output" in definitions else "str"
    description = tool.get("description")
    body = f"    {docstring_literal(description)}" if isinstance(description, str) else "    ..."
    signature = f"async def {name}(\n" + "".join(f"{p}\n" for p in params) + f") -> {output}:"
    return f"{signature}\n{body}"


def _needs(function: ast.Module, definitions: Mapping[str, str]) -> list[str]:
    """The type definitions a function mentions, directly or through others, in generation order."""
    found: set[str] = set()
    pending = [function]
    while pending:
        for node in ast.walk(pending.pop()):
            if isinstance(node, ast.Name) and node.id in definitions and node.id not in found:
                found.add(node.id)
                pending.append(ast.parse(definitions[node.id]))
    return [name for name in definitions if name in found]


def _check(source: str, tools: Sequence[Mapping[str, Any]], subpackage: str, methods: Mapping[str, str]) -> None:
    """Every tool has its function, and its docstring is the reviewed description, character for character."""
    functions = {
        node.name: ast.get_docstring(node, clean=False)
        for node in ast.parse(source).body
        if isinstance(node, ast.AsyncFunctionDef)
    }
    for tool in tools:
        name = function_name(subpackage, methods[tool["name"]])
        expected = tool.get("description")
        if name not in functions or functions[name] != (expected if isinstance(expected, str) else None):
            raise MCPVendError(f"internal error: the stub of {name} lost characters")


def code_api(servers: Mapping[str, Sequence[Mapping[str, Any]]]) -> CodeApi:
    """The code-mode API of tool lists by server, named as `generate` names them, without writing a package.

    For what is measured offline (`bench/code_mode.py`): the same stubs a generated package holds.
    """
    from mcpvend.codegen import naming

    subpackages = naming.subpackages(servers)
    parsed: dict[str, ServerStubs] = {}
    functions: dict[tuple[str, str], str] = {}
    for server, tools in servers.items():
        methods = naming.method_names([t["name"] for t in tools])
        text = server_stubs("", server, subpackages[server], tools, methods, naming.class_names(methods))
        parsed[server] = ServerStubs(text)
        functions.update({(server, w): function_name(subpackages[server], m) for w, m in methods.items()})
    return CodeApi(parsed, functions)
