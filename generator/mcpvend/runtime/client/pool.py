"""One connection per server, shared by every concurrent call; started on first use, restarted after a crash.

An `mcp.Client` must be entered and left by the same task, but a toolset's calls come from
whatever tasks the agent runs. So each connection is held open by a task of its own (`_hold`)
until it is closed, and calls only borrow the client. A call that finds the server gone
restarts it once for everybody (by generation number), and is sent again only when the tool's
reviewed annotations say it is read-only or idempotent: anything else might have run already.
A server that keeps failing (lost, or not starting) is restarted at once twice in a row; after
that it is paused, for a second and then twice as long at each further failure (up to a minute),
and calls in the pause get an error at once instead of each starting a process that dies.

Nothing is resolved before a server is first needed: its env and header values (and the
variables they name) are read when it starts, so a toolset over many servers works, offline,
without the credentials of the ones it never calls. Starting has its own bound (the lockfile's
`timeout`, or `start_timeout`), separate from each call's.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp import Client, MCPError

from . import failures
from .connection import InputHandlers
from .disguises import redact
from .manifest import ConnectError, Manifest
from .methods import call_tool
from .pinning import DEFAULT_PIN_TTL, DriftError, Pinning, Pins
from .session import pinned_client
from .streams import Link, WireTap
from .targets import NeedsSignIn, Target

DEFAULT_TIMEOUT = 60.0
FREE_RESTARTS = 2  # failures in a row restarted at once: a crash, and a read-only call's retry dying too
RESTART_PAUSE = 1.0  # seconds without a start after the next failure; doubled at each further one
RESTART_PAUSE_MAX = 60.0
clock = time.monotonic  # the pause's clock (a test moves it on)
_GONE = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)


class CallFailed(Exception):
    """A call that produced no tool result; the message is safe to show the model (no secrets)."""


def _gone(exc: BaseException, link: Link) -> bool:
    """Whether the connection is lost (the server will be started anew), not that the server answered an error."""
    if isinstance(exc, _GONE):
        return True
    return isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED and not link.open


@dataclass
class _Live:
    client: Client
    tap: WireTap | None
    link: Link
    generation: int
    stop: asyncio.Event
    holder: asyncio.Task[None]


@dataclass
class Connection:
    """A server a toolset may call, and the connection to it when there is one."""

    manifest: Manifest
    resolve: Callable[[], Target]  # where the server is, with its credentials: asked when it first starts
    pinning: Pinning = "strict"
    timeout: float = DEFAULT_TIMEOUT  # each call
    start_timeout: float | None = None  # None: the lockfile's
    pin_ttl: float = DEFAULT_PIN_TTL
    errlog: TextIO | None = None
    handlers: InputHandlers | None = None  # who answers the server's requests for input
    restarts: int = 0  # how often a lost server was started again
    failures: int = 0  # losses and failed starts since the server last answered a call
    target: Target | None = field(default=None, init=False, repr=False)
    expected: frozenset[str] | None = field(default=None, init=False, repr=False)  # secrets before a start
    pins: Pins = field(init=False, repr=False)
    _live: _Live | None = field(default=None, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _generation: int = field(default=0, repr=False)
    _paused_until: float = field(default=0.0, repr=False)
    _last_failure: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        ttl = self.pin_ttl if self.manifest.transport != "stdio" else None
        self.pins = Pins(self.manifest.server, self.manifest.reviewed, self.pinning, ttl=ttl)

    @property
    def start_limit(self) -> float:
        return self.manifest.start_timeout if self.start_timeout is None else self.start_timeout

    def redact(self, text: str) -> str:
        """`text` without the target's env and header values, nor what its url and arguments expanded."""
        return text if self.target is None else redact(text, self.target.secret_values())

    def secret_values(self) -> frozenset[str]:
        """The values this server holds secret: its target's once started; before that, what its target
        would hold now (resolved once, never started), so the audit trail can keep them out from the start."""
        if self.target is not None:
            return self.target.secret_values()
        if self.expected is None:
            try:
                self.expected = self.resolve().secret_values()
            except ConnectError:  # a variable missing: no value of it to hide yet
                self.expected = frozenset()
        return self.expected

    async def acquire(self) -> _Live:
        """The live connection, started if there is none (once, however many callers wait)."""
        live = self._live
        if live is not None and not live.holder.done():
            if live.holder.get_loop() is not asyncio.get_running_loop():
                raise CallFailed(
                    f"server '{self.manifest.server}' runs in another event loop: a toolset's servers serve one loop "
                    "(use its async calls in that loop, or only its blocking ones)"
                )
            return live
        async with self._lock:
            if self._live is not None and not self._live.holder.done():
                return self._live
            if self._live is not None:
                self.restarts += 1
                await self._close(self._live)
            self._refuse_while_paused()
            self._live = await self._start()
            return self._live

    def _refuse_while_paused(self) -> None:
        wait = self._paused_until - clock()
        if self.failures > FREE_RESTARTS and wait > 0:
            raise CallFailed(
                f"server '{self.manifest.server}' failed {self.failures} times in a row (the last: "
                f"{self._last_failure}); it is not started again for {math.ceil(wait)} s"
            )

    def _failed(self, how: str) -> None:
        """Count a loss or a failed start; past the free restarts, pause the next start."""
        self.failures += 1
        self._last_failure = how
        if self.failures > FREE_RESTARTS:
            pause = RESTART_PAUSE * 2 ** (self.failures - FREE_RESTARTS - 1)
            self._paused_until = clock() + min(RESTART_PAUSE_MAX, pause)

    async def lost(self, generation: int) -> None:
        """Report that the connection of `generation` is gone, so the next `acquire` starts anew."""
        async with self._lock:
            if self._live is not None and self._live.generation == generation:
                self.restarts += 1
                self._failed("it stopped during a call")
                live, self._live = self._live, None
                await self._close(live)

    async def call(self, tool: str, arguments: Mapping[str, Any], label: str) -> types.CallToolResult | None:
        """One attempt at `tool` (`label`: its name as messages give it): the result, or None when the server
        went away (it will be started anew)."""
        live = await self.acquire()
        try:
            with anyio.fail_after(self.start_limit):  # comparing the tools again is bounded like a start
                await self.pins.ensure(live.client, live.tap)
        except TimeoutError:
            limit = self.start_limit
            raise CallFailed(f"server '{self.manifest.server}' did not list its tools within {limit:g} s") from None
        except Exception as exc:  # noqa: BLE001 - the model gets an error result, never an exception
            if not _gone(failures.leaf(exc), live.link):
                raise CallFailed(f"the server's tools could not be compared: {self._reason(exc, live.link)}") from None
            await self.lost(live.generation)
            return None
        if (refusal := self.pins.refusal(tool)) is not None:
            raise DriftError(f"tool '{label}' is refused: {refusal}")
        try:
            result = await call_tool(live.client, tool, arguments, self.timeout)
        except Exception as exc:  # noqa: BLE001 - the model gets an error result, never an exception
            cause = failures.leaf(exc)
            if isinstance(cause, MCPError) and cause.code == types.REQUEST_TIMEOUT:
                raise CallFailed(f"tool '{label}' timed out after {self.timeout:g} s") from None
            if not _gone(cause, live.link):
                raise CallFailed(f"the call failed: {self._reason(cause, live.link)}") from None
            await self.lost(live.generation)
            return None
        self.failures = 0
        return result

    def _reason(self, exc: BaseException, link: Link) -> str:
        return self.redact(failures.reason(failures.leaf(exc), open_link=link.open))

    async def _start(self) -> _Live:
        try:
            self.target = self.resolve()
        except ConnectError as exc:  # a variable, env value or header missing: this server only
            raise CallFailed(str(exc)) from None
        self._generation += 1
        ready: asyncio.Future[tuple[Client, WireTap | None, Link]] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()
        starting = anyio.CancelScope()
        holder = asyncio.get_running_loop().create_task(self._hold(self.target, ready, stop, starting))
        try:
            client, tap, link = await asyncio.wait_for(asyncio.shield(ready), self.start_limit)
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
                why = f"did not start within {self.start_limit:g} s"
                self._failed(f"it {why}")
                raise CallFailed(f"server '{self.manifest.server}' {why}") from None
            if not isinstance(exc, Exception):
                raise
            message = failures.not_started(self.manifest.server, exc, self.target.secret_values())
            if not isinstance(failures.leaf(exc), NeedsSignIn):  # signing in is not a crash: no pause after it
                self._failed(message.removeprefix(f"server '{self.manifest.server}' "))
            raise CallFailed(message) from None
        return _Live(client, tap, link, self._generation, stop, holder)

    async def _hold(
        self,
        target: Target,
        ready: asyncio.Future[tuple[Client, WireTap | None, Link]],
        stop: asyncio.Event,
        starting: anyio.CancelScope,
    ) -> None:
        try:
            with starting:
                link = Link()
                opened = pinned_client(
                    target,
                    self.manifest,
                    self.pins,
                    pinning=self.pinning,
                    errlog=self.errlog,
                    link=link,
                    handlers=self.handlers,
                )
                async with opened as (client, tap):
                    ready.set_result((client, tap, link))
                    await stop.wait()
        except Exception as exc:  # noqa: BLE001 - handed to the caller waiting on `ready`
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
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        label: str,
        retry_safe: bool,
        on_retry: Callable[[], None] | None = None,
    ) -> types.CallToolResult:
        """Run one tool; raises `CallFailed` (with a message for the model) when there is no result.

        A call that finds its server gone is sent again after the restart only when `retry_safe` (the
        tool's reviewed annotations say read-only or idempotent): anything else might have run already.
        `on_retry` is told when it is (the audit trail counts it); `label` names the tool in messages.
        """
        connection = self.connections[server]
        result = await connection.call(tool, arguments, label)
        if result is not None:
            return result
        if not retry_safe:
            raise CallFailed(
                f"server '{server}' stopped during the call and was restarted; the call was not repeated "
                f"because '{label}' is not annotated read-only or idempotent (it may have run)"
            )
        if on_retry is not None:
            on_retry()
        result = await connection.call(tool, arguments, label)
        if result is None:
            raise CallFailed(f"server '{server}' stopped during the call twice; giving up")
        return result

    async def check(self, servers: Sequence[str] | None = None) -> None:
        """Start the servers (all, or the named ones) at once; see `ToolSet.check`."""
        names = list(self.connections) if servers is None else list(servers)
        unknown = [n for n in names if n not in self.connections]
        if unknown:
            raise KeyError(f"no server named {unknown[0]!r} in this toolset")
        failed: dict[str, str] = {}

        async def start(name: str) -> None:
            try:
                await self.connections[name].acquire()
            except CallFailed as exc:
                failed[name] = str(exc)

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(start, name)
        if failed:
            raise ConnectError("\n".join(failed[name] for name in names if name in failed))

    def secret_values(self) -> frozenset[str]:
        """Every value the servers hold secret (see `Connection.secret_values`)."""
        return frozenset().union(*(c.secret_values() for c in self.connections.values()))

    async def aclose(self) -> None:
        for connection in self.connections.values():
            await connection.aclose()
