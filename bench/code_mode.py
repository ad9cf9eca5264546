"""What code mode costs and saves (issue 16): listing tokens, model turns, and run_code's overhead.

1. Listing tokens, no server: for every server of the LiveMCPBench corpus and for its tools
   pooled, the tokens of the direct listing, the compact one (with get_tool_schema) and code
   mode's `run_code` with every tool's stub (`ToolSet.plan()`: `json.dumps` of the OpenAI specs,
   4 characters a token), per tool and as code / direct. The stubs are the ones `mcpvend
   generate` writes (`mcpvend.codegen.stubs.code_api`). The target: code <= 60 % of direct.
2. A 10-call task as model turns: convert 09:00 along a chain of 10 timezones, each call's
   target the next call's source (so a model must see each result before the next call), on the
   real mcp-server-time. Direct mode takes 10 tool-calling turns, each re-reading the listing
   and the transcript; code mode takes one turn whose snippet loops. Tokens of each turn's input
   (listing + transcript, 4 characters a token) and of what the model writes, summed.
3. Overhead on a warm pool (time server, `get_current_time`): a bare `ts.call`, `run_code` with
   no tool call, with one call and with 10 sequential calls, taking turns for R rounds; medians.
   Per inner call: (10 calls - no call) / 10, against the bare call.

Usage: python bench/code_mode.py [--part tokens|turns|overhead|all] [--rounds R]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))  # the committed generated package: `import generated`

import anyio  # noqa: E402
import generated  # noqa: E402

from conftest import corpus_servers  # noqa: E402
from mcpvend.codegen.stubs import code_api  # noqa: E402
from mcpvend.runtime.core.catalog import Catalog, Entry  # noqa: E402
from mcpvend.runtime.core.specs import CHARS_PER_TOKEN  # noqa: E402
from mcpvend.runtime.toolset import ToolSet  # noqa: E402

TARGET = 0.60
CHAIN = [
    "UTC",
    "Europe/Paris",
    "Asia/Tokyo",
    "America/New_York",
    "Australia/Sydney",
    "Asia/Kolkata",
    "Europe/London",
    "America/Los_Angeles",
    "Africa/Cairo",
    "America/Sao_Paulo",
    "Pacific/Auckland",
]
SNIPPET = (
    "zones = {zones!r}\n"
    "time = '09:00'\n"
    "for source, target in zip(zones, zones[1:]):\n"
    "    converted = await time__convert_time(source_timezone=source, time=time, target_timezone=target)\n"
    "    time = converted['target']['datetime'][11:16]\n"
    "time"
)


def tokens_of(value: Any) -> int:
    return len(json.dumps(value)) // CHARS_PER_TOKEN


def tokens_part() -> None:
    servers = corpus_servers()
    rows = []
    for server, tools in servers.items():
        plan = ToolSet(Catalog([Entry(server, t) for t in tools]), mode="code", stubs=code_api({server: tools})).plan()
        rows.append((server, plan))
    rows.sort(key=lambda row: (-row[1].direct_tokens, row[0]))
    pooled = Catalog([Entry(server, t) for server, tools in servers.items() for t in tools])
    plan = ToolSet(pooled, mode="code", stubs=code_api(servers)).plan()
    width = max(len(s) for s in servers) + 2

    print(f"listing tokens: LiveMCPBench corpus, {len(servers)} servers, {plan.tools} tools pooled")
    print("   (tokens: json.dumps of the OpenAI specs / 4; code: run_code with every tool's stub)")
    print(f"   {'server':<{width}}{'tools':>6}{'direct':>9}{'compact':>9}{'code':>9}   code/direct")
    within = 0
    for server, p in [*rows, ("ALL (pooled)", plan)]:
        code = p.code_tokens or 0
        within += server != "ALL (pooled)" and code <= TARGET * p.direct_tokens
        figures = f"{p.tools:6d}{p.direct_tokens:9d}{p.compact_tokens:9d}{code:9d}"
        print(f"   {server:<{width}}{figures}   {code / p.direct_tokens:11.3f}")
    ratios = [(p.code_tokens or 0) / p.direct_tokens for _, p in rows]
    print(f"\n   servers with code <= {TARGET:.0%} of direct            {within:4d} of {len(rows)}")
    print(f"   median code / direct over servers              {statistics.median(ratios):8.3f}")
    print(f"   pooled code / direct                           {(plan.code_tokens or 0) / plan.direct_tokens:8.3f}")
    print("   pooled tokens per tool: direct / compact / code "
          f"{plan.direct_tokens / plan.tools:6.1f} / {plan.compact_tokens / plan.tools:.1f} / "
          f"{(plan.code_tokens or 0) / plan.tools:.1f}")  # fmt: skip


async def turns_part() -> None:
    async with generated.toolset(["time"], mode="direct") as direct:
        listing = direct.tool_specs("openai")
        transcript: list[Any] = [{"role": "user", "content": f"Convert 09:00 along {CHAIN}, hop by hop."}]
        read = written = 0
        time_of_day = "09:00"
        for source, target in itertools.pairwise(CHAIN):
            read += tokens_of(listing) + tokens_of(transcript)
            arguments = {"source_timezone": source, "time": time_of_day, "target_timezone": target}
            call = {"role": "assistant", "tool_calls": [{"name": "time__convert_time", "arguments": arguments}]}
            written += tokens_of(call)
            result = await direct.call("time__convert_time", arguments)
            transcript += [call, {"role": "tool", "content": result.text}]
            time_of_day = result.structured["target"]["datetime"][11:16]
    async with generated.toolset(["time"], mode="code") as code:
        listing = code.tool_specs("openai")
        snippet = SNIPPET.format(zones=CHAIN)
        call = {"role": "assistant", "tool_calls": [{"name": "run_code", "arguments": {"code": snippet}}]}
        code_read = tokens_of(listing) + tokens_of(transcript[:1])
        result = await code.call("run_code", {"code": snippet})
        assert not result.is_error and result.text == time_of_day, (result.text, time_of_day)
    # Both end with the model reading the answer: the transcript so far, once more.
    read += tokens_of(listing) + tokens_of(transcript)
    code_read += tokens_of(listing) + tokens_of([*transcript[:1], call, {"role": "tool", "content": result.text}])
    print(f"\na 10-call task (a chain of {len(CHAIN) - 1} dependent conversions, real mcp-server-time)")
    print(f"   {'mode':<8}{'turns':>6}{'read':>8}{'written':>9}{'total':>8}   (tokens)")
    print(f"   {'direct':<8}{len(CHAIN) - 1:6d}{read:8d}{written:9d}{read + written:8d}")
    print(f"   {'code':<8}{1:6d}{code_read:8d}{tokens_of(call):9d}{code_read + tokens_of(call):8d}")
    print("   (turns: tool-calling turns; read adds the last turn, where the model reads the answer; both agree)")


async def overhead_part(rounds: int) -> None:
    bare_args = {"timezone": "UTC"}
    one = "(await time__get_current_time(timezone='UTC'))['timezone']"
    ten = "for i in range(10):\n    now = await time__get_current_time(timezone='UTC')\nnow['timezone']"
    async with generated.toolset(["time"], mode="code") as ts:
        paths: dict[str, Callable[[], Awaitable[Any]]] = {
            "bare ts.call": lambda: ts.call("time__get_current_time", bare_args),
            "run_code, no call": lambda: ts.call("run_code", {"code": "1 + 1"}),
            "run_code, 1 call": lambda: ts.call("run_code", {"code": one}),
            "run_code, 10 calls": lambda: ts.call("run_code", {"code": ten}),
        }
        times: dict[str, list[float]] = {name: [] for name in paths}
        for _ in range(5):  # warm-up: the servers, the sandbox's worker
            for path in paths.values():
                await path()
        for _ in range(rounds):
            for name, path in paths.items():
                start = time.perf_counter()
                result = await path()
                times[name].append(time.perf_counter() - start)
                assert not result.is_error, result.text
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    bare = median["bare ts.call"]
    print(f"\nrun_code overhead on a warm pool: time server, get_current_time, {rounds} rounds (medians)")
    for name, value in median.items():
        print(f"   {name:<22}{value:9.2f} ms   {value / bare:6.2f}x bare")
    inner = (median["run_code, 10 calls"] - median["run_code, no call"]) / 10
    print(f"   per inner call         {inner:9.2f} ms   {inner / bare:6.2f}x bare   ((10 calls - no call) / 10)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("tokens", "turns", "overhead", "all"), default="all")
    parser.add_argument("--rounds", type=int, default=30)
    options = parser.parse_args()
    if options.part in ("tokens", "all"):
        tokens_part()
    if options.part in ("turns", "all"):
        anyio.run(turns_part)
    if options.part in ("overhead", "all"):
        anyio.run(overhead_part, options.rounds)


if __name__ == "__main__":
    main()
