"""Walking JSON Schemas: the one place that knows which keywords hold subschemas.

Codegen prepares schemas node by node, drift compares them and resolves their `$ref`s, lint reads
the prose of every node: all three must agree on where the subschemas are, so they walk with this.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Keywords whose value is a map of name -> subschema, a list of subschemas, or one subschema.
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
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
