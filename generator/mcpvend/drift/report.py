"""Findings as text for a terminal, JSON for scripts, Markdown for a pull-request comment (SARIF: sarif.py).

Tool names and descriptions come from third-party servers: in Markdown they are escaped, and
put in fences longer than any run of backticks they hold, so they cannot format, link or
inject HTML into the comment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from mcpvend.drift.compare import KINDS, SEVERITIES, Finding
from mcpvend.drift.lint import visible
from mcpvend.drift.sarif import sarif
from mcpvend.drift.section import Command, Format, Section

JSON_VERSION = 1
_COLOURS = {"high": "red", "medium": "yellow", "low": "cyan"}
_MARKS = {"high": "🔴 high", "medium": "🟠 medium", "low": "⚪ low"}


def render(sections: Sequence[Section], fmt: Format, *, colour: bool = False, command: Command = "diff") -> str:
    if fmt == "sarif":
        return sarif(sections, command)
    if fmt == "json":
        return _json(sections)
    if fmt == "markdown":
        return _markdown(sections)
    return _text(sections, colour)


def summary(findings: Sequence[Finding], ignored: int = 0) -> dict[str, int]:
    counts = {"total": len(findings)}
    counts.update({c: sum(f.category == c for f in findings) for c in ("breaking", "description", "other")})
    counts.update({s: sum(f.severity == s for f in findings) for s in SEVERITIES})
    counts["ignored"] = ignored
    return counts


def _headline(section: Section) -> str:
    counts = summary(section.findings, len(section.ignored))
    accepted = f", {counts['ignored']} ignored" if counts["ignored"] else ""
    if not counts["total"]:
        return f"{section.old} -> {section.new}: no findings{accepted}"
    parts = [f"{counts[c]} {c}" for c in ("breaking", "description", "other") if counts[c]]
    return f"{section.old} -> {section.new}: {counts['total']} findings ({', '.join(parts)}){accepted}"


def _text(sections: Sequence[Section], colour: bool) -> str:
    import click

    lines: list[str] = []
    for section in sections:
        lines.append(_headline(section))
        for f in section.findings:
            head = f"  {f.severity.upper():<6}  {f.kind:<26}  {visible(f.tool) or '(server)'}  {f.pointer or '/'}"
            lines.append(click.style(head, fg=_COLOURS[f.severity]) if colour else head)
            lines.append(f"          {visible(f.message)}")
            if f.detail:
                lines.append(f"          {visible(f.detail)}")
    return "\n".join(lines) + "\n"


def _json(sections: Sequence[Section]) -> str:
    everything = [f for s in sections for f in s.findings]
    document: dict[str, Any] = {
        "format": "mcpvend-report",
        "version": JSON_VERSION,
        "summary": summary(everything, sum(len(s.ignored) for s in sections)),
        "sections": [
            {
                "old": s.old,
                "new": s.new,
                "summary": summary(s.findings, len(s.ignored)),
                "findings": [
                    {
                        "kind": f.kind,
                        "category": f.category,
                        "severity": f.severity,
                        "tool": f.tool,
                        "pointer": f.pointer,
                        "message": f.message,
                        "old": f.old,
                        "new": f.new,
                        "detail": f.detail,
                        "rule": f.rule,
                    }
                    for f in s.findings
                ],
            }
            for s in sections
        ],
    }
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _escape(text: str) -> str:
    """Markdown-inert text for a table cell."""
    text = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_{}\[\]()#+!|~])", r"\\\1", text)


def _code(text: str) -> str:
    """A code span that nothing inside can close (and, in a table, no `|` can split)."""
    text = visible(text).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if text else "` `"


def _fenced(lines: list[str], language: str) -> list[str]:
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", *lines, fence]


def _markdown(sections: Sequence[Section]) -> str:
    out = ["## mcpvend: MCP tool drift", ""]
    for section in sections:
        out += [f"**{_escape(_headline(section))}**", ""]
        if not section.findings:
            continue
        out += ["| severity | kind | tool | pointer | change |", "|---|---|---|---|---|"]
        for f in section.findings:
            tool = _code(f.tool) if f.tool else "(server)"
            pointer = _code(f.pointer or "/")
            out.append(f"| {_MARKS[f.severity]} | {f.kind} | {tool} | {pointer} | {_escape(f.message)} |")
        texts = [f for f in section.findings if isinstance(f.old, str | None) and isinstance(f.new, str | None)]
        texts = [f for f in texts if KINDS[f.kind][0] == "description" and f.kind != "poisoning" and (f.old or f.new)]
        if texts:
            out += ["", "<details><summary>Changed text the model reads</summary>", ""]
            for f in texts:
                out.append(f"{_code(f.tool or '(server)')} {_code(f.pointer)}")
                diff = ([f"- {visible(f.old)}"] if f.old else []) + ([f"+ {visible(f.new)}"] if f.new else [])
                out += ["", *_fenced(diff, "diff"), ""]
            out += ["</details>"]
        out.append("")
    out.append(
        f"<sub>{len(KINDS)} finding kinds; see mcpvend's documentation "
        "(Reference: Findings and lint rules) for what each means.</sub>"
    )
    return "\n".join(out) + "\n"
