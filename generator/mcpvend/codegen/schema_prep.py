"""Copies of tool schemas shaped for datamodel-code-generator; the served schemas stay untouched.

Some things in real schemas make the generator emit wrong or untyped code; they are fixed here
on a copy, without changing what a valid instance is (at most, a model accepts more than the schema):
- a `$ref` to a pointer outside `$defs` (`#/properties/a/items`): the MCP input mode moves every
  schema under `$defs`, so such a pointer dangles and becomes `Any`. The target is copied into
  `$defs` and the reference pointed there.
- `"default": null` on a type that does not admit null: it would be emitted as `x: float = None`;
  and a `format` beside a `default`: the default stays a string (`x: AnyUrl = "https://…"`).
- `anyOf: [{"type": T, <constraints on T>}, {"type": "null"}]` (how pydantic writes `T | None`):
  with constraints, it becomes a `RootModel[T]` whose null branch is lost. It is folded into
  `"type": [T, "null"]`, which means the same since those constraints ignore `null`. For an
  object it is the other way round: `"type": ["object", "null"]` loses its null, `anyOf` keeps it.
- an object without `additionalProperties` accepts other keys, but its model would drop them (the
  typed wrappers would not send them): it gets `"additionalProperties": true`.
- `patternProperties` beside declared properties, other keys or another pattern become a dict keyed
  by one pattern, which refuses valid keys: such objects accept any other key instead.
- `allOf` with one branch becomes a class typed from part of it: the branch is merged in; `allOf`
  over plain objects becomes a class named after the property (or the tool's own input class):
  the objects are merged into one.
- formats whose Python type would alter the value or need another package are left as strings.
- an `enum` of more than MAX_LITERAL values is typed by its values' types, not as a `Literal` of each,
  and a `type` list holding schemas (draft-03) is dropped.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from mcpvend.runtime.core.patterns import bounded
from mcpvend.runtime.core.pointers import pointer_get
from mcpvend.schema_walk import subschemas

_DEFINITIONS = ("$defs", "definitions")
# Formats whose pydantic type would change the value sent (`password` is SecretStr, dumped as
# "**********"; `byte` is decoded from base64; `decimal` numbers become strings; `path` is
# normalized) or needs a package the generated code does not depend on (`email`, `ulid`).
_LOSSY_FORMATS = frozenset({"password", "byte", "decimal", "path", "email", "idn-email", "ulid"})
# Keywords that constrain or describe one type only: they let a value of another type through.
_TYPE_LOCAL = frozenset(
    {
        "type", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "format",
        "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
        "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
    }
)  # fmt: skip


def property_names(schema: Any) -> set[str]:
    """Every property name declared anywhere in a schema."""
    names: set[str] = set()
    for node in subschemas(schema):
        if isinstance(props := node.get("properties"), dict):
            names.update(props)
        if isinstance(required := node.get("required"), list):
            names.update(r for r in required if isinstance(r, str))
    return names


def for_codegen(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a tool's input or output schema that datamodel-code-generator types correctly."""
    prepared = copy.deepcopy(schema)
    prepared.pop("$id", None)  # references are pointers into this copy (generate refuses others), never URLs
    _hoist_local_refs(prepared)
    for node in subschemas(prepared):
        _loosen_type(node)
        # The next three move keywords into this node, where the steps after them must see them.
        _unwrap_lone_all_of(node)
        _merge_object_all_of(node, prepared)
        _split_nullable_object(node)
        _fold_nullable(node)
        _loosen_pattern_map(node, top=node is prepared)
        if node.get("format") in _LOSSY_FORMATS:
            del node["format"]
        if isinstance(pattern := node.get("pattern"), str) and not bounded(pattern):
            del node["pattern"]  # pydantic would search it with `re` for minutes: the wrapper checks it, bounded
        _open_object(node)
        if "default" in node and node["default"] is None and not _admits_null(node):
            del node["default"]
        if "default" in node:
            node.pop("format", None)
    return prepared


