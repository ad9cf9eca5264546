"""`mcpvend serve` exposed: what it relays is masked, no Host is trusted by accident, no client locks the
others out, and no upstream outlives it.

Real parts throughout: serve in a child process, the SDK's own client (stdio and HTTP), raw HTTP where a
client must misbehave, tests/servers/asks_secret.py (a tool whose question quotes its configured secret)
and server-everything (which keeps running after its stdin closes once its simulated logging is on).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters

from conftest import COLD_START, PY, SERVERS, mcpvend, node_server, write_config

pytestmark = pytest.mark.anyio
SECRET = "acct-7f3kQz2-hardening-secret"
ENV = {"HARDENING_TOKEN": SECRET}
FLOOD = int(os.environ.get("MCPVEND_FLOOD_SESSIONS", "200"))  # sessions one client opens (the cap): 1000 in the issue
LEGACY = "2025-11-25"
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LEGACY,
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """asks_secret (given the secret as ACCOUNT_TOKEN) and server-everything, locked and generated."""
    root = tmp_path_factory.mktemp("hardening")
    asks = {
        "command": PY,
        "args": [str(SERVERS / "asks_secret.py")],
        "capabilities": ["elicitation"],
        "env": {"ACCOUNT_TOKEN": "${HARDENING_TOKEN}"},
    }
    everything = {"command": "node", "args": [str(node_server("server-everything")), "stdio"]}
    write_config(root, {"asks": asks, "everything": everything})
    for command in ("lock", "generate"):
        run = mcpvend(command, cwd=root, env=ENV)
        assert run.code == 0, run.err
    return root


@contextmanager
def serving(project: Path, *args: str) -> Iterator[tuple[str, list[str]]]:
    """`serve --transport http --port 0 ARGS`: its URL and its stderr lines, read all along (the pipe never fills)."""
    command = [PY, "-m", "mcpvend", "serve", *args, "--transport", "http", "--port", "0"]
    proc = subprocess.Popen(command, cwd=project, env={**os.environ, **ENV}, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    stderr, lines, announced = proc.stderr, list[str](), threading.Event()

    def read() -> None:
        for line in stderr:
            lines.append(line.rstrip("\n"))
            if " on http://" in line:
                announced.set()
        announced.set()  # it exited

    threading.Thread(target=read, daemon=True).start()
    try:
        assert announced.wait(120), "serve announced no address in 120 s"  # a hang guard only
        url = next((m[1] for line in lines if (m := re.search(r" on (http://\S+)$", line))), None)
        assert url is not None, "\n".join(lines)
        yield url, lines
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


# --- 1. every question relayed is masked -------------------------------------------------------------


@pytest.mark.parametrize(
    ("era", "flags", "masked"),
    [("legacy", (), True), ("2026-07-28", (), True), ("legacy", ("--unmasked-results",), False)],
    ids=["mid-call", "input-required", "unmasked"],
)
async def test_a_question_quoting_a_secret_reaches_the_client_masked(
    project: Path, era: str, flags: tuple[str, ...], masked: bool
) -> None:
    """The 2025-11-25 client is asked mid-call, the 2026-07-28 one in an `input_required` result: both
    see `***` where the upstream quoted its secret, in the message and in the requested schema; the
    answer still reaches the upstream. `--unmasked-results` (a single user) passes the question on as sent."""
    asked: list[types.ElicitRequestParams] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    with serving(project, "asks", *flags) as (url, lines):
        async with Client(url, mode=era, elicitation_callback=answer) as client:
            result = await client.call_tool("asks__confirm", {})
    assert (result.is_error, text(result)) == (False, "confirmed: Ada")
    (question,) = asked
    assert isinstance(question, types.ElicitRequestFormParams)
    shown = question.message + json.dumps(question.requested_schema)
    assert (SECRET in shown) is not masked, shown
    if masked:
        assert question.message == "Who holds the account ***?"
        assert question.requested_schema["properties"]["name"]["description"] == "The name on the account ***."
    assert not [line for line in lines if "authentication" in line]  # loopback: nothing to warn of


# --- 2. any address keeps the Host and Origin checks -----------------------------------------------


async def test_a_bind_beyond_loopback_keeps_the_host_and_origin_checks(project: Path) -> None:
    """`--host 0.0.0.0` used to turn the DNS-rebinding checks off: a page whose name resolves to the
    machine reached every tool. They stay on: the bound address, loopback and the allowed values only."""
    allowed = ("--allow-host", "mcp.example.com", "--allow-origin", "https://app.example.com")
    with serving(project, "asks", "--host", "0.0.0.0", *allowed) as (url, lines):
        port = int(url.split(":")[2].split("/")[0])
        warned = [i for i, line in enumerate(lines) if "no authentication of its own" in line]
        announced = next(i for i, line in enumerate(lines) if " on http://" in line)
        assert len(warned) == 1 and warned[0] < announced and lines[warned[0]].startswith("warning: "), lines
        assert "put an authenticating reverse proxy in front of it" in lines[warned[0]]

        async def status(**headers: str) -> int:
            async with httpx2.AsyncClient() as web:
                answer = await web.post(f"http://127.0.0.1:{port}/mcp", json=INITIALIZE, headers={**HEADERS, **headers})
            return answer.status_code

        assert await status(Host="evil.example") == 421
        assert await status(Host=f"evil.example:{port}") == 421
        assert await status(Host=f"0.0.0.0:{port}") == 200  # the bound address
        assert await status(Host=f"localhost:{port}") == 200
        assert await status(Host="mcp.example.com") == 200  # --allow-host
        assert await status(Host=f"127.0.0.1:{port}", Origin="http://evil.example") == 403
        assert await status(Host=f"127.0.0.1:{port}", Origin="https://app.example.com") == 200  # --allow-origin


@pytest.mark.parametrize(
    ("option", "value", "shape"),
    [
        ("--allow-host", "http://mcp.example.com", "HOST, HOST:PORT or HOST:*"),
        ("--allow-origin", "*", "an origin: http(s)://HOST[:PORT]"),
    ],
)
def test_a_malformed_allowed_value_is_a_one_line_error(project: Path, option: str, value: str, shape: str) -> None:
    run = mcpvend("serve", "--transport", "http", option, value, cwd=project, timeout=60)
    assert run.code == 2 and "Traceback" not in run.err, run.err
    assert f"Invalid value for '{option}': {value!r} is not {shape}" in run.err


# --- 3. a flood of sessions locks no one out ----------------------------------------------------------


async def _open_session(web: httpx2.AsyncClient, url: str) -> str:
    """An initialize that opens a session, which is then left idle: its id."""
    answer = await web.post(url, json=INITIALIZE, headers=HEADERS)
    assert answer.status_code == 200, (answer.status_code, answer.text)
    return answer.headers["mcp-session-id"]


async def _ping(web: httpx2.AsyncClient, url: str, session: str) -> int:
    headers = {**HEADERS, "mcp-session-id": session, "mcp-protocol-version": LEGACY}
    return (await web.post(url, json={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers=headers)).status_code


async def _messages(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON-RPC messages of an SSE response, as they come."""
    async for line in response.aiter_lines():
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


