"""The OpenAI Agents SDK: the toolset as one `MCPServer` in the agent's process, no subprocess.

The SDK lists an MCP server's tools at every turn, so routed mode's found tools appear on the
next turn. Each server object is one conversation (a `ToolSet.session` view); the servers it
calls run in the toolset, so `connect` and `cleanup` have nothing to do.

The SDK lists an MCP server's tools without `defer_loading` (that is for function tools on the
Responses API), so routed mode keeps its meta-tools here. A name the model writes that is not
listed ends the run unless the run config says otherwise: `run_config()` makes it mcpvend's
answer instead (the tool listed from the next turn, or the names it may have meant).
"""

from __future__ import annotations

from typing import Any

from agents import AgentBase, RunConfig, RunContextWrapper  # type: ignore[import-not-found, unused-ignore]
from agents.mcp import MCPServer  # type: ignore[import-not-found, unused-ignore]
from agents.run_config import ToolErrorFormatterArgs  # type: ignore[import-not-found, unused-ignore]
from mcp.types import (
    CallToolResult,
    GetPromptResult,
    ListPromptsResult,
    TextContent,
    Tool,
    ToolAnnotations,
)

from .bridge import Bridge


class AgentsServer(MCPServer):  # type: ignore[misc, unused-ignore]
    """The tools of a `ToolSet` for an Agents SDK agent (`ToolSet.for_openai_agents`)."""

    def __init__(self, bridge: Bridge, *, name: str) -> None:
        # A policy asked per tool, so a tool found later in routed mode waits for approval too.
        super().__init__(require_approval=self._needs_approval if bridge.approval else None)
        self.bridge = bridge
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    async def connect(self) -> None:
        """The toolset starts its servers on first use."""

    async def cleanup(self) -> None:
        """The toolset owns its servers: closing it stops them."""

    async def __aenter__(self) -> AgentsServer:
        """`async with ts.for_openai_agents() as server:`, as every server of the SDK is used."""
        await self.connect()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.cleanup()

    async def list_tools(
        self, run_context: RunContextWrapper[Any] | None = None, agent: AgentBase | None = None
    ) -> list[Tool]:
        return [
            Tool(
                name=d.name,
                description=d.description,
                input_schema=d.parameters,
                annotations=ToolAnnotations.model_validate(d.annotations) if d.annotations else None,
            )
            for d in self.bridge.definitions()
        ]

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        result = await self.bridge.call(tool_name, arguments)
        return CallToolResult(
            content=[TextContent(type="text", text=result.text)],
            structured_content=result.structured if isinstance(result.structured, dict) else None,
            is_error=result.is_error,
        )

    def run_config(self, **options: Any) -> RunConfig:
        """`Runner.run(agent, task, run_config=server.run_config())`: a tool name that is not listed gets
        `tool_error` as its result rather than ending the run; `options` are the RunConfig's others."""
        return RunConfig(
            tool_not_found_behavior="return_error_to_model", tool_error_formatter=self.tool_error, **options
        )

    def tool_error(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        """A `tool_error_formatter`: a real, bare or dotted tool name is listed for the next turn (routed mode)
        and named as listed; another name gets the tools it may have meant. Other errors keep the SDK's text."""
        if args.kind != "tool_not_found":
            return None
        entry, problem = self.bridge.toolset.lookup(args.tool_name)
        if entry is None:
            return problem
        self.bridge.materialize([entry.provider])
        return f"'{entry.provider}' is now among your tools: call '{entry.provider}' with the same arguments"

    async def list_prompts(self) -> ListPromptsResult:
        return ListPromptsResult(prompts=[])

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> GetPromptResult:
        raise ValueError(f"{self._name} serves tools only: there is no prompt {name!r}")

    def _needs_approval(self, run_context: RunContextWrapper[Any], agent: AgentBase, tool: Tool) -> bool:
        return self.bridge.approval_required(tool.name)
