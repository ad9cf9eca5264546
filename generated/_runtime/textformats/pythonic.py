# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
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
    NO_TOOLS,
    PARSE_FAILURES,
    CallError,
    Found,
    ParsedCall,
    RawCall,
    RawError,
    Reading,
    content,
    dumps,
    json_safe,
    snippet,
)
from .near import GENERIC, Hit, Region, scan, shapes, tidy

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
_CANDIDATE = re.compile(r"\[\s*+[A-Za-z_][\w.\-]*+\s*+\(")  # a list whose first item starts like a call
_KEYWORD_START = re.compile(r"\[\s*+[A-Za-z_][\w.\-]*+\s*+\(\s*+(?:\)|[A-Za-z_]\w*+\s*+=(?!=))")  # `[f()` `[f(a=`
_NAME_AFTER_SPACE = re.compile(r"\s*+([A-Za-z_][\w.\-]*+)(?=\s*+\()")
_SIGNIFICANT = re.compile(r"""['"#()\[\]{},]""")
_STRINGS = {  # a string literal by its quote: one-line strings stop at a newline, unclosed
    "'": re.compile(r"'(?:[^'\\\n]|\\[\s\S])*+'?"),
    '"': re.compile(r'"(?:[^"\\\n]|\\[\s\S])*+"?'),
    "'''": re.compile(r"'''(?:[^'\\]|\\[\s\S]|'(?!''))*+(?:''')?"),
    '"""': re.compile(r'"""(?:[^"\\]|\\[\s\S]|"(?!""))*+(?:""")?'),
}
# A call without its brackets, alone on its line (after `<|python_tag|>` too): `get_weather(city='Paris')`.
_BARE = r"^[ \t]*+(?:<\|python_tag\|>|<\|python_start\|>)?[ \t]*+[A-Za-z_][\w.\-]*+[ \t]*+\("
_BARE_CALL = re.compile(r"[ \t]*+(?:<\|python_tag\|>|<\|python_start\|>)?[ \t]*+([A-Za-z_][\w.\-]*+)[ \t]*+\(")
_NEXT_CALL = re.compile(r"[ \t]*+,[ \t]*+[A-Za-z_][\w.\-]*+[ \t]*+\(")
_LINE_REST = re.compile(r"[ \t;]*+(?:$|```|<\|eom_id\|>|<\|eot_id\|>|<\|python_end\|>|<\|eot\|>)", re.MULTILINE)
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

    def parse(self, text: str, reading: Reading = NO_TOOLS) -> Found:
        """Each call list in the text; reading stops at a list that does not close or parse.

        A list counts when it names a tool, or is written as calls by keyword (a misspelled tool is an
        error); a list in code or prose (`[len(x), 2]`, `[f(x) for x in y]`) stays text. Near misses in
        the prose (calls without brackets, JSON calls) are read too.
        """
        found = Found(limit=reading.limit)
        prose: list[str] = []
        position = at = misses = 0
        while not found.full and (match := _CANDIDATE.search(text, at)):
            end, names = _scan(text, match.start())
            named = any(reading.known(text[a:b]) for a, b in names)
            if end is None:
                if named or _KEYWORD_START.match(text, match.start()):
                    prose.append(scan(text, position, match.start(), found, reading, HOW, SHAPES))
                    problem = "a bracket, parenthesis or quote is not closed"
                    found.items.append(
                        RawError(f"could not read the call list {snippet(text, match.start())}: {problem}. {HOW}")
                    )
                    position = len(text)
                break  # whatever follows an unclosed bracket is inside it
            if not named and not _KEYWORD_START.match(text, match.start()):
                at = end  # `[f(x)]`: a list in code or prose, not parsed at all
                continue
            items, shaped = _read(text, match.start(), end, names, reading.limit + 1 - len(found.items))
            if not (shaped or named):
                at, misses = end, misses + 1
                if misses > reading.limit:  # a reply of lists that are not calls is a program: read no further
                    break
                continue
            prose.append(scan(text, position, match.start(), found, reading, HOW, SHAPES))
            found.items.extend(items)
            position = at = end
            if any(isinstance(item, RawError) for item in items):
                position = len(text)
                break
        prose.append(scan(text, position, len(text), found, reading, HOW, SHAPES) if not found.full else "")
        rest = "".join(prose)
        for marker in MARKERS:
            rest = rest.replace(marker, "")
        found.text = tidy(rest).strip()
        return found

    def render_result(self, call: ParsedCall | CallError, result: ModelResult) -> str:
        return dumps(content(result), escape_markup=True)


