"""What the mcpvend runtime costs per call, and how many prompt tokens each ToolSet mode takes.

1. Call overhead. One process, one event loop, one server process per path, all open at once:
   a raw `mcp.ClientSession.call_tool` (session opened by hand, tools listed once so the SDK's
   output-schema cache is warm as in the other paths), the generated typed wrapper
   (`generated.<server>.connect(pinning="off")`), and `generated.toolset([server], mode=m).call`
   for m = direct, compact, routed (through the `call_tool` meta-tool, and by the tool's own
   name), and direct again with an audit trail (`audit=AuditOptions(...)`, a temporary directory). After 20
   warm-up calls per path, the paths take turns in rounds (same order each round) until each
   has made N sequential calls; every result is checked to be a success.
   Reported per path: median and p90 of the per-call wall times, the median's ratio to the raw
   median, and the median in-process cost of the same dispatch over a canned result (no I/O:
   the wrapper's or the ToolSet's validation and normalization, without the SDK's session).
   `mcp.Client.call_tool` (the SDK's high-level client, which the typed wrapper and the
   ToolSet use) is timed too, so that the SDK's share of the overhead can be told from ours.
   Servers: the in-repo demo server (`convert_temperature`) and mcp-server-time
   (`get_current_time`, which has an outputSchema, so structured results are validated).
2. Tokens of each mode, no server: for every server of the LiveMCPBench corpus and for its 527
   tools pooled, `ToolSet.plan()`'s direct, compact and routed token estimates (`json.dumps`
   of the OpenAI form, 4 characters a token) and the mode auto picks at 128k; for the pool,
   the mode auto picks at several context windows and the size of the direct specs per format.

Usage: python bench/runtime.py [--part calls|tokens|all] [--calls N] [--rounds R]
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))  # the committed generated package: `import generated`

# conftest also puts this interpreter's directory first on PATH: the locked configs say `python`.
import anyio  # noqa: E402
import generated  # noqa: E402
import generated.demo  # noqa: E402
import generated.time  # noqa: E402
from generated._runtime.client.pool import Pool as PackagePool  # noqa: E402
from generated._runtime.core.results import ModelResult as PackageResult  # noqa: E402
from generated._runtime.toolset import ToolSet as PackageToolSet  # noqa: E402
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types  # noqa: E402

from conftest import corpus_servers  # noqa: E402
from mcpvend.runtime.core.budget import Budget, RequestedMode  # noqa: E402
from mcpvend.runtime.core.catalog import Catalog, Entry  # noqa: E402
from mcpvend.runtime.core.specs import FORMATS, full_spec, tokens  # noqa: E402
from mcpvend.runtime.toolset import ToolSet  # noqa: E402

WARMUP = 20
MODES: tuple[RequestedMode, ...] = ("direct", "compact", "routed")
WINDOWS = (8_000, 32_000, 128_000, 200_000)

Call = Callable[[], Awaitable[object]]


async def typed_demo(tools: generated.demo.Tools) -> object:
    return await tools.convert_temperature(value=21.5, to="fahrenheit")


async def typed_time(tools: generated.time.Tools) -> object:
    return await tools.get_current_time(timezone="Europe/Paris")


@dataclass(frozen=True)
class Case:
    """One server and the tool call every path makes to it."""

    server: str  # the server's name in `generated` (and its subpackage)
    args: tuple[str, ...]  # the server command after the Python interpreter
    tool: str
    arguments: dict[str, Any]
    connect: Callable[..., AbstractAsyncContextManager[Any]]  # generated.<server>.connect
    tools_class: Callable[[Any], Any]  # generated.<server>.Tools, to wrap a canned session
    typed: Callable[[Any], Awaitable[object]]  # the same call through the typed wrapper


CASES = (
    Case(
        "demo",
        (str(REPO / "tests" / "servers" / "demo.py"),),
        "convert_temperature",
        {"value": 21.5, "to": "fahrenheit"},
        generated.demo.connect,
        generated.demo.Tools,
        typed_demo,
    ),
    Case(
        "time",
        ("-m", "mcp_server_time", "--local-timezone", "UTC"),
        "get_current_time",
        {"timezone": "Europe/Paris"},
        generated.time.connect,
        generated.time.Tools,
        typed_time,
    ),
)


@dataclass
class CallPath:
    """One way of making the call, with the per-call times (µs) it took."""

    label: str
    call: Call
    local: Call | None = None  # the same dispatch over a canned result, if it has one
    times: list[float] = field(default_factory=list)
    local_times: list[float] = field(default_factory=list)
    answer: str = ""


class CannedPool(PackagePool):
    """A pool whose every call returns the same result at once: ToolSet dispatch without I/O."""

    def __init__(self, result: types.CallToolResult) -> None:
        super().__init__({})
        self.result = result

    async def call(
        self,
        server: str,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        label: str,
        retry_safe: bool,
        on_retry: Callable[[], None] | None = None,
    ) -> types.CallToolResult:
        return self.result


class CannedSession:
    """A session whose every `tools/call` returns the same result at once: the typed wrapper without I/O."""

    def __init__(self, result: types.CallToolResult) -> None:
        self.result = result

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, read_timeout_seconds: float | None = None
    ) -> types.CallToolResult:
        return self.result

    async def send_request(
        self,
        request: object,
        result_type: object,
        request_read_timeout_seconds: float | None = None,
        progress_callback: object = None,
    ) -> types.CallToolResult:
        return self.result  # the typed wrapper sends `tools/call` through the session's request API


def answer(label: str, result: object) -> str:
    """The text of a successful result; exits if the call failed (a benchmark of errors is worthless)."""
    if isinstance(result, PackageResult):
        text, failed = result.text, result.is_error
    elif isinstance(result, types.CallToolResult):
        text = " ".join(b.text for b in result.content if isinstance(b, types.TextContent))
        failed = bool(result.is_error)
    else:  # the typed wrapper returns its output model, and raises on an error
        text, failed = repr(result), False
    if failed:
        sys.exit(f"{label}: the call failed: {text}")
    return text


def dispatch(toolset: PackageToolSet, name: str, arguments: Mapping[str, Any]) -> Call:
    return lambda: toolset.call(name, arguments)


async def run(call: Call, label: str, count: int, times: list[float] | None) -> object:
    """`count` sequential calls, each timed into `times` (µs) and checked; returns the last result."""
    result: object = None
    for _ in range(count):
        start = time.perf_counter_ns()
        result = await call()
        elapsed = (time.perf_counter_ns() - start) / 1000
        if times is not None:
            times.append(elapsed)
        answer(label, result)  # outside the timed region
    return result


async def open_paths(stack: AsyncExitStack, case: Case) -> tuple[list[CallPath], str]:
    """Start one server per path (the ToolSets start theirs on the first call); also the protocols negotiated."""
    cwd = str(REPO)
    params = StdioServerParameters(command=sys.executable, args=list(case.args), cwd=cwd)
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write))
    initialized = await session.initialize()
    await session.list_tools()  # warms the SDK's output-schema cache, as the other paths do
    canned = await session.call_tool(case.tool, case.arguments)
    if not isinstance(canned, types.CallToolResult):
        sys.exit(f"raw call: unexpected result {type(canned).__name__}")
    answer("raw ClientSession.call_tool", canned)

    client = await stack.enter_async_context(Client(params, cache=None))
    await client.list_tools()
    tools = await stack.enter_async_context(case.connect(cwd=cwd, pinning="off"))
    offline = case.tools_class(CannedSession(canned))
    protocols = [
        ("ClientSession", initialized.protocol_version),
        ("mcp.Client", client.protocol_version),
        ("typed wrapper", getattr(tools._session, "protocol_version", "?")),
    ]
    paths = [
        CallPath("raw ClientSession.call_tool", lambda: session.call_tool(case.tool, case.arguments)),
        CallPath("raw mcp.Client.call_tool", lambda: client.call_tool(case.tool, case.arguments)),
        CallPath("typed wrapper", lambda: case.typed(tools), lambda: case.typed(offline)),
    ]
    provider = f"{case.server}__{case.tool}"
    routed = {"name": provider, "arguments": case.arguments}
    audit = stack.enter_context(tempfile.TemporaryDirectory())
    ways: list[tuple[str, RequestedMode, str, Mapping[str, Any], str | None]] = [
        ("ToolSet direct", "direct", provider, case.arguments, None),
        ("ToolSet compact", "compact", provider, case.arguments, None),
        ("ToolSet routed, call_tool", "routed", "call_tool", routed, None),
        ("ToolSet routed, by name", "routed", provider, case.arguments, None),
        ("ToolSet direct, audit trail", "direct", provider, case.arguments, audit),
    ]
    for label, mode, name, arguments, audit_dir in ways:
        connection = generated.ConnectionOptions(pinning="off", cwd=cwd)
        audit_options = None if audit_dir is None else generated.AuditOptions(Path(audit_dir))
        toolset = generated.toolset([case.server], mode=mode, connection=connection, audit=audit_options)
        await stack.enter_async_context(toolset)
        if toolset.mode != mode:
            sys.exit(f"{label}: asked for mode {mode}, the toolset runs in {toolset.mode}")
        trail = None if audit_dir is None else generated.AuditOptions(Path(audit_dir) / "canned")
        local = PackageToolSet(toolset.catalog, pool=CannedPool(canned), mode=mode, audit=trail)
        paths.append(CallPath(label, dispatch(toolset, name, arguments), dispatch(local, name, arguments)))
    return paths, ", ".join(f"{who} {version}" for who, version in protocols)


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[8]


async def call_overhead(case: Case, calls: int, rounds: int) -> None:
    async with AsyncExitStack() as stack:
        paths, protocols = await open_paths(stack, case)
        for path in paths:
            path.answer = answer(path.label, await path.call())
            await run(path.call, path.label, WARMUP - 1, None)
            if path.local is not None:
                answer(f"{path.label} (canned)", await path.local())
        shares = [calls // rounds + (i < calls % rounds) for i in range(rounds)]
        for share in shares:
            for path in paths:
                await run(path.call, path.label, share, path.times)
        for path in paths:
            if path.local is not None:
                await run(path.local, path.label, WARMUP, None)
                await run(path.local, path.label, calls, path.local_times)

    raw = statistics.median(paths[0].times)
    print(
        f"\ncall overhead: server {case.server}, tool {case.tool}, {calls} calls per path in {rounds} rounds "
        f"(median of per-call times)"
    )
    print(f"   {'path':<30}{'median µs':>11}{'p90 µs':>11}{'vs raw':>9}{'in-process µs':>15}")
    for path in paths:
        median = statistics.median(path.times)
        local = f"{statistics.median(path.local_times):15.1f}" if path.local_times else f"{'-':>15}"
        print(f"   {path.label:<30}{median:11.1f}{p90(path.times):11.1f}{median / raw:8.2f}x{local}")
    print(f"   protocol version negotiated: {protocols}")
    print("   answers (first call of each path):")
    for path in paths:
        print(f"      {path.label:<30}{' '.join(path.answer.split())[:80]}")


async def calls_part(calls: int, rounds: int) -> None:
    for case in CASES:
        await call_overhead(case, calls, rounds)


def tokens_part() -> None:
    servers = corpus_servers()
    budget = Budget(context_window=128_000)
    rows = []
    for server, tools in servers.items():
        plan = ToolSet(Catalog([Entry(server, t) for t in tools]), mode="auto", budget=budget).plan()
        rows.append((server, plan))
    rows.sort(key=lambda row: (-row[1].direct_tokens, row[0]))
    pooled = Catalog([Entry(server, t) for server, tools in servers.items() for t in tools])
    pool = ToolSet(pooled, mode="auto", budget=budget)
    plan = pool.plan()
    width = max(len(s) for s in servers) + 2

    print(f"\ntokens of each mode: LiveMCPBench corpus, {len(servers)} servers, {plan.tools} tools pooled")
    print("   (tokens: json.dumps of the OpenAI specs / 4; routed: the meta-tools, before any tool is materialized)")
    print(f"   {'server':<{width}}{'tools':>6}{'direct':>9}{'compact':>9}{'routed':>8}   auto @128k")
    for server, p in [*rows, ("ALL (pooled)", plan)]:
        figures = f"{p.tools:6d}{p.direct_tokens:9d}{p.compact_tokens:9d}{p.routed_tokens:8d}"
        print(f"   {server:<{width}}{figures}   {p.mode}")

    per_tool = [tokens([full_spec(e)]) for e in pooled.entries]
    print(f"\n   median direct tokens per tool ({len(per_tool)} tools)   {statistics.median(per_tool):8.1f}")
    print(f"   pooled compact / direct                      {plan.compact_tokens / plan.direct_tokens:8.3f}")
    print(f"   pooled routed / direct                       {plan.routed_tokens / plan.direct_tokens:8.4f}")
    print(f"   pooled compact tokens per tool               {plan.compact_tokens / plan.tools:8.1f}   (auto counts it)")
    print("\n   mode auto picks for the pooled tools, by context window")
    print(f"   {'window':>9}{'budget':>9}   mode")
    for window in WINDOWS:
        chosen = ToolSet(pooled, mode="auto", budget=Budget(context_window=window)).plan()
        print(f"   {window:9d}{chosen.budget.tokens:9d}   {chosen.mode}: {chosen.reason}")
    direct = ToolSet(pooled, mode="direct")
    print("\n   pooled direct specs per format, len(json.dumps(tool_specs(format)))")
    for fmt in FORMATS:
        print(f"   {fmt:<10}{len(json.dumps(direct.tool_specs(fmt))):10d} chars")


def build_part(count: int = 200) -> None:
    """`generated.toolset()` over the four golden servers: nothing is started, so this is all catalog,
    plan and stubs; "stubs read each time" clears the per-process cache of parsed stubs.pyi first."""
    from generated._runtime.code.api import read_stubs

    def median_ms(before: Callable[[], object]) -> float:
        times = []
        for _ in range(count):
            before()
            start = time.perf_counter()
            generated.toolset()
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    generated.toolset()  # imports done
    fresh = median_ms(read_stubs.cache_clear)
    cached = median_ms(lambda: None)
    print(f"\ntoolset() construction: 4 golden servers, {count} times each (median)")
    print(f"   stubs read each time      {fresh:7.2f} ms")
    print(f"   stubs read once           {cached:7.2f} ms   {fresh / cached:.2f}x faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("calls", "tokens", "build", "all"), default="all")
    parser.add_argument("--calls", type=int, default=200, help="timed calls per path and server")
    parser.add_argument("--rounds", type=int, default=20, help="the paths take turns this many times")
    args = parser.parse_args()
    if args.calls < 10 or not 1 <= args.rounds <= args.calls:
        parser.error("--calls must be at least 10 and --rounds between 1 and --calls")
    print(
        f"mcpvend runtime benchmark: python {sys.version.split()[0]}, mcp {importlib.metadata.version('mcp')}, "
        f"{os.cpu_count()} CPUs"
    )
    if args.part in ("calls", "all"):
        anyio.run(calls_part, args.calls, args.rounds)
    if args.part in ("tokens", "all"):
        tokens_part()
    if args.part in ("build", "all"):
        build_part()


if __name__ == "__main__":
    main()
