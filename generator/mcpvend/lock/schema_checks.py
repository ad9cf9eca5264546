"""Why a tool's schemas cannot be locked, said once: `lock` rejects such a tool (listed under `rejected`),
and `generate` refuses a lockfile holding a hazard, since a pull request can carry what no `lock` wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpvend.schema_walk import MAX_DEPTH, leaving_references, too_deep

_POINTER_CHARS = 60  # a pointer 64 levels deep is long: where it starts is enough to find it
_MESSAGE_CHARS = 200  # of a message quoting the server's schema
_SCHEMAS = ("inputSchema", "outputSchema")


def nesting_problem(tool: Mapping[str, Any]) -> str | None:
    """Why a tool is too deep to handle, or None: checked before anything recurses into it (its digests first)."""
    pointer = too_deep(tool)
    if pointer is None:
        return None
    return f"it is nested too deeply: more than {MAX_DEPTH} levels (at {_short(pointer, _POINTER_CHARS)})"


def hazard(tool: Mapping[str, Any]) -> str | None:
    """What makes a tool unsafe to handle at all, or None: nested past what recursion survives, or a `$ref`
    reaching something no lockfile holds (a validator or the code generator would read it)."""
    if (why := nesting_problem(tool)) is not None:
        return why
    for key in _SCHEMAS:
        if leaving := leaving_references(tool.get(key), f"/{key}"):
            pointer, why = leaving[0]
            return f"{why} (at {pointer}); a tool's schema may only refer inside itself"
    return None


def schema_problem(tool: Mapping[str, Any]) -> str | None:
    """Why `lock` rejects the tool's schemas, or None: a hazard, or a schema invalid under its draft
    (2020-12 unless it says otherwise), which no client can use."""
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    if (why := nesting_problem(tool)) is not None:  # before check_schema, which recurses
        return why
    for key in _SCHEMAS:
        schema = tool.get(key)
        if not isinstance(schema, dict):
            continue
        try:
            validator_for(schema).check_schema(schema)
        except SchemaError as exc:
            where = "/".join(str(p) for p in exc.absolute_path)
            message = f"{key} is not a valid JSON Schema: {_short(exc.message, _MESSAGE_CHARS)}"
            return message + (f" (at /{where})" if where else "")
    return hazard(tool)


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
