# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Plain JSON tool calls: `{"name": ..., "arguments": {...}}`, or a list of them, for any instruction model.

The fallback for a model trained on no tool format: the prompt says everything. It follows the wording of
Llama 3.1's JSON-based tool calling (https://github.com/meta-llama/llama-models, models/llama3_1/
prompt_format.md, "JSON based tool calling"), and reads what that writes too: `"parameters"` for
`"arguments"`, a leading `<|python_tag|>`, a Markdown fence. Results go back in the `user` role, which
every chat template takes.
"""

from __future__ import annotations

import re
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
    RawError,
    Reading,
    call_items,
    content,
    decode_at,
    dumps,
    names_a_tool,
    read_call,
    snippet,
    unwrap,
)
from .near import scan, tidy

PROMPT_HEAD = """Answer the user's question by making use of the following functions if needed.
If none of the function can be used, please say so.
Here is a list of functions in JSON format:
"""
PROMPT_TAIL = """

To call functions, reply with only a JSON object {"name": <function name>, "arguments": <its arguments as a JSON \
object>}, or a JSON list of such objects to call several at once. Each result comes back as {"name": <function name>, \
"content": <the result>}. Once you have what you need, answer in plain text."""
_LINE_START = re.compile(r'^[ \t]*+(?:<\|python_tag\|>)?[ \t]*+(?=(?:\[\s*+)?\{\s*+")', re.MULTILINE)  # an object
_CALL_LIKE = re.compile(r'\s*+(?:\[\s*+)?\{\s*+"(?:name|arguments|parameters)"')
_NOISE = re.compile(r"<\|python_tag\|>|<\|eom_id\|>|<\|eot_id\|>|```(?:json)?\s*```")
HOW = 'Write {"name": "...", "arguments": {...}} (or a JSON list of them) on a line of its own'


@dataclass(frozen=True)
class JsonCalls:
    name: str = "json"
    role: str = "user"

    def wire_name(self, name: str) -> str:
        return name

    def prompt(self, tools: Sequence[ToolSpec]) -> str:
        listed = [
            dumps({"name": t.name, "description": t.description, "parameters": schema}, escape_markup=True)
            for t in tools
            for schema in [dict(t.input_schema)]
        ]
        return PROMPT_HEAD + "[\n" + ",\n".join(listed) + "\n]" + PROMPT_TAIL

    def render_calls(self, calls: Sequence[ParsedCall]) -> str:
        listed = [{"name": c.name, "arguments": dict(c.arguments)} for c in calls]
        return dumps(listed[0] if len(listed) == 1 else listed)

    def parse(self, text: str, reading: Reading = NO_TOOLS) -> Found:
        """JSON values that start a line and are calls; other JSON (an answer's data) stays text.

        A value that starts like a call but does not decode is an error; reading goes on at the next line.
        A call after a sentence on its line, or in Python's quotes, is read as a near miss when it names a
        tool. Each value is decoded once: reading goes on after it, or after where it broke.
        """
        found = Found(limit=reading.limit)
        prose: list[str] = []
        position = cursor = 0  # prose runs from `position`; the search for calls goes on from `cursor`
        while not found.full and (match := _LINE_START.search(text, cursor)):
            start = match.end()
            decoded = decode_at(text, start)
            if isinstance(decoded, tuple) and (items := _calls(decoded[0], reading)):
                prose.append(scan(text, position, start, found, reading, HOW))
                found.items.extend(read_call(item) for item in items[: reading.limit + 1 - len(found.items)])
                position = cursor = decoded[1]
            elif isinstance(decoded, Broken) and _CALL_LIKE.match(text, start):
                prose.append(scan(text, position, start, found, reading, HOW))
                problem = f"could not read the tool call {snippet(text, start)}: {decoded.message}"
                found.items.append(RawError(f"{problem}. {HOW}"))
                position = cursor = _line_end(text, max(start, decoded.at))
            else:  # not a call: go on after the value, or after the line where it broke
                cursor = decoded[1] if isinstance(decoded, tuple) else _line_end(text, max(start, decoded.at)) + 1
        prose.append(scan(text, position, len(text), found, reading, HOW) if not found.full else "")
        found.text = tidy(_NOISE.sub("", "".join(prose))).strip()
        return found

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str:
        return dumps({"name": call.name, "content": content(result)}, escape_markup=True)


def _calls(value: Any, reading: Reading) -> list[Any]:
    """The calls a value on its own line holds: every item call-shaped, and either one naming a tool or one
    with its arguments written (a misspelled tool is an error; `{"name": "Ada"}` is data)."""
    items = call_items(value)
    written = any("arguments" in unwrap(item) or "parameters" in unwrap(item) for item in items)
    return items if items and (written or names_a_tool(items, reading)) else []


def _line_end(text: str, position: int) -> int:
    newline = text.find("\n", position)
    return len(text) if newline < 0 else newline
