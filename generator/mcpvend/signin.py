"""`mcpvend login`, `logout` and `auth status`: a person signs in to a server once, and `lock`, `diff --live`,
`show` and the generated package use the tokens from then on.

The SDK's OAuth client runs the flow (discovery, registration, PKCE, the token exchange); what is
here is what only a command line has: a one-request listener on 127.0.0.1 (a free port) for the
authorization server's redirect, and the browser, or the URL printed when there is none.
"""

from __future__ import annotations

import asyncio
import os
import webbrowser
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

from mcpvend.config import Config, ServerConfig
from mcpvend.errors import MCPVendError
from mcpvend.runtime.client.disguises import redact
from mcpvend.runtime.client.oauth_policy import Refused
from mcpvend.runtime.client.targets import HttpTarget

if TYPE_CHECKING:
    from mcpvend.runtime.client.oauth_store import TokenStore

_PAGE = b"<!doctype html><title>mcpvend</title><p>Signed in. You can close this tab and go back to the terminal.</p>"
_CALLBACK = "/callback"


class SignInError(MCPVendError):
    """Signing in did not complete (the message names the server and what to do)."""


@dataclass(frozen=True)
class Status:
    """What the token store holds for one server (never the tokens themselves)."""

    server: str
    signed_in: bool
    scopes: str | None
    expires_at: float | None
    path: Path


class Callback:
    """Receives the authorization server's redirect on 127.0.0.1, once."""

    def __init__(self) -> None:
        self.result: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
        self._server: asyncio.Server | None = None
        self.uri = ""

    async def start(self) -> Callback:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.uri = f"http://127.0.0.1:{port}{_CALLBACK}"
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await reader.readline()
            parts = request.decode("latin-1").split()
            target = urlsplit(parts[1]) if len(parts) >= 2 and parts[0] == "GET" else None
            if target is None or target.path != _CALLBACK or self.result.done():
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            self.result.set_result({k: v[0] for k, v in parse_qs(target.query).items()})
            head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(_PAGE)}\r\nConnection: close"
            writer.write(head.encode() + b"\r\n\r\n" + _PAGE)
        finally:
            await writer.drain()
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()


def _oauth_target(config: Config, name: str) -> tuple[ServerConfig, HttpTarget, frozenset[str]]:
    chosen = config.select((name,))[0]
    if chosen.auth is None:
        raise SignInError(f"server '{name}' does not sign in with OAuth (set auth = \"oauth\" in its config)")
    target, named = chosen.target(config.base_dir, os.environ)
    assert isinstance(target, HttpTarget) and target.oauth is not None  # auth is an HTTP key
    return chosen, target, frozenset(named) | target.secret_values()


async def login(config: Config, name: str, *, browser: bool, say: Callable[[str], None]) -> Status:
    """Sign in to `name` afresh (a new registration, new tokens) and check the tokens by listing its tools."""
    from mcp.client.auth import OAuthFlowError, OAuthTokenError
    from mcp.shared.auth import AuthorizationCodeResult

    from mcpvend.runtime.client import failures
    from mcpvend.runtime.client.connection import open_client
    from mcpvend.runtime.client.oauth import provider
    from mcpvend.runtime.client.oauth_store import TokenStore

    server, target, secrets = _oauth_target(config, name)
    store = TokenStore(name, target.url)
    store.forget()
    callback = await Callback().start()

    async def show(url: str) -> None:
        say(f"Open this URL to sign in to '{name}':\n\n  {url}\n")
        if browser:
            await asyncio.to_thread(webbrowser.open, url)

    async def redirected() -> AuthorizationCodeResult:
        query = await asyncio.wait_for(callback.result, timeout=600)
        if "error" in query:
            raise SignInError(f"server '{name}': the authorization server refused: {query['error']}")
        return AuthorizationCodeResult(code=query.get("code", ""), state=query.get("state"), iss=query.get("iss"))

    assert target.oauth is not None
    auth = provider(target.url, target.oauth, redirect_uri=callback.uri, on_url=show, on_callback=redirected)
    try:
        async with open_client(target, auth=auth, protocol=server.protocol) as client:
            await client.list_tools()
    except Exception as exc:  # noqa: BLE001 - one line for whatever stopped the sign-in
        store.forget()
        leaf = failures.leaf(exc)
        if isinstance(leaf, MCPVendError):
            raise leaf from None
        if isinstance(leaf, TimeoutError):
            raise SignInError(
                f"server '{name}': nobody signed in within 10 minutes; run mcpvend login {name} again"
            ) from None
        if isinstance(leaf, OAuthFlowError | OAuthTokenError):
            why = (
                "the redirect's state did not match (a tampered or stale redirect)"
                if "State" in str(leaf)
                else str(leaf)
            )
            raise SignInError(redact(f"server '{name}': sign-in failed: {why}", secrets)) from None
        raise SignInError(f"server '{name}': sign-in failed: {redact(failures.reason(leaf), secrets)}") from None
    finally:
        await callback.close()
    return status(config, name)


def logout(config: Config, name: str) -> bool:
    """Forget the tokens and registration stored for `name`; whether there were any."""
    return _store(config, name).forget()


def status(config: Config, name: str) -> Status:
    store = _store(config, name)
    try:
        data: Mapping[str, object] = store.read()
    except Refused as exc:
        raise SignInError(f"server '{name}': {exc}") from None
    tokens = data.get("tokens")
    scope = tokens.get("scope") if isinstance(tokens, dict) else None
    expires = data.get("expires_at")
    return Status(
        name,
        isinstance(tokens, dict),
        scope if isinstance(scope, str) else None,
        float(expires) if isinstance(expires, int | float) else None,
        store.path,
    )


def _store(config: Config, name: str) -> TokenStore:
    from mcpvend.runtime.client.oauth_store import TokenStore

    _, target, _ = _oauth_target(config, name)
    return TokenStore(name, target.url)


def oauth_servers(config: Config) -> list[str]:
    return [server.name for server in config.select(()) if server.auth is not None]
