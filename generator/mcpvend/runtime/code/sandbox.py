"""Code mode's sandbox: pydantic-monty, deny-by-default, a worker pool per toolset, a fresh session per snippet.

Monty runs each snippet in a `monty` worker process: no filesystem, network, environment or
subprocess (an OS call reaches the host, which refuses it), with CPU-time, memory and recursion
limits enforced inside the worker and a wall-clock bound here. Each snippet is type-checked against
the stubs first (Monty bundles ty), so a wrong keyword or type comes back before any tool runs; a
snippet that passed is not checked again while the stubs stay the same (the check is most of its cost).

The snippet is driven by hand, snapshot by snapshot (`feed_start`): each tool call it makes starts
a task here at once, so `asyncio.gather` runs calls concurrently, and the calls it started but
never awaited are cancelled when it ends (what pydantic-monty's own driver left running, issue
821). The synchronous pool is used, one blocking step at a time in a worker thread: the async pool
wakes the event loop from its own threads, which can abort the process at interpreter exit.

pydantic-monty is imported only here and only when a snippet runs or availability is asked
(`mcpvend[code]`), so the runtime still needs nothing but `mcp` without code mode.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio

MONTY = "pydantic-monty==1.4.0"  # = the `code` extra of mcpvend
SCRIPT = "snippet.py"  # the name type errors and tracebacks give the model's code
Function = Callable[[dict[str, Any]], Awaitable[Any]]
_DIAGNOSTIC = re.compile(rf"^{re.escape(SCRIPT)}:(\d+):\d+: ")
_CHECKED_MAX = 512  # snippets known to type-check, per toolset


class CodeModeUnavailable(ImportError):
    """pydantic-monty is missing or broken: code mode cannot run."""


class ToolFailed(Exception):
    """A tool call that came back as an error; the snippet sees it as `RuntimeError(message)`."""


@functools.cache
def load_monty() -> Any:
    try:
        import pydantic_monty  # type: ignore[import-not-found, unused-ignore]
    except ImportError as exc:
        raise CodeModeUnavailable(f"code mode needs {MONTY} ({exc}): pip install 'mcpvend[code]'") from None
    return pydantic_monty


def available() -> bool:
    """Whether code mode can run here: pydantic-monty imports."""
    try:
        load_monty()
    except CodeModeUnavailable:
        return False
    return True


@dataclass(frozen=True)
class CodeLimits:
    """What one `run_code` snippet may use. CPU time counts only while the interpreter runs, never
    while it waits for a tool; `wall_seconds` bounds the whole snippet, tool calls included."""

    cpu_seconds: float = 10.0
    wall_seconds: float = 120.0
    memory_bytes: int = 64 * 1024 * 1024  # the sandbox's heap
    recursion_depth: int = 200
    tool_calls: int = 100  # calls of tools (and search_tools) per snippet
    output_chars: int = 100_000  # printed output kept; the result is cut again at max_result_chars

    def __post_init__(self) -> None:
        numbers = (self.cpu_seconds, self.wall_seconds, self.memory_bytes, self.recursion_depth, self.tool_calls)
        if min(numbers) <= 0 or self.output_chars < 0:
            raise ValueError("every code-mode limit must be > 0 (output_chars >= 0)")


@dataclass(frozen=True)
class Outcome:
    """How a snippet ended: its last expression's value and what it printed, or why it failed."""

    value: Any = None
    printed: str = ""
    error: str | None = None  # for the model: a type error, a traceback, a limit reached
    calls: int = 0  # tool calls started


