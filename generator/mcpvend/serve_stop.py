"""How `mcpvend serve` stops: its upstreams closed first, all at once, whatever stops it.

An MCP client stops a stdio server by closing its stdin, then sends SIGTERM 2 s later and SIGKILL
2 s after that (the SDK's stdio client). The SDK's serving loop waits for the calls in flight
before it returns, and Python dies of SIGTERM on the spot: either way serve could be killed before
closing its upstreams, which the SDK starts each in a session of its own, so nothing killed them
with it. Here the end of stdin, SIGINT or SIGTERM ends the serving at once, calls in flight too,
and no further signal interrupts the closing.
"""

from __future__ import annotations

import contextvars
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Generic, Self, TypeVar

import anyio

if TYPE_CHECKING:  # the SDK's stream protocol, for annotations only: the module is private to it
    from mcp.shared._stream_protocols import ReadStream

    from mcpvend.runtime.toolset import ToolSet

T = TypeVar("T")


UPSTREAM_GRACE = 1.0  # seconds an upstream has to exit on its closed stdin before SIGTERM; the SDK gives 2


async def close_upstreams(toolset: ToolSet) -> None:
    """Close every upstream at once, then the rest of the toolset (its sandbox and audit trail).

    One after another, each upstream that ignores its closed stdin would add the SDK's grace to a
    shutdown the client gives 4 s in all: at once, and with a shorter grace (the SDK reads it from
    its module when a server is stopped), they are all gone within the grace and the time they take
    to obey SIGTERM. Shielded: a cancelled serve still closes them.
    """
    import mcp.client.stdio as sdk_stdio

    grace, sdk_stdio.PROCESS_TERMINATION_TIMEOUT = sdk_stdio.PROCESS_TERMINATION_TIMEOUT, UPSTREAM_GRACE
    try:
        with anyio.CancelScope(shield=True):
            if toolset.pool is not None:
                async with anyio.create_task_group() as group:
                    for connection in toolset.pool.connections.values():
                        group.start_soon(connection.aclose)
            await toolset.close()
    finally:
        sdk_stdio.PROCESS_TERMINATION_TIMEOUT = grace


class Stop:
    """What ends a stdio serve: the client hanging up (`scope` is cancelled when its messages end), or a signal."""

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self.signal: int | None = None

    @asynccontextmanager
    async def watching(self) -> AsyncIterator[None]:
        """While open, SIGINT and SIGTERM cancel `scope` instead of killing the process."""
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    async for received in signals:
                        self.signal = received
                        self.scope.cancel()

                group.start_soon(watch)
                yield
                group.cancel_scope.cancel()

    def die_if_signalled(self) -> None:
        """Once the upstreams are closed, die of the signal received, as a process stopped by it does.

        Returning would wait for the SDK's stdin reader, a thread blocked on a line the client (still
        connected) may never send.
        """
        if self.signal is not None:
            signal.signal(self.signal, signal.SIG_DFL)
            os.kill(os.getpid(), self.signal)


class UntilHangUp(Generic[T]):
    """The client's messages over stdio; their end (the client closed serve's stdin) calls `hung_up`."""

    def __init__(self, stream: ReadStream[T], hung_up: Callable[[], None]) -> None:
        self.stream = stream
        self.hung_up = hung_up

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context, which the SDK's loop reads off the stream it is given."""
        context: contextvars.Context | None = getattr(self.stream, "last_context", None)
        return context

    async def receive(self) -> T:
        try:
            return await self.stream.receive()
        except anyio.EndOfStream:
            self.hung_up()
            raise

    async def aclose(self) -> None:
        await self.stream.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> T:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc_val: BaseException | None, exc_tb: TracebackType | None
    ) -> None:
        await self.aclose()
