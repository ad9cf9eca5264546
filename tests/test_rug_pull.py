"""Rug pulls mid-session: a server changes a tool after the agent started using it.

tests/servers/replay.py changes `fetch_page`'s description after the first call and announces it
with `notifications/tools/list_changed` (written before that call's result, so the client has
it when the call returns); tests/servers/http_faults.py switches to another description without
a word. The runtime compares again when told, and over HTTP once `pin_ttl` has passed: under
strict pinning the changed tool is refused from then on, the others keep working.
"""

from __future__ import annotations

import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from conftest import PY, SERVERS, free_port, locked_package, replay, wait_for_port, write_config, write_tools

pytestmark = pytest.mark.anyio

TOOLS: list[dict[str, Any]] = [
    {
        "name": "fetch_page",
        "description": "Fetch a web page and return its text.",
        "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "echo",
        "description": "Return the text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "annotations": {"readOnlyHint": True},
    },
]
PAGE = {"url": "https://example.org"}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("rugpull")
    tools = write_tools(root / "tools.json", TOOLS)
    marker = root / "pulled"
    write_config(
        root,
        {
            "announced": replay(tools, "--rug-pull", "fetch_page"),
            "silent": replay(tools, "--rug-pull", "fetch_page", "--rug-pull-silent"),
            "restarted": replay(tools, "--rug-pull", "fetch_page", "--rug-pull-file", str(marker)),
        },
    )
    with locked_package(root, "rugpkg") as module:
        module.marker = marker  # type: ignore[attr-defined]
        yield module


async def test_a_tool_changed_and_announced_mid_session_is_refused_from_then_on(package: ModuleType) -> None:
    async with package.toolset(["announced"]) as ts:
        first = await ts.call("announced__fetch_page", PAGE)
        assert not first.is_error, first.text
        for _ in range(2):  # from then on
            refused = await ts.call("announced__fetch_page", PAGE)
            assert refused.is_error and "refused: its description changed since review" in refused.text
        assert (await ts.call("announced__echo", {"text": "still here"})).text.endswith(
            '"still here"}, "tool": "echo"}'
        )


async def test_a_change_nobody_announces_is_not_looked_for_over_stdio(package: ModuleType) -> None:
    """The control: the refusal above is the notification's doing (stdio servers have no pin TTL)."""
    async with package.toolset(["silent"]) as ts:
        for _ in range(2):
            assert not (await ts.call("silent__fetch_page", PAGE)).is_error


async def test_warn_logs_a_change_once_and_keeps_calling(package: ModuleType, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcpvend.pinning"):
        async with package.toolset(["announced"], connection=package.ConnectionOptions(pinning="warn")) as ts:
            results = [await ts.call("announced__fetch_page", PAGE) for _ in range(3)]
    assert not any(r.is_error for r in results)
    warned = [r.getMessage() for r in caplog.records if "fetch_page" in r.getMessage()]
    assert warned == ["server 'announced': tool 'fetch_page' drifted: its description changed since review"]


async def test_the_typed_wrappers_refuse_it_too(package: ModuleType) -> None:
    from rugpkg import DriftError

    async with package.announced.connect() as tools:
        await tools.fetch_page(url="https://example.org")
        with pytest.raises(DriftError, match="'fetch_page' refused: its description changed since review"):
            await tools.fetch_page(url="https://example.org")
        await tools.echo(text="still here")


async def test_a_restarted_server_is_compared_again(package: ModuleType) -> None:
    async with package.toolset(["restarted"]) as ts:
        assert not (await ts.call("restarted__echo", {"text": "a"})).is_error
        package.marker.touch()  # the next process serves the changed tool from the start
        try:
            await ts.close()  # the server goes; the next call starts it again
            refused = await ts.call("restarted__fetch_page", PAGE)
            assert refused.is_error and "its description changed since review" in refused.text
        finally:
            package.marker.unlink()


@pytest.fixture(scope="module")
def http_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Path]]:
    root = tmp_path_factory.mktemp("rugpull-http")
    fault = root / "fault"
    port = free_port()
    tools = write_tools(root / "tools.json", TOOLS)
    web = subprocess.Popen(
        [PY, str(SERVERS / "http_faults.py"), "--port", str(port), "--fault-file", str(fault), "--tools", str(tools)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(web, port, "http_faults.py")
        write_config(root, {"web": {"url": f"http://127.0.0.1:{port}/mcp"}})
        with locked_package(root, "rughttp") as module:
            yield module, fault
    finally:
        web.terminate()
        web.wait(timeout=10)


@pytest.mark.parametrize(("pin_ttl", "refused"), [(0.0, True), (3600.0, False)])
async def test_over_http_the_tools_are_compared_again_once_the_pin_ttl_has_passed(
    http_package: tuple[ModuleType, Path], pin_ttl: float, refused: bool
) -> None:
    """A TTL of 0 compares before every call; the default (an hour) does not within this test."""
    package, fault = http_package
    fault.write_text("ok")
    async with package.toolset(connection=package.ConnectionOptions(pin_ttl=pin_ttl)) as ts:
        assert not (await ts.call("web__fetch_page", PAGE)).is_error
        fault.write_text("rug-pull")  # from now on the endpoint serves another description, unannounced
        try:
            result = await ts.call("web__fetch_page", PAGE)
            assert result.is_error == refused, result.text
            assert ("its description changed since review" in result.text) == refused
        finally:
            fault.write_text("ok")


@pytest.fixture(scope="module")
def modern_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("rugpull-modern")
    write_config(root, {"modern": {"command": PY, "args": [str(SERVERS / "modern_rugpull.py")]}})
    with locked_package(root, "rugmodern") as module:
        lockfile = (root / "lockfiles" / "modern.lock.json").read_text(encoding="utf-8")
        assert '"protocolVersion": "2026-07-28"' in lockfile
        yield module


async def test_a_2026_server_publishes_its_change_on_a_listen_stream_and_the_tool_is_refused(
    modern_package: ModuleType,
) -> None:
    """That protocol announces changes only to `subscriptions/listen` streams: the runtime holds one open."""
    async with modern_package.toolset() as ts:
        assert not (await ts.call("modern__fetch_page", PAGE)).is_error
        pins = ts.pool.connections["modern"].pins
        with anyio.fail_after(30):  # the event travels on its own stream, not ahead of the call's result
            while pins.announced == 0:
                await anyio.sleep(0.02)
        refused = await ts.call("modern__fetch_page", PAGE)
        assert refused.is_error and "refused: its description changed since review" in refused.text
        assert (await ts.call("modern__echo", {"text": "still here"})).text == "still here"
