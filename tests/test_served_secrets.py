"""A server's own credentials are never written: not when it serves them back, not in `-v serve` logs.

The servers are real (tests/servers/replay.py over stdio), each serving a value configured for it
back in one place a lockfile would keep: its instructions, a description, a title, a default, an
example, a property name, in plain, JSON-escaped and percent-encoded forms.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from mcp import Client

from conftest import GOOD_TOOLS, PY, mcpvend, replay, tree, write_config

SECRET = 'sk-live-"served"/back-4242'  # a quote and a slash: JSON-escaped and percent-encoded, it reads otherwise
LITERAL = "sk-live-literal-value-9191"


def served_with(place: str, secret: str) -> dict[str, Any]:
    """The replay server's data with `secret` in `place`; every other text is harmless."""
    tool: dict[str, Any] = {
        "name": "whoami",
        "description": "Says who the server runs as.",
        "inputSchema": {"type": "object", "properties": {"verbose": {"type": "boolean"}}},
    }
    data: dict[str, Any] = {"tools": [tool, *GOOD_TOOLS], "instructions": "Use whoami first."}
    if place == "instructions":
        data["instructions"] = f"Authenticated as {secret}."
    elif place == "description":
        tool["description"] = f"Authenticated as {secret}."
    elif place == "title":
        tool["title"] = secret
    elif place == "default":
        tool["inputSchema"]["properties"]["token"] = {"type": "string", "default": secret}
    elif place == "examples":
        tool["inputSchema"]["properties"]["token"] = {"type": "string", "examples": [secret]}
    elif place == "property name":
        tool["inputSchema"]["properties"][secret] = {"type": "string"}
    elif place == "percent-encoded":
        tool["description"] = f"See https://example.com/account?key={quote(secret, safe='')}."
    return data


POINTERS = {
    "instructions": "(the server's instructions, at /)",
    "description": "(tool 'whoami', at /description)",
    "title": "(tool 'whoami', at /title)",
    "default": "(tool 'whoami', at /inputSchema/properties/token/default)",
    "examples": "(tool 'whoami', at /inputSchema/properties/token/examples/0)",
    "property name": f"(tool 'whoami', at /inputSchema/properties/{SECRET.replace('/', '~1')})",
    "percent-encoded": "(tool 'whoami', at /description)",
}


def project(root: Path, data: dict[str, Any], *extra: str, **settings: Any) -> Path:
    tools = root / "tools.json"
    tools.write_text(json.dumps(data), encoding="utf-8")
    write_config(root, {"leaky": replay(tools, *extra, **settings)})
    return tools


@pytest.mark.parametrize("place", list(POINTERS))
def test_lock_refuses_a_server_that_serves_its_secret_back(tmp_path: Path, place: str) -> None:
    tools = project(tmp_path, served_with("nowhere", SECRET), env={"API_TOKEN": "${LEAKY_TOKEN}"})
    environment = {"LEAKY_TOKEN": SECRET}
    assert mcpvend("lock", cwd=tmp_path, env=environment).code == 0
    before = tree(tmp_path / "lockfiles")
    tools.write_text(json.dumps(served_with(place, SECRET)), encoding="utf-8")
    for args in (("lock",), ("lock", "--check"), ("diff", "--live", "leaky")):
        run = mcpvend(*args, cwd=tmp_path, env=environment)
        assert run.code == 2, (args, run.err)
        assert run.err.startswith(
            f"error: server 'leaky': it serves the value of ${{LEAKY_TOKEN}} back {POINTERS[place]}; not locked"
        ), run.err
        shown = run.out + run.err
        assert SECRET not in shown and json.dumps(SECRET)[1:-1] not in shown and quote(SECRET, safe="") not in shown
    assert tree(tmp_path / "lockfiles") == before


def test_a_literal_env_value_is_named_by_its_key(tmp_path: Path) -> None:
    project(tmp_path, served_with("description", LITERAL), env={"API_KEY": LITERAL})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 2, run.err
    assert "it serves the value of env.API_KEY back (tool 'whoami', at /description)" in run.err
    assert LITERAL not in run.err and not (tmp_path / "lockfiles" / "leaky.lock.json").exists()


def test_other_servers_of_the_run_are_locked(tmp_path: Path) -> None:
    leaky = tmp_path / "leaky.json"
    leaky.write_text(json.dumps(served_with("description", LITERAL)), encoding="utf-8")
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(served_with("nowhere", LITERAL)), encoding="utf-8")
    write_config(tmp_path, {"leaky": replay(leaky, env={"API_KEY": LITERAL}), "clean": replay(clean)})
    run = mcpvend("lock", cwd=tmp_path)
    assert run.code == 2
    assert (tmp_path / "lockfiles" / "clean.lock.json").is_file()
    assert not (tmp_path / "lockfiles" / "leaky.lock.json").exists()


@pytest.mark.anyio
@pytest.mark.parametrize("unmasked", [False, True], ids=["masked", "unmasked"])
async def test_verbose_serve_logs_no_secret_a_result_carries(tmp_path: Path, unmasked: bool) -> None:
    """`-v serve --transport http`: the SSE layer logs every chunk it sends, a result's text included; the
    result itself reaches the client masked, or as sent with `--unmasked-results` (a single-user setup)."""
    project(tmp_path, served_with("nowhere", LITERAL), "--fault", "leak-in-result", env={"API_KEY": LITERAL})
    for args in (("lock",), ("generate",)):
        assert mcpvend(*args, cwd=tmp_path).code == 0
    command = [PY, "-m", "mcpvend", "-v", "serve", "leaky", "--mode", "direct", "--transport", "http", "--port", "0"]
    command += ["--unmasked-results"] if unmasked else []
    proc = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    logged: list[str] = []
    try:
        while (match := re.search(r" on (http://\S+/mcp)$", line := proc.stderr.readline().rstrip())) is None:
            assert line or proc.poll() is None, "".join(logged)
            logged.append(line)
        async with Client(match[1], mode="legacy") as client:  # a session: results come as SSE events
            result = await client.call_tool("leaky__whoami", {})
            assert not result.is_error and (LITERAL in str(result.content)) == unmasked
            assert unmasked or "***" in str(result.content)
    finally:
        proc.send_signal(signal.SIGINT)
        logged.append(proc.communicate(timeout=30)[1])
    err = "\n".join(logged)
    assert "sse_starlette.sse: chunk: b'event: message" in err, err[-2000:]  # the layer did log the result
    assert LITERAL not in err, [line[:200] for line in err.splitlines() if LITERAL in line]
