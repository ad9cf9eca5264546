# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The MCP methods mcpvend sends a connected server: `tools/call` (its input rounds, and tasks) and every
page of `tools/list`, read as served.

Every tool call goes through `call_tool` (the typed wrappers, a toolset's calls in every mode, the framework
adapters, `mcpvend serve`): a tool is run as a task here, or plainly, whoever calls it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp import Client, ClientSession, MCPError
from pydantic import TypeAdapter, ValidationError

from . import tasks
from .rounds import MAX_INPUT_ROUNDS, drive
from .task_wire import wire_of

if TYPE_CHECKING:
    from .streams import WireTap

__all__ = ["MAX_INPUT_ROUNDS", "MAX_PAGES", "ProtocolViolation", "call_tool", "list_tools_raw"]
MAX_PAGES = 1000
_CALL_RESULT: TypeAdapter[types.CallToolResult | types.InputRequiredResult] = TypeAdapter(
    types.CallToolResult | types.InputRequiredResult
)


class ProtocolViolation(Exception):
    """The server broke the protocol in a way that no retry would fix."""


async def call_tool(
    peer: Client | ClientSession, name: str, arguments: Mapping[str, Any], timeout: float | None
) -> types.CallToolResult:
    """`tools/call`, sent through the session's public request API: plainly, or as a task (`tasks.choose`).

    The SDK's own `call_tool` first lists the server's tools again to check the result against
    the live output schema: an unreviewed schema, and one malformed tool in that listing would
    fail every call after the tool has run. Results are checked against the reviewed schemas
    instead (the typed output models, the ToolSet's validator). A 2026-07-28 tool that needs input
    answers `input_required`, answered by the client's handlers (`rounds.drive`). The progress the
    server reports reaches the connection's progress handler (`task_wire.CallSettings`). A 2026-07-28
    tool that the server runs only as a task, though its lockfile could not say so (that era's tools
    carry no `taskSupport`), is refused once with -32021 naming the tasks extension, then run as a task.
    """
    session = peer.session if isinstance(peer, Client) else peer
    wire = wire_of(session)
    if wire is not None and tasks.choose(session, wire, name) == "task":
        return await tasks.run(session, wire, name, arguments, timeout)
    progress = wire.settings.progress if wire is not None else None

    async def send(
        responses: types.InputResponses | None, state: str | None
    ) -> types.CallToolResult | types.InputRequiredResult:
        params = types.CallToolRequestParams(
            name=name, arguments=dict(arguments), input_responses=responses, request_state=state
        )
        request = types.CallToolRequest(params=params)
        return await session.send_request(
            request, _CALL_RESULT, request_read_timeout_seconds=timeout, progress_callback=progress
        )

    try:
        return await drive(session, send)
    except MCPError as exc:
        if not tasks.wants_extension(exc):
            raise
        if wire is None or not tasks.may_declare(session, wire):
            raise tasks.unrunnable(name, exc, wire) from None
    wire.required.add(name)  # the tool did not run: from now on it is sent as a task at once
    return await tasks.run(session, wire, name, arguments, timeout)


async def list_tools_raw(client: Client, tap: WireTap) -> tuple[list[Any], dict[str, Any]]:
    """Every tool as served, over every page of tools/list, refusing a cursor that loops or never ends.

    Also returns the first page without its tools: the SDK's wire models validate a tool only
    inside a whole result, so callers judging single tools need that envelope.
    """
    tools: list[Any] = []
    envelope: dict[str, Any] | None = None
    cursor: str | None = None
    seen: set[str] = set()
    for page_number in range(1, MAX_PAGES + 1):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        # One bad tool fails the SDK's parse of the whole page; the raw page is what counts here.
        with contextlib.suppress(ValidationError):
            await client.session.list_tools(params=params)
        page = tap.take("tools/list")
        if not isinstance(page, dict) or not isinstance(page.get("tools"), list):
            raise ProtocolViolation("tools/list answered without a 'tools' list")
        tools.extend(page["tools"])
        if envelope is None:
            envelope = {k: v for k, v in page.items() if k not in ("tools", "nextCursor")}
        cursor = page.get("nextCursor")
        if cursor is None:
            return tools, envelope
        if not isinstance(cursor, str):
            raise ProtocolViolation(f"tools/list nextCursor is not a string: {cursor!r:.80}")
        if cursor in seen:
            raise ProtocolViolation(f"tools/list cursor loop: cursor {cursor!r:.80} came back on page {page_number}")
        seen.add(cursor)
    raise ProtocolViolation(f"tools/list did not end after {MAX_PAGES} pages")
