# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
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
    MAX_CALLS,
    CallError,
    Found,
    ParsedCall,
    ParsedCalls,
    RawCall,
    RawError,
    Reading,
    TextFormat,
    call_id,
    no_tool,
    reply_digest,
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


def parse(
    fmt: TextFormat,
    text: str,
    lookup: Lookup,
    names: Iterable[str],
    *,
    resolves: Callable[[str], bool] = no_tool,
    limit: int = MAX_CALLS,
) -> ParsedCalls:
    """The calls in `text`, in `fmt`, each named as the toolset knows it; never raises on what a model wrote.

    `resolves` says whether a name stands for a tool (without searching), so that a call in a slightly
    wrong shape is told from prose; past `limit` calls, one error says the rest were not read.
    """
    written: dict[str, str] | None = None  # wire name -> tool, built only when a name is not known as written

    def wire_names() -> dict[str, str]:
        nonlocal written
        if written is None:
            written = {fmt.wire_name(name): name for name in [*names, *sorted(META_NAMES)]}
        return written

    def known(name: str) -> bool:
        return name in META_NAMES or resolves(name) or name in wire_names()

    if isinstance(text, str):
        found = fmt.parse(text, Reading(known, limit))
    else:
        found, text = Found([RawError("the model's reply must be text")]), ""
    items = found.items
    if len(items) > limit:
        items = [*items[:limit], RawError(_too_many(limit))]
    digest: bytes | None = None  # the reply's hash, taken once, and only if a call needs an id
    calls: list[ParsedCall] = []
    errors: list[CallError] = []
    for index, item in enumerate(items):
        given = item.id if isinstance(item, RawCall) else None
        if not valid_id(given):
            digest = reply_digest(text) if digest is None else digest
            given = call_id(digest, index)
        if isinstance(item, RawError):
            errors.append(CallError(item.message, given, index, item.name))
            continue
        if item.name in META_NAMES:
            calls.append(ParsedCall(item.name, item.arguments, given, index))
            continue
        entry, problem = lookup(item.name)
        if entry is None:
            if item.name in wire_names():
                calls.append(ParsedCall(wire_names()[item.name], item.arguments, given, index))
                continue
            errors.append(CallError(problem, given, index, item.name))
            continue
        calls.append(ParsedCall(entry.provider, item.arguments, given, index))
    return ParsedCalls(tuple(calls), tuple(errors), found.text)


def _too_many(limit: int) -> str:
    return (
        f"a reply may make at most {limit} tool calls: the calls after the first {limit} were not read. "
        "Make them in a later reply, once these results are back"
    )


def result_message(
    fmt: TextFormat, call: ParsedCall | CallError, result: ModelResult, role: str | None
) -> dict[str, str]:
    """The message that gives the model one call's result (or a `CallError`'s), in the format's own role."""
    return {"role": role or fmt.role, "content": fmt.render_result(call, result)}
