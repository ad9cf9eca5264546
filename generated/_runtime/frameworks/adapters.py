# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""`ts.for_pydantic_ai()` and the other ways into agent frameworks (bound as `ToolSet` methods).

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

    from ..core.toolset import ToolSet
    from .bridge import Approval


def for_pydantic_ai(
    ts: ToolSet,
    *,
    id: str | None = "mcpvend",
    strict: bool = False,
    require_approval: Approval | None = None,
    max_retries: int = 1,
) -> AbstractToolset[Any]:
    """`Agent(model, toolsets=[ts.for_pydantic_ai()])`: each run gets a view of its own (see `session`).

    `strict`: OpenAI strict schemas where they can be; `require_approval="destructive"`: tools not
    annotated read-only or non-destructive wait for approval (pydantic-ai's deferred tool calls).
    """
    from .bridge import Bridge
    from .pydantic_ai import PydanticAIToolset

    bridge = Bridge(ts, approval=require_approval, strict=strict)
    return PydanticAIToolset(bridge, id=id, max_retries=max_retries)


def for_openai_agents(
    ts: ToolSet, *, name: str = "mcpvend", strict: bool = False, require_approval: Approval | None = None
) -> MCPServer:
    """`Agent(..., mcp_servers=[ts.for_openai_agents()])`, for one conversation (a view of its own).

    `strict=True` lists strict schemas, which the Agents SDK sends strict with
    `mcp_config={"convert_schemas_to_strict": True}`.
    """
    from .bridge import Bridge
    from .openai_agents import AgentsServer

    return AgentsServer(Bridge(ts.session(), approval=require_approval, strict=strict), name=name)


def for_langchain(ts: ToolSet) -> list[BaseTool]:
    """The tools of the current mode, now, as LangChain tools (`invoke` and `ainvoke`), for one conversation.

    With `langchain.agents.create_agent`, `for_langchain_agent()` lists them anew at each step.
    """
    from .bridge import Bridge
    from .langchain import tools

    return tools(Bridge(ts.session()))


def for_langchain_agent(ts: ToolSet, *, require_approval: Approval | None = None) -> list[AgentMiddleware[Any, Any]]:
    """`create_agent(model, middleware=ts.for_langchain_agent())`: lists the current mode's tools at each
    model call, the ones this conversation found included, and asks approval with LangChain's
    human-in-the-loop middleware."""
    from .bridge import Bridge
    from .langchain import middleware

    return middleware(Bridge(ts, approval=require_approval))
