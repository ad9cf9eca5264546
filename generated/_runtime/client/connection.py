# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Open an MCP client over stdio, streamable HTTP or the legacy HTTP+SSE transport.

Lives in the runtime because generated packages connect the same way `mcpvend lock` does;
it must import nothing but `mcp` (and what `mcp` brings).
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

import anyio
import httpx2
import mcp_types as types
from mcp import (
    Client,
    ClientSession,
    InputRequiredRoundsExceededError,
    MCPError,
    StdioServerParameters,
    stdio_client,
)
from mcp.client.session import (
    ClientRequestContext,
    ElicitationFnT,
    ListRootsFnT,
    SamplingFnT,
)
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from pydantic import TypeAdapter, ValidationError

if TYPE_CHECKING:  # the SDK's stream protocols, for annotations only: the module is private to it
    from mcp.client._transport import ReadStream, TransportStreams, WriteStream

from . import failures
from .targets import Capability, Protocol, StdioTarget, Target, guard_logs, redact

CLIENT_INFO = types.Implementation(name="mcpvend", version="0")
MAX_PAGES = 1000
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # the SDK's own default, for both HTTP transports
MAX_INPUT_ROUNDS = 10  # input_required rounds of one tool call (the SDK's default)
_CALL_RESULT: TypeAdapter[types.CallToolResult | types.InputRequiredResult] = TypeAdapter(
    types.CallToolResult | types.InputRequiredResult
)


class ProtocolViolation(Exception):
    """The server broke the protocol in a way that no retry would fix."""


