"""Findings as a SARIF 2.1.0 log, the format GitHub code scanning (and other CI dashboards) reads.

Every lint rule is a SARIF rule, and for `diff` every finding kind too. Each result is located in
the lockfile, at the lines of its JSON Pointer: lockfiles are written by one deterministic
pretty-printer (`lockfile.dumps`), so the line of any value is worked out from the document
alone. `partialFingerprints` do not depend on lines, so a re-run or an unrelated edit above a
finding does not make code scanning open a new alert. Reviewed exceptions are results with a
suppression, so they are counted and shown as accepted, never as open.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcpvend import __version__
from mcpvend.drift.compare import KINDS, Finding
from mcpvend.drift.lint import RULES, Severity
from mcpvend.drift.section import Command, Section, plan, tool_text
from mcpvend.lock.lockfile import as_served
from mcpvend.schema_walk import escape

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT = "mcpvendFinding/v1"
LEVELS: dict[Severity, str] = {"high": "error", "medium": "warning", "low": "note"}
# What GitHub shows as a security alert's severity (its scale: >= 7 high, >= 4 medium).
_SECURITY_SEVERITY: dict[Severity, str] = {"high": "8.0", "medium": "5.0", "low": "2.0"}
# What `lint` reports beside its rules' findings: the lockfile's source against the config.
_LINT_KINDS = ["source-mismatch"]
_KIND_TEXT = {
    "tool-added": "A tool was added: its text is new prompt text to review.",
    "tool-removed": "A tool callers may use is gone.",
    "description-changed": "A tool's description, prompt text the model reads, changed.",
    "title-changed": "A tool's title changed.",
    "annotation-changed": "A tool's annotations (readOnlyHint, destructiveHint, ...) changed.",
    "input-breaking": "A call that was valid is not any more.",
    "input-compatible": "The input schema accepts more than before.",
    "output-breaking": "Readers of the result may break: the output schema promises less.",
    "output-compatible": "The output schema promises more than before.",
    "schema-description-changed": "A description, title or example inside a schema changed.",
    "schema-changed": "Another schema keyword changed.",
    "field-changed": "A tool field the SDK does not model changed.",
    "server-changed": (
        "The server's instructions, info, capabilities or protocol changed, a tool it serves became (or stopped "
        "being) rejected at lock, the client offers it less, or its timeout changed."
    ),
    "source-changed": "What runs, or where credentials are sent, changed: command, args, URL, env, headers, auth.",
    "capability-added": "The client now offers the server more (sampling, elicitation, roots).",
    "source-mismatch": "The lockfile's source is not what the config says: run `mcpvend lock`.",
}


def sarif(sections: Sequence[Section], command: Command, cwd: Path | None = None) -> str:
    """One run with every section's results; `cwd` (default: the current directory) resolves relative paths."""
    here = cwd or Path.cwd()
    rules = _rules(command)
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    root = _repository_root(here)
    results = [result for section in sections for result in _results(section, index, root, here)]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "mcpvend",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }
        },
        "automationDetails": {"id": f"mcpvend/{command}/"},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if command == "diff":  # the plan, as the text and Markdown reports start with it
        changes = plan([f for section in sections for f in section.findings])
        run["properties"] = {"summary": changes.line(), **changes.counts()}
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _rules(command: Command) -> list[dict[str, Any]]:
    """The lint rules, and for `diff` every finding kind but `poisoning` (whose results name their lint rule);
    for `lint`, the kinds it reports beside its rules."""
    rules = [
        _rule(rule, severity, summary, ["security", "mcp", "tool-poisoning"])
        for rule, (severity, summary) in RULES.items()
    ]
    # A kind a lint rule shares carries the rule's id, as poisoning findings do.
    kinds = [k for k in KINDS if k not in RULES and k != "poisoning"] if command == "diff" else _LINT_KINDS
    return rules + [_rule(kind, KINDS[kind][1], _KIND_TEXT[kind], ["mcp", "drift", KINDS[kind][0]]) for kind in kinds]


def _rule(rule: str, severity: Severity, text: str, tags: list[str]) -> dict[str, Any]:
    full = text[0].upper() + text[1:] + ("" if text.endswith(".") else ".")
    properties: dict[str, Any] = {"tags": tags}
    if "security" in tags:
        properties["security-severity"] = _SECURITY_SEVERITY[severity]
    return {
        "id": rule,
        "name": "".join(part.capitalize() for part in rule.split("-")),
        "shortDescription": {"text": rule.replace("-", " ").capitalize()},
        "fullDescription": {"text": full},
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": properties,
    }


