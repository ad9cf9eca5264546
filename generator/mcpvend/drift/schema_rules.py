"""Compare two JSON Schemas and say, per change, whether it narrows or widens what is valid.

Whether a change breaks depends on who holds the data: for a tool's input, callers send it,
so narrowing (a value that was valid is not any more) breaks them; for its output, callers
read it, so widening (they may now get a value they never saw) breaks them. A property that
disappears, or a type swapped for another, is incompatible both ways; an optional property
added (`extended`) is compatible both ways.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from mcpvend.runtime.core.pointers import pointer_get
from mcpvend.schema_walk import escape

Effect = Literal["narrowed", "widened", "extended", "incompatible", "described", "other"]

_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains")
_PROSE = ("description", "title", "examples")
_HANDLED = frozenset(
    {*_LOWER, *_UPPER, *_PROSE, "type", "enum", "const", "properties", "required", "additionalProperties",
     "items", "prefixItems", "anyOf", "oneOf", "allOf", "pattern", "format", "multipleOf", "uniqueItems",
     "default", "$defs", "definitions", "$ref", "$schema", "$id", "$comment"}
)  # fmt: skip


@dataclass(frozen=True)
class Change:
    effect: Effect
    pointer: str  # within the compared schema
    message: str
    old: Any = None
    new: Any = None


def compare(old: Any, new: Any) -> list[Change]:
    """Every difference between two schemas, with `$ref`s resolved first."""
    return list(_compare(_resolve(old, old), _resolve(new, new), ""))


def _resolve(node: Any, root: Any, stack: tuple[str, ...] = ()) -> Any:
    """Inline local `$ref`s; a recursive reference is kept as a reference, compared by name."""
    if isinstance(node, list):
        return [_resolve(item, root, stack) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#") and ref not in stack:
        target = pointer_get(root, ref[1:])
        if target is not None:
            rest = {k: v for k, v in node.items() if k != "$ref"}
            merged = {**target, **rest} if isinstance(target, dict) else target
            return _resolve(merged, root, (*stack, ref))
    return {k: _resolve(v, root, stack) for k, v in node.items() if k not in ("$defs", "definitions")}


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _types(schema: dict[str, Any]) -> set[str] | None:
    kind = schema.get("type")
    if kind is None:
        return None
    return {kind} if isinstance(kind, str) else {k for k in kind if isinstance(k, str)}


def _compare(old: Any, new: Any, at: str) -> Iterator[Change]:
    if _same(old, new):
        return
    if isinstance(old, bool) or isinstance(new, bool) or not isinstance(old, dict) or not isinstance(new, dict):
        yield from _whole(old, new, at)
        return
    yield from _type(old, new, at)
    yield from _enum(old, new, at)
    yield from _bounds(old, new, at)
    yield from _object(old, new, at)
    yield from _items(old, new, at)
    yield from _options(old, new, at)
    for key in _PROSE:
        if not _same(old.get(key), new.get(key)):
            yield Change("described", f"{at}/{key}", f"{key} changed", old.get(key), new.get(key))
    if not _same(old.get("default"), new.get("default")):
        yield Change("other", f"{at}/default", "default changed", old.get("default"), new.get("default"))
    for key in sorted((old.keys() | new.keys()) - _HANDLED):
        if not _same(old.get(key), new.get(key)):
            yield Change("other", f"{at}/{escape(key)}", f"'{key}' changed", old.get(key), new.get(key))


def _whole(old: Any, new: Any, at: str) -> Iterator[Change]:
    """Booleans and `{}`: `true`/`{}` accept anything, `false` nothing."""

    def openness(schema: Any) -> int:
        return 2 if schema is True or schema == {} else 0 if schema is False else 1

    a, b = openness(old), openness(new)
    effect: Effect = "widened" if b > a else "narrowed" if b < a else "other"
    yield Change(effect, at or "/", "schema replaced", old, new)


def _type(old: dict[str, Any], new: dict[str, Any], at: str) -> Iterator[Change]:
    a, b = _types(old), _types(new)
    if a == b:
        return
    if a is None or b is None:
        effect: Effect = "widened" if b is None else "narrowed"
    else:
        a, b = _with_integers(a), _with_integers(b)  # every integer is a number
        effect = "widened" if a < b else "narrowed" if b < a else "incompatible" if a != b else "other"
    if effect != "other":
        yield Change(effect, f"{at}/type", f"type {effect}", old.get("type"), new.get("type"))


def _with_integers(types: set[str]) -> set[str]:
    return types | {"integer"} if "number" in types else types


def _enum(old: dict[str, Any], new: dict[str, Any], at: str) -> Iterator[Change]:
    for key in ("enum", "const"):
        a = old.get(key) if key == "enum" else ([old["const"]] if "const" in old else None)
        b = new.get(key) if key == "enum" else ([new["const"]] if "const" in new else None)
        if _same(a, b):
            continue
        if a is None:
            yield Change("narrowed", f"{at}/{key}", f"{key} added", None, new.get(key))
        elif b is None:
            yield Change("widened", f"{at}/{key}", f"{key} removed", old.get(key), None)
        elif key == "const":
            yield Change("incompatible", f"{at}/const", "const changed", old["const"], new["const"])
        else:
            removed = [v for v in a if not any(_same(v, w) for w in b)]
            added = [v for v in b if not any(_same(v, w) for w in a)]
            if removed:
                yield Change(
                    "narrowed", f"{at}/{key}", f"{key} value removed: {removed!r:.80}", old.get(key), new.get(key)
                )
            if added:
                yield Change("widened", f"{at}/{key}", f"{key} value added: {added!r:.80}", old.get(key), new.get(key))


def _bounds(old: dict[str, Any], new: dict[str, Any], at: str) -> Iterator[Change]:
    for key in (*_LOWER, *_UPPER):
        a, b = old.get(key), new.get(key)
        if _same(a, b) or isinstance(a, bool) or isinstance(b, bool):
            continue
        if a is None or b is None:
            effect: Effect = "narrowed" if a is None else "widened"
        elif isinstance(a, int | float) and isinstance(b, int | float):
            tighter = b > a if key in _LOWER else b < a
            effect = "narrowed" if tighter else "widened"
        else:
            effect = "other"
        word = {"narrowed": "tightened", "widened": "loosened", "other": "changed"}[effect]
        yield Change(effect, f"{at}/{key}", f"{key} {word}", a, b)
    for key in ("pattern", "format", "multipleOf"):
        a, b = old.get(key), new.get(key)
        if not _same(a, b):
            effect = "widened" if b is None else "narrowed"
            yield Change(effect, f"{at}/{key}", f"{key} {'removed' if b is None else 'added or changed'}", a, b)
    if bool(old.get("uniqueItems")) != bool(new.get("uniqueItems")):
        effect = "narrowed" if new.get("uniqueItems") else "widened"
        yield Change(effect, f"{at}/uniqueItems", "uniqueItems changed", old.get("uniqueItems"), new.get("uniqueItems"))


def _object(old: dict[str, Any], new: dict[str, Any], at: str) -> Iterator[Change]:
    props_a, props_b = old.get("properties") or {}, new.get("properties") or {}
    req_a, req_b = set(old.get("required") or []), set(new.get("required") or [])
    for name in sorted(props_a.keys() - props_b.keys()):
        yield Change(
            "incompatible", f"{at}/properties/{escape(name)}", f"property '{name}' removed", props_a[name], None
        )
    for name in sorted(props_b.keys() - props_a.keys()):
        required = name in req_b
        effect: Effect = "narrowed" if required else "extended"
        message = f"{'required' if required else 'optional'} property '{name}' added"
        yield Change(effect, f"{at}/properties/{escape(name)}", message, None, props_b[name])
    for name in sorted(props_a.keys() & props_b.keys()):
        yield from _compare(props_a[name], props_b[name], f"{at}/properties/{escape(name)}")
    for name in sorted((req_b - req_a) & props_a.keys()):
        yield Change("narrowed", f"{at}/required", f"property '{name}' became required", sorted(req_a), sorted(req_b))
    for name in sorted((req_a - req_b) & props_b.keys()):
        yield Change("widened", f"{at}/required", f"property '{name}' became optional", sorted(req_a), sorted(req_b))
    a, b = old.get("additionalProperties", True), new.get("additionalProperties", True)
    if not _same(a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            yield from _compare(a, b, f"{at}/additionalProperties")
        else:
            closed = b is False or (isinstance(b, dict) and a is True)
            effect = "narrowed" if closed else "widened"
            message = f"additionalProperties {'closed' if closed else 'opened'}"
            yield Change(effect, f"{at}/additionalProperties", message, a, b)


def _items(old: dict[str, Any], new: dict[str, Any], at: str) -> Iterator[Change]:
    a, b = old.get("items"), new.get("items")
    if isinstance(a, dict | bool) and isinstance(b, dict | bool):
        yield from _compare(a, b, f"{at}/items")
    elif not _same(a, b):
        yield Change(
            "narrowed" if a is None else "widened" if b is None else "other", f"{at}/items", "items changed", a, b
        )
    prefix_a, prefix_b = old.get("prefixItems") or [], new.get("prefixItems") or []
    for index in range(max(len(prefix_a), len(prefix_b))):
        if index < len(prefix_a) and index < len(prefix_b):
            yield from _compare(prefix_a[index], prefix_b[index], f"{at}/prefixItems/{index}")
        else:
            effect: Effect = "narrowed" if index >= len(prefix_a) else "widened"
            yield Change(effect, f"{at}/prefixItems/{index}", "prefixItems changed", prefix_a, prefix_b)


def _options(old: dict[str, Any], new: dict[str, Any], at: str) -> Iterator[Change]:
    """anyOf/oneOf: options matched by content; a lone changed option is compared in place."""
    for key in ("anyOf", "oneOf", "allOf"):
        a, b = old.get(key) or [], new.get(key) or []
        if _same(a, b):
            continue
        gone = [o for o in a if not any(_same(o, p) for p in b)]
        came = [o for o in b if not any(_same(o, p) for p in a)]
        if key == "allOf" or (len(gone) == len(came) and gone):
            for index, (x, y) in enumerate(zip(gone, came, strict=False)):
                yield from _compare(x, y, f"{at}/{key}/{index}")
            if key == "allOf" and len(gone) != len(came):
                effect: Effect = "narrowed" if len(came) > len(gone) else "widened"
                yield Change(effect, f"{at}/{key}", "allOf changed", a, b)
            continue
        for option in gone:
            yield Change("narrowed", f"{at}/{key}", f"{key} option removed", option, None)
        for option in came:
            yield Change("widened", f"{at}/{key}", f"{key} option added", None, option)
