# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Tool calls written as text, as a model without native tool calling writes them, and what parsing finds.

Everything here treats model text as data: JSON is decoded, never evaluated, and nothing raises on
what a model writes. A problem becomes a `CallError` phrased for the model, which it reads back as
the result of the call it tried, so that it can try again.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from ..core.results import ModelResult, error_result
from ..core.specs import ToolSpec

ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ID_LENGTH = 9  # Mistral's rule for call ids (`^[a-zA-Z0-9]{9}$`); every format's ids follow it
PARSE_FAILURES = (ValueError, TypeError, RecursionError, MemoryError)  # what decoding hostile text may raise
MAX_CALLS = 256  # calls one reply may make: past it, one `CallError` says so and the rest is not read


@dataclass(frozen=True)
class ParsedCall:
    """One tool call read from model text: the tool as the toolset knows it, and its arguments."""

    name: str  # a provider name (`server__tool`) or a meta-tool
    arguments: Mapping[str, Any]
    id: str  # the model's own id where its format has one, else derived from the text: the same text, the same ids
    index: int = 0  # its place among the calls the model tried in that text, errors included


@dataclass(frozen=True)
class CallError:
    """A call the model tried that could not be read; `message` tells the model what to do instead."""

    message: str
    id: str
    index: int = 0
    name: str = ""  # the name the model wrote, when one could be read

    @property
    def result(self) -> ModelResult:
        """The error as the result of the call, to send back with `text_result` like any other."""
        return error_result(self.message)


@dataclass(frozen=True)
class ParsedCalls:
    """What a model's text holds: the calls that can run, the ones that cannot, and the prose around them."""

    calls: tuple[ParsedCall, ...] = ()
    errors: tuple[CallError, ...] = ()
    text: str = ""

    def in_order(self) -> list[ParsedCall | CallError]:
        """Calls and errors in the order the model wrote them: results go back in that order."""
        return sorted([*self.calls, *self.errors], key=lambda item: item.index)


@dataclass(frozen=True)
class RawCall:
    """A call as a format read it, before its name is matched to a tool."""

    name: str
    arguments: dict[str, Any]
    id: str | None = None  # only formats whose text carries ids set it


@dataclass(frozen=True)
class RawError:
    message: str
    name: str = ""


def no_tool(name: str) -> bool:
    return False


@dataclass(frozen=True)
class Reading:
    """What a parse needs besides the text: which names are tools (so that a call in a slightly wrong shape
    is told from prose that happens to look like one), and how many calls a reply may make."""

    known: Callable[[str], bool] = no_tool
    limit: int = MAX_CALLS


NO_TOOLS = Reading()  # a format's own parse alone: only its exact form is read


@dataclass
class Found:
    """A format's reading of one text: calls and errors in the order written, and the prose left over."""

    items: list[RawCall | RawError] = field(default_factory=list)
    text: str = ""
    limit: int = MAX_CALLS

    @property
    def full(self) -> bool:
        """More items than a reply may hold: reading stops there, and what follows is neither read nor prose."""
        return len(self.items) > self.limit


class TextFormat(Protocol):
    """A family's convention for tools in a prompt, calls in the model's text, and results sent back."""

    @property
    def name(self) -> str: ...

    @property
    def role(self) -> str: ...  # the chat role the family's templates give a tool result

    def wire_name(self, name: str) -> str:
        """How `name` is written in this format (the same, unless the format cannot write it)."""
        ...

    def prompt(self, tools: Sequence[ToolSpec]) -> str: ...

    def render_calls(self, calls: Sequence[ParsedCall]) -> str: ...

    def parse(self, text: str, reading: Reading = NO_TOOLS) -> Found: ...

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str: ...


