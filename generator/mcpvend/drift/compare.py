"""Classified differences between two lockfiles: what a reviewer must look at, and what breaks.

Every finding names the tool and the JSON Pointer of the change inside it. Text the model
reads (descriptions, titles, server instructions) is reported even when the schema is
unchanged, and every added or changed text is also run through the poisoning lint.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcpvend.drift import schema_rules as schemadiff
from mcpvend.drift.lint import Severity, external_refs, lint_text, lint_tool, tool_texts, visible
from mcpvend.lock import source
from mcpvend.schema_walk import escape

Category = Literal["breaking", "description", "other"]
FailOn = Literal["breaking", "description", "any", "none"]
SEVERITIES: tuple[Severity, ...] = ("low", "medium", "high")

# kind -> (category, default severity): the documented vocabulary of findings.
KINDS: dict[str, tuple[Category, Severity]] = {
    "tool-added": ("description", "medium"),
    "tool-removed": ("breaking", "high"),
    "description-changed": ("description", "medium"),
    "title-changed": ("description", "low"),
    "annotation-changed": ("description", "low"),
    "input-breaking": ("breaking", "high"),
    "input-compatible": ("other", "low"),
    "output-breaking": ("breaking", "high"),
    "output-compatible": ("other", "low"),
    "schema-description-changed": ("description", "low"),
    "schema-changed": ("other", "low"),
    "field-changed": ("other", "low"),
    "server-changed": ("other", "low"),
    "source-changed": ("breaking", "high"),  # what runs, or where credentials go: command, args, url, env, ...
    "capability-added": ("description", "medium"),  # the server may now ask the client (sampling, roots, ...)
    "source-mismatch": ("breaking", "high"),  # lint: the lockfile's source is not what the config says
    "poisoning": ("description", "high"),
    "external-ref": ("breaking", "high"),
}
_EFFECT_KIND = {
    "inputSchema": {
        "narrowed": "input-breaking",
        "widened": "input-compatible",
        "extended": "input-compatible",
        "incompatible": "input-breaking",
    },
    "outputSchema": {
        "narrowed": "output-compatible",
        "widened": "output-breaking",
        "extended": "output-compatible",
        "incompatible": "output-breaking",
    },
}
_MODELLED = frozenset({"name", "title", "description", "annotations", "inputSchema", "outputSchema"})


@dataclass(frozen=True)
class Finding:
    kind: str
    severity: Severity
    tool: str  # "" for a change to the server itself
    pointer: str  # RFC 6901, inside the tool (or the lockfile, for server changes)
    message: str
    old: Any = None
    new: Any = None
    detail: str | None = None  # a word-level diff, or the offending span of a poisoning finding
    rule: str | None = None  # the lint rule, for poisoning findings

    @property
    def category(self) -> Category:
        return KINDS[self.kind][0]


def _finding(kind: str, tool: str, pointer: str, message: str, **extra: Any) -> Finding:
    return Finding(kind, extra.pop("severity", KINDS[kind][1]), tool, pointer, message, **extra)


def reaches(findings: Iterable[Finding], level: FailOn) -> bool:
    """Whether findings reach a `--fail-on` level (the exit-code contract)."""
    wanted = {"breaking": {"breaking"}, "description": {"breaking", "description"}, "any": None, "none": set()}[level]
    return any(wanted is None or f.category in wanted for f in findings)


def explain(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> list[str]:
    """`lock --check`'s account of a drifted server: one classified line per finding."""
    if old is None:
        return ["no lockfile yet"]
    try:
        findings = diff_documents(old, new)
    except (KeyError, TypeError, AttributeError):  # a lockfile that parses but is not one
        return ["the existing lockfile is unreadable"]
    lines = [f"{f.severity} {f.kind}: {f.tool or '(server)'} {f.pointer or '/'}: {f.message}" for f in findings]
    return lines or ["formatting differs"]


def diff_documents(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    lint: bool = True,
    known_servers: Collection[str] = (),
    foreign_tools: Collection[str] = (),
) -> list[Finding]:
    """Every finding between two lockfile documents, in a stable order.

    `known_servers` and `foreign_tools` are the other servers the model sees, and their tools: the
    lint of new text knows them, so that shadowing another server's tool is caught.
    """
    old_tools = {e["tool"]["name"]: e["tool"] for e in old.get("tools", [])}
    new_tools = {e["tool"]["name"]: e["tool"] for e in new.get("tools", [])}
    findings = list(_server(old, new))
    for name in sorted(old_tools.keys() - new_tools.keys()):
        findings.append(_finding("tool-removed", name, "", f"tool '{name}' removed", old=old_tools[name]))
    for name in sorted(new_tools.keys() - old_tools.keys()):
        findings.append(_finding("tool-added", name, "", f"tool '{name}' added", new=new_tools[name]))
    for name in sorted(old_tools.keys() & new_tools.keys()):
        findings.extend(diff_tools(old_tools[name], new_tools[name]))
    for name, tool in sorted(new_tools.items()):
        findings.extend(_external_refs(old_tools.get(name), tool))
    if lint:
        findings.extend(_poisoning(old_tools, new_tools, old, new, known_servers, foreign_tools))
    return sorted(findings, key=lambda f: (f.tool, f.pointer, f.kind, f.message))


