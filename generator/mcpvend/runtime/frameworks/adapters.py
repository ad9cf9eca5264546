"""The ways into agent frameworks that `ts.for_pydantic_ai()` and the other `ToolSet` methods hand out.

Each imports its framework's adapter (`frameworks/`) only when called, so the generated package
imports with `mcp` and `pydantic` alone; the frameworks are named here for type checkers only. A
framework that is not installed is one line naming the package to install.
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


def for_pydantic_ai(
    ts: ToolsetView,
    *,
    strict: bool = False,
    require_approval: Approval | None = None,
    id: str | None = "mcpvend",
    max_retries: int | None = None,
    process_tool_call: Callable[..., Awaitable[Any]] | None = None,
    include_instructions: bool = False,
    include_return_schema: bool | None = None,
) -> AbstractToolset[Any]:
    """A pydantic-ai toolset whose runs each get a conversation of their own (see `ToolSet.for_pydantic_ai`)."""
    from .bridge import Bridge

    try:
        from .pydantic_ai_toolset import PydanticAIToolset
    except ModuleNotFoundError as exc:
        raise _missing(exc, "for_pydantic_ai") from None

    return PydanticAIToolset(
        Bridge(ts, approval=require_approval, strict=strict),
        id=id,
        max_retries=max_retries,
        process_tool_call=process_tool_call,
        include_instructions=include_instructions,
        include_return_schema=include_return_schema,
    )


def for_openai_agents(
    ts: ToolsetView,
    *,
    strict: bool = False,
    require_approval: Approval | None = None,
    name: str = "mcpvend",
    tool_filter: ToolFilter = None,
    cache_tools_list: bool = False,
    use_structured_content: bool = False,
) -> MCPServer:
    """An Agents SDK MCP server whose runs each get a conversation of their own (see `ToolSet.for_openai_agents`)."""
    from .bridge import Bridge

    try:
        from .openai_agents_server import AgentsServer
    except ModuleNotFoundError as exc:
        raise _missing(exc, "for_openai_agents") from None

    return AgentsServer(
        Bridge(ts.session(), approval=require_approval, strict=strict),
        name=name,
        tool_filter=tool_filter,
        cache_tools_list=cache_tools_list,
        use_structured_content=use_structured_content,
    )


def for_langchain(
    ts: ToolsetView, *, strict: bool = False, require_approval: Approval | None = None, raise_failures: bool = False
) -> list[BaseTool]:
    """LangChain tools of the current mode, for one conversation (see `ToolSet.for_langchain`)."""
    from .bridge import Bridge

    try:
        from .langchain_tools import tools
    except ModuleNotFoundError as exc:
        raise _missing(exc, "for_langchain") from None

    return tools(Bridge(ts.session(), approval=require_approval, strict=strict), raise_failures=raise_failures)


def for_langchain_agent(
    ts: ToolsetView,
    *,
    strict: bool = False,
    require_approval: Approval | None = None,
    raise_failures: bool = False,
    provider_search: bool = False,
) -> list[AgentMiddleware[Any, Any]]:
    """LangChain `create_agent` middleware (see `ToolSet.for_langchain_agent`)."""
    from .bridge import Bridge

    try:
        from .langchain_agent import middleware
    except ModuleNotFoundError as exc:
        raise _missing(exc, "for_langchain_agent") from None

    bridge = Bridge(ts, approval=require_approval, strict=strict)
    return middleware(bridge, raise_failures=raise_failures, provider_search=provider_search)
