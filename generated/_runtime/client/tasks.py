# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Tools run as MCP tasks, waited for to their result: the task-augmented `tools/call` of 2025-11-25 (SEP-1686)
and the `io.modelcontextprotocol/tasks` extension of 2026-07-28 (SEP-2663).

The SDK has no client for either, so the requests go through its public request API (`send_request`),
with what it cannot do on the wire done by `task_wire.TaskWire`. A call polls `tasks/get` at the pace the
server suggests (within `MIN_POLL`..`MAX_POLL`, sooner when a status notification arrives), reports each
new status to the caller's progress handler, answers the server's requests for input with the same
handlers a plain call uses, and is bounded as a whole by the call's timeout. A call that ends without a
result (the caller cancelled, the time ran out, an error) asks the server to cancel the task first.
"""

from __future__ import annotations

import functools
import logging
import math
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import anyio
import mcp_types as types
from mcp import ClientSession, MCPError
from mcp_types.methods import validate_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import (
    AliasChoices,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
)

from . import rounds
from .task_wire import TASKS_EXTENSION, TaskCall, TaskWire

MIN_POLL = 0.05  # seconds between two polls, whatever the server suggests
MAX_POLL = 5.0
DEFAULT_POLL = 1.0  # when the server suggests nothing
CANCEL_WAIT = 5.0  # how long `tasks/cancel` may take once a call has ended without its result
TERMINAL = ("completed", "failed", "cancelled")
logger = logging.getLogger(__name__)


class TaskParams(types.RequestParams):
    task_id: str
    request_state: str | None = None  # echoed as the server last sent it (SEP-2663)


class UpdateTaskParams(TaskParams):
    input_responses: types.InputResponses


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"  # SEP-2663: the task id is the request's `Mcp-Name`


class UpdateTask(types.Request[UpdateTaskParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    params: UpdateTaskParams
    name_param = "taskId"


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


class TaskState(types.Result):
    """A task as shown in either era: SEP-2663's flat task (a created task, `tasks/get`, a status notification,
    with a finished task's result or error inline), or a 2025-11-25 `Task` brought to that shape."""

    task_id: str
    status: types.TaskStatus
    status_message: str | None = None
    # Milliseconds: SEP-2663's schema says pollIntervalMs, its first text pollIntervalMilliseconds.
    poll_interval_ms: int | None = Field(
        default=None, validation_alias=AliasChoices("pollIntervalMs", "pollIntervalMilliseconds")
    )
    request_state: str | None = None
    result: dict[str, Any] | None = None
    error: types.ErrorData | None = None
    input_requests: types.InputRequests | None = None

    @classmethod
    def of(cls, task: types.Task) -> TaskState:
        """A 2025-11-25 task (its `pollInterval` is in milliseconds too)."""
        return cls(
            task_id=task.task_id,
            status=task.status,
            status_message=task.status_message,
            poll_interval_ms=task.poll_interval,
        )


def _result_type(value: Any) -> str:
    found = value.get("resultType") if isinstance(value, Mapping) else getattr(value, "result_type", None)
    return found if isinstance(found, str) else "complete"


Created = types.CallToolResult | types.InputRequiredResult | TaskState
_MODERN: TypeAdapter[Created] = TypeAdapter(
    Annotated[
        Annotated[types.CallToolResult, Tag("complete")]
        | Annotated[types.InputRequiredResult, Tag("input_required")]
        | Annotated[TaskState, Tag("task")],
        Discriminator(_result_type),
    ]
)
_PLAIN: TypeAdapter[types.CallToolResult | types.InputRequiredResult] = TypeAdapter(
    types.CallToolResult | types.InputRequiredResult
)


def _created_id(raw: object) -> str | None:
    """The id of the task a creating `tools/call` result hands over, in either era."""
    handle = raw.get("task", raw) if isinstance(raw, Mapping) else None
    task_id = handle.get("taskId") if isinstance(handle, Mapping) else None
    return task_id if isinstance(task_id, str) else None


