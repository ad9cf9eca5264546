"""`mcpvend generate` on one tool whose parameter is an `enum` of N values: seconds by N.

Black formats a `Literal[...]` in time quadratic in its length, so an enum past codegen's MAX_LITERAL is
typed by its values' JSON types instead (generator/mcpvend/codegen/schema_prep.py). Each run is the real
CLI in a child process, on a lockfile written for the tool list (no server needed).

Usage: python bench/big_enum.py [N ...]   (default: 1000 10000 50000)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from conftest import lock_documents  # noqa: E402 - the tests' lockfile writer, after the path is set


def seconds(values: int) -> float:
    tool = {
        "name": "pick",
        "description": "Pick one.",
        "inputSchema": {"type": "object", "properties": {"a": {"enum": [f"v{i}" for i in range(values)]}}},
    }
    with tempfile.TemporaryDirectory() as root:
        lock_documents(Path(root), {"big": [tool]})
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "mcpvend", "generate"], cwd=root, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if run.returncode != 0:
            raise SystemExit(f"{values} values: generate failed: {run.stderr.strip()}")
        return elapsed


def main() -> None:
    for values in [int(a) for a in sys.argv[1:]] or [1000, 10000, 50000]:
        print(f"enum of {values:>6,} values: generate {seconds(values):6.1f} s", flush=True)


if __name__ == "__main__":
    main()
