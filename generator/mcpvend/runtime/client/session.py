"""A pinned client: a server connected, its live tools held against the reviewed ones, and changes watched.

The typed wrappers (`connect()`) and a toolset's connections both start servers this one way, so a
change to how a session is pinned is made once.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TextIO

import mcp_types as types
from mcp import Client
from mcp.shared.inbound import x_mcp_header_map

from .connection import InputHandlers, beside, open_client
from .manifest import MODERN, Manifest
from .methods import MAX_PAGES
from .pinning import DriftError, Pinning, Pins, watch_tool_changes
from .streams import Link, WireTap
from .targets import Target


@asynccontextmanager
async def pinned_client(
    target: Target,
    manifest: Manifest,
    pins: Pins,
    *,
    pinning: Pinning,
    errlog: TextIO | None = None,
    link: Link | None = None,
    handlers: InputHandlers | None = None,
) -> AsyncIterator[tuple[Client, WireTap | None]]:
    """The client and the tap its tool lists are read through (None when `pinning` is "off"), once the
    live tools were compared with the reviewed ones; `pins` hears of every change the server announces.
    It speaks the protocol era the server was reviewed in (`Manifest.protocol`): a server reviewed on
    2026-07-28 that no longer speaks it is refused rather than used on another protocol."""
    tap = WireTap() if pinning != "off" else None
    opened = open_client(
        target,
        capabilities=manifest.capabilities,
        protocol=manifest.protocol,
        tap=tap,
        errlog=errlog,
        on_tools_changed=pins.announce,
        link=link,
        handlers=handlers,
    )
    async with opened as client:
        if manifest.protocol_version == MODERN and client.protocol_version != MODERN:
            raise DriftError(
                f"server '{manifest.server}' was reviewed on protocol {MODERN} and now speaks"
                f" {client.protocol_version}: lock it again to review it on that protocol"
            )
        await pins.compare(client, tap)  # on every start: after a restart too
        if tap is None and _routes_by_header(manifest):
            await _list_for_header_routes(client)
        async with beside(functools.partial(watch_tool_changes, client, pins.announce)):
            yield client, tap


def _routes_by_header(manifest: Manifest) -> bool:
    """Whether a reviewed tool mirrors an argument into an `Mcp-Param-*` header (MCP 2026-07-28)."""
    return any(x_mcp_header_map(tool.get("inputSchema")) for tool in manifest.reviewed)


async def _list_for_header_routes(client: Client) -> None:
    """The SDK mirrors an argument into its header only for tools it has listed; unpinned, nothing else lists."""
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        cursor = (await client.session.list_tools(params=params)).next_cursor
        if cursor is None:
            return
