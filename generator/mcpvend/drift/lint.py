"""Flag tool text that addresses the model instead of describing the tool ("tool poisoning").

A client shows a tool's description, titles and schema docs to the model as trusted context, so a
third-party server can hide instructions there: steer the model covertly, make it read secrets,
send data away, or change how it uses other tools. A reviewer of a lockfile diff should see those
spots named. The checks are offline, deterministic wording and character heuristics, tuned on 527
real tools to stay quiet on ordinary documentation: they point a human at text, they prove nothing.
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl, urlsplit

from mcpvend.schema_walk import walk

Severity = Literal["low", "medium", "high"]

MAX_LENGTH = 2000
EXCERPT_LENGTH = 80
RULES: dict[str, tuple[Severity, str]] = {
    "hidden-instruction": ("high", "wording that steers the model covertly: <IMPORTANT> tags, 'do not tell the user'"),
    "invisible-unicode": ("high", "invisible, bidi or control characters that hide text from a human reviewer"),
    "mixed-script": ("medium", "a word mixing Latin with Cyrillic or Greek look-alike letters"),
    "tool-reference": ("medium", "instructions about how another tool or server must behave (shadowing)"),
    "credential-reference": ("high", "credential file paths, private keys, or requests to read or send secrets"),
    "exfiltration-url": ("high", "a URL that receives data: send wording, smuggling query, capture host or raw IP"),
    "abnormal-length": ("low", f"a text over {MAX_LENGTH:,} characters: room for instructions nobody reads"),
}


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


_Span = tuple[int, int, str]  # start, end, message
_Check = Callable[[str, frozenset[str], "re.Pattern[str] | None"], Iterator[_Span]]  # text, other tools, servers

_HIDDEN = re.compile(
    r"<\s*/?\s*(?:important|system|instructions?|secret|hidden|admin|assistant)(?:\s[^>]*)?>"
    r"|<\|\s*(?:im_start|im_end|system|user|assistant|endoftext)\s*\|>|\[/?INST\]|<</?SYS>>"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier"
    r"|preceding)\s+(?:instructions|prompts|rules|directions)"
    r"|\b(?:do\s+not|don['\u2019]t|never)\s+(?:(?:tell|mention|inform|notify|alert|reveal|disclose)\s+"
    r"(?:(?:this|that|it|anything)\s+)?(?:to\s+)?(?:the\s+)?user|(?:mention|reveal|disclose)\s+(?:this|that|these|it)\b)"
    r"|\bwithout\s+(?:telling|informing|notifying|alerting|asking|letting)\s+(?:the\s+)?user"
    r"|\buser\s+(?:must|should|shall)\s+(?:not|never)\s+(?:know|see|notice|learn|find\s+out|be\s+told)"
    r"|\b(?:hide|keep)\s+(?:this|it|that)\s+(?:secret\s+)?from\s+the\s+user"
    r"|\bbefore\s+(?:using|calling|invoking|running)\s+this\s+tool\s*,?\s*(?:you\s+)?"
    r"(?:must\s+|should\s+|need\s+to\s+|have\s+to\s+)?(?:first\s+)?read\b"
    r"|\byou\s+are\s+now\b|\b(?:new|updated|real|actual)\s+instructions\s*:",
    re.IGNORECASE,
)
_NOT_PLAIN = re.compile(r"[^\t\n\r\x20-\x7e]+")
_LETTERS = re.compile(r"[^\W\d_]+")
# Greek letters are also units and symbols (5μs, 2πr, ΔT): only those that pass for Latin ones count.
_GREEK_LOOKALIKES = frozenset("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧαικνορυ")
# MCP tool names are [A-Za-z0-9_.-]; ASCII tokens also find names written next to CJK text.
_NAME_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")
_CAMEL = re.compile(r"[a-z][A-Z]")
_Q = r"['\"`]?"
# Shadowing makes another tool do something ("the send_email tool must ..."); naming it is documentation.
_SHADOW_BEFORE = re.compile(
    r"(?:instead\s+of\s+(?:using\s+|calling\s+)?|side[\s-]effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+)?"
    rf"|when(?:ever)?\s+(?:calling|using|invoking)\s+)(?:the\s+)?{_Q}$",
    re.IGNORECASE,
)
_SHADOW_AFTER = re.compile(
    rf"{_Q}\s*(?:tool|function)?\s*(?:must|should|shall|has\s+to|needs\s+to|is\s+(?:required|supposed)\s+to)\b",
    re.IGNORECASE,
)
_CREDENTIAL_PATH = re.compile(
    r"(?:(?:~|\$HOME)/)?(?<![\w.])(?:\.ssh\b(?:/[\w.-]+)*|\.aws/credentials|\.netrc|\.git-credentials|\.pgpass"
    r"|\.pypirc|\.npmrc|\.kube/config|\.docker/config\.json|\.cursor/mcp\.json|\.env(?:\.[\w-]+)?\b)"
    r"|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?:\.pub)?|/etc/(?:passwd|shadow)\b|\bclaude_desktop_config\.json"
    r"|(?-i:BEGIN[A-Z ]*PRIVATE KEY)",
    re.IGNORECASE,
)
# A parameter documented as "API key for the service" is normal: only a verb aimed at the secret fires.
_CREDENTIAL_REQUEST = re.compile(
    r"\b(?:read|send|include|pass|share|forward|attach|append|paste|leak|exfiltrate|upload|post|transmit|copy"
    r"|dump|reveal|extract|collect|steal|embed)\s+(?:\w+\s+){0,2}?(?:your|the\s+user['\u2019]s|the|all|any|their|every)"
    r"\s+(?:\w+\s+)?(?:api[\s_-]?keys?|(?:access|auth|bearer|session|refresh)[\s_-]?tokens?|tokens?|passwords?"
    r"|passphrases?|secrets?|credentials?|private[\s_-]keys?|ssh[\s_-]keys?|cookies?)\b",
    re.IGNORECASE,
)
# Brackets only in pairs and no final full stop: "(see https://x.org/a)." ends at `a`, `?q={x}` keeps its brace.
_URL = re.compile(
    r"\b(?:https?|wss?|ftp)://(?:[^\s<>\"'`(){}\[\]]|\([^\s()]*\)|\{[^\s{}]*\}|\[[^\s\[\]]*\])+(?<![.,;:!?])",
    re.IGNORECASE,
)
_CAPTURE_HOST = re.compile(
    r"(?<![\w.-])(?:[\w-]+\.)*(?:webhook\.site|requestbin\.\w+|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)"
    r"|pastebin\.com|hastebin\.com|paste\.ee|transfer\.sh|beeceptor\.com|requestcatcher\.com|interact\.sh"
    r"|oastify\.com|burpcollaborator\.net|trycloudflare\.com|loca\.lt|serveo\.net"
    r"|discord(?:app)?\.com/api/webhooks)(?![\w-]|\.\w)",
    re.IGNORECASE,
)
_SMUGGLING_KEYS = frozenset({"data", "payload", "content", "conversation", "chat", "history", "secret", "token"})
_PLACEHOLDER = re.compile(r"[{}<>]|%7B|%3C|\$\w|%s", re.IGNORECASE)
# "POST the conversation to <url>": a send verb, then something to send, then "to", right before the URL.
_SEND_BEFORE = re.compile(
    r"\b(?:send|post|upload|forward|exfiltrate|report|transmit|submit|leak|copy|pipe|mirror)(?:s|ed|ing)?\b"
    r"(?=[^.!?\n]{0,80}?\b(?:conversation|chat|history|messages?|data|contents?|results?|outputs?|responses?"
    r"|files?|context|prompts?|everything|information|details|logs?|keys?|tokens?|credentials?|secrets?"
    r"|passwords?|emails?|answers?|it|them|this|all)\b)[^.!?\n]{0,80}?\b(?:to|at|into)\s+$",
    re.IGNORECASE,
)


def lint_text(
    text: str, *, tool: str, pointer: str, known_tools: Collection[str] = (), known_servers: Collection[str] = ()
) -> list[LintFinding]:
    """Every finding in one text; `tool` itself is never "another tool", even when in `known_tools`."""
    others, servers = frozenset(known_tools) - {tool}, _server_pattern(tuple(sorted(set(known_servers))))
    spans = {
        (rule, span) for rule, checks in _CHECKS.items() for check in checks for span in check(text, others, servers)
    }
    return _sorted(
        LintFinding(rule, RULES[rule][0], tool, pointer, start, end, _excerpt(text[start:end]), message)
        for rule, (start, end, message) in spans
    )


def lint_tool(
    tool: Mapping[str, Any], *, known_tools: Collection[str] = (), known_servers: Collection[str] = ()
) -> list[LintFinding]:
    name = tool.get("name")
    name = name if isinstance(name, str) else ""
    return _sorted(
        finding
        for pointer, text in tool_texts(tool)
        for finding in lint_text(text, tool=name, pointer=pointer, known_tools=known_tools, known_servers=known_servers)
    )


def lint_document(document: Mapping[str, Any], *, known_servers: Collection[str] = ()) -> list[LintFinding]:
    """A lockfile's findings. A server's instructions may name its own tools, so only servers count there."""
    tools = [_mapping(_mapping(entry).get("tool")) for entry in document.get("tools") or ()]
    names = [t["name"] for t in tools if isinstance(t.get("name"), str)]
    server = _mapping(document.get("server"))
    others = [s for s in known_servers if s not in (document.get("name"), _mapping(server.get("info")).get("name"))]
    findings = [f for t in tools for f in lint_tool(t, known_tools=names, known_servers=others)]
    if isinstance(instructions := server.get("instructions"), str):
        findings += lint_text(instructions, tool="", pointer="/server/instructions", known_servers=others)
    return _sorted(findings)


def tool_texts(tool: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Each prose text a client may show the model, with its JSON Pointer within the tool."""
    for key in ("description", "title"):
        if isinstance(text := tool.get(key), str):
            yield f"/{key}", text
    if isinstance(title := _mapping(tool.get("annotations")).get("title"), str):
        yield "/annotations/title", title
    for key in ("inputSchema", "outputSchema"):
        yield from _schema_texts(tool.get(key), f"/{key}")