async def test_one_client_opening_a_flood_of_sessions_locks_no_one_out(project: Path) -> None:
    """`--max-sessions N` and one client opening N sessions it never uses: a new client still gets in (the
    session idle longest is closed for it), while a session whose call waits on its client's answer,
    older than all of them, is not closed: its call completes."""
    with serving(project, "asks", "--max-sessions", str(FLOOD)) as (url, _):
        async with httpx2.AsyncClient(timeout=120) as web:  # a hang guard only
            waiting = await _open_session(web, url)
            headers = {**HEADERS, "mcp-session-id": waiting, "mcp-protocol-version": LEGACY}
            initialized = await web.post(
                url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
            )
            assert initialized.status_code == 202
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "asks__confirm", "arguments": {}},
            }
            async with web.stream("POST", url, json=call, headers=headers) as response:
                messages = _messages(response)
                question = await anext(messages)
                assert question["method"] == "elicitation/create", question  # the call is in flight

                first = await _open_session(web, url)  # idle longest of the flood
                limiter = anyio.CapacityLimiter(16)
                opened: list[str] = []

                async def open_one() -> None:
                    async with limiter:
                        opened.append(await _open_session(web, url))

                async with anyio.create_task_group() as group:
                    for _ in range(FLOOD - 1):
                        group.start_soon(open_one)
                async with Client(url, mode="legacy") as newcomer:  # N + 2 sessions asked for: two closed
                    converted = await newcomer.call_tool("asks__confirm", {})
                    assert text(converted) == "not confirmed (the user answered decline)"  # it declared no elicitation
                assert await _ping(web, url, first) == 404  # closed for the newcomer
                assert await _ping(web, url, opened[-1]) == 200

                reply = {
                    "jsonrpc": "2.0",
                    "id": question["id"],
                    "result": {"action": "accept", "content": {"name": "Ada"}},
                }
                assert (await web.post(url, json=reply, headers=headers)).status_code == 202
                result = await anext(messages)
            assert result["id"] == 2 and result["result"]["content"][0]["text"] == "confirmed: Ada", result


