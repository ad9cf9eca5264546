"""How long `make test` takes on a fresh clone, as CI and a new contributor pay it (installs included).

Wall time depends on the machine, so it is normalised by a fixed amount of pure-Python work timed just
before and just after: a 20-million-iteration loop, which takes about 1.07 s on the reference machine.
normalised = wall x 1.07 / (the loop's mean). Load that changes during the run is not removed by this:
measure on a quiet machine. The CPU time of everything `make test` ran and waited for (user + sys) is
printed beside it, normalised by the loop's own CPU time: load from other processes slows the loop's wall
clock, not its CPU time, so the two are only compared with their own kind.

Usage: python bench/suite.py [--keep DIR]   (clones HEAD of this repository into a temporary directory)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REFERENCE_LOOP = 1.07  # seconds, the loop below on the reference machine
LOOP = "\n".join(
    [
        "import time",
        "t, c = time.perf_counter(), time.process_time()",
        "x = 0",
        "for i in range(20_000_000):",
        "    x += i",
        "print(time.perf_counter() - t, time.process_time() - c)",
    ]
)


def loop() -> tuple[float, float]:
    """The loop's wall and CPU seconds, in a fresh interpreter, at module level (as `python -c` runs it)."""
    done = subprocess.run([sys.executable, "-c", LOOP], capture_output=True, text=True, check=True)
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def cpu_of_children() -> float:
    """User + sys seconds of the processes this one has waited for, their own waited-for children included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", type=Path, help="clone into DIR and keep it (default: a temporary directory)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        clone = args.keep or Path(scratch) / "mcpvend"
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
        before = loop()
        spent = cpu_of_children()
        start = time.perf_counter()
        run = subprocess.run(
            ["make", "test"], cwd=clone, env={**os.environ, "CI": "true"}, capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        cpu = cpu_of_children() - spent
        after = loop()
    tail = [line for line in run.stdout.splitlines() if " passed" in line or " failed" in line][-1:]
    failed = [line for line in run.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))]
    mean = (before[0] + after[0]) / 2
    cpu_normalised = cpu * REFERENCE_LOOP * 2 / (before[1] + after[1])
    print(f"make test on a fresh clone (CI=true), {os.cpu_count()} cores; python {sys.version.split()[0]}")
    print(f"   exit code                 {run.returncode:>8d}   {tail[0] if tail else run.stderr[-300:]}")
    print(f"   wall                      {wall:8.1f} s")
    print(f"   loop before / after       {before[0]:8.3f} s / {after[0]:.3f} s  (reference {REFERENCE_LOOP} s)")
    print(f"   normalised                {wall * REFERENCE_LOOP / mean:8.1f} s  (target <= 360 s)")
    print(f"   loop CPU before / after   {before[1]:8.3f} s / {after[1]:.3f} s")
    print(f"   CPU, user + sys           {cpu:8.1f} s  (normalised by the loop CPU: {cpu_normalised:.1f} s)")
    for line in failed:
        print(f"   {line[:300]}")


if __name__ == "__main__":
    main()
