# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Where a server is, and the names the config uses for what a client advertises.

Kept free of `mcp` and `logging` imports (the log filter is `logs.py`) so that reading a config (and
`generate --check`) stays fast.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from .disguises import redact

Capability = Literal["elicitation", "roots", "sampling"]
CAPABILITIES: tuple[Capability, ...] = ("elicitation", "roots", "sampling")
Protocol = Literal["auto", "legacy", "2026-07-28"]
PROTOCOLS: tuple[Protocol, ...] = ("auto", "legacy", "2026-07-28")
_SHORTEST_SECRET = 4  # "1" or "on" would redact half of every message and protect nothing
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


# `python` in a config is the interpreter that runs mcpvend (`lock`, `diff --live`, `serve`) or the generated
# package, never whichever one PATH finds first: a server installed beside them starts, activated or not.
PYTHON_COMMANDS = ("python", "python3")


def executable(command: str) -> str:
    """The program to start for a configured (and expanded) `command`: see PYTHON_COMMANDS."""
    return sys.executable if command in PYTHON_COMMANDS and sys.executable else command


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
    """A server started as a child process, with every value already interpolated.

    `secrets` are the values that came from `${VAR}`s and must never be shown (env values always
    count too); they stay out of `repr` and equality, so a target can be compared and logged.
    """

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    secrets: frozenset[str] = field(default=frozenset(), compare=False)

    def secret_values(self) -> frozenset[str]:
        return meaningful([*self.env.values(), *self.secrets])

    def __repr__(self) -> str:
        shown = f"command={self.command!r}, args={self.args!r}, cwd={self.cwd!r}"
        return f"StdioTarget({redact(shown, self.secret_values())}, env names={sorted(self.env)})"


class NeedsSignIn(Exception):
    """A server asks for a sign-in that only a person can give (`mcpvend login SERVER`)."""

    def __init__(self, server: str, why: str = "needs sign-in") -> None:
        super().__init__(f"server '{server}' {why}: run mcpvend login {server}")
        self.server = server


@dataclass(frozen=True)
class OAuth:
    """A server's OAuth settings as configured (`client_secret` expanded: it counts among the target's secrets)."""

    server: str
    scopes: tuple[str, ...] = ()
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_name: str = "mcpvend"


@dataclass(frozen=True)
class HttpTarget:
    """An HTTP endpoint, with every value already interpolated (see `StdioTarget.secrets`).

    `sse`: the 2024-11-05 HTTP+SSE transport rather than streamable HTTP. `oauth`: the server signs
    clients in as MCP's authorization spec says; the tokens come from the user's token store.
    """

    url: str
    headers: Mapping[str, str] = field(default_factory=dict)
    secrets: frozenset[str] = field(default=frozenset(), compare=False)
    sse: bool = False
    oauth: OAuth | None = None

    def secret_values(self) -> frozenset[str]:
        """Header values, and the credentials of a `Scheme credentials` one (a server may quote just those)."""
        credentials = [v.split(None, 1)[1] for v in self.headers.values() if len(v.split(None, 1)) == 2]
        return meaningful([*self.headers.values(), *credentials, *self.secrets])

    def __repr__(self) -> str:
        return f"HttpTarget(url={redact(self.url, self.secret_values())!r}, header names={sorted(self.headers)})"


Target = StdioTarget | HttpTarget


def meaningful(values: Iterable[str]) -> frozenset[str]:
    """The values worth redacting, and their percent-decoded form (a URL's userinfo is sent decoded)."""
    given = tuple(values)
    from urllib.parse import (
        unquote,  # here: reading a config (`generate --check`) needs no URL parsing
    )

    return frozenset(v for v in (*given, *map(unquote, given)) if len(v) >= _SHORTEST_SECRET)
