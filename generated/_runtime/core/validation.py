# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""JSON Schema checks made on every runtime call: compiled once per schema, answered in one line.

Compiling a validator costs far more than validating, and even re-serializing a schema to look
its validator up is a noticeable share of a call; so the reviewed schemas (long-lived objects)
are found by identity first, and by content only the first time.

jsonschema searches `pattern` and `patternProperties` with `re`, which backtracks: a server's
pattern (`^(a+)+$`) and a model's argument would hold the event loop for minutes. Here every
keyword that searches a pattern does it with `patterns.search`, in time linear in the text.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from jsonschema.exceptions import ValidationError, best_match  # type: ignore[import-untyped, unused-ignore]
from jsonschema.protocols import Validator  # type: ignore[import-untyped, unused-ignore]
from jsonschema.validators import extend, validator_for  # type: ignore[import-untyped, unused-ignore]
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from . import patterns

_MESSAGE_CHARS = 300
_QUOTED_CHARS = 80
_BY_IDENTITY_MAX = 1024
_by_identity: dict[int, tuple[Mapping[str, Any], Validator]] = {}  # holds the schema, so its id stays its own


class SchemaUnusable(Exception):
    """The schema itself is broken (invalid, or a `$ref` that does not resolve)."""


def short(message: str, limit: int = _MESSAGE_CHARS) -> str:
    return message if len(message) <= limit else f"{message[:limit]}…"


class _OutsideTheTool(Exception):
    """A `$ref` names something outside the tool's own schema: it is never read, whatever it names."""


def _retrieve_nothing(uri: str) -> Resource[Any]:
    raise _OutsideTheTool(uri)


# Without a registry, jsonschema would open a `file://` URL or fetch an `http://` one named by a
# `$ref` (synchronously, inside the event loop), and quote what it read in its error message.
_NOTHING_OUTSIDE: Registry[Any] = Registry(retrieve=_retrieve_nothing)  # type: ignore[call-arg, unused-ignore]


@functools.lru_cache(maxsize=256)
def _by_content(schema_json: bytes) -> Validator:
    schema = json.loads(schema_json)
    cls = validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)
    return _linear(cls, _unevaluated_backtracks(schema))(schema, registry=_NOTHING_OUTSIDE)


@functools.cache  # one class per draft (and per answer to `_unevaluated_backtracks`)
def _linear(draft: type[Validator], refuse_unevaluated: bool) -> type[Validator]:
    """`draft`'s validator with every pattern searched by `patterns.search`."""
    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional}
    if refuse_unevaluated:
        keywords["unevaluatedProperties"] = _unevaluated_refused
    chosen = {k: v for k, v in keywords.items() if k in draft.VALIDATORS}
    return extend(draft, chosen)  # type: ignore[no-any-return, no-untyped-call, unused-ignore]


def _pattern(validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    """jsonschema's `pattern`, searched in linear time (or refused, naming the pattern and why)."""
    if not validator.is_type(instance, "string"):
        return
    try:
        if patterns.search(pattern, instance):
            return
    except patterns.Unbounded as exc:
        yield ValidationError(str(exc))
        return
    yield ValidationError(f"{_quoted(instance)} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, pattern_properties: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[Any]:
    """jsonschema's `patternProperties`, each key searched in linear time (a key no search can tell: an error)."""
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in pattern_properties.items():
        for key, value in instance.items():
            try:
                taken = patterns.search(pattern, key)
            except patterns.Unbounded as exc:
                yield ValidationError(str(exc), path=[key])
                continue
            if taken:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional(validator: Any, additional: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    """jsonschema's `additionalProperties`, the keys `patternProperties` takes found as it finds them."""
    pattern_properties = schema.get("patternProperties")
    if not pattern_properties or not validator.is_type(instance, "object"):  # no pattern to search
        yield from Draft202012Validator.VALIDATORS["additionalProperties"](validator, additional, instance, schema)
        return
    declared = schema.get("properties", {})
    extras = sorted(key for key in instance if key not in declared and not _taken(pattern_properties, key))
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        verb = "does" if len(extras) == 1 else "do"
        regexes = ", ".join(map(repr, sorted(pattern_properties)))
        yield ValidationError(f"{', '.join(map(_quoted, extras))} {verb} not match any of the regexes: {regexes}")


def _quoted(text: str) -> str:
    """A value in a message, cut short: the reason after it must survive the message's own limit."""
    return short(repr(text), _QUOTED_CHARS)


def _taken(pattern_properties: Mapping[str, Any], key: str) -> bool:
    """Whether a pattern takes `key` (one that cannot be searched counts: `patternProperties` reports it)."""
    try:
        return any(patterns.search(pattern, key) for pattern in pattern_properties)
    except patterns.Unbounded:
        return True


def _unevaluated_backtracks(schema: Any) -> bool:
    """Whether jsonschema's `unevaluatedProperties` would search, with `re`, a `patternProperties` pattern
    that backtracks (it finds the keys other keywords took with a helper of its own, which nothing replaces)."""
    nodes = list(patterns.objects(schema))
    return any("unevaluatedProperties" in node for node in nodes) and any(
        patterns.backtracks(pattern) is not None
        for node in nodes
        if isinstance(taken := node.get("patternProperties"), Mapping)
        for pattern in taken
    )


def _unevaluated_refused(validator: Any, unevaluated: Any, instance: Any, schema: Mapping[str, Any]) -> Iterator[Any]:
    """`unevaluatedProperties` where jsonschema's own search could backtrack: any key is refused."""
    if validator.is_type(instance, "object") and instance:
        yield ValidationError(
            "its keys cannot be checked in bounded time: unevaluatedProperties would search a patternProperties "
            "pattern that backtracks"
        )


def compiled(schema: Mapping[str, Any]) -> Validator:
    """The validator of `schema`, compiled once (raises what jsonschema raises for a broken schema)."""
    hit = _by_identity.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    validator = _by_content(json.dumps(schema, sort_keys=True).encode())  # a cache key, not a digest
    if len(_by_identity) >= _BY_IDENTITY_MAX:
        _by_identity.clear()
    _by_identity[id(schema)] = (schema, validator)
    return validator


def problem(schema: Mapping[str, Any], instance: Any) -> str | None:
    """Where and why `instance` breaks `schema` ("at $.count: 'many' is not of type 'integer'"), or None.

    Raises `SchemaUnusable` when the schema cannot be used at all.
    """
    try:
        validator = compiled(schema)
        if validator.is_valid(instance):  # the common case: no error to rank
            return None
        error = best_match(validator.iter_errors(instance))
    except Exception as exc:  # noqa: BLE001 - SchemaError, an unresolvable $ref, a bad pattern: all one answer
        raise SchemaUnusable(short(_reason(exc))) from None
    return None if error is None else f"at {error.json_path}: {short(error.message)}"


def _reason(exc: BaseException) -> str:
    """One line for a schema that cannot be used; for a `$ref`, which one and why (not the schema's repr)."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 16:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    unresolvable = next((e for e in chain if isinstance(e, Unresolvable)), None)
    if unresolvable is None:
        return (str(exc).splitlines() or [repr(exc)])[0]
    where = "points outside" if any(isinstance(e, _OutsideTheTool) for e in chain) else "does not resolve inside"
    return f"$ref {ascii(unresolvable.ref)[:120]} {where} the tool's schema (nothing outside it is read)"
