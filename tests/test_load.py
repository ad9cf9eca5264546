"""The ToolSet under load against a real stdio server: 1,000 calls, 50 at a time, none lost,
none crossed, memory flat; and the same load while the server dies, which the pool survives.

No assertion here depends on how fast the machine is; `python bench/load.py` prints the figures.
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

pytestmark = pytest.mark.anyio

CALLS = 1_000
CONCURRENCY = 50
WARMUP = 200
PAYLOAD = 16 * 1024  # characters of padding per echo: a retained result is big enough to see in RSS
# RSS may grow this much between the warm-up and the end (allocator arenas, caches filling up).
# Keeping one copy of every result's text alone would add (CALLS - WARMUP) x PAYLOAD = 12.5 MiB;
# the SDK's message, our CallToolResult and the JSON line each hold another copy.
RSS_GROWTH_BOUND = 6 * 2**20
HANG_GUARD = 300  # seconds: only so that a lost call fails the test instead of hanging it


def rss() -> int:
    """This process's resident set size now, in bytes (unlike ru_maxrss, it can go down)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Sent:
    tool: str
    arguments: dict[str, Any]
    expected: str  # the text a successful result must hold: this call's own token


@dataclass(frozen=True)
class Got:
    """What a call got back, kept small: the text only when it is not the expected one."""

    tool: str
    is_error: bool
    unexpected: str | None


async def run_calls(ts: Any, first: int, count: int, make: Callable[[int], Sent], concurrency: int) -> dict[int, Got]:
    """Calls `first` .. `first + count - 1`, `concurrency` in flight: each worker makes and sends the
    next call when its last one returns, and checks the result at once (so the test holds no results)."""
    got: dict[int, Got] = {}
    taken = iter(range(first, first + count))

    async def worker() -> None:
        for i in taken:
            sent = make(i)
            result = await ts.call(f"crashy__{sent.tool}", sent.arguments)
            got[i] = Got(sent.tool, result.is_error, None if result.text == sent.expected else result.text)

    async with anyio.create_task_group() as group:
        for _ in range(concurrency):
            group.start_soon(worker)
    return got


RUN = uuid.uuid4().hex


def echo(i: int) -> Sent:
    """Call #i: an echo of a text no other call sends (its number and this run's id), padded."""
    text = f"call-{i}-{RUN}:" + "x" * PAYLOAD
    return Sent("echo", {"text": text}, text)


async def test_a_thousand_calls_fifty_at_a_time_none_lost_none_crossed_memory_flat(crashy: ModuleType) -> None:
    assert RSS_GROWTH_BOUND < (CALLS - WARMUP) * PAYLOAD / 2  # a leak of one result's text per call would show
    with anyio.fail_after(HANG_GUARD):
        async with crashy.toolset(["crashy"], mode="direct") as ts:
            got = await run_calls(ts, 0, WARMUP, echo, CONCURRENCY)
            gc.collect()
            before = rss()
            got.update(await run_calls(ts, WARMUP, CALLS - WARMUP, echo, CONCURRENCY))
            gc.collect()
            after = rss()
            assert ts.pool is not None
            restarts = ts.pool.connections["crashy"].restarts
    assert sorted(got) == list(range(CALLS))  # none lost
    wrong = [(i, g.is_error, (g.unexpected or "")[:200]) for i, g in got.items() if g.is_error or g.unexpected]
    assert wrong == [], f"{len(wrong)} calls failed or got another call's result"
    assert restarts == 0
    print(f"\nRSS after {WARMUP} warm-up calls {before / 2**20:.1f} MiB, after {CALLS}: {after / 2**20:.1f} MiB")
    assert after - before < RSS_GROWTH_BOUND, f"RSS grew {(after - before) / 2**20:.1f} MiB over {CALLS - WARMUP} calls"


async def test_the_server_dies_under_load_and_every_call_completes(crashy: ModuleType, tmp_path: Path) -> None:
    """Call #500 kills the server while at least 5 read-only and 5 not-annotated calls are in flight in it.

    The read-only calls cut short are sent again and get their own answer; the others get the
    "may have run" error; none is lost, none hangs, none gets another's answer.
    """
    killer = CALLS // 2

    def make(i: int) -> Sent:
        if i == killer:
            return Sent("die_when_busy", {"marker": str(tmp_path / "died"), "reads": 5, "writes": 5}, "")
        token = f"call-{i}-{RUN}"
        return Sent("slow_read" if i % 2 else "slow_write", {"text": token, "seconds": 0.02}, token)

    async with crashy.toolset(["crashy"], mode="direct") as ts:
        assert ts.pool is not None
        connection = ts.pool.connections["crashy"]
        first_pid = int((await ts.call("crashy__pid", {})).text)
        attempt = connection.call
        cut_short: dict[str, int] = {"slow_read": 0, "slow_write": 0, "die_when_busy": 0}

        async def counting(
            tool: str, arguments: Any, label: str
        ) -> Any:  # observes the pool's attempts; changes nothing
            result = await attempt(tool, arguments, label)
            if result is None:
                cut_short[tool] += 1
            return result

        connection.call = counting
        with anyio.fail_after(HANG_GUARD):
            got = await run_calls(ts, 0, CALLS, make, CONCURRENCY)
        restarts = connection.restarts
        second_pid = int((await ts.call("crashy__pid", {})).text)

    assert (tmp_path / "died").exists() and restarts == 1 and second_pid != first_pid
    assert sorted(got) == list(range(CALLS))  # none lost
    killed = got.pop(killer)
    assert not killed.is_error and killed.unexpected == f"answered by {second_pid}"  # read-only: sent again

    may_have_run = (
        "server 'crashy' stopped during the call and was restarted; the call was not repeated because "
        "'crashy__slow_write' is not annotated read-only or idempotent (it may have run)"
    )
    write_errors = sum(1 for g in got.values() if g.tool == "slow_write" and g.unexpected == may_have_run)
    wrong = [
        (i, g.tool, (g.unexpected or "")[:200])
        for i, g in got.items()
        if (g.is_error or g.unexpected) and not (g.tool == "slow_write" and g.unexpected == may_have_run)
    ]
    assert wrong == []  # read-only calls: their own answer; the others: their own answer or "may have run"
    assert all(g.is_error for g in got.values() if g.unexpected == may_have_run)
    assert cut_short["die_when_busy"] == 1
    assert cut_short["slow_read"] >= 5  # at least 5 were waiting in the server when it died: all sent again
    assert cut_short["slow_write"] >= 5 and write_errors == cut_short["slow_write"]
    print(
        f"\nserver killed at call #{killer}: {cut_short['slow_read']} read-only calls cut short and sent again, "
        f"{write_errors} not-annotated calls cut short and reported as 'may have run'; restarts {restarts}"
    )