def _arguments(arguments: Any) -> str:
    """`k=v` for keys that can be keywords, then `**{...}` for the others (`from`, `max-depth`, `ﬁle`)."""
    named = {k: v for k, v in arguments.items() if _keyword_safe(k)}
    others = {k: v for k, v in arguments.items() if k not in named}
    parts = [f"{k}={v!r}" for k, v in named.items()]
    return ", ".join([*parts, f"**{others!r}"] if others else parts)


def _scan(text: str, start: int, end: int | None = None) -> tuple[int | None, list[tuple[int, int]]]:
    """Where the list opened at `start` closes (None if not before `end`), and the spans of its calls' names.

    Strings are skipped as Python reads them, so a bracket or a call inside a string is text. Only the
    characters that matter are visited (found by a pattern), not each character of the text.
    """
    depth, index = 0, start
    names: list[tuple[int, int]] = []
    end = len(text) if end is None else end
    while found := _SIGNIFICANT.search(text, index, end):
        index, char = found.start(), found.group()
        if char in "'\"":
            index = _string_end(text, index)
            continue
        if char == "#":
            newline = text.find("\n", index, end)
            index = end if newline < 0 else newline
            continue
        index += 1
        if char in "([{":
            depth += 1
            expect_name = depth == 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index, names
            expect_name = False
        else:  # a comma
            expect_name = depth == 1
        if expect_name and (name := _NAME_AFTER_SPACE.match(text, index, end)):
            names.append(name.span(1))
            index = name.end()
    return None, names


def _string_end(text: str, start: int) -> int:
    """The index after the string literal opened at `start` (or where a one-line string stops, unclosed)."""
    quote = text[start] * 3 if text.startswith(text[start] * 3, start) else text[start]
    found = _STRINGS[quote].match(text, start)
    return found.end() if found else start + 1


def _read(
    text: str, start: int, end: int, names: list[tuple[int, int]], keep: int | None = None
) -> tuple[list[RawCall | RawError], bool]:
    """The calls of one list, and whether it is written as calls by keyword (or starts so, if it does not parse).

    Each name is swapped for a placeholder first, so `get-sum(...)` parses too. Of a list longer than
    `keep` calls, only the first `keep` are parsed: the cap on calls per reply bounds the work too.
    """
    closing = ""
    if keep is not None and len(names) > keep:
        end, names, closing = names[keep][0], names[:keep], "]"
    pieces, written, position = [], {}, start
    for number, (name_start, name_end) in enumerate(names):
        placeholder = f"_mcpvend_call_{number}"
        written[placeholder] = text[name_start:name_end]
        pieces += [text[position:name_start], placeholder]
        position = name_end
    source = "".join([*pieces, text[position:end], closing])
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, *PARSE_FAILURES) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else type(exc).__name__
        problem = f"could not read the call list {snippet(text[start:end])} as Python: {reason}. {HOW}"
        return [RawError(problem)], bool(_KEYWORD_START.match(text, start))
    if not isinstance(tree.body, ast.List):
        return [RawError(f"could not read {snippet(text[start:end])}: it is not a list of calls. {HOW}")], False
    shaped = all(
        isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in written and not e.args
        for e in tree.body.elts
    )
    return [_call(element, written) for element in tree.body.elts], shaped


def _read_bare(region: Region, start: int) -> Hit:
    """Calls without their brackets on a line of their own (`f(a=1), g(b=2)`), read as the list they leave out.

    The first must name a tool, and nothing but the end of the line may follow: a call inside a sentence
    or an expression (`x = f(a=1)`, `f(a=1).json()`) is code or prose.
    """
    text = region.text
    first = _BARE_CALL.match(text, start, region.end)
    if first is None or not region.reading.known(first.group(1)):
        return Hit(start + 1 if first is None else first.end())
    begin, paren = first.start(1), first.end() - 1
    while True:
        close, _ = _scan(text, paren, region.end)
        if close is None:
            problem = "a bracket, parenthesis or quote is not closed"
            error = RawError(f"could not read the call {snippet(text, begin)}: {problem}. {HOW}", first.group(1))
            return Hit(region.end, (error,))
        following = _NEXT_CALL.match(text, close, region.end)
        if following is None:
            break
        paren = following.end() - 1
    if not _LINE_REST.match(text, close, region.end):
        return Hit(close)
    source = f"[{text[begin:close]}]"
    _, names = _scan(source, 0)
    items, _ = _read(source, 0, len(source), names)
    return Hit(close, tuple(items))


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


SHAPES = shapes({**GENERIC, "bare": (_BARE, _read_bare)})
