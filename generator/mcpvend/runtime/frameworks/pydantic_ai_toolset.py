"""pydantic-ai: the toolset as an `AbstractToolset` whose tools are listed anew at each step of a run.

Each run gets a view of its own, which finds again the tools that the run's message history
found, so a conversation continued over several runs keeps them. A wrong call becomes a
`ModelRetry` (the model corrects it, within the tool's retries); a failed one a `ToolFailed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai import (  # type: ignore[import-not-found, unused-ignore]
    ApprovalRequired,
    ModelRetry,
    RunContext,
    ToolDefinition,
    ToolFailed,
    ToolReturn,
)
from pydantic_ai.messages import ModelMessage, ToolCallPart, ToolReturnPart  # type: ignore[import-not-found, unused-ignore]
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
        return {d.name: self._tool(d, retries) for d in self.bridge.definitions()}

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
        return ToolReturn(return_value=result.text, metadata=result.structured)


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
