"""What a report is made of: the findings between two sides (a lockfile and another, or its live server), and
what a person approving a lockfile pull request reads of them, in every format.

The plan: one line that counts what the pull request does (tools added, changed, removed, source fields,
capabilities, rejected tools) and names the highest severity, as `terraform plan` prints one. The rows:
the findings as a person reads them, one row per tool for its annotation changes (the data keeps one
finding per key). An added tool's text: what the agent will read, shown in full, since a reviewer
approves it without opening the lockfile.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mcpvend.counts import plural
from mcpvend.drift.compare import SEVERITIES, Finding, shown
from mcpvend.drift.lint import Severity, visible

Format = Literal["text", "json", "markdown", "sarif"]
Command = Literal["diff", "lint"]


@dataclass(frozen=True)
class Section:
    """The findings between two sides, e.g. a lockfile and its live server."""

    old: str
    new: str
    findings: Sequence[Finding]
    ignored: Sequence[Finding] = ()  # reviewed exceptions: counted, never failing
    artifact: str | None = None  # the lockfile the findings are located in (SARIF), as given
    document: Mapping[str, Any] | None = None  # its content


# Kinds that change a tool both sides hold (a poisoning finding only flags text another kind reports).
_TOOL_CHANGES = frozenset(
    {"description-changed", "title-changed", "annotation-changed", "input-breaking", "input-compatible",
     "output-breaking", "output-compatible", "schema-description-changed", "schema-changed", "field-changed",
     "external-ref"}
)  # fmt: skip
# The hints that decide approval first, then the others as the findings order them.
_HINT_ORDER = {"readOnlyHint": 0, "destructiveHint": 1}


def highest(findings: Sequence[Finding]) -> Severity | None:
    found = {f.severity for f in findings}
    return next((s for s in reversed(SEVERITIES) if s in found), None)


@dataclass(frozen=True)
class Plan:
    """What a pull request does to one server, counted from its findings."""

    tools_added: int
    tools_changed: int
    tools_removed: int
    source_changed: int  # fields of `source` (what runs, where credentials go)
    capabilities_added: int
    rejected_changed: int  # tools newly rejected at lock, or no longer
    highest: Severity | None

    def counts(self) -> dict[str, int | str | None]:
        """The plan as JSON's and SARIF's summary keys."""
        return {
            "toolsAdded": self.tools_added,
            "toolsChanged": self.tools_changed,
            "toolsRemoved": self.tools_removed,
            "sourceChanged": self.source_changed,
            "capabilitiesAdded": self.capabilities_added,
            "rejectedChanged": self.rejected_changed,
            "highest": self.highest,
        }

    def line(self) -> str:
        """`2 tools added, 11 changed, 0 removed; source: 1 field changed; highest: high`."""
        parts = [
            f"{plural(self.tools_added, 'tool')} added, {self.tools_changed} changed, {self.tools_removed} removed",
            f"source: {plural(self.source_changed, 'field')} changed",
        ]
        if self.capabilities_added:
            parts.append(f"{plural(self.capabilities_added, 'client capability', 'client capabilities')} added")
        if self.rejected_changed:
            parts.append(f"{plural(self.rejected_changed, 'rejected tool')} changed")
        return "; ".join([*parts, f"highest: {self.highest or 'none'}"])


def plan(findings: Sequence[Finding]) -> Plan:
    added = {f.tool for f in findings if f.kind == "tool-added"}
    removed = {f.tool for f in findings if f.kind == "tool-removed"}
    changed = {f.tool for f in findings if f.kind in _TOOL_CHANGES} - added - removed
    return Plan(
        tools_added=len(added),
        tools_changed=len(changed),
        tools_removed=len(removed),
        source_changed=sum(f.pointer.startswith("/source/") for f in findings if not f.tool),
        capabilities_added=sum(f.kind == "capability-added" for f in findings),
        rejected_changed=sum(f.pointer == "/rejected" for f in findings),
        highest=highest(findings),
    )


@dataclass(frozen=True)
class Row:
    """One line of a report: a finding, or a tool's annotation findings folded into one."""

    severity: Severity
    kind: str
    tool: str
    pointer: str
    message: str
    detail: str | None = None
    added: Mapping[str, Any] | None = None  # an added tool, whose text is shown with the row


