# Vendored from mcpvend 0.1.0 by `mcpvend generate`: do not edit.
"""A pinned client: a server connected, its live tools held against the reviewed ones, and changes watched.

The typed wrappers (`connect()`) and a toolset's connections both start servers this one way, so a
change to how a session is pinned is made once.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

import mcp_types as types
from mcp import Client
from mcp.shared.inbound import x_mcp_header_map

from .connection import InputHandlers, beside, open_client
from .manifest import MODERN, Manifest
from .methods import MAX_PAGES
from .pinning import DriftError, Pinning, Pins, watch_tool_changes
from .streams import Link, WireTap
from .targets import Target
from .task_wire import TASKS_EXTENSION, CallSettings, TaskWire, attach


@dataclass(frozen=True)
class CallHandlers(InputHandlers):
    """`InputHandlers` that also say how calls use tasks and who hears their progress (`ConnectionOptions`)."""

    calls: CallSettings = field(default_factory=CallSettings)


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
    wire = task_wire(manifest, record=pinning != "off", handlers=handlers)
    tap: WireTap | None = wire if pinning != "off" else None
    opened = open_client(
        target,
        capabilities=manifest.capabilities,
        protocol=manifest.protocol,
        tap=wire,
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
        attach(client.session, wire)
        await pins.compare(client, tap)  # on every start: after a restart too
        if tap is None and _routes_by_header(manifest):
            await _list_for_header_routes(client)
        async with beside(functools.partial(watch_tool_changes, client, pins.announce)):
            yield client, tap


def task_wire(manifest: Manifest, *, record: bool, handlers: InputHandlers | None) -> TaskWire:
    """The wire for a connection's task calls, from the reviewed tools: their `execution.taskSupport`
    (2025-11-25), the server's tasks extension when the manifest records its capabilities (2026-07-28)."""
    support = {str(tool["name"]): _task_support(tool) for tool in manifest.reviewed}
    extensions = (manifest.server_capabilities or {}).get("extensions")
    recorded = (
        None
        if manifest.server_capabilities is None
        else isinstance(extensions, Mapping) and (TASKS_EXTENSION in extensions)
    )
    return TaskWire(
        record=record,
        support={name: value for name, value in support.items() if value is not None},
        extension=recorded,
        core=any(value in ("required", "optional") for value in support.values()),
        settings=handlers.calls if isinstance(handlers, CallHandlers) else None,
    )


def _task_support(tool: Mapping[str, Any]) -> str | None:
    execution = tool.get("execution")
    value = execution.get("taskSupport") if isinstance(execution, Mapping) else None
    return value if isinstance(value, str) else None


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
