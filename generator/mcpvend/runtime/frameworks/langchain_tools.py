"""LangChain: the toolset's tools as `BaseTool`s. Needs `langchain-core` alone (LangGraph,
`langchain-mcp-adapters`); the `create_agent` middleware is `langchain_agent.py`."""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, ToolException  # type: ignore[import-not-found, unused-ignore]

from ..core.results import ModelResult
from .bridge import Bridge, Definition


class ToolCallFailed(Exception):
    """A call that got no tool result (the server died, timed out, sent an error), raised with `raise_failures`.

    Not a `ToolException`, so `handle_tool_error` leaves it alone: it reaches LangChain's
    `ToolRetryMiddleware`, which sends the call again, as it does for langchain-mcp-adapters' transport errors.
    """


class McpTool(BaseTool):  # type: ignore[misc, unused-ignore]
    """One tool; its arguments reach `ToolSet.call` as the model wrote them, which checks them."""

    bridge: Bridge
    fresh: bool = False  # each call in a view of its own (the agent middleware's: messages hold the state)
    raise_failures: bool = False

    def _to_args_and_kwargs(self, tool_input: Any, tool_call_id: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # The arguments as one mapping: a tool argument named `run_manager` or `config` stays the tool's.
        return (tool_input,), {}

    def _run(self, arguments: dict[str, Any]) -> tuple[str, Any]:
        return self._outcome(self._bridge().call_sync(self.name, arguments))

    async def _arun(self, arguments: dict[str, Any]) -> tuple[str, Any]:
        return self._outcome(await self._bridge().call(self.name, arguments))

    def _bridge(self) -> Bridge:
        return self.bridge.view() if self.fresh else self.bridge

    def _outcome(self, result: ModelResult) -> tuple[str, Any]:
        if result.failed and self.raise_failures:
            raise ToolCallFailed(result.text)
        if result.is_error:
            raise ToolException(result.text)
        return result.text, result.structured


def tool(bridge: Bridge, definition: Definition, *, fresh: bool = False, raise_failures: bool = False) -> McpTool:
    return McpTool(
        fresh=fresh,
        raise_failures=raise_failures,
        response_format="content_and_artifact",  # the text for the model, the structured result beside it
        handle_tool_error=True,  # a failed call is the model's to read, as an error ToolMessage
        name=definition.name,
        description=definition.description,
        args_schema=definition.parameters,
        bridge=bridge,
        metadata={"annotations": dict(definition.annotations)} if definition.annotations else None,
        extras={"defer_loading": True} if definition.deferred else None,  # for the provider's tool search
    )


def tools(bridge: Bridge, *, raise_failures: bool = False) -> list[BaseTool]:
    return [tool(bridge, d, raise_failures=raise_failures) for d in bridge.definitions()]
