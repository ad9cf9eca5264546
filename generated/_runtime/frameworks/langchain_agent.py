# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""LangChain agents: middleware that lists the toolset's tools anew at each model call of a
`create_agent` agent (needs the `langchain` package; the tools alone need `langchain-core`).

A LangChain agent runs the tools it was built with, by name, so the middleware registers every
tool a conversation could reach; before each model call it lists only what the current mode
offers, with the tools this conversation found (read back from its messages). Each tool call
runs in a fresh view: the messages are the conversation's only state, as LangGraph's checkpoints
expect. A name the agent was not built with (bare, dotted, misspelled) gets mcpvend's answer, not
LangChain's list of every registered tool, which is the catalog routed mode keeps out of context.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import (  # type: ignore[import-not-found, unused-ignore]
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage  # type: ignore[import-not-found, unused-ignore]

from ..core.specs import full_spec
from .bridge import Bridge, Definition
from .langchain_tools import McpTool, tool


class ListedTools(AgentMiddleware):  # type: ignore[misc, unused-ignore]
    """Registers every tool a conversation may call; lists, at each model call, what it may call now."""

    def __init__(self, bridge: Bridge) -> None:
        super().__init__()
        self.bridge = bridge
        entries = bridge.toolset.entries  # every tool any routing step may offer
        every = [full_spec(entry).render("openai-responses") for entry in entries]
        names = {entry.provider for entry in entries}
        own = [d for d in bridge.definitions() if d.name not in names]  # the meta-tools, or run_code
        self.tools = [tool(bridge, d, fresh=True) for d in own] + [
            tool(bridge, Definition(r["name"], r["description"], r["parameters"], False, None), fresh=True)
            for r in every
        ]
        self._registered = {t.name: t for t in self.tools}

    def _listed(self, request: ModelRequest) -> ModelRequest:
        view = self.bridge.view()
        view.recall(_history(request.messages))
        others = [t for t in request.tools if not isinstance(t, McpTool)]  # the user's own tools
        return request.override(tools=[*others, *(tool(self.bridge, d, fresh=True) for d in view.definitions())])

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> Any:
        return handler(self._listed(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> Any:
        return await handler(self._listed(request))

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]) -> Any:
        named = self._named(request)
        return named if isinstance(named, ToolMessage) else handler(named)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Any]]
    ) -> Any:
        named = self._named(request)
        return named if isinstance(named, ToolMessage) else await handler(named)

    def _named(self, request: ToolCallRequest) -> ToolCallRequest | ToolMessage:
        """The call, to the tool its name resolves to; or, for no tool, the names it may have meant."""
        if request.tool is not None:
            return request
        call = request.tool_call
        entry, problem = self.bridge.toolset.lookup(call["name"])
        registered = self._registered.get(entry.provider) if entry is not None else None
        if registered is None:
            return ToolMessage(problem, name=call["name"], tool_call_id=call["id"] or "", status="error")
        return request.override(tool=registered, tool_call={**call, "name": registered.name})


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
