# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The OpenAI Agents SDK: the toolset as one `MCPServer` in the agent's process, no subprocess.

The SDK lists an MCP server's tools at every turn, so routed mode's found tools appear on the
next turn. The SDK's own servers keep no conversation state, so one server object serves every
run of an agent: each run (the SDK's run context) gets a conversation of its own, a
`ToolSet.session` view that finds again what the run's input history found. A tool call carries
its run to `call_tool` in the call's `_meta`, the only way the SDK passes a run to a server. The
servers it calls run in the toolset, so `connect` and `cleanup` have nothing to do.

With `mcp_config={"include_server_in_tool_names": True}` the SDK shows `mcp_<server>__<tool>`:
mcpvend's answers then name tools that way, and take those names back.

The SDK lists an MCP server's tools without `defer_loading` (that is for function tools on the
Responses API), so routed mode keeps its meta-tools here. A name the model writes that is not
listed ends the run unless the run config says otherwise: `run_config()` makes it mcpvend's
answer instead (the tool listed from the next turn, or the names it may have meant).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import re
import weakref
from collections.abc import Iterable, Mapping
from typing import Any

from agents import AgentBase, RunConfig, RunContextWrapper, UserError  # type: ignore[import-not-found, unused-ignore]
from agents.agent_tool_state import get_agent_tool_state_scope  # type: ignore[import-not-found, unused-ignore]
from agents.mcp import MCPServer, ToolFilter, ToolFilterContext  # type: ignore[import-not-found, unused-ignore]
from agents.mcp.util import MCPToolMetaContext  # type: ignore[import-not-found, unused-ignore]
from agents.run_config import ToolErrorFormatterArgs  # type: ignore[import-not-found, unused-ignore]
from mcp.types import (
    CallToolResult,
    GetPromptResult,
    ListPromptsResult,
    TextContent,
    Tool,
    ToolAnnotations,
)

from ..core.calls import RUN_CODE
from ..core.results import ModelResult, error_result
from ..core.specs import META_NAMES
from .bridge import Bridge, Definition

_RUN_META = "mcpvend/run"  # the `_meta` key that takes a tool call's run to `call_tool`
_CONVERSATION = "_mcpvend_conversation"  # where a run's context keeps its conversation (a resumed run's copy too)
_TOKEN = re.compile(r"[\w-]+")
_MAX_NAME = 64  # the longest tool name the SDK shows


class _Run:
    """One run's conversation, and whether the agent shows its tools as `mcp_<server>__<tool>`."""

    def __init__(self, bridge: Bridge, *, prefixed: bool = False) -> None:
        self.bridge = bridge
        self.prefixed = prefixed
        # The run context and agent of the latest listing: what a callable tool_filter is given.
        self.context: RunContextWrapper[Any] | None = None
        self.agent: AgentBase | None = None