def _schema_texts(schema: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """Titles and descriptions of a schema and of every subschema."""
    for where, node in walk(schema, pointer):
        for key in ("title", "description"):
            if isinstance(text := node.get(key), str):
                yield f"{where}/{key}", text


def _mapping(value: Any) -> Mapping[str, Any]:
    """`value` if it is an object: validating a lockfile is not the linter's job, surviving a bad one is."""
    return value if isinstance(value, Mapping) else {}


def _sorted(findings: Iterable[LintFinding]) -> list[LintFinding]:
    return sorted(findings, key=lambda f: (f.tool, f.pointer, f.start, f.rule, f.end, f.message))


def _excerpt(span: str) -> str:
    shown = visible(span)
    return shown if len(shown) <= EXCERPT_LENGTH else shown[: EXCERPT_LENGTH - 1] + "…"


def visible(text: str) -> str:
    """Text with every invisible, control or line-breaking character shown as an escape: a reviewer must see it."""
    return "".join(
        c if c == " " or c.isprintable() else f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}"
        for c in text
    )


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") or 0xE0000 <= ord(char) <= 0xE007F  # Cc: \n too


def _matches(pattern: re.Pattern[str], message: str) -> _Check:
    return lambda text, *_: (
        (m.start(), m.end(), message.format(" ".join(m[0].split()))) for m in pattern.finditer(text)
    )