class WireTap:
    """Keeps the raw JSON-RPC results that the SDK's models would trim.

    The SDK drops unknown keys and rejects a whole `tools/list` page for one bad tool;
    a lockfile must record what the server actually sent, so we read it off the streams.
    """

    def __init__(self, on_garbage: Callable[[Exception], None] | None = None) -> None:
        self._pending: dict[int | str, str] = {}
        self._results: dict[str, dict[str, Any]] = {}
        self._on_garbage = on_garbage

    def take(self, method: str) -> dict[str, Any] | None:
        """The newest raw result for `method`, removed so a later call cannot see a stale one."""
        return self._results.pop(method, None)

    def wrap(self, streams: TransportStreams) -> TransportStreams:
        read, write = streams
        return _ReadThrough(read, self._received), _TapWrite(write, self)

    def _sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, types.JSONRPCRequest):
            self._pending[message.id] = message.method

    def _received(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if isinstance(item, Exception):
            if self._on_garbage is not None:
                self._on_garbage(item)
            return item
        message = item.message
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            method = self._pending.pop(message.id, None) if message.id is not None else None
            if method is not None and isinstance(message, types.JSONRPCResponse):
                self._results[method] = copy.deepcopy(message.result)
        return item


class HttpStatuses:
    """Puts the HTTP status back into the errors of requests a server refused with one.

    For a 4xx/5xx answer without a JSON-RPC body, the SDK reports -32603 "Server returned an
    error response" whatever the status: a 401 (wrong credentials) would read like a 500.
    A response hook records the status per JSON-RPC id; the read stream rewrites that error.
    """

    SDK_MESSAGE = "Server returned an error response"

    def __init__(self) -> None:
        self._status: dict[int | str, str] = {}

    async def record(self, response: httpx2.Response) -> None:
        if response.status_code < 400:
            return
        try:
            ident = json.loads(response.request.content).get("id")
        except (ValueError, AttributeError, httpx2.RequestNotRead):
            return
        if isinstance(ident, int | str):
            self._status[ident] = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()

    def wrap(self, streams: TransportStreams) -> TransportStreams:
        read, write = streams
        return _ReadThrough(read, self._rewrite), write

    def _rewrite(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if isinstance(item, Exception) or not isinstance(item.message, types.JSONRPCError):
            return item
        message = item.message
        status = self._status.pop(message.id, None) if message.id is not None else None
        if status is None or message.error.message != self.SDK_MESSAGE:
            return item
        error = message.error.model_copy(update={"message": status})
        return SessionMessage(message.model_copy(update={"error": error}), metadata=item.metadata)


class Link:
    """Tells a server's JSON-RPC error -32000 from the SDK's own, which reports a lost connection with that code.

    Over stdio every message read comes from the server, so a -32000 that arrives while the
    server's streams are open is its answer (a tool's ordinary error). Over HTTP the transport
    also reports a response stream cut short with -32000, in the same stream as the server's
    messages: there, any -32000 may be a loss.
    """

    def __init__(self) -> None:
        self._stdio = False
        self._ended = False

    @property
    def open(self) -> bool:
        """Whether a -32000 error now is the server's answer: a stdio server's streams have not ended."""
        return self._stdio and not self._ended

    def wrap(self, streams: TransportStreams) -> TransportStreams:
        """A stdio server's streams, noting when either ends (it exited, crashed or closed its stdout)."""
        self._stdio = True
        read, write = streams
        return _EndWatch(read, self._end), _EndWatchWrite(write, self._end)

    def _end(self) -> None:
        self._ended = True


_ENDED = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, StopAsyncIteration)


class _EndWatch:
    """A read stream that tells `on_end` when it ends, before its reader (the SDK) sees that."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except _ENDED:
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self._inner.__anext__()
        except _ENDED:
            self._on_end()
            raise

    async def __aenter__(self) -> _EndWatch:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class _EndWatchWrite:
    """A write stream that tells `on_end` when it is found broken (the server is gone)."""

    def __init__(self, inner: WriteStream[SessionMessage], on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    async def send(self, item: SessionMessage, /) -> None:
        try:
            await self._inner.send(item)
        except _ENDED:
            self._on_end()
            raise

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _EndWatchWrite:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class _ReadThrough:
    """A read stream that passes every item through `see` (which may replace it)."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        see: Callable[[SessionMessage | Exception], SessionMessage | Exception],
    ) -> None:
        self._inner = inner
        self._see = see

    async def receive(self) -> SessionMessage | Exception:
        return self._see(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _ReadThrough:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        return self._see(await self._inner.__anext__())

    async def __aenter__(self) -> _ReadThrough:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class _TapWrite:
    def __init__(self, inner: WriteStream[SessionMessage], tap: WireTap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, item: SessionMessage, /) -> None:
        self._tap._sent(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


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


class RedactedStderr:
    """A pipe for a child's stderr that copies each line to `destination` with the secrets taken out.

    A server's stderr is its own, and a careless one prints its environment or its command line
    on the way down; passed through as is, that would put our credentials in the caller's logs.
    """

    def __init__(self, destination: TextIO, secrets: frozenset[str]) -> None:
        read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w")  # what the child gets as its stderr
        self._reader = os.fdopen(read_fd, "rb")
        self._destination = destination
        self._secrets = secrets
        self._thread = threading.Thread(target=self._pump, name="mcpvend-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with self._reader:
            for line in self._reader:
                # A destination that fails is skipped, never the draining: a full pipe would block the child.
                with contextlib.suppress(OSError, ValueError):
                    self._destination.write(redact(line.decode("utf-8", errors="replace"), self._secrets))
                    self._destination.flush()

    def started(self) -> None:
        """The child holds the pipe now: drop ours, so its exit ends the copying."""
        self.writer.close()

    def close(self, wait: float = 2.0) -> None:
        """Wait (briefly: the child is gone) until the last line is copied."""
        self.writer.close()
        self._thread.join(wait)


@asynccontextmanager
async def _transport(
    target: Target, errlog: TextIO | None, tap: WireTap | None, link: Link | None, auth: httpx2.Auth | None = None
) -> AsyncIterator[TransportStreams]:
    if isinstance(target, StdioTarget):
        params = StdioServerParameters(
            command=target.command, args=list(target.args), env=dict(target.env) or None, cwd=target.cwd
        )
        secrets = target.secret_values()
        stderr = RedactedStderr(errlog if errlog is not None else sys.stderr, secrets) if secrets else None
        try:
            sink = stderr.writer if stderr is not None else errlog
            opened = stdio_client(params, errlog=sink) if sink is not None else stdio_client(params)
            async with opened as streams:
                if stderr is not None:
                    stderr.started()
                streams = link.wrap(streams) if link else streams
                yield tap.wrap(streams) if tap else streams
        finally:
            if stderr is not None:
                stderr.close()
    else:
        statuses = HttpStatuses()
        if auth is None and target.oauth is not None:
            # The SDK's OAuth client, imported by the servers that sign in only.
            from .oauth import provider

            auth = provider(target.url, target.oauth)

        def http_client(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(
                headers=headers, timeout=timeout or HTTP_TIMEOUT, auth=auth, event_hooks={"response": [statuses.record]}
            )

        async with contextlib.AsyncExitStack() as stack:
            if target.sse:
                streams = await stack.enter_async_context(
                    sse_client(
                        target.url,
                        headers=dict(target.headers),
                        timeout=HTTP_TIMEOUT.connect or 30.0,
                        sse_read_timeout=HTTP_TIMEOUT.read or 300.0,
                        httpx_client_factory=http_client,
                        auth=auth,
                    )
                )
            else:
                http = await stack.enter_async_context(http_client(dict(target.headers), auth=auth))
                streams = await stack.enter_async_context(streamable_http_client(target.url, http_client=http))
            streams = statuses.wrap(streams)
            yield tap.wrap(streams) if tap else streams


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
        _transport(target, errlog, tap, link, auth),
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
