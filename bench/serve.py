"""`mcpvend serve --transport http` as a shared proxy, against the same kind of server served directly.

The direct side is tests/servers/asks_name.py served over streamable HTTP by the SDK itself; the
proxied side is `mcpvend serve` over HTTP in front of that server (started over stdio). The same SDK
client calls the same cheap tool (`era`) on both, interleaved per round so that machine noise hits
both alike. Prints the median latency at concurrency 1, the throughput at concurrency 10, and the
ratios serve/direct (the targets: p50 <= 2.5x, throughput >= 0.6x). Then 10,000 calls through serve
at concurrency 10: how many came back wrong or not at all (the target: 0), and serve's resident memory
before and after them (the target: flat).

Usage: python bench/serve.py [--calls N] [--soak N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp import Client

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "tests" / "servers" / "asks_name.py"
PY = sys.executable


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(port: int) -> None:
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on port {port}")


@contextmanager
def direct() -> Iterator[str]:
    port = _free_port()
    quiet = subprocess.DEVNULL
    proc = subprocess.Popen([PY, str(SERVER), "--http", str(port)], stdout=quiet, stderr=quiet)
    try:
        _wait(port)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait()


@contextmanager
def served(root: Path) -> Iterator[tuple[str, int]]:
    (root / "mcpvend.toml").write_text(json_toml(), encoding="utf-8")
    for args in (["lock"], ["generate"]):
        subprocess.run([PY, "-m", "mcpvend", *args], cwd=root, check=True, capture_output=True)
    command = [PY, "-m", "mcpvend", "serve", "--mode", "direct", "--transport", "http", "--port", "0", "--warm"]
    proc = subprocess.Popen(command, cwd=root, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        while (match := re.search(r" on (http://\S+)$", proc.stderr.readline().strip())) is None:
            if proc.poll() is not None:
                raise SystemExit("serve did not start")
        yield match[1], proc.pid
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait()


def json_toml() -> str:
    return f"[servers.asks]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(SERVER))}]\n"


async def latencies(url: str, tool: str, calls: int) -> list[float]:
    async with Client(url) as client:
        await client.call_tool(tool, {})  # warm
        took = []
        for _ in range(calls):
            start = time.perf_counter()
            await client.call_tool(tool, {})
            took.append(time.perf_counter() - start)
        return took


async def throughput(url: str, tool: str, calls: int, clients: int = 10) -> float:
    async def one() -> None:
        async with Client(url) as client:
            for _ in range(calls // clients):
                await client.call_tool(tool, {})

    start = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(clients)))
    return calls / (time.perf_counter() - start)


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


async def soak(url: str, calls: int, clients: int = 10) -> int:
    """`calls` calls, each with its own argument; the number that failed or came back with another's answer."""
    wrong = 0

    async def one(first: int) -> None:
        nonlocal wrong
        async with Client(url) as client:
            for i in range(first, calls, clients):
                result = await client.call_tool("asks__forecast", {"region": f"r{i}"})
                got = [block.text for block in result.content if block.type == "text"]
                wrong += result.is_error or got != [f"sunny in r{i}"]

    await asyncio.gather(*(one(first) for first in range(clients)))
    return wrong


async def measure(calls: int, soaked: int) -> None:
    with tempfile.TemporaryDirectory() as root, direct() as plain, served(Path(root)) as (proxy, pid):
        sides = {"direct": (plain, "era"), "serve": (proxy, "asks__era")}
        p50: dict[str, list[float]] = {name: [] for name in sides}
        rate: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(3):
            for name, (url, tool) in sides.items():
                p50[name].append(statistics.median(await latencies(url, tool, calls)))
                rate[name].append(await throughput(url, tool, calls))
        before = rss_mib(pid)
        wrong = await soak(proxy, soaked)
        after = rss_mib(pid)
    p50_ms = {name: statistics.median(values) * 1000 for name, values in p50.items()}
    per_s = {name: statistics.median(values) for name, values in rate.items()}
    print(f"{'side':<8} {'p50 ms (c=1)':>14} {'calls/s (c=10)':>15}")
    for name in sides:
        print(f"{name:<8} {p50_ms[name]:>14.2f} {per_s[name]:>15.1f}")
    print(f"ratio serve/direct: p50 {p50_ms['serve'] / p50_ms['direct']:.2f}x (target <= 2.5x), "
          f"throughput {per_s['serve'] / per_s['direct']:.2f}x (target >= 0.6x)")  # fmt: skip
    print(f"{soaked:,} calls through serve at concurrency 10: {wrong} lost or wrong; "
          f"serve's RSS {before:.1f} MiB before, {after:.1f} MiB after ({after - before:+.1f} MiB)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--soak", type=int, default=10_000)
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    args = parser.parse_args()
    asyncio.run(measure(args.calls, args.soak))


if __name__ == "__main__":
    main()