def diff_tools(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Finding]:
    name = str(new["name"])
    if old.get("description") != new.get("description"):
        a, b = old.get("description"), new.get("description")
        detail = word_diff(a or "", b or "") if isinstance(a, str | None) and isinstance(b, str | None) else None
        yield _finding("description-changed", name, "/description", "description changed", old=a, new=b, detail=detail)
    if old.get("title") != new.get("title"):
        yield _finding("title-changed", name, "/title", "title changed", old=old.get("title"), new=new.get("title"))
    yield from _annotations(name, old.get("annotations"), new.get("annotations"))
    for key in ("inputSchema", "outputSchema"):
        a, b = old.get(key), new.get(key)
        if key == "outputSchema" and (a is None) != (b is None):
            kind = "output-compatible" if a is None else "output-breaking"
            yield _finding(kind, name, f"/{key}", f"outputSchema {'added' if a is None else 'removed'}", old=a, new=b)
            continue
        for change in schemadiff.compare(a, b):
            kind = _EFFECT_KIND[key].get(change.effect) or (
                "schema-description-changed" if change.effect == "described" else "schema-changed"
            )
            severity: Severity = "medium" if change.message == "default changed" else KINDS[kind][1]
            pointer = f"/{key}{change.pointer}" if change.pointer != "/" else f"/{key}"
            yield _finding(kind, name, pointer, change.message, old=change.old, new=change.new, severity=severity)
    for key in sorted((old.keys() | new.keys()) - _MODELLED):
        if not _same(old.get(key), new.get(key)):
            pointer = "/" + escape(key)
            yield _finding("field-changed", name, pointer, f"'{key}' changed", old=old.get(key), new=new.get(key))


