# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""How a toolset reaches its servers: pinning, time limits, and the values their config leaves to run time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT

from .connection import InputHandlers
from .pinning import DEFAULT_PIN_TTL, Pinning
from .pool import DEFAULT_TIMEOUT


@dataclass(frozen=True)
class ConnectionOptions:
    """`pinning` ("strict", "warn", "off") of live tools against reviewed ones (over HTTP again every `pin_ttl`
    seconds); `timeout` bounds each call, `start_timeout` each start (None: the lockfile's); `env` and
    `headers` give values by server name (`${VAR}` in them expanded when that server starts); `cwd` is
    where stdio servers start; `errlog` takes their stderr. `elicitation`, `sampling` and `roots` answer
    a server's requests for input, with the SDK's callback signatures, in both protocol eras (None:
    declined, refused, no roots), for the capabilities each lockfile records."""

    pinning: Pinning = "strict"
    timeout: float = DEFAULT_TIMEOUT
    start_timeout: float | None = None
    pin_ttl: float = DEFAULT_PIN_TTL
    env: Mapping[str, Mapping[str, str]] | None = None
    headers: Mapping[str, Mapping[str, str]] | None = None
    cwd: str | None = None
    errlog: TextIO | None = None
    elicitation: ElicitationFnT | None = None
    sampling: SamplingFnT | None = None
    roots: ListRootsFnT | None = None

    @property
    def handlers(self) -> InputHandlers:
        return InputHandlers(self.elicitation, self.sampling, self.roots)
