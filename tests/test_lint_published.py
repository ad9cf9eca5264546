"""The lint against attacks as published: every poisoned text is flagged, and real tools stay quiet.

tests/data/poisoned/tools.json holds the poisoned tools (their texts quoted from attack write-ups,
each with its source and technique); the 527 tools of the LiveMCPBench corpus are the benign side.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from conftest import REPO, corpus_servers
from mcpvend.drift.lint import lint_tool

POISONED = json.loads((REPO / "tests" / "data" / "poisoned" / "tools.json").read_text(encoding="utf-8"))
ENTRIES: list[dict[str, Any]] = POISONED["entries"]


def serious(tool: dict[str, Any], context: dict[str, list[str]]) -> list[str]:
    """The rules that flag `tool` at medium or high, knowing the other servers of `context` and their tools."""
    tools = [name for names in context.values() for name in names]
    findings = lint_tool(tool, known_servers=list(context), foreign_tools=tools)
    return sorted({f.rule for f in findings if f.severity in ("medium", "high")})


def test_the_published_set_has_sixty_sourced_entries_of_many_techniques() -> None:
    ids = [e["id"] for e in ENTRIES]
    assert len(ids) >= 60 and len(set(ids)) == len(ids)
    for entry in ENTRIES:
        assert set(entry) <= {"id", "technique", "source", "adapted", "tool", "context"}, entry["id"]
        source = urlsplit(entry["source"])
        assert source.scheme == "https" and source.netloc and entry["technique"] and entry["tool"]["name"], entry["id"]
    assert len({e["source"] for e in ENTRIES}) >= 15
    assert len({e["technique"] for e in ENTRIES}) >= 20


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_every_published_attack_is_flagged_medium_or_higher(entry: dict[str, Any]) -> None:
    assert serious(entry["tool"], entry.get("context", {})), entry["tool"]


def test_shadowing_entries_are_caught_as_tool_references_with_nothing_else_known() -> None:
    """Shadowing targets the tools of servers the user runs elsewhere, which no lockfile here holds."""
    shadowing = [e for e in ENTRIES if "shadowing" in e["technique"]]
    assert len(shadowing) >= 20 and len({e["source"] for e in shadowing}) >= 8
    for entry in shadowing:
        assert "tool-reference" in serious(entry["tool"], {}), entry["id"]


def test_a_bare_call_of_another_servers_tool_needs_that_tool_known() -> None:
    """Documentation names a next step with "run X": only X known as another server's tool makes it shadowing."""
    (entry,) = [e for e in ENTRIES if e["id"] == "panguard-run-after"]
    assert serious(entry["tool"], entry["context"]) == ["tool-reference"]
    assert serious(entry["tool"], {}) == []


def corpus_false_positives() -> tuple[list[str], int]:
    """Corpus tools with a medium or high finding, each linted knowing every other server and its tools."""
    servers = corpus_servers()
    flagged, total = [], 0
    for server, tools in servers.items():
        others = {s: [t["name"] for t in listing] for s, listing in servers.items() if s != server}
        for tool in tools:
            total += 1
            if serious(tool, others):
                flagged.append(f"{server}/{tool['name']}")
    return flagged, total


def test_at_most_one_percent_of_the_real_corpus_is_flagged_medium_or_higher() -> None:
    flagged, total = corpus_false_positives()
    assert total == 527
    assert len(flagged) <= 0.01 * total, flagged
