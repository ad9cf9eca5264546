"""A server's own credential served back disguised is refused as the plain value is, and kept out of logs.

The servers are real (tests/servers/replay.py over stdio). A server may serve its key back as base64 (as
in a `Basic` header, at any of the three alignments base64 gives it, standard or URL-safe, padded or not),
as hex, in upper case, or with zero-width characters between its letters: each reads back as the key, and
each would have been written to the lockfile and the generated code.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from conftest import GOOD_TOOLS, PY, mcpvend, replay, tree, write_config

# `?`, `~` and `>` give base64 its `+` and `/` at every alignment: the URL-safe spelling differs from the standard.
SECRET = "sk-live-???~~~>>>-9f3a"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def b64(text: str, *, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode("ascii")


DISGUISES = {
    "base64": b64(SECRET),
    "base64 of a Basic header's user:key": "Basic " + b64(f"u:{SECRET}"),  # the key 2 bytes into a group
    "base64 url-safe, unpadded, 1 byte in": b64(f"x{SECRET}", urlsafe=True).rstrip("="),
    "hex": SECRET.encode().hex(),
    "HEX": SECRET.encode().hex().upper(),
    "upper case": SECRET.upper(),
    "zero-width characters between its letters": "".join(c + ZERO_WIDTH[i % 5] for i, c in enumerate(SECRET)),
}


def project(root: Path, description: str) -> None:
    """Server `leaky`, given its key as API_TOKEN, serving tool `whoami` described so."""
    tool = {"name": "whoami", "description": description, "inputSchema": {"type": "object"}}
    tools = root / "tools.json"
    tools.write_text(json.dumps({"tools": [tool, *GOOD_TOOLS]}), encoding="utf-8")
    write_config(root, {"leaky": replay(tools, env={"API_TOKEN": "${LEAKY_TOKEN}"})})


@pytest.mark.parametrize("disguise", list(DISGUISES))
def test_lock_refuses_a_secret_served_back_disguised(tmp_path: Path, disguise: str) -> None:
    project(tmp_path, "Says who the server runs as.")
    environment = {"LEAKY_TOKEN": SECRET}
    assert mcpvend("lock", cwd=tmp_path, env=environment).code == 0
    before = tree(tmp_path / "lockfiles")
    project(tmp_path, f"Authenticated as {DISGUISES[disguise]}.")
    run = mcpvend("lock", cwd=tmp_path, env=environment)
    assert (run.code, run.out) == (2, ""), run.err
    assert run.err == (
        "error: server 'leaky': it serves the value of ${LEAKY_TOKEN} back (tool 'whoami', at /description);"
        " not locked, so that the secret is not written (its lockfile is left as it was)\n"
    )
    assert tree(tmp_path / "lockfiles") == before


def test_base64_of_another_value_is_locked(tmp_path: Path) -> None:
    """The rule is the configured key's forms, not base64 as such: a server may carry base64 and hex."""
    other = "sk-live-???~~~>>>-0000"
    project(tmp_path, f"Logo: {b64(other)}; id {other.encode().hex()}.")
    assert mcpvend("lock", cwd=tmp_path, env={"LEAKY_TOKEN": SECRET}).code == 0


@pytest.mark.anyio
@pytest.mark.parametrize("disguise", ["base64 of a Basic header's user:key", "HEX"])
async def test_verbose_serve_logs_no_disguised_secret(tmp_path: Path, disguise: str) -> None:
    """`-v serve --transport http`: the SSE layer logs every chunk it sends; a result that carries the key
    disguised (the replay server answers a call with its arguments) is logged with the key masked."""
    project(tmp_path, "Says who the server runs as.")
    environment = {"LEAKY_TOKEN": SECRET}
    for args in (("lock",), ("generate",)):
        assert mcpvend(*args, cwd=tmp_path, env=environment).code == 0
    command = [PY, "-m", "mcpvend", "-v", "serve", "leaky", "--mode", "direct", "--transport", "http", "--port", "0"]
    proc = subprocess.Popen(
        [*command, "--unmasked-results"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **environment},
    )
    assert proc.stderr is not None
    logged: list[str] = []
    shown = DISGUISES[disguise]
    try:
        while (match := re.search(r" on (http://\S+/mcp)$", line := proc.stderr.readline().rstrip())) is None:
            assert line or proc.poll() is None, "".join(logged)
            logged.append(line)
        async with Client(match[1], mode="legacy") as client:
            result = await client.call_tool("leaky__search", {"q": shown})
            assert not result.is_error and shown in str(result.content)  # unmasked: as the server answered
    finally:
        proc.send_signal(signal.SIGINT)
        logged.append(proc.communicate(timeout=30)[1])
    err = "\n".join(logged)
    assert "sse_starlette.sse: chunk: b'event: message" in err, err[-2000:]  # the layer did log the result
    payload = shown.split()[-1]
    pieces = [payload[i : i + 12] for i in range(len(payload) - 11)]  # a dozen characters in a row would be a leak
    assert not [piece for piece in pieces if piece in err], [line[:200] for line in err.splitlines() if "***" in line]
