# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The MCP methods mcpvend sends a connected server: `tools/call` (its input rounds driven here) and every
page of `tools/list`, read as served.

The call path has a module of its own, apart from how a client is connected: what a call may take
(input rounds now, tasks next) grows here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp import Client, ClientSession, InputRequiredRoundsExceededError, MCPError
from mcp.client.session import ClientRequestContext
from pydantic import TypeAdapter, ValidationError

if TYPE_CHECKING:
    from .streams import WireTap

MAX_PAGES = 1000
MAX_INPUT_ROUNDS = 10  # input_required rounds of one tool call (the SDK's default)
_CALL_RESULT: TypeAdapter[types.CallToolResult | types.InputRequiredResult] = TypeAdapter(
    types.CallToolResult | types.InputRequiredResult
)


class ProtocolViolation(Exception):
    """The server broke the protocol in a way that no retry would fix."""


async def call_tool(
    peer: Client | ClientSession, name: str, arguments: Mapping[str, Any], timeout: float | None
) -> types.CallToolResult:
    """`tools/call`, sent through the session's public request API, its input rounds driven by the SDK.

    The SDK's own `call_tool` first lists the server's tools again to check the result against
    the live output schema: an unreviewed schema, and one malformed tool in that listing would
    fail every call after the tool has run. Results are checked against the reviewed schemas
    instead (the typed output models, the ToolSet's validator). A 2026-07-28 tool that needs input
    answers `input_required`: its requests go through the session's own dispatch to the client's
    handlers (`InputHandlers`) and the call is sent again with the answers and the server's state, at
    most `MAX_INPUT_ROUNDS` times (the SDK's driver does the same, from a module private to it).
    """
    session = peer.session if isinstance(peer, Client) else peer

    async def send(
        responses: types.InputResponses | None, state: str | None
    ) -> types.CallToolResult | types.InputRequiredResult:
        params = types.CallToolRequestParams(
            name=name, arguments=dict(arguments), input_responses=responses, request_state=state
        )
        request = types.CallToolRequest(params=params)
        return await session.send_request(request, _CALL_RESULT, request_read_timeout_seconds=timeout)

    async def dispatch(key: str, request: types.InputRequest) -> types.InputResponse | types.ErrorData:
        meta = request.params.meta if request.params else None
        return await session.dispatch_input_request(
            ClientRequestContext(session=session, request_id=key, meta=meta), request
        )

    result = await send(None, None)
    for _ in range(MAX_INPUT_ROUNDS):
        if not isinstance(result, types.InputRequiredResult):
            return result
        requests = result.input_requests or {}
        if not requests:  # the server is still working on it: ask again shortly, with its state
            await anyio.sleep(0.05)
        answers = {key: await dispatch(key, request) for key, request in requests.items()}
        refused = [answer for answer in answers.values() if isinstance(answer, types.ErrorData)]
        if refused:
            raise MCPError(refused[0].code, refused[0].message, refused[0].data)
        responses = {key: answer for key, answer in answers.items() if not isinstance(answer, types.ErrorData)}
        result = await send(responses or None, result.request_state)
    if isinstance(result, types.InputRequiredResult):
        raise InputRequiredRoundsExceededError(MAX_INPUT_ROUNDS)
    return result


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
