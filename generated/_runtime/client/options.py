# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""How a toolset reaches its servers: pinning, time limits, and the values their config leaves to run time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

from mcp.client.session import ElicitationFnT, ListRootsFnT, SamplingFnT
from mcp.shared.dispatcher import ProgressFnT

from .pinning import DEFAULT_PIN_TTL, Pinning
from .pool import DEFAULT_TIMEOUT
from .session import CallHandlers
from .task_wire import CallSettings, TaskPreference


@dataclass(frozen=True)
class ConnectionOptions:
    """`pinning` ("strict", "warn", "off") of live tools against reviewed ones (over HTTP again every `pin_ttl`
    seconds); `timeout` bounds each call, `start_timeout` each start (None: the lockfile's); `env` and
    `headers` give values by server name (`${VAR}` in them expanded when that server starts); `cwd` is
    where stdio servers start; `errlog` takes their stderr. `elicitation`, `sampling` and `roots` answer
    a server's requests for input, with the SDK's callback signatures, in both protocol eras (None:
    declined, refused, no roots), for the capabilities each lockfile records. `tasks`: a tool whose reviewed
    entry says `taskSupport: "required"` runs as an MCP task either way (so does one a 2026-07-28 server runs
    only as one); "prefer" also runs as tasks those that may run as one (`"optional"`). A task's call waits
    for its result within `timeout`, and its statuses reach `progress` (the SDK's progress callback
    signature) as the progress a plain call's server reports does."""

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
    tasks: TaskPreference = "when-required"
    progress: ProgressFnT | None = None

    @property
    def handlers(self) -> CallHandlers:
        return CallHandlers(self.elicitation, self.sampling, self.roots, CallSettings(self.tasks, self.progress))
