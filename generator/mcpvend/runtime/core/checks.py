"""Whether a call's arguments are what the reviewed tool takes: its schema first, then its generated
input model (what typed callers use), so a model's call and a typed call are held to the same rules."""

from __future__ import annotations

import importlib
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
    """Where `value` holds a string UTF-8 cannot encode (a lone surrogate: valid JSON, `"\\ud800"`), or None.

    A transport encodes the request before it sends it: such a string fails there, and takes the
    connection every caller of that server shares with it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where
        return None
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
