"""How long `ToolSet.parse_calls` takes on replies of 1k, 4k and 16k tool calls, in each text format.

A reply is the calls as the format writes them (`ts.text_calls`), each to `time__get_current_time`
with its own arguments, so every call is read and none is a duplicate; parsing runs with the cap on
calls per reply raised to the number written (`max_calls=n`), so the figures are of reading every
call. Reported per format: the median of R runs at each size, and the 4k -> 16k growth, which is
about 4 when parsing is linear and about 16 when it is quadratic (the issue asks <= 5). As `timeit`
does, the cyclic garbage collector is paused while a run is timed: its full collections walk every
live object, and so add a cost that grows with the heap, not with the parser's work (at 16k calls it
took the growth to 6-8x in every format that builds many objects; the "gc on" column shows the 16k
median with it running). The last column is the 16k reply parsed with the default cap (`MAX_CALLS`):
the first calls are read, the rest is one `CallError`.

Usage: python bench/textformats.py [--runs R]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

from mcpvend.runtime.core.catalog import Catalog, Entry  # noqa: E402
from mcpvend.runtime.textformats.calls import MAX_CALLS, ParsedCall  # noqa: E402
from mcpvend.runtime.toolset import ToolSet  # noqa: E402

FORMATS = ("hermes", "mistral", "mistral-v11", "pythonic", "json")
SIZES = (1_000, 4_000, 16_000)
LIMIT = 5.0  # the growth 4k -> 16k the issue allows


def toolset() -> ToolSet:
    entries = []
    for server in ("time", "demo", "everything"):
        lock = json.loads((REPO / "lockfiles" / f"{server}.lock.json").read_text(encoding="utf-8"))
        entries += [Entry(server, t["tool"]) for t in lock["tools"]]
    return ToolSet(Catalog(entries))


def reply(ts: ToolSet, fmt: str, n: int) -> str:
    arguments = [{"timezone": f"Etc/GMT+{i % 12}", "n": i} for i in range(n)]
    return ts.text_calls([ParsedCall("time__get_current_time", a, "abcdefghi") for a in arguments], format=fmt)


def median_seconds(
    ts: ToolSet, fmt: str, text: str, runs: int, max_calls: int, expected: int, *, collector: bool = False
) -> float:
    times = []
    for _ in range(runs):
        gc.collect()  # each run starts from the same heap
        if not collector:
            gc.disable()
        start = time.perf_counter()
        parsed = ts.parse_calls(text, format=fmt, max_calls=max_calls)
        times.append(time.perf_counter() - start)
        gc.enable()
        if len(parsed.calls) != expected:
            raise SystemExit(f"{fmt}: read {len(parsed.calls)} calls of {expected}: {parsed.errors[:1]}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    ts = toolset()
    sizes = "".join(f"{f'{n // 1000}k calls':>12}" for n in SIZES)
    head = f"{'format':<12}{sizes}{'4k->16k':>9}{'16k, gc on':>12}{f'16k, cap {MAX_CALLS}':>15}"
    print(f"{head}   (median of {runs} runs)")
    worst = 0.0
    for fmt in FORMATS:
        seconds = {}
        for n in SIZES:
            seconds[n] = median_seconds(ts, fmt, reply(ts, fmt, n), runs, n, n)
        largest = reply(ts, fmt, SIZES[-1])
        collected = median_seconds(ts, fmt, largest, runs, SIZES[-1], SIZES[-1], collector=True)
        capped = median_seconds(ts, fmt, largest, runs, MAX_CALLS, MAX_CALLS)
        growth = seconds[16_000] / seconds[4_000]
        worst = max(worst, growth)
        cells = "".join(f"{seconds[n] * 1000:>10.1f}ms" for n in SIZES)
        print(f"{fmt:<12}{cells}{growth:>8.1f}x{collected * 1000:>10.1f}ms{capped * 1000:>13.1f}ms")
    print(f"worst growth 4k -> 16k: {worst:.1f}x (linear: ~4x; allowed: {LIMIT:.0f}x)")
    sys.exit(0 if worst <= LIMIT else 1)


if __name__ == "__main__":
    main()