def _invisible(text: str, *_: object) -> Iterator[_Span]:
    for match in _NOT_PLAIN.finditer(text):
        start = match.start()
        for hidden, group in itertools.groupby(match[0], key=_hidden):
            run = "".join(group)
            if hidden:
                names = sorted({unicodedata.name(c, f"U+{ord(c):04X}") for c in run})
                shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
                yield start, start + len(run), f"{len(run)} invisible character(s) ({shown}) hide text from a reviewer."
            start += len(run)


def _mixed_scripts(text: str, *_: object) -> Iterator[_Span]:
    for match in _LETTERS.finditer(text):
        word = match[0]
        if word.isascii() or not any(unicodedata.name(c, "").startswith("LATIN") for c in word):
            continue
        if foreign := [c for c in word if unicodedata.name(c, "").startswith("CYRILLIC") or c in _GREEK_LOOKALIKES]:
            letters = ", ".join(f"{c} (U+{ord(c):04X})" for c in dict.fromkeys(foreign))
            yield match.start(), match.end(), f"'{word}' mixes Latin with look-alike letters {letters}."


def _tool_references(text: str, tools: frozenset[str], servers: re.Pattern[str] | None) -> Iterator[_Span]:
    for match in _NAME_TOKEN.finditer(text):
        name = match[0].strip(".-")
        if name not in tools or not _distinctive(name):
            continue
        start = match.start() + match[0].index(name)
        end = start + len(name)
        if _SHADOW_BEFORE.search(text[max(0, start - 60) : start]) or _SHADOW_AFTER.match(text[end : end + 60]):
            yield start, end, f"Tells the model how another tool, '{name}', must behave."
    for match in servers.finditer(text) if servers else ():
        if match["kind"].lower() == "server" or _distinctive(match["name"]):  # "the fetch tool" may be a tool
            yield match.start(), match.end(), f"Tells the model about another server, '{match['name']}'."


