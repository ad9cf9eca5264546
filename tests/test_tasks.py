"""Tools run as MCP tasks, through generated packages, against real servers in both protocol eras.

2025-11-25 core tasks (SEP-1686): server-everything's `simulate-research-query` (`taskSupport: required`).
2026-07-28, the `io.modelcontextprotocol/tasks` extension (SEP-2663): tests/servers/tasks_2026.py on
FastMCP + fastmcp-tasks. What a server did (ran a call as a task, saw its cancellation) it leaves in files,
so nothing here waits on timing; the `fail_after`s only guard against a hang.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, SERVERS, locked_package, node_server, write_config

pytestmark = pytest.mark.anyio
HANG = 60  # seconds: a guard against a hang, never a measure


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the 2026-07-28 server leaves what it did."""
    return tmp_path_factory.mktemp("tasks-work")


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory, work: Path) -> Iterator[ModuleType]:
    """Both servers locked (elicitation declared) and generated into one package."""
    entry = str(node_server("server-everything"))
    root = tmp_path_factory.mktemp("tasks")
    tasks_server = {"command": PY, "args": [str(SERVERS / "tasks_2026.py")], "cwd": str(work)}  # it writes there
    write_config(
        root,
        {
            "everything": {"command": "node", "args": [entry, "stdio"], "capabilities": ["elicitation"]},
            "tasks": {**tasks_server, "capabilities": ["elicitation"]},
        },
    )
    with locked_package(root, "tasks_pkg") as generated:
        yield generated


def options(package: ModuleType, **values: Any) -> Any:
    return package.ConnectionOptions(**values)


async def wait_for(path: Path) -> str:
    with anyio.fail_after(HANG):
        while not path.exists():
            await anyio.sleep(0.02)
    return path.read_text(encoding="utf-8")


# --- 2025-11-25: core tasks --------------------------------------------------------------------


async def test_server_everythings_task_only_tool_returns_its_result_through_the_typed_wrapper(
    package: ModuleType,
) -> None:
    manifest = (Path(str(package.__file__)).parent / "everything" / "manifest.json").read_text(encoding="utf-8")
    assert '"taskSupport": "required"' in manifest  # reviewed as a task-only tool
    with anyio.fail_after(HANG):
        async with importlib.import_module(f"{package.__name__}.everything").connect() as tools:
            result = await tools.simulate_research_query(topic="ducks")
    assert "# Research Report: ducks" in result.text
    assert "Status progressed: `working` → `completed`" in result.text  # it ran as a task, polled to the end


async def test_its_statuses_reach_the_progress_handler_and_its_question_the_elicitation_handler(
    package: ModuleType,
) -> None:
    """2025-11-25 input_required: the server asks through tasks/result, answered by the caller's handler."""
    reports: list[str | None] = []
    asked: list[str] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        reports.append(message)

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"interpretation": "historical"})

    with anyio.fail_after(HANG):
        async with package.toolset(
            ["everything"], connection=options(package, progress=progress, elicitation=elicit)
        ) as ts:
            result = await ts.call("everything__simulate-research-query", {"topic": "ducks", "ambiguous": True})
    assert not result.is_error, result.text
    assert "# Research Report: ducks (historical)" in result.text
    assert len(asked) == 1 and "could have multiple interpretations" in asked[0]
    assert reports[0] == "Gathering sources..." and "Analyzing content..." in reports


# --- 2026-07-28: the tasks extension -------------------------------------------------------------


async def test_a_task_required_tool_returns_its_structured_result_in_every_way_of_calling(
    package: ModuleType,
) -> None:
    """Typed wrapper, ToolSet.call and code mode all reach the same call path."""
    with anyio.fail_after(HANG):
        async with importlib.import_module(f"{package.__name__}.tasks").connect() as tools:
            total = await tools.add_up(numbers=[1, 2, 3])
        async with package.toolset(["tasks"]) as ts:
            called = await ts.call("tasks__add_up", {"numbers": [4, 5]})
        async with package.toolset(["tasks"], mode="code") as ts:
            coded = await ts.call("run_code", {"code": "(await tasks__add_up(numbers=[6, 7]))['total']"})
    assert type(total).__module__ == f"{package.__name__}.tasks.models" and (total.total, total.count) == (6, 3)
    assert not called.is_error and called.structured == {"total": 9, "count": 2}
    assert not coded.is_error and coded.structured == 13, coded.text


async def test_an_optional_tool_runs_plainly_by_default_and_as_a_task_when_preferred(package: ModuleType) -> None:
    with anyio.fail_after(HANG):
        async with package.toolset(["tasks"]) as ts:
            plain = await ts.call("tasks__where_ran", {"label": "default"})
        async with package.toolset(["tasks"], connection=options(package, tasks="prefer")) as ts:
            preferred = await ts.call("tasks__where_ran", {"label": "prefer"})
    assert plain.text == "default: inline"
    assert preferred.text == "prefer: task"


