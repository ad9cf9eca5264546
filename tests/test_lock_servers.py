"""`mcpvend lock` against real servers over real transports, in all three protocol eras."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from conftest import PY, REPO, demo, mcpvend, node_server, replay, write_config, write_tools
from mcpvend.lock import lockfile

PUBLISHED_FILESYSTEM = REPO / "tests" / "data" / "published" / "filesystem-2025.7.29.lock.json"


def locked(directory: Path, name: str) -> dict[str, Any]:
    """A lockfile that must pass the same verification `generate` applies."""
    return lockfile.read(directory / "lockfiles" / f"{name}.lock.json").document


def tool_names(document: dict[str, Any]) -> list[str]:
    return [entry["tool"]["name"] for entry in document["tools"]]


def test_demo_server_lockfile_records_the_tools_as_served(tmp_path: Path) -> None:
    write_config(tmp_path, {"demo": demo()})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert "locked  demo: 4 tools" in run.err
    document = locked(tmp_path, "demo")
    assert tool_names(document) == ["airports.find-by-code", "cancel_booking", "convert_temperature", "price_itinerary"]
    assert document["protocolVersion"] == "2026-07-28"  # an mcp 2.x server: the server/discover era
    assert document["server"]["info"] == {"name": "mcpvend-demo", "version": "1.0.0"}
    assert document["server"]["instructions"].startswith("Plan trips")
    price = document["tools"][3]["tool"]
    assert price["outputSchema"]["properties"]["total"] == {
        "description": "Total price for all travelers and legs.",
        "title": "Total",
        "type": "number",
    }
    assert "from" in price["inputSchema"]["$defs"]["Leg"]["properties"]
    assert document["source"] == {"transport": "stdio", "command": PY, "args": demo()["args"], "env": []}


def test_repo_lockfiles_match_the_live_example_servers() -> None:
    """The committed golden lockfiles are what the pinned servers serve today, byte for byte."""
    for package in ("server-everything", "server-filesystem"):
        node_server(package)
    run = mcpvend("lock", "--check", cwd=REPO)
    assert run.code == 0, run.err
    for name in ("demo", "time", "everything", "filesystem"):
        assert f"up to date  {name}:" in run.err


def test_locking_real_servers_twice_is_byte_identical(tmp_path: Path) -> None:
    node_server("server-everything")
    out = tmp_path / "locks"
    first = mcpvend("--lockfiles", str(out), "lock", "demo", "time", "everything", cwd=REPO)
    assert first.code == 0, first.err
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(before) == ["demo.lock.json", "everything.lock.json", "time.lock.json"]
    second = mcpvend("--lockfiles", str(out), "lock", "demo", "time", "everything", cwd=REPO)
    assert second.code == 0, second.err
    assert second.err.count(" unchanged  ") == 3
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_mcp_server_time_from_pypi_speaks_2026_07_28(tmp_path: Path) -> None:
    write_config(tmp_path, {"time": {"command": PY, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    document = locked(tmp_path, "time")
    assert (document["protocolVersion"], document["server"]["info"]["name"]) == ("2026-07-28", "mcp-time")
    assert tool_names(document) == ["convert_time", "get_current_time"]
    assert all("outputSchema" in entry["tool"] for entry in document["tools"])


def test_client_capabilities_change_server_everythings_tools_and_are_recorded(tmp_path: Path) -> None:
    entry = str(node_server("server-everything"))
    write_config(
        tmp_path,
        {
            "plain": {"command": "node", "args": [entry, "stdio"]},
            "capable": {
                "command": "node",
                "args": [entry, "stdio"],
                "capabilities": ["sampling", "elicitation", "roots"],
            },
        },
    )
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    plain, capable = locked(tmp_path, "plain"), locked(tmp_path, "capable")
    assert (len(plain["tools"]), len(capable["tools"])) == (13, 17)
    assert plain["clientCapabilities"] == [] and capable["clientCapabilities"] == ["elicitation", "roots", "sampling"]
    assert plain["protocolVersion"] == "2025-11-25"
    echo = next(e["tool"] for e in plain["tools"] if e["tool"]["name"] == "echo")
    assert echo["inputSchema"]["$schema"] == "http://json-schema.org/draft-07/schema#"  # kept as served


def test_server_everything_over_streamable_http_matches_stdio(tmp_path: Path, everything_http: str) -> None:
    entry = str(node_server("server-everything"))
    write_config(
        tmp_path,
        {
            "http": {"url": everything_http, "headers": {"X-Trace": "mcpvend-test"}},
            "stdio": {"command": "node", "args": [entry, "stdio"]},
        },
    )
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    http, stdio = locked(tmp_path, "http"), locked(tmp_path, "stdio")
    assert http["source"] == {"transport": "http", "url": everything_http, "headers": ["X-Trace"]}
    assert http["digest"] == stdio["digest"]  # same tools, byte for byte, whichever transport carried them


def test_server_github_on_protocol_2024_11_05(tmp_path: Path) -> None:
    entry = str(node_server("server-github"))
    write_config(tmp_path, {"github": {"command": "node", "args": [entry]}})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    document = locked(tmp_path, "github")
    assert document["protocolVersion"] == "2024-11-05"
    assert "create_issue" in tool_names(document)


def test_filesystem_server_with_include_and_exclude(tmp_path: Path) -> None:
    entry = str(node_server("server-filesystem"))
    shutil.copytree(REPO / "tests" / "fixtures" / "files", tmp_path / "files")
    write_config(
        tmp_path,
        {"fs": {"command": "node", "args": [entry, "files"], "include": ["read_*", "list_*"], "exclude": ["*media*"]}},
    )
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    names = tool_names(locked(tmp_path, "fs"))
    assert names and all(n.startswith(("read_", "list_")) and "media" not in n for n in names)
    assert "read_text_file" in names and "write_file" not in names
    assert str(tmp_path) not in (tmp_path / "lockfiles" / "fs.lock.json").read_text()


def test_tools_rejected_at_lock_are_counted_on_its_summary_line(tmp_path: Path) -> None:
    """server-filesystem 2025.7.29 served 13 of its 14 tools without `"type": "object"` (a real capture): `lock`
    must not say "1 tools" and look like a healthy run, but count the 13 it could not lock and name each."""
    published = json.loads(PUBLISHED_FILESYSTEM.read_text(encoding="utf-8"))
    broken = [
        {"name": r["name"], "description": "As served.", "inputSchema": {"properties": {"path": {"type": "string"}}}}
        for r in published["rejected"]
    ]
    tools = write_tools(tmp_path / "t.json", [*(entry["tool"] for entry in published["tools"]), *broken])
    write_config(tmp_path, {"filesystem": replay(tools)})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0, run.err
    lines = run.err.splitlines()
    assert (
        lines[0] == "    locked  filesystem: 1 tool, 13 rejected  lockfiles/filesystem.lock.json  (protocol 2025-11-25)"
    )
    assert lines[1:] == [
        f"warning: server 'filesystem': tool '{r['name']}' was not locked: {r['reason']}" for r in published["rejected"]
    ]
    assert locked(tmp_path, "filesystem")["rejected"] == published["rejected"]


def test_dot_mcp_json_config(tmp_path: Path) -> None:
    config = tmp_path / "claude.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {"command": demo()["command"], "args": demo()["args"]}}}))
    run = mcpvend("--config", str(config), "lock", cwd=tmp_path)
    assert run.code == 0, run.err
    assert len(locked(tmp_path, "demo")["tools"]) == 4


# A tool whose author ordered its keys and parameters on purpose: nothing here is alphabetical.
SERVED_IN_ORDER: dict[str, Any] = {
    "name": "price_itinerary",
    "title": "Price an itinerary",
    "description": "Price a trip for everyone on it.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "travelers": {"type": "integer", "minimum": 1},
            "legs": {"type": "array", "items": {"type": "string"}},
            "currency": {"type": "string"},
            "cabin": {"type": "string"},
        },
        "required": ["legs", "travelers"],
    },
    "annotations": {"readOnlyHint": True, "idempotentHint": True},
}


def _reversed(value: Any) -> Any:
    """The same JSON with every object's keys in the opposite order."""
    if isinstance(value, dict):
        return {key: _reversed(value[key]) for key in reversed(value)}
    if isinstance(value, list):
        return [_reversed(item) for item in value]
    return value