def _distinctive(name: str) -> bool:
    """Whether a name is unlikely to be an ordinary word: `search` is prose, `send_email` is a tool."""
    return len(name) >= 4 and (len(name) >= 12 or any(c in name for c in "_-.") or bool(_CAMEL.search(name)))


@functools.lru_cache(maxsize=16)
def _server_pattern(servers: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for all server names, compiled once per set of servers rather than once per text."""
    if not servers:
        return None
    names = "|".join(re.escape(s) for s in sorted(servers, key=lambda s: (-len(s), s)))
    return re.compile(rf"\bthe\s+(?P<name>{names})\s+(?:mcp\s+)?(?P<kind>server|tools?)\b", re.IGNORECASE)


def _exfiltration(text: str, *_: object) -> Iterator[_Span]:
    urls = [m.span() for m in _URL.finditer(text)]
    for start, end in urls:
        reasons = _url_reasons(text[start:end])
        if send := _SEND_BEFORE.search(text, max(0, start - 160), start):
            reasons.append("is where the text tells the model to send data")
        if reasons:
            yield send.start() if send else start, end, f"The URL {' and '.join(reasons)}."
    for match in _CAPTURE_HOST.finditer(text):
        if not any(start <= match.start() < end for start, end in urls):
            yield match.start(), match.end(), "Names a request-capture, tunnel or paste service."


def _url_reasons(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:  # a malformed IPv6 host: not a destination either
        return []
    reasons = []
    if _routable_ip(host):
        reasons.append("points at a raw IP address")
    if _CAPTURE_HOST.match(host + parts.path):
        reasons.append("points at a request-capture, tunnel or paste service")
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(k.lower() in _SMUGGLING_KEYS or _PLACEHOLDER.search(v) for k, v in query):  # a `/{id}` path is REST docs
        reasons.append("has a query built to carry data")
    return reasons


def _routable_ip(host: str) -> bool:
    """An IP literal that leaves the machine: `http://127.0.0.1:8080` is a local service, not a drop box."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return not (address.is_loopback or address.is_unspecified)


def _long(text: str, *_: object) -> Iterator[_Span]:
    if len(text) > MAX_LENGTH:
        yield (
            MAX_LENGTH,
            len(text),
            f"The text runs {len(text):,} characters; past {MAX_LENGTH:,}, few reviewers read on.",
        )


_CHECKS: dict[str, tuple[_Check, ...]] = {
    "hidden-instruction": (_matches(_HIDDEN, "'{}' addresses the model, not the reader of the tool's docs."),),
    "invisible-unicode": (_invisible,),
    "mixed-script": (_mixed_scripts,),
    "tool-reference": (_tool_references,),
    "credential-reference": (
        _matches(_CREDENTIAL_PATH, "Names secret material, '{}', that a tool has no need to mention."),
        _matches(_CREDENTIAL_REQUEST, "Asks the model to read or hand over a secret: '{}'."),
    ),
    "exfiltration-url": (_exfiltration,),
    "abnormal-length": (_long,),
}