class AgentsServer(MCPServer):  # type: ignore[misc, unused-ignore]
    """The tools of a `ToolSet` for an Agents SDK agent (`ToolSet.for_openai_agents`)."""

    def __init__(
        self,
        bridge: Bridge,
        *,
        name: str,
        tool_filter: ToolFilter = None,
        cache_tools_list: bool = False,
        use_structured_content: bool = False,
    ) -> None:
        # A policy asked per tool, so a tool found later in routed mode waits for approval too.
        super().__init__(
            use_structured_content=use_structured_content,
            require_approval=self._needs_approval if bridge.approval else None,
            tool_meta_resolver=self._run_meta,
        )
        self.bridge = bridge  # the conversation of calls made outside a run (`await server.list_tools()`)
        self.tool_filter = tool_filter
        self.cache_tools_list = cache_tools_list
        self._name = name
        self._own = _Run(bridge)
        self._runs: weakref.WeakValueDictionary[str, _Run] = weakref.WeakValueDictionary()
        self._cache: dict[str, Tool] = {}
        self._names = {e.provider for e in bridge.toolset.entries} | META_NAMES | {RUN_CODE}

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

    # --- listing -------------------------------------------------------------------------------

    async def list_tools(
        self, run_context: RunContextWrapper[Any] | None = None, agent: AgentBase | None = None
    ) -> list[Tool]:
        run = self._listing(run_context, agent)
        return [tool.model_copy(deep=True) for tool in self._listed(run.bridge) if await self._allowed(run, tool)]

    @property
    def cached_tools(self) -> list[Tool] | None:
        """With `cache_tools_list=True`, a copy of every tool listed so far, as the SDK's servers give theirs."""
        return [tool.model_copy(deep=True) for tool in self._cache.values()] if self._cache else None

    def invalidate_tools_cache(self) -> None:
        """Render each tool anew at its next listing (`cache_tools_list=True`)."""
        self._cache.clear()

    def _listed(self, bridge: Bridge) -> list[Tool]:
        """The tools of this step; cached, each is rendered once, but the list still follows what the run found."""
        if not self.cache_tools_list:
            return [self._tool(d) for d in bridge.definitions()]
        names = [spec.name for spec in bridge.toolset.listing()]
        if any(name not in self._cache for name in names):
            self._cache.update((d.name, self._tool(d)) for d in bridge.definitions())
        return [self._cache[name] for name in names]

    def _tool(self, definition: Definition) -> Tool:
        entry = self.bridge.entry(definition.name)
        annotations = definition.annotations
        return Tool(
            name=definition.name,
            title=entry.tool.get("title") if entry is not None else None,
            description=definition.description,
            input_schema=definition.parameters,
            output_schema=dict(entry.output_schema) if entry is not None and entry.output_schema is not None else None,
            annotations=ToolAnnotations.model_validate(annotations) if annotations else None,
        )

    async def _allowed(self, run: _Run, tool: Tool) -> bool:
        """Whether the `tool_filter` lets this agent see and call the tool, by the SDK's rules."""
        if self.tool_filter is None:
            return True
        if isinstance(self.tool_filter, dict):
            allowed, blocked = self.tool_filter.get("allowed_tool_names"), self.tool_filter.get("blocked_tool_names")
            return (allowed is None or tool.name in allowed) and (blocked is None or tool.name not in blocked)
        if run.context is None or run.agent is None:
            raise UserError("run_context and agent are required for dynamic tool filtering")
        verdict = self.tool_filter(ToolFilterContext(run.context, run.agent, self.name), tool.model_copy(deep=True))
        return bool(await verdict if inspect.isawaitable(verdict) else verdict)

    # --- calls ----------------------------------------------------------------------------------

    async def call_tool(
        self, tool_name: str, arguments: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> CallToolResult:
        run = self._runs.get(str((meta or {}).get(_RUN_META)), self._own)
        if run.prefixed and tool_name in META_NAMES:
            arguments = _renamed(arguments, self._unshown)  # call_tool's and get_tool_schema's `name`
        result = await self._refusal(run, tool_name, arguments) or await run.bridge.call(tool_name, arguments)
        if run.prefixed and (result.is_error or tool_name in META_NAMES - {"call_tool"}):  # mcpvend's own words
            spoken = _renamed(result.text, self._shown), _renamed(result.structured, self._shown)
            result = ModelResult(spoken[0], result.is_error, spoken[1], retry=result.retry)
        return CallToolResult(
            content=[TextContent(type="text", text=result.text)],
            structured_content=result.structured if isinstance(result.structured, dict) else None,
            is_error=result.is_error,
        )

    async def _refusal(self, run: _Run, tool_name: str, arguments: Mapping[str, Any] | None) -> ModelResult | None:
        """The answer to a call (by name or through `call_tool`) of a tool the `tool_filter` keeps from this agent."""
        if self.tool_filter is None:  # the common case: no lookup on the call path
            return None
        target = run.bridge.toolset.resolve(tool_name, arguments)
        if target is None:
            return None
        annotations = target.tool.get("annotations")
        reviewed = Definition(
            target.provider, target.description, dict(target.input_schema), False, annotations if annotations else None
        )
        return (
            None
            if await self._allowed(run, self._tool(reviewed))
            else error_result(f"'{target.provider}' is not among your tools")
        )

    def run_config(self, **options: Any) -> RunConfig:
        """`Runner.run(agent, task, run_config=server.run_config())`: a tool name that is not listed gets
        `tool_error` as its result rather than ending the run; `options` are the RunConfig's others."""
        return RunConfig(
            tool_not_found_behavior="return_error_to_model", tool_error_formatter=self.tool_error, **options
        )

    async def tool_error(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        """A `tool_error_formatter`: a real, bare or dotted tool name is listed for the next turn (routed mode)
        and named as listed; another name gets the tools it may have meant. Other errors keep the SDK's text."""
        if args.kind != "tool_not_found":
            return None
        run = self._found(args.run_context)
        names = (self._unshown, self._shown) if run.prefixed else ({}, {})
        entry, answer = run.bridge.toolset.lookup(_renamed(args.tool_name, names[0]))
        if entry is not None:
            refused = await self._refusal(run, entry.provider, None)
            if refused is None:
                run.bridge.materialize([entry.provider])
                answer = f"'{entry.provider}' is now among your tools: call '{entry.provider}' with the same arguments"
            else:
                answer = refused.text
        return str(_renamed(answer, names[1]))

    async def list_prompts(self) -> ListPromptsResult:
        return ListPromptsResult(prompts=[])

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> GetPromptResult:
        raise ValueError(f"{self._name} serves tools only: there is no prompt {name!r}")

    def _needs_approval(self, run_context: RunContextWrapper[Any], agent: AgentBase, tool: Tool) -> bool:
        return self.bridge.approval_required(tool.name)

    # --- runs -----------------------------------------------------------------------------------

    def _listing(self, run_context: RunContextWrapper[Any] | None, agent: AgentBase | None) -> _Run:
        """The run's conversation, begun at its first listing: what its input history found is found again."""
        scope = get_agent_tool_state_scope(run_context) if run_context is not None else None
        if run_context is None or scope is None:
            return self._own
        run = getattr(run_context, _CONVERSATION, None) or self._runs.get(scope)
        if not isinstance(run, _Run):
            view = self.bridge.view()
            prefixed = agent is not None and bool(agent.mcp_config.get("include_server_in_tool_names"))
            run = _Run(view, prefixed=prefixed)
            view.recall(self._history(run_context.turn_input, prefixed))
        setattr(run_context, _CONVERSATION, run)  # the run context owns it; a resumed run's copy keeps it
        self._runs[scope] = run
        run.context, run.agent = run_context, agent
        return run

    def _found(self, run_context: RunContextWrapper[Any]) -> _Run:
        scope = get_agent_tool_state_scope(run_context)
        return self._runs.get(scope, self._own) if scope is not None else self._own

    def _run_meta(self, context: MCPToolMetaContext) -> dict[str, Any] | None:
        """The SDK's `tool_meta_resolver`, asked before each call: the call's `_meta` names its run."""
        scope = get_agent_tool_state_scope(context.run_context)
        return {_RUN_META: scope} if scope is not None else None

    def _history(self, items: Iterable[Any], prefixed: bool) -> list[tuple[str, Any, Any]]:
        """(name, arguments, output) of each function call in a run's input, in the toolset's names."""
        calls: list[Mapping[str, Any]] = []
        outputs: dict[Any, Any] = {}
        for item in items:
            kind = item.get("type") if isinstance(item, Mapping) else None
            if kind == "function_call":
                calls.append(item)
            elif kind == "function_call_output":
                output = item.get("output")
                parts = output if isinstance(output, list) else [{"text": output}]
                outputs[item.get("call_id")] = "".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping))
        history = []
        for call in calls:
            try:
                arguments = json.loads(str(call.get("arguments") or "{}"))
            except ValueError:
                arguments = None
            history.append((str(call.get("name")), arguments, outputs.get(call.get("call_id"))))
        return _renamed(history, self._unshown) if prefixed else history

    # --- the names the SDK shows ----------------------------------------------------------------

    @functools.cached_property
    def _shown(self) -> dict[str, str]:
        """Each name as the SDK shows it with `include_server_in_tool_names`: `mcp_<server>__<tool>`, made
        of safe characters, cut to 64 with a hash of the server and tool names (the SDK's `MCPUtil` rule)."""
        server = _safe(self.name, "server")
        shown = {}
        for name in self._names:
            base = f"mcp_{server}__{_safe(name, 'tool')}"
            if len(base) > _MAX_NAME:
                digest = hashlib.sha1(f"{self.name}\0{name}".encode()).hexdigest()[:8]
                base = f"{base[: _MAX_NAME - 9].rstrip('_-') or 'mcp'}_{digest}"
            shown[name] = base
        return shown

    @functools.cached_property
    def _unshown(self) -> dict[str, str]:
        return {shown: name for name, shown in self._shown.items()}


def _safe(name: str, fallback: str) -> str:
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "_-") else "_" for c in name).strip("_-")
    return safe or fallback


def _renamed(value: Any, names: Mapping[str, str]) -> Any:
    """Text, or JSON data, with each tool name in `names` replaced by its other name."""
    if isinstance(value, str):
        return _TOKEN.sub(lambda m: names.get(m[0], m[0]), value)
    if isinstance(value, list | tuple):
        return type(value)(_renamed(v, names) for v in value)
    if isinstance(value, dict):
        return {k: _renamed(v, names) for k, v in value.items()}
    return value
