"""Findings as text for a terminal, JSON for scripts, Markdown for a pull-request comment (SARIF: sarif.py).

A `diff` report starts with its plan (what the pull request adds, changes and removes), shows one row per
tool for its annotation changes, and an added tool's full text. Tool names and descriptions come from
third-party servers: in Markdown they are escaped, and put in fences longer than any run of backticks
they hold, so they cannot format, link, mention someone or inject HTML into the comment.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Sequence
from typing import Any

from mcpvend.counts import plural
from mcpvend.drift.compare import KINDS, SEVERITIES, Finding
from mcpvend.drift.lint import visible
from mcpvend.drift.sarif import sarif
from mcpvend.drift.section import Command, Format, Row, Section, plan, rows, tool_text

JSON_VERSION = 1
COMMENT_LIMIT = 65_536  # characters GitHub takes in a comment body: a longer report is cut to fit
_COLOURS = {"high": "red", "medium": "yellow", "low": "cyan"}
_MARKS = {"high": "🔴 high", "medium": "🟠 medium", "low": "⚪ low"}
# Kinds whose old and new values may be text the model reads (a description, a title), shown as a diff.
_TEXT_KINDS = frozenset({"description-changed", "title-changed", "annotation-changed", "schema-description-changed"})
_MENTION = re.compile(r"[@#]")  # `@name` and `#123` become a mention and a link in a GitHub comment


def render(sections: Sequence[Section], fmt: Format, *, colour: bool = False, command: Command = "diff") -> str:
    if fmt == "sarif":
        return sarif(sections, command)
    if fmt == "json":
        return _json(sections, command)
    if fmt == "markdown":
        markdown = _markdown(sections, command)
        return markdown if len(markdown) <= COMMENT_LIMIT else _markdown(sections, command, room=COMMENT_LIMIT - 1_000)
    return _text(sections, colour, command)


def summary(findings: Sequence[Finding], ignored: int, command: Command) -> dict[str, Any]:
    """Counts by category and severity; for `diff`, the plan's counts too (tools added, source fields, ...)."""
    counts: dict[str, Any] = {"total": len(findings)}
    counts.update({c: sum(f.category == c for f in findings) for c in ("breaking", "description", "other")})
    counts.update({s: sum(f.severity == s for f in findings) for s in SEVERITIES})
    counts["ignored"] = ignored
    return counts | (plan(findings).counts() if command == "diff" else {})


def _headline(section: Section) -> str:
    findings, ignored = section.findings, len(section.ignored)
    accepted = f", {ignored} ignored" if ignored else ""
    if not findings:
        return f"{section.old} -> {section.new}: no findings{accepted}"
    categories = [(c, sum(f.category == c for f in findings)) for c in ("breaking", "description", "other")]
    parts = ", ".join(f"{n} {c}" for c, n in categories if n)
    return f"{section.old} -> {section.new}: {plural(len(findings), 'finding')} ({parts}){accepted}"


def _text(sections: Sequence[Section], colour: bool, command: Command) -> str:
    import click

    lines: list[str] = []
    for section in sections:
        lines.append(_headline(section))
        if command == "diff" and section.findings:
            lines.append(f"  {plan(section.findings).line()}")
        for row in rows(section.findings):
            head = (
                f"  {row.severity.upper():<6}  {row.kind:<26}  {visible(row.tool) or '(server)'}  {row.pointer or '/'}"
            )
            lines.append(click.style(head, fg=_COLOURS[row.severity]) if colour else head)
            lines.append(f"          {visible(row.message)}")
            if row.detail:
                lines.append(f"          {visible(row.detail)}")
            if row.added is not None:
                lines += [f"            {line}" for line in tool_text(row.added)]
    return "\n".join(lines) + "\n"


