# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""LangChain agents: middleware that lists the toolset's tools anew at each model call of a
`create_agent` agent (needs the `langchain` package; the tools alone need `langchain-core`).

A LangChain agent runs the tools it was built with, by name, so the middleware registers every
tool a conversation could reach; before each model call it lists only what the current mode
offers, with the tools this conversation found (read back from its messages). Each tool call
runs in a fresh view: the messages are the conversation's only state, as LangGraph's checkpoints
expect. A name the agent was not built with (bare, dotted, misspelled) gets mcpvend's answer, not
LangChain's list of every registered tool, which is the catalog routed mode keeps out of context.

LangChain's `ProviderToolSearchMiddleware` works before or after this one: placed after, it sees the
listing; placed before, the deferral it set is kept, and a tool it deferred that the step does not
list is an error, not a silent loss. With `provider_search`, routed mode lists its tools not found yet
deferred, and so do the registered tools, so the search middleware adds the provider's search either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from langchain.agents.middleware import (  # type: ignore[import-not-found, unused-ignore]
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain_core.messages import AIMessage, AnyMessage, ToolMessage  # type: ignore[import-not-found, unused-ignore]
from langchain_core.tools import BaseTool  # type: ignore[import-not-found, unused-ignore]

from ..core.specs import full_spec
from .bridge import Bridge, Definition
from .langchain_tools import McpTool, tool


class ListedTools(AgentMiddleware):  # type: ignore[misc, unused-ignore]
    """Registers every tool a conversation may call; lists, at each model call, what it may call now."""

    def __init__(self, bridge: Bridge, *, raise_failures: bool = False, provider_search: bool = False) -> None:
        super().__init__()
        self.bridge = bridge
        self.raise_failures = raise_failures
        self.deferred = provider_search and bridge.toolset.mode == "routed"
        entries = bridge.toolset.entries  # every tool any routing step may offer
        every = [full_spec(entry).render("openai-responses") for entry in entries]
        names = {entry.provider for entry in entries}
        own = [d for d in bridge.definitions(deferred=self.deferred) if d.name not in names]  # meta-tools, run_code
        self.tools = [self._tool(d) for d in own] + [
            self._tool(Definition(r["name"], r["description"], r["parameters"], False, None, self.deferred))
            for r in every
        ]
        self._registered = {t.name: t for t in self.tools}

    def _tool(self, definition: Definition) -> McpTool:
        return tool(self.bridge, definition, fresh=True, raise_failures=self.raise_failures)

    def _listed(self, request: ModelRequest) -> ModelRequest:
        view = self.bridge.view()
        view.recall(_history(request.messages))
        others = [t for t in request.tools if not isinstance(t, McpTool)]  # the user's own tools
        definitions = view.definitions(deferred=self.deferred)
        kept = self._deferred_before(request.tools)
        if lost := kept - {d.name for d in definitions}:
            raise ValueError(_lost(sorted(lost), view.toolset.mode))
        listed = [self._tool(replace(d, deferred=d.deferred or d.name in kept)) for d in definitions]
        return request.override(tools=[*others, *listed])

    def _deferred_before(self, tools: Sequence[BaseTool | dict[str, Any]]) -> set[str]:
        """The tools a middleware before this one (`ProviderToolSearchMiddleware`) deferred."""
        return {
            t.name
            for t in tools
            if isinstance(t, McpTool)
            and _deferred(t)
            and not ((registered := self._registered.get(t.name)) is not None and _deferred(registered))
        }

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


def middleware(bridge: Bridge, *, raise_failures: bool = False, provider_search: bool = False) -> list[AgentMiddleware]:
    listed: list[AgentMiddleware] = [
        ListedTools(bridge, raise_failures=raise_failures, provider_search=provider_search)
    ]
    names = bridge.approval_names()
    if names:
        listed.append(HumanInTheLoopMiddleware(interrupt_on=dict.fromkeys(names, True)))
    return listed


def _deferred(tool: BaseTool) -> bool:
    return isinstance(tool.extras, dict) and tool.extras.get("defer_loading") is True


def _lost(names: list[str], mode: str) -> str:
    """Why a tool deferred before mcpvend's middleware cannot be: the step does not list it."""
    message = f"ProviderToolSearchMiddleware defers {', '.join(names)}, which mcpvend does not list at this step"
    if mode == "routed":
        message += (
            " (routed mode lists a tool once the conversation finds it): pass "
            "ts.for_langchain_agent(provider_search=True) to hand every tool not found yet to the provider's search"
        )
    return message


def _history(messages: Sequence[AnyMessage]) -> list[tuple[str, Any, Any]]:
    """(name, arguments, result text) of each tool call in the messages, in order."""
    results = {m.tool_call_id: m.content for m in messages if isinstance(m, ToolMessage)}
    return [
        (call["name"], call["args"], results.get(call["id"] or ""))
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    ]
