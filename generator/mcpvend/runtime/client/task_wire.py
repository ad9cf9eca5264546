"""What a task needs of the wire that the SDK has no hook for, done on a connection's streams.

- A 2026-07-28 client declares the `io.modelcontextprotocol/tasks` extension in each request's capabilities
  (SEP-2663): the server may answer a request that declares it with a task, never one that does not. The
  SDK stamps the same capabilities on every request, so a tool that should run plainly could not be told
  from one that should run as a task; here the extension is added to the requests of a task call only.
- A 2025-11-25 client that runs tools as tasks declares the `tasks` capability in `initialize`; the SDK
  builds the capabilities with no `tasks` entry.
- The SDK checks a 2025-11-25 `tools/call` result against `CallToolResult` and rejects the task handle a
  task-augmented call is answered with, so the creating call's raw result is kept here.
- Progress for a task comes after its creating request has been answered, when the SDK no longer routes
  its token; `notifications/tasks/status` is in no table of the SDK. Both reach the call here.

The calls that need this run inside `TaskWire.watching`, which tells the stream wrappers about them.
"""

from __future__ import annotations

import contextlib
import copy
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import anyio
import mcp_types as types
from mcp import ClientSession
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.message import SessionMessage

from .streams import StreamWrapper, WireTap

if TYPE_CHECKING:  # the SDK's stream protocols, for annotations only: the module is private to it
    from mcp.client._transport import TransportStreams, WriteStream

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel", "tasks/result")
TaskPreference = Literal["when-required", "prefer"]
_HEARD = 256  # notifications kept for a call between two looks; the oldest go first


@dataclass(frozen=True)
class CallSettings:
    """How a connection's calls use tasks (`tasks`: "when-required" runs as tasks only the tools that need it,
    "prefer" also those that may), and who hears their progress (the SDK's progress callback signature)."""

    tasks: TaskPreference = "when-required"
    progress: ProgressFnT | None = None


@dataclass(eq=False)
class TaskCall:
    """One tool call run as a task, as the stream wrappers see it."""

    declare: bool  # add the tasks extension to its requests' capabilities (2026-07-28)
    token: str  # the progress token of its creating request
    raw: dict[str, Any] | None = None  # the newest `tools/call` result as sent
    heard: deque[tuple[str, dict[str, Any]]] = field(default_factory=lambda: deque(maxlen=_HEARD))
    news: anyio.Event = field(default_factory=anyio.Event)

    def hear(self, method: str, params: Mapping[str, Any]) -> None:
        self.heard.append((method, dict(params)))
        self.news.set()

    def take(self) -> list[tuple[str, dict[str, Any]]]:
        """What was heard since the last look."""
        taken = list(self.heard)
        self.heard.clear()
        self.news = anyio.Event()
        return taken


_CALL: ContextVar[TaskCall | None] = ContextVar("mcpvend_task_call", default=None)


class TaskWire(WireTap):
    """A connection's streams, wrapped for its task calls (see the module); a `WireTap` too when `record`.

    `support` is each reviewed tool's `execution.taskSupport`; `extension` whether the lockfile records the
    server's tasks extension (None: it records no server capabilities); `core` declares `tasks` in a
    2025-11-25 `initialize`. `required` collects the tools a 2026-07-28 server refused to run but as tasks.
    """

    def __init__(
        self,
        *,
        record: bool,
        support: Mapping[str, str] | None = None,
        extension: bool | None = None,
        core: bool = False,
        settings: CallSettings | None = None,
    ) -> None:
        super().__init__()
        self.record = record
        self.support = dict(support or {})
        self.extension = extension
        self.core = core
        self.settings = settings or CallSettings()
        self.required: set[str] = set()
        self._creating: dict[int | str, TaskCall] = {}
        self._tokens: dict[str, TaskCall] = {}
        self._tasks: dict[str, TaskCall] = {}

    @contextlib.contextmanager
    def watching(self, call: TaskCall) -> Iterator[None]:
        """The block's requests are `call`'s (the SDK writes a request in the task that sends it)."""
        reset = _CALL.set(call)
        self._tokens[call.token] = call
        try:
            yield
        finally:
            _CALL.reset(reset)
            self._creating = {k: v for k, v in self._creating.items() if v is not call}
            self._tokens = {k: v for k, v in self._tokens.items() if v is not call}
            self._tasks = {k: v for k, v in self._tasks.items() if v is not call}

    def follow(self, call: TaskCall, task_id: str) -> None:
        """Route the status notifications of `task_id` to `call`."""
        self._tasks[task_id] = call

    def wrap(self, streams: TransportStreams) -> TransportStreams:
        read, write = super().wrap(streams)
        return read, _Rewrite(write, self._outgoing)

    def _sent(self, item: SessionMessage) -> None:
        if self.record:
            super()._sent(item)

    def _received(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if not isinstance(item, Exception):
            self._incoming(item.message)
        return super()._received(item) if self.record else item

    def _outgoing(self, item: SessionMessage) -> SessionMessage:
        message = item.message
        if not isinstance(message, types.JSONRPCRequest):
            return item
        params = dict(message.params or {})
        call = _CALL.get()
        if message.method == "initialize" and self.core:
            params["capabilities"] = {"tasks": {}, **(params.get("capabilities") or {})}
        elif call is None:
            return item
        elif message.method == "tools/call":
            self._creating[message.id] = call
        if call is not None and call.declare and message.method in ("tools/call", *TASK_METHODS):
            meta = dict(params.get("_meta") or {})
            capabilities = dict(meta.get(types.CLIENT_CAPABILITIES_META_KEY) or {})
            capabilities["extensions"] = {**(capabilities.get("extensions") or {}), TASKS_EXTENSION: {}}
            meta[types.CLIENT_CAPABILITIES_META_KEY] = capabilities
            params["_meta"] = meta
        return SessionMessage(message.model_copy(update={"params": params}), metadata=item.metadata)

    def _incoming(self, message: types.JSONRPCMessage) -> None:
        if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
            call = self._creating.pop(message.id, None) if message.id is not None else None
            if call is not None and isinstance(message, types.JSONRPCResponse):
                call.raw = copy.deepcopy(message.result)
        elif isinstance(message, types.JSONRPCNotification) and isinstance(message.params, Mapping):
            params: Mapping[str, Any] = message.params
            key = {"notifications/progress": "progressToken", "notifications/tasks/status": "taskId"}
            value = params.get(key.get(message.method, ""))
            table = self._tokens if message.method == "notifications/progress" else self._tasks
            if isinstance(value, str) and (call := table.get(value)) is not None:
                call.hear(message.method, params)


class _Rewrite(StreamWrapper["WriteStream[SessionMessage]"]):
    """A write stream that passes each message through `rewrite` on its way."""

    def __init__(self, inner: WriteStream[SessionMessage], rewrite: Callable[[SessionMessage], SessionMessage]) -> None:
        self._inner = inner
        self._rewrite = rewrite

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(self._rewrite(item))


_WIRES: weakref.WeakKeyDictionary[ClientSession, TaskWire] = weakref.WeakKeyDictionary()


def attach(session: ClientSession, wire: TaskWire) -> None:
    """Make `wire` the one the calls over `session` use."""
    _WIRES[session] = wire


def wire_of(session: ClientSession) -> TaskWire | None:
    """The wire of a session mcpvend opened (None for a session opened elsewhere: it runs no task)."""
    return _WIRES.get(session)
