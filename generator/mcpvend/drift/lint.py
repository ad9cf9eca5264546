"""Flag tool text that addresses the model instead of describing the tool ("tool poisoning").

A client shows a tool's description, titles, schema docs and parameter names to the model as trusted
context, so a third-party server can hide instructions there: steer the model covertly, keep things
from the user, make it read secrets or hand over the conversation, send data away, or change how it
uses other tools, even another server's. A reviewer of a lockfile diff should see those spots named.
Every rule is an offline, deterministic heuristic on wording (`wording_checks.py`) or on characters
and encodings (`character_checks.py`), tuned to flag the published attacks in
tests/data/poisoned/tools.json and to stay quiet on 527 real tools: they point a human at
text, they prove nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mcpvend.drift import character_checks as chars
from mcpvend.drift import wording_checks as words
from mcpvend.drift.character_checks import Span
from mcpvend.drift.character_checks import visible as visible
from mcpvend.drift.pattern_rules import slow_patterns
from mcpvend.schema_walk import escape, leaving_references, walk

Severity = Literal["low", "medium", "high"]

MAX_LENGTH = 2000
EXCERPT_LENGTH = 80
X_MCP_HEADER = "x-mcp-header"  # the SDK's X_MCP_HEADER_KEY
RULES: dict[str, tuple[Severity, str]] = {
    "hidden-instruction": ("high", "wording that steers the model covertly or keeps things from the user"),
    "invisible-unicode": (
        "high",
        "invisible, bidi, tag or control characters (ANSI escapes) that hide text from a reviewer",
    ),
    "mixed-script": ("medium", "a word mixing Latin with Cyrillic or Greek look-alike letters"),
    "tool-reference": ("medium", "instructions about how another tool or server, this one's or another's, must behave"),
    "credential-reference": ("high", "credential file paths, private keys, or requests to read or send secrets"),
    "exfiltration-url": ("high", "a URL that receives data: send wording, smuggling query, capture host or raw IP"),
    "hidden-comment": ("high", "an HTML or Markdown comment: text a rendered view drops and the model reads"),
    "encoded-payload": ("high", "a base64, hex or percent-encoded run that decodes to words or a URL"),
    "env-credential": (
        "high",
        "a request to read or pass an environment-variable credential (*_TOKEN, *_API_KEY, ...)",
    ),
    "context-exfiltration": ("high", "a request to put the conversation, its history or the system prompt into a call"),
    "tool-preference": ("medium", "wording that puts this tool ahead of every answer, or applies it without a call"),
    "abnormal-length": ("low", f"a text over {MAX_LENGTH:,} characters: room for instructions nobody reads"),
    "external-ref": (
        "high",
        "a schema $ref that leaves the tool (a file, a URL): validators and code generators would read it",
    ),
    "invalid-mcp-header": (
        "medium",
        "an x-mcp-header annotation clients must drop the tool for over HTTP (MCP 2026-07-28)",
    ),
    "slow-pattern": ("medium", "a schema pattern a backtracking regex engine takes exponential time on, as (a+)+"),
}

# Rules lint no longer has, still accepted in `[lint] ignore` (where they match nothing): a config written
# for an earlier mcpvend keeps working.
RETIRED = frozenset({"task-required"})  # mcpvend runs a task-only tool as a task


@dataclass(frozen=True)
class LintFinding:
    rule: str
    severity: Severity
    tool: str
    pointer: str
    start: int
    end: int
    excerpt: str
    message: str


_Check = Callable[[str, words.Known], Iterator[Span]]


def lint_text(
    text: str,
    *,
    tool: str,
    pointer: str,
    known_tools: Collection[str] = (),
    known_servers: Collection[str] = (),
    foreign_tools: Collection[str] = (),
    own_tools: Collection[str] = (),
) -> list[LintFinding]:
    """Every finding in one text; `tool` itself is never "another tool", even when in `known_tools`.

    `foreign_tools` are the (known) tools of other servers: more ways of naming them count as shadowing.
    `own_tools` are the text's own besides `tool` (a server's instructions own all its tools): never strangers.
    """
    foreign = frozenset(foreign_tools) - {tool}
    known = words.Known(
        frozenset(known_tools) - {tool} | foreign,
        foreign,
        words.server_pattern(tuple(sorted(set(known_servers)))),
        frozenset(own_tools) | {tool},
    )
    spans = {(rule, span) for rule, checks in _CHECKS.items() for check in checks for span in check(text, known)}
    return _sorted(
        LintFinding(rule, RULES[rule][0], tool, pointer, start, end, _excerpt(text[start:end]), message)
        for rule, (start, end, message) in spans
    )


def lint_tool(
    tool: Mapping[str, Any],
    *,
    known_tools: Collection[str] = (),
    known_servers: Collection[str] = (),
    foreign_tools: Collection[str] = (),
) -> list[LintFinding]:
    name = tool.get("name")
    name = name if isinstance(name, str) else ""
    texts = (
        finding
        for pointer, text in tool_texts(tool)
        for finding in lint_text(
            text, tool=name, pointer=pointer, known_tools=known_tools, known_servers=known_servers,
            foreign_tools=foreign_tools,
        )
    )  # fmt: skip
    return _sorted([*texts, *external_refs(tool), *protocol_findings(tool)])


def protocol_findings(tool: Mapping[str, Any]) -> Iterator[LintFinding]:
    """What breaks a tool at run time whatever its text: an invalid x-mcp-header (locked over stdio, it
    fails the day the server moves to HTTP) and a pattern that can hold the
    server's validator (or any backtracking one) for minutes on a short argument."""
    name = tool.get("name")
    name = name if isinstance(name, str) else ""
    if (why := _invalid_mcp_header(tool.get("inputSchema"))) is not None:
        message = f"{why}: over HTTP a client must drop this tool"
        yield LintFinding(
            "invalid-mcp-header", RULES["invalid-mcp-header"][0], name, "/inputSchema", 0, 0, _excerpt(why), message
        )
    for pointer, pattern, why in slow_patterns(tool):
        message = f"{why}: a backtracking engine, as the server's validator may be, takes time exponential in the text"
        yield LintFinding("slow-pattern", RULES["slow-pattern"][0], name, pointer, 0, 0, _excerpt(pattern), message)


