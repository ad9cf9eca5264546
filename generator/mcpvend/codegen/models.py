"""Pydantic v2 models for one server's tools, from datamodel-code-generator, in one call.

The generator makes every type decision; the wrappers then read the fields of each tool's
input model back from the generated source (with `ast`), so that a wrapper's parameters are
exactly its model's fields and no JSON Schema is interpreted twice.
"""

from __future__ import annotations

import ast
import contextlib
import json
import re
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpvend.codegen import naming
from mcpvend.codegen.optional_fields import rewrite_missing
from mcpvend.codegen.schema_prep import for_codegen, property_names
from mcpvend.errors import MCPVendError


@dataclass(frozen=True)
class Field:
    """One field of a generated model, as source text ready for a function signature."""

    name: str
    annotation: str
    default: str | None  # source of the default value; None when the field is required

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True)
class Models:
    source: str
    fields: dict[str, tuple[Field, ...]]  # by class name, for the classes of each tool's Input
    roots: frozenset[str]  # classes that are RootModels
    classes: frozenset[str]  # every class the module defines
    imports: dict[str, str]  # name -> module, for every name the module imports

    def is_root(self, name: str) -> bool:
        return name in self.roots

    def input_class(self, stem: str) -> str:
        return f"{stem}Input"

    def output_class(self, stem: str) -> str:
        return f"{stem}Output"


def generate_models(tools: Sequence[tuple[str, dict[str, Any]]], header: str) -> Models:
    """Models for `(class stem, tool as served)` pairs; one generator call for the whole server."""
    documents: list[dict[str, Any]] = []
    properties: set[str] = set()
    for stem, tool in tools:
        document: dict[str, Any] = {"name": stem, "inputSchema": for_codegen(tool["inputSchema"])}
        if isinstance(tool.get("outputSchema"), dict):
            document["outputSchema"] = for_codegen(tool["outputSchema"])
        for schema in (tool["inputSchema"], tool.get("outputSchema")):
            properties |= property_names(schema)
        documents.append(document)
    aliases = naming.field_aliases(properties)
    suffixes = _Suffixes(aliases, limit=len(properties))
    while True:  # ends: each round gives a property a name it has not had, at most `limit` times
        try:
            source = _generate(documents, aliases, header)
        except _AliasClash as clash:  # another field got that name after all: this alias alone takes a suffix
            aliases = suffixes.moved(aliases, {clash.field}, str(clash))
            continue
        if not isinstance(source, str) or not (ambiguous := _names_meeting_keys(source)):
            break
        aliases = suffixes.moved(aliases, ambiguous, f"field names {sorted(ambiguous)} stay ambiguous")
    if not isinstance(source, str):
        raise MCPVendError("datamodel-code-generator returned several modules where one was expected")
    models = _read(rewrite_missing(source), wanted={f"{stem}Input" for stem, _ in tools})
    displaced = {stem for stem, _ in tools if _numbered(stem, models.classes)}
    if displaced:
        raise StemsTaken(displaced)
    return models


class StemsTaken(Exception):
    """Another tool's class took a stem's `<stem>Input` (or `Output`) name, so the generator numbered this
    tool's own (`BarInput1`): the class the wrapper names would be another tool's. These stems must move."""

    def __init__(self, stems: set[str]) -> None:
        super().__init__(", ".join(sorted(stems)))
        self.stems = frozenset(stems)


def _numbered(stem: str, classes: frozenset[str]) -> bool:
    """The generator names some classes after a property alone (an `allOf` of a closed and an open object
    in property `bar_input` is `BarInput`), not after their tool: then the tool `bar`'s own is `BarInput1`."""
    return any(re.fullmatch(rf"{re.escape(stem)}(?:Input|Output)\d+", name) for name in classes)


class _Suffixes:
    """The suffixes fields take when the generator's own names meet them: a suffixed name is checked again
    (it may be another property's field name) and moves on to its next `naming.suffixed` form if it meets."""

    def __init__(self, aliases: dict[str, str], limit: int) -> None:
        self.bases = dict(aliases)  # what the suffixes go on: a property's first field name
        self.levels: dict[str, int] = {}
        # Each of a property's names is new, so each clash is with another field: a property moving more
        # often than there are properties is clashing over something other than its name.
        self.limit = limit

    def moved(self, aliases: dict[str, str], properties: set[str], why: str) -> dict[str, str]:
        """`aliases` with each of `properties` moved on to its next suffixed name."""
        renamed = dict(aliases)
        for prop in sorted(properties):
            level = self.levels[prop] = self.levels.get(prop, 0) + 1
            if level > self.limit:
                raise MCPVendError(f"datamodel-code-generator failed: {why}")
            base = self.bases.setdefault(prop, naming.snake(prop, fallback="field"))
            renamed[prop] = naming.safe(naming.suffixed(base, prop, level))
        return renamed


