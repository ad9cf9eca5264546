"""Walking JSON Schemas: the one place that knows which keywords hold subschemas.

Codegen prepares schemas node by node, drift compares them and resolves their `$ref`s, lint reads
the prose of every node: all three must agree on where the subschemas are, so they walk with this.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcpvend.runtime.core.pointers import pointer_get

# Keywords whose value is a map of name -> subschema, a list of subschemas, or one subschema.
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_VALUES = (
    "items",
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
)


def escape(token: str) -> str:
    """One RFC 6901 reference token: `~` and `/` escaped."""
    return token.replace("~", "~0").replace("/", "~1")


def walk(schema: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside `schema`, itself included, depth first, with its JSON Pointer.

    Lazy on purpose: a node's children are read only after the caller has seen (and perhaps
    changed) the node itself.
    """
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    for key in SCHEMA_MAPS:
        if isinstance(children := schema.get(key), dict):
            for name, child in children.items():
                yield from walk(child, f"{pointer}/{escape(key)}/{escape(str(name))}")
    for key in SCHEMA_LISTS:
        if isinstance(children := schema.get(key), list):
            for index, child in enumerate(children):
                yield from walk(child, f"{pointer}/{escape(key)}/{index}")
    for key in SCHEMA_VALUES:
        child = schema.get(key)
        if isinstance(child, list):  # draft-07 tuple `items`
            for index, item in enumerate(child):
                yield from walk(item, f"{pointer}/{escape(key)}/{index}")
        else:
            yield from walk(child, f"{pointer}/{escape(key)}")


def subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema object inside `schema`, itself included, depth first."""
    return (node for _, node in walk(schema))


# Keywords whose value is a reference to another schema.
REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")


def leaving_references(schema: Any) -> list[tuple[str, str]]:
    """`(JSON Pointer, why)` for each reference in `schema` that does not stay inside it.

    A reference stays inside when it is a JSON Pointer fragment (`#`, `#/$defs/A`) that resolves in
    `schema` itself. Anything else (a URL, a file path, an anchor, or a `$id` below the root, which
    moves where the references under it resolve) would make a validator or the code generator read
    something that no lockfile holds.
    """
    found: list[tuple[str, str]] = []
    for pointer, node in walk(schema):
        if pointer and "$id" in node:
            found.append((f"{pointer}/$id", f"$id {_shown(node['$id'])} below the root moves where $refs resolve"))
        for key in REFERENCES:
            if key in node and (why := _leaves(schema, node[key])) is not None:
                found.append((f"{pointer}/{escape(key)}", f"{key} {_shown(node[key])} {why}"))
    return found


def _leaves(root: Any, ref: Any) -> str | None:
    if not isinstance(ref, str):
        return "is not a string"
    if not ref.startswith("#") or (ref != "#" and not ref.startswith("#/")):
        return "points outside the tool's schema"
    if ref != "#" and pointer_get(root, ref[1:]) is None:
        return "does not resolve inside the tool's schema"
    return None


def _shown(value: Any) -> str:
    """A reference as shown in a message: quoted, escaped, and short (it is a server's text)."""
    text = ascii(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= 80 else text[:79] + "…'"