class _Printed:
    """Printed output, kept up to a limit (a print loop must not fill the host's memory)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def __call__(self, stream: str, text: str) -> None:
        room = max(self.limit - self.size, 0)
        self.parts.append(text[:room])
        self.size += min(len(text), room)
        self.dropped += max(len(text) - room, 0)

    @property
    def text(self) -> str:
        cut = f"\n[{self.dropped} more characters printed, not kept]" if self.dropped else ""
        return "".join(self.parts) + cut


class _Stopped(Exception):
    """The snippet went past a limit the sandbox does not enforce itself: it is stopped, not resumed."""


class _Calls:
    """The tool calls a snippet started: each runs as a task; their answers wait until it asks for them."""

    def __init__(self, group: anyio.abc.TaskGroup, functions: Mapping[str, Function], limit: int) -> None:
        self.group = group
        self.functions = functions
        self.limit = limit
        self.started = 0
        self.settled: dict[int, dict[str, Any]] = {}
        self.changed = anyio.Event()

    def start(self, call_id: int, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The answer to give the snippet now: a future for a call now running, or an exception."""
        function = self.functions.get(name)
        if function is None:
            return {"exception": NameError(f"name {name!r} is not defined")}
        if args:
            return {"exception": TypeError(f"{name}() takes keyword arguments only")}
        self.started += 1
        if self.started > self.limit:
            raise _Stopped(f"the code called tools more than {self.limit} times (the limit): it was stopped")
        self.group.start_soon(self._run, call_id, function, kwargs)
        return {"future": ...}

    async def _run(self, call_id: int, function: Function, kwargs: dict[str, Any]) -> None:
        try:
            answer: dict[str, Any] = {"return_value": await function(kwargs)}
        except ToolFailed as exc:
            answer = {"exception": RuntimeError(str(exc))}
        self.settled[call_id] = answer
        self.changed.set()

    async def ready(self, pending: list[int]) -> dict[int, dict[str, Any]]:
        """The answers of these calls that are in; waits until there is at least one."""
        while True:
            answers = {i: self.settled.pop(i) for i in pending if i in self.settled}
            if answers:
                return answers
            self.changed = anyio.Event()
            await self.changed.wait()


