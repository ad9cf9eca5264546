"""Hermes tool calls: `<tools>` in the system prompt, `<tool_call>{json}</tool_call>`, `<tool_response>`.

The convention of Nous Research's Hermes 2 Pro and Hermes 3 models (and of Qwen 2.5, trained on it), as
their model cards show it under "Prompt Format for Function Calling", e.g.
https://huggingface.co/NousResearch/Hermes-3-Llama-3.2-3B: the system prompt below, word for word, with
each tool as `{"type": "function", "function": {...}}`; a call as `<tool_call>\\n{"arguments": ...,
"name": ...}\\n</tool_call>`; a result in the `tool` role as `<tool_response>\\n{"name": ..., "content":
...}\\n</tool_response>`. Several calls are several blocks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.results import ModelResult
from ..core.specs import ToolSpec
from .calls import (
    NO_TOOLS,
    CallError,
    Found,
    ParsedCall,
    RawCall,
    RawError,
    Reading,
    call_items,
    content,
    decode_at,
    dumps,
    read_call,
    skip_space,
    snippet,
)
from .near import scan, tidy

OPEN, CLOSE = "<tool_call>", "</tool_call>"
HOW = f'Write each call as {OPEN}\\n{{"arguments": {{...}}, "name": "..."}}\\n{CLOSE}'
PROMPT_HEAD = (
    "You are a function calling AI model. You are provided with function signatures within <tools></tools> XML "
    "tags. You may call one or more functions to assist with the user query. Don't make assumptions about what "
    "values to plug into functions. Here are the available tools: <tools> "
)
PROMPT_TAIL = (
    "  </tools> Use the following pydantic model json schema for each tool call you will make: "
    '{"properties": {"arguments": {"title": "Arguments", "type": "object"}, "name": {"title": "Name", "type": '
    '"string"}}, "required": ["arguments", "name"], "title": "FunctionCall", "type": "object"} For each function '
    "call return a json object with function name and arguments within <tool_call></tool_call> XML tags as "
    'follows:\n<tool_call>\n{"arguments": <args-dict>, "name": <function-name>}\n</tool_call>'
)


@dataclass(frozen=True)
class Hermes:
    name: str = "hermes"
    role: str = "tool"

    def wire_name(self, name: str) -> str:
        return name

    def prompt(self, tools: Sequence[ToolSpec]) -> str:
        rendered = [
            dumps(
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": dict(t.input_schema)},
                },
                escape_markup=True,
            )
            for t in tools
        ]
        return PROMPT_HEAD + " ".join(rendered) + PROMPT_TAIL

    def render_calls(self, calls: Sequence[ParsedCall]) -> str:
        return "\n".join(f"{OPEN}\n{dumps({'arguments': dict(c.arguments), 'name': c.name})}\n{CLOSE}" for c in calls)

    def parse(self, text: str, reading: Reading = NO_TOOLS) -> Found:
        """Every `<tool_call>` block; the JSON is decoded first, so a `</tool_call>` inside a string is text.

        A block whose JSON is whole but whose `</tool_call>` never comes (a generation stopped at the tag,
        or a model that forgot it) counts: what follows it is prose, or the next block. A block holding a
        list of calls holds each of them. Near misses in the prose (the JSON without its tags, say) are read
        too. Each tag is searched for once, forward: reading is linear in the text.
        """
        found = Found(limit=reading.limit)
        prose: list[str] = []
        position = 0
        opens, closes = _Next(text, OPEN), _Next(text, CLOSE)
        while (start := opens.at(position)) >= 0:
            prose.append(scan(text, position, start, found, reading, HOW))
            if found.full:
                break
            body = start + len(OPEN)
            decoded = decode_at(text, body)
            after_json = decoded[1] if isinstance(decoded, tuple) else body  # tags inside a decoded string are text
            close, following = closes.at(after_json), opens.at(after_json)
            unclosed = close < 0 or 0 <= following < close
            if isinstance(decoded, tuple):
                after = skip_space(text, after_json)
                if text.startswith(CLOSE, after) or unclosed:
                    found.items.extend(_block(decoded[0]))
                    position = after + len(CLOSE) if text.startswith(CLOSE, after) else after_json
                    continue
                problem = f"{CLOSE} must follow the JSON object"
            else:
                problem = decoded.message
            if unclosed:  # the broken block runs to the next one, or to the end
                block_end = stop = following if following >= 0 else len(text)
            else:
                block_end, stop = close, close + len(CLOSE)
            block = snippet(text[body:block_end])
            found.items.append(RawError(f"could not read the tool call {block}: {problem}. {HOW}"))
            position = stop
        prose.append(scan(text, position, len(text), found, reading, HOW) if not found.full else "")
        found.text = tidy("".join(prose)).strip()
        return found

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str:
        body = dumps({"name": call.name, "content": content(result)}, escape_markup=True)
        return f"<tool_response>\n{body}\n</tool_response>"


def _block(value: Any) -> list[RawCall | RawError]:
    """The calls of one block: its object, or each object of a list of calls (as Qwen models sometimes write)."""
    listed = call_items(value) if isinstance(value, list) else []
    return [read_call(item) for item in listed] if listed else [read_call(value)]


class _Next:
    """Where a marker next occurs at or after a position; positions asked only grow, so each stretch of the
    text is searched once (a reply of many blocks without `</tool_call>` does not search to the end each time)."""

    def __init__(self, text: str, marker: str) -> None:
        self.text, self.marker = text, marker
        self.searched, self.found = 0, text.find(marker)

    def at(self, position: int) -> int:
        if position < self.searched or 0 <= self.found < position:
            self.searched, self.found = position, self.text.find(self.marker, position)
        return self.found
