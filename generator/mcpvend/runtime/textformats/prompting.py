"""The ToolSet's side of text tool-call formats: model text to calls on real tools, and turn one prepared.

A format reads names as the model wrote them; here they become the tools the toolset knows: a meta-tool,
a provider name (`server__tool`), `server.tool`, a bare wire name when only one server has it, or the
name a format had to write differently (a pythonic identifier). Anything else is an error the model reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..core.catalog import Entry
from ..core.results import ModelResult
from ..core.specs import META_NAMES
from .calls import (
    CallError,
    Found,
    ParsedCall,
    ParsedCalls,
    RawCall,
    RawError,
    TextFormat,
    call_id,
    valid_id,
)

Lookup = Callable[[str], tuple[Entry | None, str]]  # a name to its tool, or why there is none (`lookup`)


@dataclass(frozen=True)
class Prepared:
    """What the model's first turn needs, once tool search has run on the user's message."""

    format: str  # the tool-call format chosen (native, code, or a text format)
    found: tuple[str, ...]  # the tools the search found and materialized, best first
    specs: list[dict[str, Any]] | None = None  # native and code: the tool specs to send with the request
    prompt: str | None = None  # a text format: the tools as system-prompt text


def parse(fmt: TextFormat, text: str, lookup: Lookup, names: Iterable[str]) -> ParsedCalls:
    """The calls in `text`, in `fmt`, each named as the toolset knows it; never raises on what a model wrote."""
    found = fmt.parse(text) if isinstance(text, str) else Found([RawError("the model's reply must be text")])
    written: dict[str, str] | None = None  # wire name -> tool, built only when a name is not known as written
    calls: list[ParsedCall] = []
    errors: list[CallError] = []
    for index, item in enumerate(found.items):
        given = item.id if isinstance(item, RawCall) else None
        ident = given if valid_id(given) else call_id(text if isinstance(text, str) else "", index)
        if isinstance(item, RawError):
            errors.append(CallError(item.message, ident, index, item.name))
            continue
        if item.name in META_NAMES:
            calls.append(ParsedCall(item.name, item.arguments, ident, index))
            continue
        entry, problem = lookup(item.name)
        if entry is None:
            if written is None:
                written = {fmt.wire_name(name): name for name in [*names, *sorted(META_NAMES)]}
            if item.name in written:
                calls.append(ParsedCall(written[item.name], item.arguments, ident, index))
                continue
            errors.append(CallError(problem, ident, index, item.name))
            continue
        calls.append(ParsedCall(entry.provider, item.arguments, ident, index))
    return ParsedCalls(tuple(calls), tuple(errors), found.text)


def result_message(
    fmt: TextFormat, call: ParsedCall | CallError, result: ModelResult, role: str | None
) -> dict[str, str]:
    """The message that gives the model one call's result (or a `CallError`'s), in the format's own role."""
    return {"role": role or fmt.role, "content": fmt.render_result(call, result)}