def modern(session: ClientSession) -> bool:
    return session.protocol_version in MODERN_PROTOCOL_VERSIONS


def offers_extension(session: ClientSession) -> bool:
    """Whether the server declared the tasks extension when this connection began (2026-07-28)."""
    capabilities = session.server_capabilities
    return capabilities is not None and TASKS_EXTENSION in (capabilities.extensions or {})


def offers_core(session: ClientSession) -> bool:
    """Whether the server declared task-augmented `tools/call` in its 2025-11-25 capabilities."""
    tasks = session.server_capabilities.tasks if session.server_capabilities else None
    tools = tasks.requests.tools if tasks is not None and tasks.requests is not None else None
    return tools is not None and tools.call is not None


def choose(session: ClientSession, wire: TaskWire | None, name: str) -> Literal["plain", "task"]:
    """Run `name` as a task: a reviewed `taskSupport: required` (or one the server turned away as a plain
    call), or with `tasks="prefer"` one that may run as a task. On 2026-07-28 only when the server offers
    the extension and its lockfile, when it records the server's capabilities, says so too."""
    if wire is None:
        return "plain"
    support = wire.support.get(name)
    prefer = wire.settings.tasks == "prefer"
    if modern(session):
        if not offers_extension(session) or wire.extension is False:
            return "plain"
        if name in wire.required or support == "required":
            return "task"
        return "task" if prefer and support != "forbidden" else "plain"
    if support == "required":
        return "task"
    return "task" if prefer and support == "optional" and offers_core(session) else "plain"


def wants_extension(exc: MCPError) -> bool:
    """A -32021 that names the tasks extension: the server runs the tool only as a task (it did not run it)."""
    data = exc.data if isinstance(exc.data, Mapping) else {}
    wanted = data.get("requiredCapabilities")
    extensions = wanted.get("extensions") if isinstance(wanted, Mapping) else None
    return (
        exc.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
        and isinstance(extensions, Mapping)
        and (TASKS_EXTENSION in extensions)
    )


def may_declare(session: ClientSession, wire: TaskWire | None) -> bool:
    return wire is not None and modern(session) and offers_extension(session) and wire.extension is not False


def unrunnable(name: str, exc: MCPError, wire: TaskWire | None) -> MCPError:
    """What to say of a tool the server runs only as a task when this connection may not run one."""
    why = (
        "mcpvend runs tasks over the connections it opens (connect(), a toolset), not over a session given to it"
        if wire is None
        else "its lockfile does not record the server offering that extension: lock the server again to review it"
    )
    return MCPError(exc.code, f"tool '{name}' runs only as a task ({TASKS_EXTENSION}, error {exc.code}); {why}")


async def run(
    session: ClientSession, wire: TaskWire, name: str, arguments: Mapping[str, Any], timeout: float | None
) -> types.CallToolResult:
    """Run `name` as a task and wait for its result; past `timeout` (seconds) the server is asked to cancel it
    and MCPError REQUEST_TIMEOUT raised."""
    if not modern(session) and not offers_core(session):
        raise MCPError(
            types.INVALID_REQUEST,
            f"tool '{name}' runs only as a task (taskSupport: required, as reviewed), and the server no longer"
            " declares task-augmented tools/call (capabilities.tasks.requests.tools.call)",
        )
    task = _Task(session, wire, TaskCall(declare=modern(session), token=f"mcpvend-{uuid.uuid4().hex}"), name)
    task.deadline = math.inf if timeout is None else anyio.current_time() + timeout
    with wire.watching(task.call), anyio.CancelScope(deadline=task.deadline):
        return await task.run(arguments)
    assert timeout is not None  # only its deadline ends the scope without a result
    cancelled = f"; the server was asked to cancel task {task.state.task_id}" if task.state is not None else ""
    raise MCPError(types.REQUEST_TIMEOUT, f"tool '{name}' timed out after {timeout:g} s{cancelled}")


