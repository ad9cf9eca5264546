"""How long `mcpvend generate` takes, and how cheap `generate --check` is when nothing changed.

Runs on a copy of this repo's lockfiles (4 servers, 33 tools) and on the 70-server corpus
(526 tools), in alternating runs, and prints medians (seconds) and ratios:
- `python -c pass`: the floor any Python command pays;
- `mcpvend generate --check`, nothing changed: the pre-commit path (no code generator runs);
- `mcpvend generate --check` after a lockfile changed: generates in memory and compares;
- `mcpvend generate` with no output yet: a full generation written to disk.

Usage: python bench/generate.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
PY = sys.executable


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, capture_output=True)
    return time.perf_counter() - start


def corpus_project(directory: Path) -> None:
    from conftest import corpus_servers, lock_documents

    lock_documents(directory, corpus_servers())


def repo_project(directory: Path) -> None:
    shutil.copytree(REPO / "lockfiles", directory / "lockfiles")
    shutil.copy(REPO / "mcpvend.toml", directory / "mcpvend.toml")


def touch_a_lockfile(directory: Path) -> None:
    """Change one description so that the inputs differ (the lockfile stays valid)."""
    from mcpvend.lock import lockfile

    path = sorted((directory / "lockfiles").glob("*.lock.json"))[0]
    document = json.loads(path.read_text())
    tool = document["tools"][0]["tool"]
    tool["description"] = (tool.get("description") or "") + " (changed)"
    document["tools"][0]["digests"] = lockfile.tool_digests(tool)
    document["digest"] = lockfile.tools_digest([entry["tool"] for entry in document["tools"]])
    path.write_text(lockfile.dumps(document))


def measure(name: str, make: object, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        make(directory)  # type: ignore[operator]
        cli = [PY, "-m", "mcpvend"]
        subprocess.run([*cli, "generate"], cwd=directory, check=True, capture_output=True)
        floor, check, full = [], [], []
        for _ in range(runs):
            floor.append(timed([PY, "-c", "pass"], directory))
            check.append(timed([*cli, "generate", "--check"], directory))
            shutil.rmtree(directory / "generated")  # else `generate` takes the same shortcut
            full.append(timed([*cli, "generate"], directory))
        touch_a_lockfile(directory)
        stale = [timed([*cli, "generate", "--check"], directory) for _ in range(max(1, runs // 2))]
    f, c, s, g = (statistics.median(x) for x in (floor, check, stale, full))
    print(f"{name}")
    print(f"   python -c pass                  {f:8.3f}")
    print(f"   generate --check (unchanged)    {c:8.3f}   {c / f:6.1f}x python start-up")
    print(f"   generate --check (one changed)  {s:8.3f}   {s / c:6.1f}x the unchanged check")
    print(f"   generate (from scratch)         {g:8.3f}   {g / c:6.1f}x the unchanged check")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print(f"mcpvend generate benchmark: {runs} runs each, medians in seconds; python {sys.version.split()[0]}")
    measure("this repo's example servers (4 servers, 33 tools)", repo_project, runs)
    measure("LiveMCPBench corpus (70 servers, 526 tools)", corpus_project, runs)


if __name__ == "__main__":
    main()
