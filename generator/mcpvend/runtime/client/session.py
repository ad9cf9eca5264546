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

from .connection import InputHandlers, Link, WireTap, beside, open_client
from .manifest import Manifest
from .pinning import Pinning, Pins, watch_tool_changes
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
    It speaks the protocol era the server was reviewed in (`Manifest.protocol`)."""
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
        await pins.compare(client, tap)  # on every start: after a restart too
        _header_routes(client, manifest)
        async with beside(functools.partial(watch_tool_changes, client, pins.announce)):
            yield client, tap


def _header_routes(client: Client, manifest: Manifest) -> None:
    """The `Mcp-Param-*` headers a 2026-07-28 call mirrors, from the reviewed schemas: the SDK derives them
    from a tools/list only, which `pinning="off"` never sends. It has no public way to be told them."""
    reviewed = types.ListToolsResult(tools=[types.Tool.model_validate(tool) for tool in manifest.reviewed])
    client.session._absorb_tool_listing(reviewed, complete=False)  # private, see above
