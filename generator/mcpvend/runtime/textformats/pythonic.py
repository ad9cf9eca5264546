"""Pythonic tool calls, as Llama 3.2 and Llama 4 write them: `[get_weather(city='Paris'), f(x=1)]`.

Meta's convention (https://github.com/meta-llama/llama-models, models/llama3_2/text_prompt_format.md,
"Zero shot function calling"; models/llama4/prompt_format.md): the system prompt below with the tools
as a JSON list (indent 4); the model answers with a Python list of calls by keyword; each result comes
back in the `ipython` role as JSON (`"25 C"`).

Model text is never run: the list is read with `ast.parse` and each value with `ast.literal_eval`, and
only values JSON can hold are kept. A tool name that is not a Python identifier (`everything__get-sum`)
is listed under an identifier of its own (`python_name`), and read back either way.
"""

from __future__ import annotations

import ast
import hashlib
import keyword
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.results import ModelResult
from ..core.specs import ToolSpec
from .calls import (
    PARSE_FAILURES,
    CallError,
    Found,
    ParsedCall,
    RawCall,
    RawError,
    content,
    dumps,
    json_safe,
    snippet,
)

PROMPT = (  # Meta's words, line for line
    "You are an expert in composing functions. You are given a question and a set of possible functions.\n"
    "Based on the question, you will need to make one or more function/tool calls to achieve the purpose.\n"
    "If none of the function can be used, point it out. If the given question lacks the parameters required by the "
    "function,\nalso point it out. You should only return the function call in tools call sections.\n\n"
    "If you decide to invoke any of the function(s), you MUST put it in the format of [func_name1(params_name1="
    "params_value1, params_name2=params_value2...), func_name2(params)]\n"
    "You SHOULD NOT include any other text in the response.\n\n"
    "Here is a list of functions in JSON format that you can invoke.\n\n"
)
MARKERS = ("<|python_tag|>", "<|python_start|>", "<|python_end|>", "<|eot_id|>", "<|eom_id|>", "<|eot|>")
_CANDIDATE = re.compile(r"\[\s*[A-Za-z_][\w.\-]*\s*\(")  # a list whose first item starts like a call
_NAME = re.compile(r"[A-Za-z_][\w.\-]*(?=\s*\()")
_UNSAFE = re.compile(r"[^0-9A-Za-z_]")
HOW = "Write [tool_name(arg=value, ...), ...] with Python literals as values"


def _keyword_safe(name: str) -> bool:
    """Can `name` be written as a keyword argument and read back the same? (Python NFKC-normalizes identifiers.)"""
    return name.isidentifier() and not keyword.iskeyword(name) and unicodedata.normalize("NFKC", name) == name


def python_name(name: str) -> str:
    """`name` if it is a Python identifier, else a readable identifier with a hash of `name` (one-to-one)."""
    if _keyword_safe(name):
        return name
    readable = _UNSAFE.sub("_", name)
    return f"{'t' if readable[:1].isdigit() else ''}{readable}_{hashlib.sha256(name.encode()).hexdigest()[:6]}"


@dataclass(frozen=True)
class Pythonic:
    name: str = "pythonic"
    role: str = "ipython"

    def wire_name(self, name: str) -> str:
        return python_name(name)

    def prompt(self, tools: Sequence[ToolSpec]) -> str:
        listed = [
            {"name": python_name(t.name), "description": t.description, "parameters": dict(t.input_schema)}
            for t in tools
        ]
        return PROMPT + dumps(listed, escape_markup=True, indent=4)

    def render_calls(self, calls: Sequence[ParsedCall]) -> str:
        return "[" + ", ".join(f"{python_name(c.name)}({_arguments(c.arguments)})" for c in calls) + "]"

    def parse(self, text: str) -> Found:
        """Each call list in the text; reading stops at a list that does not close or parse."""
        found = Found()
        prose: list[str] = []
        position = 0
        while match := _CANDIDATE.search(text, position):
            prose.append(text[position : match.start()])
            scanned = _scan(text, match.start())
            if scanned is None:
                problem = "a bracket, parenthesis or quote is not closed"
                found.items.append(
                    RawError(f"could not read the call list {snippet(text[match.start() :])}: {problem}. {HOW}")
                )
                position = len(text)
                break
            end, names = scanned
            items = _read(text, match.start(), end, names)
            found.items.extend(items)
            position = end
            if any(isinstance(item, RawError) for item in items):
                position = len(text)
                break
        prose.append(text[position:])
        rest = "".join(prose)
        for marker in MARKERS:
            rest = rest.replace(marker, "")
        found.text = rest.strip()
        return found

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str:
        return dumps(content(result), escape_markup=True)


