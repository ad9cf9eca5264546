"""Walking JSON Schemas: the one place that knows which keywords hold subschemas.

Codegen prepares schemas node by node, drift compares them and resolves their `$ref`s, lint reads
the prose of every node: all three must agree on where the subschemas are, so they walk with this.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from referencing._core import Resolver  # `referencing` exports it nowhere else

# How deep a tool's JSON may nest. Digesting, walking, rendering and generating code all recurse into
# it, and past a few hundred levels would stop with a RecursionError rather than name the tool; the
# SDK refuses a message nested past 255. The deepest of 625 real tools (tests/data) nests 11 levels.
MAX_DEPTH = 64

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
# Draft-03 keywords that may hold subschemas beside plain values: `type` and `disallow` (a list of type
# names and schemas), `extends` (a schema or a list). No generator reads them, but a validator may follow
# a `$ref` there, so the walk visits the schemas they hold.
DRAFT3_SCHEMA_HOLDERS = ("type", "disallow", "extends")


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
    for where, child in children(schema, pointer):
        yield from walk(child, where)


def children(schema: dict[str, Any], pointer: str) -> Iterator[tuple[str, Any]]:
    """The values of `schema`'s subschema keywords, with their JSON Pointers: schemas unless malformed."""
    for key in SCHEMA_MAPS:
        if isinstance(values := schema.get(key), dict):
            for name, child in values.items():
                yield f"{pointer}/{escape(key)}/{escape(str(name))}", child
    for key in SCHEMA_LISTS:
        if isinstance(values := schema.get(key), list):
            for index, child in enumerate(values):
                yield f"{pointer}/{escape(key)}/{index}", child
    for key in SCHEMA_VALUES:
        child = schema.get(key)
        if isinstance(child, list):  # draft-07 tuple `items`
            for index, item in enumerate(child):
                yield f"{pointer}/{escape(key)}/{index}", item
        else:
            yield f"{pointer}/{escape(key)}", child
    for key in DRAFT3_SCHEMA_HOLDERS:
        held = schema.get(key)
        for index, item in enumerate(held if isinstance(held, list) else [held]):
            if isinstance(item, dict):
                yield f"{pointer}/{escape(key)}" + (f"/{index}" if isinstance(held, list) else ""), item


def too_deep(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """The JSON Pointer of the first object or array in `value` nested more than `limit` levels deep, or None.

    Iterative, so that it cannot itself run out of stack on what it is there to refuse.
    """
    pending: list[tuple[str, Any, int]] = [("", value, 1)] if isinstance(value, dict | list) else []
    while pending:
        pointer, item, depth = pending.pop()
        if depth > limit:
            return pointer
        entries = item.items() if isinstance(item, dict) else enumerate(item)
        pending.extend(
            (f"{pointer}/{escape(str(key))}", child, depth + 1)
            for key, child in entries
            if isinstance(child, dict | list)
        )
    return None


def subschemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every schema object inside `schema`, itself included, depth first."""
    return (node for _, node in walk(schema))


# Keywords whose value is a reference to another schema.
REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")


def leaving_references(schema: Any, pointer: str = "") -> list[tuple[str, str]]:
    """`(JSON Pointer, why)` for each reference reachable in `schema` that does not stay inside it.

    A reference stays inside when it is a JSON Pointer fragment (`#`, `#/$defs/A`) that resolves in
    `schema` itself. Anything else (a URL, a file path, an anchor, or a `$id` below the root, which
    moves where the references under it resolve) would make a validator or the code generator read
    something that no lockfile holds. A fragment's target is walked in turn, whatever key holds it
    (`#/x-hidden/b`): whoever follows the fragment follows the references found there too.
    """
    if not isinstance(schema, dict):
        return []
    resolver: Resolver[Any] | None = None  # made at the first fragment: most schemas have no `$ref`
    found: list[tuple[str, str]] = []
    seen: set[int] = set()  # by identity: a cycle of references, or a target also walked, is read once
    pending: list[tuple[str, Any, str]] = [(pointer, schema, "")]  # where, node, how a reference reached it
    followed: list[tuple[str, Any, str]] = []  # walked last: `via` is said only where a reference alone leads
    while pending or followed:
        where, node, via = pending.pop() if pending else followed.pop(0)
        if not isinstance(node, dict) or id(node) in seen:
            continue
        seen.add(id(node))
        if node is not schema and "$id" in node:
            found.append((f"{where}/$id", f"$id {_shown(node['$id'])} below the root moves where $refs resolve{via}"))
        for key in REFERENCES:
            if key not in node:
                continue
            ref, at = node[key], f"{where}/{escape(key)}"
            target, why = None, _leaves(ref)
            if why is None:
                resolver = resolver or _resolver(schema)
                target, why = _lookup(resolver, ref)
            if why is None:
                reached = via or f", reached through {key} {_shown(ref)} at {at}"
                followed.append((pointer + unquote(ref[1:]), target, reached))
            else:
                found.append((at, f"{key} {_shown(ref)} {why}{via}"))
        pending.extend(reversed([(at, child, via) for at, child in children(node, where)]))
    return found


def _leaves(ref: Any) -> str | None:
    """Why a reference is no JSON Pointer fragment, the only kind that can stay inside the tool, or None."""
    if not isinstance(ref, str):
        return "is not a string"
    if not ref.startswith("#") or (ref != "#" and not ref.startswith("#/")):
        return "points outside the tool's schema"
    return None


def _resolver(schema: dict[str, Any]) -> Resolver[Any]:
    """References resolved by `referencing` within `schema` alone: a registry retrieves no URI it was not given."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry().with_resource("", DRAFT202012.create_resource(schema))
    return registry.resolver()


def _lookup(resolver: Resolver[Any], ref: str) -> tuple[Any, str | None]:
    """What a fragment names and None, or None and why it names nothing."""
    from referencing.exceptions import Unresolvable

    try:
        return resolver.lookup(ref).contents, None
    except (Unresolvable, LookupError, ValueError, TypeError, AttributeError):  # a pointer through a scalar, a bad $id
        return None, "does not resolve inside the tool's schema"


def _shown(value: Any) -> str:
    """A reference as shown in a message: quoted, escaped, and short (it is a server's text)."""
    text = ascii(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= 80 else text[:79] + "…'"