def rows(findings: Sequence[Finding]) -> list[Row]:
    """The findings in their order, a tool's annotation changes folded into one row where its first was.

    A tool no longer rejected at lock, and so added, is one row: the reason it was rejected is said there.
    """
    hints: dict[str, list[Finding]] = {}
    unrejected: dict[str, Finding] = {}
    added = {f.tool for f in findings if f.kind == "tool-added"}
    for f in findings:
        if f.kind == "annotation-changed":
            hints.setdefault(f.tool, []).append(f)
        if f.pointer == "/rejected" and f.old is not None and f.tool in added:
            unrejected[f.tool] = f
    out: list[Row] = []
    for f in findings:
        if f.kind == "annotation-changed":
            if f is hints[f.tool][0]:
                out.append(_hints_row(f.tool, hints[f.tool]))
        elif f.kind == "tool-added":
            was = unrejected.get(f.tool)
            message = f"{f.message} (rejected at lock before: {was.old})" if was else f.message
            added_tool = f.new if isinstance(f.new, Mapping) else None
            out.append(Row(f.severity, f.kind, f.tool, f.pointer, message, f.detail, added_tool))
        elif unrejected.get(f.tool) is not f:
            out.append(Row(f.severity, f.kind, f.tool, f.pointer, f.message, f.detail))
    return out


def _hints_row(tool: str, findings: list[Finding]) -> Row:
    ordered = sorted(findings, key=lambda f: _HINT_ORDER.get(f.pointer.rsplit("/", 1)[1], len(_HINT_ORDER)))
    changes = ", ".join(f"{f.pointer.rsplit('/', 1)[1]} {shown(f.old)} -> {shown(f.new)}" for f in ordered)
    severity = highest(findings) or "low"
    return Row(severity, "annotation-changed", tool, "/annotations", f"annotations changed: {changes}")


def tool_text(tool: Mapping[str, Any], *, output: bool = True) -> list[str]:
    """An added tool as the agent will read it: title, description, each parameter (nested ones as
    `edits[].oldText`), annotations, output schema.

    Every line is shown with its invisible and control characters escaped (`visible`), line breaks kept.
    """
    lines: list[str] = []
    if isinstance(title := tool.get("title"), str):
        lines.append(f"title: {title}")
    if isinstance(description := tool.get("description"), str):
        lines += ["description:", *(f"  {line}" for line in description.split("\n"))]
    parameters = list(_parameters(tool.get("inputSchema"), ""))
    lines += ["parameters:", *parameters] if parameters else ["parameters: none"]
    if isinstance(annotations := tool.get("annotations"), Mapping) and annotations:
        lines.append("annotations: " + ", ".join(f"{k} {shown(v)}" for k, v in annotations.items()))
    if output and (result := tool.get("outputSchema")) is not None:
        lines.append(f"output schema: {shown(result)}")
    return [visible(line) for line in lines]


def _parameters(schema: Any, prefix: str) -> Iterator[str]:
    """A line per property, then its own properties and its items' (a description the model reads at any depth).

    Only `\n` breaks a description's line: every other break stays visible as an escape.
    """
    if not isinstance(schema, Mapping) or not isinstance(properties := schema.get("properties"), Mapping):
        return
    given = schema.get("required")
    required: list[Any] = given if isinstance(given, list) else []
    for name, spec in properties.items():
        spec = spec if isinstance(spec, Mapping) else {}
        facts = [_type(spec), "required" if name in required else "optional"]
        if isinstance(spec.get("enum"), list):
            facts.append("one of " + ", ".join(shown(v) for v in spec["enum"]))
        if "default" in spec:
            facts.append(f"default {shown(spec['default'])}")
        head = f"  {prefix}{name} ({', '.join(facts)})"
        if isinstance(description := spec.get("description"), str):
            first, *rest = description.split("\n")
            yield f"{head}: {first}"
            yield from (f"      {line}" for line in rest)
        else:
            yield head
        yield from _parameters(spec, f"{prefix}{name}.")
        yield from _parameters(spec.get("items"), f"{prefix}{name}[].")


def _type(spec: Mapping[str, Any]) -> str:
    kind = spec.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(map(str, kind))
    options = spec.get("anyOf") or spec.get("oneOf")
    if isinstance(options, list):
        return " | ".join(_type(o) if isinstance(o, Mapping) else "any" for o in options)
    if isinstance(ref := spec.get("$ref"), str):
        return ref
    return "any"
