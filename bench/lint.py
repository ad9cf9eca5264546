"""How often `mcpvend.drift.lint` fires on published attacks and on real, benign tools, and how long it takes.

Two figures: the share of the poisoned texts quoted from published attack write-ups
(tests/data/poisoned/tools.json) flagged at medium or high (the detection rate), and the
share of the 527 tools of the 70-server LiveMCPBench corpus, taken as benign, flagged at medium
or high (the false-positive rate; every finding is printed for a reviewer to judge). Each corpus
tool is linted the way a multi-server client sees it: its server's other tools, and every other
server and its tools, are known.

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

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CORPUS = DATA / "livemcpbench" / "tools.json"
POISONED = DATA / "poisoned" / "tools.json"
SERIOUS = ("medium", "high")


def corpus() -> list[tuple[str, dict[str, Any]]]:
    """(server, tool) for every tool in the corpus, in file order."""
    entries = json.loads(CORPUS.read_text(encoding="utf-8"))
    return [(server, tool) for e in entries for server, s in e["tools"].items() for tool in s["tools"]]


def lint_corpus(tools: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, list[LintFinding]]]:
    by_server: dict[str, set[str]] = collections.defaultdict(set)
    for server, tool in tools:
        by_server[server].add(tool["name"])
    foreign = {s: {n for other, names in by_server.items() if other != s for n in names} for s in by_server}
    servers = sorted(by_server)
    return [
        (
            server,
            lint_tool(
                tool,
                known_tools=by_server[server],
                known_servers=[s for s in servers if s != server],
                foreign_tools=foreign[server],
            ),
        )
        for server, tool in tools
    ]


def poisoned() -> list[dict[str, Any]]:
    return list(json.loads(POISONED.read_text(encoding="utf-8"))["entries"])


def _tools(context: dict[str, list[str]]) -> list[str]:
    return [name for names in context.values() for name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    tools = corpus()
    results = lint_corpus(tools)
    texts = sum(1 for _, tool in tools for _ in tool_texts(tool))
    flagged = [(server, findings) for server, findings in results if findings]
    serious = [f for f in flagged if any(x.severity in SERIOUS for x in f[1])]
    counts = collections.Counter(f.rule for _, findings in results for f in findings)
    tools_by_rule = collections.Counter(r for _, findings in results for r in {f.rule for f in findings})
    attacks = poisoned()
    caught = {
        entry["id"]: sorted(
            {
                f.rule
                for f in lint_tool(entry["tool"], known_servers=list(context), foreign_tools=_tools(context))
                if f.severity in SERIOUS
            }
        )
        for entry in attacks
        for context in [entry.get("context", {})]
    }
    missed = [id_ for id_, rules in caught.items() if not rules]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        lint_corpus(tools)
        times.append(time.perf_counter() - start)

    print(f"mcpvend lint benchmark: published attacks and the LiveMCPBench corpus; python {sys.version.split()[0]}")
    print(f"   published poisoned texts         {len(attacks):6d}")
    print(f"   ... flagged medium/high          {len(attacks) - len(missed):6d}   "
          f"{100 * (len(attacks) - len(missed)) / len(attacks):5.1f} %  (detection rate)")  # fmt: skip
    print(f"   corpus servers                   {len({s for s, _ in tools}):6d}")
    print(f"   corpus tools linted              {len(tools):6d}")
    print(f"   texts linted (incl. param names) {texts:6d}")
    print(f"   tools with >= 1 finding          {len(flagged):6d}   {100 * len(flagged) / len(tools):5.2f} %")
    print(f"   ... with a medium/high finding   {len(serious):6d}   {100 * len(serious) / len(tools):5.2f} %"
          "  (false-positive rate)")  # fmt: skip
    print(f"   lint the corpus, median of {runs}     {1000 * statistics.median(times):6.1f} ms")
    print("\nfindings per rule on the corpus (findings / tools)")
    for rule, (severity, _) in RULES.items():
        print(f"   {rule:22} {severity:6}  {counts[rule]:4d} / {tools_by_rule[rule]:3d}")
    print("\npublished attacks: rules that flag each")
    for id_, rules in caught.items():
        print(f"   {id_:34} {', '.join(rules) or 'MISSED'}")
    print("\ncorpus findings")
    for server, findings in flagged:
        for f in findings:
            print(f"   {server}/{f.tool}  {f.rule}  {f.pointer}  [{f.start}:{f.end}]  {f.excerpt}")


if __name__ == "__main__":
    main()
