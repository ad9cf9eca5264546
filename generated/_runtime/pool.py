# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""One connection per server, shared by every concurrent call; started on first use, restarted after a crash.

An `mcp.Client` must be entered and left by the same task, but a toolset's calls come from
whatever tasks the agent runs. So each connection is held open by a task of its own (`_hold`)
until it is closed, and calls only borrow the client. A call that finds the server gone
restarts it once for everybody (by generation number), and is sent again only when the tool's
reviewed annotations say it is read-only or idempotent: anything else might have run already.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp import Client, MCPError

from . import failures
from .catalog import Entry
from .connection import WireTap, call_tool, open_client
from .manifest import Manifest
from .targets import Target, redact
from .tools import DriftError, Pinning, check_pins

DEFAULT_TIMEOUT = 60.0
_GONE = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    ConnectionError,
)


class CallFailed(Exception):
    """A call that produced no tool result; the message is safe to show the model (no secrets)."""


def _gone(exc: BaseException) -> bool:
    return isinstance(exc, _GONE) or (
        isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED
    )


@dataclass
class _Live:
    client: Client
    refused: Mapping[str, str]
    generation: int
    stop: asyncio.Event
    holder: asyncio.Task[None]


@dataclass
class Connection:
    """A server a toolset may call, and the connection to it when there is one."""

    manifest: Manifest
    target: Target
    pinning: Pinning = "strict"
    timeout: float = DEFAULT_TIMEOUT
    errlog: TextIO | None = None
    restarts: int = 0  # how often a lost server was started again
    _live: _Live | None = field(default=None, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _generation: int = field(default=0, repr=False)

    def redact(self, text: str) -> str:
        """`text` without the target's env and header values, nor what its url and arguments expanded."""
        return redact(text, self.target.secret_values())

    async def acquire(self) -> _Live:
        """The live connection, started if there is none (once, however many callers wait)."""
        live = self._live
        if live is not None and not live.holder.done():
            return live
        async with self._lock:
            if self._live is not None and not self._live.holder.done():
                return self._live
            if self._live is not None:
                self.restarts += 1
                await self._close(self._live)
            self._live = await self._start()
            return self._live

    async def lost(self, generation: int) -> None:
        """Report that the connection of `generation` is gone, so the next `acquire` starts anew."""
        async with self._lock:
            if self._live is not None and self._live.generation == generation:
                self.restarts += 1
                live, self._live = self._live, None
                await self._close(live)

    async def call(
        self, entry: Entry, arguments: Mapping[str, Any]
    ) -> types.CallToolResult | None:
        """One attempt: the result, or None when the server went away (it will be started anew)."""
        live = await self.acquire()
        if entry.name in live.refused:
            raise DriftError(
                f"tool '{entry.provider}' is refused: {live.refused[entry.name]} (pinning is strict)"
            )
        try:
            return await call_tool(live.client, entry.name, arguments, self.timeout)
        except (
            Exception
        ) as exc:  # noqa: BLE001 - the model gets an error result, never an exception
            cause = failures.leaf(exc)
            if isinstance(cause, MCPError) and cause.code == types.REQUEST_TIMEOUT:
                raise CallFailed(
                    f"tool '{entry.provider}' timed out after {self.timeout:g} s"
                ) from None
            if not _gone(cause):
                raise CallFailed(
                    f"the call failed: {self.redact(failures.reason(cause))}"
                ) from None
        await self.lost(live.generation)
        return None

    async def _start(self) -> _Live:
        self._generation += 1
        ready: asyncio.Future[tuple[Client, Mapping[str, str]]] = (
            asyncio.get_running_loop().create_future()
        )
        stop = asyncio.Event()
        starting = anyio.CancelScope()
        holder = asyncio.get_running_loop().create_task(
            self._hold(ready, stop, starting)
        )
        try:
            client, refused = await asyncio.wait_for(
                asyncio.shield(ready), self.timeout
            )
        except BaseException as exc:
            # Timed out, failed or the caller cancelled: the holder must not outlive the wait, or its
            # server would run on with nobody to close it. It is stopped by an anyio cancellation, and
            # awaited through a shield: a cancelled caller would otherwise pass task.cancel() on to it
            # again and again, which defeats the SDK's shielded shutdown (the server then lives on
            # until it exits by itself).
            starting.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.shield(holder)
            if isinstance(exc, TimeoutError):
                raise CallFailed(
                    f"server '{self.manifest.server}' did not start within {self.timeout:g} s"
                ) from None
            if not isinstance(exc, Exception):
                raise
            raise CallFailed(
                failures.not_started(
                    self.manifest.server, exc, self.target.secret_values()
                )
            ) from None
        return _Live(client, refused, self._generation, stop, holder)

    async def _hold(
        self,
        ready: asyncio.Future[tuple[Client, Mapping[str, str]]],
        stop: asyncio.Event,
        starting: anyio.CancelScope,
    ) -> None:
        try:
            with starting:
                tap = WireTap() if self.pinning != "off" else None
                caps = self.manifest.capabilities
                async with open_client(
                    self.target, capabilities=caps, tap=tap, errlog=self.errlog
                ) as client:
                    refused = await check_pins(self.manifest, client, tap, self.pinning)
                    ready.set_result((client, refused))
                    await stop.wait()
        except (
            Exception
        ) as exc:  # noqa: BLE001 - handed to the caller waiting on `ready`
            if not ready.done() and not starting.cancel_called:
                ready.set_exception(exc)
        finally:
            # Cancelled (a start timeout or a caller gone): whoever waited has stopped waiting, and an
            # exception set on `ready` now would only be logged as never retrieved.
            if not ready.done():
                ready.cancel()

    async def _close(self, live: _Live) -> None:
        live.stop.set()
        with contextlib.suppress(BaseException):
            await live.holder

    async def aclose(self) -> None:
        async with self._lock:
            if self._live is not None:
                live, self._live = self._live, None
                await self._close(live)


class Pool:
    """The connections of a toolset's servers, by server name."""

    def __init__(self, connections: Mapping[str, Connection]) -> None:
        self.connections = dict(connections)

    async def call(
        self, entry: Entry, arguments: Mapping[str, Any]
    ) -> types.CallToolResult:
        """Run one tool; raises `CallFailed` (with a message for the model) when there is no result."""
        connection = self.connections[entry.server]
        result = await connection.call(entry, arguments)
        if result is not None:
            return result
        if not entry.retry_safe:
            raise CallFailed(
                f"server '{entry.server}' stopped during the call and was restarted; the call was not repeated "
                f"because '{entry.provider}' is not annotated read-only or idempotent (it may have run)"
            )
        result = await connection.call(entry, arguments)
        if result is None:
            raise CallFailed(
                f"server '{entry.server}' stopped during the call twice; giving up"
            )
        return result

    async def aclose(self) -> None:
        for connection in self.connections.values():
            await connection.aclose()