class _Task:
    """One tool call run as a task, from its creating request to its result."""

    def __init__(self, session: ClientSession, wire: TaskWire, call: TaskCall, name: str) -> None:
        self.session = session
        self.wire = wire
        self.call = call
        self.name = name
        self.modern = call.declare
        self.state: TaskState | None = None
        self.done = False  # the task ended: nothing to cancel
        self.answered: set[str] = set()  # input request keys answered (SEP-2663: unique for the task's life)
        self.reported: tuple[str, str | None] | None = None
        self.reports = 0
        self.deadline = math.inf

    async def run(self, arguments: Mapping[str, Any]) -> types.CallToolResult:
        try:
            created = await rounds.drive(self.session, functools.partial(self._create, arguments))
        except BaseException:
            if (task_id := _created_id(self.call.raw)) is not None:  # answered after all (see `_create`)
                await self._cancel(task_id)
            raise
        if isinstance(created, types.CallToolResult):  # the server ran it at once
            return created
        if not isinstance(created, TaskState):  # `drive` ends with the rounds
            raise TypeError(f"unexpected {type(created).__name__}")
        self.state = created
        self.wire.follow(self.call, created.task_id)
        try:
            return await self._wait(created)
        except BaseException:
            if not self.done:
                await self._cancel(created.task_id)
            raise

    async def _create(
        self, arguments: Mapping[str, Any], responses: types.InputResponses | None, state: str | None
    ) -> Created:
        params = types.CallToolRequestParams(
            name=self.name,
            arguments=dict(arguments),
            input_responses=responses,
            request_state=state,
            task=None if self.modern else types.TaskMetadata(),  # 2026-07-28: the declared extension says it
            _meta={"progress_token": self.call.token},
        )
        request = types.CallToolRequest(params=params)
        left = None if math.isinf(self.deadline) else max(0.0, self.deadline - anyio.current_time())
        # Shielded: a caller cancelled now would abandon the request, and a task the server creates anyway
        # would run on with nobody to cancel it; finished, the pending cancellation cancels the task instead.
        # (A native asyncio cancellation passes any shield: then the result may still come in `call.raw`.)
        with anyio.CancelScope(shield=True):
            if self.modern:
                return await self.session.send_request(request, _MODERN, left)
            try:
                return await self.session.send_request(request, _PLAIN, left)
            except ValidationError:  # the SDK holds a 2025-11-25 result to `CallToolResult`: a task handle fails it
                raw = self.call.raw
                if not isinstance(raw, dict) or "task" not in raw:
                    raise
                return TaskState.of(types.CreateTaskResult.model_validate(raw, by_name=False).task)
        raise AssertionError("a shield without a deadline is never cancelled")  # for the type checkers

    async def _wait(self, state: TaskState) -> types.CallToolResult:
        while True:
            await self._report(state.status, state.status_message)
            if state.status in TERMINAL:
                return await self._finish(state)
            if state.status == "input_required":
                if not self.modern:  # 2025-11-25: the server asks through tasks/result, which waits for the end
                    return await self._payload(state.task_id)
                await self._answer(state)
            await self._pause(state)
            state = self.state = await self._get(state)

    async def _get(self, state: TaskState) -> TaskState:
        try:
            if self.modern:
                params = TaskParams(task_id=state.task_id, request_state=state.request_state)
                return await self.session.send_request(GetTask(params=params), TaskState)
            request = types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=state.task_id))
            return TaskState.of(await self.session.send_request(request, types.GetTaskResult))
        except MCPError as exc:
            if exc.code != types.INVALID_PARAMS:
                raise
            self.done = True  # nothing left to cancel
            raise MCPError(
                exc.code,
                f"task {state.task_id} of tool '{self.name}' is no longer known to the server (it restarted, or"
                f" the task expired): {exc.message}",
                exc.data,
            ) from None

    async def _pause(self, state: TaskState) -> None:
        """Until the next poll, at the server's pace, delivering what is heard meanwhile; a status notification
        for the task brings the poll forward (never nearer than `MIN_POLL` to the last one)."""
        suggested = DEFAULT_POLL if state.poll_interval_ms is None else state.poll_interval_ms / 1000
        start = anyio.current_time()
        end = start + min(MAX_POLL, max(MIN_POLL, suggested))
        while (now := anyio.current_time()) < end:
            with anyio.move_on_after(end - now):
                await self.call.news.wait()
            if await self._hear():
                end = min(end, max(start + MIN_POLL, anyio.current_time()))

    async def _hear(self) -> bool:
        """Deliver the notifications heard since the last look; whether a status notification was among them."""
        changed = False
        for method, params in self.call.take():
            if method == "notifications/progress":
                await self._progress(params.get("progress"), params.get("total"), params.get("message"))
                continue
            status, message = params.get("status"), params.get("statusMessage")
            if isinstance(status, str):
                changed = True
                await self._report(status, message if isinstance(message, str) else None)
        return changed

    async def _report(self, status: str, message: str | None) -> None:
        """A status not reported yet, to the progress handler: a count of statuses seen, and its message."""
        if (status, message) != self.reported:
            self.reported = (status, message)
            self.reports += 1
            await self._progress(self.reports, None, message or status)

    async def _progress(self, progress: object, total: object, message: object) -> None:
        handler = self.wire.settings.progress
        if handler is None or not isinstance(progress, int | float):
            return
        try:
            await handler(
                float(progress),
                float(total) if isinstance(total, int | float) else None,
                message if isinstance(message, str) else None,
            )
        except Exception:  # a failing handler costs its report, never the call
            logger.exception("progress handler raised")

    async def _answer(self, state: TaskState) -> None:
        """SEP-2663: the task's requests for input not answered yet, answered with `tasks/update`."""
        asked = {key: request for key, request in (state.input_requests or {}).items() if key not in self.answered}
        if not asked:
            return
        responses = {key: await rounds.answer(self.session, request, key) for key, request in asked.items()}
        self.answered.update(responses)
        params = UpdateTaskParams(task_id=state.task_id, request_state=state.request_state, input_responses=responses)
        await self.session.send_request(UpdateTask(params=params), types.EmptyResult)

    async def _finish(self, state: TaskState) -> types.CallToolResult:
        self.done = True
        if state.status == "cancelled":
            raise MCPError(
                types.INTERNAL_ERROR, f"task {state.task_id} of tool '{self.name}' was cancelled by the server"
            )
        if not self.modern:
            return await self._payload(state.task_id)
        if state.status == "failed":
            error = state.error or types.ErrorData(code=types.INTERNAL_ERROR, message=state.status_message or "failed")
            raise MCPError(error.code, error.message, error.data)
        result = state.result if state.result is not None else {}
        validate_server_result("tools/call", self.session.protocol_version or "", result)
        return types.CallToolResult.model_validate(result, by_name=False)

    async def _payload(self, task_id: str) -> types.CallToolResult:
        """2025-11-25 `tasks/result`: the tool's result (or error) once the task ends. It waits with the server,
        whose requests for input come meanwhile; what is heard of the task then is delivered at its end."""
        request = types.GetTaskPayloadRequest(params=types.GetTaskPayloadRequestParams(task_id=task_id))
        try:
            result = await self.session.send_request(request, types.CallToolResult)
        except MCPError:
            self.done = True
            raise
        self.done = True
        await self._hear()
        return result

    async def _cancel(self, task_id: str) -> None:
        """Ask the server to cancel the task, however this call ends (shielded: the caller may be cancelled)."""
        params = TaskParams(task_id=task_id, request_state=self.state.request_state if self.state else None)
        request: types.Request[Any, Any] = (
            CancelTask(params=params)
            if self.modern
            else types.CancelTaskRequest(params=types.CancelTaskRequestParams(task_id=task_id))
        )
        with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_WAIT):
            try:
                await self.session.send_request(request, types.EmptyResult if self.modern else types.CancelTaskResult)
            except Exception as exc:  # noqa: BLE001 - gone, or already ended: the call's own outcome stands
                logger.debug("tasks/cancel of %s failed: %s", task_id, exc)
