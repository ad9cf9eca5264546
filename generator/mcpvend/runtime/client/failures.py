"""One line for a third-party server's failure (secret values are taken out with `targets.redact`).

Shared by `mcpvend lock` and the runtime, because both start servers that fail the same ways.
"""

from __future__ import annotations

import json

import httpx2
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, INTERNAL_ERROR
from mcp_types.jsonrpc import (
    HEADER_MISMATCH,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from pydantic import ValidationError

from .disguises import redact
from .oauth_policy import Refused
from .targets import NeedsSignIn
from .task_wire import TASKS_EXTENSION


def leaves(exc: BaseException) -> list[BaseException]:
    """Every real exception inside (nested) exception groups: the SDK's task groups wrap ours."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def leaf(exc: BaseException) -> BaseException:
    """The first of them, which caused the rest."""
    return leaves(exc)[0]


def validation_reason(exc: ValidationError) -> str:
    first = exc.errors()[0]
    location = ".".join(str(p) for p in first["loc"] if p not in ("tools", 0)) or "tool"
    return f"{location}: {first['msg']}"


def reason(exc: BaseException, *, open_link: bool = False) -> str:
    """The most useful single line for a third-party failure.

    `open_link`: the connection is known to be open (`streams.Link`), so an error -32000 is the
    server's own answer, not the SDK's word for a lost connection.
    """
    if isinstance(exc, Refused):  # already the one line
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"cannot start the command: {exc.strerror}: {exc.filename or ''}".rstrip(": ")
    if isinstance(exc, PermissionError):
        return f"cannot start the command: permission denied: {exc.filename or ''}".rstrip(": ")
    if isinstance(exc, MCPError):
        if (actionable := _actionable(exc)) is not None:
            return actionable
        if open_link and exc.code == CONNECTION_CLOSED:
            return f"the server answered with error {exc.code}: {exc.message}"
        if exc.message.lower().startswith("connection closed"):
            return "the server closed the connection (it exited or crashed)"
        if exc.code == CONNECTION_CLOSED:
            return f"the connection closed before the answer was complete: {exc.message}"
        if exc.code == INTERNAL_ERROR and exc.message.startswith("HTTP "):  # see streams.HttpStatuses
            refused = exc.message.startswith(("HTTP 401", "HTTP 403"))
            return f"the server answered {exc.message}" + (" (check the headers configured for it)" if refused else "")
        return f"the server answered with error {exc.code}: {exc.message}"
    if isinstance(exc, httpx2.InvalidURL):
        # httpx quotes the piece it choked on, which may be part of a secret (a '/' in a password cuts
        # the userinfo short, so that the rest reads as a port): no redaction can match a piece.
        return "the url is not a valid URL with its ${VAR}s expanded (percent-encode '/', ':', '@', '?', '#' in values)"
    if isinstance(exc, httpx2.HTTPError):
        return f"HTTP failure: {type(exc).__name__}: {exc}"
    if isinstance(exc, ValidationError):
        return f"the server sent an invalid result: {validation_reason(exc)}"
    return f"{type(exc).__name__}: {exc}"


def _actionable(exc: MCPError) -> str | None:
    """What to change, for the errors MCP 2026-07-28 defines for a request the server cannot take as sent."""
    data = exc.data if isinstance(exc.data, dict) else {}
    if exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
        wanted = data.get("requiredCapabilities")
        wanted = wanted if isinstance(wanted, dict) else {}
        extensions = wanted.get("extensions")
        if isinstance(extensions, dict) and extensions:
            return (
                f"the server requires the client extension {', '.join(sorted(map(str, extensions)))} (error"
                f" {exc.code}): mcpvend declares {TASKS_EXTENSION} alone, to a server whose lockfile records it"
                " offering that extension; lock the server again to review what it offers now"
            )
        names = sorted(name for name in wanted if name != "extensions")
        if names:
            listed = ", ".join(f'"{n}"' for n in names)
            return (
                f"the server requires the client capabilities {', '.join(names)} (error {exc.code}):"
                f" add capabilities = [{listed}] to its config, then lock again"
            )
        return (
            f"the server requires a client capability or extension mcpvend did not declare (error {exc.code}):"
            f" {exc.message}"
        )
    if exc.code == UNSUPPORTED_PROTOCOL_VERSION:
        supported = data.get("supported")
        theirs = ", ".join(map(str, supported)) if isinstance(supported, list) else "not said"
        return (
            f"the server does not speak protocol {data.get('requested', 'asked for')}"
            f" (error {exc.code}; it speaks: {theirs}):"
            ' set protocol = "legacy" or "2026-07-28" in its config to match, then lock again'
        )
    if exc.code == HEADER_MISMATCH:
        return (
            f"the server refused the request's Mcp-* headers (error {exc.code}): {exc.message}; lock the server again"
        )
    return None


def not_started(server: str, exc: BaseException, secrets: frozenset[str]) -> str:
    """Why a server could not be started or reached, with the target's secrets taken out."""
    if isinstance(cause := leaf(exc), NeedsSignIn):  # what to run is the whole message
        return str(cause)
    return f"server '{server}' could not be started: {redact(reason(cause), secrets)}"


def redacted_error(exc: MCPError, secrets: frozenset[str]) -> MCPError | None:
    """The server's error without the secrets it quotes (careless servers echo credentials), or None if clean."""
    message = redact(exc.message, secrets)
    data = "" if exc.data is None else json.dumps(exc.data, default=str)
    clean_data = redact(data, secrets) == data
    if message == exc.message and clean_data:
        return None
    return MCPError(exc.code, message, exc.data if clean_data else None)