def _names_meeting_keys(source: str) -> set[str]:
    """Properties whose field name is another property's key in the same model.

    Models accept field names as well as keys (so that wrappers can pass keyword arguments), so
    `x` (the field of key `X`) beside key `x` (field `x_1`) would fill both fields from one key.
    """
    meeting: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            keys = {name: _key(item) or name for item in node.body if (name := _field_name(item))}
            meeting |= {key for name, key in keys.items() if key != name and name in keys.values()}
    return meeting


def _field_name(node: ast.stmt) -> str | None:
    return node.target.id if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) else None


def _key(node: ast.stmt) -> str | None:
    """The `alias=` of a field, if it has one."""
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and ast.unparse(call.func) == "Field":
            for keyword in call.keywords:
                if keyword.arg == "alias" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return None


class _AliasClash(Exception):
    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


_CLASH = re.compile(r"Alias (?P<alias>.+) for field (?P<field>.+) conflicts with another field\.")


def _generate(documents: list[dict[str, Any]], aliases: dict[str, str], header: str) -> str | object:
    from datamodel_code_generator import LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType, InputFileType, NamingStrategy
    from datamodel_code_generator.format import Formatter

    with warnings.catch_warnings(), tempfile.TemporaryDirectory(prefix="mcpvend-") as empty:
        warnings.simplefilter("ignore")  # dangling refs and the like become `Any`, which is still correct
        # Read from a file in an empty directory: that is where the generator would look for a relative
        # `$ref`, so even one that got this far finds nothing to open (remote ones are refused below).
        source = Path(empty) / "tools.json"
        source.write_text(json.dumps(documents), encoding="utf-8")  # in served order: fields keep their order
        try:
            return generate(
                source,
                input_file_type=InputFileType.MCPTools,
                output_model_type=DataModelType.PydanticV2BaseModel,
                target_python_version=PythonVersion.PY_311,
                naming_strategy=NamingStrategy.FullPath,  # nested names carry their tool's prefix: stable
                custom_file_header=header,
                disable_timestamp=True,
                formatters=[Formatter.ISORT],
                use_annotated=True,
                field_constraints=True,
                snake_case_field=True,
                allow_population_by_field_name=True,
                enum_field_as_literal=LiteralType.All,
                use_standard_collections=True,
                use_union_operator=True,
                strict_nullable=True,  # a property with a default is null only if its schema says so,
                use_missing_sentinel=True,  # and one without is `T | MISSING`: see optional_fields.py
                aliases=aliases,
                allow_remote_refs=False,  # every $ref is local (generate refuses others): never fetch or open one
            )
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            if (clash := _CLASH.fullmatch(str(exc))) is not None:
                with contextlib.suppress(ValueError, SyntaxError):
                    raise _AliasClash(message, ast.literal_eval(clash["field"])) from None
            raise MCPVendError(f"datamodel-code-generator failed: {message}") from exc


def _read(source: str, wanted: set[str]) -> Models:
    """What the wrappers need to know about the generated module."""
    fields: dict[str, tuple[Field, ...]] = {}
    roots: set[str] = set()
    classes: set[str] = set()
    imports: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imports.update({alias.asname or alias.name: node.module for alias in node.names})
        if not isinstance(node, ast.ClassDef):
            continue
        classes.add(node.name)
        if any(ast.unparse(base).startswith("RootModel") for base in node.bases):
            roots.add(node.name)
        if node.name in wanted:
            fields[node.name] = tuple(_field(item) for item in node.body if isinstance(item, ast.AnnAssign))
    missing = wanted - fields.keys()
    if missing:
        raise MCPVendError(f"datamodel-code-generator produced no class {sorted(missing)[0]}")
    imports.pop("annotations", None)  # from __future__
    return Models(source, fields, frozenset(roots), frozenset(classes), imports)


def _field(node: ast.AnnAssign) -> Field:
    assert isinstance(node.target, ast.Name)
    annotation = node.annotation
    if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "Annotated":
        assert isinstance(annotation.slice, ast.Tuple)
        annotation = annotation.slice.elts[0]
    default = None if node.value is None else ast.unparse(node.value)
    if default is None and _has_default_factory(node.annotation):
        default = "..."  # not a literal: the signature will offer None and the model fills it in
    return Field(name=node.target.id, annotation=ast.unparse(annotation), default=default)


def _has_default_factory(annotation: ast.expr) -> bool:
    return any(
        isinstance(node, ast.keyword) and node.arg in ("default", "default_factory") for node in ast.walk(annotation)
    )