class Sandbox:
    """Monty's worker pool for one toolset (started on the first snippet) and the limits of each snippet."""

    def __init__(self, limits: CodeLimits | None = None) -> None:
        self.limits = limits or CodeLimits()
        self._pool: Any = None
        self._lock = asyncio.Lock()
        # Snippets that type-checked against these stubs: the check is most of a snippet's cost, and its
        # verdict is the same every time, so a snippet a model sends again (a retry, a loop) runs unchecked.
        self._checked: OrderedDict[bytes, None] = OrderedDict()
        self._stubs: str | None = None
        self._stubs_digest = b""

    async def run(self, code: str, *, stubs: str, functions: Mapping[str, Function]) -> Outcome:
        """Type-check `code` against `stubs`, then run it with `functions` as its only way out.

        Never raises for anything the code does: a type error, an exception, a limit reached or
        the sandbox dying come back as `Outcome.error`.
        """
        monty = load_monty()
        printed = _Printed(self.limits.output_chars)
        if stubs is not self._stubs:  # one toolset's stubs are one string: hashed once, not per snippet
            self._stubs, self._stubs_digest = stubs, hashlib.sha256(stubs.encode()).digest()
        key = hashlib.sha256(self._stubs_digest + code.encode()).digest()
        checked = key in self._checked
        try:
            pool = await self._started(monty)
            session = pool.checkout(
                script_name=SCRIPT,
                limits={
                    "max_feed_duration_secs": self.limits.cpu_seconds,
                    "max_memory": self.limits.memory_bytes,
                    "max_recursion_depth": self.limits.recursion_depth,
                    "max_suspensions": 4 * self.limits.tool_calls + 100,  # name lookups, refused OS calls
                },
                type_check=not checked,
                type_check_stubs=stubs,
                type_check_format="concise",
            )
            await anyio.to_thread.run_sync(session.__enter__)
        except Exception as exc:  # noqa: BLE001 - no worker binary, a worker that will not start: the model is told
            return Outcome(error=f"the sandbox could not start: {type(exc).__name__}: {exc}")
        calls: list[int] = [0]
        try:
            with anyio.move_on_after(self.limits.wall_seconds):
                value = await self._drive(monty, session, code, functions, printed, calls, key)
                return Outcome(value, printed.text, None, calls[0])
            error = (
                f"the code did not finish within {self.limits.wall_seconds:g} s; the calls still running were cancelled"
            )
        except _Stopped as exc:
            error = str(exc)
        except monty.MontyTypingError as exc:
            error = _typing_error(code, exc.display())
        except (monty.MontySyntaxError, monty.MontyRuntimeError) as exc:
            error = exc.display("traceback")
        except monty.MontyError as exc:  # the worker died (and was replaced) or a value would not convert
            error = f"the sandbox stopped: {exc}"
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(session.__exit__, None, None, None)
        return Outcome(None, printed.text, error, calls[0])

    async def _drive(
        self,
        monty: Any,
        session: Any,
        code: str,
        functions: Mapping[str, Function],
        printed: _Printed,
        calls: list[int],
        key: bytes,
    ) -> Any:
        """Run the snippet to its end; the calls it leaves running are cancelled, whatever the ending."""
        failure: Exception | None = None
        value: Any = None
        async with anyio.create_task_group() as group:
            started = _Calls(group, functions, self.limits.tool_calls)
            try:
                value = await self._steps(monty, session, code, started, functions, printed, key)
            except Exception as exc:  # noqa: BLE001 - raised below, once the task group is closed
                failure = exc
            finally:
                calls[0] = started.started
                group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return value

    async def _steps(
        self,
        monty: Any,
        session: Any,
        code: str,
        started: _Calls,
        functions: Mapping[str, Function],
        printed: _Printed,
        key: bytes,
    ) -> Any:
        step = anyio.to_thread.run_sync
        snapshot = await step(functools.partial(session.feed_start, code, print_callback=printed))
        self._passed(key)  # the type check (when it ran) is behind: whatever happens next, it passed
        while not isinstance(snapshot, monty.MontyComplete):
            if isinstance(snapshot, monty.FunctionSnapshot) and snapshot.is_os_function:
                snapshot = await step(snapshot.resume_not_handled)  # no files, environment, clock waits
            elif isinstance(snapshot, monty.FunctionSnapshot):
                answer = started.start(snapshot.call_id, str(snapshot.function_name), snapshot.args, snapshot.kwargs)
                snapshot = await step(snapshot.resume, answer)
            elif isinstance(snapshot, monty.NameLookupSnapshot):
                found = snapshot.variable_name in functions
                value = {"value": _stand_in(snapshot.variable_name)} if found else {}
                snapshot = await step(functools.partial(snapshot.resume, **value))
            else:  # every task of the snippet waits for calls: answer those that are in
                snapshot = await step(snapshot.resume, await started.ready(snapshot.pending_call_ids))
        return snapshot.output

    def _passed(self, key: bytes) -> None:
        self._checked[key] = None
        self._checked.move_to_end(key)
        if len(self._checked) > _CHECKED_MAX:
            self._checked.popitem(last=False)

    async def _started(self, monty: Any) -> Any:
        async with self._lock:
            if self._pool is None:
                pool = monty.Monty(min_processes=1, request_timeout=self.limits.cpu_seconds + 10)
                await anyio.to_thread.run_sync(pool.__enter__)
                self._pool = pool
            return self._pool

    async def aclose(self) -> None:
        """Stop the workers (a new pool starts if another snippet comes)."""
        async with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(pool.__exit__, None, None, None)


def _stand_in(name: str) -> Callable[..., Any]:
    """What a tool's name is bound to when the snippet reads it without calling it: a host function
    of that name, so a later call through the variable still arrives as a call of `name`."""

    def stand_in(**_: Any) -> None:
        raise AssertionError("never called: the sandbox sends the call to the host by name")

    stand_in.__name__ = stand_in.__qualname__ = name
    return stand_in


def _typing_error(code: str, diagnostics: str) -> str:
    """Monty's type errors, each followed by the line of the snippet it is about; nothing ran."""
    lines = code.splitlines()
    shown = ["the code was not run: it does not type-check against the tools' stubs"]
    for line in diagnostics.strip().splitlines():
        shown.append(line)
        found = _DIAGNOSTIC.match(line)
        if found and 0 < int(found.group(1)) <= len(lines):
            shown.append(f"    {found.group(1)} | {lines[int(found.group(1)) - 1].strip()}")
    return "\n".join(shown)