async def test_cancelling_the_caller_cancels_the_task_on_the_server(package: ModuleType, work: Path) -> None:
    finished: list[Any] = []
    async with package.toolset(["tasks"]) as ts:
        async with anyio.create_task_group() as group:

            async def call() -> None:
                finished.append(await ts.call("tasks__slow", {"label": "cancel"}))

            group.start_soon(call)
            await wait_for(work / "cancel-started")  # the 30 s task runs on the server
            group.cancel_scope.cancel()
        assert await wait_for(work / "cancel-ended") == "cancelled"
    assert finished == []


async def test_a_task_past_its_timeout_is_cancelled_and_the_call_is_an_error(package: ModuleType, work: Path) -> None:
    async with package.toolset(["tasks"], connection=options(package, timeout=5.0)) as ts:
        with anyio.fail_after(HANG):
            result = await ts.call("tasks__slow", {"label": "timeout"})
        assert result.is_error and "timed out after 5 s" in result.text
        assert await wait_for(work / "timeout-ended") == "cancelled"


async def test_progress_reaches_the_caller(package: ModuleType, work: Path) -> None:
    """The tool waits until the caller has seen its progress, so the call ends only if it got through."""
    heard: list[str | None] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        heard.append(message)
        if message == "halfway there":
            (work / "progress-seen").write_text("seen", encoding="utf-8")

    with anyio.fail_after(HANG):
        async with package.toolset(["tasks"], connection=options(package, progress=progress)) as ts:
            result = await ts.call("tasks__steps", {"label": "progress"})
    assert result.text == "done" and "halfway there" in heard


async def test_a_task_asking_for_input_is_answered_by_the_elicitation_handler(package: ModuleType) -> None:
    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": f"Ada ({params.message})"})

    with anyio.fail_after(HANG):
        async with package.toolset(["tasks"], connection=options(package, elicitation=elicit)) as ts:
            result = await ts.call("tasks__greet", {})
    assert result.text == "Hello, Ada (Your name?)!"


async def test_a_server_gone_mid_task_is_one_clear_error(package: ModuleType, work: Path) -> None:
    result: Any = None
    async with package.toolset(["tasks"]) as ts, anyio.create_task_group() as group:

        async def kill() -> None:
            os.kill(int(await wait_for(work / "gone-started")), signal.SIGKILL)

        group.start_soon(kill)
        with anyio.fail_after(HANG):
            result = await ts.call("tasks__slow", {"label": "gone"})
    assert result.is_error
    assert result.text.startswith("server 'tasks' stopped during the call and was restarted; the call was not repeated")


# --- serve -------------------------------------------------------------------------------------------


async def test_serve_runs_task_only_tools_for_a_client_that_calls_them_plainly(package: ModuleType) -> None:
    """serve's client (2025-11-25 here; what it may be sent per era is test_serve_eras's) knows nothing of
    tasks: serve runs each upstream task, in either era, and answers the plain call."""
    root = Path(str(package.__file__)).parents[1]
    command = ["-m", "mcpvend", "--output", package.__name__, "serve", "--mode", "direct"]
    served = StdioServerParameters(command=PY, args=command, cwd=str(root), env=dict(os.environ))
    with anyio.fail_after(HANG):
        async with Client(served, mode="legacy") as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            research = await client.call_tool("everything__simulate-research-query", {"topic": "ducks"})
            added = await client.call_tool("tasks__add_up", {"numbers": [1, 2]})
    assert {"everything__simulate-research-query", "tasks__add_up"} <= listed
    assert not research.is_error and "# Research Report: ducks" in text_of(research)
    assert not added.is_error and added.structured_content == {"total": 3, "count": 2}


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


async def test_a_task_the_lockfile_does_not_record_the_extension_for_is_one_line_saying_lock_again(
    package: ModuleType, tmp_path: Path
) -> None:
    """A lockfile taken before the server offered the tasks extension: the extension is not declared, the
    server refuses the plain call with -32021, and the call's error says so, naming the extension."""
    root = Path(str(package.__file__)).parents[1]
    older = tmp_path / "older_pkg"
    shutil.copytree(root / package.__name__, older, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = older / "tasks" / "manifest.json"
    data = json.loads(manifest.read_text(encoding="utf-8"))
    assert "io.modelcontextprotocol/tasks" in data["serverCapabilities"].pop("extensions")
    manifest.write_text(json.dumps(data), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        old = importlib.import_module("older_pkg")
        with anyio.fail_after(HANG):
            async with old.toolset(["tasks"]) as ts:
                refused = await ts.call("tasks__add_up", {"numbers": [1, 2]})
    finally:
        sys.path.remove(str(tmp_path))
    assert refused.is_error, refused.text
    assert "runs only as a task (io.modelcontextprotocol/tasks, error -32021)" in refused.text
    assert "its lockfile does not record the server offering that extension: lock the server again" in refused.text
