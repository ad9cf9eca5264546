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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai import (  # type: ignore[import-not-found, unused-ignore]
    ApprovalRequired,
    ModelRetry,
    RunContext,
    ToolDefinition,
    ToolFailed,
    ToolReturn,
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

from .bridge import Bridge, Definition

# Any arguments pass pydantic-ai: `ToolSet.call` checks them against the reviewed schema and gives the
# model that schema with what was wrong, which a validator built here could not.
_ANY_ARGUMENTS = SchemaValidator(core_schema.any_schema())


class PydanticAIToolset(AbstractToolset[Any]):  # type: ignore[misc, unused-ignore]
    """The tools of a `ToolSet` for a pydantic-ai agent (`ToolSet.for_pydantic_ai`)."""

    def __init__(self, bridge: Bridge, *, id: str | None, max_retries: int | None) -> None:
        self.bridge = bridge
        self._id = id
        self.max_retries = max_retries  # None: the agent's own count, as pydantic-ai's toolsets do

    @property
    def id(self) -> str | None:
        return self._id

    async def for_run(self, ctx: RunContext[Any]) -> PydanticAIToolset:
        view = self.bridge.view()
        view.recall(_history(ctx.messages))
        return PydanticAIToolset(view, id=self._id, max_retries=self.max_retries)

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        retries = ctx.max_retries if self.max_retries is None else self.max_retries
        return {d.name: self._tool(d, retries) for d in self.bridge.definitions(deferred=True)}

    def tool_search(self, *, max_results: int = 10) -> ToolSearch[Any]:
        """`Agent(..., toolsets=[toolset], capabilities=[toolset.tool_search()])`: mcpvend's ranker as
        pydantic-ai's tool search, and mcpvend's answer to a tool name the model writes that is not listed."""
        return _ToolSearch(strategy=_ranker(self.bridge), max_results=max_results, bridge=self.bridge)

    def _tool(self, definition: Definition, retries: int) -> ToolsetTool[Any]:
        # Not asked for strict schemas, pydantic-ai decides per provider as for its own tools.
        strict = definition.strict if self.bridge.strict else None
        metadata = {"annotations": dict(definition.annotations)} if definition.annotations else None
        tool_def = ToolDefinition(
            name=definition.name,
            description=definition.description,
            parameters_json_schema=definition.parameters,
            strict=strict,
            metadata=metadata,
            defer_loading=definition.deferred,
        )
        return ToolsetTool(toolset=self, tool_def=tool_def, max_retries=retries, args_validator=_ANY_ARGUMENTS)

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> ToolReturn:
        if not ctx.tool_call_approved and self.bridge.approval_required(name):
            entry = self.bridge.entry(name)
            raise ApprovalRequired(metadata={"server": entry.server, "tool": entry.name} if entry else None)
        result = await self.bridge.call(name, tool_args)
        if result.is_error:
            raise ModelRetry(result.text) if result.retry else ToolFailed(result.text)
        # A deferred tool reached through call_tool is shown to the model, to call by its name from now on.
        revealed = None
        if name == "call_tool" and (reached := self.bridge.toolset.resolve(name, tool_args)) is not None:
            listed = ctx.tools.get(reached.provider)
            revealed = [reached.provider] if listed is not None and listed.defer_loading else None
        return ToolReturn(return_value=result.text, metadata=result.structured, tools=revealed)


def _ranker(bridge: Bridge) -> Any:
    """mcpvend's search over the deferred tools pydantic-ai hands it, best first."""

    def search(ctx: RunContext[Any], queries: Sequence[str], tools: Sequence[ToolDefinition]) -> list[str]:
        corpus = {tool.name for tool in tools}
        ranked = bridge.toolset.search(" ".join(queries), len(corpus))
        return [entry.provider for entry in ranked if entry.provider in corpus]

    return search


@dataclass
class _ToolSearch(ToolSearch[Any]):  # type: ignore[misc, unused-ignore]
    """pydantic-ai's tool search, with a call to a name the model may not call yet sent through `call_tool`."""

    bridge: Bridge | None = field(default=None, kw_only=True, repr=False)

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        parts = [self._answered(ctx, part) if isinstance(part, ToolCallPart) else part for part in response.parts]
        return replace(response, parts=parts)

    def _answered(self, ctx: RunContext[Any], part: ToolCallPart) -> ToolCallPart:
        listed = ctx.tools.get(part.tool_name)
        if self.bridge is None or (listed is not None and ctx.is_tool_available(listed)):
            return part  # callable as written
        if listed is not None and self.bridge.entry(part.tool_name) is None:
            return part  # another toolset's deferred tool: its search reveals it
        try:
            arguments: Any = part.args_as_dict()
        except ValueError:
            arguments = part.args  # call_tool says what is wrong with them
        # The history keeps the call as it ran; the provider's own id for the model's item no longer fits it.
        return ToolCallPart(
            "call_tool", {"name": part.tool_name, "arguments": arguments}, tool_call_id=part.tool_call_id
        )


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
