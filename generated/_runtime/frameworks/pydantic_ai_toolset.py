# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""pydantic-ai: the toolset as an `AbstractToolset` whose tools are listed anew at each step of a run.

Each run gets a view of its own, which finds again the tools that the run's message history
found, so a conversation continued over several runs keeps them. A wrong call becomes a
`ModelRetry` (the model corrects it, within the tool's retries); a failed one a `ToolFailed`.

In routed mode the catalog is handed over as deferred tools, for pydantic-ai's own tool search
(provider-native where the model has it) to find; `call_tool` stays. `tool_search()` plugs
mcpvend's ranker into that search and answers the names a model writes that pydantic-ai does not
list yet: a real, bare or dotted name runs through `call_tool`, a wrong one gets mcpvend's
suggestions rather than a list of tools.

pydantic-ai's wrappers (`prefixed`, `renamed`, `filtered`, `approval_required`) rename, drop or
hold back the tools they list, so every tool definition carries its name here in its metadata:
the search and `call_tool` reach a tool under the name the agent lists it by, through the same
wrappers as a direct call.
"""

from __future__ import annotations

import copy
import sys
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai import (  # type: ignore[import-not-found, unused-ignore]
    ApprovalRequired,
    ModelRetry,
    RunContext,
    ToolDefinition,
    ToolFailed,
    ToolReturn,
    UnexpectedModelBehavior,
    UserError,
)
from pydantic_ai.capabilities import ToolSearch  # type: ignore[import-not-found, unused-ignore]
from pydantic_ai.messages import (  # type: ignore[import-not-found, unused-ignore]
    ModelMessage,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestContext  # type: ignore[import-not-found, unused-ignore]
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool  # type: ignore[import-not-found, unused-ignore]
from pydantic_core import SchemaValidator, core_schema

from ..core.catalog import Entry
from .bridge import Bridge, Definition

# Any arguments pass pydantic-ai: `ToolSet.call` checks them against the reviewed schema and gives the
# model that schema with what was wrong, which a validator built here could not.
_ANY_ARGUMENTS = SchemaValidator(core_schema.any_schema())
_MARK = "mcpvend"  # a tool definition's metadata key: {"toolset": the toolset's token, "name": its name here}
_ROUTER = "call_tool"

# pydantic-ai's `process_tool_call` hook: (ctx, call_tool, name, arguments) -> what the model gets.
ProcessToolCall = Callable[..., Awaitable[Any]]


class PydanticAIToolset(AbstractToolset[Any]):  # type: ignore[misc, unused-ignore]
    """The tools of a `ToolSet` for a pydantic-ai agent (`ToolSet.for_pydantic_ai`)."""

    def __init__(
        self,
        bridge: Bridge,
        *,
        id: str | None,
        max_retries: int | None,
        process_tool_call: ProcessToolCall | None = None,
        include_instructions: bool = False,
        include_return_schema: bool | None = None,
    ) -> None:
        self.bridge = bridge
        self._id = id
        self.max_retries = max_retries  # None: the agent's own count, as pydantic-ai's toolsets do
        self.process_tool_call = process_tool_call
        self.include_instructions = include_instructions
        self.include_return_schema = include_return_schema
        self.token = uuid.uuid4().hex  # tells this toolset's tools from another's, whatever they are renamed to
        self._budget = 1  # the retries each tool has (set at each step)
        self._failed: dict[str, set[int]] = {}  # run steps since its last success that a tool named to call_tool failed

    @property
    def id(self) -> str | None:
        return self._id

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """With `include_instructions`, the servers' instructions as reviewed in their lockfiles (the live
        server's are never read: they are not what a person reviewed)."""
        given = self.bridge.toolset.instructions if self.include_instructions else {}
        return "\n\n".join(f"Instructions of the {server} server:\n{text}" for server, text in given.items()) or None

    async def for_run(self, ctx: RunContext[Any]) -> PydanticAIToolset:
        run = copy.copy(self)
        run.bridge = self.bridge.view()
        run.bridge.recall(_history(ctx.messages))
        run._failed = {}
        return run

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        self._budget = ctx.max_retries if self.max_retries is None else self.max_retries
        return {d.name: self._tool(d) for d in self.bridge.definitions(deferred=True)}

    def tool_search(self, *, max_results: int = 10) -> ToolSearch[Any]:
        """`Agent(..., toolsets=[toolset], capabilities=[toolset.tool_search()])`: mcpvend's ranker as
        pydantic-ai's tool search, and mcpvend's answer to a tool name the model writes that is not listed."""
        return _ToolSearch(strategy=_ranker(self), max_results=max_results, toolset=self)

    def _tool(self, definition: Definition) -> ToolsetTool[Any]:
        # Not asked for strict schemas, pydantic-ai decides per provider as for its own tools.
        strict = definition.strict if self.bridge.strict else None
        metadata: dict[str, Any] = {_MARK: {"toolset": self.token, "name": definition.name}}
        if definition.annotations:
            metadata["annotations"] = dict(definition.annotations)
        entry = self.bridge.entry(definition.name)
        returns = dict(entry.output_schema) if entry is not None and entry.output_schema else None
        tool_def = ToolDefinition(
            name=definition.name,
            description=definition.description,
            parameters_json_schema=definition.parameters,
            strict=strict,
            metadata=metadata,
            defer_loading=definition.deferred,
            return_schema=returns,
            include_return_schema=self.include_return_schema if returns else None,
        )
        # Routed calls are counted per tool they name (`_charge`), not pooled under call_tool's name.
        retries = sys.maxsize if definition.name == _ROUTER else self._budget
        return ToolsetTool(toolset=self, tool_def=tool_def, max_retries=retries, args_validator=_ANY_ARGUMENTS)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        if name != _ROUTER:
            return await self._run(name, tool_args, ctx)
        target = self.bridge.toolset.resolve(name, tool_args)
        named = target.provider if target is not None else str(tool_args.get("name"))
        try:
            result = await self._route(target, tool_args, ctx)
        except ModelRetry as exc:
            failed = self._failed.setdefault(named, set())
            if len(failed - {ctx.run_step}) >= self._budget:
                raise UnexpectedModelBehavior(f"Tool {named!r} exceeded max retries count of {self._budget}") from exc
            failed.add(ctx.run_step)
            raise
        self._failed.pop(named, None)
        return result

    async def _route(self, target: Entry | None, tool_args: dict[str, Any], ctx: RunContext[Any]) -> Any:
        """A `call_tool` call: the tool it reaches runs as the agent lists it, through the wrappers on it."""
        arguments = tool_args.get("arguments") or {}
        manager = ctx.tool_manager
        tools = manager.tools if manager is not None and manager.tools is not None else {}
        listed = _ours({name: tool.tool_def for name, tool in tools.items()}, self.token)
        if manager is None or target is None or not listed or not isinstance(arguments, dict):
            return await self._run(_ROUTER, tool_args, ctx)  # mcpvend says what is wrong, or runs it
        outer = listed.get(target.provider)
        if outer is None:  # a wrapper's filter dropped it
            raise ModelRetry(f"there is no tool named {tool_args['name']!r}")
        tool = tools[outer]
        try:  # from the agent's own toolset down, as pydantic-ai calls a tool
            result = await manager.toolset.call_tool(outer, arguments, replace(ctx, tool_name=outer), tool)
        except ApprovalRequired:
            self.bridge.materialize([target.provider])
            raise ModelRetry(
                f"'{outer}' needs the user's approval, which call_tool cannot ask for: "
                f"call '{outer}' itself (it is now among your tools) with the same arguments"
            ) from None
        if not tool.tool_def.defer_loading:
            return result
        # A deferred tool reached through call_tool is shown to the model, to call by its name from now on.
        if isinstance(result, ToolReturn):
            return replace(result, tools=[outer])
        return ToolReturn(return_value=result, tools=[outer])

    async def _run(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any]) -> Any:
        if not ctx.tool_call_approved and self.bridge.approval_required(name):
            entry = self.bridge.entry(name)
            raise ApprovalRequired(metadata={"server": entry.server, "tool": entry.name} if entry else None)
        if self.process_tool_call is None:
            return await self._execute(name, tool_args)
        return await self.process_tool_call(ctx, self._execute, name, tool_args)

    async def _execute(self, name: str, args: dict[str, Any], *, metadata: dict[str, Any] | None = None) -> ToolReturn:
        """The call as mcpvend runs it; `process_tool_call` gets it as its `call_tool`."""
        if metadata is not None:
            raise UserError("mcpvend's calls carry no request metadata (MCP `_meta`): pass the call without it")
        result = await self.bridge.call(name, args)
        if result.is_error:
            raise ModelRetry(result.text) if result.retry else ToolFailed(result.text)
        return ToolReturn(return_value=result.text, metadata=result.structured)


