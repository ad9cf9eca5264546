# Part of the mcpvend runtime, vendored by `mcpvend generate`. Do not edit.
"""Where a server is, and the names the config uses for what a client advertises.

Kept free of `mcp` imports so that reading a config (and `generate --check`) stays fast.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

Capability = Literal["elicitation", "roots", "sampling"]
CAPABILITIES: tuple[Capability, ...] = ("elicitation", "roots", "sampling")
Protocol = Literal["auto", "legacy", "2026-07-28"]
PROTOCOLS: tuple[Protocol, ...] = ("auto", "legacy", "2026-07-28")
_SHORTEST_SECRET = (
    4  # "1" or "on" would redact half of every message and protect nothing
)
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class MissingVariable(KeyError):
    """A `${VAR}` with no default names a variable the environment lacks."""


def interpolate(text: str, environ: Mapping[str, str]) -> str:
    """Expand `${VAR}` and `${VAR:-default}`; a missing variable without a default raises MissingVariable."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise MissingVariable(name)

    return VARIABLE.sub(one, text)


@dataclass(frozen=True)
class StdioTarget:
    """A server started as a child process, with every value already interpolated."""

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None


@dataclass(frozen=True)
class HttpTarget:
    """A streamable-HTTP endpoint, with every value already interpolated."""

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)


Target = StdioTarget | HttpTarget


def meaningful(values: Iterable[str]) -> frozenset[str]:
    """The values worth redacting."""
    return frozenset(v for v in values if len(v) >= _SHORTEST_SECRET)


def redact(text: str, secrets: frozenset[str]) -> str:
    """Replace every secret value in a message, longest first so overlaps cannot leak a piece."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text
