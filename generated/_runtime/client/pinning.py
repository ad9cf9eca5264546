# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""Pinning: the tools a server serves, held against the reviewed ones, at start and whenever they may change.

A server can change a tool under a running agent (a "rug pull"). It may announce it with
`notifications/tools/list_changed`, or not: an HTTP endpoint can start answering from another
release at any time. So the live list is compared when a connection opens, again before the first
call after a change is announced, and, over HTTP, again once `pin_ttl` seconds have passed since
the last comparison. Under "strict" a tool that changed is refused from then on, while the others
keep working; "warn" logs each change once per process; "off" compares nothing.

Tools are compared as JSON values (`true` is not `1`, key order does not count), which needs no
canonical encoding at run time; the digests in lockfiles serve reviewers and other tools.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .methods import list_tools_raw
from .streams import WireTap

Pinning = Literal["strict", "warn", "off"]
DEFAULT_PIN_TTL = 3600.0
COMPARED_FIELDS = ("description", "inputSchema", "outputSchema", "annotations")

logger = logging.getLogger("mcpvend.pinning")
_warned: set[tuple[str, str, str]] = set()


async def watch_tool_changes(client: Client, announce: Callable[[], None]) -> None:
    """Announce every tool-list change a 2026-07-28 server publishes, until cancelled.

    Servers of that protocol send no `notifications/tools/list_changed` of their own accord: the
    changes come on a `subscriptions/listen` stream, which this holds open. (Earlier protocols send
    the notification; `open_client` hands it on.) A server that offers no stream, or drops it, is
    left to the other re-checks.
    """
    capabilities = client.server_capabilities
    offered = capabilities is not None and capabilities.tools is not None and capabilities.tools.list_changed
    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or not offered:
        return
    try:
        async with client.listen(tools_list_changed=True) as events:
            async for _ in events:
                announce()
    except Exception:
        logger.debug("server '%s' stopped publishing tool changes", client.server_info, exc_info=True)


class DriftError(Exception):
    """A tool that no longer matches its reviewed definition was refused (pinning="strict")."""


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value: key order aside, and a boolean is never a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b  # `1` and `1.0` are one JSON number
    return type(a) is type(b) and a == b


@dataclass(frozen=True)
class PinReport:
    """How the live server's tools compare with the reviewed ones."""

    drifted: Mapping[str, str] = field(default_factory=dict)  # tool -> the parts that changed
    missing: tuple[str, ...] = ()  # reviewed, but not served any more
    unknown: tuple[str, ...] = ()  # served, but never reviewed

    def reasons(self) -> dict[str, str]:
        """Why each refused tool is refused."""
        reasons = {name: f"its {parts} changed since review" for name, parts in self.drifted.items()}
        reasons.update({name: "the server no longer serves it" for name in self.missing})
        return reasons


def pin(reviewed: Iterable[Mapping[str, Any]], live: Iterable[Any]) -> PinReport:
    """Compare the tools a server serves with the reviewed ones (both as served on the wire)."""
    expected = {tool["name"]: tool for tool in reviewed}
    served = {t["name"]: t for t in live if isinstance(t, dict) and isinstance(t.get("name"), str)}
    drifted = {}
    for name in sorted(expected.keys() & served.keys()):
        old, new = expected[name], served[name]
        if not same(old, new):
            parts = [key for key in COMPARED_FIELDS if not same(old.get(key), new.get(key))]
            drifted[name] = ", ".join(parts or ["other fields"])
    return PinReport(
        drifted, tuple(sorted(expected.keys() - served.keys())), tuple(sorted(served.keys() - expected.keys()))
    )


class Pins:
    """The pinning state of one server: what is refused, and whether the live list must be compared again.

    `announce()` is what a `tools/list_changed` notification calls; `ensure()` runs before every
    call and compares again when a change was announced, or the TTL (HTTP only) has passed.
    """

    def __init__(
        self, server: str, reviewed: Sequence[Mapping[str, Any]], pinning: Pinning, ttl: float | None = None
    ) -> None:
        self.server = server
        self.reviewed = tuple(reviewed)
        self.pinning = pinning
        self.ttl = ttl
        self.refused: dict[str, str] = {}  # tool -> why; a tool once refused stays refused
        self._announced = 0  # changes announced by the server
        self._compared = -1  # the announcement count at the last comparison (-1: never compared)
        self._compared_at = 0.0
        self._lock = anyio.Lock()

    def announce(self) -> None:
        self._announced += 1

    @property
    def announced(self) -> int:
        """How many changes the server has announced so far."""
        return self._announced

    def refusal(self, tool: str) -> str | None:
        reason = self.refused.get(tool)
        return None if reason is None else f"{reason} (pinning is strict; review and re-lock)"

    def _due(self) -> bool:
        if self.pinning == "off":
            return False
        expired = self.ttl is not None and time.monotonic() - self._compared_at >= self.ttl
        return self._compared != self._announced or expired

    async def ensure(self, client: Client, tap: WireTap | None) -> None:
        """Compare the live tools again if they may have changed (one comparison for concurrent callers)."""
        if not self._due():
            return
        async with self._lock:
            if self._due():
                await self.compare(client, tap)

    async def compare(self, client: Client, tap: WireTap | None) -> None:
        """List the live tools and compare them with the reviewed ones (needs the connection's `tap`)."""
        if self.pinning == "off" or tap is None:
            return
        announced = self._announced
        live, _ = await list_tools_raw(client, tap)
        reasons = pin(self.reviewed, live).reasons()
        if self.pinning == "warn":
            for name, reason in sorted(reasons.items()):
                if (self.server, name, reason) not in _warned:
                    _warned.add((self.server, name, reason))
                    logger.warning("server '%s': tool '%s' drifted: %s", self.server, name, reason)
        else:
            self.refused.update({name: reason for name, reason in reasons.items() if name not in self.refused})
        self._compared, self._compared_at = announced, time.monotonic()
