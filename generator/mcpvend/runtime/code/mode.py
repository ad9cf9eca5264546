"""Code mode: one tool, `run_code`, whose description is a short rule block and the typed API of the tools in scope.

The model writes a Python snippet against the stubs `mcpvend generate` wrote; the sandbox runs it,
and every tool call it makes goes through `ToolSet.call` (validation, pinning, timeouts, retries,
media references and redaction as for any call). A tool error raises `RuntimeError` inside the
snippet; a result is the validated structured content as plain data, or the text. What the model
reads back is what the snippet printed and the value of its last expression.

When every tool's stub fits the budget, the description holds them all; otherwise it holds the
stubs of the tools found so far, and the snippet's `search_tools(query)` finds (and lists) more.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from ..core.catalog import Catalog, Entry
from ..core.results import ModelResult, error_result, truncate
from ..core.specs import ToolSpec, tokens
from .api import SEARCH_STUB, SEARCH_TOOLS, CodeApi
from .sandbox import CodeLimits, Function, Outcome, Sandbox, ToolFailed, load_monty

if TYPE_CHECKING:
    from ..core.seams import ToolsetView

RUN_CODE = "run_code"
SEARCH_LIMIT = 50
_INPUT: Mapping[str, Any] = {
    "type": "object",
    "properties": {"code": {"type": "string", "description": "Python source; its last expression is the result."}},
    "required": ["code"],
    "additionalProperties": False,
}


def rules(limits: CodeLimits, *, every_tool: bool) -> str:
    """What the model must know besides the stubs; `every_tool`: all tools are listed, no search needed."""
    text = (
        "Run Python (a sandboxed subset; no files, network or environment). The tools below are async "
        "functions: await them with keyword arguments (asyncio.gather for several). Each returns what its stub "
        "says, raises RuntimeError on failure. The code is type-checked first. Result: what it printed, then "
        f"the last expression. Limits: {limits.tool_calls} tool calls, {limits.cpu_seconds:g} s CPU."
    )
    if every_tool:
        return text
    return f"{text} Only the tools found so far are listed: search_tools(query) returns the stubs of more."


@dataclass(frozen=True)
class CodeOptions:
    """`allow`: auto mode may choose code mode (when its sandbox is installed and the package has stubs);
    `limits`: what one `run_code` snippet may use."""

    allow: bool = False
    limits: CodeLimits = field(default_factory=CodeLimits)


def require(code: CodeMode | None) -> None:
    """Refuse code mode, saying why, when it cannot run: no stubs, or no sandbox."""
    if code is None:
        raise ValueError("code mode needs the stubs `mcpvend generate` writes (stubs.pyi): regenerate the package")
    load_monty()  # CodeModeUnavailable, saying how to install it


class CodeMode:
    """A toolset's code mode: its tools' stubs, its sandbox (shared by every session view) and `run_code`."""

    def __init__(self, api: CodeApi, entries: Sequence[Entry], limits: CodeLimits | None = None) -> None:
        self.api = api
        self.entries = tuple(e for e in entries if api.function(e) is not None)
        self.sandbox = Sandbox(limits)
        self.every_tool = True  # the plan decides: every stub in the description, or those found so far
        self._full_tokens: int | None = None

    @property
    def limits(self) -> CodeLimits:
        return self.sandbox.limits

    def spec(self, listed: Sequence[Entry] | None = None) -> ToolSpec:
        """`run_code`, describing these tools (default: every tool, when the plan lists them all)."""
        if listed is None:
            description = f"{rules(self.limits, every_tool=True)}\n\n{self.api.render(self.entries)}"
        else:
            stubs = self.api.render(listed, SEARCH_STUB)
            description = f"{rules(self.limits, every_tool=False)}\n\n{stubs}"
        return ToolSpec(RUN_CODE, description, _INPUT)

    def listing(self, catalog: Catalog, materialized: Sequence[str]) -> ToolSpec:
        """`run_code` as the model sees it now: every tool, or the tools found so far."""
        return self.spec() if self.every_tool else self.spec([catalog.by_provider[n] for n in materialized])

    @property
    def full_tokens(self) -> int:
        """What `run_code` costs with every tool's stub: what the plan compares with the budget."""
        if self._full_tokens is None:
            self._full_tokens = tokens([self.spec()])
        return self._full_tokens

    @cached_property
    def check_stubs(self) -> str:
        """What a snippet is type-checked against: every tool (a found tool is callable by name), and search."""
        return self.api.render(self.entries, SEARCH_STUB)

    async def run(self, toolset: ToolsetView, arguments: Mapping[str, Any]) -> ModelResult:
        """One `run_code` call: the snippet's printed output and result, or why it failed, cut to size."""
        code = arguments.get("code")
        limit = toolset.max_result_chars
        if not isinstance(code, str) or set(arguments) - {"code"}:
            return error_result('run_code takes one argument, {"code": "<Python source>"}', max_chars=limit)
        functions: dict[str, Function] = {SEARCH_TOOLS: partial(self._search, toolset)}
        for entry in toolset.catalog.entries:
            name = self.api.function(entry)
            if name is not None:
                functions[name] = partial(self._call, toolset, entry)
        outcome = await self.sandbox.run(code, stubs=self.check_stubs, functions=functions)
        return _result(outcome, limit)

    async def _call(self, toolset: ToolsetView, entry: Entry, keywords: dict[str, Any]) -> Any:
        result = await toolset.call(entry.provider, self.api.arguments(entry, _plain(keywords)))
        if result.is_error:
            raise ToolFailed(result.text)
        return result.structured if entry.output_schema is not None else result.text

    async def _search(self, toolset: ToolsetView, keywords: dict[str, Any]) -> str:
        query, limit = keywords.get("query"), keywords.get("limit", 5)
        unknown = set(keywords) - {"query", "limit"}
        if not isinstance(query, str) or not isinstance(limit, int) or isinstance(limit, bool) or unknown:
            raise ToolFailed("search_tools takes query: str and limit: int")
        found = toolset.search(query, max(1, min(limit, SEARCH_LIMIT)))
        toolset.materialize([e.provider for e in found])  # listed in run_code's description from now on
        return self.api.render(found) if found else "no tool matched: try other words"

    async def aclose(self) -> None:
        await self.sandbox.aclose()


def _plain(value: Any) -> Any:
    """Sandbox values as JSON data: tuples become lists (a schema's array is a list)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _result(outcome: Outcome, limit: int) -> ModelResult:
    parts = [outcome.printed.rstrip("\n")] if outcome.printed else []
    if outcome.error is not None:
        return error_result("\n".join([*parts, outcome.error]), max_chars=limit)
    if outcome.value is not None or not parts:
        try:
            parts.append(_shown(outcome.value))
        except ValueError as exc:  # an int past Python's digit limit (10 ** 5000) has no text form
            reason = str(exc).partition(";")[0]  # without the advice to raise the host's limit
            return error_result("\n".join([*parts, f"the result cannot be shown: {reason}"]), max_chars=limit)
    return ModelResult(truncate("\n".join(parts), limit), structured=outcome.value)


def _shown(value: Any) -> str:
    """A result as the model reads it: a string as it is, anything else as compact JSON (or its repr).

    Raises ValueError when neither has a text form for it.
    """
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=repr)
    except (TypeError, ValueError):  # keys JSON has no form for, a cycle, an int too long for text
        return repr(value)