MAX_LITERAL = 1000  # the longest real enum (tests/data) has 169 values
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null", list: "array"}


def _loosen_type(node: dict[str, Any]) -> None:
    """A long `enum` is typed by its values' JSON types: black takes time quadratic in a `Literal`'s length
    (50,000 values took two minutes) and a reader gains nothing from it; a call still checks the schema.
    A `type` list with schemas in it (draft-03) is dropped: the generator has no type for it."""
    kind, values = node.get("type"), node.get("enum")
    if isinstance(kind, list) and not all(isinstance(k, str) for k in kind):
        del node["type"]
    if isinstance(values, list) and len(values) > MAX_LITERAL:
        del node["enum"]
        node.setdefault("type", sorted({_JSON_TYPES.get(type(v), "object") for v in values}))


def _unwrap_lone_all_of(node: dict[str, Any]) -> None:
    """`{"allOf": [S]}` means S, but the generator makes it a class of its own (typed from S's first
    keywords only, e.g. an array's `prefixItems`): merge S in when no keyword would clash."""
    branches = node.get("allOf")
    if not isinstance(branches, list) or len(branches) != 1:
        return
    [branch] = branches
    if not isinstance(branch, dict) or "$ref" in branch:
        return
    if branch.keys() & (node.keys() - {"allOf"}) - _ANNOTATIONS:  # two constraints on one keyword: leave them
        return
    del node["allOf"]
    node.update({k: v for k, v in branch.items() if k not in node})  # annotations: the outer ones win


# Keywords that describe a value without constraining it.
_ANNOTATIONS = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly"}
)
_MERGEABLE = frozenset({"type", "properties", "required", "title", "description"})


def _merge_object_all_of(node: dict[str, Any], root: dict[str, Any]) -> None:
    """`allOf` over plain objects (inline, or `$ref`s to them) is one object with every branch's
    properties. The generator names the class it merges them into after the property alone (`X`,
    then `X1` in another tool), or even takes the tool's own `...Input` name; merged here, the
    object is named like any other."""
    branches = node.get("allOf")
    if not isinstance(branches, list) or not branches or node.get("type", "object") != "object":
        return
    if any(k not in _MERGEABLE | {"allOf", "default", "examples"} for k in node):
        return
    branches = [_resolve(root, b["$ref"]) if isinstance(b, dict) and b.keys() == {"$ref"} else b for b in branches]
    for branch in branches:
        if not isinstance(branch, dict) or branch.get("type") != "object":
            return
        open_branch = branch.get("additionalProperties", True) is True
        if not open_branch or not branch.keys() <= _MERGEABLE | {"additionalProperties"}:
            return
        if not isinstance(branch.get("properties", {}), dict) or not isinstance(branch.get("required", []), list):
            return
    properties: dict[str, Any] = {}
    required: list[str] = []
    for branch in branches:
        for name, schema in branch.get("properties", {}).items():
            properties[name] = {"allOf": [properties[name], schema]} if name in properties else schema
        required += [r for r in branch.get("required", []) if r not in required]
    del node["allOf"]
    node.update(type="object", properties=properties)
    if required:
        node["required"] = required


def _loosen_pattern_map(node: dict[str, Any], *, top: bool) -> None:
    """The generator types `patternProperties` as a dict keyed by that pattern alone: right only
    for one pattern, no declared properties and no other keys. Otherwise the keys are left untyped;
    so are a tool's top-level ones, whose value class would take the tool's own `...Input` name."""
    patterns = node.get("patternProperties")
    if not isinstance(patterns, dict):
        return
    alone = len(patterns) == 1 and not node.get("properties") and node.get("additionalProperties") is False
    if alone and not top:
        return
    del node["patternProperties"]
    node["additionalProperties"] = True


