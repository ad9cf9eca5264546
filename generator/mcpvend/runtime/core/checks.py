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