def test_each_tool_keeps_the_order_it_was_served_in_through_lock_generate_and_specs(tmp_path: Path) -> None:
    write_config(tmp_path, {"s": replay(write_tools(tmp_path / "t.json", [SERVED_IN_ORDER]))})
    assert mcpvend("lock", cwd=tmp_path).code == 0
    document = json.loads((tmp_path / "lockfiles" / "s.lock.json").read_text(encoding="utf-8"))
    tool = document["tools"][0]["tool"]
    assert list(tool) == list(SERVED_IN_ORDER)
    assert list(tool["inputSchema"]) == ["type", "properties", "required"]
    assert list(tool["inputSchema"]["properties"]) == ["travelers", "legs", "currency", "cabin"]
    assert list(tool["annotations"]) == ["readOnlyHint", "idempotentHint"]
    assert list(document) == sorted(document) and list(document["tools"][0]) == ["digests", "tool"]
    # Digests are over canonical JSON: the order a server uses is not part of what it means.
    assert document["tools"][0]["digests"] == lockfile.tool_digests(_reversed(SERVED_IN_ORDER))
    assert mcpvend("generate", cwd=tmp_path).code == 0
    source = (tmp_path / "generated" / "s" / "tools.py").read_text(encoding="utf-8")
    signatures = [f for f in ast.walk(ast.parse(source)) if isinstance(f, ast.AsyncFunctionDef) and f.args.kwonlyargs]
    assert [a.arg for a in signatures[0].args.kwonlyargs] == ["travelers", "legs", "currency", "cabin"]
    probe = "import generated, json; print(json.dumps(generated.toolset().tool_specs('mcp')[0]['inputSchema']))"
    specs = subprocess.run([PY, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert list(json.loads(specs.stdout)["properties"]) == ["travelers", "legs", "currency", "cabin"]


def test_relocking_a_server_that_reorders_its_keys_changes_no_byte(tmp_path: Path) -> None:
    served = write_tools(tmp_path / "t.json", [SERVED_IN_ORDER])
    write_config(tmp_path, {"s": replay(served)})
    assert mcpvend("lock", cwd=tmp_path).code == 0
    path = tmp_path / "lockfiles" / "s.lock.json"
    before, stamp = path.read_bytes(), path.stat().st_mtime_ns
    write_tools(served, [_reversed(SERVED_IN_ORDER)])  # the same tool, its keys sent the other way round
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0 and "unchanged  s: 1 tool  " in run.err, run.err
    assert (path.read_bytes(), path.stat().st_mtime_ns) == (before, stamp)
    check = mcpvend("lock", "--check", cwd=tmp_path)
    assert check.code == 0 and "up to date" in check.err, check.err


def test_a_format_1_lockfile_is_still_read_and_is_rewritten_in_served_order_on_the_next_lock(tmp_path: Path) -> None:
    write_config(tmp_path, {"s": replay(write_tools(tmp_path / "t.json", [SERVED_IN_ORDER]))})
    assert mcpvend("lock", cwd=tmp_path).code == 0
    path = tmp_path / "lockfiles" / "s.lock.json"
    old = {**json.loads(path.read_text(encoding="utf-8")), "lockfileVersion": 1}
    path.write_text(json.dumps(old, sort_keys=True, indent=2) + "\n", encoding="utf-8")  # as mcpvend 0.1 wrote it
    assert lockfile.read(path).document["lockfileVersion"] == 1
    check = mcpvend("lock", "--check", cwd=tmp_path)  # the same server: an upgrade alone is no drift
    assert check.code == 0 and "up to date" in check.err, check.err
    assert mcpvend("generate", cwd=tmp_path).code == 0
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 0 and "locked  s: 1 tool  " in run.err, run.err
    rewritten = json.loads(path.read_text(encoding="utf-8"))
    assert rewritten["lockfileVersion"] == 2  # the newest format (3) only where the source keeps env values
    assert list(rewritten["tools"][0]["tool"]["inputSchema"]["properties"]) == [
        "travelers",
        "legs",
        "currency",
        "cabin",
    ]