def _json(sections: Sequence[Section], command: Command) -> str:
    everything = [f for s in sections for f in s.findings]
    document: dict[str, Any] = {
        "format": "mcpvend-report",
        "version": JSON_VERSION,
        "summary": summary(everything, sum(len(s.ignored) for s in sections), command),
        "sections": [
            {
                "old": s.old,
                "new": s.new,
                "summary": summary(s.findings, len(s.ignored), command),
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
    """Markdown-inert text for a table cell or a paragraph."""
    text = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _unmentioned(re.sub(r"([\\`*_{}\[\]()+!|~])", r"\\\1", text))


def _html(text: str) -> str:
    """Inert text inside an HTML block (`<summary>`): Markdown is not read there, and its signs are entities
    anyway, so that no renderer can make a link or a format of it."""
    text = _unmentioned(visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
    return re.sub(r"[\\`*_{}\[\]()+!|~]", lambda sign: f"&#{ord(sign[0])};", text)


def _unmentioned(text: str) -> str:
    """`@name` and `#123` with a zero-width space after the sign (as an entity): read alike, linked never."""
    return _MENTION.sub(r"\g<0>&#8203;", text)


def _code(text: str) -> str:
    """A code span that nothing inside can close (and, in a table, no `|` can split)."""
    text = visible(text).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if text else "` `"


def _fenced(lines: list[str], language: str) -> list[str]:
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", *lines, fence]


def _row(row: Row) -> str:
    tool = _code(row.tool) if row.tool else "(server)"
    return f"| {_MARKS[row.severity]} | {row.kind} | {tool} | {_code(row.pointer or '/')} | {_escape(row.message)} |"


def _markdown(sections: Sequence[Section], command: Command, *, room: int | None = None) -> str:
    """The comment; with `room`, only the plans and the highest rows that fit in that many characters."""
    out = ["## mcpvend: MCP tool drift", ""]
    cut = 0
    for section in sections:
        out += [f"**{_escape(_headline(section))}**", ""]
        if not section.findings:
            continue
        if command == "diff":
            out += [_escape(plan(section.findings).line()), ""]
        shown = rows(section.findings)
        if room is not None:
            shown = sorted(shown, key=lambda r: -SEVERITIES.index(r.severity))
        out += ["| severity | kind | tool | pointer | change |", "|---|---|---|---|---|"]
        used = sum(len(line) + 1 for line in out)
        for i, row in enumerate(shown):
            line = _row(row)
            used += len(line) + 1
            if room is not None and used > room:
                cut += len(shown) - i
                break
            out.append(line)
        if room is None:
            out += _texts(section, shown)
        out.append("")
    if room is not None:
        out += [
            f"**Cut to fit a GitHub comment ({COMMENT_LIMIT:,} characters):** {plural(cut, 'lower row')}, the added "
            "tools' text and the changed texts are left out; `--format json` or `--format sarif` holds every finding.",
            "",
        ]
    out.append(
        f"<sub>{len(KINDS)} finding kinds; see mcpvend's documentation "
        "(Reference: Findings and lint rules) for what each means.</sub>"
    )
    return "\n".join(out) + "\n"


def _texts(section: Section, shown: Sequence[Row]) -> list[str]:
    """Long text in collapsed blocks: each added tool in full, then every changed text the model reads."""
    out: list[str] = []
    for row in shown:
        if row.added is not None:
            summary = f"<details><summary>added tool <code>{_html(row.tool)}</code></summary>"
            out += ["", summary, "", *_fenced(tool_text(row.added), "text"), "", "</details>"]
    texts = [f for f in section.findings if f.kind in _TEXT_KINDS or f.pointer == "/server/instructions"]
    texts = [f for f in texts if isinstance(f.old, str | None) and isinstance(f.new, str | None) and (f.old or f.new)]
    if texts:
        out += ["", "<details><summary>Changed text the model reads</summary>", ""]
        for f in texts:
            out.append(f"{_code(f.tool or '(server)')} {_code(f.pointer)}")
            out += ["", *_fenced(_line_diff(f.old or "", f.new or ""), "diff"), ""]
        out += ["</details>"]
    return out


def _line_diff(old: str, new: str) -> list[str]:
    """`- `, `+ ` and unchanged `  ` lines, each line shown with its invisible characters escaped."""
    a, b = old.split("\n") if old else [], new.split("\n") if new else []
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [f"  {visible(line)}" for line in a[i1:i2]]
        out += [f"- {visible(line)}" for line in a[i1:i2] if op != "equal"]
        out += [f"+ {visible(line)}" for line in b[j1:j2] if op != "equal"]
    return out
