"""How long the CLI takes to start: the commands a pre-commit hook or a shell runs most.

Runs each command in turn, interleaved round by round so that machine noise hits all of them
alike, and prints the median wall time (ms) and the ratio to `python -c pass`, the floor any
Python command pays; then the same for CPU time (user + system), which other work on a loaded
machine disturbs far less than wall time. `generate --check` runs in this repository on an unchanged tree (the
pre-commit path). The last column lists the heavy modules a command imported.

Usage: python bench/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
HEAVY = ("mcp", "pydantic", "jinja2", "black", "datamodel_code_generator", "rich", "jsonschema")


def commands() -> dict[str, list[str]]:
    mcpvend = shutil.which("mcpvend", path=str(Path(PY).parent)) or "mcpvend"
    return {
        "python -c pass": [PY, "-c", "pass"],
        "mcpvend --version": [mcpvend, "--version"],
        "mcpvend --help": [mcpvend, "--help"],
        "mcpvend generate --check": [mcpvend, "generate", "--check"],
        "mcpvend lint": [mcpvend, "lint"],  # the other pre-commit hook
        "mcpvend show time": [mcpvend, "show", "time"],
    }


# As on a user's machine: bytecode is cached (a warm-up run writes it), even where the environment
# says otherwise (PYTHONDONTWRITEBYTECODE would make every run compile every module it imports).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run."""
    cpu, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, env=ENV)
    elapsed, cpu = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.decode(errors='replace')}")
    return elapsed, cpu


def heavy_imports(args: list[str]) -> str:
    probe = (
        "import sys\nfrom mcpvend.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules) or '-')\n"
    )
    out = subprocess.run([PY, "-c", probe], cwd=REPO, capture_output=True, text=True, env=ENV).stdout
    return out.strip().splitlines()[-1] if out.strip() else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    table = commands()
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in table}
    for command in table.values():
        timed(command)  # warm the OS cache and __pycache__ once
    for _ in range(runs):
        for name, command in table.items():
            samples[name].append(timed(command))
    wall = {name: statistics.median(w for w, _ in pairs) for name, pairs in samples.items()}
    cpu = {name: statistics.median(c for _, c in pairs) for name, pairs in samples.items()}
    floor = "python -c pass"
    print(f"median of {runs} runs each, interleaved, bytecode cached; Python {sys.version.split()[0]}")
    print(f"{'command':<28} {'ms':>8} {'x pass':>8} {'cpu ms':>8} {'x pass':>8}  heavy modules imported")
    for name, command in table.items():
        imported = "-" if command[0] == PY else heavy_imports(command[1:])
        print(
            f"{name:<28} {wall[name] * 1000:>8.1f} {wall[name] / wall[floor]:>8.2f}"
            f" {cpu[name] * 1000:>8.1f} {cpu[name] / cpu[floor]:>8.2f}  {imported}"
        )
    check, version = "mcpvend generate --check", "mcpvend --version"
    print(
        f"generate --check / --version: {wall[check] / wall[version]:.2f}x wall, {cpu[check] / cpu[version]:.2f}x cpu"
        " (the pre-commit path; target <= 1.5x)"
    )


if __name__ == "__main__":
    main()
