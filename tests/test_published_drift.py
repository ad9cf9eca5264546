"""The reports of real upgrades: lockfiles of published server-everything and server-filesystem releases.

Each pair is what a pull request bumping the release in `args` would show a reviewer (tests/data/published,
captured with `npx -y @modelcontextprotocol/server-X@VERSION` by capture.sh). Before the report was built for
review, every finding was one row: the row counts below are pinned against the finding counts.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, mcpvend
from mcpvend.drift.compare import Finding, diff_documents
from mcpvend.drift.lint import visible
from mcpvend.drift.report import render
from mcpvend.drift.section import Format, Section

PUBLISHED = REPO / "tests" / "data" / "published"


def document(name: str) -> dict[str, Any]:
    return dict(json.loads((PUBLISHED / f"{name}.lock.json").read_text(encoding="utf-8")))


def findings(old: str, new: str) -> list[Finding]:
    return diff_documents(document(old), document(new))


def report(old: str, new: str, fmt: Format) -> str:
    return render([Section(f"{old}.lock.json", f"{new}.lock.json", findings(old, new))], fmt)


def table(markdown: str) -> list[tuple[str, str, str, str, str]]:
    """(severity, kind, tool, pointer, change) of every row of the report's table, as GitHub shows them: code
    spans unwrapped, escapes and entities read (a zero-width space after `@` and `#` stays, as `\u200b`)."""
    found = []
    for line in markdown.splitlines():
        if line.startswith("| ") and not line.startswith(("| severity ", "|---")):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            severity, kind, tool, pointer, change = cells
            shown = html.unescape(re.sub(r"\\(.)", r"\1", change))
            found.append((severity.split()[-1], kind, tool.strip("` "), pointer.strip("` "), shown))
    return found


def plan_line(markdown: str) -> str:
    """The paragraph after the bold headline: the plan."""
    return markdown.split("**\n\n", 1)[1].split("\n", 1)[0]


def added_block(markdown: str, tool: str) -> str:
    """The collapsed block of an added tool, found by its name as the `<summary>` shows it."""
    blocks = re.findall(
        r"^<details><summary>added tool <code>(.*?)</code></summary>\n(.*?)^</details>", markdown, re.M | re.S
    )
    [block] = [body for name, body in blocks if html.unescape(name) == tool]
    return str(block)


# pair -> (findings, rows): one row per finding before; annotations grouped, unrejected tools folded after.
ROWS = {
    ("everything-2026.1.26", "everything-2026.8.31"): (62, 23),
    ("everything-2025.9.25", "everything-2026.8.31"): (33, 30),
    ("filesystem-2025.7.29", "filesystem-2026.8.31"): (34, 20),
    ("filesystem-2026.7.4", "filesystem-2026.8.31"): (23, 23),
}


@pytest.mark.parametrize(("old", "new"), sorted(ROWS))
def test_row_counts_and_the_version_bump_is_a_high_source_change(old: str, new: str) -> None:
    found = findings(old, new)
    markdown = report(old, new, "markdown")
    rows = table(markdown)
    assert (len(found), len(rows)) == ROWS[old, new]
    [source] = [r for r in rows if r[1] == "source-changed"]
    package = "server-everything" if old.startswith("everything") else "server-filesystem"
    before, after = old.split("-", 1)[1], new.split("-", 1)[1]
    assert source[:4] == ("high", "source-changed", "(server)", "/source/args/1")
    assert (
        f'| source.args\\[1\\] changed: "@&#8203;modelcontextprotocol/{package}@&#8203;{before}" -&gt; '
        f'"@&#8203;modelcontextprotocol/{package}@&#8203;{after}" |'
    ) in markdown  # both versions, each `@` kept from mentioning anyone
    assert "; source: 1 field changed; " in plan_line(markdown) and plan_line(markdown).endswith("; highest: high")
    [finding] = [f for f in found if f.kind == "source-changed"]
    assert (finding.old, finding.new) == (
        f"@modelcontextprotocol/{package}@{before}",
        f"@modelcontextprotocol/{package}@{after}",
    )


def test_everything_2026_1_26_to_2026_8_31_one_annotation_row_per_tool() -> None:
    old, new = "everything-2026.1.26", "everything-2026.8.31"
    markdown = report(old, new, "markdown")
    rows = table(markdown)
    assert plan_line(markdown) == "0 tools added, 13 changed, 0 removed; source: 1 field changed; highest: high"
    assert Counter((severity, kind) for severity, kind, *_ in rows) == {
        ("high", "source-changed"): 1,
        ("medium", "annotation-changed"): 13,
        ("low", "input-compatible"): 9,
    }
    hinted = [r for r in rows if r[1] == "annotation-changed"]
    assert len({tool for _, _, tool, _, _ in hinted}) == 13 and {r[3] for r in hinted} == {"/annotations"}
    echo = next(r for r in hinted if r[2] == "echo")
    assert echo[4] == (
        "annotations changed: readOnlyHint unset -> true, destructiveHint unset -> false, "
        "idempotentHint unset -> true, openWorldHint unset -> false"
    )
    data = json.loads(report(old, new, "json"))  # the data keeps one finding per key
    per_key = [f for f in data["sections"][0]["findings"] if f["kind"] == "annotation-changed"]
    assert len(per_key) == 52
    claims = {(f["tool"], f["pointer"].rsplit("/", 1)[1], f["severity"]) for f in per_key if f["new"] is True}
    assert ("echo", "readOnlyHint", "medium") in claims and ("echo", "idempotentHint", "low") in claims
    assert data["summary"] == {
        "total": 62, "breaking": 1, "description": 52, "other": 9, "high": 1, "medium": 22, "low": 39, "ignored": 0,
        "toolsAdded": 0, "toolsChanged": 13, "toolsRemoved": 0, "sourceChanged": 1, "capabilitiesAdded": 0,
        "rejectedChanged": 0, "highest": "high",
    }  # fmt: skip


def test_everything_upgrade_shows_every_added_tools_text_and_every_removed_tools_name() -> None:
    old, new = "everything-2025.9.25", "everything-2026.8.31"
    markdown = report(old, new, "markdown")
    rows = table(markdown)
    assert plan_line(markdown) == "12 tools added, 1 changed, 9 removed; source: 1 field changed; highest: high"
    removed = sorted(e["tool"]["name"] for e in document(old)["tools"])
    removed.remove("echo")
    assert [(r[0], r[2], r[4]) for r in rows if r[1] == "tool-removed"] == [
        ("high", name, f"tool '{name}' removed") for name in removed
    ]
    added = [e["tool"] for e in document(new)["tools"] if e["tool"]["name"] != "echo"]
    assert sorted(r[2] for r in rows if r[1] == "tool-added") == sorted(t["name"] for t in added)
    for tool in added:
        block = added_block(markdown, tool["name"])
        for line in tool["description"].split("\n"):
            assert f"\n  {visible(line)}\n" in block, tool["name"]
        for name, spec in tool["inputSchema"].get("properties", {}).items():
            assert f"\n  {name} ({spec.get('type', 'any')}, " in block, (tool["name"], name)
    sum_block = added_block(markdown, "get-sum")
    assert "  a (number, required): First number\n" in sum_block
    assert (
        "annotations: readOnlyHint true, destructiveHint false, idempotentHint true, openWorldHint false" in sum_block
    )
    [echo] = [r for r in rows if r[1] == "annotation-changed"]
    assert echo[:3] == ("medium", "annotation-changed", "echo")


def test_filesystem_tools_rejected_at_lock_then_locked_are_reported_with_their_text() -> None:
    old, new = "filesystem-2025.7.29", "filesystem-2026.8.31"
    markdown = report(old, new, "markdown")
    rows = table(markdown)
    assert plan_line(markdown) == (
        "13 tools added, 1 changed, 0 removed; source: 1 field changed; 13 rejected tools changed; highest: high"
    )
    rejected = sorted(r["name"] for r in document(old)["rejected"])
    assert len(rejected) == 13
    assert [(r[0], r[2], r[4]) for r in rows if r[1] == "tool-added"] == [
        ("medium", name, f"tool '{name}' added (rejected at lock before: inputSchema.type: Field required)")
        for name in rejected
    ]
    assert not [r for r in rows if r[3] == "/rejected"]  # folded into the tool-added rows
    unrejected = [f for f in findings(old, new) if f.pointer == "/rejected"]
    assert sorted(f.tool for f in unrejected) == rejected and {f.severity for f in unrejected} == {"low"}
    edit = added_block(markdown, "edit_file")
    assert "  edits[].oldText (string, required): Text to search for - must match exactly\n" in edit
    assert "  dryRun (boolean, optional, default false): Preview changes using git-style diff format\n" in edit
    [listing] = [r for r in rows if r[1] == "annotation-changed"]  # it now claims to be read-only
    assert listing == (
        "medium", "annotation-changed", "list_allowed_directories", "/annotations",
        "annotations changed: readOnlyHint unset -> true, openWorldHint unset -> false",
    )  # fmt: skip


def test_filesystem_2026_7_4_to_2026_8_31_open_world_claims_stay_low() -> None:
    rows = table(report("filesystem-2026.7.4", "filesystem-2026.8.31", "markdown"))
    hinted = [r for r in rows if r[1] == "annotation-changed"]
    assert len(hinted) == 14 and {r[0] for r in hinted} == {"low"}
    assert {r[4] for r in hinted} == {"annotations changed: openWorldHint unset -> false"}
    breaking = [r[:3] for r in rows if r[1] == "output-breaking"]
    assert breaking == [("high", "output-breaking", "read_media_file")] * 7


def test_text_and_sarif_carry_the_plan_and_the_added_tools_text() -> None:
    old, new = "everything-2025.9.25", "everything-2026.8.31"
    text = report(old, new, "text")
    assert text.splitlines()[:2] == [
        f"{old}.lock.json -> {new}.lock.json: 33 findings (10 breaking, 18 description, 5 other)",
        "  12 tools added, 1 changed, 9 removed; source: 1 field changed; highest: high",
    ]
    assert "\n            description:\n              Returns the sum of two numbers\n" in text
    run = json.loads(report(old, new, "sarif"))["runs"][0]
    assert (
        run["properties"]["summary"] == "12 tools added, 1 changed, 9 removed; source: 1 field changed; highest: high"
    )
    assert (run["properties"]["toolsAdded"], run["properties"]["toolsRemoved"]) == (12, 9)
    [added] = [r for r in run["results"] if r["ruleId"] == "tool-added" and r["properties"]["tool"] == "get-sum"]
    assert added["message"]["text"].splitlines() == [
        "tool 'get-sum' added ('get-sum', /)",
        "title: Get Sum Tool",
        "description:",
        "  Returns the sum of two numbers",
        "parameters:",
        "  a (number, required): First number",
        "  b (number, required): Second number",
        "annotations: readOnlyHint true, destructiveHint false, idempotentHint true, openWorldHint false",
    ]


def test_the_cli_fails_a_release_bump_on_breaking_and_shows_both_versions(tmp_path: Path) -> None:
    old, new = (str(PUBLISHED / f"everything-{v}.lock.json") for v in ("2026.1.26", "2026.8.31"))
    run = mcpvend("diff", old, new, "--format", "markdown", "--fail-on", "breaking", cwd=tmp_path)
    assert run.code == 1, run.err
    assert "server-everything@&#8203;2026.1.26" in run.out and "server-everything@&#8203;2026.8.31" in run.out
    assert "\n0 tools added, 13 changed, 0 removed; source: 1 field changed; highest: high\n" in run.out
    text = mcpvend("diff", old, new, "--fail-on", "breaking", cwd=tmp_path)
    assert (
        text.code == 1
        and (
            'source.args[1] changed: "@modelcontextprotocol/server-everything@2026.1.26" -> '
            '"@modelcontextprotocol/server-everything@2026.8.31"'
        )
        in text.out
    )