def _external_refs(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> Iterator[Finding]:
    """A `$ref` out of the tool, added or changed: whatever it names would be read at run time."""
    before = {(f.pointer, f.excerpt) for f in external_refs(old)} if old is not None else set()
    for hit in external_refs(new):
        if (hit.pointer, hit.excerpt) not in before:
            yield _finding("external-ref", hit.tool, hit.pointer, hit.message, new=hit.excerpt, rule=hit.rule)


def _annotations(tool: str, old: Any, new: Any) -> Iterator[Finding]:
    """Hints per the spec's defaults: readOnly false, destructive true, idempotent false, openWorld true.

    Rated by what changes for the agent: a framework asks for approval before calling a tool unless it
    claims `readOnlyHint: true` or `destructiveHint: false` (runtime/frameworks/bridge.py), so a new claim
    of either lets the tool run unasked (medium), and losing one makes a reviewed tool riskier (high).
    """
    a, b = old if isinstance(old, dict) else {}, new if isinstance(new, dict) else {}
    for key in sorted(a.keys() | b.keys()):
        if _same(a.get(key), b.get(key)):
            continue
        lost_read_only = key == "readOnlyHint" and a.get(key) is True and b.get(key) is not True
        now_destructive = key == "destructiveHint" and a.get(key) is False and b.get(key, True) is True
        claims = (key == "readOnlyHint" and b.get(key) is True) or (key == "destructiveHint" and b.get(key) is False)
        severity: Severity = "high" if lost_read_only or now_destructive else "medium" if claims else "low"
        message = f"annotation {key} changed: {a.get(key)!r} -> {b.get(key)!r}"
        pointer = f"/annotations/{key}"
        yield _finding("annotation-changed", tool, pointer, message, old=a.get(key), new=b.get(key), severity=severity)


def _server(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Finding]:
    old_server, new_server = old.get("server") or {}, new.get("server") or {}
    a, b = old_server.get("instructions"), new_server.get("instructions")
    if a != b:
        detail = word_diff(a or "", b or "") if isinstance(a, str | None) and isinstance(b, str | None) else None
        yield _finding(
            "server-changed", "", "/server/instructions", "server instructions changed",
            old=a, new=b, detail=detail, severity="medium",
        )  # fmt: skip
    for key in ("info", "capabilities"):
        a, b = old_server.get(key), new_server.get(key)
        if not _same(a, b):  # the server's version, what it offers: said old -> new, as the reviewer decides on it
            message = f"server {key} changed: {shown(a)} -> {shown(b)}"
            yield _finding("server-changed", "", f"/server/{key}", message, old=a, new=b)
    a, b = old.get("protocolVersion"), new.get("protocolVersion")
    if not _same(a, b):
        message = f"protocolVersion changed: {shown(a)} -> {shown(b)}"
        yield _finding("server-changed", "", "/protocolVersion", message, old=a, new=b)
    yield from _source(old.get("source") or {}, new.get("source") or {})
    yield from _capabilities(old.get("clientCapabilities"), new.get("clientCapabilities"))
    yield from _rejected(old.get("rejected") or [], new.get("rejected") or [])


def shown(value: Any) -> str:
    """A value as a report shows it in `old -> new`: JSON, or `unset` for a field that is not there."""
    return "unset" if value is None else json.dumps(value, ensure_ascii=False)


def _source(old: Mapping[str, Any], new: Mapping[str, Any]) -> Iterator[Finding]:
    """One finding per changed field of what runs or where credentials go, its values masked (`***`).

    Every field is high (breaking): a new argument can run other code, a new URL or header receives the
    credentials. Only a wait (`timeout`), whose credentials listed the tools (`listedWith`), fewer OAuth
    scopes or no sign-in at all are low.
    """
    for change in source.changes(old, new):
        field, why = f"source.{change.field}", ""
        if change.old is None:
            message = f"{field} added: {shown(change.new)}"
        elif change.new is None:
            message = f"{field} removed (was {shown(change.old)})"
        else:
            message = f"{field} changed: {shown(change.old)} -> {shown(change.new)}"
        kind, severity = ("server-changed", "low") if change.minor else ("source-changed", "high")
        if change.field == "auth":
            why = "now signed in to with OAuth" if isinstance(change.new, Mapping) else ""
            severity = "high" if why else "low"
        elif change.field == "auth.scopes":
            wider = sorted(set(_strings(change.new)) - set(_strings(change.old)))
            why = f"more OAuth scopes are asked for: {', '.join(wider)}" if wider else ""
            severity = "high" if wider else "low"
        message += f" ({why})" if why else ""
        yield _finding(kind, "", change.pointer, message, old=change.old, new=change.new, severity=severity)


# What a client capability lets a server do, for the reviewer of a lockfile that newly offers it.
_CAPABILITIES = {
    "sampling": "ask the agent's model to write text",
    "elicitation": "ask the user questions",
    "roots": "learn the client's directories",
}


def _capabilities(old: Any, new: Any) -> Iterator[Finding]:
    """A capability the client newly offers is something the server can now ask for (medium); one less, low."""
    before, after = _strings(old), _strings(new)
    for i, name in enumerate(after):
        if name not in before:
            can = _CAPABILITIES.get(name, f"use the client's '{name}' capability")
            message = f"client capability '{name}' added: the server can now {can}"
            yield _finding("capability-added", "", f"/clientCapabilities/{i}", message, new=name)
    for name in before:
        if name not in after:
            yield _finding("server-changed", "", "/clientCapabilities", f"client capability '{name}' removed", old=name)


def _strings(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _rejected(old: list[Any], new: list[Any]) -> Iterator[Finding]:
    """One finding per tool that became (or stopped being) unlockable, naming it and why."""
    before = {(r.get("name", ""), r.get("reason", "")) for r in old if isinstance(r, dict)}
    after = {(r.get("name", ""), r.get("reason", "")) for r in new if isinstance(r, dict)}
    for name, why in sorted(after - before):
        message = f"tool '{name}' is served but cannot be locked: {why}"
        yield _finding("server-changed", str(name), "/rejected", message, new=why, severity="medium")
    for name, why in sorted(before - after):
        message = f"tool '{name}' is no longer rejected (was: {why})"
        yield _finding("server-changed", str(name), "/rejected", message, old=why)


def _poisoning(
    old_tools: dict[str, Any],
    new_tools: dict[str, Any],
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    servers: Collection[str],
    foreign: Collection[str],
) -> Iterator[Finding]:
    """Lint the text that is new: added tools, and changed texts of changed tools."""
    names = set(new_tools)
    servers = [s for s in servers if s not in (old.get("name"), new.get("name"))]
    for name, tool in sorted(new_tools.items()):
        before = old_tools.get(name)
        if before is not None and _same(before, tool):
            continue
        now, was = dict(tool_texts(tool)), dict(tool_texts(before)) if before is not None else {}
        for hit in lint_tool(tool, known_tools=names - {name}, known_servers=servers, foreign_tools=foreign):
            if hit.pointer in was and was[hit.pointer] == now.get(hit.pointer):  # text the reviewer saw before
                continue
            if hit.rule == "external-ref":  # its own finding, breaking (see _external_refs)
                continue
            yield _finding(
                "poisoning", name, hit.pointer, f"{hit.rule}: {hit.message}",
                severity=hit.severity, detail=hit.excerpt, rule=hit.rule,
            )  # fmt: skip
    instructions = (new.get("server") or {}).get("instructions")
    if isinstance(instructions, str) and instructions != (old.get("server") or {}).get("instructions"):
        hits = lint_text(
            instructions, tool="", pointer="/server/instructions", known_servers=servers, foreign_tools=foreign
        )
        for hit in hits:
            yield _finding(
                "poisoning", "", hit.pointer, f"{hit.rule}: {hit.message}",
                severity=hit.severity, detail=hit.excerpt, rule=hit.rule,
            )  # fmt: skip


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def word_diff(old: str, new: str) -> str:
    """`[-removed-]{+added+}` over words: prompt text is read by the model word by word."""
    a, b = visible(old).split(" "), visible(new).split(" ")
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(" ".join(a[i1:i2]))
        if op in ("delete", "replace"):
            out.append("[-" + " ".join(a[i1:i2]) + "-]")
        if op in ("insert", "replace"):
            out.append("{+" + " ".join(b[j1:j2]) + "+}")
    return " ".join(out)