def _name_here(tool_def: ToolDefinition | None, token: str) -> str | None:
    """The name in the toolset of `token` of a tool the agent lists (under any name); None for another's tool."""
    mark = (tool_def.metadata or {}).get(_MARK) if tool_def is not None else None
    return mark["name"] if isinstance(mark, Mapping) and mark.get("toolset") == token else None


def _ours(tools: Mapping[str, ToolDefinition], token: str) -> dict[str, str]:
    """The toolset's tools among those the agent lists: {name here: name the agent lists it by}."""
    return {here: name for name, tool_def in tools.items() if (here := _name_here(tool_def, token)) is not None}


def _ranker(toolset: PydanticAIToolset) -> Any:
    """mcpvend's search over the deferred tools pydantic-ai hands it, best first, by the names it lists them by."""

    def search(ctx: RunContext[Any], queries: Sequence[str], tools: Sequence[ToolDefinition]) -> list[str]:
        corpus = _ours({tool.name: tool for tool in tools}, toolset.token)
        ranked = toolset.bridge.toolset.search(" ".join(queries), len(corpus))
        return [corpus[entry.provider] for entry in ranked if entry.provider in corpus]

    return search


@dataclass
class _ToolSearch(ToolSearch[Any]):  # type: ignore[misc, unused-ignore]
    """pydantic-ai's tool search, with a call to a name the model may not call yet sent through `call_tool`."""

    toolset: PydanticAIToolset | None = field(default=None, kw_only=True, repr=False)

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        parts = [self._answered(ctx, part) if isinstance(part, ToolCallPart) else part for part in response.parts]
        return replace(response, parts=parts)

    def _answered(self, ctx: RunContext[Any], part: ToolCallPart) -> ToolCallPart:
        listed = ctx.tools.get(part.tool_name)
        if self.toolset is None or (listed is not None and ctx.is_tool_available(listed)):
            return part  # callable as written
        router = _ours(ctx.tools, self.toolset.token).get(_ROUTER)
        name = part.tool_name if listed is None else _name_here(listed, self.toolset.token)
        if router is None or name is None:
            return part  # another toolset's deferred tool (its search reveals it), or call_tool is filtered out
        try:
            arguments: Any = part.args_as_dict()
        except ValueError:
            arguments = part.args  # call_tool says what is wrong with them
        # The history keeps the call as it ran; the provider's own id for the model's item no longer fits it.
        return ToolCallPart(router, {"name": name, "arguments": arguments}, tool_call_id=part.tool_call_id)


def _history(messages: Sequence[ModelMessage]) -> list[tuple[str, Any, Any]]:
    """(name, arguments, result) of each tool call in the messages, in order."""
    calls: list[ToolCallPart] = []
    results: dict[str, Any] = {}
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                calls.append(part)
            elif isinstance(part, ToolReturnPart):
                results[part.tool_call_id] = part.content
    return [(call.tool_name, call.args_as_dict(), results.get(call.tool_call_id)) for call in calls]
