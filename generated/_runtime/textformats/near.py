# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Calls in a slightly wrong shape, found in the prose a format leaves over: read, or answered.

A model that means to call a tool does not always write its format exactly: Hermes JSON without its
`<tool_call>` tags or in a Markdown fence, Llama 3.1's `<function=name>{...}</function>`, a Mistral call
list without `[TOOL_CALLS]` (a special token, which servers often drop from the text), `name[ARGS]{...}`
without it, JSON after a sentence or in Python's single quotes. Left as prose, such a call ends the loop
while the model believes it called the tool. What counts is a call shape naming a tool the toolset has
(`Reading.known`): it is read when it can be, else it is an error that shows the format's own form.
Prose, code and JSON that name no tool stay prose.

Each shape is found by one regular expression without nested repetition, and each candidate is read
once, from where it starts to where it ends; scanning goes on after it, so it is linear in the text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .calls import (
    PARSE_FAILURES,
    Broken,
    Found,
    RawCall,
    RawError,
    Reading,
    call_items,
    decode_at,
    json_safe,
    names_a_tool,
    read_call,
    snippet,
)


@dataclass(frozen=True)
class Region:
    """The text being scanned, where the scan must stop, and what a reader needs to judge a candidate."""

    text: str
    end: int
    reading: Reading
    how: str  # the format's own form, for error messages


@dataclass(frozen=True)
class Hit:
    """What a candidate is: calls or errors read up to `end`; or, without items, prose (scanning goes on at `end`)."""

    end: int
    items: tuple[RawCall | RawError, ...] = ()


Reader = Callable[[Region, int], Hit]


@dataclass(frozen=True)
class Shapes:
    """Call shapes: one pattern for where any of them may start, and each shape's reader, by group name."""

    pattern: re.Pattern[str]
    readers: Mapping[str, Reader]


def shapes(found: Mapping[str, tuple[str, Reader]]) -> Shapes:
    """Shapes from `{name: (pattern, reader)}`; each pattern has no capturing group of its own."""
    pattern = "|".join(f"(?P<{name}>{regex})" for name, (regex, _) in found.items())
    return Shapes(re.compile(pattern, re.MULTILINE), {name: reader for name, (_, reader) in found.items()})


def scan(text: str, start: int, end: int, found: Found, reading: Reading, how: str, kinds: Shapes | None = None) -> str:
    """The prose of `text[start:end]`: each near miss in it is read into `found`, in order, and taken out."""
    kinds = kinds or SHAPES
    region = Region(text, end, reading, how)
    pieces: list[str] = []
    position = at = start
    while at < end and not found.full and (match := kinds.pattern.search(text, at, end)):
        hit = kinds.readers[match.lastgroup or ""](region, match.start())
        if not hit.items:
            at = max(hit.end, match.start() + 1)
            continue
        opener = _OPENER.search(text, max(position, match.start() - 64), match.start())
        pieces.append(text[position : opener.start() if opener else match.start()])
        found.items.extend(_shown(item, how) for item in hit.items)
        position = at = _past_closers(text, hit.end, end)
    pieces.append(text[position:end] if not found.full else "")
    return "".join(pieces)


def tidy(prose: str) -> str:
    """Prose without the Markdown fences left empty once the calls inside them were read."""
    return _EMPTY_FENCE.sub("", prose)


# --- the shapes every format looks for ------------------------------------------------------------

_QUOTE = r"""["']"""
_JSON = (  # an object (or a list of them) whose first key is a call's, or OpenAI's wrapper's
    rf"(?:\[\s*+)?\{{\s*+{_QUOTE}(?:(?:name|arguments|parameters|function){_QUOTE}\s*+:"
    rf"|type{_QUOTE}\s*+:\s*+{_QUOTE}function|id{_QUOTE}\s*+:\s*+{_QUOTE})"
)
_FUNCTION = r"<function=[^>\s]{1,128}>"
_NAMED = r"(?<![\w.\-/])[A-Za-z_][\w.\-/]*+(?:\[CALL_ID\][A-Za-z0-9]*+)?\[ARGS\]"
_FUNCTION_TAG = re.compile(r"<function=([^>\s]{1,128})>")
_NAMED_ARGS = re.compile(r"([A-Za-z_][\w.\-/]*+)(?:\[CALL_ID\]([A-Za-z0-9]*+))?\[ARGS\]")
_NAME_KEY = re.compile(r"""["']name["']\s*+:\s*+["']([^"'\\\n]{1,128})["']""")
_TOKEN = re.compile(r""""(?:[^"\\\n]|\\.)*+"?|'(?:[^'\\\n]|\\.)*+'?|[\[\]{}()]""")  # strings end at a newline
_OPENER = re.compile(r"(?:```[\w-]*+|<\|python_tag\|>|<tool_call>|<tools>|\[TOOL_CALLS\])\s*+\Z")
_CLOSER = re.compile(r"\s*+(?:```|</tool_call>|</tools>|</function>|<\|eom_id\|>|<\|eot_id\|>|<\|python_end\|>)")
_EMPTY_FENCE = re.compile(r"```[\w-]*+\s*+```")


