# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""`not_nullable()`: how a generated model says "this property may be left out, but is never null".

JSON Schema tells a missing property from a null one; Python's usual optional field,
`x: T | None = None`, does not: pydantic then accepts `None` and advertises `null` (and
`"default": null`) in the model's JSON schema, so an LLM reading that schema sends null and the
server rejects it. Generated models write such a field `x: T | None = not_nullable()`: type
checkers see `T | None` with a default (None meaning "not given", as in every wrapper
signature), while pydantic validates and describes `T` alone. The default None is not
validated, so a model built without `x` holds None, does not count it as set, and never sends it.

pydantic's own `MISSING` sentinel says the same, but pyright reads it as an unknown type, and
pydantic before 2.14 has it only as an experiment (`mcp` accepts pydantic >= 2.12).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic.fields import FieldInfo

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler

__all__ = ["not_nullable"]


class _RefuseNull:
    """Validate the type without its None: an explicit null is an error, as the schema says."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        """Typed `Any`: its `CoreSchema` lives in pydantic_core, which the runtime may not import."""
        schema = handler(source)
        return schema["schema"] if schema["type"] == "nullable" else schema


def _drop_null_default(schema: dict[str, Any]) -> None:
    """The None default means "left out": the JSON schema must not offer null as a value."""
    if "default" in schema and schema["default"] is None:
        del schema["default"]


def not_nullable() -> Any:
    """The default of an optional, not nullable field: None, standing for "left out".

    A field (`pydantic.Field` as a default), so that `json_schema_extra` edits the field's whole
    JSON schema, default included, which metadata on the type alone cannot reach; pydantic merges
    it with the field's own `Field(...)` in `Annotated`. Typed `Any`, as `Field()` is, so that it
    is a valid default for any field type.
    """
    field = FieldInfo.from_field(None, json_schema_extra=_drop_null_default)
    field.metadata.append(_RefuseNull())
    return field
