"""Hosted servers as users meet them: a legacy HTTP+SSE server (the SDK's own SSE server transport),
and OAuth 2.1 sign-in against an in-repo server built on the SDK's `mcp/server/auth`."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from conftest import PY, SERVERS, listening, locked_package, mcpvend, write_config

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def legacy_sse() -> Iterator[str]:
    """The demo server over the 2024-11-05 HTTP+SSE transport, on a free loopback port."""
    with listening([PY, str(SERVERS / "demo.py"), "--sse", "{port}"], "demo server (SSE)") as port:
        yield f"http://127.0.0.1:{port}/sse"


def text(result: object) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")  # type: ignore[attr-defined]


async def test_a_legacy_sse_server_is_locked_called_and_served(tmp_path: Path, legacy_sse: str) -> None:
    write_config(tmp_path, {"legacy": {"url": legacy_sse, "transport": "sse"}})
    with locked_package(tmp_path, "legacy_pkg") as package:
        lockfile = json.loads((tmp_path / "lockfiles" / "legacy.lock.json").read_text(encoding="utf-8"))
        assert lockfile["source"] == {"transport": "sse", "url": legacy_sse, "headers": []}
        assert "convert_temperature" in [entry["tool"]["name"] for entry in lockfile["tools"]]
        async with package.toolset(["legacy"], mode="direct") as ts:
            result = await ts.call("legacy__convert_temperature", {"value": 100, "to": "fahrenheit"})
            assert (result.is_error, result.text) == (False, "212.00 fahrenheit")
        check = mcpvend("lock", "--check", cwd=tmp_path)
        assert check.code == 0, check.err  # pinned: the live server still matches
        served = StdioServerParameters(
            command=PY,
            args=["-m", "mcpvend", "--output", "legacy_pkg", "serve", "legacy"],
            cwd=str(tmp_path),
            env=dict(os.environ),
        )
        async with Client(served) as client:
            converted = await client.call_tool("legacy__convert_temperature", {"value": 0, "to": "kelvin"})
            assert (converted.is_error, text(converted)) == (False, "273.15 kelvin")


def test_dot_mcp_json_type_sse_is_read_as_the_legacy_transport(tmp_path: Path, legacy_sse: str) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"legacy": {"type": "sse", "url": legacy_sse}}}))
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert json.loads((tmp_path / "lockfiles" / "legacy.lock.json").read_text())["source"]["transport"] == "sse"
