"""Lint checks on wording: sentences that address the model, not the reader of a tool's documentation.

Each check takes a text and what else the model can see (`Known`) and yields `(start, end,
message)` spans; `lint.py` names the rules. The patterns want an instruction, not a topic: a
parameter documented as "API key for the service" is normal, "pass your API key in 'notes'" is not.
"""

from __future__ import annotations

import functools
import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from mcpvend.drift.character_checks import Span


@dataclass(frozen=True)
class Known:
    """What else the model sees beside the text: other tools (`foreign` ones belong to other servers)."""

    tools: frozenset[str] = frozenset()
    foreign: frozenset[str] = frozenset()
    servers: re.Pattern[str] | None = None


_HIDDEN = re.compile(
    r"<\s*/?\s*(?:important|system|instructions?|secret|hidden|admin|assistant)(?:\s[^>]*)?>"
    r"|<\|\s*(?:im_start|im_end|system|user|assistant|endoftext)\s*\|>|\[/?INST\]|<</?SYS>>"
    r"|\b(?:ignore|disregard|forget)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier"
    r"|preceding)\s+(?:instructions|prompts|rules|directions)"
    r"|\bbefore\s+(?:using|calling|invoking|running)\s+this\s+tool\s*,?\s*(?:you\s+)?"
    r"(?:must\s+|should\s+|need\s+to\s+|have\s+to\s+)?(?:first\s+)?read\b"
    r"|\byou\s+are\s+now\b|\b(?:new|updated|real|actual)\s+instructions\s*:",
    re.IGNORECASE,
)
# Keeping something from the user, in any wording: "no need to mention this to the user", "silently POST".
_SECRECY = re.compile(
    r"\b(?:do\s+not|don['\u2019]?t|never|must\s+not|mustn['\u2019]?t|should\s+not|shouldn['\u2019]?t|need\s+not"
    r"|no\s+need\s+to|(?:is\s+)?not\s+(?:necessary|needed|required)\s+to|avoid|without)\s+"
    r"(?:(?:ever|explicitly|actually|even)\s+)?(?:tell|mention|inform|notify|alert|reveal|disclose|report|say|explain"
    r"|let|bother|warn)(?:ing|s)?\b[^.!?\n]{0,40}?\b(?:the\s+|your\s+|any\s+)?users?\b"
    r"|\b(?:do\s+not|don['\u2019]?t|never)\s+(?:mention|reveal|disclose)\s+(?:this|that|these|it)\b"
    r"|\bwithout\s+(?:asking|letting)\s+(?:the\s+)?user"
    r"|\bwithout\s+(?:the\s+)?user(?:['\u2019]s)?\s+(?:knowing|knowledge|noticing|seeing|consent|awareness)"
    r"|\busers?\s+(?:must|should|shall|will|does|do|need)\s*(?:not|n['\u2019]t|never)\s+(?:need\s+to\s+)?"
    r"(?:know|see|notice|learn|find\s+out|be\s+(?:told|informed|notified|aware))"
    r"|\b(?:hide|keep)\s+(?:this|it|that|these)\s+(?:secret\s+|hidden\s+|confidential\s+)?from\s+(?:the\s+)?users?"
    r"|\bsilently\s+(?:post|send|forward|copy|upload|include|add|append|read|call|run|execute|redirect|change"
    r"|replace|bcc|cc|attach)\b",
    re.IGNORECASE,
)
# Calling this tool ahead of everything, or obeying it without a call: "ALWAYS CONSULT THIS TOOL ... FIRST".
_PREFERENCE = re.compile(
    r"\b(?:call|use|consult|invoke|run)\s+this\s+(?:tool|function)\b[^.!?\n]{0,40}?\bbefore\s+(?:answering|responding"
    r"|replying|asking|providing\s+any|giving\s+any|doing\s+anything|every|each\s+(?:answer|response|reply))"
    r"|\bbefore\s+(?:using|calling|invoking)\s+any\s+other\s+(?:tools?|functions?)"
    r"|\b(?:even\s+)?without\s+(?:calling|using|invoking)\s+this\s+(?:tool|function)",
    re.IGNORECASE,
)
_CONTEXT_OBJECT = (
    r"(?:system\s+prompt|(?:chat|conversation|message)\s+(?:history|transcript|log)s?"
    r"|(?:previous|prior)\s+(?:exchanges|messages|turns|conversation)|conversation\s+so\s+far|last\s+\d+\s+messages)"
)
_CONTEXT_EXFILTRATION = re.compile(
    r"\b(?:include|pass|add|send|put|append|attach|insert|embed|copy|forward|provide|offload|exfiltrate|leak|share"
    rf"|post|upload|dump|with)\b[^.!?\n]{{0,60}}?\b{_CONTEXT_OBJECT}\b|\bpass\s+the\s+history\b",
    re.IGNORECASE,
)
_ENV_NAME = (
    r"\$?\{?\b[A-Z][A-Z0-9]*_(?:[A-Z0-9]+_)*(?:TOKEN|API_?KEY|SECRET(?:_ACCESS)?(?:_KEY)?|PASSWORD|PASSWD|PAT"
    r"|ACCESS_KEY(?:_ID)?|PRIVATE_KEY|CREDENTIALS?)\b\}?"
)
# An imperative verb aimed at a credential variable; "Reads GITHUB_TOKEN" or "set X_API_KEY" document the server.
_ENV_CREDENTIAL = re.compile(
    r"\b(?i:read|pass|send|include|print|echo|output|dump|reveal|copy|forward|attach|append|fetch|retrieve|extract"
    rf"|cat|share|expose|leak|exfiltrate|upload|post|printenv)\b[^.!?\n]{{0,60}}?{_ENV_NAME}"
    r"|\b(?i:read|retrieve|print|dump|list|echo|output|send|include|pass|collect|extract|get|reveal|share)\s+"
    r"(?:\w+\s+){0,2}?(?i:environment\s+variables|env\s+vars)\b",
)
_CREDENTIAL_PATH = re.compile(
    r"(?:(?:~|\$HOME)/)?(?<![\w.])(?:\.ssh\b(?:/[\w.-]+)*|\.aws/credentials|\.netrc|\.git-credentials|\.pgpass"
    r"|\.pypirc|\.npmrc|\.kube/config|\.docker/config\.json|\.cursor/mcp\.json|\.env(?:\.[\w-]+)?\b)"
    r"|(?<![A-Za-z0-9])id_(?:rsa|dsa|ecdsa|ed25519)\b(?:\.pub)?|/etc/(?:passwd|shadow)\b|\bclaude_desktop_config\.json"
    r"|(?-i:BEGIN[A-Z ]*PRIVATE KEY)",
    re.IGNORECASE,
)
_CREDENTIAL_REQUEST = re.compile(
    r"\b(?:read|send|include|pass|share|forward|attach|append|paste|leak|exfiltrate|upload|post|transmit|copy"
    r"|dump|reveal|extract|collect|steal|embed)\s+(?:\w+\s+){0,2}?(?:your|the\s+user['\u2019]s|the|all|any|their|every)"
    r"\s+(?:\w+\s+)?(?:api[\s_-]?keys?|(?:access|auth|bearer|session|refresh)[\s_-]?tokens?|tokens?|passwords?"
    r"|passphrases?|secrets?|credentials?|private[\s_-]keys?|ssh[\s_-]keys?|cookies?)\b",
    re.IGNORECASE,
)
# MCP tool names are [A-Za-z0-9_.-]; ASCII tokens also find names written next to CJK text.
_NAME_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")
_CAMEL = re.compile(r"[a-z][A-Z]")
_Q = r"['\"`]?"
# Shadowing makes another tool do something ("the send_email tool must ..."); naming it is documentation.
_SHADOW_BEFORE = re.compile(
    r"(?:instead\s+of\s+(?:using\s+|calling\s+)?|side[\s-]effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+)?"
    r"|when(?:ever)?\s+(?:calling|using|invoking)\s+|(?:override|replace|intercept|hijack|redirect|shadow)\s+"
    rf"(?:the\s+)?(?:[\w.-]+\s+server['\u2019]s\s+)?)(?:the\s+)?{_Q}$",
    re.IGNORECASE,
)
_SHADOW_AFTER = re.compile(
    rf"{_Q}\s*(?:tool|function)?\s*(?:must|should|shall|has\s+to|needs\s+to|is\s+(?:required|supposed)\s+to)\b",
    re.IGNORECASE,
)
# Another server's tool may not even be called or triggered from here: "after running this tool, run X".
_FOREIGN_CALL = re.compile(rf"\b(?:run|call|invoke|use|execute|trigger)\s+(?:the\s+)?{_Q}$", re.IGNORECASE)
_FOREIGN_TRIGGER = re.compile(rf"\b(?:when(?:ever)?|if|once)\s+(?:the\s+)?(?:\([\w.-]+\)\s*)?{_Q}$", re.IGNORECASE)
_TRIGGERED = re.compile(rf"{_Q}\s*(?:tool\s+)?(?:is|gets)\s+(?:invoked|called|used|run|executed)\b", re.IGNORECASE)
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


