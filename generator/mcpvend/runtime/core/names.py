"""Provider-safe tool names: `server__tool`, one-to-one, the same in every process.

OpenAI and Anthropic accept function names matching `^[a-zA-Z0-9_-]{1,64}$`; MCP tool names
may hold dots, slashes, spaces or any Unicode, and two servers often serve the same name. A
name that already fits is kept as `server__tool`; any other is cut and given a hash suffix of
its own server and wire name, so it does not depend on the other tools. Only when two tools
still meet (say `a__b`/`c` and `a`/`b__c`) do the names of those two grow longer hashes, and
then a count, until no two meet; a name that fits as it is keeps it against any hashed name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

PROVIDER_NAME = re.compile(r"\A[a-zA-Z0-9_-]{1,64}\Z")  # \Z: `$` would let a final newline through
MAX_LENGTH = 64
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]+")
_HASH_LENGTHS = (6, 10, 16, 32)


def _hash(server: str, tool: str, length: int) -> str:
    return hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:length]


def _hashed(server: str, tool: str, level: int) -> str:
    """A readable prefix of the sanitized name, then `_` and a hash of the exact server and tool, longer
    at each collision (`level`); past the longest hash, a count follows it."""
    readable = _UNSAFE.sub("_", f"{server}{SEPARATOR}{tool}").strip("_") or "tool"
    suffix = _hash(server, tool, _HASH_LENGTHS[min(level, len(_HASH_LENGTHS) - 1)])
    if level >= len(_HASH_LENGTHS):
        suffix += f"_{level - len(_HASH_LENGTHS) + 2}"
    return f"{readable[: MAX_LENGTH - len(suffix) - 1]}_{suffix}"


def provider_name(server: str, tool: str) -> str:
    """The name a provider API sees for one tool, before collisions are considered."""
    plain = f"{server}{SEPARATOR}{tool}"
    return plain if PROVIDER_NAME.fullmatch(plain) else _hashed(server, tool, 0)


def provider_names(tools: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A provider name for every (server, wire name), all distinct; deterministic for the same set.

    Every name is checked again after each change: a hashed name can be another tool's own plain name,
    or meet another hashed one. Of the tools that meet, the one whose plain name it is (if only one)
    keeps it; the others move on to their next `_hashed` name. Ends: two tools' hashed names meet at
    every level only if their 32-hex hashes are equal.
    """
    keys = sorted(set(tools))
    names = {key: provider_name(*key) for key in keys}
    levels = dict.fromkeys(keys, 0)
    while True:
        owners: dict[str, list[tuple[str, str]]] = {}
        for key in keys:
            owners.setdefault(names[key], []).append(key)
        moving = [key for name, group in owners.items() if len(group) > 1 for key in _leaving(name, group)]
        if not moving:
            return names
        for key in moving:
            levels[key] += 1
            names[key] = _hashed(*key, levels[key])


def _leaving(name: str, group: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The tools that must give up `name`: all but the one whose own plain name it is, if just one is."""
    plain = [key for key in group if name == f"{key[0]}{SEPARATOR}{key[1]}"]
    return [key for key in group if len(plain) != 1 or key != plain[0]]
