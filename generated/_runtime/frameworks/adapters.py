# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The ways into agent frameworks that `ts.for_pydantic_ai()` and the other `ToolSet` methods hand out.

Each imports its framework's adapter (`frameworks/`) only when called, so the generated package
imports with `mcp` and `pydantic` alone; the frameworks are named here for type checkers only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agents.mcp import MCPServer  # type: ignore[import-not-found, unused-ignore]
    from langchain.agents.middleware import AgentMiddleware  # type: ignore[import-not-found, unused-ignore]
    from langchain_core.tools import BaseTool  # type: ignore[import-not-found, unused-ignore]
    from pydantic_ai.toolsets import AbstractToolset  # type: ignore[import-not-found, unused-ignore]

    from ..core.seams import ToolsetView
    from .bridge import Approval


def for_pydantic_ai(
    ts: ToolsetView,
    *,
    strict: bool = False,
    require_approval: Approval | None = None,
    id: str | None = "mcpvend",
    max_retries: int | None = None,
) -> AbstractToolset[Any]:
    """A pydantic-ai toolset whose runs each get a conversation of their own (see `ToolSet.for_pydantic_ai`)."""
    from .bridge import Bridge
    from .pydantic_ai_toolset import PydanticAIToolset

    return PydanticAIToolset(Bridge(ts, approval=require_approval, strict=strict), id=id, max_retries=max_retries)


def for_openai_agents(
    ts: ToolsetView, *, strict: bool = False, require_approval: Approval | None = None, name: str = "mcpvend"
) -> MCPServer:
    """An Agents SDK MCP server over one conversation (see `ToolSet.for_openai_agents`)."""
    from .bridge import Bridge
    from .openai_agents_server import AgentsServer

    return AgentsServer(Bridge(ts.session(), approval=require_approval, strict=strict), name=name)


def for_langchain(ts: ToolsetView, *, strict: bool = False, require_approval: Approval | None = None) -> list[BaseTool]:
    """LangChain tools of the current mode, for one conversation (see `ToolSet.for_langchain`)."""
    from .bridge import Bridge
    from .langchain_tools import tools

    return tools(Bridge(ts.session(), approval=require_approval, strict=strict))


def for_langchain_agent(
    ts: ToolsetView, *, strict: bool = False, require_approval: Approval | None = None
) -> list[AgentMiddleware[Any, Any]]:
    """LangChain `create_agent` middleware (see `ToolSet.for_langchain_agent`)."""
    from .bridge import Bridge
    from .langchain_agent import middleware

    return middleware(Bridge(ts, approval=require_approval, strict=strict))
