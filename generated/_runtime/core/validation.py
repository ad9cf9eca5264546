# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""JSON Schema checks made on every runtime call: compiled once per schema, answered in one line.

Compiling a validator costs far more than validating, and even re-serializing a schema to look
its validator up is a noticeable share of a call; so the reviewed schemas (long-lived objects)
are found by identity first, and by content only the first time.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped, unused-ignore]
from jsonschema.exceptions import best_match  # type: ignore[import-untyped, unused-ignore]
from jsonschema.protocols import Validator  # type: ignore[import-untyped, unused-ignore]
from jsonschema.validators import validator_for  # type: ignore[import-untyped, unused-ignore]
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

_MESSAGE_CHARS = 300
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
    return cls(schema, registry=_NOTHING_OUTSIDE)


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
