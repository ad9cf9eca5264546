# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The ways into agent frameworks: `ts.for_pydantic_ai()` and the other `for_*` methods of every `ToolSet`.

`FrameworkAdapters` is a base of `ToolSet` that holds them, so that the toolset's module stays about the
model's side of a conversation. Each imports its framework's adapter (`frameworks/`) only when called, so
the generated package imports with `mcp` and `pydantic` alone; the frameworks are named here for type
checkers only. A framework that is not installed is one line naming the package to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from agents.mcp import MCPServer, ToolFilter  # type: ignore[import-not-found, unused-ignore]
    from langchain.agents.middleware import AgentMiddleware  # type: ignore[import-not-found, unused-ignore]
    from langchain_core.tools import BaseTool  # type: ignore[import-not-found, unused-ignore]
    from pydantic_ai.toolsets import AbstractToolset  # type: ignore[import-not-found, unused-ignore]

    from ..core.seams import ToolsetView
    from .bridge import Approval

# The import name of each framework, and what to install for it (mcpvend's extras pin the tested releases).
PACKAGES = {
    "pydantic_ai": "pydantic-ai-slim",
    "agents": "openai-agents",
    "langchain_core": "langchain-core",
    "langchain": "langchain",
}


class FrameworkMissing(ImportError):
    """The agent framework an adapter serves is not installed."""


def _missing(exc: ModuleNotFoundError, method: str) -> ImportError:
    """What `ts.<method>()` raises when its adapter's import failed: the package to install, if it is a framework."""
    package = PACKAGES.get((exc.name or "").partition(".")[0])
    if package is None:
        return exc
    return FrameworkMissing(f"ts.{method}() needs {package}, which is not installed: pip install {package}")


class FrameworkAdapters:
    """The `for_*` methods of `ToolSet`: one conversation's tools as each agent framework's own object."""

    def for_pydantic_ai(
        self: ToolsetView,
        *,
        strict: bool = False,
        require_approval: Approval | None = None,
        id: str | None = "mcpvend",
        max_retries: int | None = None,
        process_tool_call: Callable[..., Awaitable[Any]] | None = None,
        include_instructions: bool = False,
        include_return_schema: bool | None = None,
    ) -> AbstractToolset[Any]:
        """`Agent(model, toolsets=[ts.for_pydantic_ai()])`: each run gets a conversation of its own.

        `strict`: OpenAI strict schemas where they can be; `require_approval="destructive"` (or "always"):
        tools not annotated read-only or non-destructive wait for approval (pydantic-ai's deferred tools);
        `max_retries`: None follows the agent's own retry count; `process_tool_call`, `include_instructions`
        (the servers' instructions as reviewed, `instructions`) and `include_return_schema`: as on
        pydantic-ai's own MCP toolsets.
        """
        from .bridge import Bridge

        try:
            from .pydantic_ai_toolset import PydanticAIToolset
        except ModuleNotFoundError as exc:
            raise _missing(exc, "for_pydantic_ai") from None

        return PydanticAIToolset(
            Bridge(self, approval=require_approval, strict=strict),
            id=id,
            max_retries=max_retries,
            process_tool_call=process_tool_call,
            include_instructions=include_instructions,
            include_return_schema=include_return_schema,
        )

    def for_openai_agents(
        self: ToolsetView,
        *,
        strict: bool = False,
        require_approval: Approval | None = None,
        name: str = "mcpvend",
        tool_filter: ToolFilter = None,
        cache_tools_list: bool = False,
        use_structured_content: bool = False,
    ) -> MCPServer:
        """`Agent(..., mcp_servers=[ts.for_openai_agents()])`: each run gets a conversation of its own.

        `strict=True` lists strict schemas, which the Agents SDK sends strict with
        `mcp_config={"convert_schemas_to_strict": True}`. `tool_filter`, `cache_tools_list` and
        `use_structured_content` are those of the SDK's `MCPServerStdio`.
        """
        from .bridge import Bridge

        try:
            from .openai_agents_server import AgentsServer
        except ModuleNotFoundError as exc:
            raise _missing(exc, "for_openai_agents") from None

        return AgentsServer(
            Bridge(self.session(), approval=require_approval, strict=strict),
            name=name,
            tool_filter=tool_filter,
            cache_tools_list=cache_tools_list,
            use_structured_content=use_structured_content,
        )

    def for_langchain(
        self: ToolsetView,
        *,
        strict: bool = False,
        require_approval: Approval | None = None,
        raise_failures: bool = False,
    ) -> list[BaseTool]:
        """The tools of the current mode, now, as LangChain tools (`invoke` and `ainvoke`), for one conversation.

        Needs `langchain-core` only. With `langchain.agents.create_agent`, `for_langchain_agent()` lists them
        anew at each step and asks approval. `raise_failures=True`: a call that got no tool result (the server
        died, timed out, sent an error) raises, for a retry of your own, instead of returning an error message.
        """
        from .bridge import Bridge

        try:
            from .langchain_tools import tools
        except ModuleNotFoundError as exc:
            raise _missing(exc, "for_langchain") from None

        return tools(Bridge(self.session(), approval=require_approval, strict=strict), raise_failures=raise_failures)

    def for_langchain_agent(
        self: ToolsetView,
        *,
        strict: bool = False,
        require_approval: Approval | None = None,
        raise_failures: bool = False,
        provider_search: bool = False,
    ) -> list[AgentMiddleware[Any, Any]]:
        """`create_agent(model, middleware=ts.for_langchain_agent())`: lists the current mode's tools at each
        model call, the ones this conversation found included, and asks approval with LangChain's
        human-in-the-loop middleware.

        `raise_failures=True`: a call that got no tool result raises, for LangChain's `ToolRetryMiddleware`;
        `provider_search=True` (routed mode, with LangChain's `ProviderToolSearchMiddleware`): the tools not
        found yet go to the model deferred, for the provider's search in place of mcpvend's meta-tools.
        """
        from .bridge import Bridge

        try:
            from .langchain_agent import middleware
        except ModuleNotFoundError as exc:
            raise _missing(exc, "for_langchain_agent") from None

        bridge = Bridge(self, approval=require_approval, strict=strict)
        return middleware(bridge, raise_failures=raise_failures, provider_search=provider_search)