async def test_the_client_holding_the_most_sessions_loses_its_own_first(project: Path) -> None:
    """At the cap, the idle session closed is one of the client (address) holding the most: another client's
    idle session outlives a flood from one address."""
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.2", 0))
        except OSError as exc:  # a system without the whole 127/8 loopback range (macOS)
            pytest.skip(f"cannot connect from 127.0.0.2: {exc}")
    other = httpx2.AsyncClient(transport=httpx2.AsyncHTTPTransport(local_address="127.0.0.2"))
    with serving(project, "asks", "--max-sessions", "4") as (url, _):
        async with other, httpx2.AsyncClient() as flooding:
            theirs = await _open_session(other, url)  # the oldest session of all
            flood = [await _open_session(flooding, url) for _ in range(12)]
            assert await _ping(other, url, theirs) == 200
            assert [await _ping(flooding, url, session) for session in flood] == [404] * 9 + [200] * 3


# --- 4. no upstream outlives serve ---------------------------------------------------------------


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: its parent and its state, from /proc."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
        except OSError:  # gone meanwhile
            continue
        table[int(entry.name)] = (int(parent), state)
    return table


def _children(pid: int) -> set[int]:
    return {child for child, (parent, _) in _processes().items() if parent == pid}


def _descendants(pid: int) -> set[int]:
    found, frontier = set[int](), [pid]
    while frontier:
        children = _children(frontier.pop())
        found |= children
        frontier += children
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
@pytest.mark.parametrize("stop", ["hang-up", "sigterm"])
async def test_no_upstream_outlives_a_stopped_stdio_serve(project: Path, stop: str) -> None:
    """The SDK's stdio client stops serve by closing its stdin, then SIGTERM 2 s later, then SIGKILL: serve
    used to wait on the call in flight and die of the SIGTERM, leaving server-everything running (it
    ignores its closed stdin while its simulated logging runs). A SIGTERM of serve's own does the same.
    Either way, serve now closes its upstreams first, and none survives it."""
    asked = anyio.Event()

    async def hold(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.set()
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    async def ask(client: Client) -> None:
        with contextlib.suppress(MCPError):  # serve went away mid-call
            await client.call_tool("asks__confirm", {})

    args = ["-m", "mcpvend", "serve", "asks", "everything", "--warm"]
    environ = {**os.environ, **ENV, **COLD_START}  # cold: its upstreams are its own children in /proc
    params = StdioServerParameters(command=PY, args=args, cwd=str(project), env=environ)
    async with anyio.create_task_group() as group:
        async with Client(params, mode="legacy", elicitation_callback=hold) as client:
            logging = await client.call_tool("everything__toggle-simulated-logging", {})
            assert "Started simulated" in text(logging)  # server-everything now outlives its closed stdin
            group.start_soon(ask, client)
            with anyio.fail_after(120):  # a hang guard only
                await asked.wait()  # the call is in flight: the question reached this client
            (serve,) = [pid for pid in _children(os.getpid()) if Path(f"/proc/{pid}/cwd").resolve() == project]
            upstreams = _descendants(serve)
            assert len(upstreams) >= 2, upstreams  # node and python
            if stop == "sigterm":
                os.kill(serve, signal.SIGTERM)
                with anyio.fail_after(120):
                    while _alive(serve):
                        await anyio.sleep(0.05)
        group.cancel_scope.cancel()
    assert not _alive(serve)
    assert [pid for pid in upstreams if _alive(pid)] == []
