"""Wrappers around a transport's streams, for what the SDK's models would hide: the raw results a lockfile
records, the HTTP status of a refused request, and whether a stdio server's streams have ended.

Each wraps a `(read, write)` pair and returns another, so the transport setup can stack them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp.shared.message import SessionMessage

if TYPE_CHECKING:  # the SDK's stream protocols, for annotations only: the module is private to it
    from mcp.client._transport import ReadStream, TransportStreams, WriteStream


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


class _Closable(Protocol):
    async def aclose(self) -> None: ...


_S = TypeVar("_S", bound=_Closable)


class StreamWrapper(Generic[_S]):
    """What a stream wrapper shares (those below, task_wire's): closing closes the stream it wraps; `async with`."""

    _inner: _S

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> bool | None:
        await self.aclose()
        return None


class _EndWatch(StreamWrapper["ReadStream[SessionMessage | Exception]"]):
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

    def __aiter__(self) -> _EndWatch:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self._inner.__anext__()
        except _ENDED:
            self._on_end()
            raise


class _EndWatchWrite(StreamWrapper["WriteStream[SessionMessage]"]):
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


class _ReadThrough(StreamWrapper["ReadStream[SessionMessage | Exception]"]):
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

    def __aiter__(self) -> _ReadThrough:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        return self._see(await self._inner.__anext__())


class _TapWrite(StreamWrapper["WriteStream[SessionMessage]"]):
    def __init__(self, inner: WriteStream[SessionMessage], tap: WireTap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, item: SessionMessage, /) -> None:
        self._tap._sent(item)
        await self._inner.send(item)
