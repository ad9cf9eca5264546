"""A server that dies on request, for the runtime's restart, retry, timeout and concurrency tests.

`flaky_read` (annotated read-only) and `flaky_write` (no hints) kill the whole process the
first time they see a marker path that does not exist yet (they create it first), and answer
normally afterwards; `pid` tells which process answered, so a test can see a restart.
`slow_read` (read-only) and `slow_write` (no hints) wait, then return their text, and count as in
flight meanwhile; `die_when_busy` kills the process once (per marker) while at least so many of
each are in flight, so a load test can cut calls of both kinds short without timing anything.
Run it over stdio: `python tests/servers/crashy.py`. With CRASHY_START_DELAY=SECONDS in its
environment it waits that long before it reads its first message (a server slow to start).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from datetime import date
from pathlib import Path

from mcp import MCPError
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer(name="mcpvend-crashy", version="1.0.0")
READ_ONLY = ToolAnnotations(readOnlyHint=True)


@server.tool(annotations=READ_ONLY)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(annotations=READ_ONLY)
async def sleep(seconds: float, text: str = "") -> str:
    """Wait, then return the text."""
    await asyncio.sleep(seconds)
    return text


@server.tool(annotations=READ_ONLY)
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool(annotations=READ_ONLY)
def weekday(day: date) -> str:
    """The day of the week of a date (its schema says `format: date`, which jsonschema does not check)."""
    return day.strftime("%A")


@server.tool(annotations=READ_ONLY)
def refuse() -> str:
    """Answer with a JSON-RPC error (not a tool result) that quotes the server's API_KEY."""
    raise MCPError(code=-32050, message=f"quota exceeded for key {os.environ.get('API_KEY', '')}")


@server.tool(annotations=READ_ONLY)
def always_die() -> str:
    """Read-only, so a lost call is retried: and the retry dies as well."""
    os._exit(1)


def _die_once(marker: str) -> str:
    path = Path(marker)
    if not path.exists():
        path.write_text("died once\n", encoding="utf-8")
        os._exit(1)
    return f"answered by {os.getpid()}"


@server.tool(annotations=READ_ONLY)
def flaky_read(marker: str) -> str:
    """Read something; the process dies the first time it sees `marker`."""
    return _die_once(marker)


@server.tool()
def flaky_write(marker: str) -> str:
    """Write something; the process dies the first time it sees `marker`."""
    return _die_once(marker)


_in_flight: Counter[str] = Counter()  # slow_read / slow_write calls now waiting in this process


async def _slow(kind: str, text: str, seconds: float) -> str:
    _in_flight[kind] += 1
    try:
        await asyncio.sleep(seconds)
    finally:
        _in_flight[kind] -= 1
    return text


@server.tool(annotations=READ_ONLY)
async def slow_read(text: str, seconds: float = 0.0) -> str:
    """Read something: wait, then return the text."""
    return await _slow("read", text, seconds)


@server.tool()
async def slow_write(text: str, seconds: float = 0.0) -> str:
    """Write something: wait, then return the text (not annotated, so a call cut short may have run)."""
    return await _slow("write", text, seconds)


@server.tool(annotations=READ_ONLY)
async def die_when_busy(marker: str, reads: int = 1, writes: int = 1, patience: float = 30.0) -> str:
    """The first time it sees `marker`: wait until `reads` slow_read and `writes` slow_write calls are in
    flight (or `patience` seconds have passed), then the process dies. Afterwards: answer normally."""
    path = Path(marker)
    if not path.exists():
        path.write_text("died once\n", encoding="utf-8")
        deadline = time.monotonic() + patience
        while (_in_flight["read"] < reads or _in_flight["write"] < writes) and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        os._exit(1)
    return f"answered by {os.getpid()}"


if __name__ == "__main__":
    time.sleep(float(os.environ.get("CRASHY_START_DELAY") or 0))
    server.run("stdio")
