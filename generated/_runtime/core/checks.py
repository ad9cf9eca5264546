# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Whether a call's arguments are what the reviewed tool takes: its schema first, then its generated
input model (what typed callers use), so a model's call and a typed call are held to the same rules."""

from __future__ import annotations

import importlib
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from . import validation
from .catalog import Entry


def schema_problem(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str:
    """The first reason `arguments` break `schema`, or ""."""
    try:
        return validation.problem(schema, dict(arguments)) or ""
    except validation.SchemaUnusable as exc:
        return f"its reviewed input schema cannot be used ({exc}), so no call can be checked"


def unencodable(value: Any, where: str = "$") -> str | None:
    """What in `value` JSON cannot carry to a server as it is, and where, or None.

    A lone surrogate (valid JSON, `"\\ud800"`) fails when the transport encodes the request, and takes the
    connection every caller of that server shares with it. NaN and infinities (`1e999` reads as one) are
    sent as null: a number the schema accepted would reach the server as no value at all."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"text that is not valid Unicode (a lone surrogate) at {where}"
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"a number JSON cannot carry ({value!r}) at {where}"
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = unencodable(key, f"{where} (a key)") or unencodable(item, f"{where}.{key}")
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            if (found := unencodable(item, f"{where}[{index}]")) is not None:
                return found
    return None


def problem(entry: Entry, arguments: Mapping[str, Any]) -> str:
    """Why the tool would refuse `arguments` (its schema, then its input model), or ""."""
    return schema_problem(entry.input_schema, arguments) or _model_problem(entry, arguments)


def _model_problem(entry: Entry, arguments: Mapping[str, Any]) -> str:
    if entry.models is None or entry.input_class is None:
        return ""
    model = getattr(importlib.import_module(entry.models), entry.input_class, None)
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        return ""
    try:  # as `from_wire` reads it (keys are property names), without the instance it would keep
        model.model_validate(dict(arguments), by_alias=True, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first["loc"])
        return f"at ${where}: {first['msg']}"
    return ""