def span_end(text: str, start: int, end: int) -> int | None:
    """Where the bracket opened at `start` closes (strings skipped, in either quote), or None before `end`."""
    depth = 0
    for token in _TOKEN.finditer(text, start, end):
        char = text[token.start()]
        if char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
            if depth <= 0:
                return token.end()
    return None


def _read_json(region: Region, start: int) -> Hit:
    """A call object (or a list of them) anywhere in the prose, in JSON or with Python's quotes and constants."""
    text, reading = region.text, region.reading
    decoded = decode_at(text, start)
    if isinstance(decoded, tuple) and decoded[1] <= region.end:
        value, end = decoded
    else:  # not JSON: a call in Python's quotes, or a broken one, when it names a tool
        close = span_end(text, start, region.end)
        end = region.end if close is None else close
        names = (m.group(1) for m in _NAME_KEY.finditer(text, start, end))
        named = next((name for name in names if reading.known(name)), None)
        if named is None:
            return Hit(end)
        value = _literal(text[start:close]) if close is not None else None
        if value is None:
            problem = decoded.message if isinstance(decoded, Broken) else "the value runs past the end of the text"
            return Hit(end, (RawError(f"could not read the tool call {snippet(text, start)}: {problem}", named),))
    items = call_items(value)
    if not items or not names_a_tool(items, reading):
        return Hit(end)
    return Hit(end, tuple(read_call(item) for item in items))


def _literal(source: str) -> Any:
    """A Python literal JSON can hold (`{'name': 'f', 'arguments': {'on': True}}`), else None; never evaluated."""
    try:
        value = ast.literal_eval(source)
    except (SyntaxError, *PARSE_FAILURES):
        return None
    return value if isinstance(value, dict | list) and json_safe(value) else None


def _read_function(region: Region, start: int) -> Hit:
    """Llama 3.1's custom tool call, `<function=name>{"arg": ...}</function>`."""
    tag = _FUNCTION_TAG.match(region.text, start)
    if tag is None or not region.reading.known(tag.group(1)):
        return Hit(start + 1 if tag is None else tag.end())
    return _arguments_after(region, tag.group(1), tag.end(), None)


def _read_named(region: Region, start: int) -> Hit:
    """Mistral's v11 and v13 call, `name[ARGS]{...}` (or `name[CALL_ID]id[ARGS]{...}`), without `[TOOL_CALLS]`."""
    named = _NAMED_ARGS.match(region.text, start)
    if named is None or not region.reading.known(named.group(1)):
        return Hit(start + 1 if named is None else named.end())
    return _arguments_after(region, named.group(1), named.end(), named.group(2) or None)


def _arguments_after(region: Region, name: str, start: int, written_id: str | None) -> Hit:
    decoded = decode_at(region.text, start)
    if isinstance(decoded, tuple) and decoded[1] <= region.end and isinstance(decoded[0], dict):
        call = read_call({"name": name, "arguments": decoded[0]})
        if isinstance(call, RawCall) and written_id:
            call = RawCall(call.name, call.arguments, written_id)
        return Hit(decoded[1], (call,))
    problem = decoded.message if isinstance(decoded, Broken) else "the arguments must be one JSON object"
    return Hit(start, (RawError(f"could not read the arguments of {name!r}: {problem}", name),))


def _shown(item: RawCall | RawError, how: str) -> RawCall | RawError:
    """An error with the format's own form, so that the model writes the call right the next time."""
    if isinstance(item, RawCall) or how in item.message:
        return item
    return RawError(f"{item.message.rstrip('.')}. {how}", item.name)


def _past_closers(text: str, position: int, end: int) -> int:
    """After a near miss: past the fence or tag that closed it (what opened it is dropped with it)."""
    while closer := _CLOSER.match(text, position, end):
        position = closer.end()
    return position


GENERIC: dict[str, tuple[str, Reader]] = {
    "json": (_JSON, _read_json),
    "function": (_FUNCTION, _read_function),
    "named": (_NAMED, _read_named),
}
SHAPES = shapes(GENERIC)