def _open_object(node: dict[str, Any]) -> None:
    """An object schema without `additionalProperties` accepts other keys: say so, or the model drops them."""
    if any(k in node for k in ("additionalProperties", "unevaluatedProperties", "$ref")):
        return
    branches = node.get("allOf")
    merged = isinstance(branches, list) and all(
        isinstance(b, dict) and (_declares_object(b) or "$ref" in b) for b in branches
    )
    if _declares_object(node) or (merged and node.get("type") in (None, "object")):
        node["additionalProperties"] = True


def _declares_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind is None:
        return "properties" in node
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


_OBJECT_KEYWORDS = frozenset(
    {"properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
     "propertyNames"}
)  # fmt: skip


def _split_nullable_object(node: dict[str, Any]) -> None:
    """`"type": ["object", "null"]` loses its null in the generator (a map becomes a plain `dict`, found
    by tests/test_fuzz.py): the same said as `anyOf` of an object and null, which it keeps."""
    kind = node.get("type")
    if kind not in (["null", "object"], ["object", "null"]) or "anyOf" in node:
        return
    del node["type"]
    shape = {key: node.pop(key) for key in [k for k in node if k in _OBJECT_KEYWORDS]}
    node["anyOf"] = [{"type": "object", **shape}, {"type": "null"}]


def _fold_nullable(node: dict[str, Any]) -> None:
    options = node.get("anyOf")
    if not isinstance(options, list) or len(options) != 2 or {"type": "null"} not in options:
        return
    other = options[0] if options[1] == {"type": "null"} else options[1]
    # Not objects: `"type": ["object", "null"]` loses its null in the generator (a map becomes `dict`).
    scalar = isinstance(other, dict) and isinstance(other.get("type"), str) and other["type"] != "object"
    if scalar and set(other) <= _TYPE_LOCAL:
        del node["anyOf"]
        node.update({k: v for k, v in other.items() if k not in node}, type=[other["type"], "null"])


def _admits_null(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind is not None:
        return kind == "null" or (isinstance(kind, list) and "null" in kind)
    if "enum" in node:
        return isinstance(node["enum"], list) and None in node["enum"]
    if "const" in node:
        return node["const"] is None
    options = [o for key in ("anyOf", "oneOf") for o in node.get(key) or [] if isinstance(o, dict)]
    if options:
        return any(_admits_null(o) for o in options)
    return "$ref" not in node and "allOf" not in node  # untyped: anything goes, null included


def _hoist_local_refs(root: dict[str, Any]) -> None:
    """Point every local `$ref` outside the definitions at a copy of its target inside them."""
    key = next((k for k in _DEFINITIONS if isinstance(root.get(k), dict)), "$defs")
    hoisted: dict[str, str] = {}
    dangling: set[str] = set()  # dangling in the served schema too: left alone
    while True:
        pending = [
            node
            for node in subschemas(root)
            if isinstance(ref := node.get("$ref"), str)
            and ref.startswith("#/")
            and not _in_definitions(ref)
            and ref not in dangling
        ]
        if not pending:
            return
        for node in pending:
            pointer = node["$ref"]
            if pointer not in hoisted:
                target = _resolve(root, pointer)
                if target is None:
                    dangling.add(pointer)
                    continue
                name = _definition_name(pointer, root.setdefault(key, {}))
                root[key][name] = copy.deepcopy(target)
                hoisted[pointer] = f"#/{key}/{name}"
            node["$ref"] = hoisted[pointer]


def _in_definitions(ref: str) -> bool:
    return any(ref.startswith(f"#/{key}/") for key in _DEFINITIONS)


def _resolve(root: dict[str, Any], pointer: str) -> Any:
    node = pointer_get(root, pointer[1:])
    return node if isinstance(node, dict | bool) else None


def _definition_name(pointer: str, taken: dict[str, Any]) -> str:
    base = "Ref" + "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]+", pointer) if p)
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{n}"
    return name
