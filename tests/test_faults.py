"""Every way a server fails, for `lock` (HTTP), `diff --live` and the runtime (`ToolSet.call`).

One project is locked and generated while every server is healthy; each test then switches a
server to a fault: the replay server by environment (`REPLAY_FAULT`, and `${REPLAY_PYTHON}` /
`${REPLAY_TOOLS}` in its command and arguments, which lockfiles keep as templates), the HTTP
server by its fault file. Lock's stdio faults are in tests/test_lock_faults.py.
"""

from __future__ import annotations

import gc
import logging
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import (
    GOOD_TOOLS,
    PY,
    SERVERS,
    free_port,
    locked_package,
    mcpvend,
    replay,
    wait_for_port,
    write_config,
    write_tools,
)

MALFORMED = {"name": "no_type", "description": "inputSchema has no type", "inputSchema": {"properties": {}}}
STDIO_CAUSES = {
    "exit-at-init": "the server closed the connection (it exited or crashed)",
    "crash-on-list": "the server closed the connection (it exited or crashed)",
    "garbage": "wrote something that is not JSON-RPC to stdout: 'Server started!",
    "cursor-loop": "tools/list cursor loop: cursor 'page-2' came back on page 2",
}


@dataclass
class Project:
    root: Path
    good_tools: Path
    odd_tools: Path
    fault_file: Path
    package: ModuleType

    def http_fault(self, mode: str) -> None:
        self.fault_file.write_text(mode)

    def lockfiles(self) -> dict[str, tuple[bytes, int]]:
        return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted((self.root / "lockfiles").iterdir())}