def _arguments(arguments: Any) -> str:
    """`k=v` for keys that can be keywords, then `**{...}` for the others (`from`, `max-depth`, `ﬁle`)."""
    named = {k: v for k, v in arguments.items() if _keyword_safe(k)}
    others = {k: v for k, v in arguments.items() if k not in named}
    parts = [f"{k}={v!r}" for k, v in named.items()]
    return ", ".join([*parts, f"**{others!r}"] if others else parts)


def _scan(text: str, start: int) -> tuple[int, list[tuple[int, int]]] | None:
    """Where the list opened at `start` closes, and the spans of its calls' names; None if it never closes.

    Strings are skipped as Python reads them, so a bracket or a call inside a string is text.
    """
    depth, index, names, expect_name = 0, start, [], False
    while index < len(text):
        char = text[index]
        if char in "'\"":
            index = _string_end(text, index)
            expect_name = False
            continue
        if char == "#":
            newline = text.find("\n", index)
            index = len(text) if newline < 0 else newline
            continue
        if expect_name and not char.isspace():
            expect_name = False
            if match := _NAME.match(text, index):
                names.append(match.span())
                index = match.end()
                continue
        if char in "([{":
            depth += 1
            expect_name = depth == 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1, names
        elif char == "," and depth == 1:
            expect_name = True
        index += 1
    return None


def _string_end(text: str, start: int) -> int:
    """The index after the string literal opened at `start` (or where a one-line string stops, unclosed)."""
    quote = text[start] * 3 if text.startswith(text[start] * 3, start) else text[start]
    index = start + len(quote)
    while index < len(text):
        if text[index] == "\\":
            index += 2
        elif text.startswith(quote, index):
            return index + len(quote)
        elif text[index] == "\n" and len(quote) == 1:
            return index
        else:
            index += 1
    return len(text)


def _read(text: str, start: int, end: int, names: list[tuple[int, int]]) -> list[RawCall | RawError]:
    """The calls of one list; each name is swapped for a placeholder first, so `get-sum(...)` parses too."""
    pieces, written, position = [], {}, start
    for number, (name_start, name_end) in enumerate(names):
        placeholder = f"_mcpvend_call_{number}"
        written[placeholder] = text[name_start:name_end]
        pieces += [text[position:name_start], placeholder]
        position = name_end
    source = "".join([*pieces, text[position:end]])
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, *PARSE_FAILURES) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else type(exc).__name__
        return [RawError(f"could not read the call list {snippet(text[start:end])} as Python: {reason}. {HOW}")]
    if not isinstance(tree.body, ast.List):
        return [RawError(f"could not read {snippet(text[start:end])}: it is not a list of calls. {HOW}")]
    return [_call(element, written) for element in tree.body.elts]


def _call(node: ast.expr, written: dict[str, str]) -> RawCall | RawError:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in written):
        return RawError(f"each item of the list must be a call such as tool_name(arg=value). {HOW}")
    name = written[node.func.id]
    if node.args:
        return RawError(f"pass the arguments of {name!r} by name (arg=value), not by position", name)
    arguments: dict[str, Any] = {}
    for keyword_node in node.keywords:
        label = keyword_node.arg or "**"
        try:
            value = _json(ast.literal_eval(keyword_node.value))
        except (SyntaxError, *PARSE_FAILURES):
            return RawError(
                f"the argument {label} of {name!r} must be a literal JSON can hold: a string, a number, True, False, "
                "None, a list or a dict",
                name,
            )
        if keyword_node.arg is not None:
            arguments[keyword_node.arg] = value
        elif isinstance(value, dict):
            arguments.update(value)
        else:
            return RawError(f"** in the call of {name!r} must unpack a dict literal", name)
    return RawCall(name, arguments)


def _json(value: Any) -> Any:
    """A literal as JSON holds it (tuples become lists); sets, bytes, complex numbers, inf and nan are refused."""
    if isinstance(value, tuple | list):
        return [_json(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("dict keys must be strings")
        return {k: _json(v) for k, v in value.items()}
    if not json_safe(value):
        raise ValueError(f"{type(value).__name__} is not a JSON value")
    return value
