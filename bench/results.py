"""Run every benchmark and write bench/RESULTS.md: the figures, with the date, machine and versions.

Each figure means little without where it was measured, so the file starts with that, then
holds each script's own output verbatim. A script that fails is recorded as failed (with its
stderr tail) and the exit code is 1, so a broken benchmark cannot go unnoticed.

Usage: python bench/results.py [SCRIPT ...]
With no script, every script in BENCHES, in order, and the file is written anew. With scripts named,
those run again and replace their own sections of the file, each saying when and at which commit; the
rest of the file stays as it was.
"""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
BENCHES = (
    "startup.py",
    "lock.py",
    "generate.py",
    "lint.py",
    "diff.py",
    "search.py",
    "semantic_install.py",
    "runtime.py",
    "load.py",
    "strict.py",
    "code_mode.py",
    "textformats.py",
    "hostile.py",
    "validation.py",
    "serve.py",
    "suite.py",  # last: `make test` on a fresh clone of HEAD (about 8 minutes)
)
PACKAGES = ("mcpvend", "mcp", "pydantic", "datamodel-code-generator", "black", "jsonschema", "mcp-server-time")
# Written by the long profile (make long), not run here: it takes most of an hour.
FUZZ = sorted((REPO / "bench").glob("fuzz-last-*.txt"))
KILLS = sorted((REPO / "bench").glob("long-*.txt"))


def machine() -> list[str]:
    models = [line.split(":", 1)[1].strip() for line in _read("/proc/cpuinfo").splitlines() if "model name" in line]
    cpu = models[0] if models else platform.processor() or "unknown"
    memory = next((line.split()[1] for line in _read("/proc/meminfo").splitlines() if line.startswith("MemTotal")), "")
    gib = f", {int(memory) / 2**20:.1f} GiB RAM" if memory.isdigit() else ""
    return [f"{os.cpu_count()} CPUs ({cpu}){gib}", f"{platform.system()} {platform.release()} ({platform.machine()})"]


def versions() -> list[str]:
    found = [f"Python {platform.python_version()}"]
    for package in PACKAGES:
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} (not installed)")
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    found.append(f"node {node or '(not found)'}")
    found.append(f"mcpvend commit {commit()}")
    return found


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def run(script: str) -> tuple[str, bool, float]:
    start = time.perf_counter()
    done = subprocess.run([PY, str(REPO / "bench" / script)], cwd=REPO, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    output = done.stdout.rstrip()
    if done.returncode != 0:
        tail = "\n".join(done.stderr.rstrip().splitlines()[-15:])
        output = f"{output}\n\nFAILED (exit {done.returncode}):\n{tail}".strip()
    return output, done.returncode == 0, elapsed


def section(script: str, output: str, elapsed: float, note: str = "") -> str:
    return "\n".join([f"## bench/{script} ({elapsed:.0f} s{note})", "", "```", output, "```", ""])


def replace_section(text: str, script: str, new: str) -> str:
    """`text` with the section of `script` replaced by `new` (appended if it had none)."""
    heading = f"## bench/{script} ("
    start = text.find(heading)
    if start < 0:
        return f"{text.rstrip()}\n\n{new}"
    end = text.find("\n## ", start + len(heading))
    return text[:start] + new + ("\n" + text[end + 1 :] if end >= 0 else "")


def main() -> None:
    rerun = tuple(sys.argv[1:])
    results = REPO / "bench" / "RESULTS.md"
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    ok, sections = True, {}
    for script in rerun or BENCHES:
        print(f"running bench/{script} ...", file=sys.stderr, flush=True)
        output, passed, elapsed = run(script)
        ok = ok and passed
        sections[script] = (output, elapsed)
    if rerun and results.exists():
        text = results.read_text(encoding="utf-8")
        when = f"; re-run {now} at {commit()}"
        for script, (output, elapsed) in sections.items():
            text = replace_section(text, script, section(script, output, elapsed, when))
        results.write_text(text, encoding="utf-8")
    else:
        lines = [
            "# Benchmark results",
            "",
            "Written by `make bench` (`python bench/results.py`); every figure below is the verbatim output",
            "of one script in `bench/`. Medians unless a script says otherwise.",
            "",
            f"- date: {now}",
            *(f"- machine: {line}" for line in machine()),
            f"- versions: {', '.join(versions())}",
            "",
            *(section(script, output, elapsed) for script, (output, elapsed) in sections.items()),
        ]
        if FUZZ or KILLS:
            figures = "\n\n".join(path.read_text(encoding="utf-8").rstrip() for path in (*FUZZ, *KILLS))
            heading = "## Long profile (last run of `make long`: fuzz shards, kill tests)"
            lines += [heading, "", "```", figures, "```", ""]
        results.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote bench/RESULTS.md ({len(sections)} scripts)", file=sys.stderr)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