def _invalid_mcp_header(schema: Any) -> str | None:
    """The SDK's verdict on the schema's `x-mcp-header` annotations. Importing the SDK costs about 2 s,
    most of a `lint` run, so it is asked only when the key appears somewhere in the schema."""
    if not _mentions(schema, X_MCP_HEADER):
        return None
    from mcp.shared.inbound import find_invalid_x_mcp_header

    return find_invalid_x_mcp_header(schema)


def _mentions(value: Any, key: str) -> bool:
    """Whether any object nested in `value` has `key`: a superset of the SDK's schema positions, which
    include some `schema_walk` does not enter (`contentSchema`), so it walks every object."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            if key in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


def external_refs(tool: Mapping[str, Any]) -> Iterator[LintFinding]:
    """A `$ref` out of the tool: `lock` refuses such a tool, so in a lockfile it was put there by hand."""
    name = tool.get("name")
    for key in ("inputSchema", "outputSchema"):
        for pointer, why in leaving_references(tool.get(key), f"/{key}"):
            yield LintFinding(
                "external-ref", RULES["external-ref"][0], name if isinstance(name, str) else "", pointer,
                0, 0, _excerpt(why), f"{why}: nothing outside the tool's schema may be read for it.",
            )  # fmt: skip


def lint_document(
    document: Mapping[str, Any], *, known_servers: Collection[str] = (), foreign_tools: Collection[str] = ()
) -> list[LintFinding]:
    """A lockfile's findings, knowing other servers and their tools.

    A server's instructions may name its own tools, so only other servers and their tools count there.
    """
    tools = [_mapping(_mapping(entry).get("tool")) for entry in document.get("tools") or ()]
    names = [t["name"] for t in tools if isinstance(t.get("name"), str)]
    server = _mapping(document.get("server"))
    others = [s for s in known_servers if s not in (document.get("name"), _mapping(server.get("info")).get("name"))]
    findings = [
        f for t in tools for f in lint_tool(t, known_tools=names, known_servers=others, foreign_tools=foreign_tools)
    ]
    if isinstance(instructions := server.get("instructions"), str):
        findings += lint_text(
            instructions,
            tool="",
            pointer="/server/instructions",
            known_servers=others,
            foreign_tools=foreign_tools,
            own_tools=names,
        )
    return _sorted(findings)


def tool_texts(tool: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Each text a client may show the model, with its JSON Pointer within the tool."""
    for key in ("description", "title"):
        if isinstance(text := tool.get(key), str):
            yield f"/{key}", text
    if isinstance(title := _mapping(tool.get("annotations")).get("title"), str):
        yield "/annotations/title", title
    for key in ("inputSchema", "outputSchema"):
        yield from _schema_texts(tool.get(key), f"/{key}")


def _schema_texts(schema: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """Titles, descriptions and property names of a schema and of every subschema.

    A property name is read by the model as words too: `content_from_reading_ssh_id_rsa` asks for a key.
    """
    for where, node in walk(schema, pointer):
        for key in ("title", "description"):
            if isinstance(text := node.get(key), str):
                yield f"{where}/{key}", text
        if isinstance(properties := node.get("properties"), Mapping):
            for name in properties:
                yield f"{where}/properties/{escape(str(name))}", str(name)


def _mapping(value: Any) -> Mapping[str, Any]:
    """`value` if it is an object: validating a lockfile is not the linter's job, surviving a bad one is."""
    return value if isinstance(value, Mapping) else {}


def _sorted(findings: Iterable[LintFinding]) -> list[LintFinding]:
    return sorted(findings, key=lambda f: (f.tool, f.pointer, f.start, f.rule, f.end, f.message))


def _excerpt(span: str) -> str:
    shown = visible(span)
    return shown if len(shown) <= EXCERPT_LENGTH else shown[: EXCERPT_LENGTH - 1] + "…"


def _characters(check: Callable[[str], Iterator[Span]]) -> _Check:
    return lambda text, _: check(text)


def _long(text: str, _: words.Known) -> Iterator[Span]:
    if len(text) > MAX_LENGTH:
        yield (
            MAX_LENGTH,
            len(text),
            f"The text runs {len(text):,} characters; past {MAX_LENGTH:,}, few reviewers read on.",
        )


_CHECKS: dict[str, tuple[_Check, ...]] = {
    "hidden-instruction": (words.hidden_instructions, words.secrecy),
    "invisible-unicode": (_characters(chars.invisible),),
    "mixed-script": (_characters(chars.mixed_scripts),),
    "tool-reference": (words.tool_references,),
    "credential-reference": (words.credential_paths, words.credential_requests),
    "exfiltration-url": (words.exfiltration,),
    "hidden-comment": (_characters(chars.comments),),
    "encoded-payload": (_characters(chars.encoded),),
    "env-credential": (words.env_credentials,),
    "context-exfiltration": (words.context_exfiltration,),
    "tool-preference": (words.preference,),
    "abnormal-length": (_long,),
}
