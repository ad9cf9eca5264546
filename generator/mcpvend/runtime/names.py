"""Provider-safe tool names: `server__tool`, one-to-one, the same in every process.

OpenAI and Anthropic accept function names matching `^[a-zA-Z0-9_-]{1,64}$`; MCP tool names
may hold dots, slashes, spaces or any Unicode, and two servers often serve the same name. A
name that already fits is kept as `server__tool`; any other is cut and given a hash suffix of
its own server and wire name, so it does not depend on the other tools. Only when two tools
still meet (say `a__b`/`c` and `a`/`b__c`) do the names of those two grow longer hashes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_LENGTH = 64
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_HASH_LENGTHS = (6, 10, 16, 32)


def _hash(server: str, tool: str, length: int) -> str:
    return hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:length]


def _hashed(server: str, tool: str, length: int) -> str:
    """A readable prefix of the sanitized name, then `_` and a hash of the exact server and tool."""
    readable = _UNSAFE.sub("_", f"{server}{SEPARATOR}{tool}").strip("_") or "tool"
    suffix = _hash(server, tool, length)
    return f"{readable[: MAX_LENGTH - len(suffix) - 1]}_{suffix}"


def provider_name(server: str, tool: str) -> str:
    """The name a provider API sees for one tool, before collisions are considered."""
    plain = f"{server}{SEPARATOR}{tool}"
    return plain if PROVIDER_NAME.match(plain) else _hashed(server, tool, _HASH_LENGTHS[0])


def provider_names(tools: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A provider name for every (server, wire name), all distinct; deterministic for the same set."""
    keys = sorted(set(tools))
    names = {key: provider_name(*key) for key in keys}
    for length in _HASH_LENGTHS[1:]:
        owners: dict[str, list[tuple[str, str]]] = {}
        for key in keys:
            owners.setdefault(names[key], []).append(key)
        clashes = [key for group in owners.values() if len(group) > 1 for key in group]
        if not clashes:
            return names
        for key in clashes:
            names[key] = _hashed(*key, length)
    if len(set(names.values())) != len(names):  # a SHA-256 collision: not expected in this universe
        raise ValueError("could not give every tool a distinct provider name")
    return names
