"""How long `mcpvend diff` takes to compare two lockfiles and print its report, over real release upgrades.

For each pair of published releases in tests/data/published (server-everything, server-filesystem: the
upgrade a pull request bumping `args` would lock), the time to compare the two lockfiles
(`diff_documents`, the poisoning lint of new text included) and to render the report in each format,
median of N runs; and how many rows the Markdown table shows a reviewer for how many findings.

Usage: python bench/diff.py [--runs N]
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpvend.drift.compare import diff_documents
from mcpvend.drift.report import render
from mcpvend.drift.section import Format, Section

PUBLISHED = Path(__file__).resolve().parent.parent / "tests" / "data" / "published"
PAIRS = (
    ("everything", "2025.9.25", "2026.1.26"),
    ("everything", "2026.1.26", "2026.8.31"),
    ("everything", "2025.9.25", "2026.8.31"),
    ("filesystem", "2025.7.29", "2026.7.4"),
    ("filesystem", "2026.7.4", "2026.8.31"),
    ("filesystem", "2025.7.29", "2026.8.31"),
)
FORMATS: tuple[Format, ...] = ("text", "json", "markdown", "sarif")


def lockfile(server: str, version: str) -> dict[str, Any]:
    return dict(json.loads((PUBLISHED / f"{server}-{version}.lock.json").read_text(encoding="utf-8")))


def median_ms(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def table_rows(markdown: str) -> int:
    return sum(line.startswith("| ") and not line.startswith("| severity ") for line in markdown.splitlines())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=21)
    runs = parser.parse_args().runs
    print(f"mcpvend diff benchmark: published release upgrades; python {sys.version.split()[0]}, median of {runs} runs")
    print(f"   {'upgrade':36} {'findings':>8} {'rows':>5} {'compare':>9}" + "".join(f" {f:>9}" for f in FORMATS))
    totals: dict[str, float] = dict.fromkeys(("compare", *FORMATS), 0.0)
    for server, old_version, new_version in PAIRS:
        old, new = lockfile(server, old_version), lockfile(server, new_version)
        findings = diff_documents(old, new)
        sections = [Section(f"{server}-{old_version}", f"{server}-{new_version}", findings)]
        timed = {"compare": median_ms(runs, functools.partial(diff_documents, old, new))}
        for fmt in FORMATS:
            timed[fmt] = median_ms(runs, functools.partial(render, sections, fmt))
        for key, ms in timed.items():
            totals[key] += ms
        rows = table_rows(render(sections, "markdown"))
        name = f"{server} {old_version} -> {new_version}"
        figures = "".join(f" {timed[key]:6.2f} ms" for key in ("compare", *FORMATS))
        print(f"   {name:36} {len(findings):8d} {rows:5d}{figures}")
    print(f"   {'all six upgrades':36} {'':8} {'':5}" + "".join(f" {totals[k]:6.2f} ms" for k in ("compare", *FORMATS)))
    everything = sum(totals.values())
    print(f"\ncompare + all four formats, the six upgrades together: {everything:.1f} ms")


if __name__ == "__main__":
    main()
