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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from ..core.results import ModelResult, error_result
from ..core.specs import ToolSpec

ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ID_LENGTH = 9  # Mistral's rule for call ids (`^[a-zA-Z0-9]{9}$`); every format's ids follow it
PARSE_FAILURES = (ValueError, TypeError, RecursionError, MemoryError)  # what decoding hostile text may raise


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


@dataclass
class Found:
    """A format's reading of one text: calls and errors in the order written, and the prose left over."""

    items: list[RawCall | RawError] = field(default_factory=list)
    text: str = ""


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

    def parse(self, text: str) -> Found: ...

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str: ...


def call_id(text: str, index: int) -> str:
    """A Mistral-shaped id for the `index`th call of `text`: stable across runs, distinct within a text."""
    digest = int.from_bytes(hashlib.sha256(f"{index}\x00{text}".encode("utf-8", "surrogatepass")).digest(), "big")
    chars = []
    for _ in range(ID_LENGTH):
        digest, rest = divmod(digest, len(ID_ALPHABET))
        chars.append(ID_ALPHABET[rest])
    return "".join(chars)


def valid_id(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == ID_LENGTH and all(c in ID_ALPHABET for c in value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # strict JSON: no NaN or Infinity


def decode_at(text: str, start: int) -> tuple[Any, int] | str:
    """The JSON value starting at `start` (after whitespace) and where it ends, or why there is none."""
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    try:
        return DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        if exc.pos >= len(text.rstrip()):
            return "unfinished JSON: the text ends before the value is closed"
        return f"broken JSON ({exc.msg} at character {exc.pos - start + 1})"
    except PARSE_FAILURES as exc:
        return f"JSON that cannot be read ({type(exc).__name__}: {str(exc)[:80]})"


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
    (as OpenAI's API sends them), and no arguments at all for a tool that takes none.
    """
    if not isinstance(value, dict):
        return RawError(f'a tool call must be a JSON object with "name" and "arguments", not {_kind(value)}')
    name = value.get("name")
    if not isinstance(name, str) or not name:
        return RawError('a tool call needs a "name": the tool\'s name as listed, as a string')
    key = "arguments" if "arguments" in value or "parameters" not in value else "parameters"
    arguments = value.get(key, {})
    if isinstance(arguments, str):
        decoded = decode_at(arguments, 0)
        if isinstance(decoded, str) or arguments[decoded[1] :].strip():
            return RawError(f'the "{key}" of {name!r} must be a JSON object, not a string', name)
        arguments = decoded[0]
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return RawError(f'the "{key}" of {name!r} must be a JSON object, not {_kind(arguments)}', name)
    found_id = value.get(id_key) if id_key else None
    return RawCall(name, arguments, found_id if isinstance(found_id, str) else None)


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


def snippet(text: str, limit: int = 60) -> str:
    """The start of some model text, quoted for an error message."""
    flat = " ".join(text.split())
    return json.dumps(flat if len(flat) <= limit else flat[: limit - 1] + "…", ensure_ascii=False)
