# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""The input rounds of a 2026-07-28 request: `input_required` answered by the client's handlers, the request sent again.

Apart from `methods.py` so that a plain call and a task's creating call (`tasks.py`) share one driver.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import mcp_types as types
from mcp import ClientSession, InputRequiredRoundsExceededError, MCPError
from mcp.client.session import ClientRequestContext

MAX_INPUT_ROUNDS = 10  # input_required rounds of one tool call (the SDK's default)
ResultT = TypeVar("ResultT")
Send = Callable[[types.InputResponses | None, str | None], Awaitable[ResultT | types.InputRequiredResult]]


async def answer(session: ClientSession, request: types.InputRequest, key: str) -> types.InputResponse:
    """One request for input, answered by the handlers of the session (`InputHandlers`); a refusal raises."""
    meta = request.params.meta if request.params else None
    context = ClientRequestContext(session=session, request_id=key, meta=meta)
    answered = await session.dispatch_input_request(context, request)
    if isinstance(answered, types.ErrorData):
        raise MCPError(answered.code, answered.message, answered.data)
    return answered


async def drive(session: ClientSession, send: Send[ResultT]) -> ResultT:
    """Send, answer each `input_required` round and send again with the answers and the server's state,
    at most `MAX_INPUT_ROUNDS` times (the SDK's driver does the same, from a module private to it)."""
    result = await send(None, None)
    for _ in range(MAX_INPUT_ROUNDS):
        if not isinstance(result, types.InputRequiredResult):
            return result
        requests = result.input_requests or {}
        if not requests:  # the server is still working on it: ask again shortly, with its state
            await anyio.sleep(0.05)
        responses = {key: await answer(session, request, key) for key, request in requests.items()}
        result = await send(responses or None, result.request_state)
    if isinstance(result, types.InputRequiredResult):
        raise InputRequiredRoundsExceededError(MAX_INPUT_ROUNDS)
    return result
