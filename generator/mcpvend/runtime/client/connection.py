"""Open an MCP client over stdio, streamable HTTP or the legacy HTTP+SSE transport.

Lives in the runtime because generated packages connect the same way `mcpvend lock` does;
it must import nothing but `mcp` (and what `mcp` brings). The transport (`transport.py`), the
stream wrappers (`streams.py`) and the methods sent once connected (`methods.py`) have modules
of their own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT

from . import failures
from .logs import guard_logs
from .methods import MAX_INPUT_ROUNDS
from .streams import Link, WireTap
from .targets import Capability, Protocol, Target
from .transport import transport

CLIENT_INFO = types.Implementation(name="mcpvend", version="0")


@dataclass(frozen=True)
class InputHandlers:
    """Who answers a server's requests for input, with the SDK's own callback signatures and result types.

    Each serves both eras: a 2025-11-25 server's request sent mid-call, and a 2026-07-28 server's
    `input_required` tool result. None keeps mcpvend's answer (elicitation declined, sampling refused,
    no roots); a capability is advertised only when the lockfile records it.
    """

    elicitation: ElicitationFnT | None = None
    sampling: SamplingFnT | None = None
    roots: ListRootsFnT | None = None


async def _refuse_sampling(context: Any, params: types.CreateMessageRequestParams) -> types.ErrorData:
    return types.ErrorData(code=types.INVALID_REQUEST, message="this client does not sample")


async def _decline_elicitation(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


async def _no_roots(context: Any) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[])


@asynccontextmanager
async def open_client(
    target: Target,
    *,
    capabilities: Sequence[Capability] = (),
    protocol: Protocol = "auto",
    read_timeout: float | None = None,
    errlog: TextIO | None = None,
    tap: WireTap | None = None,
    on_tools_changed: Callable[[], None] | None = None,
    link: Link | None = None,
    auth: httpx2.Auth | None = None,
    handlers: InputHandlers | None = None,
) -> AsyncIterator[Client]:
    """A connected, initialized client; the server is stopped when the block ends.

    A capability is advertised only by passing its callback, so `capabilities` decides which
    callbacks exist; they answer politely without doing anything, since neither locking nor
    the runtime samples, elicits or exposes roots. The target's secrets are kept out of the
    SDK's and httpx's log records and out of a stdio server's stderr copied to `errlog`.
    `on_tools_changed` is told of each `notifications/tools/list_changed` the server sends; `link`
    tells whether a -32000 error was the server's answer; `auth` replaces the sign-in an OAuth target
    gets from the token store (`mcpvend login` passes one that asks a person).
    What the block raises comes out as raised: the SDK's task groups would wrap it in exception
    groups, and `except ToolError` around `async with connect()` would never match.
    """
    guard_logs(target.secret_values())

    async def notified(message: Any) -> None:
        if on_tools_changed is not None and isinstance(message, types.ToolListChangedNotification):
            on_tools_changed()

    handlers = handlers or InputHandlers()
    client = Client(
        transport(target, errlog, tap, link, auth),
        mode=protocol,
        cache=None,
        read_timeout_seconds=read_timeout,
        client_info=CLIENT_INFO,
        message_handler=notified,
        sampling_callback=(handlers.sampling or _refuse_sampling) if "sampling" in capabilities else None,
        elicitation_callback=(handlers.elicitation or _decline_elicitation) if "elicitation" in capabilities else None,
        list_roots_callback=(handlers.roots or _no_roots) if "roots" in capabilities else None,
        input_required_max_rounds=MAX_INPUT_ROUNDS,
    )
    raised: Exception | None = None
    try:
        async with client:
            try:
                yield client
            except Exception as exc:
                raised = exc
                raise
    except BaseExceptionGroup as group:
        if raised is None or failures.leaves(group) != [raised]:
            raise
        raise raised from None


@asynccontextmanager
async def beside(function: Callable[[], Coroutine[Any, Any, None]]) -> AsyncIterator[None]:
    """Run `function` beside the block, cancelled when the block ends.

    What the block raises comes out as raised, not wrapped in the task group's exception group
    (as `open_client` does for its own block). `function` must keep its own failures.
    """
    raised: BaseException | None = None
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(function)
            try:
                yield
            except BaseException as exc:
                raised = exc
                raise
            finally:
                group.cancel_scope.cancel()
    except BaseExceptionGroup as exceptions:
        if raised is None or failures.leaves(exceptions) != [raised]:
            raise
        raise raised from None
