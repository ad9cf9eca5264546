"""The ToolSet under load: many calls, many at a time, against a real stdio server (tests/servers/crashy.py).

crashy.py is locked and generated into a temporary package first (as tests/test_load.py does).
Each run opens a fresh `toolset(["crashy"], mode="direct")`, starts the server with one call
(not timed), then sends CALLS calls with CONCURRENCY in flight (each worker sends the next call
when its last one returns) and checks every result against the unique token its call sent.

1. steady: `echo` of a unique token padded to --payload characters. RSS (this process's
   current resident set, /proc/self/statm) is read after the first WARMUP calls and after all
   of them, each after a gc.collect(); their difference is what the test bounds.
2. crash: `slow_read` (read-only) and `slow_write` (not annotated) alternately, each waiting
   --seconds in the server; call #CALLS/2 is `die_when_busy`, which kills the server once at
   least 5 of each are in flight in it. Read-only calls cut short are sent again after the
   restart; the others get the "may have run" error.

Per scenario: wall time of the CALLS calls, calls/s, p50/p95/p99 latency of one `ts.call`, RSS
before (steady: after the warm-up; crash: before the first call) and after, restarts, error
results, wrong results (another call's answer: must be 0); medians over --runs runs (each
run's figures are printed too).

Usage: python bench/load.py [--calls N] [--concurrency C] [--runs R] [--payload CHARS] [--seconds S]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
CRASHY = REPO / "tests" / "servers" / "crashy.py"
WARMUP = 200


@dataclass(frozen=True)
class Figures:
    wall: float
    latencies: list[float]
    rss_before: int
    rss_after: int
    restarts: int
    errors: int
    wrong: int

    def row(self, calls: int) -> list[str]:
        p = statistics.quantiles(self.latencies, n=100, method="inclusive")
        return [
            f"{self.wall:.2f}",
            f"{calls / self.wall:.0f}",
            f"{p[49] * 1e3:.1f}",
            f"{p[94] * 1e3:.1f}",
            f"{p[98] * 1e3:.1f}",
            f"{self.rss_before / 2**20:.1f}",
            f"{self.rss_after / 2**20:.1f}",
            str(self.restarts),
            str(self.errors),
            str(self.wrong),
        ]


HEADER = ["wall s", "calls/s", "p50 ms", "p95 ms", "p99 ms", "RSS before MiB", "RSS after MiB", "restarts"]
HEADER += ["errors", "wrong"]


def rss() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def package(root: Path) -> ModuleType:
    """crashy.py locked and generated into `root/loadbench`, imported."""
    config = f"[servers.crashy]\ncommand = {json.dumps(PY)}\nargs = [{json.dumps(str(CRASHY))}]\n"
    (root / "mcpvend.toml").write_text(config, encoding="utf-8")
    for args in (("lock",), ("--output", "loadbench", "generate")):
        subprocess.run([PY, "-m", "mcpvend", *args], cwd=root, check=True, capture_output=True)
    sys.path.insert(0, str(root))
    return importlib.import_module("loadbench")


Call = tuple[str, dict[str, Any], str | None]  # tool, arguments, expected text (None: not checked)


async def load(
    pkg: ModuleType, calls: int, concurrency: int, make: Callable[[int], Call], check_rss: bool
) -> tuple[Figures, dict[str, int]]:
    latencies: list[float] = [0.0] * calls
    errors: list[str] = []
    wrong = 0
    cut_short: dict[str, int] = {}
    async with pkg.toolset(["crashy"], mode="direct") as ts:
        connection = ts.pool.connections["crashy"]
        await ts.call("crashy__pid", {})  # start the server outside the timing
        attempt = connection.call

        async def counting(tool: str, arguments: Any, label: str) -> Any:  # Connection.call's own signature
            result = await attempt(tool, arguments, label)
            if result is None:
                cut_short[tool] = cut_short.get(tool, 0) + 1
            return result

        connection.call = counting

        async def worker(taken: Iterator[int]) -> None:
            nonlocal wrong
            for i in taken:
                tool, arguments, expected = make(i)
                start = time.perf_counter()
                result = await ts.call(f"crashy__{tool}", arguments)
                latencies[i] = time.perf_counter() - start
                if result.is_error:
                    errors.append(result.text)
                elif expected is not None and result.text != expected:
                    wrong += 1

        gc.collect()
        rss_before = rss()
        start = time.perf_counter()
        first = 0
        if check_rss:  # the warm-up calls, then RSS (its reading is in the wall time: it takes microseconds)
            warmup = iter(range(WARMUP))
            async with anyio.create_task_group() as group:
                for _ in range(concurrency):
                    group.start_soon(worker, warmup)
            gc.collect()
            rss_before = rss()
            first = WARMUP
        rest = iter(range(first, calls))
        async with anyio.create_task_group() as group:
            for _ in range(concurrency):
                group.start_soon(worker, rest)
        wall = time.perf_counter() - start
        gc.collect()
        rss_after = rss()
        restarts = connection.restarts
    unexpected = [e for e in errors if "(it may have run)" not in e]
    if unexpected:
        raise SystemExit(f"unexpected error results, e.g. {unexpected[0]!r}")
    return Figures(wall, latencies, rss_before, rss_after, restarts, len(errors), wrong), cut_short


def median_row(runs: list[Figures], calls: int) -> list[str]:
    rows = [f.row(calls) for f in runs]
    return [f"{statistics.median(float(r[k]) for r in rows):g}" for k in range(len(HEADER))]


def table(rows: list[tuple[str, list[str]]]) -> None:
    widths = [max(len(h), *(len(r[k]) for _, r in rows)) for k, h in enumerate(HEADER)]
    print(f"   {'':<16}" + "  ".join(h.rjust(w) for h, w in zip(HEADER, widths, strict=True)))
    for label, row in rows:
        print(f"   {label:<16}" + "  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--payload", type=int, default=16 * 1024, help="padding characters per echo (steady)")
    parser.add_argument("--seconds", type=float, default=0.02, help="server-side wait per call (crash)")
    options = parser.parse_args()
    calls, concurrency = options.calls, options.concurrency
    if calls <= WARMUP:
        parser.error(f"--calls must be more than the {WARMUP} warm-up calls")
    run_id = uuid.uuid4().hex

    def echo(i: int) -> Call:
        text = f"call-{i}-{run_id}:" + "x" * options.payload
        return "echo", {"text": text}, text

    print(
        f"mcpvend ToolSet load benchmark: {calls} calls, {concurrency} concurrent, {options.runs} runs (medians);"
        f" python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory() as tmp:
        pkg = package(Path(tmp))

        print(f"\n1. steady: echo, {options.payload} characters of padding; RSS after {WARMUP} calls and after all")
        steady = [anyio.run(load, pkg, calls, concurrency, echo, True)[0] for _ in range(options.runs)]
        table([(f"run {k + 1}", f.row(calls)) for k, f in enumerate(steady)] + [("median", median_row(steady, calls))])
        growth = statistics.median(f.rss_after - f.rss_before for f in steady)
        print(f"   RSS growth over the last {calls - WARMUP} calls (median): {growth / 2**20:+.2f} MiB")

        print(
            f"\n2. crash: slow_read / slow_write ({options.seconds:g} s each) alternately;"
            f" call #{calls // 2} kills the server while >= 5 of each are in flight"
        )
        crash: list[Figures] = []
        cut: list[dict[str, int]] = []
        for _ in range(options.runs):
            marker = Path(tmp) / f"died-{uuid.uuid4().hex}"

            def mixed(i: int, marker: Path = marker) -> Call:
                if i == calls // 2:
                    return "die_when_busy", {"marker": str(marker), "reads": 5, "writes": 5}, None
                token = f"call-{i}-{run_id}"
                return ("slow_read" if i % 2 else "slow_write"), {"text": token, "seconds": options.seconds}, token

            figures, cut_short = anyio.run(load, pkg, calls, concurrency, mixed, False)
            crash.append(figures)
            cut.append(cut_short)
        rows = [(f"run {k + 1}", f.row(calls)) for k, f in enumerate(crash)] + [("median", median_row(crash, calls))]
        table(rows)
        for k, (figures, cut_short) in enumerate(zip(crash, cut, strict=True)):
            print(
                f"   run {k + 1}: cut short by the crash: {cut_short.get('slow_read', 0)} read-only (sent again, all"
                f" succeeded), {cut_short.get('slow_write', 0)} not annotated ({figures.errors} 'may have run' errors)"
            )
        print("   (errors = 'may have run' results of cut-short slow_write calls; wrong = another call's answer)")


if __name__ == "__main__":
    main()
