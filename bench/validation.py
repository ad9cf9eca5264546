"""A hostile schema pattern against call-time validation: how long the calls take, and what a check costs.

1. The hostile call. A tool whose input schema says `"pattern": "^(a+)+$"` (tests/servers/replay.py
   serving it and a harmless tool), locked and generated into a temporary project. Each round starts
   the hostile call (`"a" * L + "!"`) and a call of the harmless tool at once, and times when each
   answers: in the generated package (`toolset().call`, one process) and through `mcpvend serve
   --transport http` (two SDK clients, one per call). Prints the medians over the rounds against the
   targets (hostile <= 2 s, the other call <= 1 s). A backtracking `re` would hold the event loop,
   and with it the other call, for minutes at L = 30.
2. What validation costs per call: `validation.problem(schema, arguments)` on valid arguments for a
   schema without patterns, one with three, and one with `patternProperties`; the median of 5 runs of
   N calls each, in microseconds.

With `--baseline DIR` (a checkout of the code before the linear-time search, with its own `.venv`),
part 2 is measured there too, with the ratio after/before, and so is the old validator's time on the
hostile argument for lengths that finish (it doubles with each character).

Usage: python bench/validation.py [--rounds R] [--calls N] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
HOSTILE = "^(a+)+$"
LENGTHS = (30, 5000)
OLD_LENGTHS = (16, 18, 20, 22)  # what the backtracking validator finishes in seconds
TOOLS = [
    {
        "name": "match",
        "description": "Echo a run of a's.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "pattern": HOSTILE}}},
    },
    {"name": "other", "description": "Echo a query.", "inputSchema": {"type": "object", "properties": {"q": {}}}},
]
SCHEMAS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "no pattern": (
        {"type": "object", "properties": {"value": {"type": "number"}, "to": {"enum": ["celsius", "kelvin"]}}},
        {"value": 21.5, "to": "kelvin"},
    ),
    "3 patterns": (
        {
            "type": "object",
            "properties": {
                "day": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
                "id": {"type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"},
                "mail": {"type": "string", "pattern": r"^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$"},
            },
        },
        {"day": "2026-01-31", "id": "123e4567-e89b-12d3-a456-426614174000", "mail": "ada@example.org"},
    ),
    "patternProperties": (
        {"type": "object", "patternProperties": {"^[a-z_]+$": {"type": "integer"}}, "additionalProperties": False},
        {f"key_{chr(97 + i)}": i for i in range(10)},
    ),
}


def validation_costs(calls: int) -> dict[str, float]:
    """Median µs per `validation.problem` call, per schema (run by the baseline's interpreter too)."""
    validation = importlib.import_module("mcpvend.runtime.core.validation")
    costs: dict[str, float] = {}
    for label, (schema, arguments) in SCHEMAS.items():
        assert validation.problem(schema, arguments) is None, label
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(calls):
                validation.problem(schema, arguments)
            runs.append((time.perf_counter() - start) / calls * 1e6)
        costs[label] = statistics.median(runs)
    return costs


def hostile_seconds() -> dict[int, float]:
    """The validator's time on `"a" * L + "!"` against HOSTILE, per length (median of 3)."""
    validation = importlib.import_module("mcpvend.runtime.core.validation")
    schema = TOOLS[0]["inputSchema"]
    found: dict[int, float] = {}
    for length in OLD_LENGTHS:
        runs = []
        for _ in range(3):
            start = time.perf_counter()
            validation.problem(schema, {"text": "a" * length + "!"})
            runs.append(time.perf_counter() - start)
        found[length] = statistics.median(runs)
    return found


def in_baseline(baseline: Path, part: str, calls: int) -> Any:
    """A part measured by the baseline checkout's interpreter, importing its own mcpvend."""
    command = [str(baseline / ".venv" / "bin" / "python"), __file__, "--part", part, "--calls", str(calls)]
    done = subprocess.run(command, cwd=baseline, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


async def race(call: Call, text: str) -> tuple[float, float]:
    """Seconds until the hostile call answers, and until the harmless one started with it does."""
    start = time.perf_counter()

    async def timed(tool: str, arguments: dict[str, Any]) -> float:
        result = await call(tool, arguments)
        assert result.is_error == (tool == "patterns__match"), result
        return time.perf_counter() - start

    hostile, other = await asyncio.gather(
        timed("patterns__match", {"text": text}), timed("patterns__other", {"q": "meanwhile"})
    )
    return hostile, other


async def rounds(call: Call, count: int) -> dict[int, tuple[float, float]]:
    await call("patterns__other", {"q": "warm-up"})
    medians: dict[int, tuple[float, float]] = {}
    for length in LENGTHS:
        times = [await race(call, "a" * length + "!") for _ in range(count)]
        medians[length] = (statistics.median(t[0] for t in times), statistics.median(t[1] for t in times))
    return medians


async def in_package(root: Path, count: int) -> dict[int, tuple[float, float]]:
    sys.path.insert(0, str(root))
    package = importlib.import_module("bench_patterns")
    async with package.toolset(["patterns"]) as ts:
        return await rounds(ts.call, count)


async def through_serve(url: str, count: int) -> dict[int, tuple[float, float]]:
    from mcp import Client

    async with Client(url) as hostile, Client(url) as other:

        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            return await (other if tool == "patterns__other" else hostile).call_tool(tool, arguments)

        return await rounds(call, count)


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """`mcpvend serve --transport http --port 0` on the project: its URL, read from its announcement."""
    command = [PY, "-m", "mcpvend", "serve", "patterns", "--output", "bench_patterns", "--mode", "direct"]
    proc = subprocess.Popen(
        [*command, "--transport", "http", "--port", "0"], cwd=root, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    try:
        match = re.search(r" on (http://\S+)$", proc.stderr.readline().strip())
        assert match is not None, "serve did not announce its URL"
        yield match.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def project(root: Path) -> None:
    (root / "tools.json").write_text(json.dumps(TOOLS), encoding="utf-8")
    replay = [str(REPO / "tests" / "servers" / "replay.py"), str(root / "tools.json")]
    (root / "mcpvend.toml").write_text(f"[servers.patterns]\ncommand = {json.dumps(PY)}\nargs = {json.dumps(replay)}\n")
    for args in (("lock",), ("--output", "bench_patterns", "generate")):
        subprocess.run([PY, "-m", "mcpvend", *args], cwd=root, check=True, capture_output=True)


def show_calls(label: str, medians: dict[int, tuple[float, float]]) -> None:
    for length, (hostile, other) in medians.items():
        verdict = "ok" if hostile <= 2 and other <= 1 else "MISSED"
        times = f"hostile {hostile * 1000:>8.2f} ms   other {other * 1000:>8.2f} ms"
        print(f"  {label:<8} {length:>6,} chars   {times}  {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--baseline", type=Path, help="a checkout of the code before, with its own .venv")
    parser.add_argument("--part", choices=["costs", "hostile"], help=argparse.SUPPRESS)  # run in the baseline
    options = parser.parse_args()
    if options.part:
        print(json.dumps(validation_costs(options.calls) if options.part == "costs" else hostile_seconds()))
        return
    os.environ["PATH"] = f"{Path(PY).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    print(f"hostile pattern {HOSTILE}: medians of {options.rounds} rounds (targets: hostile <= 2 s, other <= 1 s)")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project(root)
        show_calls("package", asyncio.run(in_package(root, options.rounds)))
        with serving(root) as url:
            show_calls("serve", asyncio.run(through_serve(url, options.rounds)))
    if options.baseline:
        old = in_baseline(options.baseline, "hostile", options.calls)
        print("before: the backtracking validator on the same argument, in process (the loop is held as long)")
        for length, seconds in old.items():
            print(f"  {int(length):>6,} chars   {seconds * 1000:>10.1f} ms")
        shortest, longest = OLD_LENGTHS[0], OLD_LENGTHS[-1]
        growth = (old[str(longest)] / old[str(shortest)]) ** (1 / (longest - shortest))
        print(f"  x{growth:.2f} per character: about {old[str(longest)] * growth ** (30 - longest):,.0f} s at 30")
    after = validation_costs(options.calls)
    before = in_baseline(options.baseline, "costs", options.calls) if options.baseline else None
    print(f"validation.problem per call, median of 5 x {options.calls:,} calls (µs)")
    print(f"  {'schema':<18} {'after':>8}" + (f" {'before':>8} {'after/before':>13}" if before else ""))
    for label, cost in after.items():
        line = f"  {label:<18} {cost:>8.2f}"
        if before:
            line += f" {before[label]:>8.2f} {cost / before[label]:>12.2f}x"
        print(line)


if __name__ == "__main__":
    main()
