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
    """What else the model sees beside the text: other tools (`foreign` ones belong to other servers).

    `own` are the text's own tools (the one it describes; all a server's, in its instructions): never "another".
    """

    tools: frozenset[str] = frozenset()
    foreign: frozenset[str] = frozenset()
    servers: re.Pattern[str] | None = None
    own: frozenset[str] = frozenset()


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
# Tools nobody locked here (a server the user runs elsewhere) are named as tools ("the X tool"), by their owner
# ("the github server's X", "the user's X tool", "(mcp_whatsapp) X"), or by a name no prose word has (send_email).
_TOOL_WORD = re.compile(rf"{_Q}\s*(?:tool|function)\b", re.IGNORECASE)
# A name that may be such a tool's: shaped like one (`_`, camelCase, a dash, "mcp"), or any name before "tool".
_SHAPED = r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]*(?:_|[a-z][A-Z]|-|(?i:mcp))[A-Za-z0-9_.-]*"
_TOOL_SHAPED = re.compile(_SHAPED)
_TOOL_NAMED = re.compile(rf"{_SHAPED}|(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]+(?={_Q}\s*(?i:tool|function)\b)")
_OWNED = r"(?:\b[\w.-]+\s+(?:mcp\s+)?server|\bthe\s+user|(?-i:\b[A-Z][\w.-]*))['\u2019]s\s+"
_OWNER = re.compile(rf"(?:{_OWNED}|\([\w.-]+\)\s*){_Q}$", re.IGNORECASE)
_NOT_A_NAME = re.compile(
    r"this|that|these|those|the|an?|any|each|every|other|another|same|such|some|all|both|either|no|one|its|their"
    r"|your|our|my|following|previous|next|first|last|new|old|right|correct|appropriate|relevant|respective|specific"
    r"|given|selected|current|dedicated|separate|corresponding|underlying|above|below|which|what|mcp|main|primary"
    r"|only|powerful|specialized|advanced|unified|detailed|comprehensive|optional|single|simple",
    re.IGNORECASE,
)
# One dash makes a tool when a verb leads (`send-email`), and a word otherwise (`built-in`, `read-only`, `real-time`).
_DASHED_TOOL = re.compile(
    r"(?:get|list|send|create|read|write|delete|update|search|fetch|post|save|add|remove|query|find|upload|download"
    r"|execute|exec|make|generate|edit|move|copy|start|stop|transfer|submit|publish|deploy|sync|export|import)"
    r"-(?!(?:only|time|based|like|level|side|party|safe|ready|friendly|free|wide|write|through)\Z)[a-z0-9]{3,}",
    re.IGNORECASE,
)
# What only shadowing says about a tool it does not own; recommending it ("use X first") says none of it.
_STRANGER_BEFORE = re.compile(
    r"(?:instead\s+of\s+(?:using|calling|invoking)\s+|side[\s-]effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+)?"
    r"|when(?:ever)?\s+(?:you\s+)?(?:are\s+)?(?:calling|using|invoking|call|use|invoke)\s+"
    r"|when(?:ever)?\s+the\s+(?:user|agent|assistant|model)\s+(?:calls|uses|invokes|runs)\s+"
    r"|(?:override|intercept|hijack|shadow)\s+(?:the\s+behaviou?r\s+of\s+)?"
    r"|(?P<weak>replace|redirect|overwrite)\s+|(?:replace|redirect|overwrite)\s+the\s+behaviou?r\s+of\s+"
    r"|all\s+(?:calls|requests|invocations)\s+(?:to|of)\s+"
    r"|(?:modify|change|alter|override|overwrite|replace|ignore|discard|correct|falsify)\s+(?:the\s+)?(?:\w+\s+){0,2}?"
    r"(?:results?|outputs?|responses?|answers?|return\s+values?)\s+(?:of|from)\s+"
    r"|(?P<order>(?:before|after)\s+(?:calling|using|invoking|running|executing)\s+))"
    rf"(?:the\s+)?(?:{_OWNED})?{_Q}$",
    re.IGNORECASE,
)
# Words one of those must contain: a literal test is a hundred times cheaper than trying the pattern at each place.
_STRANGER_GATE = re.compile(
    "instead|side|when|overr|intercept|hijack|shadow|replac|redirect|overwrit|calls|requests|invocations|result"
    "|output|respons|answer|return|before|after"
)
# After "before calling X": an order to the model ("..., you must read .bashrc"), not the tools' sequence.
_ORDERED = re.compile(
    r"[^.!?\n]{0,80}?(?:,\s*(?:you\s+)?(?:must|should|shall|always|need\s+to|have\s+to|first|also|make\s+sure)\b"
    r"|\b(?:run|call|use|execute|invoke)\s+this\s+(?:tool|function)\b)",
    re.IGNORECASE,
)
_STRANGER_AFTER = re.compile(
    rf"{_Q}\s*(?:tool|function)\s+(?:must|should|shall|has\s+to|needs\s+to|is\s+(?:required|supposed)\s+to"
    r"|will\s+now|now\s+(?:uses?|sends?|requires?|defaults?|routes?|redirects?|forwards?|points?|goes|adds?|includes?"
    r"|calls?|returns?|writes?|runs?|has)\b|has\s+been\s+(?:optimized|optimised|enhanced|upgraded|updated|modified"
    r"|changed|patched|replaced|reconfigured|redirected|overridden|extended)|was\s+(?:updated|upgraded|changed"
    r"|modified|replaced|patched))"
    rf"|{_Q}\s+(?:must|should|shall|has\s+to|needs\s+to)\s+(?:now\s+|also\s+|always\s+|only\s+)?"
    r"(?:send|forward|route|redirect|bcc|cc|deliver|mirror|transfer)\b",
    re.IGNORECASE,
)
# "Whenever send_email is called, add a BCC": a trigger, then an order in the same sentence.
_STRANGER_TRIGGER = re.compile(
    rf"\b(?:when(?:ever)?|if|once|before|after|each\s+time|every\s+time)\s+(?:the\s+)?(?:\([\w.-]+\)\s*)?{_Q}$",
    re.IGNORECASE,
)
_TRIGGER_ORDER = re.compile(
    rf"{_Q}\s*(?:tool\s+|function\s+)?(?:is|gets)\s+(?:invoked|called|used|run|executed)\b[^.!?\n]{{0,40}}?[,:]\s*\w",
    re.IGNORECASE,
)
# "The X tool is broken, use this instead": another tool discredited so that this one stands in for it.
_DISCREDITED = re.compile(
    rf"{_Q}\s*(?:tool|function)?\s+(?:is|are|has\s+been|was)\s+(?:now\s+)?(?:deprecated|broken|disabled|unsafe"
    r"|insecure|compromised|obsolete|unreliable|retired|not\s+safe|no\s+longer\s+(?:available|supported|safe|works?"
    r"|working|maintained|functional))\b[^\n]{0,100}?(?:\b(?:use|call|invoke|prefer|try)\s+this\b"
    r"|\bthis\s+(?:tool|function|one|server)\s+(?:instead|replaces)\b)",
    re.IGNORECASE,
)
# No name at all: "whenever you use ANY tool from ANY server", "when sending emails with any tool".
_ANY_TOOL = (
    r"(?:any|all|every|each|another|other|a\s+different)\s+(?:other\s+)?(?:[\w-]+\s+)?(?:tools?|servers?|functions?)"
)
_OTHER_TOOLS = re.compile(
    rf"\bwhen(?:ever)?\s+(?:you\s+)?(?:use|call|invoke|run)(?:s|ing)?\s+{_ANY_TOOL}\b"
    r"|\bwhen(?:ever)?\s+(?:you\s+)?(?:are\s+)?(?:send|writ|creat|post|repl|forward|upload|shar|transfer|pay|mak)\w*"
    rf"\b[^.!?\n]{{0,40}}?\b(?:with|using|via|through)\s+{_ANY_TOOL}\b"
    r"|\bfor\s+(?:all|any|every|each)\s+(?:[\w-]+\s+)?tools?\s+(?:from|of|on|in)\s+(?:any|all|every|each|other"
    r"|another)\s+(?:connected\s+|other\s+)?(?:mcp\s+)?servers?\b"
    r"|\b(?:all|any|every|each)\s+other\s+(?:tools?|servers?|functions?)\s+(?:must|should|shall|needs?\s+to"
    r"|ha(?:s|ve)\s+to)\b"
    rf"|\ball\s+(?:calls|requests|invocations)\s+(?:to|of)\s+{_ANY_TOOL}\b"
    r"|\b(?:every|each|all)\s+tool\s+(?:invocations?|calls?)\s+(?:must|should|shall|needs?\s+to)\b"
    r"|\b(?:use|call|invoke)\s+this\s+(?:tool|function|one)\s+(?:rather\s+than|instead\s+of)\s+(?:(?:any|all|the)\s+)?"
    r"(?:others\b|(?:any|all)\s+other\s+(?:tools?|functions?)\b)",
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
        if (name := match[0].strip(".-")) in known.tools and _distinctive(name):
            start = match.start() + match[0].index(name)
            end = start + len(name)
            if message := _known_reference(name, text[max(0, start - 80) : start], text[end : end + 120], known):
                yield start, end, message
    lowered = text.lower()  # most texts never say "tool": skip what needs the word
    tool_word = "tool" in lowered or "function" in lowered
    for match in _TOOL_NAMED.finditer(text) if tool_word else _TOOL_SHAPED.finditer(text):
        name = match[0].strip(".-")
        # Judged above: a locked tool named like `send_email`. Here: one nobody locked, another server's `search`.
        if (
            name
            and name not in known.own
            and (name not in known.tools or (name in known.foreign and not _distinctive(name)))
        ):
            start = match.start() + match[0].index(name)
            end = start + len(name)
            if message := _stranger(name, text[max(0, start - 80) : start], text[end : end + 120]):
                yield start, end, message
    for match in _OTHER_TOOLS.finditer(text) if tool_word or "server" in lowered or "other" in lowered else ():
        yield match.start(), match.end(), f"'{' '.join(match[0].split())}' tells the model how other tools must behave."
    for match in known.servers.finditer(text) if known.servers else ():
        if match["kind"].lower() == "server" or _distinctive(match["name"]):  # "the fetch tool" may be a tool
            yield match.start(), match.end(), f"Tells the model about another server, '{match['name']}'."


def _known_reference(name: str, before: str, after: str, known: Known) -> str | None:
    """A locked tool named in an instruction about it; another server's tool also in a call or a trigger."""
    shadowed = _SHADOW_BEFORE.search(before) or _SHADOW_AFTER.match(after)
    if name in known.foreign and (
        shadowed
        or _FOREIGN_CALL.search(before)
        or (_FOREIGN_TRIGGER.search(before) and _TRIGGERED.match(after))
        or _stranger(name, before, after)
    ):
        return f"Tells the model how another server's tool, '{name}', must be used."
    return f"Tells the model how another tool, '{name}', must behave." if shadowed else None


def _stranger(name: str, before: str, after: str) -> str | None:
    """A tool this project may not lock, named as a tool or by its owner, in wording only shadowing uses.

    Its name alone proves nothing (`file_path must be absolute` documents a parameter), so a bare name
    counts only where a parameter is never named: "instead of calling X", "whenever you use X".
    """
    named = bool(_TOOL_WORD.match(after)) and not _NOT_A_NAME.fullmatch(name)
    if not (named or _tool_like(name)):
        return None
    owner = _OWNER.search(before) if any(c in before[-4:] for c in "'\u2019)") else None  # a quick test first
    if owner and (
        _FOREIGN_CALL.search(before, 0, owner.start()) or (_FOREIGN_TRIGGER.search(before) and _TRIGGERED.match(after))
    ):
        return f"Tells the model how another server's tool, '{name}', must be used."
    shadow = _STRANGER_BEFORE.search(before) if _STRANGER_GATE.search(before.lower()) else None
    if shadow and ((shadow["weak"] and not (named or owner)) or (shadow["order"] and not _ORDERED.match(after))):
        shadow = None
    if shadow or _STRANGER_AFTER.match(after) or _DISCREDITED.match(after):
        return f"Tells the model how another tool, '{name}', must behave."
    if _TRIGGER_ORDER.match(after) and _STRANGER_TRIGGER.search(before):
        return f"Tells the model what to do when another tool, '{name}', is used."
    return None


def _tool_like(name: str) -> bool:
    """A name no prose word has: `send_email`, `sendEmail`, `get-forecast`, not `read-only`, `x.com` or `real-time`."""
    if len(name) < 4 or not any(c.isalpha() for c in name):
        return False
    last = name.rsplit(".", 1)[-1]
    if "." in name and not ("_" in last or "-" in last or _CAMEL.search(last)):
        return False  # a file or a host: `config.json`, `example.com`
    if "_" in name or _CAMEL.search(name) or name.count("-") >= 2 or "mcp" in name.lower():
        return True
    return bool(_DASHED_TOOL.fullmatch(last))


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
