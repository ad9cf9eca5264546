"""Mistral tool calls: `[AVAILABLE_TOOLS]`, `[TOOL_CALLS]`, `[TOOL_RESULTS]`, in each tokenizer version's shape.

The convention is what Mistral's own `mistral-common` renders (`InstructTokenizerV2` ... `V13` in
mistral_common/tokens/tokenizers/instruct.py, https://github.com/mistralai/mistral-common), which the
tests use as the oracle:

- v2: calls `[TOOL_CALLS][{"name": ..., "arguments": {...}}]`; results
  `[TOOL_RESULTS][{"name": ..., "content": ...}][/TOOL_RESULTS]`
- v3: each call with its `"id"`; results `[TOOL_RESULTS]{"content": ..., "call_id": ...}[/TOOL_RESULTS]`
- v7: calls as v3; results `[TOOL_RESULTS]id[TOOL_CONTENT]text[/TOOL_RESULTS]`
- v11: calls `[TOOL_CALLS]name[CALL_ID]id[ARGS]{...}`, one after the other; results as v7
- v13: calls `[TOOL_CALLS]name[ARGS]{...}`; results `[TOOL_RESULTS]text[/TOOL_RESULTS]`, matched by order

Call ids are 9 characters of `[a-zA-Z0-9]`. The tools block goes right before the `[INST]` of the last
user message (v13: the first). "mistral" is v3, the version of Mistral 7B Instruct v0.3 and Mistral Nemo,
the Mistral models most often run locally; name another with "mistral-v11" and so on. Any version's calls
are read whatever version is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.results import ModelResult
from ..core.specs import ToolSpec
from .calls import (
    NO_TOOLS,
    Broken,
    CallError,
    Found,
    ParsedCall,
    RawCall,
    RawError,
    Reading,
    decode_at,
    dumps,
    loose_json,
    read_call,
    skip_space,
    snippet,
)
from .near import scan, tidy

VERSIONS = ("v2", "v3", "v7", "v11", "v13")
TOOL_CALLS, ARGS, CALL_ID, EOS = "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "</s>"


@dataclass(frozen=True)
class Mistral:
    name: str = "mistral"
    version: str = "v3"
    role: str = "tool"

    def wire_name(self, name: str) -> str:
        return name

    def prompt(self, tools: Sequence[ToolSpec]) -> str:
        listed = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": schema}}
            for t in tools
            for schema in [dict(t.input_schema)]
        ]
        return f"[AVAILABLE_TOOLS]{dumps(listed)}[/AVAILABLE_TOOLS]"

    def render_calls(self, calls: Sequence[ParsedCall]) -> str:
        if self.version in ("v11", "v13"):
            written_id = self.version == "v11"
            return "".join(
                f"{TOOL_CALLS}{c.name}{CALL_ID + c.id if written_id else ''}{ARGS}{dumps(dict(c.arguments))}"
                for c in calls
            )
        listed: list[dict[str, Any]] = []
        for c in calls:
            listed.append({"name": c.name, "arguments": dict(c.arguments)})
            if self.version != "v2":
                listed[-1]["id"] = c.id
        return TOOL_CALLS + dumps(listed)

    def parse(self, text: str, reading: Reading = NO_TOOLS) -> Found:
        """The calls after `[TOOL_CALLS]`, in any version's shape; reading stops at the first broken one.

        It stops because a call list is one unit: after a broken call, what looks like a call may be
        inside one of its strings. Near misses in the prose around (a call list whose `[TOOL_CALLS]` a
        server dropped, say) are read too.
        """
        found = Found(limit=reading.limit)
        start = text.find(TOOL_CALLS)
        start = len(text) if start < 0 else start
        head = scan(text, 0, start, found, reading, self.how)
        position = start
        while not found.full and text.startswith(TOOL_CALLS, position):
            position = skip_space(text, position + len(TOOL_CALLS))
            listed = text[position : position + 1] in ("[", "{")
            if listed:
                items, position = _json_calls(text, position, self.how, reading.limit + 1 - len(found.items))
            else:
                items, position = _named(text, position, self.how)
            found.items.extend(items)
            if any(isinstance(item, RawError) for item in items):
                break
            position = skip_space(text, position)
        tail = scan(text, position, len(text), found, reading, self.how) if not found.full else ""
        found.text = tidy(head + tail).strip().removesuffix(EOS).strip()
        return found

    @property
    def how(self) -> str:
        """How to write a call in this version, for error messages."""
        if self.version in ("v11", "v13"):
            return f"Write {TOOL_CALLS}name{ARGS}{{...}} for each call, with the arguments as a JSON object"
        return f'Write {TOOL_CALLS}[{{"name": "...", "arguments": {{...}}}}], with the arguments as a JSON object'

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str:
        said = dumps({"error": result.text}) if result.is_error else result.text
        if self.version == "v2":
            return f"[TOOL_RESULTS]{dumps([{'name': call.name, 'content': loose_json(said)}])}[/TOOL_RESULTS]"
        if self.version == "v3":
            return f"[TOOL_RESULTS]{dumps({'content': loose_json(said), 'call_id': call.id})}[/TOOL_RESULTS]"
        if self.version == "v13":
            return f"[TOOL_RESULTS]{said}[/TOOL_RESULTS]"
        return f"[TOOL_RESULTS]{call.id}[TOOL_CONTENT]{said}[/TOOL_RESULTS]"


def _json_calls(text: str, position: int, how: str, keep: int) -> tuple[list[RawCall | RawError], int]:
    """v2 to v7: a JSON list of calls (or one call object); past `keep` calls, the rest is not read."""
    decoded = decode_at(text, position)
    if isinstance(decoded, Broken):
        problem = f"could not read the tool calls {snippet(text, position)}: {decoded.message}"
        return [RawError(f"{problem}. {how}")], len(text)
    value, end = decoded
    return [read_call(item, id_key="id") for item in (value if isinstance(value, list) else [value])[:keep]], end


def _named(text: str, position: int, how: str) -> tuple[list[RawCall | RawError], int]:
    """v11 and v13: `name[CALL_ID]id[ARGS]{...}` or `name[ARGS]{...}`."""
    args = text.find(ARGS, position)
    head = text[position : args if args >= 0 else len(text)]
    name, _, written_id = head.partition(CALL_ID)
    name = name.strip()
    if args < 0 or not name or any(c.isspace() for c in name):
        problem = f"expected a tool name and {ARGS} after {TOOL_CALLS}, found {snippet(head)}"
        return [RawError(f"could not read the tool call: {problem}. {how}", name if args >= 0 else "")], len(text)
    decoded = decode_at(text, args + len(ARGS))
    if isinstance(decoded, Broken):
        return [RawError(f"could not read the arguments of {name!r}: {decoded.message}. {how}", name)], len(text)
    value, end = decoded
    call = read_call({"name": name, "arguments": value})
    if isinstance(call, RawCall) and written_id.strip():
        call = RawCall(call.name, call.arguments, written_id.strip())
    return [call], end
