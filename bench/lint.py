"""How often `mcpvend.drift.lint` fires on real, benign tools, and how long it takes.

The 70-server LiveMCPBench corpus (527 tools) is taken as benign, so every tool with a finding
counts as a false positive until a reviewer judges it; each finding is printed for that purpose.
Each tool is linted the way a multi-server client would see it: every other corpus tool name is a
known tool, every other server name a known server.

Usage: python bench/lint.py [--runs N]
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from mcpvend.drift.lint import RULES, LintFinding, lint_tool, tool_texts

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "livemcpbench" / "tools.json"


def corpus() -> list[tuple[str, dict[str, Any]]]:
    """(server, tool) for every tool in the corpus, in file order."""
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))
    return [(server, tool) for e in entries for server, s in e["tools"].items() for tool in s["tools"]]


def lint_corpus(tools: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, list[LintFinding]]]:
    names = [tool["name"] for _, tool in tools]
    servers = sorted({server for server, _ in tools})
    return [
        (server, lint_tool(tool, known_tools=names, known_servers=[s for s in servers if s != server]))
        for server, tool in tools
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    tools = corpus()
    results = lint_corpus(tools)
    texts = sum(1 for _, tool in tools for _ in tool_texts(tool))
    flagged = [(server, findings) for server, findings in results if findings]
    serious = [f for f in flagged if any(x.severity != "low" for x in f[1])]
    counts = collections.Counter(f.rule for _, findings in results for f in findings)
    tools_by_rule = collections.Counter(r for _, findings in results for r in {f.rule for f in findings})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        lint_corpus(tools)
        times.append(time.perf_counter() - start)

    print(f"mcpvend lint benchmark: LiveMCPBench corpus; python {sys.version.split()[0]}")
    print(f"   servers                          {len({s for s, _ in tools}):6d}")
    print(f"   tools linted                     {len(tools):6d}")
    print(f"   texts linted                     {texts:6d}")
    print(f"   tools with >= 1 finding          {len(flagged):6d}   {100 * len(flagged) / len(tools):5.2f} %")
    print(f"   ... with a medium/high finding   {len(serious):6d}   {100 * len(serious) / len(tools):5.2f} %")
    print(f"   lint the corpus, median of {runs}     {1000 * statistics.median(times):6.1f} ms")
    print("\nfindings per rule (findings / tools)")
    for rule, (severity, _) in RULES.items():
        print(f"   {rule:22} {severity:6}  {counts[rule]:4d} / {tools_by_rule[rule]:3d}")
    print("\nfindings")
    for server, findings in flagged:
        for f in findings:
            print(f"   {server}/{f.tool}  {f.rule}  {f.pointer}  [{f.start}:{f.end}]  {f.excerpt}")


if __name__ == "__main__":
    main()