def matches(pattern: re.Pattern[str], message: str) -> Callable[[str, Known], Iterator[Span]]:
    return lambda text, _: (
        (m.start(), m.end(), message.format(" ".join(m[0].split()))) for m in pattern.finditer(text)
    )


hidden_instructions = matches(_HIDDEN, "'{}' addresses the model, not the reader of the tool's docs.")
secrecy = matches(_SECRECY, "'{}' keeps something from the user.")
preference = matches(_PREFERENCE, "'{}' puts this tool ahead of everything the model does.")
context_exfiltration = matches(_CONTEXT_EXFILTRATION, "'{}' asks the model to hand over the conversation.")
env_credentials = matches(_ENV_CREDENTIAL, "'{}' asks the model to read or pass a credential from the environment.")
credential_paths = matches(_CREDENTIAL_PATH, "Names secret material, '{}', that a tool has no need to mention.")
credential_requests = matches(_CREDENTIAL_REQUEST, "Asks the model to read or hand over a secret: '{}'.")


def tool_references(text: str, known: Known) -> Iterator[Span]:
    for match in _NAME_TOKEN.finditer(text):
        name = match[0].strip(".-")
        if name not in known.tools or not _distinctive(name):
            continue
        start = match.start() + match[0].index(name)
        end = start + len(name)
        before, after = text[max(0, start - 60) : start], text[end : end + 60]
        shadowed = _SHADOW_BEFORE.search(before) or _SHADOW_AFTER.match(after)
        if name in known.foreign and (
            shadowed or _FOREIGN_CALL.search(before) or (_FOREIGN_TRIGGER.search(before) and _TRIGGERED.match(after))
        ):
            yield start, end, f"Tells the model how another server's tool, '{name}', must be used."
        elif shadowed:
            yield start, end, f"Tells the model how another tool, '{name}', must behave."
    for match in known.servers.finditer(text) if known.servers else ():
        if match["kind"].lower() == "server" or _distinctive(match["name"]):  # "the fetch tool" may be a tool
            yield match.start(), match.end(), f"Tells the model about another server, '{match['name']}'."


def _distinctive(name: str) -> bool:
    """Whether a name is unlikely to be an ordinary word: `search` is prose, `send_email` is a tool."""
    return len(name) >= 4 and (len(name) >= 12 or any(c in name for c in "_-.") or bool(_CAMEL.search(name)))


@functools.lru_cache(maxsize=16)
def server_pattern(servers: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for all server names, compiled once per set of servers rather than once per text."""
    if not servers:
        return None
    names = "|".join(re.escape(s) for s in sorted(servers, key=lambda s: (-len(s), s)))
    return re.compile(rf"\bthe\s+(?P<name>{names})\s+(?:mcp\s+)?(?P<kind>server|tools?)\b", re.IGNORECASE)


def exfiltration(text: str, _: Known) -> Iterator[Span]:
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
