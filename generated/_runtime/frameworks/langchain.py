# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""LangChain: the toolset's tools as `BaseTool`s, and middleware that lists them anew at each model
call of a `create_agent` agent.

A LangChain agent runs the tools it was built with, by name, so the middleware registers every
tool a conversation could reach; before each model call it lists only what the current mode
offers, with the tools this conversation found (read back from its messages). Each tool call
runs in a fresh view: the messages are the conversation's only state, as LangGraph's checkpoints
expect.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import (  # type: ignore[import-not-found, unused-ignore]
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ModelRequest,
    ModelResponse,
)
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage  # type: ignore[import-not-found, unused-ignore]
from langchain_core.tools import BaseTool, ToolException  # type: ignore[import-not-found, unused-ignore]

from ..core.results import ModelResult
from ..core.specs import full_spec
from .bridge import Bridge, Definition


class McpTool(BaseTool):  # type: ignore[misc, unused-ignore]
    """One tool; its arguments reach `ToolSet.call` as the model wrote them, which checks them."""

    bridge: Bridge
    fresh: bool = False  # each call in a view of its own (the agent middleware's: messages hold the state)

    def _to_args_and_kwargs(self, tool_input: Any, tool_call_id: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
        # The arguments as one mapping: a tool argument named `run_manager` or `config` stays the tool's.
        return (tool_input,), {}

    def _run(self, arguments: dict[str, Any]) -> tuple[str, Any]:
        return _outcome(self._bridge().call_sync(self.name, arguments))

    async def _arun(self, arguments: dict[str, Any]) -> tuple[str, Any]:
        return _outcome(await self._bridge().call(self.name, arguments))

    def _bridge(self) -> Bridge:
        return self.bridge.view() if self.fresh else self.bridge


def _outcome(result: ModelResult) -> tuple[str, Any]:
    if result.is_error:
        raise ToolException(result.text)
    return result.text, result.structured


def _tool(bridge: Bridge, definition: Definition, *, fresh: bool = False) -> McpTool:
    return McpTool(
        fresh=fresh,
        response_format="content_and_artifact",  # the text for the model, the structured result beside it
        handle_tool_error=True,  # a failed call is the model's to read, as an error ToolMessage
        name=definition.name,
        description=definition.description,
        args_schema=definition.parameters,
        bridge=bridge,
        metadata={"annotations": dict(definition.annotations)} if definition.annotations else None,
    )


def tools(bridge: Bridge) -> list[BaseTool]:
    return [_tool(bridge, d) for d in bridge.definitions()]


class ListedTools(AgentMiddleware):  # type: ignore[misc, unused-ignore]
    """Registers every tool a conversation may call; lists, at each model call, what it may call now."""

    def __init__(self, bridge: Bridge) -> None:
        super().__init__()
        self.bridge = bridge
        entries = bridge.toolset.entries  # every tool any routing step may offer
        every = [full_spec(entry).render("openai-responses") for entry in entries]
        names = {entry.provider for entry in entries}
        own = [d for d in bridge.definitions() if d.name not in names]  # the meta-tools, or run_code
        self.tools = [_tool(bridge, d, fresh=True) for d in own] + [
            _tool(bridge, Definition(r["name"], r["description"], r["parameters"], False, None), fresh=True)
            for r in every
        ]

    def _listed(self, request: ModelRequest) -> ModelRequest:
        view = self.bridge.view()
        view.recall(_history(request.messages))
        others = [t for t in request.tools if not isinstance(t, McpTool)]  # the user's own tools
        return request.override(tools=[*others, *(_tool(self.bridge, d, fresh=True) for d in view.definitions())])

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return handler(self._listed(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return await handler(self._listed(request))


def middleware(bridge: Bridge) -> list[AgentMiddleware]:
    listed: list[AgentMiddleware] = [ListedTools(bridge)]
    names = bridge.approval_names()
    if names:
        listed.append(HumanInTheLoopMiddleware(interrupt_on=dict.fromkeys(names, True)))
    return listed


def _history(messages: Sequence[AnyMessage]) -> list[tuple[str, Any, Any]]:
    """(name, arguments, result text) of each tool call in the messages, in order."""
    results = {m.tool_call_id: m.content for m in messages if isinstance(m, ToolMessage)}
    return [
        (call["name"], call["args"], results.get(call["id"] or ""))
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    ]