def reply_digest(text: str) -> bytes:
    """The hash of a whole reply, taken once per reply: each call's id derives from it (`call_id`)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def call_id(digest: bytes, index: int) -> str:
    """A Mistral-shaped id for the `index`th call of the reply hashed to `digest`: stable across runs,
    distinct within a reply, and cheap per call however long the reply (the reply is not hashed again)."""
    number = int.from_bytes(hashlib.sha256(f"{index}\x00".encode() + digest).digest(), "big")
    chars = []
    for _ in range(ID_LENGTH):
        number, rest = divmod(number, len(ID_ALPHABET))
        chars.append(ID_ALPHABET[rest])
    return "".join(chars)


def valid_id(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == ID_LENGTH and all(c in ID_ALPHABET for c in value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # `1e999`: a server would get null
        raise ValueError(f"{text[:24]} is beyond what a JSON number can carry")
    return value


DECODER = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite)  # strict JSON: no NaN or Infinity
_WINDOW = 512  # the first window `decode_at` decodes from; it grows as needed
_LOOKAHEAD = 16  # how far past a character the decoder may look (`\uXXXX`, `false`, a number's digits)


@dataclass(frozen=True)
class Broken:
    """Why no JSON value could be read, and how far the attempt read (the end of the text when unknown)."""

    message: str
    at: int


_TRAILING_SPACE = re.compile(r"\s*+\Z")
_SPACE = re.compile(r"\s*+")


def skip_space(text: str, position: int) -> int:
    """Past the whitespace at `position`, by index: the rest of the text is not copied."""
    found = _SPACE.match(text, position)
    return found.end() if found else position


def decode_at(text: str, start: int) -> tuple[Any, int] | Broken:
    """The JSON value starting at `start` (after whitespace) and where it ends, or why there is none.

    Far into a text, the value is decoded from a window of it that grows (x4) until the value fits in
    it or fails inside it: a failure costs what was read, not the length of the text before it
    (`JSONDecodeError` counts the lines of the whole string it was given), so many broken values in a
    long reply stay linear. Near the start, that count is cheap, and the text is decoded as it is.
    """
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    size = len(text) if start <= _WINDOW else _WINDOW
    while True:
        whole = start + size >= len(text)
        window, offset = (text, start) if start <= _WINDOW else (text[start : start + size], 0)
        try:
            value, end = DECODER.raw_decode(window, offset)
        except json.JSONDecodeError as exc:
            cut = not whole and (exc.pos >= len(window) - _LOOKAHEAD or exc.msg.startswith("Unterminated string"))
            if cut:
                size *= 4  # the window may have cut the value: read more
                continue
            if _TRAILING_SPACE.match(window, exc.pos):  # by index: no copy of the rest of the text
                return Broken("unfinished JSON: the text ends before the value is closed", len(text))
            return Broken(f"broken JSON ({exc.msg} at character {exc.pos - offset + 1})", start + exc.pos - offset)
        except PARSE_FAILURES as exc:
            return Broken(f"JSON that cannot be read ({type(exc).__name__}: {str(exc)[:80]})", len(text))
        if whole or end < len(window) - _LOOKAHEAD:
            return value, start + end - offset
        size *= 4  # a number or a literal at the window's edge may go on past it


def loose_json(text: str) -> Any:
    """`text` as the JSON value it spells, else the text itself (how Mistral's templates treat tool output)."""
    try:
        return json.loads(text)
    except PARSE_FAILURES:
        return text


def dumps(value: Any, *, escape_markup: bool = False, indent: int | None = None) -> str:
    """JSON as the families' own examples write it (`", "` and `": "`), non-ASCII kept.

    `escape_markup` writes `<` as `\\u003c` (the same JSON value), so that a description or a result
    cannot close a tag of the format around it (`</tools>`, `</tool_response>`) or open a special token.
    """
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent)
    return text.replace("<", "\\u003c") if escape_markup else text


def content(result: ModelResult) -> Any:
    """What a result says, as a JSON value: its text decoded when it is JSON; an error as `{"error": text}`."""
    return {"error": result.text} if result.is_error else loose_json(result.text)


def read_call(value: Any, *, id_key: str | None = None) -> RawCall | RawError:
    """A call from a decoded JSON object `{"name": ..., "arguments": {...}}`.

    Also read: `parameters` for `arguments` (Llama 3.1's JSON calls), arguments sent as a JSON string
    (as OpenAI's API sends them), no arguments at all for a tool that takes none, and the call wrapped
    as OpenAI lists it (`{"type": "function", "function": {...}}`), as models that copy it write it.
    """
    value = unwrap(value)
    if not isinstance(value, dict):
        return RawError(f'a tool call must be a JSON object with "name" and "arguments", not {_kind(value)}')
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return RawError('a tool call needs a "name": the tool\'s name as listed, as a string')
    key = "arguments" if "arguments" in value or "parameters" not in value else "parameters"
    arguments = value.get(key, {})
    if isinstance(arguments, str):
        decoded = decode_at(arguments, 0)
        if isinstance(decoded, Broken) or arguments[decoded[1] :].strip():
            return RawError(f'the "{key}" of {name!r} must be a JSON object, not a string', name)
        arguments = decoded[0]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return RawError(f'the "{key}" of {name!r} must be a JSON object, not {_kind(arguments)}', name)
    found_id = value.get(id_key) if id_key else None
    return RawCall(name, arguments, found_id if isinstance(found_id, str) else None)


def unwrap(value: Any) -> Any:
    """The call inside OpenAI's wrapper (`{"type": "function", "function": {"name": ...}}`), else `value`."""
    if isinstance(value, dict) and "name" not in value and isinstance(value.get("function"), dict):
        inner = value["function"]
        return {**inner, "id": value["id"]} if "id" in value and "id" not in inner else inner
    return value


def call_shaped(value: Any) -> bool:
    """An object naming a tool and holding its arguments (`{"name": ...}` alone too, for a tool without any)."""
    value = unwrap(value)
    if not (isinstance(value, dict) and isinstance(value.get("name"), str)):
        return False
    return "arguments" in value or "parameters" in value or set(value) <= {"name", "type", "id"}


def call_items(value: Any) -> list[Any]:
    """The calls a decoded value holds: itself, or each item of a list, when every one is call-shaped."""
    items = value if isinstance(value, list) and value else [value]
    return items if all(call_shaped(item) for item in items) else []


def names_a_tool(items: Sequence[Any], reading: Reading) -> bool:
    """Does any of these call-shaped items name a tool the toolset has?"""
    return any(reading.known(unwrap(item)["name"]) for item in items)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def json_safe(value: Any) -> bool:
    """Can `value` go out as JSON unchanged (what the pythonic format's literals must be)?"""
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(json_safe(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and json_safe(v) for k, v in value.items())
    return False


def snippet(text: str, start: int = 0, limit: int = 60) -> str:
    """The start of some model text (from `start`), quoted for an error message; only its head is read."""
    head = text[start : start + limit * 8]
    flat = " ".join(head.split())
    if len(flat) <= limit and len(text) - start <= len(head):
        return json.dumps(flat, ensure_ascii=False)
    return json.dumps(flat[: limit - 1] + "…", ensure_ascii=False)