def _results(section: Section, index: Mapping[str, int], root: Path, cwd: Path) -> Iterator[dict[str, Any]]:
    document = section.document or {}
    lines = pointer_lines(document)
    positions: dict[str, int] = {
        entry["tool"]["name"]: i
        for i, entry in enumerate(document.get("tools") or ())
        if isinstance(entry, Mapping) and isinstance(entry.get("tool"), Mapping)
    }
    uri = _uri(section.artifact or section.new, root, cwd)
    seen: dict[str, int] = {}
    every = [(f, False) for f in section.findings] + [(f, True) for f in section.ignored]
    for finding, ignored in every:
        rule = finding.rule or finding.kind
        start, end = _region(finding, lines, positions)
        key = json.dumps([rule, uri, finding.tool, finding.pointer, finding.message, finding.detail])
        seen[key] = seen.get(key, 0) + 1  # identical findings stay apart, in a stable order
        fingerprint = hashlib.sha256(f"{key}#{seen[key]}".encode()).hexdigest()
        result: dict[str, Any] = {
            "ruleId": rule,
            "ruleIndex": index[rule],
            "level": LEVELS[finding.severity],
            "message": {"text": _message(finding)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": start, "endLine": end},
                    },
                    "logicalLocations": [
                        {"name": finding.tool or "(server)", "fullyQualifiedName": f"{finding.tool}{finding.pointer}"}
                    ],
                }
            ],
            "partialFingerprints": {FINGERPRINT: fingerprint},
            "properties": {
                "kind": finding.kind,
                "severity": finding.severity,
                "tool": finding.tool,
                "pointer": finding.pointer,
            },
        }
        if ignored:
            result["suppressions"] = [
                {"kind": "external", "justification": "a reviewed exception: [lint] ignore or --ignore"}
            ]
        yield result


def _message(finding: Finding) -> str:
    """The finding in words; an added tool's description and parameters follow, as the agent will read them."""
    where = f"'{finding.tool}'" if finding.tool else "the server"
    text = f"{finding.message} ({where}, {finding.pointer or '/'})"
    if finding.kind == "tool-added" and isinstance(finding.new, Mapping):
        return "\n".join([text, *tool_text(finding.new, output=False)])
    return f"{text}: {finding.detail}" if finding.rule and finding.detail else text


def _region(finding: Finding, lines: Mapping[str, tuple[int, int]], positions: Mapping[str, int]) -> tuple[int, int]:
    """The lines of the finding's pointer, or of its nearest ancestor the lockfile holds (a removed tool: `/tools`)."""
    candidates = [f"/tools/{positions[finding.tool]}/tool{finding.pointer}"] if finding.tool in positions else []
    for pointer in [*candidates, finding.pointer or "/tools"]:
        while pointer not in lines:  # "", the whole document, always is
            pointer = pointer.rpartition("/")[0]
        if pointer:
            return lines[pointer]
    return lines.get("/tools", (1, 1))


def pointer_lines(document: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """The first and last line (1-based) of every JSON Pointer's value in `lockfile.dumps(document)`.

    json.dumps with indent=2 puts each member and item on its own line, a non-empty container's
    closing bracket on one more, and every string on one line (newlines are escaped): a value's
    lines are counted from the document, in the order `lockfile.dumps` writes it.
    """
    lines: dict[str, tuple[int, int]] = {}
    _place(as_served(document), "", 1, lines)
    return lines


def _place(value: Any, pointer: str, line: int, lines: dict[str, tuple[int, int]]) -> int:
    """Record `value` (and its children) as starting on `line`; the line after it."""
    children: list[tuple[str, Any]] = []
    if isinstance(value, Mapping):
        children = [(f"{pointer}/{escape(str(k))}", v) for k, v in value.items()]
    elif isinstance(value, list):
        children = [(f"{pointer}/{i}", v) for i, v in enumerate(value)]
    if not children:
        lines[pointer] = (line, line)
        return line + 1
    after = line + 1
    for child, item in children:
        after = _place(item, child, after, lines)
    lines[pointer] = (line, after)  # `after` holds the closing bracket
    return after + 1


def _uri(path: str, root: Path, cwd: Path) -> str:
    """The lockfile's path relative to the repository root, as code scanning wants it (absolute outside it)."""
    absolute = Path(os.path.normpath(cwd / path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return absolute.as_uri()


def _repository_root(cwd: Path) -> Path:
    """The nearest directory holding `.git` (a directory, or a worktree's file), else `cwd`."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return cwd
