"""How long `mcpvend lock` takes, against a bare SDK script and as servers are added.

1. `mcpvend lock SERVER` versus bench/bare_sdk.py (initialize + list tools, nothing else) on the
   same server, in alternating runs so that machine noise hits both alike.
2. N copies of the demo server locked in one `mcpvend lock` versus one copy: concurrency means
   the wall time should stay near one server's, not grow N-fold.

Prints medians (seconds) and ratios. Usage: python bench/lock.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
SERVERS = {
    "demo": [PY, str(REPO / "tests" / "servers" / "demo.py")],
    "time": [PY, "-m", "mcp_server_time", "--local-timezone", "UTC"],
    "everything": [
        "node",
        str(REPO / "tests/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "stdio",
    ],
}


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def config(directory: Path, servers: dict[str, list[str]]) -> Path:
    """An mcpvend.toml for these servers (JSON strings and arrays are valid TOML values)."""
    lines = []
    for name, (command, *args) in servers.items():
        lines += [f"[servers.{name}]", f"command = {json.dumps(command)}", f"args = {json.dumps(args)}", ""]
    (directory / "mcpvend.toml").write_text("\n".join(lines))
    return directory


def versus_bare_sdk(runs: int) -> None:
    print("1. mcpvend lock vs a bare SDK script (initialize + tools/list), same server")
    print(f"   {'server':<12}{'mcpvend s':>11}{'bare SDK s':>12}{'ratio':>8}")
    for name, command in SERVERS.items():
        if not Path(command[1]).exists() and command[0] == "node":
            print(f"   {name:<12} skipped: run `make test` first to install the npm servers")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            directory = config(Path(tmp), {name: command})
            ours, bare = [], []
            for _ in range(runs):
                ours.append(timed([PY, "-m", "mcpvend", "lock"], directory))
                bare.append(timed([PY, str(REPO / "bench" / "bare_sdk.py"), *command], directory))
            a, b = statistics.median(ours), statistics.median(bare)
            print(f"   {name:<12}{a:>11.3f}{b:>12.3f}{a / b:>8.2f}")


def concurrency(runs: int) -> None:
    print("2. N demo servers in one `mcpvend lock` vs one (wall time)")
    print(f"   {'N':<4}{'median s':>10}{'vs N=1':>8}{'vs N x one':>12}")
    one = 0.0
    for count in (1, 2, 4, 8):
        with tempfile.TemporaryDirectory() as tmp:
            directory = config(Path(tmp), {f"demo{i}": SERVERS["demo"] for i in range(count)})
            median = statistics.median(timed([PY, "-m", "mcpvend", "lock"], directory) for _ in range(runs))
        one = one or median
        print(f"   {count:<4}{median:>10.3f}{median / one:>8.2f}{median / (one * count):>12.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    print(f"mcpvend lock benchmark: {runs} runs each, medians; python {sys.version.split()[0]}")
    versus_bare_sdk(runs)
    concurrency(runs)


if __name__ == "__main__":
    main()
