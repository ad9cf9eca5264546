"""Connect to one server and capture its tool list exactly as served."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
from mcp_types.methods import validate_server_result
from pydantic import ValidationError

from mcpvend.config import ServerConfig
from mcpvend.errors import MCPVendError, ServerError, printable
from mcpvend.lock.digests import NumberOutOfRange, tool_digests
from mcpvend.lock.schema_checks import schema_problem
from mcpvend.lock.served_secrets import refuse_served_secrets
from mcpvend.runtime.client import failures
from mcpvend.runtime.client.connection import open_client
from mcpvend.runtime.client.disguises import redact
from mcpvend.runtime.client.failures import validation_reason
from mcpvend.runtime.client.methods import ProtocolViolation, list_tools_raw
from mcpvend.runtime.client.streams import WireTap
from mcpvend.runtime.client.targets import NeedsSignIn, Target

_STDERR_TAIL_LINES = 12
_STDERR_TAIL_CHARS = 2000


@dataclass(frozen=True)
class Rejected:
    """A tool the server served that cannot be locked, and why."""

    name: str
    reason: str


@dataclass(frozen=True)
class Snapshot:
    """What one server said about itself and its tools, raw JSON kept as served."""

    server: ServerConfig
    protocol_version: str
    server_info: dict[str, Any]
    capabilities: dict[str, Any]
    instructions: str | None
    tools: list[dict[str, Any]]
    rejected: list[Rejected]
    private: bool = False  # the listing was served with cacheScope "private": it may differ per credential

    def served(self) -> dict[str, Any]:
        """What its lockfile would keep of what the server said, by where it said it."""
        return {
            "the server's instructions": self.instructions,
            "the server's info": self.server_info,
            "the server's capabilities": self.capabilities,
            **{f"tool {tool['name']!a}": tool for tool in self.tools},
            **{f"rejected tool {r.name!a}": [r.name, r.reason] for r in self.rejected},
        }


async def take_snapshot(server: ServerConfig, base_dir: Path, environ: Mapping[str, str]) -> Snapshot:
    """Start the server, list every tool, stop it; any failure is a ServerError naming it.

    A server whose args or url hold a literal credential is refused first: its lockfile would keep it.
    """
    server.refuse_literal_credentials()
    target, named = server.target(base_dir, environ)
    secrets = frozenset(named) | target.secret_values()
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(server.timeout):
                snapshot = await _capture(server, target, errlog if server.transport == "stdio" else None)
        except Exception as exc:  # noqa: BLE001 - every failure of a third-party server becomes one message
            leaf = failures.leaf(exc)
            if isinstance(leaf, MCPVendError | NeedsSignIn):
                message = str(leaf)
            elif isinstance(leaf, TimeoutError):
                message = f"server '{server.name}': no complete answer within {server.timeout:g}s (timeout)"
            else:
                message = f"server '{server.name}': {failures.reason(leaf)}"
            raise ServerError(_with_tail(redact(message, secrets), errlog, secrets)) from None
    refuse_served_secrets(server.name, snapshot.served(), named)
    return snapshot


async def _capture(server: ServerConfig, target: Target, errlog: TextIO | None) -> Snapshot:
    garbage: list[Exception] = []
    listed: tuple[dict[str, Any], str, list[Any], dict[str, Any]] | None = None  # hello, version, tools, envelope
    with anyio.CancelScope() as scope:

        def on_garbage(exc: Exception) -> None:
            garbage.append(exc)
            scope.cancel()

        tap = WireTap(on_garbage=on_garbage)
        async with open_client(
            target,
            capabilities=server.capabilities,
            protocol=server.protocol,
            read_timeout=server.timeout,
            errlog=errlog,
            tap=tap,
        ) as client:
            hello = tap.take("server/discover") or tap.take("initialize") or {}
            version = client.protocol_version
            try:
                raw_tools, envelope = await list_tools_raw(client, tap)
            except ProtocolViolation as exc:
                raise ServerError(f"server '{server.name}': {exc}") from None
            if (reason := _judge_result({**envelope, "tools": []}, version)) is not None:
                raise ServerError(f"server '{server.name}': tools/list result is invalid: {reason}")
            listed = hello, version, raw_tools, envelope
    if garbage or listed is None:  # the scope is cancelled by garbage alone
        bad = garbage[0] if garbage else ValueError("(nothing)")
        raise ServerError(f"server '{server.name}': wrote something that is not JSON-RPC to stdout: {_garbage(bad)}")
    hello, version, raw_tools, envelope = listed
    tools, rejected = _judge_all(server, raw_tools, envelope, version)
    meta = hello.get("_meta")
    info = hello.get("serverInfo") or (meta.get(types.SERVER_INFO_META_KEY) if isinstance(meta, dict) else None)
    instructions = hello.get("instructions")
    return Snapshot(
        server=server,
        protocol_version=version,
        server_info=info if isinstance(info, dict) else {},  # display only: a malformed one is not fatal
        capabilities=hello.get("capabilities") or {},
        instructions=instructions if isinstance(instructions, str) else None,
        tools=tools,
        rejected=rejected,
        private=envelope.get("cacheScope") == "private",
    )


def _garbage(bad: Exception) -> str:
    """What was written, cut short, and why it is no JSON when the SDK says (nested past its 255 levels, say)."""
    if not isinstance(bad, ValidationError):
        return str(bad)[:200]
    error = bad.errors()[0]
    shown = repr(error.get("input", ""))[:200]
    return f"{shown} ({error['msg']})" if error.get("type") == "json_invalid" else shown


def _judge_all(
    server: ServerConfig, raw_tools: list[Any], envelope: dict[str, Any], version: str
) -> tuple[list[dict[str, Any]], list[Rejected]]:
    """Split the served tools into lockable ones (filtered, sorted) and rejected ones."""
    kept: dict[str, dict[str, Any]] = {}
    rejected: list[Rejected] = []
    counts: dict[str, int] = {}
    for tool in raw_tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not name:
            rejected.append(Rejected(name="", reason="a tool without a string 'name'"))
            continue
        if not server.wants(name):
            continue
        counts[name] = counts.get(name, 0) + 1
        reason = judge_tool(tool, envelope, version)
        if reason is None and server.transport != "stdio":
            reason = _header_problem(tool.get("inputSchema"))
        if reason is not None:
            rejected.append(Rejected(name=name, reason=reason))
        else:
            kept[name] = tool
    for name, count in counts.items():
        if count > 1:
            kept.pop(name, None)
            rejected.append(Rejected(name=name, reason=f"the name is served {count} times"))
    unique = {(r.name, r.reason): r for r in rejected}
    return [kept[n] for n in sorted(kept)], sorted(unique.values(), key=lambda r: (r.name, r.reason))


def _header_problem(schema: Any) -> str | None:
    """Over HTTP a client must drop a tool whose `x-mcp-header` annotation is invalid (MCP 2026-07-28)."""
    from mcp.shared.inbound import find_invalid_x_mcp_header

    why = find_invalid_x_mcp_header(schema)
    return None if why is None else f"its x-mcp-header annotation is invalid ({why}): clients must drop it over HTTP"


def _judge_result(result: dict[str, Any], version: str) -> str | None:
    """Why the SDK would refuse this tools/list result for the negotiated version, or None."""
    try:
        validate_server_result("tools/list", version, result)
    except ValidationError as exc:
        return validation_reason(exc)
    except (KeyError, ValueError):  # a protocol version the SDK has no wire models for
        try:
            types.ListToolsResult.model_validate(result)
        except ValidationError as inner:
            return validation_reason(inner)
    return None


def judge_tool(tool: dict[str, Any], envelope: dict[str, Any], version: str) -> str | None:
    """Why the SDK (or JSON Schema) would refuse this tool, or None if it is sound."""
    if (reason := _judge_result({**envelope, "tools": [tool]}, version)) is not None:
        return reason
    if (reason := schema_problem(tool)) is not None:  # before the digests: it refuses what is nested too deeply
        return reason
    try:
        tool_digests(tool)
    except NumberOutOfRange as exc:
        return f"it cannot be digested: {exc}"
    return None


def _with_tail(message: str, errlog: TextIO, secrets: frozenset[str]) -> str:
    """The message and the last lines of the server's stderr, redacted before they are cut to length
    (cut first, a secret across the cut would keep its second half)."""
    try:
        errlog.seek(0)
        text = printable(redact(errlog.read(), secrets))  # a server's stderr may hold terminal escapes
    except (OSError, ValueError):
        return message
    lines = [line for line in text.splitlines() if line.strip()][-_STDERR_TAIL_LINES:]
    tail = "\n".join(lines)[-_STDERR_TAIL_CHARS:]
    return message + ("\n  stderr:\n" + "\n".join("  | " + line for line in tail.splitlines()) if tail else "")
