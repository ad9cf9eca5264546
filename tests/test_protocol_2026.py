"""MCP 2026-07-28 results and errors as read off the wire: a `null` structured result where the reviewed
output schema allows one, and one actionable line for each request error the revision defines."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import mcp_types as types
import pytest
from mcp import MCPError

from conftest import PY, SERVERS, listening, locked_package, mcpvend, write_config
from mcpvend.runtime.client import failures
from mcpvend.runtime.core.results import MediaStore, normalize

pytestmark = pytest.mark.anyio
NULLABLE = {"type": ["object", "null"], "properties": {"n": {"type": "integer"}}}


def wire(body: dict[str, object]) -> types.CallToolResult:
    return types.CallToolResult.model_validate(body)


def test_a_null_structured_result_passes_where_the_schema_allows_null_and_absence_still_fails() -> None:
    store = MediaStore(None)
    sent_null = normalize(wire({"content": [], "structuredContent": None}), output_schema=NULLABLE, store=store)
    assert not sent_null.is_error and sent_null.structured is None
    absent = normalize(wire({"content": []}), output_schema=NULLABLE, store=store)
    assert absent.is_error and "the server sent no structuredContent" in absent.text
    refused = normalize(wire({"content": [], "structuredContent": None}), output_schema={"type": "object"}, store=store)
    assert refused.is_error and "None is not of type 'object'" in refused.text


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            MCPError(-32021, "Missing capability", {"requiredCapabilities": {"elicitation": {}, "sampling": {}}}),
            'requires the client capabilities elicitation, sampling (error -32021): add capabilities = ["elicitation",'
            ' "sampling"] to its config, then lock again',
        ),
        (
            MCPError(
                -32021, "Missing", {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
            ),
            "requires the client extension io.modelcontextprotocol/tasks (error -32021): mcpvend declares"
            " io.modelcontextprotocol/tasks alone, to a server whose lockfile records it offering that extension",
        ),
        (
            MCPError(-32021, "Missing", {"requiredCapabilities": {"extensions": {"com.example/ui": {}}}}),
            "requires the client extension com.example/ui (error -32021)",
        ),
        (
            MCPError(-32022, "Unsupported", {"supported": ["2025-11-25"], "requested": "2026-07-28"}),
            "does not speak protocol 2026-07-28 (error -32022; it speaks: 2025-11-25): set protocol",
        ),
        (MCPError(-32020, "Mcp-Param-Region does not match"), "refused the request's Mcp-* headers (error -32020)"),
    ],
)
def test_each_2026_request_error_is_one_line_saying_what_to_change(error: MCPError, line: str) -> None:
    assert line in failures.reason(error)


def test_an_invalid_x_mcp_header_tool_is_rejected_at_lock_over_http(tmp_path: Path) -> None:
    region = {"type": "string", "x-mcp-header": "Region"}
    tools = [
        {
            "name": "bad",
            "inputSchema": {"type": "object", "properties": {"r": {**region, "x-mcp-header": "Bad Header"}}},
        },
        {"name": "good", "inputSchema": {"type": "object", "properties": {"r": region}}},
    ]
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps(tools))
    argv = [PY, str(SERVERS / "http_faults.py"), "--port", "{port}", "--tools", str(listing)]
    with listening(argv, "HTTP server with x-mcp-header tools") as port:
        write_config(tmp_path, {"h": {"url": f"http://127.0.0.1:{port}/mcp"}})
        run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    document = json.loads((tmp_path / "lockfiles" / "h.lock.json").read_text())
    assert [entry["tool"]["name"] for entry in document["tools"]] == ["good"]
    (rejected,) = document["rejected"]
    assert rejected["name"] == "bad"
    assert rejected["reason"].startswith(
        "its x-mcp-header annotation is invalid (property 'r': x-mcp-header 'Bad Header'"
    )


async def test_header_routed_calls_work_with_pinning_off(tmp_path: Path) -> None:
    """The SDK mirrors x-mcp-header arguments only for tools it listed; unpinned, nothing is listed."""
    with listening([PY, str(SERVERS / "asks_name.py"), "--http", "{port}"], "asks_name over HTTP") as port:
        write_config(tmp_path, {"asks": {"url": f"http://127.0.0.1:{port}/mcp"}})
        with locked_package(tmp_path, "header_pkg"):
            wrappers = importlib.import_module("header_pkg.asks")
            for pinning in ("strict", "off"):
                async with wrappers.connect(pinning=pinning) as tools:
                    assert (await tools.forecast(region="north")).result == "sunny in north"


def test_a_task_only_tool_is_locked_quietly_passes_lint_and_shows_as_a_task(tmp_path: Path) -> None:
    """mcpvend runs such a tool as a task: compatibility information for `show`, no warning, no finding."""
    tools = [{"name": "report", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]
    listing = tmp_path / "tools.json"
    listing.write_text(json.dumps(tools))
    with listening([PY, str(SERVERS / "http_faults.py"), "--port", "{port}", "--tools", str(listing)], "tasks") as port:
        write_config(tmp_path, {"h": {"url": f"http://127.0.0.1:{port}/mcp"}})
        locked = mcpvend("lock", cwd=tmp_path)
    assert locked.code == 0, locked.err
    assert "warning" not in locked.err and "task" not in locked.err, locked.err
    linted = mcpvend("lint", cwd=tmp_path)
    assert linted.code == 0 and linted.out.endswith("h.lock.json -> lint: no findings\n"), linted.out
    shown = mcpvend("show", "--format", "json", cwd=tmp_path)
    assert "runs as a task" in shown.out


def test_a_private_listing_records_the_credentials_it_was_taken_with(tmp_path: Path) -> None:
    demo = {"command": PY, "args": [str(SERVERS / "demo.py")], "env": {"DEMO_TOKEN": "${DEMO_TOKEN:-t0k3n-value}"}}
    write_config(tmp_path, {"demo": demo})
    assert mcpvend("lock", cwd=tmp_path).code == 0
    source = json.loads((tmp_path / "lockfiles" / "demo.lock.json").read_text())["source"]
    # The SDK's servers list tools with cacheScope "private" unless told otherwise.
    assert source["listedWith"] == {"cacheScope": "private", "credentials": ["env.DEMO_TOKEN"]}
    write_config(tmp_path, {"demo": {**demo, "exclude": ["cancel_booking"]}})
    check = mcpvend("lock", "--check", cwd=tmp_path)
    assert check.code == 1
    assert "lists its tools per credential (cacheScope: private); this listing was taken with: env.DEMO_TOKEN" in (
        check.out + check.err
    )
    bare = tmp_path / "bare"
    bare.mkdir()
    write_config(bare, {"demo": {"command": PY, "args": [str(SERVERS / "demo.py")]}})
    assert mcpvend("lock", cwd=bare).code == 0  # no credential: nothing to say whose listing it is
    assert "listedWith" not in json.loads((bare / "lockfiles" / "demo.lock.json").read_text())["source"]