def start_http_server(port: int, *args: str) -> subprocess.Popen[bytes]:
    """tests/servers/http_faults.py on 127.0.0.1:port, once it accepts connections."""
    proc = subprocess.Popen(
        [PY, str(SERVERS / "http_faults.py"), "--port", str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(proc, port, "http_faults.py")
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def servers(root: Path, good_tools: Path, url: str, bad_timeout: float = 30) -> dict[str, dict[str, Any]]:
    bad = replay(
        Path(f"${{REPLAY_TOOLS:-{good_tools}}}"),
        command=f"${{REPLAY_PYTHON:-{PY}}}",
        env={"REPLAY_FAULT": "${REPLAY_FAULT:-}"},
        timeout=bad_timeout,
    )
    return {"good": replay(good_tools), "bad": bad, "web": {"url": url, "timeout": 30}}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """Healthy servers locked and generated into `faultpkg`; faults are switched on per test."""
    root = tmp_path_factory.mktemp("faults")
    good_tools = write_tools(root / "tools.json", GOOD_TOOLS)
    odd_tools = write_tools(root / "odd.json", [*GOOD_TOOLS, MALFORMED])
    fault_file = root / "http-fault"
    port = free_port()
    web = start_http_server(port, "--fault-file", str(fault_file))
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        write_config(root, servers(root, good_tools, url))
        write_config(root, servers(root, good_tools, url, bad_timeout=2), name="short-timeout.toml")
        with locked_package(root, "faultpkg") as package:
            yield Project(root, good_tools, odd_tools, fault_file, package)
    finally:
        stop(web)


@pytest.fixture(autouse=True)
def healthy_http(project: Project) -> Iterator[None]:
    project.http_fault("ok")
    yield
    project.http_fault("ok")


def assert_one_error_line(err: str, server: str, cause: str) -> None:
    """`error: server 'NAME': CAUSE` first; after it only the indented tail of the server's stderr."""
    first, *rest = err.rstrip("\n").split("\n")
    assert first.startswith(f"error: server '{server}': {cause}"), err
    assert all(line.startswith("  ") for line in rest), err
    assert "Traceback" not in err.replace("| Traceback", ""), err


# --- lock: the HTTP faults (the stdio ones are in test_lock_faults.py) ----------------------

HTTP_CAUSES = {
    "cut-stream": "the connection closed before the answer was complete: SSE stream ended without a response",
    "status-500": "the server answered HTTP 500 Internal Server Error",
    "status-401": "the server answered HTTP 401 Unauthorized (check the headers configured for it)",
}


@pytest.mark.parametrize("fault", list(HTTP_CAUSES))
def test_lock_an_http_fault_costs_only_that_server(project: Project, fault: str) -> None:
    before = project.lockfiles()
    project.http_fault(fault)
    run = mcpvend("lock", "good", "web", cwd=project.root)
    assert run.code == 2, run.err
    errors = [line for line in run.err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, run.err
    assert_one_error_line(errors[0], "web", HTTP_CAUSES[fault])
    assert "unchanged  good: 2 tools" in run.err
    assert project.lockfiles() == before
    assert run.out == ""


# --- diff --live: every fault ----------------------------------------------------------------


@dataclass(frozen=True)
class LiveCase:
    server: str
    cause: str
    env: dict[str, str]
    http: str = "ok"
    config: str = "mcpvend.toml"


LIVE_CASES = {
    "wont-start": LiveCase("bad", "cannot start the command: No such file or directory", {"REPLAY_PYTHON": "/no/such"}),
    **{fault: LiveCase("bad", cause, {"REPLAY_FAULT": fault}) for fault, cause in STDIO_CAUSES.items()},
    "hang": LiveCase(
        "bad", "no complete answer within 2s (timeout)", {"REPLAY_FAULT": "hang-on-list"}, config="short-timeout.toml"
    ),
    **{fault: LiveCase("web", cause, {}, http=fault) for fault, cause in HTTP_CAUSES.items()},
}


@pytest.mark.parametrize("case", list(LIVE_CASES.values()), ids=list(LIVE_CASES))
def test_diff_live_a_failing_server_is_one_line_and_exit_2(project: Project, case: LiveCase) -> None:
    before = project.lockfiles()
    project.http_fault(case.http)
    run = mcpvend("--config", case.config, "diff", "--live", case.server, cwd=project.root, env=case.env)
    assert run.code == 2, run.err
    assert_one_error_line(run.err, case.server, case.cause)
    assert run.out == ""
    assert project.lockfiles() == before


def test_diff_live_crash_shows_the_server_stderr_tail(project: Project) -> None:
    run = mcpvend("diff", "--live", "bad", cwd=project.root, env={"REPLAY_FAULT": "crash-on-list"})
    assert run.code == 2
    assert "\n  stderr:\n" in run.err and "  | KeyError: 'tools'" in run.err


def test_diff_live_one_malformed_tool_is_a_finding_not_a_failure(project: Project) -> None:
    before = project.lockfiles()
    run = mcpvend("diff", "--live", "bad", cwd=project.root, env={"REPLAY_TOOLS": str(project.odd_tools)})
    assert run.code == 1, run.err
    assert "server-changed" in run.out and "/rejected" in run.out and "no_type" in run.out, run.out
    assert "tool-removed" not in run.out and "tool-added" not in run.out
    assert project.lockfiles() == before


def test_diff_live_healthy_again_has_no_findings(project: Project) -> None:
    """The same project, every fault switched off: the cases above failed because of the fault."""
    for server in ("bad", "web"):
        run = mcpvend("diff", "--live", server, cwd=project.root)
        assert run.code == 0, run.err
        assert f"live server '{server}': no findings" in run.out


# --- the runtime: ToolSet.call ------------------------------------------------------------------

pytestmark_anyio = pytest.mark.anyio


@dataclass(frozen=True)
class RuntimeCase:
    tool: str
    expected: str
    replay_fault: str = ""
    http: str = "ok"
    setenv: tuple[tuple[str, str], ...] = ()
    start_timeout: float | None = None  # None: the lockfile's (30 s)


RUNTIME_CASES = {
    "wont-start": RuntimeCase(
        "bad__search",
        "server 'bad' could not be started: cannot start the command: No such file or directory: /no/such/python",
        setenv=(("REPLAY_PYTHON", "/no/such/python"),),
    ),
    "exit-at-init": RuntimeCase(
        "bad__search",
        "server 'bad' could not be started: the server closed the connection (it exited or crashed)",
        replay_fault="exit-at-init",
    ),
    "crash-on-list": RuntimeCase(
        "bad__search",
        "server 'bad' could not be started: the server closed the connection (it exited or crashed)",
        replay_fault="crash-on-list",
    ),
    "hang": RuntimeCase("bad__search", "server 'bad' did not start within 2 s", "hang-on-list", start_timeout=2),
    "cursor-loop": RuntimeCase(
        "bad__search",
        "server 'bad' could not be started: ProtocolViolation: tools/list cursor loop: cursor 'page-2' came back",
        replay_fault="cursor-loop",
    ),
    "cut-stream": RuntimeCase(
        "web__echo",
        "server 'web' could not be started: the connection closed before the answer was complete: SSE stream ended "
        "without a response",
        http="cut-stream",
    ),
    "cut-call": RuntimeCase("web__echo", "server 'web' stopped during the call twice; giving up", http="cut-call"),
    "status-500": RuntimeCase(
        "web__echo",
        "server 'web' could not be started: the server answered HTTP 500 Internal Server Error",
        http="status-500",
    ),
    "status-401": RuntimeCase(
        "web__echo",
        "server 'web' could not be started: the server answered HTTP 401 Unauthorized (check the headers configured for it)",
        http="status-401",
    ),
}
ARGUMENTS = {"bad__search": {"q": "x"}, "web__echo": {"text": "x"}}


async def call_with_fault(project: Project, case: RuntimeCase, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The faulty tool's result, after checking that a healthy server in the same toolset still answers."""
    for name, value in case.setenv:
        monkeypatch.setenv(name, value)
    project.http_fault(case.http)
    env = {"bad": {"REPLAY_FAULT": case.replay_fault}}
    async with project.package.toolset(
        ["good", "bad", "web"], connection=project.package.ConnectionOptions(env=env, start_timeout=case.start_timeout)
    ) as ts:
        result = await ts.call(case.tool, ARGUMENTS[case.tool])
        healthy = await ts.call("good__search", {"q": "still here"})
        assert not healthy.is_error and '"still here"' in healthy.text, healthy.text
    return result


@pytestmark_anyio
@pytest.mark.parametrize("case", list(RUNTIME_CASES.values()), ids=list(RUNTIME_CASES))
async def test_runtime_a_fault_is_an_error_result_naming_the_server(
    project: Project, case: RuntimeCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = await call_with_fault(project, case, monkeypatch)
    assert result.is_error, result.text
    assert result.text.startswith(case.expected), result.text
    assert "\n" not in result.text and "Traceback" not in result.text


@pytestmark_anyio
async def test_runtime_a_json_rpc_error_32000_is_the_servers_answer_not_a_lost_connection(tmp_path: Path) -> None:
    """The SDK reports a closed connection as -32000 too; a server that answers with that code is still running.

    Its error is an error result with the server's (redacted) message, through the toolset and the
    typed wrappers alike, and the server process is neither stopped nor started again.
    """
    from mcp import MCPError

    running = tmp_path / "running"  # replay's --running: one PID.seen file for every server process started
    running.mkdir()
    tools = write_tools(tmp_path / "tools.json", GOOD_TOOLS)
    write_config(tmp_path, {"st": replay(tools, "--running", str(running), env={"REPLAY_FAULT": "${REPLAY_FAULT:-}"})})
    with locked_package(tmp_path, "busypkg") as package:
        locking = set(running.glob("*.seen"))
        env = {"REPLAY_FAULT": "error-32000-on-call", "API_KEY": "sk-sentinel-32000"}
        async with package.toolset(["st"], connection=package.ConnectionOptions(env={"st": env})) as ts:
            for _ in range(2):  # `search` is read-only: a lost connection would have been restarted and retried
                result = await ts.call("st__search", {"q": "x"})
                assert result.is_error, result.text
                assert result.text.startswith("the call failed: the server answered with error -32000: denied: env {")
                assert '"API_KEY": "***"' in result.text and "sk-sentinel" not in result.text
            assert ts.pool is not None and ts.pool.connections["st"].restarts == 0
        async with package.st.connect(env=env) as typed:
            for _ in range(2):
                with pytest.raises(MCPError) as caught:
                    await typed.search(q="x")
                assert caught.value.code == -32000 and caught.value.message.startswith("denied: env {")
                assert "sk-sentinel" not in caught.value.message
    started = set(running.glob("*.seen")) - locking
    assert len(started) == 2  # one process for the toolset, one for connect(): neither was started again
    assert list(running.glob("*.running")) == []  # and both were stopped when their blocks ended


@pytestmark_anyio
async def test_runtime_healthy_servers_answer(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control for the cases above: with no fault switched on, the same calls succeed."""
    for tool in ("bad__search", "web__echo"):
        result = await call_with_fault(project, RuntimeCase(tool, ""), monkeypatch)
        assert not result.is_error and '"x"' in result.text, result.text


@pytestmark_anyio
async def test_runtime_tolerates_a_banner_on_stdout(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unlike `lock` (which refuses the server), the runtime skips a non-JSON line and the call succeeds."""
    result = await call_with_fault(project, RuntimeCase("bad__search", "", replay_fault="garbage"), monkeypatch)
    assert not result.is_error and result.text == '{"arguments": {"q": "x"}, "tool": "search"}', result.text


@pytestmark_anyio
async def test_runtime_one_malformed_tool_does_not_cost_the_others(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = RuntimeCase("bad__search", "", setenv=(("REPLAY_TOOLS", str(project.odd_tools)),))
    result = await call_with_fault(project, case, monkeypatch)
    assert not result.is_error and '"x"' in result.text, result.text


@pytestmark_anyio
async def test_runtime_a_start_timeout_leaves_no_unretrieved_exception(
    project: Project, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        result = await call_with_fault(
            project, RuntimeCase("bad__search", "", "hang-on-list", start_timeout=2), monkeypatch
        )
        gc.collect()
    assert result.is_error and "did not start within 2 s" in result.text
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]
